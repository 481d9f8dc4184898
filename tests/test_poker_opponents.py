"""The poker reference players (``farl_agents.opponents.poker``): equities against known values, hand-worked
decisions, that they read only the mover's own view, and that ``equity`` beats random and ``call`` over many
hands."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import CallPlayer, EquityPlayer, make_opponent, parse_opponent
from farl_agents.opponents.poker import equity, seat_view
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games import poker as pk
from farl_envs.games._poker_hands import card

FOLD, CHECK, BET, CALL, RAISE, ALL_IN, SHOWDOWN = range(7)
GAME = farl_envs.game_spec("poker")


def cards(*names):
    return [card(n) for n in names]


def legal(s) -> set[int]:
    mask = np.zeros(GAME.n_actions, dtype=np.int8)
    GAME.legal_actions(GAME.p, s, mask)
    return {int(a) for a in np.flatnonzero(mask)}


def step(s, a, seed=1):
    assert a in legal(s), (pk.ACTION_NAMES[a], GAME.render_text(GAME.p, s))
    out = s.copy()
    GAME.afterstate(GAME.p, s, a, out, np.zeros(2))
    if not out[TERMINAL]:
        GAME.chance(GAME.p, out, make_rng(seed))
    return out


def give(s, seat, hole, board=()):
    """Seat ``seat`` gets ``hole``, the board ``board`` (named cards); a card already dealt elsewhere is swapped
    with a card nobody holds, so the state stays a deal of distinct cards."""
    wanted = {pk.HOLE + 2 * seat + j: card(n) for j, n in enumerate(hole)}
    wanted.update({pk.BOARD + i: card(n) for i, n in enumerate(board)})
    taken = set(wanted.values())
    free = [c for c in range(52) if c not in taken and c not in s[pk.HOLE:pk.BOARD + 5]]
    for i in range(pk.HOLE, pk.BOARD + 5):
        if i not in wanted and s[i] in taken:
            s[i] = free.pop()
    for i, c in wanted.items():
        s[i] = c
    assert GAME.validate(GAME.p, s) == "", GAME.validate(GAME.p, s)
    return s


def random_positions(n, seed=0, hands=0):
    """``n`` positions where a seat must bet, from random play."""
    g = farl_envs.game_spec("poker", hands=hands)
    rng = make_rng(seed)
    out = []
    mask = np.zeros(g.n_actions, dtype=np.int8)
    while len(out) < n:
        s = g.initial_state(g.p, rng)
        while not s[TERMINAL] and len(out) < n:
            g.legal_actions(g.p, s, mask)
            if not mask[SHOWDOWN]:
                out.append(s.copy())
            nxt = s.copy()
            g.afterstate(g.p, s, rng_choice_mask(rng, mask), nxt, np.zeros(2))
            if not nxt[TERMINAL]:
                g.chance(g.p, nxt, rng)
            s = nxt
    return out


# ------------------------------------------------------------------------------------------------ equity
def test_equity_against_a_random_hand_matches_the_known_preflop_values():
    """Published all-in equities against one random hand: two aces 85.2 %, seven-two offsuit 34.6 %, ace-king
    suited 67.0 %; 20,000 samples (s.e. under 0.004)."""
    rng = make_rng(7)
    assert equity(cards("As", "Ad"), [], 20_000, rng) == pytest.approx(0.852, abs=0.015)
    assert equity(cards("7c", "2d"), [], 20_000, rng) == pytest.approx(0.346, abs=0.015)
    assert equity(cards("Ah", "Kh"), [], 20_000, rng) == pytest.approx(0.670, abs=0.015)


def test_a_hand_that_cannot_lose_or_cannot_win_on_the_river():
    """A royal flush wins every sample; a board that plays (a royal flush on the board) ties every one."""
    rng = make_rng(3)
    assert equity(cards("As", "Ks"), cards("Qs", "Js", "Ts", "2c", "3d"), 50, rng) == 1.0
    assert equity(cards("2c", "3d"), cards("As", "Ks", "Qs", "Js", "Ts"), 50, rng) == 0.5


@pytest.mark.parametrize("hole, board", [([0], []), ([0, 0], []), ([0, 1], [2, 3]), ([0, 52], []),
                                         ([0, 1], [2, 3, 1])])
def test_equity_refuses_impossible_cards(hole, board):
    with pytest.raises(ValueError, match="hole cards"):
        equity(hole, board, 10, make_rng(0))


# ------------------------------------------------------------------------------------------------ decisions
def test_it_never_folds_when_checking_is_free():
    player = EquityPlayer()
    rng = make_rng(11)
    seen = 0
    for s in random_positions(400, seed=5):
        if CHECK in legal(s):
            seen += 1
            assert player.act(GAME, s, rng) != FOLD, GAME.render_text(GAME.p, s)
    assert seen > 50


def test_with_the_nuts_on_the_river_it_bets_raises_or_goes_all_in():
    """Both players check down to the river; the mover then holds a royal flush: first to act it bets or goes
    all-in, facing a bet it raises or goes all-in."""
    s = GAME.initial_state(GAME.p, make_rng(0))
    s = step(s, CALL)  # player_1 completes the small blind
    s = step(s, CHECK)  # player_0's option: the flop
    for _ in range(2):  # flop and turn checked through
        s = step(s, CHECK)
        s = step(s, CHECK)
    assert int(s[pk.STREET]) == 3 and int(s[pk.PHASE]) == pk.BETTING
    me = int(s[TO_MOVE])
    give(s, me, ("As", "Ks"), ("Qs", "Js", "Ts", "2c", "3d"))
    player = EquityPlayer()
    assert player.act(GAME, s, make_rng(1)) in (BET, ALL_IN)
    t = step(s, BET)  # the first mover bets; now the other holds the nuts
    give(t, 1 - me, ("As", "Ks"), ("Qs", "Js", "Ts", "2c", "3d"))
    assert player.act(GAME, t, make_rng(1)) in (RAISE, ALL_IN)


def test_with_seven_two_offsuit_facing_a_raise_before_the_flop_it_folds():
    """player_1 (small blind) raises; player_0 (big blind) holds 7-2 offsuit (34.6 % against a random hand, under
    the 0.4 it needs to call): fold. With two aces it re-raises or goes all-in; with a middling hand (K-9
    offsuit, about 56 %) it calls."""
    s = GAME.initial_state(GAME.p, make_rng(0))
    s = step(s, RAISE)
    assert int(s[TO_MOVE]) == 0 and CALL in legal(s)
    player = EquityPlayer(samples=4000)
    assert player.act(GAME, give(s.copy(), 0, ("7c", "2d")), make_rng(2)) == FOLD
    assert player.act(GAME, give(s.copy(), 0, ("Ac", "Ad")), make_rng(2)) in (RAISE, ALL_IN)
    assert player.act(GAME, give(s.copy(), 0, ("Kc", "9d")), make_rng(2)) == CALL


def test_pot_odds_decide_a_call_of_an_all_in():
    """Facing the other's all-in of 90 more chips before the flop (pot 110 after the blinds and the shove: a call
    needs 90 / 200 = 45 %): K-9 offsuit (about 58 %) calls, all-in itself since its stack cannot cover more;
    4-3 offsuit (about 37 %) folds."""
    s = GAME.initial_state(GAME.p, make_rng(0))
    s = step(s, ALL_IN)  # player_1 shoves 95
    assert legal(s) == {FOLD, ALL_IN}  # player_0 cannot cover: a short call all-in
    player = EquityPlayer(samples=4000)
    assert player.act(GAME, give(s.copy(), 0, ("Kc", "9d")), make_rng(4)) == ALL_IN
    assert player.act(GAME, give(s.copy(), 0, ("4c", "3d")), make_rng(4)) == FOLD


def test_the_players_see_only_the_movers_own_cards():
    """Two positions that differ only in the other seat's hole cards give the same view and, with the same rng,
    the same action."""
    players = [EquityPlayer(), CallPlayer()]
    free_rng = np.random.default_rng(0)
    for k, s in enumerate(random_positions(120, seed=9)):
        me = int(s[TO_MOVE])
        other = s.copy()
        mine = set(int(c) for c in s[pk.HOLE + 2 * me:pk.HOLE + 2 * me + 2]) | set(pk.board_cards(s))
        unseen = [c for c in range(52) if c not in mine]
        other[pk.HOLE + 2 * (1 - me):pk.HOLE + 2 * (1 - me) + 2] = free_rng.choice(unseen, 2, replace=False)
        va, vb = seat_view(GAME, s), seat_view(GAME, other)
        assert (va.hole, va.board, va.owed, va.pot) == (vb.hole, vb.board, vb.owed, vb.pot)
        for player in players:
            ra, rb = make_rng(k), make_rng(k)
            assert player.act(GAME, s, ra) == player.act(GAME, other, rb)
            assert ra[0] == rb[0]


def test_the_call_player_only_checks_calls_or_shows_down():
    player = CallPlayer()
    for s in random_positions(200, seed=3):
        a = player.act(GAME, s, make_rng(0))
        moves = legal(s)
        assert a == (CHECK if CHECK in moves else CALL if CALL in moves else ALL_IN)


# ------------------------------------------------------------------------------------------------ strength
def test_equity_beats_random_and_call_by_far_more_than_the_noise():
    """One hand per game, 1000 per seat: the equity player wins about 9 chips per hand against random (s.e.
    about 1.2) and 11 against the calling station (s.e. about 0.8); the bars at 2.5 and 5 chips lie more than five
    standard errors below the measured figures, and a player no better than its opponent would need to be over
    two (random) and six (call) standard errors lucky to pass."""
    g = farl_envs.game_spec("poker", hands=1)
    result = evaluate(g, make_opponent("equity", g), ["random", "call"], n_games=1000, seed=0, keep_games=False)
    vs_random, vs_call = result.matchups
    assert vs_random.mean_score > 0.025 and vs_random.mean_score > 4 * vs_random.score_se
    assert vs_call.mean_score > 0.05 and vs_call.mean_score > 4 * vs_call.score_se


# ------------------------------------------------------------------------------------------------ registry
def test_the_registry_builds_them_for_poker_only():
    assert isinstance(make_opponent("equity", "poker"), EquityPlayer)
    assert isinstance(make_opponent(" Call ", "poker"), CallPlayer)
    assert parse_opponent("equity").kind == "equity"
    for name in ("equity", "call"):
        with pytest.raises(ValueError, match="poker only"):
            make_opponent(name, "kuhn_poker")
    with pytest.raises(ValueError, match="poker only"):
        EquityPlayer().act(farl_envs.game_spec("tictactoe"), np.zeros(20, dtype=np.int32), make_rng(0))
    with pytest.raises(ValueError):
        EquityPlayer(call_at=0.7, raise_at=0.6)
