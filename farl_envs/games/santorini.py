"""Santorini (the base game for two players, without god powers) as numba kernels.

(Longer than farl's usual 400 lines: this docstring, with the numbering of the
1,900 whole-turn actions and the checks of ``validate``, is the game's
documentation page, and the kernels below are the one source of truth of its
rules.)

==================  ===========================================================
players             2 (``player_0`` is the Start Player: places first, moves first)
actions             1900: a whole turn is one action (see "Actions")
                    0..1599    ``64 * from + 8 * move_dir + build_dir``: move the
                               worker on cell ``from`` one step in ``move_dir``,
                               then build one step from its new cell in
                               ``build_dir``
                    1600..1899 ``1600 + pair``: place both workers of the
                               player on the two cells of ``PAIRS[pair]``
rewards             +1 win / -1 loss, at the move that ends the game (no draws)
observation         ``int8[5, 5, 6]``: plane 0 the observer's workers, plane 1
                    the opponent's, planes 2/3/4 level >= 1 / >= 2 / >= 3,
                    plane 5 a dome
n-tuple board       25 cells (P = 13): ``h`` (0..4) an empty cell of height
                    ``h`` (4 = dome), ``5 + h`` a worker of ``player_0``
                    standing on height ``h`` (0..3), ``9 + h`` one of
                    ``player_1``
symmetries          8 (rotations and reflections of the square)
==================  ===========================================================

Rules: Roxley Games' rulebook (2016 edition, "How to Play" and "Winning
the Game"), the base 2-player game that the rulebook asks players to learn
before adding god powers; boardspace.net's rules page for its Santorini
agrees on every point below. Cohen-Solal 2020 uses Santorini as one of its
benchmark games without listing its rules or naming a variant, so farl plays
this standard base game. Rule decisions:

* Board: 5 x 5 spaces, all at ground level (height 0) at the start. A space
  grows by one level per build: levels 1, 2 and 3 are blocks, and a build on
  level 3 puts a dome on it (height 4 here), a "complete tower" that no
  worker may enter and no one may build on again.
* Setup: the Start Player (``player_0``) places both of their workers on
  any two spaces, then the other player places both of theirs on two of the
  free spaces (Roxley's order; a rules sheet by the designer, Gordon
  Hamilton, for 2 to 4 players snakes instead: first player one worker, the
  others two each, first player the last one. farl follows the rulebook).
* Turn: the player picks one of their workers, moves it, then builds with
  that same worker. Both parts are compulsory.
* Move: to one of the (up to) 8 neighbouring spaces (orthogonal or
  diagonal) holding neither a worker nor a dome, at most one level higher
  than the worker's space; moving down any number of levels is allowed.
* Build: one level on one of the (up to) 8 spaces neighbouring the moved
  worker's new space that holds neither a worker nor a dome (the space the
  worker just left is free, so it qualifies).
* Win: a player whose worker moves *up* onto level 3 wins at once (the
  build of that turn is not made). Workers never stand on level 3
  otherwise (nothing is built under a worker), so "moves up onto" and "ends
  its move on" level 3 are the same thing here.
* Loss: a player who cannot make a whole turn (move and then build) when it
  is their turn loses. Since the space the moved worker left can always take
  a build (it held that worker, so it is no dome and is below level 3),
  every move can be followed by a build: a player loses exactly when neither
  of their workers can move. This is detected right after the opponent's
  move, which therefore ends the game (the same convention as farl's
  Othello: a position is terminal as soon as its outcome is decided).
* Supply: farl does not limit the number of blocks and domes. The physical
  game comes with 22 / 18 / 14 blocks of levels 1 / 2 / 3 and 18 domes, but
  the rulebook gives no rule for running out and computer implementations
  (boardspace.net among them) treat the supply as unlimited.
* The game always ends: every turn adds a level or a dome and the board
  holds at most 25 x 4 of them, so a game has at most 2 + 100 + 1 = 103
  plies (``max_plies``, a loose bound); there are no draws.

Actions. One action is one whole turn, so the players strictly alternate
(one decision per ply). This keeps afterstates simple for the n-tuple
learners (the position after an action is always one the opponent moves
in), lets Max-N, MCTS and the descent family see one move per ply, and
keeps equal positions equal states. The cost is a larger action space:

* a placement is the unordered pair of cells of the two workers (workers of
  one player are interchangeable, so ``{i, j}`` and ``{j, i}`` are one
  action): ``PAIRS`` lists the 300 pairs ``i < j`` in lexicographic order,
  ``PAIR_INDEX[i, j]`` gives the index back;
* a turn names the cell of the worker it moves (not a worker number: the
  actions then map to actions under the board's symmetries, whatever the
  position), the move direction and the build direction, each direction
  one of ``DIRECTIONS`` (NW, N, NE, W, E, SW, S, SE as (row, column) steps;
  ``7 - d`` is the opposite of ``d``). Actions whose steps leave the board
  are never legal.
* a winning move (up onto level 3) makes no build; it is the single action
  whose build direction points back at the cell the worker came from
  (``build_dir = 7 - move_dir``); the other 7 build directions of that move
  are not legal.

Action names: ``"b2-c3+d4"`` moves the worker on b2 to c3 and builds on d4
(a winning move b2-c3 is ``"b2-c3+b2"``, and builds nothing); ``"a1,b2"``
places the mover's workers on a1 and b2. Names hold no spaces, so
``farl play`` can list them and read them back.

Cell numbering: ``cell = 5 * row + col``, row 0 at the top, named with the
column letter (a..e) and the row number (1..5)::

        a  b  c  d  e
     1  0  1  2  3  4
     2  5  6  7  8  9
     3 10 11 12 13 14
     4 15 16 17 18 19
     5 20 21 22 23 24

State: the common header (:mod:`farl_envs.core.spec`) followed by the 25
cells in the n-tuple encoding above (height and worker in one value), so
the state is canonical (one position, one state) and a symmetry of the
board is a permutation of the state's cells. ``ply`` 0 and 1 are the two
placements, the player to move is always ``ply % 2``.

What ``validate`` checks: cells in 0..12; no workers before the first
placement, player_0's two after it, all four from ply 2 on; no building
during placement; the number of levels and domes on the board equals the
number of builds so far (``ply - 2``, one less after a winning move); a
worker on level 3 only in a finished game, belonging to the player who just
moved; the terminal flag set exactly when a worker stands on level 3 or,
after the placements, the player to move has no move.

Reinforcement heuristics of Cohen-Solal 2020 (Section 5.1) on Santorini:
its Table 4 marks two of the six heuristics as without interest for
Santorini; the game has neither a score nor captures, so these are score and
presence, leaving classic, the two depth heuristics and cumulative mobility.
Mobility counts the legal actions (whole turns, moves with their builds) of
each turn, i.e. ``legal_actions``' return value; the two placement turns
count 300 and 253 in every game (the same two numbers in every game, so
they only shift both sums). The board alone fixes the player to move (during the
placements, the number of workers on it; after them, one level or dome per
turn, so player_0 is to move exactly when the number of levels and domes is
even), so an evaluation of the board alone is an evaluation of the position.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._grid import square_symmetries

SIZE = 5
N_CELLS = SIZE * SIZE
STATE_SIZE = HEADER + N_CELLS
DOME = 4
#: cell value of a worker of player ``q`` on height ``h`` is ``WORKER_BASE[q] + h``
WORKER_BASE = (5, 9)
N_CELL_VALUES = 13
N_TURN_ACTIONS = N_CELLS * 64
N_PAIRS = N_CELLS * (N_CELLS - 1) // 2
PLACE = N_TURN_ACTIONS  # first placement action
N_ACTIONS = N_TURN_ACTIONS + N_PAIRS
#: 2 placements + at most 25 * 4 builds + one winning move (which builds nothing)
MAX_PLIES = 2 + N_CELLS * DOME + 1

#: the 8 steps as (row, column), NW N NE W E SW S SE; ``7 - d`` is the opposite of ``d``
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
DIRECTION_NAMES = ("NW", "N", "NE", "W", "E", "SW", "S", "SE")


def _neighbour_table() -> np.ndarray:
    """``int64[25, 8]``: the cell one step from ``cell`` in direction ``d``, -1 off the board."""
    out = np.full((N_CELLS, 8), -1, dtype=np.int64)
    for c in range(N_CELLS):
        r, k = divmod(c, SIZE)
        for d, (dr, dk) in enumerate(DIRECTIONS):
            if 0 <= r + dr < SIZE and 0 <= k + dk < SIZE:
                out[c, d] = SIZE * (r + dr) + k + dk
    return out


NEIGHBOUR = _neighbour_table()
#: the 300 placement pairs ``(i, j)``, ``i < j``, in lexicographic order
PAIRS = np.array([(i, j) for i in range(N_CELLS) for j in range(i + 1, N_CELLS)], dtype=np.int64)
PAIR_INDEX = np.full((N_CELLS, N_CELLS), -1, dtype=np.int64)
for _k, (_i, _j) in enumerate(PAIRS):
    PAIR_INDEX[_i, _j] = PAIR_INDEX[_j, _i] = _k


def turn_action(src: int, move_dir: int, build_dir: int) -> int:
    """The action number of the turn (worker on ``src``, move direction, build direction)."""
    return 64 * src + 8 * move_dir + build_dir


def place_action(i: int, j: int) -> int:
    """The action number of placing the mover's two workers on cells ``i`` and ``j`` (any order)."""
    if i == j or not (0 <= i < N_CELLS and 0 <= j < N_CELLS):
        raise ValueError(f"a placement needs two different cells in 0..{N_CELLS - 1}, got {i} and {j}")
    return PLACE + int(PAIR_INDEX[i, j])


@njit(cache=True)
def initial_state(p, rng):
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def _can_move(s, player):
    """True when one of ``player``'s workers has a legal move (a build can always follow)."""
    base = 5 + 4 * player
    for c in range(N_CELLS):
        h = s[HEADER + c] - base
        if 0 <= h < 4:
            for d in range(8):
                t = NEIGHBOUR[c, d]
                if t >= 0:
                    v = s[HEADER + t]
                    if v < DOME and v <= h + 1:
                        return True
    return False


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    n = 0
    if s[PLY] < 2:  # placement: any two free cells (the board is still flat)
        for k in range(N_PAIRS):
            if s[HEADER + PAIRS[k, 0]] < 5 and s[HEADER + PAIRS[k, 1]] < 5:
                mask[PLACE + k] = 1
                n += 1
        return n
    base = 5 + 4 * s[TO_MOVE]
    for c in range(N_CELLS):
        h = s[HEADER + c] - base
        if h < 0 or h > 3:
            continue
        for m in range(8):
            t = NEIGHBOUR[c, m]
            if t < 0:
                continue
            ht = s[HEADER + t]  # < 4 exactly when the cell is free: empty and no dome
            if ht >= DOME or ht > h + 1:
                continue
            if ht == 3:  # up onto level 3: the game is won, no build
                mask[64 * c + 8 * m + 7 - m] = 1
                n += 1
                continue
            for b in range(8):
                u = NEIGHBOUR[t, b]
                if u >= 0 and (u == c or s[HEADER + u] < DOME):
                    mask[64 * c + 8 * m + b] = 1
                    n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    copy_state(s, out)
    mover = s[TO_MOVE]
    other = 1 - mover
    rewards[:] = 0.0
    out[PLY] = s[PLY] + 1
    out[TO_MOVE] = other
    base = 5 + 4 * mover
    if a >= PLACE:
        out[HEADER + PAIRS[a - PLACE, 0]] = base
        out[HEADER + PAIRS[a - PLACE, 1]] = base
    else:
        c = a // 64
        t = NEIGHBOUR[c, (a // 8) % 8]
        u = NEIGHBOUR[t, a % 8]
        ht = s[HEADER + t]
        out[HEADER + c] = s[HEADER + c] - base  # the worker leaves: its height stays
        out[HEADER + t] = base + ht
        if ht == 3:
            out[TERMINAL] = 1
            rewards[mover] = 1.0
            rewards[other] = -1.0
            return
        out[HEADER + u] += 1  # a block, or the dome on level 3
    if out[PLY] >= 2 and not _can_move(out, other):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[other] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    out[:] = 0
    for c in range(N_CELLS):
        v = s[HEADER + c]
        r, k = c // SIZE, c % SIZE
        h = v
        if v >= 5:
            owner = (v - 5) // 4
            h = (v - 5) % 4
            out[r, k, 0 if owner == seat else 1] = 1
        for level in range(1, 4):
            if h >= level:
                out[r, k, 1 + level] = 1
        if h == DOME:
            out[r, k, 5] = 1


# --------------------------------------------------------------- Python helpers
def heights(s: np.ndarray) -> np.ndarray:
    """The 25 heights (0..3, 4 = dome) of state ``s``, workers ignored."""
    v = np.asarray(s[HEADER:HEADER + N_CELLS], dtype=np.int64)
    return np.where(v >= 5, (v - 5) % 4, v)


def workers(s: np.ndarray, player: int) -> list[int]:
    """The cells of ``player``'s workers, in increasing order."""
    v = np.asarray(s[HEADER:HEADER + N_CELLS])
    return [int(c) for c in np.flatnonzero((v >= 5 + 4 * player) & (v < 9 + 4 * player))]


def cell_name(c: int) -> str:
    return f"{'abcde'[c % SIZE]}{c // SIZE + 1}"


def validate(p, s) -> str:
    """Empty when ``s`` passes the checks listed in the module docstring, else the reason."""
    msg = check_header(s, 2, STATE_SIZE)
    if msg:
        return msg
    cells = np.asarray(s[HEADER:], dtype=np.int64)
    if np.any((cells < 0) | (cells >= N_CELL_VALUES)):
        return (f"cells must be in 0..{N_CELL_VALUES - 1}: height 0..4 (4 = dome), "
                f"5 + height for a worker of player_0, 9 + height for one of player_1")
    ply = int(s[PLY])
    if s[TO_MOVE] != ply % 2:
        return "player to move must be ply % 2 (each ply is one player's whole turn)"
    counts = (len(workers(s, 0)), len(workers(s, 1)))
    expected = (0, 0) if ply == 0 else (2, 0) if ply == 1 else (2, 2)
    if counts != expected:
        return (f"at ply {ply} the players must have {expected[0]} and {expected[1]} workers on the board "
                f"(each places both in their first turn), got {counts[0]} and {counts[1]}")
    h = heights(s)
    on_top = [q for q in (0, 1) for c in workers(s, q) if h[c] == 3]
    if len(on_top) > 1:
        return "two workers stand on level 3, but the first one to get there ended the game"
    if on_top and not (s[TERMINAL] and on_top[0] == 1 - s[TO_MOVE]):
        return "a worker on level 3 has won: the game must be over and its owner must have made the last move"
    builds = max(ply - 2, 0) - len(on_top)
    if int(h.sum()) != builds:
        return (f"the board holds {int(h.sum())} levels and domes, but {builds} builds were made by ply {ply} "
                f"(one per turn after the two placements, none in a winning move)")
    over = bool(on_top) or (ply >= 2 and not _can_move(np.ascontiguousarray(s, dtype=np.int32), int(s[TO_MOVE])))
    if bool(s[TERMINAL]) != over:
        return ("terminal flag is set but the game is not decided" if s[TERMINAL]
                else "the game is decided (a worker on level 3, or the player to move cannot move): "
                     "the terminal flag must be set")
    return ""


def render_text(p, s) -> str:
    """The board as text, row 1 on top: per cell its height (``D`` a dome) then ``X`` (player_0),
    ``O`` (player_1) or ``.`` (no worker)."""
    lines = ["   a  b  c  d  e"]
    for r in range(SIZE):
        row = []
        for k in range(SIZE):
            v = int(s[HEADER + SIZE * r + k])
            if v >= 5:
                row.append(f"{(v - 5) % 4}{'XO'[(v - 5) // 4]}")
            else:
                row.append("D." if v == DOME else f"{v}.")
        lines.append(f"{r + 1} " + " ".join(row))
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """``int32[8, 25]``: the rotations and reflections of the square."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """``int32[8, 1900]``: each action's image under each symmetry of ``symmetries``.

    A symmetry moves cell ``c`` to position ``inv[c]`` (``perm[inv[c]] == c``)
    and turns every step direction the same way; a turn keeps its shape
    (from cell, move step, build step), a placement moves both cells.
    """
    perms = symmetries(p)
    out = np.empty((perms.shape[0], N_ACTIONS), dtype=np.int32)
    centre = N_CELLS // 2
    for k, perm in enumerate(perms):
        inv = np.argsort(perm)
        step = {d: DIRECTIONS.index((int(inv[NEIGHBOUR[centre, d]]) // SIZE - inv[centre] // SIZE,
                                     int(inv[NEIGHBOUR[centre, d]]) % SIZE - inv[centre] % SIZE))
                for d in range(8)}
        for c in range(N_CELLS):
            for m in range(8):
                for b in range(8):
                    out[k, turn_action(c, m, b)] = turn_action(int(inv[c]), step[m], step[b])
        for q, (i, j) in enumerate(PAIRS):
            out[k, PLACE + q] = PLACE + PAIR_INDEX[inv[i], inv[j]]
    return out


def _action_names() -> tuple:
    """``"b2-c3+d4"`` for turns (a winning move ``"b2-c3+b2"`` builds nothing), ``"a1,b2"`` for placements."""
    names = []
    for a in range(N_TURN_ACTIONS):
        c, m, b = a // 64, (a // 8) % 8, a % 8
        t = int(NEIGHBOUR[c, m])
        u = int(NEIGHBOUR[t, b]) if t >= 0 else -1
        if t < 0 or u < 0:
            names.append(f"{cell_name(c)}:{DIRECTION_NAMES[m]}:{DIRECTION_NAMES[b]}(off-board)")
        else:
            names.append(f"{cell_name(c)}-{cell_name(t)}+{cell_name(u)}")
    names.extend(f"{cell_name(int(i))},{cell_name(int(j))}" for i, j in PAIRS)
    return tuple(names)


def make_spec(**params) -> GameSpec:
    """The Santorini spec (base game on 5 x 5; the game has no parameters, so any raise ``ValueError``)."""
    if params:
        raise ValueError(f"santorini takes no parameters (the base game is always 5 x 5 with two workers "
                         f"each), got {', '.join(sorted(params))}")
    return GameSpec(
        name="santorini", version=0, params={}, p=np.zeros(1, dtype=np.int64),
        n_players=2, n_actions=N_ACTIONS, state_size=STATE_SIZE, n_cells=N_CELLS,
        n_cell_values=N_CELL_VALUES, obs_shape=(SIZE, SIZE, 6), obs_high=1, max_plies=MAX_PLIES,
        reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=_action_names(),
        cell_colors=((120, 170, 100), (185, 185, 185), (210, 210, 210), (240, 240, 240), (40, 80, 200),
                     (200, 40, 40), (215, 75, 75), (230, 110, 110), (245, 145, 145),
                     (25, 25, 25), (65, 65, 65), (100, 100, 100), (135, 135, 135)),
        grid_shape=(SIZE, SIZE),
    )
