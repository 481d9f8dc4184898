"""Yavalath (Cameron Browne's Ludi, 2007) for 2 or 3 players, as numba kernels.

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of the rules for 2 and 3 players (eliminations, the pie rule), and
``validate`` must decide from a board alone whether a finished game can have
been reached by a legal last move; this docstring is the game's documentation
page.)

==================  ===========================================================
parameters          ``size=5`` (cells per edge of the hexagon, 3..10),
                    ``players=2`` (2 or 3), ``swap=False`` (the pie rule,
                    2 players only)
players             ``player_0`` moves first, then ``player_1`` (then ``player_2``)
board               a hexagon of hexagons with ``size`` cells per edge:
                    ``3*size*(size-1) + 1`` cells (61 for ``size=5``)
actions             one per cell (``n_actions = n_cells``): place a stone there.
                    Cells are numbered row by row from the top, left to right
                    in each row; names ``"a1"``, ``"a2"``, ... (row letter,
                    place in the row from 1). With ``swap`` the second move may
                    also be the cell of the first stone (see the pie rule)
rewards             2 players: +1 win / -1 loss / 0 draw. 3 players: the winner
                    +1, every other player -1; a player who is out got his -1
                    when he dropped out; a full board is a draw worth 0 to the
                    players still in
observation         ``int8[2*size-1, 2*size-1, players+1]`` on the board's
                    rhombus grid (see below): plane ``k < players`` holds the
                    stones of seat ``(observer + k) % players`` (own stones
                    first, then the players in turn order), the last plane is 1
                    on the cells that belong to the hexagon
n-tuple board       the ``n_cells`` cells in action order, values 0 empty,
                    ``1 + seat`` a stone of that seat (P = players + 1). Stones
                    of a player who is out stay on the board with his value.
                    ``cell_neighbours``: the six hexagonal neighbours
symmetries          the 12 of the hexagon: 6 rotations by 60 degrees, each
                    with and without a mirror image; ``action_symmetries``
                    maps the cells the same way (actions are cells)
==================  ===========================================================

Rules (sources: Browne's rules and help file for the pbmserv server, December
2007, "Yavalath rules copyright (c) Ludi by Cameron Browne, November 2007";
the GBG implementation ``games/Yavalath`` of Konen's group was read for the
same facts)
--------------------------------------------------------------------------------
Players take turns placing one stone of their own colour on an empty cell;
there is no passing. Lines run along the three axes of the hexagonal grid.

* **Four wins**: a player who makes a line of 4 *or more* of his own stones
  (so lines of 5 and longer too) wins at once.
* **Three loses**: a player who makes a line of exactly 3 of his own stones
  without making a line of 4 or more with the same stone loses (2 players).
  A stone that makes a 4 in one direction and a 3 in another therefore wins.
  Only lines through the stone just placed can change, and a line of 3
  counts when its stones are exactly three in a row (a longer line is a win).
* **Full board**: when the last empty cell is filled and the move neither won
  nor lost, the game is a draw (a stone on the last cell that makes a 3 still
  loses, one that makes a 4 still wins).

Three players (Browne's rules for the three-player version):

* A player who makes a 3 (without a 4) is **out**: his stones stay on the
  board as dead stones of his colour (they block, they belong to nobody
  still playing), he never moves again (the turn skips him) and he gets -1.
  The two others play on in turn order.
* If the player who makes a 3 is the second one out, the game ends and the
  **last player left wins** (+1; the two out players got -1 each).
* A 4 wins at once for the player who makes it, whether or not someone is
  already out (+1 for him, -1 for each player still in; a player already out
  keeps his -1).
* If the board fills up, the game is a draw between the players still in
  (0 each; a player who is out keeps his -1). A stone on the last cell that
  makes a 3 puts its player out first: with three players in, the two others
  draw; with two in, the other one wins.
* **Forced block**: "players must block the next player's win if possible".
  Exactly: let N be the player who moves after the mover (the next player
  still in the game) and T the empty cells where a stone of N would make a
  line of 4 or more (N's immediate wins). If T is **exactly one cell**, the
  mover's legal moves are that cell and every cell where the mover himself
  makes a 4 or more (a win ends the game, so N's win is stopped too); he must
  block even if the blocking stone makes a 3 and puts him out. If T is empty,
  or holds two or more cells (one stone cannot stop two wins, so blocking is
  not possible), every empty cell is legal. The rule applies in every
  position of the three-player game, also after a player is out (then N is
  simply the other remaining player, and the rule only removes moves that
  lose at once anyway). The sources do not say whether the mover may win
  instead of blocking; we allow it, since a win ends the game before N moves.
  (Other implementations differ: GBG looks only at lines through N's last
  stone and forces the first threat it finds; Abstract Play applies the rule
  only while all three players are in.)

Pie rule (``swap=True``, two players only; the rule as game servers offer
it against the first player's advantage, e.g. yourturnmyturn.com, and as GBG
implements it): on the second move of the game ``player_1`` may, instead of
placing a stone, take over ``player_0``'s first stone, which becomes
``player_1``'s stone (the action is that stone's cell); then ``player_0``
moves on as the second player would. This is the same as swapping colours,
without swapping seats. It counts as a ply; ``player_0`` then has one stone
fewer than usual. There is no three-player pie rule (none is published), so
``swap=True`` with ``players=3`` raises ``ValueError``.

Board and coordinates
---------------------
A cell is ``(r, c)`` on a ``(2*size-1)``-square grid with ``size-1 <= r + c
<= 3*size-3`` (the hexagon inside a Hex-like rhombus: each row sits half a
cell further right than the row above). Its neighbours are ``(r, c+-1)``,
``(r+-1, c)``, ``(r-1, c+1)`` and ``(r+1, c-1)``; lines run along ``(0, 1)``,
``(1, 0)`` and ``(1, -1)``. For ``size = 3``, with cell numbers::

        0  1  2            a
       3  4  5  6          b
     7  8  9 10 11         c
      12 13 14 15          d
        16 17 18           e

The ``rgb_array`` image (``GameSpec.paint``) draws the ``(2*size-1)^2`` grid
with Hex's half-cell row shift; grid places outside the hexagon are painted in
the background colour (the last entry of ``cell_colors``), so only the
hexagon shows. ``GameSpec.grid_shape`` stays empty: the n-tuple board is the
``n_cells`` cells, not a rows x cols array.

State: the common header (:mod:`farl_envs.core.spec`) followed by the
``n_cells`` cells (0 empty, ``1 + seat``); with 3 players one more entry, the
bit mask of the seats that are out (bit ``seat``). In a finished game
``state[0]`` is the seat that would have moved next. The board's geometry
(numbering, neighbours, symmetries, text and picture) is in
:mod:`farl_envs.games._yavalath_board`.

Leaf evaluation of the depth-limited searches (``heuristic``, see
:mod:`farl_envs.games._heuristics`): a player's score counts his open
4-lines and his own 3-traps. Every window of 4 cells in a line holding only
his stones and empty cells counts 1 with 2 stones and 3 with 3 stones (the
3-stone window is a win threat); every empty cell where his stone would make
exactly three (and not four), a cell he can never play, counts -1. The value
is ``0.5 tanh((own score - mean score of the others in) / 5)``.

Version history: v0, first release.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import (
    HEADER,
    PLY,
    TERMINAL,
    TO_MOVE,
    GameSpec,
    check_header,
    check_int_param,
)
from farl_envs.games import _yavalath_board as hexagon
from farl_envs.games._heuristics import relative_to_others
from farl_envs.games._yavalath_board import (  # the board's layout is part of this module's interface
    cell_coords,
    neighbour_table,
)

MIN_SIZE = 3
MAX_SIZE = 10

# indices into the parameter vector p
P_SIZE, P_PLAYERS, P_SWAP, P_CELLS, P_BASE = 0, 1, 2, 3, 4

NO_LINE, THREE, FOUR = 0, 1, 2

# one table for all sizes; a size's rows start at _BASE[size] (numba keeps the global arrays as constants)
_BASE = {}
_tables, _rc = [], []
for _s in range(MIN_SIZE, MAX_SIZE + 1):
    _BASE[_s] = sum(t.shape[0] for t in _tables)
    _tables.append(neighbour_table(_s))
    _rc.append(np.array(cell_coords(_s), dtype=np.int64))
NEIGHBOURS = np.concatenate(_tables)
COORDS = np.concatenate(_rc)
del _s, _tables, _rc


# ------------------------------------------------------------------ kernels
@njit(cache=True, inline="always")
def _run_through(s, base, cell, mark, axis):
    """Length of the line of ``mark`` stones along ``axis`` through ``cell`` (``cell`` itself counted as ``mark``)."""
    length = 1
    for d in (axis, axis + 3):
        nb = NEIGHBOURS[base + cell, d]
        while nb >= 0 and s[HEADER + nb] == mark:
            length += 1
            nb = NEIGHBOURS[base + nb, d]
    return length


@njit(cache=True)
def _line_made(s, base, cell, mark):
    """FOUR when a ``mark`` stone on ``cell`` makes a line of 4 or more, else THREE when it makes one of exactly 3."""
    result = NO_LINE
    for axis in range(3):
        length = _run_through(s, base, cell, mark, axis)
        if length >= 4:
            return FOUR
        if length == 3:
            result = THREE
    return result


@njit(cache=True, inline="always")
def _next_in(mover, out_mask, players):
    """The seat after ``mover`` in turn order that is not out."""
    nxt = (mover + 1) % players
    while (out_mask >> nxt) & 1 == 1 and nxt != mover:
        nxt = (nxt + 1) % players
    return nxt


@njit(cache=True)
def initial_state(p, rng):
    """The empty board; ``rng`` is unused."""
    extra = 1 if p[P_PLAYERS] == 3 else 0
    return np.zeros(HEADER + p[P_CELLS] + extra, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal cells in ``mask`` (``int8[n_cells]``); return their count.

    Empty cells, restricted by the three-player forced block; with the pie
    rule, at ply 1 also the cell of the first stone.
    """
    n = p[P_CELLS]
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    base = p[P_BASE]
    if p[P_PLAYERS] == 3:
        mover = s[TO_MOVE]
        nxt = _next_in(mover, s[HEADER + n], 3)
        threat = -1
        threats = 0
        nxt_mark = nxt + 1
        for c in range(n):
            if s[HEADER + c] == 0 and _line_made(s, base, c, nxt_mark) == FOUR:
                threats += 1
                threat = c
                if threats == 2:
                    break
        if threats == 1:
            mask[threat] = 1
            count = 1
            mark = mover + 1
            for c in range(n):
                if c != threat and s[HEADER + c] == 0 and _line_made(s, base, c, mark) == FOUR:
                    mask[c] = 1
                    count += 1
            return count
    count = 0
    for c in range(n):
        if s[HEADER + c] == 0:
            mask[c] = 1
            count += 1
    if p[P_SWAP] != 0 and s[PLY] == 1:
        for c in range(n):
            if s[HEADER + c] == 1:
                mask[c] = 1
                count += 1
    return count


@njit(cache=True)
def _board_full(s, n):
    for c in range(n):
        if s[HEADER + c] == 0:
            return False
    return True


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Play the legal action ``a`` of the player to move (see the module docstring).

    Writes the next state into ``out`` (may be ``s``) and the reward deltas
    into ``rewards`` (``float64[players]``).
    """
    n = p[P_CELLS]
    players = p[P_PLAYERS]
    mover = s[TO_MOVE]
    ply = s[PLY] + 1
    pie = p[P_SWAP] != 0 and s[PLY] == 1 and s[HEADER + a] == 1
    copy_state(s, out)
    for i in range(players):
        rewards[i] = 0.0
    out[PLY] = ply
    if pie:  # player_1 takes over the first stone
        out[HEADER + a] = 2
        out[TO_MOVE] = 0
        return
    mark = mover + 1
    out[HEADER + a] = mark
    line = _line_made(out, p[P_BASE], a, mark)
    # a full board needs at least n stones, and there are ply (or ply - 1 after the pie rule)
    full = ply >= n and _board_full(out, n)
    if players == 2:
        out[TO_MOVE] = 1 - mover
        if line == FOUR:
            out[TERMINAL] = 1
            rewards[mover] = 1.0
            rewards[1 - mover] = -1.0
        elif line == THREE:
            out[TERMINAL] = 1
            rewards[mover] = -1.0
            rewards[1 - mover] = 1.0
        elif full:
            out[TERMINAL] = 1
        return
    out_mask = s[HEADER + n]
    if line == FOUR:
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        for q in range(3):
            if q != mover and not (out_mask >> q) & 1:
                rewards[q] = -1.0
    elif line == THREE:
        rewards[mover] = -1.0
        if out_mask != 0:  # the second player out: the last one left wins
            for q in range(3):
                if q != mover and not (out_mask >> q) & 1:
                    rewards[q] = 1.0
            out[TERMINAL] = 1
        elif full:
            out[TERMINAL] = 1
        out_mask |= 1 << mover
        out[HEADER + n] = out_mask
    elif full:
        out[TERMINAL] = 1
    out[TO_MOVE] = _next_in(mover, out_mask, 3)


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s planes into ``out`` (``int8[2*size-1, 2*size-1, players+1]``), see the module docstring."""
    players = p[P_PLAYERS]
    base = p[P_BASE]
    out[:] = 0
    for c in range(p[P_CELLS]):
        r = COORDS[base + c, 0]
        col = COORDS[base + c, 1]
        out[r, col, players] = 1
        v = s[HEADER + c]
        if v > 0:
            out[r, col, (v - 1 - seat + players) % players] = 1


@njit(cache=True)
def scores(p, s, score):
    """Each player's score of the searches' leaf value into ``score``: 4-windows (2 stones: 1, 3 stones: 3) minus
    3-traps (see the module docstring)."""
    n, players, base = p[P_CELLS], p[P_PLAYERS], p[P_BASE]
    score[:] = 0.0
    count = np.zeros(players + 1, dtype=np.int64)
    for c in range(n):
        for axis in range(3):  # the window c, c1, c2, c3 along the axis
            c1 = NEIGHBOURS[base + c, axis]
            c2 = NEIGHBOURS[base + c1, axis] if c1 >= 0 else -1
            c3 = NEIGHBOURS[base + c2, axis] if c2 >= 0 else -1
            if c3 < 0:
                continue
            count[:] = 0
            count[s[HEADER + c]] += 1
            count[s[HEADER + c1]] += 1
            count[s[HEADER + c2]] += 1
            count[s[HEADER + c3]] += 1
            for q in range(players):
                if count[q + 1] >= 2 and count[q + 1] + count[0] == 4:
                    score[q] += 1.0 if count[q + 1] == 2 else 3.0
        if s[HEADER + c] == 0:
            for q in range(players):
                if _line_made(s, base, c, q + 1) == THREE:
                    score[q] -= 1.0


@njit(cache=True)
def heuristic(p, s, out):
    """The searches' leaf value: ``0.5 tanh((own score - mean score of the others in) / 5)``, 0 for a player who
    is out (see the module docstring)."""
    n, players = p[P_CELLS], p[P_PLAYERS]
    gone = s[HEADER + n] if players == 3 else 0
    score = np.zeros(players)
    alive = np.zeros(players, dtype=np.bool_)
    for q in range(players):
        alive[q] = not (gone >> q) & 1
    scores(p, s, score)
    relative_to_others(score, alive, out)
    for q in range(players):
        out[q] = 0.5 * math.tanh(out[q] / 5.0)


# ------------------------------------------------------------ Python helpers

def _turn_order_counts(players: int, ply: int, out_seat: int, out_stones: int):
    """Stones per seat and the seat to move after ``ply`` moves when ``out_seat`` (or -1) dropped out after
    placing ``out_stones`` stones; None when that cannot happen within ``ply`` moves."""
    counts = [0] * players
    seat, out = 0, False
    for _ in range(ply):
        counts[seat] += 1
        if seat == out_seat and counts[seat] == out_stones:
            out = True
        nxt = (seat + 1) % players
        if out and nxt == out_seat:
            nxt = (nxt + 1) % players
        seat = nxt
    if out_seat >= 0 and not out:
        return None
    return counts, seat


def _validate_live(p, s) -> str:
    """Checks of a position as if the game were still running (terminal flag ignored)."""
    size, players, swap, n = int(p[P_SIZE]), int(p[P_PLAYERS]), bool(p[P_SWAP]), int(p[P_CELLS])
    cells = s[HEADER:HEADER + n]
    if np.any((cells < 0) | (cells > players)):
        return f"cells must be 0 (empty) or 1..{players} (a stone of seat 0..{players - 1})"
    counts = [int(np.sum(cells == q + 1)) for q in range(players)]
    ply, mover = int(s[PLY]), int(s[TO_MOVE])
    out_mask = int(s[HEADER + n]) if players == 3 else 0
    if players == 3 and out_mask not in (0, 1, 2, 4, 3, 5, 6):
        return f"the out mask must be a bit mask of at most two seats, got {out_mask}"
    outs = [q for q in range(players) if (out_mask >> q) & 1]
    lines = hexagon.lines(cells, size)
    if players == 2:
        expected = [(ply + 1) // 2, ply // 2]
        # after the pie rule player_0 has placed one stone fewer: the taken-over stone is player_1's
        swapped = [(ply - 1) // 2, (ply - 1) - (ply - 1) // 2] if swap and ply >= 2 else None
        if counts != expected and counts != swapped:
            allowed = f"{expected}" + (f" or {swapped} after the pie rule" if swapped else "")
            return f"stone counts {counts} do not fit {ply} plies (expected {allowed})"
        if mover != ply % 2:
            return "player to move does not match the ply count"
        return ""
    # three players: the turn order skips the seat that is out
    if len(outs) > 1 and not s[TERMINAL]:
        return "two players are out but the game goes on"
    if mover in outs and not s[TERMINAL]:
        return f"seat {mover} is out but is to move"
    options = []
    if not outs:
        options.append(_turn_order_counts(3, ply, -1, 0))
    else:
        for q in outs:  # the seat that went out first
            options.append(_turn_order_counts(3, ply, q, counts[q]))
    if not any(o is not None and o[0] == counts and (s[TERMINAL] or o[1] == mover) for o in options):
        return f"stone counts {counts}, player to move {mover} and out seats {outs} do not fit {ply} plies"
    if not s[TERMINAL]:
        for q in range(3):
            if (q + 1 in lines["three"]) != (q in outs):
                return (f"seat {q} has a line of exactly three but is not out" if q not in outs
                        else f"seat {q} is out without a line of exactly three")
    return ""


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    A running game: the layout, cell values, stone counts against the ply
    count, the player to move and (3 players) the seats that are out, no line
    of 4, lines of exactly 3 only for the seats that are out (none with 2
    players), and not a full board. A finished game must be the result of a
    legal last move from a legal running position (checked by undoing each
    stone of each seat in turn and replaying it with the kernel). The history
    behind a running position (e.g. whether earlier moves obeyed the forced
    block) is not checked.
    """
    size, players, n = int(p[P_SIZE]), int(p[P_PLAYERS]), int(p[P_CELLS])
    state_size = HEADER + n + (1 if players == 3 else 0)
    msg = check_header(s, players, state_size)
    if msg:
        return msg
    msg = _validate_live(p, s)
    if msg:
        return msg
    if s[TERMINAL]:
        return "" if _has_last_move(p, s) else "no legal last move ends the game in this position"
    lines = hexagon.lines(s[HEADER:HEADER + n], size)
    if any(v >= 4 for v in lines["longest"].values()):
        return "a line of four or more stands on the board but the game is not over"
    if players == 2 and lines["three"]:
        return "a line of exactly three stands on the board but the game is not over"
    if not np.any(s[HEADER:HEADER + n] == 0):
        return "the board is full but the game is not over"
    return ""


def _has_last_move(p, s) -> bool:
    """True when some running position and legal move lead to the finished position ``s`` with the kernel."""
    players, n = int(p[P_PLAYERS]), int(p[P_CELLS])
    mask = np.zeros(n, dtype=np.int8)
    rewards = np.zeros(players)
    after = np.empty_like(s)
    for q in range(players):
        # with 3 players the last move may have put its player out: try the mask with and without q
        masks = [None] if players == 2 else sorted({int(s[HEADER + n]), int(s[HEADER + n]) & ~(1 << q)})
        for cell in np.flatnonzero(s[HEADER:HEADER + n] == q + 1):
            for mask_before in masks:
                prev = s.copy()
                prev[HEADER + cell] = 0
                prev[TERMINAL] = 0
                prev[PLY] -= 1
                prev[TO_MOVE] = q
                if mask_before is not None:
                    prev[HEADER + n] = mask_before
                if validate(p, prev) != "":
                    continue
                legal_actions(p, prev, mask)
                if not mask[cell]:
                    continue
                afterstate(p, prev, int(cell), after, rewards)
                if np.array_equal(after, s):
                    return True
    return False


def eliminated(p, s) -> tuple:
    """The seats that are out (three players; see ``GameSpec.eliminated``)."""
    mask = int(s[HEADER + int(p[P_CELLS])])
    return tuple(q for q in range(3) if (mask >> q) & 1)


def render_text(p, s) -> str:
    """The hexagon as text (:func:`~farl_envs.games._yavalath_board.text`), the seats that are out below it."""
    return hexagon.text(int(p[P_SIZE]), s[HEADER:HEADER + int(p[P_CELLS])],
                        eliminated(p, s) if int(p[P_PLAYERS]) == 3 else ())


def symmetries(p) -> np.ndarray:
    """``int32[12, n_cells]``: the hexagon's 6 rotations, then each mirrored; row 0 the identity."""
    return hexagon.symmetries(int(p[P_SIZE]))


def action_symmetries(p) -> np.ndarray:
    """``int32[12, n_cells]``: actions are cells, so each row is the inverse of the cell permutation."""
    return hexagon.inverse_permutations(symmetries(p))


def cell_neighbours(p) -> list[list[int]]:
    """The hexagonal neighbours of every cell (2 to 6 of them)."""
    return hexagon.cell_neighbours(int(p[P_SIZE]))


def _paint(p, s) -> np.ndarray:
    """The ``(2*size-1)^2`` grid for ``rgb_array``: cell values, ``players + 1`` (background) off the hexagon."""
    return hexagon.picture(int(p[P_SIZE]), s[HEADER:HEADER + int(p[P_CELLS])], int(p[P_PLAYERS]) + 1)


def make_spec(size: int = 5, players: int = 2, swap: bool = False) -> GameSpec:
    """The Yavalath spec (``ValueError`` naming the allowed values on bad parameters)."""
    size = check_int_param("size", size, MIN_SIZE, MAX_SIZE)
    players = check_int_param("players", players, 2, 3)
    if not isinstance(swap, (bool, np.bool_)):
        raise ValueError(f"swap must be True or False, got {swap!r}")
    if swap and players == 3:
        raise ValueError("swap (the pie rule) is for 2 players only; use swap=False with players=3")
    n = hexagon.n_cells_of(size)
    m = 2 * size - 1
    p = np.array([size, players, int(bool(swap)), n, _BASE[size]], dtype=np.int64)
    colors = ((225, 225, 225), (200, 40, 40), (40, 80, 200), (230, 170, 30))[: players + 1] + ((40, 40, 40),)
    return GameSpec(
        name="yavalath", version=0, params={"size": size, "players": players, "swap": bool(swap)}, p=p,
        n_players=players, n_actions=n, state_size=HEADER + n + (1 if players == 3 else 0), n_cells=n,
        n_cell_values=players + 1, obs_shape=(m, m, players + 1), obs_high=1,
        max_plies=n + (1 if swap else 0), reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        # no grid_shape: the n_cells cells are not a rows x cols array (code that reshapes boards must not try);
        # _paint draws them on the (2*size-1)^2 grid with Hex's half-cell row shift (hex_grid)
        action_names=hexagon.action_names(size), cell_colors=colors, hex_grid=True,
        cell_neighbours=cell_neighbours, eliminated=eliminated if players == 3 else None, paint=_paint,
        heuristic=heuristic,
    )
