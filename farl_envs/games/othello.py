"""Othello (Reversi on the 8x8 board) rules as numba kernels.

==================  ===========================================
players             2 (``player_0`` plays black and moves first)
actions             65: ``cell = 8 * row + col`` (row 0 = rank 1,
                    col 0 = file a), named ``"a1"`` .. ``"h8"``;
                    action 64 ``"pass"``, legal only when the mover
                    has no other legal move
rewards             +1 / -1 / 0 by disc count (more discs wins), at the
                    move that ends the game; 0 at every other move
observation         ``int8[8, 8, 2]``: plane 0 the observer's discs,
                    plane 1 the opponent's; row 0 (rank 1) at the top
n-tuple board       64 cells: 0 empty, 1 black, 2 white, 3 empty where
                    the next disc may go (P = 4)
symmetries          8 (rotations and reflections of the square)
==================  ===========================================

Rules. The game starts with white on d4 and e5, black on e4 and d5. A move
puts a disc of the mover's colour on an empty cell such that, in at least
one of the 8 directions, one or more opponent discs lie in an unbroken line
between it and another disc of the mover's; every such line (in all
directions at once) is flipped to the mover's colour. A player without such
a move must pass (action 64), and may pass only then. The game ends when
neither player can move, which includes the full board; it is detected
right after each move, so a position where neither side can move is always
terminal and no "pass, pass" sequence is ever played. The player with more
discs wins; equal counts are a draw. (Empty cells are not awarded to the
winner: the reward depends only on who has more discs.)

Cell numbering (Othello diagrams put rank 1 at the top; black's four
opening moves are d3 = 19, c4 = 26, f5 = 37 and e6 = 44)::

         a  b  c  d  e  f  g  h
      1  0  1  2  3  4  5  6  7
      2  8  9 10 11 12 13 14 15
      3 16 17 18 19 20 21 22 23
      4 24 25 26 27 28 29 30 31        d4 = 27 white, e4 = 28 black
      5 32 33 34 35 36 37 38 39        d5 = 35 black, e5 = 36 white
      6 40 41 42 43 44 45 46 47
      7 48 49 50 51 52 53 54 55
      8 56 57 58 59 60 61 62 63

State: the common header (:mod:`farl_envs.core.spec`) followed by the 64
cells (0 empty, 1 black = ``player_0``, 2 white = ``player_1``). A pass
counts as a ply and hands the move to the other player, so the player to
move is always ``ply % 2``.

What ``validate`` checks. Passes leave no trace on the board, so the exact
move history cannot be recovered; it checks the facts every reachable
position satisfies:

* cells hold 0, 1 or 2, and the four centre cells are occupied (discs are
  never removed);
* the occupied cells form one 8-connected group (every disc is placed next
  to an existing one);
* with ``d`` discs on the board, ``d - 4`` disc-placing moves were played,
  and passes are never consecutive and never the first move, so
  ``d - 4 <= ply <= 2 * (d - 4)``;
* the player to move is ``ply % 2``;
* the terminal flag is set exactly when neither side has a legal move.

It cannot tell which colour placed which disc, so it accepts some
positions that no game reaches (e.g. the start position with colours
swapped).

Version history: v0, first release.  The n-tuple board (not the
environment's observation) gained value 3, the legal cells of the next
mover, as Konen & Bagheri 2020, A.6, specifies (P = 4); agents saved with the earlier
three-valued board no longer load.

Implementation. The kernels work on bitboards: two ``uint64`` (bit ``i`` is
cell ``i``), one for the mover's discs and one for the opponent's.  Legal
moves and flips are found by shifting a whole board one step in each of the
8 directions at once (east/west and the diagonals mask out the a and h files
so no line wraps around an edge), which replaces the old scan of 64 cells x
8 directions by a few dozen word operations.  The state keeps its 64 cells
(the layout of :mod:`farl_envs.core.spec`, so the environment,
observations, n-tuple boards, ``validate`` and saved positions are
unchanged); each kernel call packs the cells into the two words (one pass
over 64 cells) and writes back only the cells a move changes.  Storing the
words in the state as well was measured and not taken: see
docs/results/othello_kernel_speed.md.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.bits import lowest_bit, popcount
from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._fixed_ntuples import OTHELLO
from farl_envs.games._grid import cell_action_symmetries, square_symmetries, stone_planes

SIZE = 8
N_CELLS = SIZE * SIZE
PASS = N_CELLS
N_ACTIONS = N_CELLS + 1
STATE_SIZE = HEADER + N_CELLS
CENTRE = (27, 28, 35, 36)
#: the longest game: 60 disc moves, each preceded by at most one pass
MAX_PLIES = 2 * (N_CELLS - 4)

#: the 8 neighbours as (row step, column step), for ``validate``'s connectivity test
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@njit(cache=True)
def initial_state(p, rng):
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[HEADER + 27] = 2  # d4 white
    s[HEADER + 28] = 1  # e4 black
    s[HEADER + 35] = 1  # d5 black
    s[HEADER + 36] = 2  # e5 white
    return s


# --- bitboards -------------------------------------------------------------
# All constants and shift counts are uint64: numba turns uint64 (op) int64
# into float64, which would silently break the bit arithmetic.
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
#: every cell except the a and h files: an east/west/diagonal step from an
#: inner cell never wraps to the next or previous row
_INNER = np.uint64(0x7E7E7E7E7E7E7E7E)
_S1 = np.uint64(1)  # one step east (<<) or west (>>)
_S7 = np.uint64(7)  # south-west (<<) or north-east (>>)
_S8 = np.uint64(8)  # south (<<) or north (>>)
_S9 = np.uint64(9)  # south-east (<<) or north-west (>>)


@njit(cache=True)
def _step(x, k, up):
    """Every disc of ``x`` moved ``k`` cells up the numbering (``up``) or down."""
    return (x << k) if up else (x >> k)


@njit(cache=True)
def _line_ends(own, opp, empty, k, up):
    """Empty cells that close, in one direction, a run of ``opp`` discs
    starting next to an ``own`` disc (``opp`` is already edge-masked when the
    direction can wrap; a run is at most 6 discs long)."""
    t = _step(own, k, up) & opp
    for _ in range(5):
        t |= _step(t, k, up) & opp
    return _step(t, k, up) & empty


@njit(cache=True)
def legal_bits(own, opp):
    """The cells where the owner of ``own`` may place a disc, as a bitboard."""
    empty = ~(own | opp)
    inner = opp & _INNER
    m = _line_ends(own, inner, empty, _S1, True)
    m |= _line_ends(own, inner, empty, _S1, False)
    m |= _line_ends(own, opp, empty, _S8, True)
    m |= _line_ends(own, opp, empty, _S8, False)
    m |= _line_ends(own, inner, empty, _S7, True)
    m |= _line_ends(own, inner, empty, _S7, False)
    m |= _line_ends(own, inner, empty, _S9, True)
    m |= _line_ends(own, inner, empty, _S9, False)
    return m


@njit(cache=True)
def _line_flips(bit, own, opp, k, up):
    """The ``opp`` discs a disc on ``bit`` flips in one direction (0 when the
    run is not closed by an ``own`` disc)."""
    run = _ZERO
    x = _step(bit, k, up)
    while x & opp:
        run |= x
        x = _step(x, k, up)
    return run if x & own else _ZERO


@njit(cache=True)
def flip_bits(own, opp, cell):
    """The opponent discs flipped when the owner of ``own`` plays ``cell``."""
    bit = _ONE << np.uint64(cell)
    inner = opp & _INNER
    f = _line_flips(bit, own, inner, _S1, True)
    f |= _line_flips(bit, own, inner, _S1, False)
    f |= _line_flips(bit, own, opp, _S8, True)
    f |= _line_flips(bit, own, opp, _S8, False)
    f |= _line_flips(bit, own, inner, _S7, True)
    f |= _line_flips(bit, own, inner, _S7, False)
    f |= _line_flips(bit, own, inner, _S9, True)
    f |= _line_flips(bit, own, inner, _S9, False)
    return f


@njit(cache=True)
def discs(s):
    """The cells of state ``s`` as bitboards ``(black, white)``."""
    black = _ZERO
    white = _ZERO
    for c in range(N_CELLS):  # cells hold 0, 1 or 2: bit 0 is black, bit 1 white
        v = np.uint64(s[HEADER + c])
        black |= (v & _ONE) << np.uint64(c)
        white |= (v >> _ONE) << np.uint64(c)
    return black, white


@njit(cache=True)
def _has_move(s, seat):
    """True when ``seat`` has a disc-placing move (passes not counted)."""
    black, white = discs(s)
    if seat == 0:
        return legal_bits(black, white) != _ZERO
    return legal_bits(white, black) != _ZERO


# --- kernels ---------------------------------------------------------------
@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    black, white = discs(s)
    m = legal_bits(black, white) if s[TO_MOVE] == 0 else legal_bits(white, black)
    if m == _ZERO:
        mask[PASS] = 1
        return 1
    n = 0
    while m:
        mask[lowest_bit(m)] = 1
        m &= m - _ONE
        n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    mover = s[TO_MOVE]
    ply = s[PLY]
    black, white = discs(s)
    copy_state(s, out)
    own, opp = (black, white) if mover == 0 else (white, black)
    if a != PASS:
        me = mover + 1
        f = flip_bits(own, opp, a)
        own |= f | (_ONE << np.uint64(a))
        opp ^= f
        out[HEADER + a] = me
        while f:
            out[HEADER + lowest_bit(f)] = me
            f &= f - _ONE
    out[PLY] = ply + 1
    out[TO_MOVE] = 1 - mover
    rewards[:] = 0.0
    # the game is over when neither side can move (the next player is tried
    # first: when it can move, which is the usual case, one test suffices)
    if legal_bits(opp, own) == _ZERO and legal_bits(own, opp) == _ZERO:
        out[TERMINAL] = 1
        mine = popcount(own)
        theirs = popcount(opp)
        if mine != theirs:
            won = mover if mine > theirs else 1 - mover
            rewards[won] = 1.0
            rewards[1 - won] = -1.0


@njit(cache=True)
def board(p, s, out):
    """The n-tuple board: 1 black, 2 white, 3 an empty cell where the next
    disc may go, 0 any other empty cell (P = 4, as in Konen & Bagheri 2020, A.6, and GBG).

    "The next disc" is that of the player to move, or, when that player must
    pass, of the other player, who places the next disc; a finished game
    has no 3s.  Marking the legal cells hands the value function the
    mobility of the side to move, which the disc pattern alone shows only
    through long-range lines (Othello's n-tuples are 6 cells long).
    """
    for c in range(N_CELLS):
        out[c] = s[HEADER + c]
    if s[TERMINAL]:
        return
    black, white = discs(s)
    own, opp = (black, white) if s[TO_MOVE] == 0 else (white, black)
    m = legal_bits(own, opp)
    if m == _ZERO:  # the player to move must pass: the other one moves next
        m = legal_bits(opp, own)
    while m:
        out[lowest_bit(m)] = 3
        m &= m - _ONE


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[8, 8, 2]``): own discs, then the opponent's."""
    stone_planes(s, HEADER, SIZE, SIZE, seat, out)


def _connected(cells: np.ndarray) -> bool:
    """True when the occupied cells form one 8-connected group."""
    occupied = set(int(c) for c in np.flatnonzero(cells))
    if not occupied:
        return False
    start = next(iter(occupied))
    seen, todo = {start}, [start]
    while todo:
        c = todo.pop()
        r, k = divmod(c, SIZE)
        for dr, dc in DIRECTIONS:
            rr, kk = r + dr, k + dc
            n = SIZE * rr + kk
            if 0 <= rr < SIZE and 0 <= kk < SIZE and n in occupied and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(occupied)


def validate(p, s) -> str:
    """Empty when ``s`` passes the checks listed in the module docstring, else the reason."""
    msg = check_header(s, 2, STATE_SIZE)
    if msg:
        return msg
    cells = s[HEADER:]
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (black) or 2 (white)"
    if any(cells[c] == 0 for c in CENTRE):
        return "the four centre cells d4, e4, d5, e5 must be occupied"
    if not _connected(cells):
        return "the discs must form one connected group (each disc is placed next to another)"
    moves = int(np.count_nonzero(cells)) - 4
    if not moves <= s[PLY] <= 2 * moves:
        return (f"ply count {s[PLY]} impossible with {moves + 4} discs: {moves} disc moves "
                f"and at most as many passes were played, so ply must be in {moves}..{2 * moves}")
    if s[TO_MOVE] != s[PLY] % 2:
        return "player to move must be ply % 2 (every move, a pass too, hands over the turn)"
    over = not _has_move(s, 0) and not _has_move(s, 1)
    if bool(s[TERMINAL]) != over:
        return ("terminal flag is set but a player can still move" if s[TERMINAL]
                else "neither player can move, so the terminal flag must be set")
    return ""


def score(p, s) -> float:
    """The score of a finished game, ``player_0``'s view: black's discs minus white's (its sign is the result)."""
    cells = s[HEADER:HEADER + N_CELLS]
    return float(np.count_nonzero(cells == 1) - np.count_nonzero(cells == 2))


def render_text(p, s) -> str:
    """The board as text, rank 1 on top: ``.`` empty, ``X`` black, ``O`` white."""
    lines = ["  a b c d e f g h"]
    for r in range(SIZE):
        row = " ".join(".XO"[int(s[HEADER + SIZE * r + c])] for c in range(SIZE))
        lines.append(f"{r + 1} {row}")
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """``int32[8, 64]``: the rotations and reflections of the square."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """Actions are cells, so each symmetry maps them like the cells (pass stays pass)."""
    return cell_action_symmetries(symmetries(p), 65)


def make_spec() -> GameSpec:
    """The Othello spec (the game has no parameters)."""
    names = tuple(f"{'abcdefgh'[c % SIZE]}{c // SIZE + 1}" for c in range(N_CELLS)) + ("pass",)
    return GameSpec(
        name="othello", version=0, params={}, p=np.zeros(1, dtype=np.int64),
        n_players=2, n_actions=N_ACTIONS, state_size=STATE_SIZE, n_cells=N_CELLS, n_cell_values=4,
        obs_shape=(SIZE, SIZE, 2), obs_high=1, max_plies=MAX_PLIES, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        board=board, observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=names,
        # the fourth colour marks the empty squares where the next disc may go (a lighter green, not a disc)
        cell_colors=((30, 120, 60), (20, 20, 20), (240, 240, 240), (90, 170, 110)), grid_shape=(SIZE, SIZE),
        fixed_ntuples=OTHELLO, evaluation_starts="othello-4ply", view="othello", counts_pieces=True, score=score,
    )
