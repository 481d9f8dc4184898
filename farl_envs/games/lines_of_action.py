"""Lines of Action as numba kernels, with OpenSpiel's rules, move limit and action numbering.

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of OpenSpiel's rules, move limit and repetition rule included, and
``validate`` checks a hand-made position down to the history of its moves; this
docstring is the game's documentation page.)

Lines of Action (Claude Soucie, 1960s; popularised by Sid Sackson's *A
Gamut of Games*, 1969) is played on an 8x8 board by two players with twelve
pieces each. farl follows OpenSpiel's ``lines_of_action`` (pyspiel 2.0)
exactly, so the two can be played in lockstep; OpenSpiel itself uses the
Mind Sports Olympiad rules as listed by Winands (2000, *Analysis and
Implementation of Lines of Action*, MSc thesis, p. 10).

==================  ===========================================
parameters          ``max_game_length=1000`` (1..10000), as
                    OpenSpiel's parameter of the same name
players             2: ``player_0`` is black (``x``, moves first),
                    ``player_1`` white (``o``)
actions             8192 = 64 x 64 x 2:
                    ``a = (from * 64 + to) * 2 + capture`` with
                    ``cell = 8 * row + col``; names as OpenSpiel's,
                    e.g. ``"b1-b3"`` (a move) or ``"c1xa3"`` (a
                    capture)
rewards             +1 win / -1 loss when the game ends, 0 / 0 for
                    a draw
observation         ``int8[8, 8, 2]``: plane 0 the observer's
                    pieces, plane 1 the opponent's; index
                    ``[row, col]``, row 0 = rank 1
n-tuple board       64 cells (``cell = 8 * row + col``), values
                    0 empty / 1 black (``player_0``) / 2 white
                    (``player_1``), P = 3
symmetries          8 (the rotations and reflections of the square)
==================  ===========================================

Rules (each decision is OpenSpiel's; checked against its C++ source
``open_spiel/games/lines_of_action/lines_of_action.cc`` and by the lockstep
test in ``tests/test_lines_of_action_rules.py``):

* **Start.** Rows are numbered 0..7 for ranks 1..8, columns 0..7 for files
  a..h. Black holds b1..g1 and b8..g8 (rows 0 and 7, columns 1..6), white
  holds a2..a7 and h2..h7 (columns 0 and 7, rows 1..6). Black moves first.
* **Moves.** A piece moves in a straight line in any of the 8 directions,
  exactly as many squares as there are pieces (of both colours, the moving
  piece included) on the whole line (row, column or diagonal) it moves
  along. It may jump over its own pieces but not over the opponent's; it
  may land on an empty square or on an opponent piece, which is captured
  (removed). It may not land on its own piece or leave the board.
* **Winning.** A player whose pieces form one group, connected
  orthogonally or diagonally (8-connected), wins. A player reduced to one
  piece is connected. Both players are checked after every move: if the move
  connects the mover's pieces the mover wins, **even when it also connects
  the opponent's** (a capture can do both); otherwise, if the opponent's
  pieces are connected (a capture can do that too), the opponent wins.
* **No move.** A player who cannot move loses (Winands' rule 9).
* **Repetition.** A move that recreates a board (piece placement, whoever is
  to move) that has already appeared in the game, the start position
  included, ends the game in a draw. (Winands' rule 10 speaks of the same
  position with the same player to move; OpenSpiel compares boards only,
  and farl does as OpenSpiel.) This is checked before the win test, but a
  repeated board can never be a won one: every earlier board was followed by
  a move, so nobody was connected on it.
* **Move limit.** The move that brings the number of moves played to
  ``max_game_length`` ends the game in a draw, **even if it also connects
  a player's pieces** (OpenSpiel tests the limit after and over the win).
  ``max_game_length=1`` makes every game a one-move draw.
  The limit is a cap on the game's length, not a rule of its outcome: the AEC
  env ends such a game with both agents truncated (``truncations``, not
  ``terminations``) and the Gymnasium wrapper returns ``truncated=True``
  (``terminated=False``), Gymnasium's convention for limits outside the task
  (``truncated`` below; the kernels set the terminal flag as for any end, so
  the compiled loops treat all ends alike). Wins, losses and the repetition
  draw are rules, hence terminations.

Captures are irreversible (the number of pieces only goes down), so a board
can only repeat one seen since the last capture. The state therefore keeps
the moves played since the last capture (or the start); a new board is
compared with the earlier ones by taking those moves back one at a time on
two 64-bit bitboards, exactly, without hashing.

State: the common header (:mod:`farl_envs.core.spec`), then::

    state[3 : 67]         cells (0 empty, 1 black, 2 white), cell = 8*row + col
    state[67 : 113]       pieces on each of the 46 lines (derived from the
                          cells, kept so a move needs no counting): column c
                          at 67 + c, row r at 75 + r, diagonal (r - c
                          constant) at 83 + r - c + 7, anti-diagonal (r + c
                          constant) at 98 + r + c
    state[113]            k: moves played since the last capture (or start)
    state[114 : 114 + k]  those moves, oldest first, as ``from * 64 + to``;
                          the rest of the buffer (``max_game_length``
                          entries in all) is zero

Descent heuristics (Cohen-Solal 2020): pieces are captured, so the
*presence* heuristic applies: ``n_1`` and ``n_2`` are the counts of cells 1
and 2 of the n-tuple board.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.bits import lowest_bit
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
from farl_envs.games._grid import square_symmetries, stone_planes

SIZE = 8
N_CELLS = SIZE * SIZE
N_ACTIONS = N_CELLS * N_CELLS * 2
N_LINES = 46
PIECES = 12
DEFAULT_MAX_GAME_LENGTH = 1000
MAX_MAX_GAME_LENGTH = 10000

CELLS = HEADER
LINES = CELLS + N_CELLS
HISTORY_LEN = LINES + N_LINES
HISTORY = HISTORY_LEN + 1

FILES = "abcdefgh"

# the 8 directions in OpenSpiel's order; direction d moves along line kind d % 4
# (0 column, 1 diagonal, 2 row, 3 anti-diagonal)
ROW_STEP = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)
COL_STEP = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)

_ONE = np.uint64(1)
_EIGHT = np.uint64(8)
_NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)  # bits of columns 1..7
_NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)  # bits of columns 0..6


def state_size(max_game_length: int) -> int:
    """Length of a state: header, cells, line counts, history length and history buffer."""
    return HISTORY + max_game_length


@njit(cache=True)
def _line(r, c, kind):
    """Index (0..45) of the line of kind 0 column / 1 diagonal / 2 row / 3 anti-diagonal through (r, c)."""
    if kind == 0:
        return c
    if kind == 1:
        return 16 + r - c + 7
    if kind == 2:
        return 8 + r
    return 31 + r + c


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Move tables, indexed by cell, direction and the line count ``n`` (1..8).

    ``LINE_OF[f, d]``: the line (0..45) a piece on ``f`` moves along in
    direction ``d``. ``TARGET[f, d, n]``: the cell ``n`` steps away, or ``f``
    itself when that is off the board (the mover's own piece stands there, so
    the move is refused by the own-piece test). ``BETWEEN[f, d, n]``: the
    cells strictly between, as a 64-bit set (an opponent piece there blocks).
    """
    line_of = np.zeros((N_CELLS, 8), dtype=np.int64)
    target = np.zeros((N_CELLS, 8, SIZE + 1), dtype=np.int64)
    between = np.zeros((N_CELLS, 8, SIZE + 1), dtype=np.uint64)
    for cell in range(N_CELLS):
        r, c = cell >> 3, cell & 7
        for d in range(8):
            line_of[cell, d] = _line.py_func(r, c, d % 4)  # plain Python: importing the game compiles nothing
            for n in range(SIZE + 1):
                tr, tc = r + n * ROW_STEP[d], c + n * COL_STEP[d]
                if n == 0 or not (0 <= tr < SIZE and 0 <= tc < SIZE):
                    target[cell, d, n] = cell
                    continue
                target[cell, d, n] = tr * SIZE + tc
                bits = 0
                for i in range(1, n):
                    bits |= 1 << int((r + i * ROW_STEP[d]) * SIZE + c + i * COL_STEP[d])
                between[cell, d, n] = bits
    return line_of, target, between


LINE_OF, TARGET, BETWEEN = _tables()
CELL_STEP = ROW_STEP * SIZE + COL_STEP  # the change of cell index of one step in each direction


@njit(cache=True)
def _count_lines(s):
    """Recount the 46 line totals of ``s`` from its cells."""
    for i in range(N_LINES):
        s[LINES + i] = 0
    for cell in range(N_CELLS):
        if s[CELLS + cell] != 0:
            r, c = cell >> 3, cell & 7
            for kind in range(4):
                s[LINES + _line(r, c, kind)] += 1


@njit(cache=True)
def initial_state(p, rng):
    """The start position; ``rng`` is unused."""
    s = np.zeros(HISTORY + p[0], dtype=np.int32)
    for c in range(1, SIZE - 1):
        s[CELLS + c] = 1
        s[CELLS + 8 * (SIZE - 1) + c] = 1
    for r in range(1, SIZE - 1):
        s[CELLS + 8 * r] = 2
        s[CELLS + 8 * r + SIZE - 1] = 2
    _count_lines(s)
    return s


@njit(cache=True)
def _both_sides(s, own):
    """The cells of the pieces ``own`` (1 or 2) and of the other side, as two 64-bit sets."""
    mine = np.uint64(0)
    theirs = np.uint64(0)
    other = 3 - own
    for cell in range(N_CELLS):
        v = s[CELLS + cell]
        bit = np.uint64(cell)
        mine |= np.uint64(v == own) << bit
        theirs |= np.uint64(v == other) << bit
    return mine, theirs


@njit(cache=True)
def _target(s, f, d, mine, theirs):
    """Where the piece on ``f`` (of the side whose pieces are ``mine``) lands in direction ``d``, or -1."""
    n = s[LINES + LINE_OF[f, d]]
    t = TARGET[f, d, n]
    if (theirs & BETWEEN[f, d, n]) != 0 or (mine >> np.uint64(t)) & _ONE:
        return -1
    return t


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal moves of the player to move in ``mask`` (``int8[8192]``); return their count."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    own = s[TO_MOVE] + 1
    mine, theirs = _both_sides(s, own)
    n = 0
    pieces = mine
    while pieces:
        f = np.int64(lowest_bit(pieces))
        pieces &= pieces - _ONE
        for d in range(8):
            t = _target(s, f, d, mine, theirs)
            if t >= 0:
                capture = (theirs >> np.uint64(t)) & _ONE
                mask[(f * N_CELLS + t) * 2 + capture] = 1
                n += 1
    return n


@njit(cache=True)
def _has_move(s, own):
    """True when the pieces ``own`` (1 or 2) have at least one legal move."""
    mine, theirs = _both_sides(s, own)
    return _has_move_bits(s, mine, theirs)


@njit(cache=True)
def _has_move_bits(s, mine, theirs):
    """True when the side whose pieces are ``mine`` (the other side's ``theirs``) has a legal move."""
    pieces = mine
    while pieces:
        f = np.int64(lowest_bit(pieces))
        pieces &= pieces - _ONE
        for d in range(8):
            if _target(s, f, d, mine, theirs) >= 0:
                return True
    return False


@njit(cache=True)
def _bits(s, value):
    """The cells holding ``value`` as a 64-bit set (bit ``cell``)."""
    b = np.uint64(0)
    for cell in range(N_CELLS):
        if s[CELLS + cell] == value:
            b |= _ONE << np.uint64(cell)
    return b


@njit(cache=True)
def _grow(x):
    """``x`` and its 8 neighbours of every cell, inside the board."""
    y = x | (x << _EIGHT) | (x >> _EIGHT)
    return y | ((y << _ONE) & _NOT_FILE_A) | ((y >> _ONE) & _NOT_FILE_H)


@njit(cache=True)
def _connected(x):
    """True when the non-empty set of cells ``x`` is one 8-connected group.

    Grows the group of the lowest cell inside ``x`` until it stops growing
    and compares it with ``x``.
    """
    group = x & (~x + _ONE)
    while True:
        grown = _grow(group) & x
        if grown == group:
            return group == x
        group = grown


@njit(cache=True)
def _repeats(s, mover_bits, other_bits):
    """True when the board of ``s`` (its pieces ``mover_bits`` / ``other_bits``) appeared before.

    Takes back the moves since the last capture, newest first (the newest
    was the mover's, then they alternate), and compares each earlier board.
    """
    k = s[HISTORY_LEN]
    mover, other = mover_bits, other_bits
    for j in range(k):
        m = s[HISTORY + k - 1 - j]
        f, t = np.uint64(m >> 6), np.uint64(m & 63)
        if j % 2 == 0:
            mover = (mover & ~(_ONE << t)) | (_ONE << f)
        else:
            other = (other & ~(_ONE << t)) | (_ONE << f)
        if mover == mover_bits and other == other_bits:
            return True
    return False


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Play the legal action ``a``; the next state into ``out`` (may be ``s``), reward deltas into ``rewards``."""
    max_game_length = p[0]
    mover = s[TO_MOVE]
    own = mover + 1
    f = a >> 7
    t = (a >> 1) & 63
    copy_state(s, out)
    captured = out[CELLS + t] != 0
    out[CELLS + f] = 0
    out[CELLS + t] = own
    fr, fc, tr, tc = f >> 3, f & 7, t >> 3, t & 7
    for kind in range(4):
        out[LINES + _line(fr, fc, kind)] -= 1
        if not captured:
            out[LINES + _line(tr, tc, kind)] += 1
    k = out[HISTORY_LEN]
    if captured:
        for i in range(k):
            out[HISTORY + i] = 0
        out[HISTORY_LEN] = 0
    else:
        out[HISTORY + k] = f * N_CELLS + t
        out[HISTORY_LEN] = k + 1
    ply = s[PLY] + 1
    out[PLY] = ply
    out[TO_MOVE] = 1 - mover
    rewards[0] = 0.0
    rewards[1] = 0.0
    mover_bits, other_bits = _both_sides(out, own)
    winner = -1
    if _connected(mover_bits):
        winner = mover
    elif _connected(other_bits):
        winner = 1 - mover
    if ply >= max_game_length:
        out[TERMINAL] = 1  # draw, even over a connection (OpenSpiel's order)
        return
    if not captured and _repeats(out, mover_bits, other_bits):
        out[TERMINAL] = 1  # draw
        return
    if winner < 0 and not _has_move_bits(out, other_bits, mover_bits):
        winner = mover  # the player to move cannot move and loses
    if winner >= 0:
        out[TERMINAL] = 1
        rewards[winner] = 1.0
        rewards[1 - winner] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[8, 8, 2]``): own pieces, then the opponent's."""
    stone_planes(s, CELLS, SIZE, SIZE, seat, out)


# ------------------------------------------------------------ Python helpers
def cell_name(cell: int) -> str:
    """``"a1"`` .. ``"h8"`` for cells 0..63 (``cell = 8 * row + col``)."""
    return f"{FILES[cell & 7]}{(cell >> 3) + 1}"


def action_name(a: int) -> str:
    """OpenSpiel's name of action ``a``: from square, ``-`` or ``x`` (capture), to square."""
    f, t, capture = a >> 7, (a >> 1) & 63, a & 1
    return f"{cell_name(f)}{'x' if capture else '-'}{cell_name(t)}"


def encode_action(frm: int, to: int, capture: bool) -> int:
    """The action number of moving from cell ``frm`` to cell ``to`` (capturing or not)."""
    return (frm * N_CELLS + to) * 2 + int(bool(capture))


def _start_cells() -> np.ndarray:
    """The 64 cells of the start position (as ``initial_state`` sets them)."""
    cells = np.zeros((SIZE, SIZE), dtype=np.int32)
    cells[[0, SIZE - 1], 1:SIZE - 1] = 1
    cells[1:SIZE - 1, [0, SIZE - 1]] = 2
    return cells.ravel()


def _state_from_cells(p, cells: np.ndarray, to_move: int) -> np.ndarray:
    """A state with these cells, ``to_move``, empty history and consistent line counts (for ``validate``)."""
    s = np.zeros(state_size(int(p[0])), dtype=np.int32)
    s[CELLS:CELLS + N_CELLS] = cells
    s[TO_MOVE] = to_move
    _count_lines(s)
    return s


def _both_bits(cells: np.ndarray) -> tuple[np.uint64, np.uint64]:
    s = np.zeros(HISTORY, dtype=np.int32)
    s[CELLS:CELLS + N_CELLS] = cells
    return np.uint64(_bits(s, 1)), np.uint64(_bits(s, 2))


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    Checks the layout, cells, line counts, piece counts against the moves
    played (each capture took a move of the capturing side), the player to
    move, and the history: taking back the moves since the last capture, each
    must have been a legal move of the right player on the board before it,
    none of the boards on the way may be won or repeated (the game would
    have ended there), and with no capture at all the moves must lead back to
    the start position. Finally the terminal flag must agree with the rules
    (a connection, the move limit, a repetition or no legal move). These are
    necessary conditions: the play before the last capture is not checked.
    """
    max_game_length = int(p[0])
    msg = check_header(s, 2, state_size(max_game_length))
    if msg:
        return msg
    cells = s[CELLS:CELLS + N_CELLS]
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (black, player_0) or 2 (white, player_1)"
    n_black, n_white = int(np.sum(cells == 1)), int(np.sum(cells == 2))
    if not (1 <= n_black <= PIECES and 1 <= n_white <= PIECES):
        return f"each player must have 1..{PIECES} pieces, got black {n_black} and white {n_white}"
    fresh = _state_from_cells(p, cells, int(s[TO_MOVE]))
    if not np.array_equal(fresh[LINES:HISTORY_LEN], s[LINES:HISTORY_LEN]):
        return "line counts (state[67:113]) do not match the cells"
    ply = int(s[PLY])
    if ply > max_game_length:
        return f"ply count {ply} is beyond max_game_length {max_game_length}"
    if s[TO_MOVE] != ply % 2:
        return "player to move does not match the ply count (black moves on even plies)"
    if PIECES - n_white > (ply + 1) // 2 or PIECES - n_black > ply // 2:
        return "more pieces captured than moves played by the capturing side"
    k = int(s[HISTORY_LEN])
    if not 0 <= k <= ply:
        return f"history length {k} must be in 0..{ply} (the ply count)"
    if np.any(s[HISTORY + k:] != 0):
        return "history entries beyond its length must be 0"
    if k < ply and n_black + n_white == 2 * PIECES:
        return "the history starts after a capture, but no piece was captured"
    if k == ply and n_black + n_white != 2 * PIECES:
        return "pieces were captured, but the history shows no capture"
    # take the moves back, newest first
    boards = [cells.copy()]
    current = cells.copy()
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for j in range(k):
        m = int(s[HISTORY + k - 1 - j])
        f, t = m >> 6, m & 63
        if not 0 <= m < N_CELLS * N_CELLS:
            return f"history entry {m} is not a move (from * 64 + to)"
        piece = 1 + (ply - 1 - j) % 2  # the side that made this move (black on even plies)
        if current[t] != piece or current[f] != 0:
            return f"history move {cell_name(f)}-{cell_name(t)} does not fit the board"
        current = current.copy()
        current[t], current[f] = 0, piece
        before = _state_from_cells(p, current, piece - 1)
        legal_actions(p, before, mask)
        if not mask[encode_action(f, t, False)]:
            return f"history move {cell_name(f)}-{cell_name(t)} was not legal"
        boards.append(current)
    if k == ply and not np.array_equal(current, _start_cells()):
        return "no capture was made, but the moves do not lead back to the start position"
    # boards[0] is the current board, boards[1:] the earlier ones, newest first
    seen = set()
    for b in reversed(boards[1:]):
        key = b.tobytes()
        black, white = _both_bits(b)
        if key in seen or _connected(black) or _connected(white):
            return "the game went on after it had ended (a connection or a repetition in the history)"
        seen.add(key)
    black, white = _both_bits(cells)
    over = (_connected(black) or _connected(white) or ply == max_game_length
            or (ply > 0 and cells.tobytes() in seen)
            or not _has_move(fresh, int(s[TO_MOVE]) + 1))
    if ply == 0 and not np.array_equal(cells, _start_cells()):
        return "no move was played, but the board is not the start position"
    if bool(s[TERMINAL]) != over:
        return "terminal flag does not match the board"
    return ""


def truncated(p, s) -> bool:
    """True when the terminal position ``s`` was ended by the move limit: its ply count reached
    ``max_game_length`` (the limit is tested before the win and repetition, so it decides that move)."""
    return bool(s[TERMINAL]) and int(s[PLY]) >= int(p[0])


def render_text(p, s) -> str:
    """The board as OpenSpiel draws it: rank 8 on top, ``x`` black, ``o`` white, ``.`` empty."""
    lines = []
    for r in range(SIZE - 1, -1, -1):
        lines.append(f"{r + 1}" + "".join(".xo"[int(s[CELLS + r * SIZE + c])] for c in range(SIZE)))
    lines.append(" " + FILES)
    return "\n".join(lines)


def _paint(p, s) -> np.ndarray:
    """The cells as drawn: rank 8 in the top row."""
    return np.asarray(s[CELLS:CELLS + N_CELLS]).reshape(SIZE, SIZE)[::-1].astype(np.int32)


def symmetries(p) -> np.ndarray:
    """``int32[8, 64]``: the 8 symmetries of the square (the rules do not depend on orientation)."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """``int32[8, 8192]``: the move from ``f`` to ``t`` becomes the move between the images of ``f`` and ``t``."""
    perms = symmetries(p)
    a = np.arange(N_ACTIONS, dtype=np.int64)
    f, t, capture = a >> 7, (a >> 1) & 63, a & 1
    out = np.empty((perms.shape[0], N_ACTIONS), dtype=np.int32)
    for k in range(perms.shape[0]):
        image = np.empty(N_CELLS, dtype=np.int64)
        image[perms[k]] = np.arange(N_CELLS)
        out[k] = (image[f] * N_CELLS + image[t]) * 2 + capture
    return out


def make_spec(max_game_length: int = DEFAULT_MAX_GAME_LENGTH) -> GameSpec:
    """The Lines of Action spec; ``max_game_length`` in 1..10000 (``ValueError`` otherwise)."""
    max_game_length = check_int_param("max_game_length", max_game_length, 1, MAX_MAX_GAME_LENGTH)
    return GameSpec(
        name="lines_of_action", version=0, params={"max_game_length": max_game_length},
        p=np.array([max_game_length], dtype=np.int64),
        n_players=2, n_actions=N_ACTIONS, state_size=state_size(max_game_length), n_cells=N_CELLS,
        n_cell_values=3, obs_shape=(SIZE, SIZE, 2), obs_high=1, max_plies=max_game_length,
        reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(action_name(a) for a in range(N_ACTIONS)),
        cell_colors=((200, 170, 110), (30, 30, 30), (240, 240, 240)),
        grid_shape=(SIZE, SIZE), paint=_paint, truncated=truncated, counts_pieces=True,
    )
