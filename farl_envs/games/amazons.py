"""The Game of the Amazons as numba kernels, identical to OpenSpiel's ``amazons``.

(Longer than farl's usual 400 lines: a turn is three actions, so the kernels
below (the one source of truth of the rules) carry the turn's stage, and
``turn_moves`` / ``territory`` serve searches and the descent heuristic from
the same rules; this docstring, with its action numbering, is the game's
documentation page.)

==================  ===========================================
parameters          ``board_size=10`` (6, 8 or 10, as in OpenSpiel)
players             2; ``player_0`` (X, OpenSpiel's "Cross") moves
                    first, ``player_1`` (O, "Nought") second
a turn              three decisions of the same player, each one
                    action: (1) pick one of your queens, (2) its
                    destination, (3) the square its arrow hits
actions             ``board_size**2``: ``cell = board_size * row + col``
                    in every phase (row 0 is the top, rank
                    ``board_size``). Names ``"a10"``, ``"b10"``, ...
                    (file letter, rank number; rank 1 is the bottom
                    row, where ``player_0`` starts)
rewards             +1 / -1 at the arrow decision after which the
                    opponent has no legal move; no draws
observation         ``int8[board_size, board_size, 5]``: the
                    observer's queens, the opponent's queens, arrows,
                    the square the queen moving this turn left
                    (decisions 2 and 3), the queen that must shoot
                    (decision 3)
n-tuple board       ``board_size**2`` cells, values 0 empty,
                    1 ``player_0`` queen, 2 ``player_1`` queen,
                    3 arrow, 4 the square the moving queen left this
                    turn (only between decisions 1 and 3); P = 5
symmetries          the 8 symmetries of the square
==================  ===========================================

Rules (source: OpenSpiel's ``open_spiel/games/amazons/amazons.cc``, which
pyspiel 2.0.2 ships; every point below is how that code plays, and the
lockstep test in ``tests/test_amazons_rules.py`` checks it move by move):

* Start: 4 queens each, OpenSpiel's layouts. 10x10: ``player_1`` on d10, g10,
  a7, j7 and ``player_0`` on a4, j4, d1, g1 (the standard Amazons start);
  8x8: c8, f8, a6, h6 against a3, h3, c1, f1; 6x6: b6, e6, a5, f5 against
  a2, f2, b1, e1.
* Decision 1 picks one of the mover's queens that has at least one empty
  neighbouring square (a queen that cannot move cannot be picked). The queen
  is lifted off the board at once.
* Decision 2 picks the queen's destination: any square reached like a chess
  queen (along a row, column or diagonal) over empty squares only; queens
  and arrows block. The lifted queen's own square is empty by then but is
  never a destination (it is not on any ray from itself).
* Decision 3 picks the arrow square, reached like a queen from the
  destination over empty squares; the square the queen just left is empty,
  so the arrow may land on it or fly through it. The arrow stays for the
  rest of the game.
* After the arrow the turn passes. If the player now to move has no queen
  with an empty neighbouring square, that player has lost: the game ends at
  once with +1 for the player who shot the arrow and -1 for the other. Only
  the player to move is checked (the shooter may be stuck as well; the
  player to move still loses). A picked queen can always complete its turn
  (it has an empty neighbour, and after moving the square next to it towards
  where it came from is empty), so no turn is ever left unfinished.
* No draws, no passes; every turn adds one arrow, so a game has at most
  ``board_size**2 - 8`` turns, i.e. ``3 * (board_size**2 - 8)`` decisions.

The AEC env lets the same agent act three times in a row: ``state[0]`` stays
the mover's seat during its three decisions, the action mask shows the legal
choices of the current decision and rewards come only with an arrow. The ply
count ``state[2]`` counts decisions, as OpenSpiel's move number does.

How learners see the intermediate decisions: every decision is an action
with its own afterstate. After decision 1 the n-tuple board shows the
lifted queen's square as 4 (the queen is nowhere on the board); after
decision 2 the queen stands on its destination and its old square is still 4
(no arrow yet). Only the position after the arrow (decision 3) has values
0..3 alone; it is the only one that is a position between turns, and so the
only one a value function of positions should be trained on. A learner that
treats each decision as a move of its own learns values of these half-made
moves (it sees them, distinguished by the 4, but they are not the positions
the opponent faces). The way to play it as a two-player afterstate game is
to treat a turn as one compound move: enumerate the turn's (queen,
destination, arrow) triples with :func:`turn_moves` (or by applying the
kernels three times), evaluate the boards after the arrow, and play the
chosen triple's three actions. At the 10x10 start there are 2176 such
triples.

State: the common header (:mod:`farl_envs.core.spec`), then the
``board_size**2`` cells (0 empty, 1 ``player_0`` queen, 2 ``player_1`` queen,
3 arrow; the lifted queen is not on the board during decision 2), then
three entries: the decision to make now (0 pick a queen, 1 its destination,
2 its arrow), the square the queen was lifted from (-1 before decision 1)
and the square it moved to (-1 before decision 2); both are reset to -1
after the arrow. Last come the squares of the queens, ``player_0``'s four
in increasing order, then ``player_1``'s (the lifted queen is listed at the
square it left until it lands): a copy of what the cells say, kept so that
picking a queen and the end-of-game test look at 4 squares instead of the
whole board. ``validate`` checks it matches the cells.

Heuristics for the descent family (Cohen-Solal 2020's score / mobility
reinforcement heuristics need a game score; Amazons has none at the end, a
lost game is just a blocked one): :func:`territory` is the usual
queen-distance territory. For each empty square it finds which side reaches
it in fewer queen moves (moves over empty squares, all queens of a side
starting together) and returns (squares closer to ``player_0``) - (squares
closer to ``player_1``); ties and squares neither side reaches count for
nobody. The spec's ``score`` is :func:`winner_territory`, the paper's
"territory of the winning player" (Remark 2). Mobility: the generic count of
legal actions per decision, or :func:`turn_moves`'s count of whole turns.
Presence (pieces on the board) says nothing here: no queen is ever captured.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._grid import cell_action_symmetries, square_symmetries

BOARD_SIZES = (6, 8, 10)
EMPTY, QUEEN_0, QUEEN_1, ARROW, LEFT = 0, 1, 2, 3, 4
PICK, DESTINATION, SHOOT = 0, 1, 2
FILES = "abcdefghij"
# the eight queen directions (drow, dcol)
DR = np.array([0, 0, -1, 1, -1, -1, 1, 1], dtype=np.int64)
DC = np.array([-1, 1, 0, 0, -1, 1, -1, 1], dtype=np.int64)


def start_squares(n: int) -> tuple[list[int], list[int]]:
    """OpenSpiel's starting cells ``(player_0's, player_1's)`` on an ``n x n`` board.

    The 10x10 layout scaled: ``player_1`` on the top row in files ``n/2-2`` and
    ``n/2+1`` and on row ``(n-4)/2`` in the two outer files; ``player_0``
    mirrored top to bottom.
    """
    k, h = (n - 4) // 2, n // 2
    top = [h - 2, h + 1, k * n, k * n + n - 1]
    bottom = [(n - 1 - (c // n)) * n + c % n for c in top]
    return sorted(bottom), sorted(top)


_STARTS = {n: start_squares(n) for n in BOARD_SIZES}

# The kernels' parameters ``p`` (int64): p[0] = n, p[1:9] the start cells (player_0's four, then player_1's), then
# two move tables of this board size, so that the kernels never divide a cell index into row and column:
P_STEP = 9
"""p[P_STEP + d]: the change of cell index of one step in direction d (``DR[d] * n + DC[d]``)."""
P_REACH = P_STEP + 8
"""p[P_REACH + 8 * cell + d]: the number of squares from ``cell`` to the edge in direction d; after these
``8 * n * n`` entries, p[P_REACH + 8 * n * n + 8 * cell + d]: the neighbour of ``cell`` in direction d, or ``cell``
itself where that is off the board."""


def kernel_params(n: int) -> np.ndarray:
    """The kernels' ``p`` for an ``n x n`` board: size, start cells and move tables (layout above)."""
    nn = n * n
    reach = np.zeros((nn, 8), dtype=np.int64)
    neighbour = np.repeat(np.arange(nn, dtype=np.int64)[:, None], 8, axis=1)
    for cell in range(nn):
        r, c = divmod(cell, n)
        for d in range(8):
            rr, cc = r + DR[d], c + DC[d]
            if 0 <= rr < n and 0 <= cc < n:
                neighbour[cell, d] = rr * n + cc
            while 0 <= rr < n and 0 <= cc < n:
                reach[cell, d] += 1
                rr, cc = rr + DR[d], cc + DC[d]
    start = _STARTS[n][0] + _STARTS[n][1]
    return np.concatenate([[n], start, DR * n + DC, reach.ravel(), neighbour.ravel()]).astype(np.int64)


def state_size(n: int) -> int:
    """Length of the state of an ``n x n`` game: header, cells, decision, from, to, 8 queen squares."""
    return HEADER + n * n + 3 + 8


@njit(cache=True)
def _initial(n, cells):
    nn = n * n
    s = np.zeros(HEADER + nn + 11, dtype=np.int32)
    for k in range(8):
        s[HEADER + cells[k]] = QUEEN_0 if k < 4 else QUEEN_1
        s[HEADER + nn + 3 + k] = cells[k]
    s[HEADER + nn + 1] = -1
    s[HEADER + nn + 2] = -1
    return s


@njit(cache=True)
def initial_state(p, rng):
    """The start position (``int32[3 + n*n + 11]``); ``p`` = ``[n, 8 start cells, move tables]``, ``rng`` unused."""
    return _initial(p[0], p[1:9])


@njit(cache=True, inline="always")
def _has_free_neighbour(p, s, q):
    """True when the occupied square ``q`` has an empty neighbour (a queen there can move).

    Reads the neighbour table of ``p``, in which a neighbour off the board is
    ``q`` itself: ``q`` holds a queen, so it never counts as empty and the
    eight tests need no bounds check. One ``return`` (a ``break``, not an
    early return) keeps the inlined copies free of reference counting.
    """
    row = P_REACH + 8 * p[0] * p[0] + 8 * q
    free = False
    for d in range(8):
        if s[HEADER + p[row + d]] == EMPTY:
            free = True
            break
    return free


@njit(cache=True, inline="always")
def _mark_rays(p, s, cell, mask):
    """Set ``mask`` on every square a queen on ``cell`` reaches over empty squares; return their number.

    Each direction walks at most the tabled number of squares to the edge,
    one index step at a time: no row/column arithmetic, no bounds test.
    """
    count = 0
    for d in range(8):
        step = p[P_STEP + d]
        i = HEADER + cell
        for _ in range(p[P_REACH + 8 * cell + d]):
            i += step
            if s[i] != EMPTY:
                break
            mask[i - HEADER] = 1
            count += 1
    return count


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal choices of the current decision in ``mask`` (``int8[n*n]``); return their count."""
    nn = p[0] * p[0]
    for i in range(nn):
        mask[i] = 0
    if s[TERMINAL]:
        return 0
    phase = s[HEADER + nn]
    if phase == PICK:
        base = HEADER + nn + 3 + 4 * s[TO_MOVE]
        count = 0
        for k in range(4):
            q = s[base + k]
            if _has_free_neighbour(p, s, q):
                mask[q] = 1
                count += 1
        return count
    return _mark_rays(p, s, s[HEADER + nn + phase], mask)  # from the lifted-from (1) or moved-to (2) square


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Apply decision ``a`` of the player to move (it must be legal).

    Writes the next state into ``out`` (``int32``, may be ``s`` itself) and the
    reward deltas into ``rewards`` (``float64[2]``): nonzero only after an
    arrow that leaves the opponent without a move.
    """
    nn = p[0] * p[0]
    copy_state(s, out)
    mover = out[TO_MOVE]
    phase = out[HEADER + nn]
    reward = 0.0  # the mover's
    if phase == PICK:
        out[HEADER + a] = EMPTY
        out[HEADER + nn + 1] = a
        out[HEADER + nn] = DESTINATION
    elif phase == DESTINATION:
        out[HEADER + a] = mover + 1
        out[HEADER + nn + 2] = a
        out[HEADER + nn] = SHOOT
        # the queen list: replace the square it left by ``a`` and keep the four in order
        base = HEADER + nn + 3 + 4 * mover
        k = 0
        while out[base + k] != out[HEADER + nn + 1]:
            k += 1
        while k > 0 and out[base + k - 1] > a:
            out[base + k] = out[base + k - 1]
            k -= 1
        while k < 3 and out[base + k + 1] < a:
            out[base + k] = out[base + k + 1]
            k += 1
        out[base + k] = a
    else:
        out[HEADER + a] = ARROW
        out[HEADER + nn] = PICK
        out[HEADER + nn + 1] = -1
        out[HEADER + nn + 2] = -1
        out[TO_MOVE] = 1 - mover
        # the opponent is stuck when none of its queens has an empty neighbour
        base = HEADER + nn + 7 - 4 * mover
        stuck = True
        for k in range(4):
            if _has_free_neighbour(p, out, out[base + k]):
                stuck = False
                break
        if stuck:
            out[TERMINAL] = 1
            reward = 1.0
    # ``out`` and ``rewards`` are last touched here on every path: numba's reference-count pruning then removes all
    # the atomic counting of this call (a branch that used one last would keep a pair on every call)
    out[PLY] += 1
    rewards[mover] = reward
    rewards[1 - mover] = 0.0 - reward  # +0.0, not -0.0, when nobody scores


@njit(cache=True)
def board(p, s, out):
    """The n-tuple board into ``out`` (``int32[n*n]``): the cells, with 4 on the square left this turn."""
    n = p[0]
    nn = n * n
    for i in range(nn):
        out[i] = s[HEADER + i]
    if s[HEADER + nn] != PICK:
        out[s[HEADER + nn + 1]] = LEFT


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[n, n, 5]``), planes as in the module docstring."""
    n = p[0]
    nn = n * n
    own = seat + 1
    for r in range(n):
        for c in range(n):
            v = s[HEADER + r * n + c]
            out[r, c, 0] = 1 if v == own else 0
            out[r, c, 1] = 1 if v == 3 - own else 0
            out[r, c, 2] = 1 if v == ARROW else 0
            out[r, c, 3] = 0
            out[r, c, 4] = 0
    phase = s[HEADER + nn]
    if phase != PICK:
        f = s[HEADER + nn + 1]
        out[f // n, f % n, 3] = 1
    if phase == SHOOT:
        t = s[HEADER + nn + 2]
        out[t // n, t % n, 4] = 1


@njit(cache=True)
def turn_moves(p, s, out):
    """Every whole turn of the player to move as rows ``(queen, destination, arrow)`` of ``out``.

    ``out`` is ``int32[k, 3]`` with room for all of them (``4 * (n*n) * (n*n)``
    rows always suffice; 2176 at the 10x10 start); returns their number, 0
    when the game is over. Only for positions before decision 1 (between
    turns); a learner that treats a turn as one move plays the three actions
    of a row. Allocation-free: the board of ``s`` is edited and restored.
    """
    n = p[0]
    nn = n * n
    if s[TERMINAL] or s[HEADER + nn] != PICK:
        return 0
    mark = s[TO_MOVE] + 1
    base = HEADER + nn + 3 + 4 * s[TO_MOVE]
    count = 0
    for k in range(4):
        q = s[base + k]
        s[HEADER + q] = EMPTY
        qr, qc = q // n, q % n
        for d in range(8):
            rr, cc = qr + DR[d], qc + DC[d]
            while 0 <= rr < n and 0 <= cc < n and s[HEADER + rr * n + cc] == EMPTY:
                dest = rr * n + cc
                for e in range(8):
                    ar, ac = rr + DR[e], cc + DC[e]
                    while 0 <= ar < n and 0 <= ac < n and s[HEADER + ar * n + ac] == EMPTY:
                        out[count, 0] = q
                        out[count, 1] = dest
                        out[count, 2] = ar * n + ac
                        count += 1
                        ar += DR[e]
                        ac += DC[e]
                rr += DR[d]
                cc += DC[d]
        s[HEADER + q] = mark
    return count


@njit(cache=True)
def territory(p, s, dist):
    """Queen-distance territory: (empty squares ``player_0`` reaches first) - (those ``player_1`` does).

    The distance of a square to a side is the least number of queen moves
    (over empty squares) any of its queens needs to get there; a square
    counts for the side with the smaller distance, for nobody on a tie or
    when neither reaches it. ``dist`` is scratch ``int32[2, n*n]``. Meant
    for positions between turns (the moving queen of a half-made turn is
    counted where it stands, and not at all during decision 2).
    """
    n = p[0]
    nn = n * n
    big = nn + 1
    for side in range(2):
        for i in range(nn):
            dist[side, i] = 0 if s[HEADER + i] == side + 1 else big
        level = 0
        changed = True
        while changed:
            changed = False
            for i in range(nn):
                if dist[side, i] != level:
                    continue
                r, c = i // n, i % n
                for d in range(8):
                    rr, cc = r + DR[d], c + DC[d]
                    while 0 <= rr < n and 0 <= cc < n and s[HEADER + rr * n + cc] == EMPTY:
                        j = rr * n + cc
                        if dist[side, j] > level + 1:
                            dist[side, j] = level + 1
                            changed = True
                        rr += DR[d]
                        cc += DC[d]
            level += 1
    score = 0
    for i in range(nn):
        if s[HEADER + i] == EMPTY:
            if dist[0, i] < dist[1, i]:
                score += 1
            elif dist[1, i] < dist[0, i]:
                score -= 1
    return score


# ------------------------------------------------------------ Python helpers
def winner_territory(p, s) -> float:
    """The score of the finished game ``s``, ``player_0``'s view: +- the empty squares a queen of the winner
    reaches (:func:`territory`'s distances), + when ``player_0`` won. The loser is the player to move."""
    n = int(p[0])
    winner = 1 - int(s[TO_MOVE])
    dist = np.zeros((2, n * n), dtype=np.int32)
    territory(p, np.ascontiguousarray(s, dtype=np.int32), dist)
    reached = (np.asarray(s[HEADER:HEADER + n * n]) == EMPTY) & (dist[winner] <= n * n)
    return float((1 - 2 * winner) * int(reached.sum()))


def _rays(grid: np.ndarray, cell: int) -> list[int]:
    """Squares a queen on ``cell`` reaches over empty squares of ``grid`` (``[n, n]``)."""
    n = grid.shape[0]
    r, c = divmod(int(cell), n)
    out = []
    for dr, dc in zip(DR.tolist(), DC.tolist()):
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and grid[rr, cc] == EMPTY:
            out.append(rr * n + cc)
            rr, cc = rr + dr, cc + dc
    return out


def _stuck(grid: np.ndarray, mark: int) -> bool:
    """True when no queen ``mark`` of ``grid`` has an empty neighbour."""
    n = grid.shape[0]
    for cell in np.flatnonzero(grid.ravel() == mark):
        r, c = divmod(int(cell), n)
        for dr, dc in zip(DR.tolist(), DC.tolist()):
            if 0 <= r + dr < n and 0 <= c + dc < n and grid[r + dr, c + dc] == EMPTY:
                return False
    return True


def validate(p, s) -> str:
    """Empty string when ``s`` is a possible position of the game ``p``, else the reason.

    Checks the layout, cell values, queen and arrow counts against the ply
    count, the decision and the player to move, the queen list, the lifted-from / moved-to
    squares of a half-made turn (a picked queen had an empty neighbour, the
    destination is a queen move away over empty squares), and that the
    terminal flag is set exactly when the player to move is stuck between
    turns. Not checked: whether the arrows could have been shot in this
    order (the history is not in the state).
    """
    n = int(p[0])
    nn = n * n
    msg = check_header(s, 2, state_size(n))
    if msg:
        return msg
    cells = s[HEADER:HEADER + nn]
    phase, src, dst = (int(v) for v in s[HEADER + nn:HEADER + nn + 3])
    if np.any((cells < EMPTY) | (cells > ARROW)):
        return "cells must be 0 (empty), 1 (player_0 queen), 2 (player_1 queen) or 3 (arrow)"
    if phase not in (PICK, DESTINATION, SHOOT):
        return f"decision must be 0 (pick a queen), 1 (destination) or 2 (arrow), got {phase}"
    mover = int(s[TO_MOVE])
    arrows = int(np.sum(cells == ARROW))
    if s[PLY] != 3 * arrows + phase:
        return f"ply count {s[PLY]} does not match {arrows} arrows (3 decisions each) and decision {phase}"
    if mover != arrows % 2:
        return f"player to move must be player_{arrows % 2} after {arrows} arrows (player_0 shoots the first)"
    queens = [int(np.sum(cells == 1)), int(np.sum(cells == 2))]
    expected = [4, 4]
    if phase == DESTINATION:
        expected[mover] = 3
    if queens != expected:
        return f"queens on the board must be {expected[0]} of player_0 and {expected[1]} of player_1, got {queens}"
    grid = cells.reshape(n, n)
    if phase == PICK:
        if (src, dst) != (-1, -1):
            return "lifted-from and moved-to squares must be -1 between turns"
    else:
        if not 0 <= src < nn or cells[src] != EMPTY:
            return f"lifted-from square must be an empty square in 0..{nn - 1}, got {src}"
        if phase == DESTINATION:
            if dst != -1:
                return "moved-to square must be -1 before the destination is chosen"
            if not _rays(grid, src):
                return "the lifted queen has no empty neighbour: it could not have been picked"
        else:
            if not 0 <= dst < nn or cells[dst] != mover + 1:
                return f"moved-to square must hold a queen of player_{mover}, got {dst}"
            g = grid.copy()
            g.flat[dst] = EMPTY
            if dst not in _rays(g, src):
                return "the moved queen's destination is not a queen move away from where it was lifted"
    listed = [s[HEADER + nn + 3:HEADER + nn + 7].tolist(), s[HEADER + nn + 7:].tolist()]
    for seat in range(2):
        where = np.flatnonzero(cells == seat + 1).tolist()
        if phase == DESTINATION and seat == mover:
            where = sorted(where + [src])
        if listed[seat] != where:
            return (f"queen list of player_{seat} must be the squares of its queens in increasing order "
                    f"(the lifted queen at the square it left), {where}, got {listed[seat]}")
    if s[TERMINAL] and phase != PICK:
        return "a game can only end between turns"
    stuck = phase == PICK and _stuck(grid, mover + 1)
    if bool(s[TERMINAL]) != stuck:
        return "terminal flag must be set exactly when the player to move has no queen that can move"
    if stuck and arrows == 0:
        return "the game cannot be over before the first arrow"
    return ""


SYMBOLS = ".XO#*"


def render_text(p, s) -> str:
    """The board as text: ranks on the left, files below, then whose decision it is.

    ``.`` empty, ``X`` player_0, ``O`` player_1, ``#`` arrow, ``*`` the square
    the moving queen left this turn.
    """
    n = int(p[0])
    cells = np.empty(n * n, dtype=np.int32)
    board(p, s, cells)
    lines = []
    for r in range(n):
        lines.append(f"{n - r:>2} " + " ".join(SYMBOLS[int(v)] for v in cells[r * n:(r + 1) * n]))
    lines.append("   " + " ".join(FILES[:n]))
    mover = int(s[TO_MOVE])
    if s[TERMINAL]:
        lines.append(f"game over: player_{1 - mover} wins")
    else:
        phase = int(s[HEADER + n * n])
        what = ("pick a queen", "choose its destination", "shoot an arrow")[phase]
        lines.append(f"player_{mover} ({'XO'[mover]}) to {what}")
    return "\n".join(lines)


def square_name(n: int, cell: int) -> str:
    """``"a10"`` style name of ``cell`` (file letter, rank counted from the bottom row)."""
    return f"{FILES[cell % n]}{n - cell // n}"


def symmetries(p) -> np.ndarray:
    """``int32[8, n*n]``: the 8 symmetries of the square (queen moves look the same in all of them)."""
    return square_symmetries(int(p[0]))


def action_symmetries(p) -> np.ndarray:
    """``int32[8, n*n]``: actions are squares in every decision, so they map like the cells."""
    n = int(p[0])
    return cell_action_symmetries(symmetries(p), n * n)


def make_spec(board_size: int = 10) -> GameSpec:
    """The Amazons spec for an ``n x n`` board, ``n`` in 6, 8, 10 (``ValueError`` otherwise)."""
    if isinstance(board_size, bool) or not isinstance(board_size, (int, np.integer)) or board_size not in BOARD_SIZES:
        raise ValueError(f"board_size must be one of {BOARD_SIZES} (OpenSpiel's sizes), got {board_size!r}")
    n = int(board_size)
    nn = n * n
    return GameSpec(
        name="amazons", version=0, params={"board_size": n},
        p=kernel_params(n),
        n_players=2, n_actions=nn, state_size=state_size(n), n_cells=nn, n_cell_values=5,
        obs_shape=(n, n, 5), obs_high=1, max_plies=3 * (nn - 8), reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        board=board, observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(square_name(n, c) for c in range(nn)),
        cell_colors=((225, 225, 225), (200, 40, 40), (40, 80, 200), (70, 70, 70), (230, 200, 120)),
        grid_shape=(n, n), score=winner_territory,
    )
