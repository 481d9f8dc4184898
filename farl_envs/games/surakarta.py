"""Surakarta rules as numba kernels (6x6, 12 pieces each, captures along the circuits).

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of the rules, and captures along the circuits need their own tables and
search; this docstring, with the circuits and the end-of-game rule, is the
game's documentation page.)

Surakarta (called "Roundabouts" in Sid Sackson's books) is one of the nine
games of Cohen-Solal 2020, "Learning to Play Two-Player Perfect-Information
Games without Knowledge", which scores it by piece difference. farl plays it
with the end-of-game rule of the ICGA Computer Olympiad, which the same
author states (Cohen-Solal, Ludii forum, 2023): any repetition or 50 plies
without capture ends the game, and the player with more pieces wins.

==================  ===========================================
parameters          ``no_capture_limit=50`` (1..200): plies without a
                    capture after which the game ends
players             2 (``player_0`` moves first, from the bottom two
                    rows; ``player_1`` starts on the top two rows)
moves               a piece steps to one of its 8 neighbours (also
                    diagonal) if it is empty; or **captures**: it
                    travels along a circuit over empty points, through
                    at least one corner loop, and lands on the first
                    opponent piece met, which is removed
end                 (1) a player loses its last piece: the capturer
                    wins; (2) the position (board and player to move)
                    repeats a position of the game, or
                    ``no_capture_limit`` plies have passed since the
                    last capture (or the start): the player with more
                    pieces wins, equal numbers draw; (3) the player to
                    move has no legal move: it loses
actions             ``36 * 36``: ``36 * from + to`` with cells
                    ``6 * row + col`` (row 0 at the top); a step and a
                    capture never share a (from, to) pair, and captures
                    reaching the same piece by different routes are one
                    action. Names ``"a2-b3"`` (column letter, row number
                    from the top)
rewards             +1 win / -1 loss, 0 / 0 draw, at the last move
observation         ``int8[6, 6, 2]``: plane 0 the observer's pieces,
                    plane 1 the opponent's (the counter and the
                    history behind the end rules are in the state)
n-tuple board       36 cells, values 0 empty / 1 ``player_0`` /
                    2 ``player_1`` (P = 3)
symmetries          the 8 symmetries of the square: the rules have no
                    direction (no promotion, no forward), and both
                    circuits map onto themselves
==================  ===========================================

The circuits. Two closed tracks run over the points, each made of four grid
lines joined at the corners by three-quarter-circle loops::

    inner circuit: rows 1 and 4, columns 1 and 4, small loops
    outer circuit: rows 2 and 3, columns 2 and 3, large loops

       a b c d e f
    1  . i o o i .      i: on the inner circuit only (row 0 and 5,
    2  i I x x I i         columns 0 and 5 are not on any circuit)
    3  o x O O x o      o: on the outer circuit only
    4  o x O O x o      I/O: where a circuit crosses itself
    5  i I x x I i      x: on both circuits
    6  . i o o i .      .: corners, on no circuit (never capture,
                           never captured)

Leaving a line at the board's edge, a piece follows the loop round the
nearest corner and comes back on the perpendicular line at the same distance
from that corner: e.g. along row 2 (outer) to the right edge, round the
top-right corner, into column d from the top, downwards. Each circuit is the
cycle of its 24 point visits (crossing points visited twice).

Capture rule decisions (Wikipedia "Surakarta (game)"; the iggamecenter.com
rules page, whose worked example is a test; Polygames
``src/games/surakarta.h``, facebookarchive/Polygames):

* the path starts along a circuit line through the piece, in any of the
  up-to-four directions along the circuits the piece lies on, and stays on
  that circuit (the two circuits only meet at points, never join);
* every point passed must be empty; the moving piece's own start square
  counts as empty (the piece has left it), so a path may run over it; a
  point may be passed twice in one move (every path round a small loop
  passes the crossing point next to it twice), as in Polygames;
* at least one loop must be passed before the opponent piece is reached;
  any number of loops may be passed;
* the first piece met ends the path: an own piece blocks, an opponent piece
  is captured if a loop has been passed, else blocks;
* a path that has gone all the way round its circuit back to its start (24
  steps) has met no piece and ends.

End rule decisions: Cohen-Solal 2023 (Ludii forum, "Optional Rule for
Surakarta": at the Olympiad, a repetition or 50 plies without a capture,
25 moves of each player, end the game; more pieces wins, equal is a draw).
Repetition means the same board with the same player to move; as captures
cannot be undone, only positions since the last capture can repeat, and
those are kept in the state. A player without legal moves loses (Polygames;
Finkel's rules: a player who renders the other unable to move wins); this
needs a blockaded piece and is rare. Losing the last piece ends the game at
once (the capturer also has more pieces).

Every one of these ends, the ``no_capture_limit`` one included, is a rule
that decides the game (more pieces wins, equal numbers draw), so the AEC env
reports it as a termination (``terminations``), and the Gymnasium wrapper as
``terminated=True``: it is not a truncation, unlike the move caps of Chinese
Checkers and Lines of Action, which stop a game without deciding it.

The score heuristic of Cohen-Solal 2020 (its "scoring" = "presence" for this
game) is the piece difference, ``count(board == 1) - count(board == 2)`` for
``player_0``, read from the n-tuple board.

State: the common header, then the 36 cells (0 empty, 1 ``player_0``,
2 ``player_1``), then ``k`` = plies since the last capture (or the start),
then ``no_capture_limit + 1`` entries of two ``int32`` each: the boards
since the last capture (entry ``j`` = the board ``j`` plies after it; cells
0..17 and 18..35 packed in base 3), entries after ``k`` zero.
``max_plies`` is ``24 * no_capture_limit`` (at most 23 captures, each within
``no_capture_limit`` plies of the one before).

Version history: v0, first release.
"""
from __future__ import annotations

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
from farl_envs.games._grid import cell_action_symmetries, square_symmetries, stone_planes, text_grid

SIZE = 6
N_CELLS = 36
N_ACTIONS = N_CELLS * N_CELLS
PIECES = 12
DEFAULT_NO_CAPTURE_LIMIT = 50
MAX_NO_CAPTURE_LIMIT = 200
COUNTER = HEADER + N_CELLS
"""Index of the plies-since-last-capture counter in the state."""
HISTORY = COUNTER + 1
"""Index of the first packed board of the history."""
COLUMN_LETTERS = "abcdef"
CIRCUIT_LENGTH = 24
SEGMENT = 6
"""Points per line of a circuit; a loop lies between visit 6k+5 and 6(k+1)."""


def _circuit(line_a: int, line_b: int) -> list[int]:
    """The 24 point visits of the circuit on rows/columns ``line_a`` and ``line_b`` (= 5 - line_a).

    Row ``line_a`` left to right, loop round the top-right corner, column
    ``line_b`` top to bottom, loop, row ``line_b`` right to left, loop, column
    ``line_a`` bottom to top, loop back to the start.
    """
    seq = [SIZE * line_a + c for c in range(SIZE)]
    seq += [SIZE * r + line_b for r in range(SIZE)]
    seq += [SIZE * line_b + c for c in range(SIZE - 1, -1, -1)]
    seq += [SIZE * r + line_a for r in range(SIZE - 1, -1, -1)]
    return seq


CIRCUITS = np.array([_circuit(1, 4), _circuit(2, 3)], dtype=np.int64)
"""``[2, 24]`` cells of the inner and the outer circuit in travel order."""


def _visits() -> tuple[np.ndarray, np.ndarray]:
    """For each cell, its visits ``(circuit, index)`` on the circuits (0, 1 or 2; -1 pads)."""
    circuit = np.full((36, 2), -1, dtype=np.int64)
    index = np.full((36, 2), -1, dtype=np.int64)
    for cell in range(36):
        found = [(k, i) for k in range(2) for i in range(CIRCUIT_LENGTH) if CIRCUITS[k, i] == cell]
        for n, (k, i) in enumerate(found):
            circuit[cell, n], index[cell, n] = k, i
    return circuit, index


VISIT_CIRCUIT, VISIT_INDEX = _visits()
"""``[36, 2]``: the circuit and the position in it of each visit of a cell (-1: none)."""

# king steps
STEP_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
STEP_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)


@njit(cache=True)
def _pack(s, out, at):
    """Pack the 36 cells of ``s`` into ``out[at]`` and ``out[at + 1]`` (base 3, 18 cells each)."""
    for half in range(2):
        v = 0
        for i in range(18 * half + 17, 18 * half - 1, -1):
            v = v * 3 + s[HEADER + i]
        out[at + half] = v


@njit(cache=True)
def initial_state(p, rng):
    """The start: ``player_1`` on rows 0-1, ``player_0`` on rows 4-5; ``rng`` is unused."""
    limit = p[0]
    s = np.zeros(HISTORY + 2 * (limit + 1), dtype=np.int32)
    for c in range(12):
        s[HEADER + c] = 2
        s[HEADER + 24 + c] = 1
    _pack(s, s, HISTORY)
    return s


@njit(cache=True)
def capture_targets(s, frm, mark):
    """The cells the ``mark`` piece on ``frm`` can capture, as a bit mask (bit ``cell``).

    Follows the circuits through ``frm`` in both directions from each of its
    visits (see the module docstring); no memory is allocated.
    """
    found = np.int64(0)
    for v in range(2):
        k = VISIT_CIRCUIT[frm, v]
        if k < 0:
            break
        for d in (1, -1):
            j = VISIT_INDEX[frm, v]
            loops = 0
            for _ in range(CIRCUIT_LENGTH):
                if (d == 1 and j % SEGMENT == SEGMENT - 1) or (d == -1 and j % SEGMENT == 0):
                    loops += 1
                j = (j + d) % CIRCUIT_LENGTH
                cell = CIRCUITS[k, j]
                if cell == frm:
                    continue  # the start square is empty now
                x = s[HEADER + cell]
                if x == 0:
                    continue
                if x != mark and loops > 0:
                    found |= np.int64(1) << cell
                break
    return found


@njit(cache=True)
def _has_move(s, mark):
    """True when ``mark`` (1 or 2) has at least one legal move in ``s``."""
    for frm in range(N_CELLS):
        if s[HEADER + frm] != mark:
            continue
        r, c = frm // SIZE, frm % SIZE
        for d in range(8):
            nr, nc = r + STEP_DR[d], c + STEP_DC[d]
            if 0 <= nr < SIZE and 0 <= nc < SIZE and s[HEADER + nr * SIZE + nc] == 0:
                return True
    for frm in range(N_CELLS):
        if s[HEADER + frm] == mark and capture_targets(s, frm, mark) != 0:
            return True
    return False


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal ``36 * from + to`` actions in ``mask`` (``int8[1296]``); return their count."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    mark = s[TO_MOVE] + 1
    count = 0
    for frm in range(N_CELLS):
        if s[HEADER + frm] != mark:
            continue
        r, c = frm // SIZE, frm % SIZE
        for d in range(8):
            nr, nc = r + STEP_DR[d], c + STEP_DC[d]
            if 0 <= nr < SIZE and 0 <= nc < SIZE and s[HEADER + nr * SIZE + nc] == 0:
                mask[N_CELLS * frm + nr * SIZE + nc] = 1
                count += 1
        found = capture_targets(s, frm, mark)
        cell = 0
        while found != 0:
            if found & 1:
                mask[N_CELLS * frm + cell] = 1
                count += 1
            found >>= 1
            cell += 1
    return count


@njit(cache=True)
def _pieces(s, mark):
    n = 0
    for i in range(N_CELLS):
        if s[HEADER + i] == mark:
            n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Play the legal action ``a`` (``36 * from + to``): a step, or a capture when ``to`` holds an opponent.

    Writes the next state into ``out`` (``int32``, may be ``s`` itself) and
    the reward deltas into ``rewards`` (``float64[2]``), then applies the
    end rules in the order of the module docstring.
    """
    limit = p[0]
    mover = s[TO_MOVE]
    copy_state(s, out)
    mark = mover + 1
    frm = a // N_CELLS
    to = a % N_CELLS
    captured = out[HEADER + to] != 0
    out[HEADER + frm] = 0
    out[HEADER + to] = mark
    out[PLY] = s[PLY] + 1
    out[TO_MOVE] = 1 - mover
    rewards[0] = 0.0
    rewards[1] = 0.0
    if captured:
        for i in range(HISTORY, HISTORY + 2 * (limit + 1)):
            out[i] = 0
        out[COUNTER] = 0
        _pack(out, out, HISTORY)
    else:
        k = out[COUNTER] + 1
        out[COUNTER] = k
        _pack(out, out, HISTORY + 2 * k)
    k = out[COUNTER]
    mine = _pieces(out, mark)
    theirs = _pieces(out, 2 - mover)
    if theirs == 0:
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0
        return
    repeated = False
    at = HISTORY + 2 * k
    for j in range(k - 2, -1, -2):
        if out[HISTORY + 2 * j] == out[at] and out[HISTORY + 2 * j + 1] == out[at + 1]:
            repeated = True
            break
    if repeated or k >= limit:
        out[TERMINAL] = 1
        if mine != theirs:
            winner = mover if mine > theirs else 1 - mover
            rewards[winner] = 1.0
            rewards[1 - winner] = -1.0
        return
    if not _has_move(out, 2 - mover):
        out[TERMINAL] = 1
        rewards[mover] = 1.0
        rewards[1 - mover] = -1.0


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[6, 6, 2]``): own pieces, then the opponent's."""
    stone_planes(s, HEADER, SIZE, SIZE, seat, out)


# ------------------------------------------------------------ Python helpers
def unpack(a: int, b: int) -> np.ndarray:
    """The 36 cells packed by the kernels into the history entry ``(a, b)``."""
    cells = []
    for v in (int(a), int(b)):
        for _ in range(18):
            cells.append(v % 3)
            v //= 3
    return np.array(cells, dtype=np.int32)


def piece_difference(s) -> int:
    """``player_0``'s pieces minus ``player_1``'s: the game's score (Cohen-Solal 2020's score heuristic)."""
    cells = np.asarray(s[HEADER:HEADER + N_CELLS])
    return int(np.sum(cells == 1)) - int(np.sum(cells == 2))


def _is_step(before: np.ndarray, after: np.ndarray, mark: int) -> bool:
    """True when ``after`` is ``before`` with one ``mark`` piece stepped to an adjacent empty point."""
    diff = np.flatnonzero(before != after)
    if diff.size != 2:
        return False
    gone = [int(i) for i in diff if before[i] == mark and after[i] == 0]
    came = [int(i) for i in diff if before[i] == 0 and after[i] == mark]
    if len(gone) != 1 or len(came) != 1:
        return False
    (f,), (t,) = gone, came
    return max(abs(f // SIZE - t // SIZE), abs(f % SIZE - t % SIZE)) == 1


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal position of the game ``p``, else the reason.

    Checks the layout, the piece counts (at most 12 each; the player who just
    moved still has pieces), the player to move against the ply count, the
    history (entry ``k`` is the board; each entry follows from the one before
    by one step of the player then to move; no repetition before the last
    entry; zeros after it), and that the terminal flag is set exactly when an
    end rule applies.
    """
    limit = int(p[0])
    msg = check_header(s, 2, HISTORY + 2 * (limit + 1))
    if msg:
        return msg
    cells = s[HEADER:HEADER + N_CELLS]
    if np.any((cells < 0) | (cells > 2)):
        return "cells must be 0 (empty), 1 (player_0) or 2 (player_1)"
    n0, n1 = int(np.sum(cells == 1)), int(np.sum(cells == 2))
    if n0 > PIECES or n1 > PIECES:
        return f"each player has at most {PIECES} pieces (player_0 {n0}, player_1 {n1})"
    if s[TO_MOVE] != s[PLY] % 2:
        return "player to move does not match the ply count (player_0 moves at even plies)"
    k = int(s[COUNTER])
    if not 0 <= k <= limit:
        return f"plies since the last capture must be in 0..{limit}, got {k}"
    captures = 2 * PIECES - n0 - n1
    if s[PLY] < captures + k:
        return f"ply count {s[PLY]} is too small for {captures} captures and {k} plies since the last one"
    if captures == 0 and s[PLY] != k:
        return "no capture yet, so the plies since the last capture must equal the ply count"
    last_mover = 1 - int(s[TO_MOVE])
    if (n0, n1)[last_mover] == 0 and s[PLY] > 0:
        return "the player who moved last has no pieces"
    history = s[HISTORY:]
    if np.any(history[2 * (k + 1):] != 0):
        return "history entries after the last one must be 0"
    boards = [unpack(history[2 * j], history[2 * j + 1]) for j in range(k + 1)]
    if not np.array_equal(boards[k], cells):
        return "the last history entry is not the board"
    for j in range(k):
        mover = (int(s[TO_MOVE]) + k - j) % 2  # the player to move at entry j
        if not _is_step(boards[j], boards[j + 1], mover + 1):
            return f"history entry {j + 1} does not follow from entry {j} by one step of player_{mover}"
    for j in range(k - 1):
        for i in range(j + 2, k, 2):
            if np.array_equal(boards[i], boards[j]):
                return "a position repeats before the last move: the game would have ended"
    repeated = any(np.array_equal(boards[j], cells) for j in range(k - 2, -1, -2))
    over = n0 == 0 or n1 == 0 or repeated or k >= limit
    if not over:
        test = np.asarray(s, dtype=np.int32).copy()
        test[TERMINAL] = 0
        over = not _has_move(test, int(s[TO_MOVE]) + 1)
    if bool(s[TERMINAL]) != over:
        return "terminal flag does not match the position (an end rule applies exactly when it is set)"
    return ""


def score(p, s) -> float:
    """The score of a finished game, ``player_0``'s view: its pieces minus ``player_1``'s (the rule that decides a
    game ended by repetition or by the limit without capture)."""
    cells = s[HEADER:HEADER + N_CELLS]
    return float(np.count_nonzero(cells == 1) - np.count_nonzero(cells == 2))


def render_text(p, s) -> str:
    """The board as text (``.`` empty, ``X`` player_0, ``O`` player_1, row numbers right) and the ply counter."""
    rows = text_grid(s[HEADER:HEADER + N_CELLS], SIZE, SIZE, ".XO", COLUMN_LETTERS).split("\n")
    lines = [rows[0]] + [f"{line}  {r + 1}" for r, line in enumerate(rows[1:])]
    lines.append(f"plies without capture: {int(s[COUNTER])}/{int(p[0])}")
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """``int32[8, 36]``: the rotations and reflections of the square (each circuit maps onto itself)."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """``int32[8, 1296]``: ``36 * from + to`` maps to ``36 * from' + to'`` with both cells mapped."""
    cell_maps = cell_action_symmetries(symmetries(p), N_CELLS)
    frm, to = np.divmod(np.arange(N_ACTIONS), N_CELLS)
    return (N_CELLS * cell_maps[:, frm] + cell_maps[:, to]).astype(np.int32)


def _cell_name(cell: int) -> str:
    return f"{COLUMN_LETTERS[cell % SIZE]}{cell // SIZE + 1}"


def make_spec(no_capture_limit: int = DEFAULT_NO_CAPTURE_LIMIT) -> GameSpec:
    """The Surakarta spec; ``no_capture_limit`` in 1..200 (``ValueError`` otherwise)."""
    limit = check_int_param("no_capture_limit", no_capture_limit, 1, MAX_NO_CAPTURE_LIMIT)
    return GameSpec(
        name="surakarta", version=0, params={"no_capture_limit": limit}, p=np.array([limit], dtype=np.int64),
        n_players=2, n_actions=N_ACTIONS, state_size=HISTORY + 2 * (limit + 1), n_cells=N_CELLS,
        n_cell_values=3, obs_shape=(SIZE, SIZE, 2), obs_high=1, max_plies=24 * limit, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(f"{_cell_name(a // N_CELLS)}-{_cell_name(a % N_CELLS)}" for a in range(N_ACTIONS)),
        cell_colors=((225, 225, 225), (200, 40, 40), (30, 30, 30)),
        grid_shape=(SIZE, SIZE), counts_pieces=True, score=score,
    )
