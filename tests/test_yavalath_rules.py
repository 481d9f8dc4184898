"""Yavalath rules (2 and 3 players) against hand-built positions and a second implementation.

The second implementation (:class:`RefYavalath`) is written here from the
rules alone: cube coordinates, each player's stones in a Python set, and the
outcome of a move read off *all* maximal lines of the mover on the board
(the kernel only follows the lines through the stone just placed). Random
games and move counts (perft) of both must agree move by move. Positions
are written with the cell names of the module (row letter ``a``..``i`` from
the top, place in the row from 1).
"""
from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from farl_envs import yavalath_v0
from farl_envs.core.playout import playouts
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import yavalath as yv


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ------------------------------------------------------- the second implementation
AXES = ((1, -1, 0), (1, 0, -1), (0, 1, -1))
NEIGHBOUR_STEPS = AXES + tuple((-a, -b, -c) for a, b, c in AXES)


def ref_cells(size):
    """Cube coordinates ``(x, y, z)`` of the hexagon, ordered by row ``z`` (top first), then ``x`` (left first)."""
    k = size - 1
    cells = [(x, -x - z, z) for z in range(-k, k + 1) for x in range(-k, k + 1) if abs(x + z) <= k]
    return sorted(cells, key=lambda c: (c[2], c[0]))


def _add(c, d, times=1):
    return (c[0] + times * d[0], c[1] + times * d[1], c[2] + times * d[2])


def line_lengths(stones):
    """Lengths of all maximal lines of the stone set ``stones`` along the three axes."""
    out = []
    for c in stones:
        for d in AXES:
            if _add(c, d, -1) in stones:
                continue
            k = 1
            while _add(c, d, k) in stones:
                k += 1
            out.append(k)
    return out


class RefYavalath:
    """Yavalath from the rules text, on sets of cube coordinates."""

    def __init__(self, size, players, swap=False):
        self.cells = ref_cells(size)
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.players, self.swap = players, swap
        self.stones = [set() for _ in range(players)]
        self.to_move, self.ply, self.over = 0, 0, False
        self.out = []  # seats that are out, in the order they dropped out

    def copy(self):
        r = RefYavalath.__new__(RefYavalath)
        r.__dict__.update(self.__dict__)
        r.stones = [set(s) for s in self.stones]
        r.out = list(self.out)
        return r

    def empty(self):
        taken = set().union(*self.stones)
        return [c for c in self.cells if c not in taken]

    def next_in(self, seat):
        q = (seat + 1) % self.players
        while q in self.out:
            q = (q + 1) % self.players
        return q

    def makes_four(self, seat, cell):
        return max(line_lengths(self.stones[seat] | {cell})) >= 4

    def legal(self):
        if self.over:
            return set()
        empty = self.empty()
        moves = set(empty)
        if self.players == 3:
            nxt = self.next_in(self.to_move)
            threats = {c for c in empty if self.makes_four(nxt, c)}
            if len(threats) == 1:
                moves = threats | {c for c in empty if self.makes_four(self.to_move, c)}
        if self.swap and self.ply == 1:
            moves |= self.stones[0]
        return {self.index[c] for c in moves}

    def play(self, action):
        """Play cell number ``action``; return the reward of each seat for this move."""
        cell = self.cells[action]
        me = self.to_move
        rewards = [0.0] * self.players
        self.ply += 1
        if cell in self.stones[0] and self.swap and self.ply == 2:
            self.stones[0].discard(cell)
            self.stones[1].add(cell)
            self.to_move = 0
            return rewards
        self.stones[me].add(cell)
        lengths = line_lengths(self.stones[me])
        full = not self.empty()
        if max(lengths) >= 4:
            self.over = True
            for q in range(self.players):
                if q not in self.out:
                    rewards[q] = 1.0 if q == me else -1.0
        elif 3 in lengths:
            rewards[me] = -1.0
            if self.players == 2:
                rewards[1 - me] = 1.0
                self.over = True
            else:
                self.out.append(me)
                left = [q for q in range(3) if q not in self.out]
                if len(left) == 1:
                    rewards[left[0]] = 1.0
                    self.over = True
        if full:
            self.over = True
        self.to_move = 1 - me if self.players == 2 else self.next_in(me)
        return rewards


# --------------------------------------------------------------- helpers
def _spec(size=5, players=2, swap=False):
    return yv.make_spec(size=size, players=players, swap=swap)


def _names(spec):
    return {name: i for i, name in enumerate(spec.action_names)}


def _position(spec, stones, to_move, out=()):
    """A state from ``{seat: [cell names]}``; ply = stones on the board, ``out`` the seats that are out."""
    names = _names(spec)
    s = spec.initial_state(spec.p, make_rng(0))
    for seat, cells in stones.items():
        for name in cells:
            s[HEADER + names[name]] = seat + 1
    s[PLY] = sum(len(c) for c in stones.values())
    s[TO_MOVE] = to_move
    for q in out:
        s[HEADER + spec.n_cells] |= 1 << q
    assert spec.validate(spec.p, s) == "", spec.validate(spec.p, s)
    return s


def _legal(spec, s):
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    n = spec.legal_actions(spec.p, s, mask)
    assert n == mask.sum()
    return set(int(a) for a in np.flatnonzero(mask))


def _step(spec, s, name_or_action):
    a = _names(spec)[name_or_action] if isinstance(name_or_action, str) else name_or_action
    assert a in _legal(spec, s), f"{name_or_action} should be legal"
    out = np.empty_like(s)
    rew = np.zeros(spec.n_players)
    spec.afterstate(spec.p, s, a, out, rew)
    return out, rew


def _play(spec, moves):
    s = spec.initial_state(spec.p, make_rng(0))
    total = np.zeros(spec.n_players)
    for m in moves:
        s, rew = _step(spec, s, m)
        total += rew
    return s, total


# -------------------------------------------------------------- board facts
@pytest.mark.parametrize("size", range(yv.MIN_SIZE, yv.MAX_SIZE + 1))
def test_cell_count_and_neighbours_match_cube_coordinates(size):
    spec = _spec(size)
    n = 3 * size * (size - 1) + 1
    assert spec.n_cells == spec.n_actions == n == len(ref_cells(size))
    cells = ref_cells(size)
    where = {c: i for i, c in enumerate(cells)}
    nb = spec.cell_neighbours(spec.p)
    for i, c in enumerate(cells):
        expected = {where[_add(c, d)] for d in NEIGHBOUR_STEPS if _add(c, d) in where}
        assert set(nb[i]) == expected and len(nb[i]) == len(expected)
    degrees = Counter(len(x) for x in nb)
    # 6 corners with 3 neighbours, 6 * (size - 2) other border cells with 4, the rest 6
    assert degrees == {3: 6, 4: 6 * (size - 2), 6: n - 6 - 6 * (size - 2)}


def test_the_standard_board_has_61_cells_named_a1_to_i5():
    spec = _spec()
    assert spec.n_cells == 61 and spec.state_size == 3 + 61 and spec.n_cell_values == 3
    assert spec.action_names[:6] == ("a1", "a2", "a3", "a4", "a5", "b1")
    assert spec.action_names[26:35] == tuple(f"e{k}" for k in range(1, 10)) and spec.action_names[-1] == "i5"
    spec3 = _spec(players=3)
    assert spec3.state_size == 3 + 61 + 1 and spec3.n_cell_values == 4 and spec3.obs_shape == (9, 9, 4)
    assert spec3.eliminated is not None and spec.eliminated is None


# ------------------------------------------------------ hand-built positions: 2 players
def test_four_in_a_row_wins():
    spec = _spec()
    s, total = _play(spec, ["c1", "g1", "c2", "g3", "c4", "i1", "c3"])
    assert s[TERMINAL] == 1 and list(total) == [1, -1]


def test_three_in_a_row_loses():
    spec = _spec()
    s, total = _play(spec, ["c1", "g1", "c2", "g3", "c3"])
    assert s[TERMINAL] == 1 and list(total) == [-1, 1]
    assert _legal(spec, s) == set()


def test_three_along_each_axis_loses():
    spec = _spec()
    # b2 c3 d4 runs down-right, b3 c3 d3 down-left (the middle row has 9 cells, so the places shift)
    for line in (["b2", "c3", "d4"], ["b3", "c3", "d3"], ["f2", "g2", "h2"], ["f3", "g2", "h1"]):
        s, total = _play(spec, [line[0], "i5", line[1], "a5", line[2]])
        assert s[TERMINAL] == 1 and list(total) == [-1, 1], line


def test_two_apart_is_no_line():
    spec = _spec()
    # c1 c2 _ c4 is no three (the gap counts), nor is d1 next to c1 and c2 (two lines of two)
    s, total = _play(spec, ["c1", "i1", "c2", "i3", "c4", "i5", "d1"])
    assert s[TERMINAL] == 0 and not total.any()


def test_four_and_three_with_one_stone_wins():
    spec = _spec()
    # X: c1 c2 _ c4 on row c and b2 _ d4 through c3 on another axis; O far away
    s = _position(spec, {0: ["c1", "c2", "c4", "b2", "d4"], 1: ["g1", "g3", "i1", "i3", "h5"]}, 0)
    out, rew = _step(spec, s, "c3")
    assert out[TERMINAL] == 1 and list(rew) == [1, -1]
    # without c4 the same stone makes only threes: a loss
    s = _position(spec, {0: ["c1", "c2", "a5", "b2", "d4"], 1: ["g1", "g3", "i1", "i3", "h5"]}, 0)
    out, rew = _step(spec, s, "c3")
    assert out[TERMINAL] == 1 and list(rew) == [-1, 1]


def test_five_in_a_row_wins():
    spec = _spec()
    s = _position(spec, {0: ["e1", "e2", "e4", "e5"], 1: ["a1", "a3", "i1", "i3"]}, 0)
    out, rew = _step(spec, s, "e3")
    assert out[TERMINAL] == 1 and list(rew) == [1, -1]


# a full size-3 board with no three in a row (19 cells in cell order; 10 of seat 0 and 9 of seat 1)
FULL_2P = [2, 1, 2, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 2, 2, 1, 2]
FULL_3P = [2, 1, 3, 1, 2, 1, 1, 3, 2, 3, 3, 1, 1, 2, 2, 3, 2, 1, 3]


@pytest.mark.parametrize("players,full", [(2, FULL_2P), (3, FULL_3P)])
def test_full_board_is_a_draw(players, full):
    spec = _spec(size=3, players=players)
    ref_lengths = [line_lengths({c for c, v in zip(ref_cells(3), full) if v == q + 1}) for q in range(players)]
    assert all(max(x) <= 2 for x in ref_lengths)  # no line of 3 anywhere
    last = full.index(1)  # seat 0 placed the last of the 19 stones
    s = spec.initial_state(spec.p, make_rng(0))
    s[HEADER:HEADER + 19] = full
    s[HEADER + last] = 0
    s[PLY] = 18
    assert spec.validate(spec.p, s) == ""
    assert _legal(spec, s) == {last}
    out, rew = _step(spec, s, last)
    assert out[TERMINAL] == 1 and not rew.any()
    assert spec.validate(spec.p, out) == ""


# a full size-3 board where seat 0's only line of three is c1 d1 e1 (the lower left edge)
FULL_WITH_THREE = [1, 1, 2, 2, 2, 1, 2, 1, 1, 2, 2, 1, 1, 2, 1, 2, 1, 2, 1]


def test_three_on_the_last_cell_still_loses():
    spec = _spec(size=3)
    names = _names(spec)
    lines = line_lengths({c for c, v in zip(ref_cells(3), FULL_WITH_THREE) if v == 1})
    assert sorted(lines)[-2:] == [2, 3]
    assert [spec.action_names[i] for i in range(19) if FULL_WITH_THREE[i] == 1 and i in
            (names["c1"], names["d1"], names["e1"])] == ["c1", "d1", "e1"]
    s = spec.initial_state(spec.p, make_rng(0))
    s[HEADER:] = FULL_WITH_THREE
    s[HEADER + names["d1"]] = 0  # the last empty cell
    s[PLY] = 18
    assert spec.validate(spec.p, s) == ""
    out, rew = _step(spec, s, "d1")
    assert out[TERMINAL] == 1 and list(rew) == [-1, 1]


# ------------------------------------------------------------- the pie rule
def test_pie_rule_takes_over_the_first_stone():
    spec = _spec(swap=True)
    s, _ = _play(spec, ["e5"])
    assert _legal(spec, s) == set(range(61))  # 60 empty cells and the stone itself
    out, rew = _step(spec, s, "e5")
    assert out[HEADER + _names(spec)["e5"]] == 2 and out[TO_MOVE] == 0 and out[PLY] == 2 and not rew.any()
    assert spec.validate(spec.p, out) == ""
    assert _legal(spec, out) == set(range(61)) - {_names(spec)["e5"]}
    # no pie rule later in the game, nor without swap
    later, _ = _play(spec, ["e5", "a1"])
    assert _names(spec)["e5"] not in _legal(spec, later)
    plain, _ = _play(_spec(), ["e5"])
    assert _names(spec)["e5"] not in _legal(_spec(), plain)


def test_pie_rule_is_for_two_players_only():
    with pytest.raises(ValueError, match="2 players only"):
        yv.make_spec(players=3, swap=True)


# ------------------------------------------------------ hand-built positions: 3 players
def test_three_puts_a_player_out_and_the_turn_skips_him():
    spec = _spec(players=3)
    s, total = _play(spec, ["a1", "e1", "i1", "a2", "e3", "i3", "a3"])
    assert s[TERMINAL] == 0 and list(total) == [-1, 0, 0]
    assert yv.eliminated(spec.p, s) == (0,) and s[TO_MOVE] == 1
    assert "out: player_0" in spec.render_text(spec.p, s)
    s, rew = _step(spec, s, "g1")
    assert s[TO_MOVE] == 2
    s, rew = _step(spec, s, "g7")
    assert s[TO_MOVE] == 1  # not 0


def test_second_player_out_leaves_the_last_player_the_winner():
    spec = _spec(players=3)
    s, total = _play(spec, ["a1", "e1", "i1", "a2", "e3", "i3", "a3", "e5", "i2"])
    assert s[TERMINAL] == 1
    assert list(total) == [-1, 1, -1]
    assert yv.eliminated(spec.p, s) == (0, 2)
    assert spec.validate(spec.p, s) == ""


def test_four_wins_with_a_player_out():
    spec = _spec(players=3)
    # seat 0 out (a1 a2 a3) after 7 plies; seats 1 and 2 then moved 4 times each; seat 1 has two open fours
    s = _position(spec, {0: ["a1", "a2", "a3"], 1: ["e1", "e2", "e4", "g1", "g2", "g4"],
                         2: ["i1", "i3", "i5", "c1", "c3", "c5"]}, 1, out=(0,))
    assert s[PLY] == 15
    out, rew = _step(spec, s, "e3")
    assert out[TERMINAL] == 1 and list(rew) == [0, 1, -1]


def test_four_wins_at_once_for_three_players():
    spec = _spec(players=3)
    s = _position(spec, {0: ["c1", "c2", "c4"], 1: ["g1", "g3", "i2"], 2: ["a1", "a3", "a5"]}, 0)
    out, rew = _step(spec, s, "c3")
    assert out[TERMINAL] == 1 and list(rew) == [1, -1, -1]


def test_forced_block_of_the_next_players_four():
    spec = _spec(players=3)
    names = _names(spec)
    # seat 1 (next after seat 0) threatens c3 (c1 c2 _ c4)
    s = _position(spec, {0: ["a1", "a3", "a5"], 1: ["c1", "c2", "c4"], 2: ["i1", "i3", "i5"]}, 0)
    assert _legal(spec, s) == {names["c3"]}
    # ... unless seat 0 wins at once: a1 a2 _ a4 lets a3 make four
    s = _position(spec, {0: ["a1", "a2", "a4"], 1: ["c1", "c2", "c4"], 2: ["i1", "i3", "i5"]}, 0)
    assert _legal(spec, s) == {names["c3"], names["a3"]}
    # the threat of seat 2 (the player after next) is seat 1's to block, not seat 0's
    s = _position(spec, {0: ["a1", "a3", "a5"], 1: ["i1", "i3", "i5"], 2: ["c1", "c2", "c4"]}, 0)
    assert len(_legal(spec, s)) == 61 - 9


def test_two_threats_cannot_be_blocked_so_nothing_is_forced():
    spec = _spec(players=3)
    s = _position(spec, {0: ["a1", "a3", "a5", "g6", "i3", "i5"], 1: ["c1", "c2", "c4", "e6", "e7", "e9"],
                         2: ["b1", "b3", "b5", "g1", "g3", "i1"]}, 0)
    assert len(_legal(spec, s)) == 61 - 18


def test_forced_block_even_when_it_makes_a_three():
    spec = _spec(players=3)
    names = _names(spec)
    # the block on c3 lines up seat 0's b2 c3 d4: seat 0 must play it and is out
    s = _position(spec, {0: ["b2", "d4", "a5"], 1: ["c1", "c2", "c4"], 2: ["i1", "i3", "i5"]}, 0)
    assert _legal(spec, s) == {names["c3"]}
    out, rew = _step(spec, s, "c3")
    assert list(rew) == [-1, 0, 0] and out[TERMINAL] == 0 and yv.eliminated(spec.p, out) == (0,)
    assert out[TO_MOVE] == 1


def test_forced_block_with_two_players_left():
    spec = _spec(players=3)
    names = _names(spec)
    s, _ = _play(spec, ["a1", "e1", "i1", "a2", "e2", "i3", "a3", "e4"])
    # seat 0 is out; seat 2 moves and seat 1 threatens e3
    assert yv.eliminated(spec.p, s) == (0,) and s[TO_MOVE] == 2
    assert _legal(spec, s) == {names["e3"]}


# --------------------------------------------------------- AEC: elimination in the env
def test_env_terminates_the_player_who_is_out_and_never_asks_him_again():
    env = yavalath_v0.env(players=3)
    env.reset(seed=0)
    names = _names(env.unwrapped.game)
    moves = iter(["a1", "e1", "i1", "a2", "e3", "i3", "a3", "g1", "g7", "e5", "i2"])
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            seen.append((agent, None))
            env.step(None)
            continue
        name = next(moves)
        seen.append((agent, name))
        env.step(names[name])
    assert next(moves, None) is None
    after_out = seen[seen.index(("player_0", "a3")) + 1:]
    assert after_out[0] == ("player_0", None)  # the dead step of the seat that went out
    assert ("player_0", None) not in after_out[1:-3]
    assert all(a != "player_0" or m is None for a, m in after_out)
    assert [m for a, m in after_out if m] == ["g1", "g7", "e5", "i2"]
    raw = env.unwrapped
    assert raw.state_array[TERMINAL] == 1 and raw.agents == []


def test_env_random_three_player_games_never_ask_a_seat_that_is_out():
    rng = np.random.default_rng(4)
    endings = Counter()
    with_out = 0
    for game in range(15):
        env = yavalath_v0.env(size=4, players=3)
        env.reset(seed=game)
        out, totals = [], Counter()
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term:
                env.step(None)
                if not env.unwrapped.state_array[TERMINAL] and agent not in out:
                    out.append(agent)
                continue
            assert agent not in out and obs["action_mask"].any()
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        final_out = {f"player_{q}" for q in yv.eliminated(env.unwrapped.game.p, env.unwrapped.state_array)}
        assert set(out) <= final_out and len(out) <= 1  # a second seat out ends the game
        assert all(totals[a] == -1 for a in out)
        endings[tuple(sorted(totals.values()))] += 1
        with_out += bool(out)
    assert set(endings) <= {(-1.0, -1.0, 1.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 0.0)}
    assert sum(endings.values()) == 15 and with_out >= 5


def test_env_rewards_of_the_three_player_game():
    env = yavalath_v0.raw_env(players=3)
    env.reset(seed=0)
    names = _names(env.game)
    totals = Counter()
    for name in ["a1", "e1", "i1", "a2", "e3", "i3", "a3"]:
        env.step(names[name])
        for a, r in env.rewards.items():
            totals[a] += r
    assert env.terminations["player_0"] and env.agent_selection == "player_0"
    assert env._cumulative_rewards["player_0"] == -1
    env.step(None)
    assert "player_0" not in env.agents and env.agent_selection == "player_1"
    for name in ["e5", "i2"]:
        env.step(names[name])
        for a, r in env.rewards.items():
            totals[a] += r
    assert dict(totals) == {"player_0": -1, "player_1": 1, "player_2": -1}


# --------------------------------------------------- against the second implementation
def _compare_random_games(size, players, swap, games, seed):
    spec = _spec(size, players, swap)
    rng = make_rng(seed)
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    rew = np.zeros(players)
    endings = Counter()
    for _ in range(games):
        s = spec.initial_state(spec.p, rng)
        ref = RefYavalath(size, players, swap)
        total = np.zeros(players)
        while True:
            spec.legal_actions(spec.p, s, mask)
            assert set(np.flatnonzero(mask)) == ref.legal()
            if s[TERMINAL]:
                break
            if mask.sum() < len(ref.empty()):
                endings["forced block"] += 1
            assert s[TO_MOVE] == ref.to_move
            a = rng_choice_mask(rng, mask)
            spec.afterstate(spec.p, s, a, s, rew)
            assert list(rew) == ref.play(a)
            assert bool(s[TERMINAL]) == ref.over
            total += rew
            if players == 3:
                assert set(yv.eliminated(spec.p, s)) == set(ref.out)
                assert s[TERMINAL] or s[TO_MOVE] not in ref.out  # a seat that is out never moves again
        assert ref.over and spec.validate(spec.p, s) == ""
        endings[tuple(total)] += 1
    return endings


@pytest.mark.parametrize("size,players,swap,games", [(5, 2, False, 60), (3, 2, False, 60), (4, 2, True, 40),
                                                     (5, 3, False, 40), (3, 3, False, 60), (4, 3, False, 40)])
def test_random_games_agree_with_the_second_implementation(size, players, swap, games):
    endings = _compare_random_games(size, players, swap, games, seed=size * 10 + players)
    forced = endings.pop("forced block", 0)
    assert sum(endings.values()) == games
    if players == 3:
        assert forced >= 10  # the forced block was compared in many positions
        # every ending is a win (+1, -1, -1 in some order) or a draw (-1 for the seats out, 0 for the others)
        for total in endings:
            assert sorted(total) in ([-1, -1, 1], [-1, 0, 0], [0, 0, 0])
        assert any(sorted(t) == [-1, -1, 1] for t in endings)


def _perft_kernel(spec, s, depth, tally):
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    spec.legal_actions(spec.p, s, mask)
    if depth == 0 or s[TERMINAL]:
        tally[("leaf", bool(s[TERMINAL]))] += 1
        return
    rew = np.zeros(spec.n_players)
    for a in np.flatnonzero(mask):
        out = np.empty_like(s)
        spec.afterstate(spec.p, s, int(a), out, rew)
        if rew.any():
            tally[("rewards", tuple(rew))] += 1
        _perft_kernel(spec, out, depth - 1, tally)


def _perft_ref(ref, depth, tally):
    if depth == 0 or ref.over:
        tally[("leaf", ref.over)] += 1
        return
    for a in sorted(ref.legal()):
        child = ref.copy()
        rew = child.play(a)
        if any(rew):
            tally[("rewards", tuple(rew))] += 1
        _perft_ref(child, depth - 1, tally)


def test_perft_of_the_first_plies():
    """No rule can act before a player has three stones: the first plies count n, n(n-1), n(n-1)(n-2)."""
    for players, swap in ((2, False), (3, False), (2, True)):
        spec = _spec(4, players, swap)
        n = spec.n_cells
        s0 = spec.initial_state(spec.p, make_rng(0))
        for depth, expected in ((1, n), (2, n * (n - 1) + (n if swap else 0))):
            tally, ref_tally = Counter(), Counter()
            _perft_kernel(spec, s0, depth, tally)
            _perft_ref(RefYavalath(4, players, swap), depth, ref_tally)
            assert tally == ref_tally == {("leaf", False): expected}


@pytest.mark.parametrize("players,swap", [(2, False), (3, False), (2, True)])
def test_perft_from_middle_game_positions_agrees(players, swap):
    """Move counts with every outcome from random positions of a size-4 board, where the rules bite."""
    size = 4
    spec = _spec(size, players, swap)
    rng = make_rng(40 + players)
    mask = np.zeros(spec.n_actions, dtype=np.int8)
    rew = np.zeros(players)
    checked = 0
    outcomes = Counter()
    for game in range(40):
        s = spec.initial_state(spec.p, rng)
        ref = RefYavalath(size, players, swap)
        stop = 8 + game % 12
        while not s[TERMINAL] and s[PLY] < stop:
            spec.legal_actions(spec.p, s, mask)
            a = rng_choice_mask(rng, mask)
            spec.afterstate(spec.p, s, a, s, rew)
            ref.play(a)
        if s[TERMINAL]:
            continue
        tally, ref_tally = Counter(), Counter()
        _perft_kernel(spec, s, 2, tally)
        _perft_ref(ref, 2, ref_tally)
        assert tally == ref_tally
        outcomes.update(k for k in tally if k[0] == "rewards")
        checked += 1
    assert checked >= 15 and len(outcomes) >= 2  # wins, losses (and eliminations) do occur


# ------------------------------------------------------------- symmetries
def test_twelve_symmetries_are_the_automorphisms_of_the_hexagon():
    spec = _spec()
    perms = spec.symmetries(spec.p)
    assert perms.shape == (12, 61) and np.array_equal(perms[0], np.arange(61))
    assert len({tuple(p) for p in perms}) == 12
    nb = [set(x) for x in spec.cell_neighbours(spec.p)]
    for perm in perms:
        assert sorted(perm) == list(range(61))
        for i in range(61):
            assert {int(perm[j]) for j in nb[i]} == nb[int(perm[i])]
    group = {tuple(p) for p in perms}
    for a in perms:
        for b in perms:
            assert tuple(a[b]) in group
    # the centre e5 is fixed by all twelve, a corner a1 moves to the six corners
    names = _names(spec)
    assert {int(p[names["e5"]]) for p in perms} == {names["e5"]}
    corners = {names[c] for c in ("a1", "a5", "e1", "e9", "i1", "i5")}
    assert {int(p[names["a1"]]) for p in perms} == corners


@pytest.mark.parametrize("players", [2, 3])
def test_action_symmetries_commute_with_moves(players):
    spec = _spec(5, players)
    perms, acts = spec.symmetries(spec.p), spec.action_symmetries(spec.p)
    assert acts.shape == (12, 61) and np.array_equal(acts[0], np.arange(61))
    n = spec.n_cells
    rng = make_rng(9)
    rew, rew_t = np.zeros(players), np.zeros(players)
    checked = 0
    for _ in range(12):
        s = spec.initial_state(spec.p, rng)
        mask = np.zeros(n, np.int8)
        for _ in range(int(rng[0] % 25) + 1):
            if s[TERMINAL]:
                break
            spec.legal_actions(spec.p, s, mask)
            spec.afterstate(spec.p, s, rng_choice_mask(rng, mask), s, rew)
        if s[TERMINAL]:
            continue
        spec.legal_actions(spec.p, s, mask)
        for k in range(12):
            t = s.copy()
            t[HEADER:HEADER + n] = s[HEADER:HEADER + n][perms[k]]
            mask_t = np.zeros(n, np.int8)
            spec.legal_actions(spec.p, t, mask_t)
            assert mask_t.sum() == mask.sum()
            for a in np.flatnonzero(mask):
                assert mask_t[acts[k, a]]
                after, after_t = np.empty_like(s), np.empty_like(t)
                spec.afterstate(spec.p, s, int(a), after, rew)
                spec.afterstate(spec.p, t, int(acts[k, a]), after_t, rew_t)
                assert np.array_equal(after[HEADER:HEADER + n][perms[k]], after_t[HEADER:HEADER + n])
                assert np.array_equal(rew, rew_t) and after[TERMINAL] == after_t[TERMINAL]
                checked += 1
    assert checked > 500


# ---------------------------------------------------------- validate, params, views
def test_validate_reasons():
    spec = _spec()
    names = _names(spec)
    s = _position(spec, {0: ["c1", "c2"], 1: ["g1"]}, 1)
    bad = s.copy()
    bad[PLY] = 5
    assert "stone counts" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[TO_MOVE] = 0
    assert "player to move" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[HEADER + 40] = 3
    assert "cells must be" in spec.validate(spec.p, bad)
    three = _position(spec, {0: ["c1", "c2"], 1: ["g1", "g2"]}, 0)
    three[HEADER + names["c3"]] = 1
    three[HEADER + names["g3"]] = 2
    three[PLY] = 6
    assert "exactly three" in spec.validate(spec.p, three)
    three[TERMINAL] = 1  # both players have a three: no last move made this
    assert "no legal last move" in spec.validate(spec.p, three)
    ended, _ = _play(spec, ["c1", "g1", "c2", "g3", "c3"])
    assert spec.validate(spec.p, ended) == ""
    ended[TERMINAL] = 0
    assert "exactly three" in spec.validate(spec.p, ended)
    assert "length" in spec.validate(spec.p, s[:-1])
    fresh = spec.initial_state(spec.p, make_rng(0))
    fresh[TERMINAL] = 1
    assert "no legal last move" in spec.validate(spec.p, fresh)


def test_validate_three_player_reasons():
    spec = _spec(players=3)
    s, _ = _play(spec, ["a1", "e1", "i1", "a2", "e3", "i3", "a3"])
    n = spec.n_cells
    bad = s.copy()
    bad[HEADER + n] = 0
    assert "not out" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[TO_MOVE] = 0
    assert "seat 0 is out but is to move" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[HEADER + n] = 4  # seat 2 out instead: the counts fit, but seat 2 has no three and seat 0 has one
    assert "seat 0 has a line of exactly three but is not out" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[HEADER + n] = 5
    assert "two players are out" in spec.validate(spec.p, bad)
    bad = s.copy()
    bad[HEADER + n] = 9
    assert "out mask" in spec.validate(spec.p, bad)
    before, _ = _play(spec, ["a1", "e1", "i1", "a2", "e3", "i3"])
    before[HEADER + n] = 2  # seat 1 out: the turn order fits, the board does not
    assert "seat 1 is out without a line of exactly three" in spec.validate(spec.p, before)


def test_set_state_refuses_an_impossible_position():
    env = yavalath_v0.raw_env(players=3)
    env.reset(seed=0)
    s = env.get_state()
    s[HEADER] = 1
    with pytest.raises(ValueError, match="not a legal position"):
        env.set_state(s)


@pytest.mark.parametrize("params", [{"size": 2}, {"size": 11}, {"size": "5"}, {"players": 4}, {"players": 1},
                                    {"players": 2.0}, {"swap": "yes"}, {"swap": 1}, {"players": 3, "swap": True}])
def test_bad_parameters_raise_value_error(params):
    with pytest.raises(ValueError):
        yv.make_spec(**params)
    with pytest.raises(ValueError):
        yavalath_v0.env(**params)


def test_observation_planes_are_relative_to_the_observer():
    spec = _spec(players=3)
    s, _ = _play(spec, ["e5", "a1", "i5"])
    obs = [np.zeros(spec.obs_shape, np.int8) for _ in range(3)]
    for seat in range(3):
        spec.observe(spec.p, s, seat, obs[seat])
    # e5 is (r, c) = (4, 4), a1 (0, 4), i5 (8, 4)
    assert obs[0][4, 4, 0] == obs[0][0, 4, 1] == obs[0][8, 4, 2] == 1
    assert obs[1][0, 4, 0] == obs[1][8, 4, 1] == obs[1][4, 4, 2] == 1
    assert obs[2][8, 4, 0] == obs[2][4, 4, 1] == obs[2][0, 4, 2] == 1
    for o in obs:
        assert o[:, :, :3].sum() == 3 and o[:, :, 3].sum() == 61
    assert obs[0][0, 0, 3] == 0 and obs[0][0, 4, 3] == 1  # (0, 0) is outside the hexagon


def test_text_and_rgb_render():
    spec = _spec(size=3, players=3)
    s, _ = _play(spec, ["a1", "c3", "e3"])
    assert spec.render_text(spec.p, s) == "  a X . .\n b . . . .\nc . . O . .\n d . . . .\n  e . . T"
    env = yavalath_v0.env(size=3, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    # the grid place (0, 0) is outside the hexagon: painted in the background colour
    assert tuple(img[10, 10]) == (40, 40, 40)
    env = yavalath_v0.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render().count(".") == 61


# ------------------------------------------------------------- PettingZoo and friends
@pytest.mark.parametrize("params", [{}, {"players": 3}, {"swap": True}, {"size": 3, "players": 3}])
def test_pettingzoo_api_and_seed_tests(params):
    api_test(yavalath_v0.env(**params), num_cycles=200)
    api_test(yavalath_v0.raw_env(**params), num_cycles=50)
    seed_test(lambda: yavalath_v0.env(**params), num_cycles=20)


@pytest.mark.parametrize("players", [2, 3])
def test_gymnasium_single_agent_wrapper(players):
    from gymnasium.utils.env_checker import check_env

    from farl_envs.gym_env import SingleAgentEnv

    env = SingleAgentEnv(game="yavalath", seat="alternate", players=players)
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(0)
    for _ in range(2 * players):
        obs, info = env.reset()
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, r, done, trunc, info = env.step(a)
            assert -1 <= r <= 1


@pytest.mark.parametrize("players", [2, 3])
def test_compiled_random_playouts(players):
    spec = _spec(players=players)
    plies = playouts(spec, 200, make_rng(3))
    assert 200 * 5 <= plies <= 200 * 61


@pytest.mark.parametrize("players", [2, 3])
def test_maxn_and_mcts_play_through_make_opponent_and_evaluate(players):
    from farl_agents.evaluate import evaluate
    from farl_agents.opponents import make_opponent

    spec = _spec(size=4, players=players)
    for name in ("maxn2", "mcts30"):
        player = make_opponent(name, spec)
        result = evaluate(spec, player, "random", n_games=2, seed=1)
        (m,) = result.matchups
        assert m.n_games == 2 * players == m.wins + m.draws + m.losses  # two games in every seat
        for g in m.games:
            total = sorted(g["rewards"])
            assert total in (([-1, 1], [0, 0]) if players == 2 else ([-1, -1, 1], [-1, 0, 0], [0, 0, 0]))
        # two plies see every immediate win and every three the searcher would make
        assert m.wins > m.losses, (name, m)
