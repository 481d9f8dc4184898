"""Max-N with chance nodes and leaf heuristics, Paranoid search, and the heuristics themselves.

Expected values come from hand computation on drawn positions or from plain
recursive searches written here (over the kernels and the games' Python
``chance_outcomes``), never from the searches under test.
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.paranoid import Paranoid
from farl_envs.core.hooks import zero_heuristic
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import _einstein_wurfelt_nicht_values as ewn_values
from farl_envs.games import einstein_wurfelt_nicht as ewn
from farl_envs.games import game2048, sim, yavalath

EWN2 = farl_envs.game_spec("einstein_wurfelt_nicht")


def _ewn_position(cubes: dict, to_move: int, roll: int, ply: int) -> np.ndarray:
    """A 2-player EWN state from ``{(row, col): (player, number)}``."""
    s = np.zeros(EWN2.state_size, dtype=np.int32)
    s[TO_MOVE], s[PLY], s[ewn.ROLL] = to_move, ply, roll
    for (r, c), (q, v) in cubes.items():
        s[ewn.CELLS + 5 * r + c] = 1 + 6 * q + v - 1
    assert EWN2.validate(EWN2.p, s) == ""
    return s


def _action(game, s, name):
    a = game.action_names.index(name)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    assert mask[a]
    return a


# ------------------------------------------------------------------------------- Max-N with chance
def test_maxn_expectimax_value_of_a_small_ewn_position_by_hand():
    # White (player_1, towards (0, 0)) has one cube, the 1 on (3, 4), and rolled 1. Black (player_0, towards
    # (4, 4)) has its 1 on (3, 3), one step from its goal, and its 6 on (0, 3).
    # * White takes black's 1 ((3,4)->(3,3)x): black is left with its 6, which every roll moves, to (1,4),
    #   (1,3) or (0,4): nothing ends within 2 moves, value 0.
    # * White's other moves ((3,4)->(2,4) up, (3,4)->(2,3) up-left): black rolls 1..5 (p = 5/6) and moves its 1
    #   onto (4, 4) (rolls 2..5 may choose the 1, the nearest lower cube); a 6 moves the 6 and wins nothing:
    #   white's expected value 5/6 * (-1) + 1/6 * 0 = -5/6.
    s = _ewn_position({(3, 4): (1, 1), (3, 3): (0, 1), (0, 3): (0, 6)}, to_move=1, roll=1, ply=10)
    vals = MaxN(2, heuristic=False).action_values(EWN2, s)
    take, up, diag = (_action(EWN2, s, n) for n in ("(3,4)->(3,3)x", "(3,4)->(2,4)", "(3,4)->(2,3)"))
    assert np.allclose(vals[take], [0.0, 0.0])
    for a in (up, diag):
        assert np.allclose(vals[a], [5 / 6, -5 / 6])
    assert np.count_nonzero(~np.isnan(vals[:, 0])) == 3
    assert MaxN(2, heuristic=False).act(EWN2, s, make_rng(0)) == take
    assert MaxN(4).act(EWN2, s, make_rng(0)) == take  # deeper, with the heuristic: still the capture


def _expectimax(game, s, depth, evaluate):
    """Plain recursive expectimax-N over the kernels and the game's Python chance outcomes (reference)."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    best = None
    for a in np.flatnonzero(mask):
        out, rew = np.empty_like(s), np.zeros(game.n_players)
        game.afterstate(game.p, s, int(a), out, rew)
        if out[TERMINAL]:
            v = rew
        elif depth == 1:
            v = rew + evaluate(out)
        else:
            v = rew.copy()
            if game.name == "einstein_wurfelt_nicht":
                outcomes = [(lambda t, r=r: ewn.apply_roll(game.p, t, r), pr)
                            for r, pr in ewn.chance_outcomes(game.p, out)]
            else:
                outcomes = [(lambda t, c=c, x=x: game2048.place_tile(game.p, t, c, x), pr)
                            for c, x, pr in game2048.chance_outcomes(game.p, out)]
            for apply, pr in outcomes:
                t = out.copy()
                apply(t)
                v = v + pr * (0.0 if t[TERMINAL] else _expectimax(game, t, depth - 1, evaluate))
        if best is None or v[s[TO_MOVE]] > best[s[TO_MOVE]] + 1e-9:
            best = v
    return best


@pytest.mark.parametrize("name,params,depth", [("einstein_wurfelt_nicht", {"players": 3}, 2),
                                               ("einstein_wurfelt_nicht", {"players": 2}, 2),
                                               ("game2048", {}, 2)])
def test_maxn_matches_a_plain_recursive_expectimax(name, params, depth):
    game = farl_envs.game_spec(name, **params)
    rng = np.random.default_rng(3)
    heuristic = game.heuristic or zero_heuristic

    def evaluate(t):
        out = np.zeros(game.n_players)
        heuristic(game.p, t, out)
        return out

    for seed in range(3):
        s = game.initial_state(game.p, make_rng(seed))
        for _ in range(int(rng.integers(0, 12))):  # a few random moves, with their chance events
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, np.zeros(game.n_players))
            if s[TERMINAL]:
                break
            game.chance(game.p, s, make_rng(seed))
        if s[TERMINAL]:
            continue
        assert np.allclose(MaxN(depth).value(game, s), _expectimax(game, s, depth, evaluate))


@pytest.mark.parametrize("name,params", [("einstein_wurfelt_nicht", {"players": 2}),
                                         ("einstein_wurfelt_nicht", {"players": 4, "size": 4}),
                                         ("game2048", {})])
def test_compiled_chance_outcomes_match_the_python_list(name, params):
    game = farl_envs.game_spec(name, **params)
    module = ewn if name == "einstein_wurfelt_nicht" else game2048
    assert (game.chance_outcome_count, game.apply_chance_outcome) == (module.chance_outcome_count,
                                                                     module.apply_chance_outcome)
    s = game.initial_state(game.p, make_rng(4))
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    after = s.copy()
    game.afterstate(game.p, s, int(np.flatnonzero(mask)[0]), after, np.zeros(game.n_players))
    listed = module.chance_outcomes(game.p, after)
    assert module.chance_outcome_count(game.p, after) == len(listed)
    total = 0.0
    for i, outcome in enumerate(listed):
        t = after.copy()
        prob = module.apply_chance_outcome(game.p, t, i)
        total += prob
        assert prob == pytest.approx(outcome[-1])
        u = after.copy()
        if name == "game2048":
            game2048.place_tile(game.p, u, outcome[0], outcome[1])
        else:
            ewn.apply_roll(game.p, u, outcome[0])
        assert np.array_equal(t, u)
    assert total == pytest.approx(1.0)


# ------------------------------------------------------------------------------------- heuristics
def test_sim_heuristic_counts_dead_edges():
    game = farl_envs.game_spec("sim")  # K6, 2 players
    s = game.initial_state(game.p, make_rng(0))
    out = np.zeros(2)
    sim.heuristic(game.p, s, out)
    assert np.all(out == 0.0)
    names = game.action_names
    # player_0 owns 0-1 and 1-2 (edge 0-2 is dead for it) and 3-4; player_1 owns 0-3, 2-5, 1-4: no two share a
    # node... except 0-3 and 1-4? no; so player_1 has no dead edge
    for edge, q in (("0-1", 1), ("1-2", 1), ("3-4", 1), ("0-3", 2), ("2-5", 2), ("1-4", 2)):
        s[HEADER + names.index(edge)] = q
    sim.heuristic(game.p, s, out)
    assert out[0] == pytest.approx(0.5 * np.tanh(-1 / 4)) and out[1] == pytest.approx(-out[0])
    s[HEADER + names.index("4-5")] = 2  # player_1: 1-4 + 4-5 kills 1-5, 2-5 + 4-5 kills 2-4: two dead edges
    sim.heuristic(game.p, s, out)
    assert out[0] == pytest.approx(0.5 * np.tanh(1 / 4))


def test_yavalath_scores_of_a_drawn_position():
    # size 3 (cell numbers in the game's docstring); player_0 on 7, 8, 10 of row c (7 8 9 10 11), player_1 on 16
    # and 18 of row e (16 17 18). player_0: window 7-10 has 3 stones + 1 empty (+3), window 8-11 has 2 (+1),
    # no cell where its stone makes exactly three (9 makes four): 4. player_1: no window of 4 holds two of its
    # stones; 17 would make exactly three (16 17 18): -1.
    game = farl_envs.game_spec("yavalath", size=3)
    s = game.initial_state(game.p, make_rng(0))
    for c in (7, 8, 10):
        s[HEADER + c] = 1
    for c in (16, 18):
        s[HEADER + c] = 2
    score = np.zeros(2)
    yavalath.scores(game.p, s, score)
    assert score.tolist() == [4.0, -1.0]
    out = np.zeros(2)
    yavalath.heuristic(game.p, s, out)
    assert out[0] == pytest.approx(0.5 * np.tanh(5 / 5)) and out[1] == pytest.approx(-out[0])


def test_yavalath_heuristic_gives_players_who_are_out_nothing():
    game = farl_envs.game_spec("yavalath", players=3)
    s = game.initial_state(game.p, make_rng(0))
    s[HEADER + 30] = 1
    s[HEADER + 31] = 1
    s[HEADER + game.n_cells] = 0b100  # player_2 is out
    out = np.zeros(3)
    yavalath.heuristic(game.p, s, out)
    assert out[2] == 0.0 and out[0] == pytest.approx(-out[1]) and out[0] != 0.0


@pytest.mark.parametrize("players", [2, 3, 6])
def test_chinese_checkers_heuristic_rewards_progress_towards_the_target(players):
    from farl_envs.games import chinese_checkers as cc

    game = farl_envs.game_spec("chinese_checkers", players=players)
    s = game.initial_state(game.p, make_rng(0))
    progress, out = np.zeros(players), np.zeros(players)
    cc.race_progress(game.p, s, progress)
    assert np.allclose(progress, 0.0)
    home, target = cc.POINTS[cc.HOME_POINTS[players][0]], cc.POINTS[(cc.HOME_POINTS[players][0] + 3) % 6]
    t = s.copy()
    t[cc.CELLS + home] = 0
    t[cc.CELLS + target] = 1  # player_0's pegs fill its target (ignoring the pegs there)
    cc.race_progress(game.p, t, progress)
    assert progress[0] == pytest.approx(1.0)
    # one step forward (down the board for player_0, who starts in the north) beats one step sideways
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    values = {}
    for a in np.flatnonzero(mask):
        u = s.copy()
        game.afterstate(game.p, s, int(a), u, np.zeros(players))
        cc.heuristic(game.p, u, out)
        values[int(a)] = out.copy()
        assert out.sum() == pytest.approx(0.0) and out[0] >= 0.0
    down = [a for a in values if a % 6 in (4, 5) and cc.ROW[a // 6] == 3]
    assert all(values[a][0] > 0 for a in down)


def test_ewn_heuristic_by_hand():
    # 2 players, the race. Black (player_0, goal (4, 4)): its 1 on (3, 3), one move away, and its 6 on (0, 3),
    # four moves away; the rolls 2..5 let black choose between the 1 and the 6, so each moves on 5 of 6 faces:
    # race time 1 / (5/6 / 1 + 5/6 / 4) = 0.96 turns. White (goal (0, 0)): its 1 on (2, 2), moved by every
    # roll, two moves away: 2 turns, less half a turn as white is to move.
    s = _ewn_position({(2, 2): (1, 1), (3, 3): (0, 1), (0, 3): (0, 6)}, to_move=1, roll=1, ply=10)
    out = np.zeros(2)
    ewn.heuristic(EWN2.p, s, out)
    assert out[0] == pytest.approx(0.45 * np.tanh(0.6 * (1.5 - 0.96))) and out[1] == pytest.approx(-out[0])
    # GBG's die rule offers only the nearer cube: the 1 on the rolls 2 and 3, the 6 on 4 and 5 (3 faces each):
    # black's race time is 1 / (3/6 + 3/24) = 1.6 turns, now behind white's 1.5
    gbg = farl_envs.game_spec("einstein_wurfelt_nicht", die_rule="gbg")
    ewn.heuristic(gbg.p, s, out)
    assert out[0] == pytest.approx(0.45 * np.tanh(0.6 * (1.5 - 1.6))) and out[0] < 0
    def faces(game, present, cubes):
        out = np.zeros(8, dtype=np.int64)
        ewn_values.die_faces(game.p, np.array(present), out)
        return [int(out[c]) for c in cubes]

    present = [0, 1, 0, 0, 0, 1, 0, 0]  # cubes 1 and 5
    assert faces(EWN2, present, (1, 5)) == [4, 5]  # 1: 1-4; 5: 2-6
    assert faces(gbg, present, (1, 5)) == [3, 4]  # 1: 1-3; 5: 3-6 (3 is equally near)
    present[3] = 1  # and 3: GBG gives the roll 2 to both neighbours (equally near), 4 likewise
    assert faces(gbg, present, (1, 3, 5)) == [2, 3, 3]
    # the start position: both sides' cubes stand alike (every one moved by its own face only), so the player to
    # move is ahead by its half turn
    start = EWN2.initial_state(EWN2.p, make_rng(0))
    ewn.heuristic(EWN2.p, start, out)
    assert out[int(start[TO_MOVE])] == pytest.approx(0.45 * np.tanh(0.6 * 0.5))
    ewn4 = farl_envs.game_spec("einstein_wurfelt_nicht", players=4)
    s4 = ewn4.initial_state(ewn4.p, make_rng(0))
    out4 = np.zeros(4)
    ewn.heuristic(ewn4.p, s4, out4)
    assert np.allclose(out4, 0.0)  # the start is symmetric
    s4[ewn.CELLS + 0] = 0  # player_0 loses its cube on (0, 0): its team (0 and 2) is weaker
    ewn.heuristic(ewn4.p, s4, out4)
    assert out4[0] < 0 and out4[2] == out4[0] and out4[1] == out4[3] == -out4[0]


@pytest.mark.parametrize("name,params", [("sim", {"players": 3}), ("yavalath", {"players": 3}),
                                         ("chinese_checkers", {"players": 4}),
                                         ("einstein_wurfelt_nicht", {"players": 3})])
def test_heuristics_stay_inside_half_a_reward_on_random_games(name, params):
    game = farl_envs.game_spec(name, **params)
    rng = np.random.default_rng(1)
    out = np.zeros(game.n_players)
    for seed in range(3):
        s = game.initial_state(game.p, make_rng(seed))
        mask = np.zeros(game.n_actions, dtype=np.int8)
        for _ in range(120):
            game.heuristic(game.p, s, out)
            assert np.all(np.abs(out) < 0.5)
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, np.zeros(game.n_players))
            if s[TERMINAL]:
                break
            game.chance(game.p, s, make_rng(seed))


def test_maxn_uses_the_heuristic_only_at_the_depth_limit():
    game = farl_envs.game_spec("sim")
    s = game.initial_state(game.p, make_rng(0))
    assert MaxN(1).evaluates(game) and not MaxN(1, heuristic=False).evaluates(game)
    assert not MaxN(1).evaluates(farl_envs.game_spec("tictactoe"))
    vals = MaxN(2, heuristic=False).action_values(game, s)
    assert np.all(vals[~np.isnan(vals[:, 0])] == 0.0)
    names = game.action_names
    for edge, q in (("0-1", 1), ("2-3", 1), ("0-4", 2), ("1-5", 2)):
        s[HEADER + names.index(edge)] = q
    s[PLY] = 4
    # player_0 to move: 0-3 kills 1-3 (with 0-1) and 0-2 (with 2-3) for it; 4-5 touches none of its edges
    vals = MaxN(1).action_values(game, s)
    assert vals[names.index("0-3"), 0] == pytest.approx(0.5 * np.tanh(-2 / 4)) and vals[names.index("4-5"), 0] == 0.0


# ----------------------------------------------------------------------------------------- Paranoid
def _forced_win(game, s, me, gained=0.0):
    """Can ``me`` finish with a total reward of +1 (from here) whatever the others do? Plain AND-OR search."""
    if s[TERMINAL]:
        return gained >= 1.0 - 1e-9
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    results = []
    for a in np.flatnonzero(mask):
        out, rew = np.empty_like(s), np.zeros(game.n_players)
        game.afterstate(game.p, s, int(a), out, rew)
        results.append(_forced_win(game, out, me, gained + rew[me]))
    return any(results) if s[TO_MOVE] == me else all(results)


def test_paranoid_finds_the_forced_wins_of_three_player_sim():
    game = farl_envs.game_spec("sim", players=3, nodes=6)
    rng = np.random.default_rng(7)
    seen = {True: 0, False: 0}
    for _ in range(60):
        s = game.initial_state(game.p, make_rng(0))
        while not s[TERMINAL] and s[PLY] < 9:
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, np.zeros(3))
        if s[TERMINAL]:
            continue
        me = int(s[TO_MOVE])
        win = _forced_win(game, s, me)
        seen[win] += 1
        player = Paranoid(15 - int(s[PLY]))
        assert (player.value(game, s) >= 1.0 - 1e-9) == win
        if win:
            a = player.act(game, s, make_rng(1))
            out, rew = np.empty_like(s), np.zeros(3)
            game.afterstate(game.p, s, a, out, rew)
            assert _forced_win(game, out, me, rew[me])
    assert seen[True] >= 3 and seen[False] >= 3


@pytest.mark.parametrize("name,depth", [("tictactoe", 9), ("einstein_wurfelt_nicht", 3), ("sim", 3)])
def test_paranoid_equals_max_n_in_two_player_zero_sum_games(name, depth):
    game = farl_envs.game_spec(name)
    rng = np.random.default_rng(2)
    for seed in range(4):
        s = game.initial_state(game.p, make_rng(seed))
        for _ in range(int(rng.integers(0, 5))):
            mask = np.zeros(game.n_actions, dtype=np.int8)
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, np.zeros(2))
            if s[TERMINAL]:
                break
            game.chance(game.p, s, make_rng(seed))
        if s[TERMINAL]:
            continue
        me = int(s[TO_MOVE])
        expected = MaxN(depth).value(game, s)[me]
        assert Paranoid(depth).value(game, s) == pytest.approx(expected)
        vals = Paranoid(depth).action_values(game, s)
        best = np.nanmax(vals)
        assert best == pytest.approx(expected)
        ref = MaxN(depth).action_values(game, s)[:, me]
        tied = ~np.isnan(vals) & (vals >= best - 1e-9)
        assert np.allclose(vals[tied], ref[tied])  # the best actions exact
        assert np.all(ref[~np.isnan(vals) & ~tied] < best)


def test_paranoid_validates_input():
    for bad in (0, 101, True, 2.5):
        with pytest.raises(ValueError, match="depth"):
            Paranoid(bad)
    with pytest.raises(ValueError, match="heuristic"):
        Paranoid(3, heuristic=1)
    game = farl_envs.game_spec("tictactoe")
    s = game.initial_state(game.p, make_rng(0))
    with pytest.raises(ValueError, match="shape"):
        Paranoid(2).act(game, s[:-1], make_rng(0))
    s[TERMINAL] = 1
    with pytest.raises(ValueError, match="terminal"):
        Paranoid(2).act(game, s, make_rng(0))
    assert Paranoid(4).name == "Paranoid4"


@pytest.mark.parametrize("spec", ["paranoid2", "maxn2"])
def test_searches_play_every_seat_of_a_three_player_game_in_the_harness(spec):
    import pickle

    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    game = farl_envs.game_spec("einstein_wurfelt_nicht", players=3)
    player = make_opponent(spec, game)
    result = evaluate(game, player, "random", n_games=1, seed=2)
    assert result.n_players == 3 and len(result.seats) == 3
    copy = pickle.loads(pickle.dumps(player))  # worker processes get a copy without the compiled buffers
    s = game.initial_state(game.p, make_rng(1))
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    assert mask[copy.act(game, s, make_rng(0))] == 1
