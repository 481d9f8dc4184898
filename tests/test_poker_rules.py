"""GBG's heads-up Texas Hold'em (``farl_envs.games.poker``): the rules against situations worked out by hand.

Every expected value below is reasoned from the rules as GBG's ``StateObserverPoker`` states them (blinds 5 / 10,
the dealer posting the big blind heads-up, bets and raises of one big blind, all-in always legal, side pots), not
read back from the kernels: the chips of a side pot, who acts first on each street, the legal actions of a short
stack. Random play checks the invariants (chips conserved, every position valid, rewards zero-sum, the game's end).
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import PLY, TERMINAL, TO_MOVE
from farl_envs.games import poker as pk
from farl_envs.games._poker_hands import card

FOLD, CHECK, BET, CALL, RAISE, ALL_IN, SHOWDOWN = range(7)


def spec(**params):
    return farl_envs.game_spec("poker", **params)


def start(seed=0, **params):
    g = spec(**params)
    return g, g.initial_state(g.p, make_rng(seed))


def legal(g, s) -> set[int]:
    mask = np.zeros(g.n_actions, dtype=np.int8)
    g.legal_actions(g.p, s, mask)
    return {int(a) for a in np.flatnonzero(mask)}


def act(g, s, a, seed=1, deal=True):
    """The afterstate of ``a`` (must be legal) and, with ``deal``, the chance event after it; returns (state,
    rewards)."""
    assert a in legal(g, s), (pk.ACTION_NAMES[a], g.render_text(g.p, s))
    out = s.copy()
    rewards = np.zeros(2)
    g.afterstate(g.p, s, a, out, rewards)
    if deal and not out[TERMINAL]:
        g.chance(g.p, out, make_rng(seed))
    assert g.validate(g.p, out) == "", g.validate(g.p, out)
    return out, rewards


def chips(s):
    return [int(s[pk.CHIPS]), int(s[pk.CHIPS + 1])]


def pot(s):
    return [int(s[pk.CONTRIB]), int(s[pk.CONTRIB + 1])]


def set_cards(s, hole0, hole1, board=()):
    """Give the seats and the board these cards (names like ``"As"``); board cards not named stay as dealt."""
    for q, hole in ((0, hole0), (1, hole1)):
        for j, name in enumerate(hole):
            s[pk.HOLE + 2 * q + j] = card(name)
    for i, name in enumerate(board):
        s[pk.BOARD + i] = card(name)


def showdown_state(contrib, stacks, hole0, hole1, board, folded=(0, 0)):
    """A river position whose betting is over, the showdown to be made (built field by field)."""
    g, s = start()
    s[pk.PHASE] = pk.SHOWN
    s[pk.STREET] = 3
    s[pk.MOVER] = 0
    s[TO_MOVE] = 1
    for q in range(2):
        s[pk.CHIPS + q] = stacks[q]
        s[pk.CONTRIB + q] = contrib[q]
        s[pk.FOLDED + q] = folded[q]
        s[pk.PENDING + q] = 0
    set_cards(s, hole0, hole1, board)
    assert g.validate(g.p, s) == "", g.validate(g.p, s)
    return g, s


# ------------------------------------------------------------------------------------------------ blinds, turns
def test_the_first_hand_posts_the_blinds_and_the_button_moves_on_each_hand():
    """Hand 1: GBG's dealer is player_0; the seat after him (player_1) posts 5 and acts first, the dealer posts 10.
    After player_1 folds (he loses his 5), hand 2's dealer is player_1: now player_0 posts the small blind. No
    reward is paid before the game's end."""
    g, s = start()
    assert int(s[pk.HAND]) == 1 and int(s[pk.BUTTON]) == 0
    assert chips(s) == [90, 95] and pot(s) == [10, 5]
    assert int(s[TO_MOVE]) == 1 and int(s[pk.STREET]) == 0 and pk.board_cards(s) == []
    s, r = act(g, s, FOLD)
    assert r.tolist() == [0.0, 0.0]  # a final-reward game: nothing paid before its end
    assert int(s[pk.HAND]) == 2 and int(s[pk.BUTTON]) == 1
    assert chips(s) == [105 - 5, 95 - 10] and pot(s) == [5, 10]  # player_0 small blind, player_1 big blind
    assert int(s[TO_MOVE]) == 0
    s, r = act(g, s, FOLD)
    assert r.tolist() == [0.0, 0.0] and int(s[pk.BUTTON]) == 0 and chips(s) == [90, 95]


def test_who_acts_first_before_and_after_the_flop():
    """Before the flop the small blind (player_1 in hand 1) acts first and the big blind last. After that GBG gives
    the first turn to the seat after the one who closed the last round: after call / check the small blind, after
    check-check the same seat again, after bet / call the bettor."""
    g, s = start()
    s, _ = act(g, s, CALL)  # player_1 completes the small blind
    assert int(s[TO_MOVE]) == 0 and legal(g, s) == {FOLD, CHECK, BET, ALL_IN}  # the big blind's option
    s, _ = act(g, s, CHECK)  # player_0 closes the round: the flop
    assert int(s[pk.STREET]) == 1 and len(pk.board_cards(s)) == 3 and pot(s) == [10, 10]
    assert int(s[TO_MOVE]) == 1
    s, _ = act(g, s, CHECK)
    s, _ = act(g, s, CHECK)  # player_0 closes: the turn, player_1 first again
    assert int(s[pk.STREET]) == 2 and int(s[TO_MOVE]) == 1
    s, _ = act(g, s, BET)
    assert int(s[TO_MOVE]) == 0 and legal(g, s) == {FOLD, CALL, RAISE, ALL_IN}
    s, _ = act(g, s, CALL)  # player_0 closes: the river, player_1 (the bettor) first
    assert int(s[pk.STREET]) == 3 and int(s[TO_MOVE]) == 1 and pot(s) == [20, 20]


def test_after_the_big_blind_raises_the_big_blind_acts_first_on_the_flop():
    g, s = start()
    s, _ = act(g, s, CALL)
    s, _ = act(g, s, BET)  # player_0 (big blind) bets 10 more
    assert pot(s) == [20, 10] and int(s[TO_MOVE]) == 1
    s, _ = act(g, s, CALL)  # player_1 closes the round
    assert int(s[pk.STREET]) == 1 and int(s[TO_MOVE]) == 0 and pot(s) == [20, 20]


# ------------------------------------------------------------------------------------------------ legal actions
def test_the_small_blind_facing_the_big_blind_may_fold_call_raise_or_go_all_in():
    g, s = start()
    assert legal(g, s) == {FOLD, CALL, RAISE, ALL_IN}
    s2, _ = act(g, s, RAISE)  # owed 5 plus one big blind: 15 more, 20 in all
    assert pot(s2) == [10, 20] and chips(s2) == [90, 80] and int(s2[TO_MOVE]) == 0


def test_raises_have_no_limit_but_the_stacks():
    """GBG counts no raises: each raise adds what is owed plus 10, while the stack holds more than that."""
    g, s = start()
    for _ in range(8):
        s, _ = act(g, s, RAISE)
    # eight raises in one round, alternating, each lifting the top contribution by 10: 20, 30, ..., 90
    assert pot(s) == [90, 80] and chips(s) == [10, 20] and int(s[TO_MOVE]) == 1
    assert legal(g, s) == {FOLD, CALL, ALL_IN}  # owes 10 with 20 behind: a raise needs more than 20


def _facing(owed, stack, street=1):
    """player_1 to act on the flop, owing ``owed`` with ``stack`` chips behind (player_0 bet last)."""
    g, s = start()
    s[pk.STREET] = street
    set_cards(s, ("As", "Ks"), ("Qh", "Jh"), ("2c", "7d", "9h"))
    base = 20
    s[pk.CONTRIB] = base + owed
    s[pk.CONTRIB + 1] = base
    s[pk.CHIPS + 1] = stack
    s[pk.CHIPS] = pk.TOTAL_CHIPS - stack - 2 * base - owed
    s[pk.PENDING] = 0
    s[pk.PENDING + 1] = 1
    s[pk.MOVER] = 0
    s[TO_MOVE] = 1
    s[PLY] = 3
    assert g.validate(g.p, s) == "", g.validate(g.p, s)
    return g, s


@pytest.mark.parametrize("owed,stack,want", [
    (0, 100, {FOLD, CHECK, BET, ALL_IN}),       # after a check: fold is legal too (GBG)
    (0, 10, {FOLD, CHECK, ALL_IN}),             # a bet needs more than the big blind
    (10, 100, {FOLD, CALL, RAISE, ALL_IN}),     # facing a bet
    (10, 20, {FOLD, CALL, ALL_IN}),             # a raise needs more than owed + 10
    (10, 25, {FOLD, CALL, RAISE, ALL_IN}),
    (10, 10, {FOLD, ALL_IN}),                   # exactly what is owed: the all-in is the call
    (20, 5, {FOLD, ALL_IN}),                    # cannot cover the call: fold or all-in only
])
def test_legal_actions_in_hand_built_situations(owed, stack, want):
    g, s = _facing(owed, stack)
    assert legal(g, s) == want


def test_a_short_all_in_is_a_call_and_does_not_reopen_the_betting():
    """player_1 owes 20 with 5 chips: his all-in puts him in for 25 against 40; nobody can bet any more, so the
    board is dealt out and the showdown is due. The side pot: 2 x 25 contested, player_0's other 15 his own."""
    g, s = _facing(20, 5)
    s, _ = act(g, s, ALL_IN)
    assert chips(s)[1] == 0 and pot(s) == [40, 25]
    assert int(s[pk.PHASE]) == pk.SHOWN and int(s[pk.STREET]) == 3 and len(pk.board_cards(s)) == 5
    assert legal(g, s) == {SHOWDOWN}


def test_an_all_in_for_more_than_owed_is_a_raise_and_the_other_acts_again():
    g, s = _facing(10, 100)
    s, _ = act(g, s, ALL_IN)
    assert pot(s) == [30, 120] and int(s[TO_MOVE]) == 0 and int(s[pk.PHASE]) == pk.BETTING
    # player_0 has 50 behind and owes 90: fold or all-in (a call of everything he has)
    assert chips(s)[0] == 200 - 120 - 30 == 50
    assert legal(g, s) == {FOLD, ALL_IN}


def test_gbg_lets_a_player_raise_against_an_all_in_and_the_excess_comes_back():
    """player_0 is all-in for 30 in all; player_1 (stack 150, owes 10) may still raise (GBG's action set): he puts
    in 20 more, the board runs out; whoever wins the 60 contested, player_1's extra 10 is returned to him."""
    g, s = _facing(10, 150)
    s[pk.CHIPS] = 0
    s[pk.CONTRIB] = 30
    s[pk.CHIPS + 1] = 150
    assert g.validate(g.p, s) == ""
    assert RAISE in legal(g, s)
    s, _ = act(g, s, RAISE)
    assert pot(s) == [30, 40] and int(s[pk.PHASE]) == pk.SHOWN
    set_cards(s, ("As", "Ad"), ("3c", "4d"), ("Ah", "Kc", "8s", "6h", "Jd"))  # player_0: three aces
    s, r = act(g, s, SHOWDOWN, deal=False)
    assert chips(s) == [60, 140] and r.tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------------------------------ pots, showdown
@pytest.mark.parametrize("winner,stacks,rewards", [
    (0, [60, 140], [0.0, 0.0]),    # the all-in player wins the main pot 2 x 30; player_1 gets his 50 back
    (1, [0, 200], [-1.0, 1.0]),    # player_1 wins everything: player_0 is broke, the game over (GBG's -100 / +100)
    (-1, [30, 170], [0.0, 0.0]),   # a tie: the main pot halved (30 each), the side pot back to player_1
])
def test_side_pot_with_an_all_in_short_stack(winner, stacks, rewards):
    """player_0 all-in for 30, player_1 in for 80 with 90 behind."""
    hole = {0: (("Kh", "Kd"), ("2c", "3d")), 1: (("2c", "3d"), ("Kh", "Kd")), -1: (("2c", "3d"), ("2h", "3s"))}
    board = ("Ts", "Jh", "Qd", "9c", "4s") if winner >= 0 else ("Ts", "Jh", "Qd", "Kc", "Ac")
    g, s = showdown_state([30, 80], [0, 90], *hole[winner], board)
    out, r = act(g, s, SHOWDOWN, deal=False)
    assert chips(out) == stacks and r.tolist() == rewards
    assert bool(out[TERMINAL]) == (winner == 1)


def test_a_split_pot_is_halved_exactly():
    """Both play the board's broadway straight: a pot of 2 x 45 goes back 45 / 45."""
    g, s = showdown_state([45, 45], [55, 55], ("2c", "3d"), ("4h", "5s"), ("Ts", "Jh", "Qd", "Kc", "Ac"))
    out, r = act(g, s, SHOWDOWN, deal=False)
    assert chips(out) == [100, 100] and r.tolist() == [0.0, 0.0] and int(out[pk.PHASE]) == pk.NEW_HAND
    g.chance(g.p, out, make_rng(0))  # the next hand: player_1 deals, player_0 posts the small blind
    assert int(out[pk.PHASE]) == pk.BETTING and int(out[pk.HAND]) == 2 and chips(out) == [95, 90]


def test_the_showdown_ranks_hands_by_the_standard_order_not_gbg_s_suit_of_the_flush():
    """Two hearts flushes: the ace-high one wins (GBG's evaluator compares the suit and would split)."""
    g, s = showdown_state([50, 50], [50, 50], ("Ah", "2h"), ("Kh", "3h"), ("9h", "7h", "4h", "2c", "5d"))
    out, r = act(g, s, SHOWDOWN, deal=False)
    assert chips(out) == [150, 50] and r.tolist() == [0.0, 0.0]
    g1 = spec(hands=1)  # the same hand as a one-hand episode: its reward is the chip change over 100
    g1.afterstate(g1.p, s, SHOWDOWN, out, r)
    assert out[TERMINAL] and r.tolist() == [0.5, -0.5]


def test_a_fold_ends_the_hand_and_the_other_takes_the_pot():
    """Flop: player_1 bets 10, player_0 folds: player_1 takes the 30 in the pot, player_0 lost his 10."""
    g, s = start()
    s, _ = act(g, s, CALL)
    s, _ = act(g, s, CHECK)
    s, _ = act(g, s, BET)
    assert pot(s) == [10, 20]
    s, r = act(g, s, FOLD)
    assert r.tolist() == [0.0, 0.0] and chips(s)[0] + pot(s)[0] == 90 and chips(s)[1] + pot(s)[1] == 110
    assert int(s[pk.HAND]) == 2 and pk.board_cards(s) == []


def test_a_player_all_in_on_his_blind_does_not_act_and_the_board_runs_out():
    """player_1 has 5 chips: as hand 1's small blind he is all-in; the big blind owes nothing, so nobody bets and
    the whole board is dealt; at the showdown only 2 x 5 are contested, player_0's other 5 come back."""
    g = spec()
    s = np.zeros(g.state_size, dtype=np.int32)
    s[pk.PHASE] = pk.NEW_HAND
    s[pk.MOVER] = -1
    s[pk.CHIPS], s[pk.CHIPS + 1] = 195, 5
    s[pk.HOLE:pk.BOARD + 5] = -1
    code = g.chance(g.p, s, make_rng(4))
    assert g.validate(g.p, s) == ""
    assert pot(s) == [10, 5] and int(s[pk.PHASE]) == pk.SHOWN and len(pk.board_cards(s)) == 5
    assert g.chance_info(code)["new_hand"] == 1 and all(c >= 0 for c in g.chance_info(code)["board"])
    set_cards(s, ("2c", "3d"), ("Ah", "Ad"), ("Kc", "Qs", "8d", "7h", "5c"))
    s, r = act(g, s, SHOWDOWN, deal=False)
    assert chips(s) == [190, 10] and r.tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------------------------------ the game
def test_random_games_conserve_chips_and_end_with_one_player_holding_all():
    """Over random games through the env: the 200 chips (stacks plus pot) stay constant after every step,
    every position is valid, rewards are zero-sum, and the game ends with a broke player (return -1 / +1) or at
    the cap (truncated, the returns the chip changes)."""
    env = farl_envs.make("poker")
    raw = env.unwrapped
    g = raw.game
    rng = np.random.default_rng(0)
    ends = {"broke": 0, "cap": 0}
    for seed in range(150):
        env.reset(seed=seed)
        totals = np.zeros(2)
        while not raw.state_array[TERMINAL]:
            env.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
            s = raw.state_array
            assert sum(chips(s)) + sum(pot(s)) == pk.TOTAL_CHIPS
            assert g.validate(g.p, s) == ""
            r = [raw.rewards["player_0"], raw.rewards["player_1"]]
            assert r[0] == -r[1] and (r[0] == 0.0 or s[TERMINAL])  # paid once, at the end
            totals += r
        s = raw.state_array
        assert totals.tolist() == [(c - 100) / 100 for c in chips(s)]
        if min(chips(s)) == 0:
            ends["broke"] += 1
            assert sorted(chips(s)) == [0, 200] and not any(raw.truncations.values())
            assert sorted(totals.tolist()) == [-1.0, 1.0]
        else:
            ends["cap"] += 1
            assert all(raw.truncations.values()) and int(s[pk.HAND]) == 100
    assert ends["broke"] > 100


def test_a_one_hand_episode_pays_the_chip_change_of_the_hand():
    """``hands=1``: player_1 folds his small blind, the episode is over, he lost 5 of his 100 start chips."""
    g, s = start(hands=1)
    s, r = act(g, s, FOLD)
    assert s[TERMINAL] and chips(s) == [105, 95] and r.tolist() == [0.05, -0.05]


def test_hands_ends_the_episode_and_max_hands_truncates_it():
    for params, truncated in (({"hands": 1}, False), ({"max_hands": 1}, True)):
        env = farl_envs.make("poker", **params)
        env.reset(seed=2)
        raw = env.unwrapped
        while not raw.state_array[TERMINAL]:  # check / call down: the hand goes to a showdown
            mask = raw.action_mask()
            env.step(next(a for a in (SHOWDOWN, CHECK, CALL) if mask[a]))
        assert int(raw.state_array[pk.HAND]) == 1 and min(chips(raw.state_array)) > 0
        assert all(raw.truncations.values()) == truncated and all(raw.terminations.values()) != truncated


def test_player_0_s_view_does_not_change_with_player_1_s_hole_cards():
    g, s = start(seed=5)
    s, _ = act(g, s, CALL)
    s, _ = act(g, s, CHECK)  # the flop is out, player_0 made the last move
    other = s.copy()
    used = {int(c) for c in s[pk.HOLE:pk.BOARD + 5] if c >= 0}
    free = [c for c in range(52) if c not in used]
    other[pk.HOLE + 2:pk.HOLE + 4] = free[:2]
    assert g.validate(g.p, other) == ""
    obs = [np.zeros(g.obs_shape, dtype=np.int8) for _ in range(4)]
    for k, (state, seat) in enumerate(((s, 0), (other, 0), (s, 1), (other, 1))):
        g.observe(g.p, state, seat, obs[k])
    assert obs[0].tolist() == obs[1].tolist() and obs[2].tolist() != obs[3].tolist()
    assert obs[0][:52].sum() == 2 and obs[0][52:104].sum() == 3  # own two cards, the three board cards
    boards = [np.zeros(g.n_cells, dtype=np.int32) for _ in range(2)]
    g.board(g.p, s, boards[0])
    g.board(g.p, other, boards[1])
    assert boards[0].tolist() == boards[1].tolist()  # the last mover's (player_0's) view


def test_chance_outcomes_are_every_card_sequence_with_equal_probability():
    g, s = start()
    after = s.copy()
    g.afterstate(g.p, s, CALL, after, np.zeros(2))
    g.afterstate(g.p, after.copy(), CHECK, after, np.zeros(2))
    assert int(after[pk.PHASE]) == pk.CARDS
    n = int(g.chance_outcome_count(g.p, after))
    assert n == 48 * 47 * 46  # the flop, in the order dealt, from the 48 cards nobody holds
    t = after.copy()
    assert g.apply_chance_outcome(g.p, t, 0) == pytest.approx(1 / n)
    holes = {int(c) for c in s[pk.HOLE:pk.HOLE + 4]}
    lowest = [c for c in range(52) if c not in holes][:3]
    assert pk.board_cards(t) == lowest and g.validate(g.p, t) == ""


def test_validate_refuses_impossible_positions():
    g, s = start()
    assert g.validate(g.p, s) == ""
    bad = {
        "chips": lambda t: t.__setitem__(pk.CHIPS, 95),  # 5 chips gone
        "unit": lambda t: (t.__setitem__(pk.CHIPS, 88), t.__setitem__(pk.CHIPS + 1, 97)),
        "cards": lambda t: t.__setitem__(pk.HOLE + 2, t[pk.HOLE]),  # a card twice
        "board": lambda t: t.__setitem__(pk.BOARD, 7),  # a flop card before the flop
        "mover": lambda t: t.__setitem__(TO_MOVE, 0),  # the big blind to act first
        "folded": lambda t: t.__setitem__(pk.FOLDED, 1),
        "terminal": lambda t: t.__setitem__(TERMINAL, 1),
    }
    for why, spoil in bad.items():
        t = s.copy()
        spoil(t)
        assert g.validate(g.p, t) != "", why


@pytest.mark.parametrize("params", [{"hands": -1}, {"hands": 1001}, {"hands": True}, {"max_hands": 0},
                                    {"max_hands": "5"}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        spec(**params)


def test_td_may_train_poker_but_sarsa_q_and_kuhn_stay_refused():
    """Poker's move rewards are public (GameSpec.move_rewards_public: chips move at a fold or at the forced showdown
    step), so TD on afterstates, which sees the mover's own board, may train it; SARSA and Q value the position
    before a move, whose board is the previous mover's view (his hole cards), and stay refused, as TD on Kuhn
    poker (a call that ends the hand is rewarded by both cards)."""
    import farl_envs
    from farl_agents.learners import LearnerConfig
    from farl_agents.runs.spec import RunSpec

    assert farl_envs.game_spec("poker").move_rewards_public
    assert not farl_envs.game_spec("kuhn_poker").move_rewards_public
    RunSpec("poker", {"hands": 1}, LearnerConfig(ntuple_length=3), eval_vs=("random",), family="ntuple")
    for algo in ("sarsa", "q"):
        with pytest.raises(ValueError, match="hides information.*or, since its move rewards are public, TD"):
            RunSpec("poker", {"hands": 1}, LearnerConfig(algo=algo, ntuple_length=3), eval_vs=("random",),
                    family="ntuple")
    with pytest.raises(ValueError, match="hides information"):
        RunSpec("kuhn_poker", {}, LearnerConfig(ntuple_length=4), eval_vs=("random",), family="ntuple")
