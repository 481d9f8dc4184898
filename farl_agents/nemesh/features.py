"""The 36 hand-made features of agent Nemesh (Shalita, Saranga & Haim 2013, section 3.2.1), counted by numba.

The state vector is player 1's 18 counts followed by player 2's 18
(``[p1 .. p18, q1 .. q18]``; player 1 is the kernel's ``player_0``, disc
``1``), read straight from the Connect Four kernel state
(:mod:`farl_envs.games.connect_four`: heights, then cells with row 0 at the
top), on any board the kernel allows (4..10 rows and columns).

Words used below:

* a **window** is four consecutive cells along a line (horizontal, vertical
  or one of the two diagonals) -- the report's "sequences of four cells";
* the **depth** of an empty cell is the number of empty cells below it in its
  column: depth 0 means a disc dropped into that column lands there now;
* a **win cell** of a player is an empty cell that would give the player
  four in a row if its disc stood there (in any direction, however deep the
  cell is) -- the report's "2D-array which tells us for each cell of the
  board whether this cell can be used by the player to win";
* a **run** is a maximal line of the player's consecutive discs; its two
  **ends** are the cells just before and just after it.

Per player, in this order (index = offset in the player's 18; the diagonal
features look at both diagonal directions):

==  ==========================  ==================================================================
 0  TwoSideThreeInARow          horizontal runs of exactly 3 whose two ends are both empty, depth 0
 1  OneSideThreeInARow          horizontal runs of exactly 3 with exactly one end empty at depth 0
 2  AllRowThrees                horizontal windows with 3 own discs and 1 empty cell (any depth)
 3  ThreeInARowHole1            ... of those, windows whose empty cell has depth 1
 4  ThreeInARowHole2            ... windows whose empty cell has depth 2
 5  TwoInARow                   horizontal windows with 2 own discs and 2 empty cells, both depth 0
 6  ThreeInACol                 columns whose top three discs are the player's and that are not full
 7  TwoSideThreeInADiagonal     as 0, along diagonals
 8  OneSideThreeInADiagonal     as 1, along diagonals
 9  AllDiagonalThrees           as 2, along diagonals
10  ThreeInADiagonalHole1       as 3, along diagonals
11  ThreeInADiagonalHole2       as 4, along diagonals
12  TwoInADiagonal              as 5, along diagonals
13  OneMoveToWin                columns whose landing cell is a win cell of the player (0..cols)
14  ProhibitedMoves             columns where the player's disc would let the opponent win on top
15  PotentialFour               win cells of the player (any depth)
16  WinColumns                  columns with two vertically adjacent win cells of the player
17  OneMoveToWinHole            columns whose landing cell is not a win cell but a higher cell is
==  ==========================  ==================================================================

The report leaves several counts open; the decisions taken here (each
also in :func:`features`' docstring and pinned by hand-drawn boards in
``tests/test_nemesh_features.py``):

* "three-in-a-row" for features 0/1 means three *adjacent* discs (a run of
  exactly three); an end counts as open only if a disc dropped now lands
  there (depth 0). A three with one end open now and the other open later
  (depth >= 1) is one-sided. Split threes (``XX.X``) are not in 0/1.
* AllRowThrees counts windows, so an open three ``.XXX.`` counts twice (the
  report's "open threes count as two such cases") and split threes
  ``XX.X`` count once.
* The hole features count the same windows by the depth of their empty
  cell ("a hole of 1 that needs to be filled before"): exactly 1 or exactly 2.
* "two-in-a-row that can be completed immediately" is read as a window with
  two own discs and two empty cells that can both be played now (depth 0);
  the discs need not be adjacent, and one pair of discs can lie in several
  windows.
* ThreeInACol needs room above (the column is not full); discs below the
  top three do not matter.
* ProhibitedMoves does not count a column whose landing cell wins for the
  player itself (that move ends the game).
* WinColumns and OneMoveToWinHole count each column at most once.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.spec import HEADER

N_PER_PLAYER = 18
N_FEATURES = 2 * N_PER_PLAYER

FEATURE_NAMES = (
    "TwoSideThreeInARow", "OneSideThreeInARow", "AllRowThrees", "ThreeInARowHole1", "ThreeInARowHole2",
    "TwoInARow", "ThreeInACol",
    "TwoSideThreeInADiagonal", "OneSideThreeInADiagonal", "AllDiagonalThrees", "ThreeInADiagonalHole1",
    "ThreeInADiagonalHole2", "TwoInADiagonal",
    "OneMoveToWin", "ProhibitedMoves", "PotentialFour", "WinColumns", "OneMoveToWinHole",
)
"""Names of one player's 18 features, in state-vector order."""

ROW_BASE = 0
"""Offset of the row features (0..5); the diagonal ones (7..12) have the same layout from DIAG_BASE."""
DIAG_BASE = 7
TWO_SIDE, ONE_SIDE, ALL_THREES, HOLE1, HOLE2, TWOS = 0, 1, 2, 3, 4, 5
THREE_IN_COL = 6
ONE_MOVE_TO_WIN, PROHIBITED, POTENTIAL_FOUR, WIN_COLUMNS, ONE_MOVE_TO_WIN_HOLE = 13, 14, 15, 16, 17


@njit(cache=True, inline="always")
def _at(s, cols, r, c):
    """The cell (r, c): 0 empty, 1 player 1, 2 player 2."""
    return s[HEADER + cols + r * cols + c]


@njit(cache=True, inline="always")
def _depth(s, rows, r, c):
    """Empty cells below the empty cell (r, c); 0 when a disc dropped into column c lands on it."""
    return rows - 1 - s[HEADER + c] - r


@njit(cache=True)
def _scan_windows(s, rows, cols, dr, dc, base, out, win):
    """Count the window features along direction (dr, dc) and mark win cells.

    ``base`` is the offset of the row or diagonal block, or -1 for vertical
    windows (they only mark win cells). ``win`` is ``int8[2, rows*cols]``.
    """
    for r0 in range(rows):
        r3 = r0 + 3 * dr
        if r3 < 0 or r3 >= rows:
            continue
        for c0 in range(cols):
            c3 = c0 + 3 * dc
            if c3 < 0 or c3 >= cols:
                continue
            n1 = 0
            n2 = 0
            empty_r = -1
            empty_c = -1
            empty_r2 = -1
            empty_c2 = -1
            for k in range(4):
                v = _at(s, cols, r0 + k * dr, c0 + k * dc)
                if v == 1:
                    n1 += 1
                elif v == 2:
                    n2 += 1
                elif empty_r < 0:
                    empty_r = r0 + k * dr
                    empty_c = c0 + k * dc
                else:
                    empty_r2 = r0 + k * dr
                    empty_c2 = c0 + k * dc
            for m in range(2):
                own = n1 if m == 0 else n2
                other = n2 if m == 0 else n1
                if other != 0:
                    continue
                if own == 3:
                    win[m, empty_r * cols + empty_c] = 1
                    if base >= 0:
                        o = m * N_PER_PLAYER + base
                        out[o + ALL_THREES] += 1
                        d = _depth(s, rows, empty_r, empty_c)
                        if d == 1:
                            out[o + HOLE1] += 1
                        elif d == 2:
                            out[o + HOLE2] += 1
                elif own == 2 and base >= 0:
                    if _depth(s, rows, empty_r, empty_c) == 0 and _depth(s, rows, empty_r2, empty_c2) == 0:
                        out[m * N_PER_PLAYER + base + TWOS] += 1


@njit(cache=True, inline="always")
def _open_now(s, rows, cols, r, c):
    """True when (r, c) is on the board, empty and playable now."""
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return False
    return _at(s, cols, r, c) == 0 and _depth(s, rows, r, c) == 0


@njit(cache=True)
def _scan_runs(s, rows, cols, dr, dc, base, out):
    """Count runs of exactly three along (dr, dc) by how many ends are open now (features 0/1 or 7/8)."""
    for r in range(rows):
        for c in range(cols):
            v = _at(s, cols, r, c)
            if v == 0:
                continue
            pr, pc = r - dr, c - dc
            if 0 <= pr < rows and 0 <= pc < cols and _at(s, cols, pr, pc) == v:
                continue  # not the first disc of its run
            n = 1
            while n < 4:
                rr, cc = r + n * dr, c + n * dc
                if rr < 0 or rr >= rows or cc < 0 or cc >= cols or _at(s, cols, rr, cc) != v:
                    break
                n += 1
            if n != 3:
                continue
            ends = int(_open_now(s, rows, cols, pr, pc)) + int(_open_now(s, rows, cols, r + 3 * dr, c + 3 * dc))
            o = (v - 1) * N_PER_PLAYER + base
            if ends == 2:
                out[o + TWO_SIDE] += 1
            elif ends == 1:
                out[o + ONE_SIDE] += 1


@njit(cache=True)
def features(p, s, out, win):
    """Fill ``out`` (``float64[36]``) with both players' feature counts of the kernel state ``s``.

    ``p`` is the game's parameter vector (rows, cols), ``win`` an ``int8[2,
    rows*cols]`` scratch array (on return: the players' win cells). The
    counts do not depend on who is to move. Decisions where the report is
    open (see the module docstring): threes of features 0/1/7/8 are
    adjacent discs with ends open at depth 0; the window counts 2/9 count an
    open three twice; holes are depth exactly 1 or 2; twos are windows with
    two own discs and two empty cells playable now; ProhibitedMoves leaves
    out columns that win for the player; column features count a column once.
    """
    rows, cols = p[0], p[1]
    for i in range(out.shape[0]):
        out[i] = 0.0
    for m in range(2):
        for i in range(rows * cols):
            win[m, i] = 0
    _scan_windows(s, rows, cols, 0, 1, ROW_BASE, out, win)
    _scan_windows(s, rows, cols, 1, 1, DIAG_BASE, out, win)
    _scan_windows(s, rows, cols, 1, -1, DIAG_BASE, out, win)
    _scan_windows(s, rows, cols, 1, 0, -1, out, win)
    _scan_runs(s, rows, cols, 0, 1, ROW_BASE, out)
    _scan_runs(s, rows, cols, 1, 1, DIAG_BASE, out)
    _scan_runs(s, rows, cols, 1, -1, DIAG_BASE, out)
    for m in range(2):
        o = m * N_PER_PLAYER
        mark = m + 1
        for i in range(rows * cols):
            out[o + POTENTIAL_FOUR] += win[m, i]
        for c in range(cols):
            h = s[HEADER + c]
            if h >= rows:
                continue
            land = rows - 1 - h  # row a disc dropped into c lands in
            if h >= 3 and _at(s, cols, land + 1, c) == mark and _at(s, cols, land + 2, c) == mark \
                    and _at(s, cols, land + 3, c) == mark:
                out[o + THREE_IN_COL] += 1
            if win[m, land * cols + c]:
                out[o + ONE_MOVE_TO_WIN] += 1
            elif land >= 1 and win[1 - m, (land - 1) * cols + c]:
                out[o + PROHIBITED] += 1
            pair = False
            higher = False
            for r in range(land - 1, -1, -1):
                if win[m, r * cols + c]:
                    higher = True
                    if win[m, (r + 1) * cols + c]:
                        pair = True
            if pair:
                out[o + WIN_COLUMNS] += 1
            if higher and not win[m, land * cols + c]:
                out[o + ONE_MOVE_TO_WIN_HOLE] += 1


def state_features(game, state) -> np.ndarray:
    """The 36 features of a Connect Four kernel ``state`` (Python convenience; ``float64[36]``)."""
    if game.name != "connect_four":
        raise ValueError(f"Nemesh's features are for connect_four, not {game.name}")
    state = np.asarray(state, dtype=np.int32)
    if state.shape != (game.state_size,):
        raise ValueError(f"state must have length {game.state_size} for {game.params}, got {state.shape}")
    out = np.zeros(N_FEATURES)
    win = np.zeros((2, game.n_cells), dtype=np.int8)
    features(game.p, state, out, win)
    return out
