"""Kuhn poker rules against facts known independently of the kernels.

* OpenSpiel's ``kuhn_poker`` (``pyspiel``) played in lockstep for 2 and 3 players, over every deal and every
  betting sequence: the player to act, the legal actions, the end of the hand, the returns and each seat's
  information state tensor (farl's observation) equal at every step. The deal mapping: OpenSpiel deals in
  chance nodes, ``player_0`` first; its deal action for player ``q`` is farl's card of seat ``q``
  (``state[HEADER + q]``), the card numbers are the same (0 = J .. 3 = A). Plus random games through the AEC env
  with OpenSpiel fed the env's deal, and the deal's distribution (every deal equally likely).
* Hidden information: a seat's observation never depends on another player's card, and the n-tuple board of an
  afterstate depends only on the mover's card and the betting.
* The two-player game's equilibrium value for ``player_0``, -1/18 (Kuhn 1950): CFR+ over the game tree built from
  farl's own kernels, information sets keyed by ``observe``; the average strategy's value and its exploitability,
  computed by an exact best response.
* Hand-checked payoffs, ``validate`` reasons, the text, the refusal of the perfect-information searches.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import kuhn_poker as kp

PASS, BET = kp.PASS, kp.BET


def spec(n=2):
    return farl_envs.game_spec("kuhn_poker", players=n)


def dealt(g, cards):
    """The start position with ``cards[q]`` dealt to seat ``q``."""
    s = g.initial_state(g.p, make_rng(0))
    s[HEADER:HEADER + g.n_players] = cards
    return s


def play(g, s, actions):
    """``s`` after ``actions``; the summed rewards."""
    s = s.copy()
    total = np.zeros(g.n_players)
    rew = np.zeros(g.n_players)
    for a in actions:
        g.afterstate(g.p, s, a, s, rew)
        total += rew
    return s, total


def legal(g, s):
    mask = np.zeros(2, np.int8)
    g.legal_actions(g.p, s, mask)
    return np.flatnonzero(mask).tolist()


def obs(g, s, seat):
    out = np.zeros(g.obs_shape, np.int8)
    g.observe(g.p, s, seat, out)
    return out


def board(g, s):
    out = np.zeros(g.n_cells, np.int32)
    g.board(g.p, s, out)
    return out


def deals(n):
    return list(itertools.permutations(range(n + 1), n))


# ------------------------------------------------------------------------------------------ OpenSpiel lockstep
def _lockstep(pyspiel, g, ps, s, total, visited):
    """Every betting sequence from (OpenSpiel state ``ps``, farl state ``s``), compared at each step."""
    n = g.n_players
    visited.append(1)
    assert bool(s[TERMINAL]) == ps.is_terminal()
    for seat in range(n):
        assert obs(g, s, seat).tolist() == [int(x) for x in ps.information_state_tensor(seat)]
    assert g.validate(g.p, s) == ""
    if ps.is_terminal():
        assert legal(g, s) == []
        assert total.tolist() == ps.returns()
        return
    assert int(s[TO_MOVE]) == ps.current_player()
    assert legal(g, s) == ps.legal_actions()
    assert not total.any()  # rewards only at the end
    for a in legal(g, s):
        child = ps.clone()
        child.apply_action(a)
        t, rew = play(g, s, [a])
        _lockstep(pyspiel, g, child, t, total + rew, visited)


@pytest.mark.parametrize("n", [2, 3])
def test_lockstep_with_openspiel_over_every_deal_and_betting_sequence(n):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("kuhn_poker", {"players": n})
    g = spec(n)
    visited = []
    for cards in deals(n):
        ps = game.new_initial_state()
        for c in cards:  # OpenSpiel's chance nodes deal player_0 first: its deal action is farl's card
            assert ps.is_chance_node()
            ps.apply_action(c)
        _lockstep(pyspiel, g, ps, dealt(g, cards), np.zeros(n), visited)
    # positions per deal: 2 players 9 (5 ends), 3 players 25 (+ the start): counted, so no branch was skipped
    assert len(visited) == len(deals(n)) * {2: 9, 3: 25}[n]


@pytest.mark.parametrize("n", [2, 3])
def test_random_games_through_the_env_match_openspiel(n):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("kuhn_poker", {"players": n})
    rng = np.random.default_rng(n)
    env = farl_envs.make("kuhn_poker", players=n)
    for seed in range(30):
        env.reset(seed=seed)
        raw = env.unwrapped
        ps = game.new_initial_state()
        for q in range(n):
            ps.apply_action(int(raw.state_array[HEADER + q]))
        totals = dict.fromkeys(raw.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert agent == f"player_{ps.current_player()}"
            assert observation["observation"].tolist() == [int(x) for x in ps.information_state_tensor(
                ps.current_player())]
            a = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(a)
            ps.apply_action(a)
            for ag, r in raw.rewards.items():
                totals[ag] += r
        assert ps.is_terminal() and list(totals.values()) == ps.returns()


@pytest.mark.parametrize("n", [2, 3])
def test_every_deal_is_equally_likely(n):
    g = spec(n)
    rng = make_rng(11)
    counts = {}
    draws = 600 * len(deals(n))
    for _ in range(draws):
        s = g.initial_state(g.p, rng)
        key = tuple(int(c) for c in s[HEADER:HEADER + n])
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) == set(deals(n))
    expected = draws / len(deals(n))
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 3 * len(deals(n))  # df = deals - 1; far below a broken deal's


# ------------------------------------------------------------------------------------------ hidden information
def _positions(g, cards):
    """(betting, state) of every position of the deal ``cards``."""
    out = []

    def walk(s, hist):
        out.append((hist, s))
        for a in legal(g, s):
            walk(play(g, s, [a])[0], hist + (a,))
    walk(dealt(g, cards), ())
    return out


@pytest.mark.parametrize("n", [2, 3])
def test_a_seat_sees_its_own_card_and_the_betting_only(n):
    g = spec(n)
    seen = {}  # (seat, own card, betting) -> observation
    boards = {}  # (mover, mover's card, betting) -> n-tuple board of the afterstate
    for cards in deals(n):
        for hist, s in _positions(g, cards):
            for seat in range(n):
                o = obs(g, s, seat).tolist()
                assert seen.setdefault((seat, cards[seat], hist), o) == o  # the others' cards change nothing
            if hist:
                mover = (len(hist) - 1) % n
                b = board(g, s).tolist()
                assert boards.setdefault((mover, cards[mover], hist), b) == b
                assert b[0] == cards[mover] + 1 and b[1:] == [a + 1 for a in hist] + [0] * (2 * n - 1 - len(hist))
            else:
                assert board(g, s).tolist() == [0] * (2 * n)  # nobody moved: no card on the board
    # and each observation does tell the seat's own card and the betting apart
    assert len({tuple(o) for o in seen.values()}) == len(seen)


def test_the_env_and_its_afterstates_show_the_mover_only_its_own_card():
    env = farl_envs.make("kuhn_poker")
    env.reset(seed=4)
    raw = env.unwrapped
    cards = [int(c) for c in raw.state_array[HEADER:HEADER + 2]]
    after = raw.afterstates()
    assert sorted(after) == [PASS, BET]
    for a, rec in after.items():
        assert rec.board.tolist() == [cards[0] + 1, a + 1, 0, 0] and not rec.terminal
    obs1 = env.observe("player_1")["observation"]
    assert obs1[2 + cards[1]] == 1 and obs1[2:5].sum() == 1  # player_1's own card, nothing of player_0's


# ------------------------------------------------------------------------------------------ equilibrium value
def _tree(g):
    """The two-player game tree from farl's kernels: per deal, nested nodes ``(seat, infoset, children)`` or
    ``("end", returns)``; infosets keyed by the mover's observation."""
    def node(s):
        if s[TERMINAL]:
            return ("end", None)
        seat = int(s[TO_MOVE])
        children = []
        for a in legal(g, s):
            t, rew = play(g, s, [a])
            children.append(("end", rew[0]) if t[TERMINAL] else node(t))
        return (seat, obs(g, s, seat).tobytes(), children)
    return [node(dealt(g, cards)) for cards in deals(2)]


def _strategy(regret):
    pos = np.maximum(regret, 0.0)
    return pos / pos.sum() if pos.sum() > 0 else np.full(2, 0.5)


def _cfr_plus(roots, iterations):
    """CFR+ (regret matching+, alternating updates, linear averaging): the average strategy per infoset."""
    regret, avg = {}, {}

    def walk(nd, reach0, reach1, player, t, sigma, delta):
        """Value for player_0 of ``nd`` under ``sigma``; adds ``player``'s regrets to ``delta``, its average."""
        if nd[0] == "end":
            return nd[1]
        seat, key, children = nd
        s = sigma[key]
        vals = np.array([walk(c, reach0 * s[a] if seat == 0 else reach0, reach1 * s[a] if seat == 1 else reach1,
                              player, t, sigma, delta) for a, c in enumerate(children)])
        v = float(s @ vals)
        if seat == player:
            sign, mine, other = (1.0, reach0, reach1) if seat == 0 else (-1.0, reach1, reach0)
            delta[key] = delta.get(key, 0.0) + other * sign * (vals - v) / len(roots)
            avg[key] = avg.get(key, np.zeros(2)) + t * mine * s
        return v

    def keys(nd):
        if nd[0] != "end":
            yield nd[1]
            for c in nd[2]:
                yield from keys(c)
    for key in {k for root in roots for k in keys(root)}:
        regret[key] = np.zeros(2)
    for t in range(1, iterations + 1):
        for player in (0, 1):
            sigma = {k: _strategy(r) for k, r in regret.items()}
            delta = {}
            for root in roots:
                walk(root, 1.0, 1.0, player, t, sigma, delta)
            for key, d in delta.items():
                regret[key] = np.maximum(regret[key] + d, 0.0)
    return {k: v / v.sum() for k, v in avg.items()}


def _value(nd, policy):
    if nd[0] == "end":
        return nd[1]
    seat, key, children = nd
    return sum(policy[key][a] * _value(c, policy) for a, c in enumerate(children))


def _best_response_value(roots, policy, player):
    """``player``'s expected return (its own sign) playing an exact best response to ``policy``: at each of its
    infosets the action with the highest value summed over the histories in it, weighted by the others' reach."""
    sign = 1.0 if player == 0 else -1.0
    at = {}  # infoset -> [(node, opponent reach x chance)]

    def collect(nd, reach):
        if nd[0] == "end":
            return
        seat, key, children = nd
        if seat == player:
            at.setdefault(key, []).append((nd, reach))
        for a, c in enumerate(children):
            collect(c, reach if seat == player else reach * policy[key][a])
    for root in roots:
        collect(root, 1.0 / len(roots))
    choice = {}

    def value(nd):
        if nd[0] == "end":
            return sign * nd[1]
        seat, key, children = nd
        if seat != player:
            return sum(policy[key][a] * value(c) for a, c in enumerate(children))
        if key not in choice:
            totals = [sum(w * value(h[2][a]) for h, w in at[key]) for a in range(2)]
            choice[key] = int(np.argmax(totals))
        return value(children[choice[key]])
    return sum(value(root) for root in roots) / len(roots)


def test_the_two_player_equilibrium_value_is_minus_one_eighteenth():
    roots = _tree(spec(2))
    policy = _cfr_plus(roots, 300)
    assert len(policy) == 12  # 3 cards x (first action, facing a bet) per player
    value = sum(_value(root, policy) for root in roots) / len(roots)
    assert value == pytest.approx(-1 / 18, abs=2e-3)
    br0, br1 = _best_response_value(roots, policy, 0), _best_response_value(roots, policy, 1)
    exploitability = (br0 + br1) / 2  # OpenSpiel's: the mean gain of a best response over the game's value 0
    assert 0 <= exploitability < 5e-3
    # OpenSpiel's own exploitability of the same policy (its information state tensors are farl's observations)
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_exploitability
    game = pyspiel.load_game("kuhn_poker")
    tabular = os_policy.TabularPolicy(game)
    for info, row in tabular.state_lookup.items():
        state = next(s for s in tabular.states if s.information_state_string() == info)
        key = np.array(state.information_state_tensor(), dtype=np.int8).tobytes()
        tabular.action_probability_array[row] = policy[key]
    assert os_exploitability.exploitability(game, tabular) == pytest.approx(exploitability, abs=1e-9)
    # the best response against a uniform random policy is worth more than the game (a check of the BR itself)
    uniform = dict.fromkeys(policy, np.full(2, 0.5))
    assert _best_response_value(roots, uniform, 0) > 0.3


# ------------------------------------------------------------------------------------------ hand-checked payoffs
J, Q, K, A = range(4)


@pytest.mark.parametrize("cards,actions,returns", [
    ((K, Q), (PASS, PASS), [1, -1]),  # both pass: the higher card wins the ante
    ((J, Q), (PASS, PASS), [-1, 1]),
    ((Q, K), (BET, BET), [-2, 2]),  # bet and call: 2 chips
    ((K, J), (BET, BET), [2, -2]),
    ((J, K), (BET, PASS), [1, -1]),  # bet and fold: the bettor wins 1, whatever the cards
    ((K, Q), (PASS, BET, PASS), [-1, 1]),  # check, bet, fold
    ((K, Q), (PASS, BET, BET), [2, -2]),  # check, bet, call
    ((Q, K, A), (PASS, PASS, PASS), [-1, -1, 2]),  # three players: the highest card takes the pot of 3
    ((Q, A, K), (PASS, PASS, PASS), [-1, 2, -1]),
    ((K, J, A), (PASS, BET, BET, PASS), [-1, -2, 3]),  # p1 bets, p2 calls, p0 folds: p2's A beats p1's J
    ((J, Q, K), (BET, PASS, PASS), [2, -1, -1]),  # everybody folds to the bettor
    ((A, Q, K), (BET, BET, BET), [4, -2, -2]),  # everybody calls: the A takes 2 + 2
    ((J, Q, K), (PASS, PASS, BET, PASS, BET), [-1, -2, 3]),  # p2 bets last, p0 folds, p1 calls
])
def test_hand_checked_payoffs(cards, actions, returns):
    g = spec(len(cards))
    s, total = play(g, dealt(g, list(cards)), actions)
    assert s[TERMINAL] == 1 and total.tolist() == returns and kp.returns(g.p, s).tolist() == returns
    assert g.validate(g.p, s) == ""
    assert s[HEADER + len(cards)] == (len(actions) - 1) % len(cards)  # the last mover


def test_the_hand_runs_on_until_everybody_answered_the_bet():
    g = spec(3)
    s, _ = play(g, dealt(g, [J, Q, K]), (PASS, PASS, BET))  # p2 bets last: p0 and p1 still answer
    assert not s[TERMINAL] and s[TO_MOVE] == 0 and legal(g, s) == [PASS, BET]
    s, _ = play(g, s, (BET,))
    assert not s[TERMINAL] and s[TO_MOVE] == 1


# ------------------------------------------------------------------------------------------ validate, text, spec
def test_validate_reasons():
    g = spec(2)
    s = dealt(g, [K, J])
    assert g.validate(g.p, s) == ""
    assert "length" in g.validate(g.p, s[:-1])
    t = s.copy()
    t[HEADER + 1] = K
    assert "different cards" in g.validate(g.p, t)
    t = s.copy()
    t[HEADER + 1] = 3
    assert "different cards" in g.validate(g.p, t)
    after, _ = play(g, s, (PASS,))
    t = after.copy()
    t[HEADER + 2] = 1
    assert "last mover" in g.validate(g.p, t)
    t = after.copy()
    t[HEADER + 4] = 0  # a second action recorded after one ply
    assert "betting entries" in g.validate(g.p, t)
    t = after.copy()
    t[TERMINAL] = 1
    assert "terminal flag" in g.validate(g.p, t)
    t = after.copy()
    t[TO_MOVE] = 0
    assert "player to move" in g.validate(g.p, t)
    over, _ = play(g, s, (BET, PASS))
    t = over.copy()  # an action after the hand ended
    t[PLY], t[TO_MOVE], t[TERMINAL], t[HEADER + 2], t[HEADER + 5] = 3, 1, 0, 0, 0
    assert "over after 2 actions" in g.validate(g.p, t)


def test_text_names_and_spec():
    g = spec(3)
    s, _ = play(g, dealt(g, [K, J, A]), (PASS, BET))
    assert kp.render_text(g.p, s) == "player_0:K player_1:J player_2:A | betting pb | player_2 to act"
    assert kp.seat_text(g.p, s, 1) == "your card (player_1): J | betting pb | player_2 to act"
    s, _ = play(g, s, (BET, PASS))
    assert kp.render_text(g.p, s).endswith("player_2 wins +3")
    assert g.action_names == ("pass", "bet") and g.hidden_information and not g.has_chance
    assert g.symmetries(g.p).tolist() == [list(range(6))] and g.obs_shape == (17,) and g.n_cell_values == 5
    with pytest.raises(ValueError, match="players must be 2 or 3"):
        farl_envs.game_spec("kuhn_poker", players=4)


def test_the_perfect_information_searches_refuse_the_game():
    from farl_agents.opponents import make_opponent

    for name in ("maxn3", "paranoid2", "mcts50", "pretrained+mcts100", "pretrained+expectimax2"):
        with pytest.raises(ValueError, match="hidden information"):
            make_opponent(name, "kuhn_poker")


def test_evaluations_deal_afresh_every_game():
    """The deal is hidden chance at the start: an evaluation's "initial" start is a fresh deal per game, not the
    one deal of make_rng(0) (an agent evaluated on one deal won every game as player_0)."""
    from farl_agents.evaluate import evaluate
    from farl_agents.openings import resolve_starts

    g = spec(2)
    assert resolve_starts(g, "initial") == ("initial", "fresh")
    games = evaluate(g, "random", ["random"], n_games=60, seed=3, seats=[0], keep_games=True).matchups[0].games
    assert {r["score"] for r in games} >= {-2.0, -1.0, 1.0, 2.0}


def test_the_reward_of_a_hand_ending_action_depends_on_the_hidden_cards():
    """Why a learner must not choose by ``reward + V`` here (the module docstring): calling a bet with the queen
    gets +2 against the jack and -2 against the king, on the same board (the queen's view)."""
    g = spec(2)
    outcomes = {}
    for other in (J, K):
        s, _ = play(g, dealt(g, [other, Q]), (BET,))
        t, rew = play(g, s, (BET,))
        outcomes[other] = (board(g, t).tolist(), rew[1])
    assert outcomes[J][0] == outcomes[K][0] and (outcomes[J][1], outcomes[K][1]) == (2.0, -2.0)


def test_farl_play_shows_the_person_only_the_own_card():
    import io

    from farl_agents.cli.play import play_session
    from farl_agents.players import RandomPlayer

    g = spec(2)
    cards = g.initial_state(g.p, make_rng(5))[HEADER:HEADER + 2].tolist()  # play_session deals from make_rng(seed)
    out = io.StringIO()
    play_session(g, RandomPlayer(), 0, io.StringIO("pass\nquit\n"), out, seed=5)  # player_1 passes too here
    before, _, last = out.getvalue().partition("| betting pp |")[0].rpartition("\n")  # ends on the second pass
    assert f"your card (player_0): {'JQK'[cards[0]]}" in before and "player_1:" not in before
    assert last == f"player_0:{'JQK'[cards[0]]} player_1:{'JQK'[cards[1]]} "  # the whole deal once it is over


def test_only_learners_of_observations_may_train_a_hidden_information_game():
    """The n-tuple learners choose by a move's reward plus a value, and a call's reward tells the showdown; the
    searching families read the full state: a run of any of them on Kuhn poker is refused, naming the families
    that learn from a seat's observation alone (SB3's)."""
    from farl_agents import families
    from farl_agents.learners import LearnerConfig
    from farl_agents.runs.spec import RunSpec

    assert [f.name for f in families.FAMILIES if f.observations_only] == ["sb3"]
    with pytest.raises(ValueError, match="hides information.*observations alone: sb3"):
        RunSpec("kuhn_poker", {}, LearnerConfig(ntuple_length=4), eval_vs=("random",), family="ntuple")
    RunSpec("tictactoe", {}, LearnerConfig(), eval_vs=("random",), family="ntuple")  # other games as before
