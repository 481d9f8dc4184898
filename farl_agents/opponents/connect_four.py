"""Perfect Connect Four (7 columns x 6 rows): an exact solver and players.

What this module gives
----------------------
* ``solve(moves)``   -- the exact game-theoretic score of a position given as a
  string of 1-based column digits played from the empty board ("4453").
* ``analyze(moves)`` -- the score of each of the 7 columns for the mover.
* ``ABPlayer`` / ``ABDLPlayer`` -- perfect players for the farl environments
  (board as a ``(6, 7)`` array, row 0 at the top), plus the seed-002
  evaluation opening rule (``seed002_opening_choice``).

Bitboard layout
---------------
A position is three integers ``(cur, mask, n)``:

* ``mask``: one bit per occupied cell; ``cur``: the cells of the player to
  move (``cur`` is a subset of ``mask``); ``n``: the number of discs played.
* Column ``c`` (0 = leftmost) owns bits ``7*c .. 7*c+6``.  Bit ``7*c + h`` is
  the cell at height ``h`` (0 = bottom row).  The 7th bit of each column
  (``h = 6``) is a sentinel that is never set: it keeps shifted patterns from
  wrapping from the top of one column into the bottom of the next, so four in
  a row in every direction is a shift-and-AND (shift 1: vertical, 7:
  horizontal, 6 and 8: the two diagonals).
* Playing a disc: ``cur, mask = cur ^ mask, mask | move_bit`` (the opponent
  becomes the mover).  The free cell of column ``c`` is
  ``(mask + bottom_bit(c)) & column_mask(c)``.
* ``cur + mask`` is a unique key of the position (< 2**49): per column it is
  ``own_bits + 2**height - 1``, whose ranges for different heights never
  overlap and never carry into the next column.  The opening book uses the
  smaller of the keys of the position and of its mirror image.

Score convention (that of the usual Connect Four solver benchmarks)
------------------------------------------------------------------
``0`` for a draw.  If the player to move can force a win, ``22 - k`` where
``k`` is the number of discs that player has on the board after its winning
move under best play by both sides (winning with the 4th disc scores 18, with
the 21st and last disc 1).  If the player to move loses, minus the opponent's
such score.  So larger is better for the mover, a faster win scores more and
a slower loss scores more (is less negative).  With ``n`` discs on the board a
win by the mover's very next disc scores ``(43 - n) // 2``.

Solver
------
Negamax alpha-beta on the bitboards, compiled with numba (the recursion runs
on an explicit per-ply stack, see ``_negamax``):

* immediate wins are tested before searching; inside the search only
  *non-losing* moves are generated (a single forced block, none when the
  opponent has two immediate threats, never a cell directly below an
  opponent's winning cell);
* the score window is clamped by what is still achievable given the number of
  discs played (a win needs at least one more own disc, etc.);
* moves are ordered by the number of winning cells the move creates for the
  mover ("threat count"), ties broken centre-first;
* a transposition table in a preallocated ``int64`` array (two-slot buckets:
  one slot prefers positions nearer the root, the other always takes the
  newest entry); each entry packs the full key, the ply and one bound (upper
  bound after a fail-low, lower bound after a cut-off).  Entries are true
  bounds of the exact score, so the table is kept between searches.
  Positions near the end of the game (``NEAR_END_PLY``) get a small region
  of their own that stays in the CPU cache: memory latency, not the search
  itself, was what limited the node rate;
* enhanced transposition cut-off (children's table bounds are probed before
  searching them);
* ``_solve`` finds the exact score by repeated null-window searches
  ``(med, med + 1)``, narrowing ``[lo, hi]`` around it, biased towards 0
  where the hard proofs are;
* an optional opening book (sorted canonical keys + exact scores, see
  ``farl_agents.opponents.c4_book``) answers book positions at any node.

Techniques follow the standard ones described by P. Pons's Connect Four
solver tutorial (http://blog.gamesolver.org); the code is written from
scratch.

Cost of exact answers, and what the players do about it
-------------------------------------------------------
Measured on this project's machine (numba, ~15 M nodes/s, cold table), the
exact best-move set of a position takes ~10-100 ms after 12 or more discs,
~0.1-1 s after 10, seconds after 6-8, and minutes after 1-4 discs (the exact
scores of the seven first moves took ~8 CPU minutes).  An opening book that
holds every position up to ply k is therefore out of reach for k >= 3 or so;
the packaged book holds the positions a perfect player meets against any
opponent (``c4_book``: complete through ply 9, and the seed-002 rule's tree
through ply 5).

The players are exact at every move by default: book positions are
instant, later ones are searched on the shared table, which warms up over an
evaluation.  The price is speed before ply ~10 outside the book (see
``benchmarks/opponents_speed.py``, whose AB vs AB-DL games also check
perfect play: every one must end with a first-player win at ply 41).  A node
budget (``ABPlayer(max_nodes=...)``) makes early moves fast but not always
perfect (see ``ABPlayer``).

``solve`` and ``analyze`` are always exact, however long that takes.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np
from numba import njit

WIDTH = 7
HEIGHT = 6
H1 = HEIGHT + 1
N_CELLS = WIDTH * HEIGHT

BOTTOM = 0
for _c in range(WIDTH):
    BOTTOM |= 1 << (H1 * _c)
BOARD = BOTTOM * ((1 << HEIGHT) - 1)
COL_BITS = (1 << H1) - 1  # the 7 bits of column 0 (incl. sentinel)
KEY_BITS = (1 << 49) - 1
del _c

#: Column search order: centre first, then alternating outwards.
ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)

#: Score bounds of a position with nobody to win immediately.
MIN_SCORE = -(N_CELLS // 2) + 3   # -18: lose to the opponent's 4th disc
MAX_SCORE = (N_CELLS + 1) // 2 - 3  # 18: win with own 4th disc

#: Default number of transposition-table entries (int64 each: 128 MiB).
DEFAULT_TT_ENTRIES = 1 << 24


# --------------------------------------------------------------------------
# Bitboard primitives
# --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _win_spots(x, mask):
    """Empty cells (in the board, maybe not yet playable) that would give the
    owner of the discs ``x`` four in a row."""
    r = (x << 1) & (x << 2) & (x << 3)  # vertical: three below
    for s in (7, 6, 8):  # horizontal, diagonal /, diagonal \
        up1 = x << s
        up2 = x << (2 * s)
        dn1 = x >> s
        dn2 = x >> (2 * s)
        a = up1 & up2
        b = dn1 & dn2
        r |= (a & (x << (3 * s))) | (a & dn1) | (b & up1) | (b & (x >> (3 * s)))
    return r & (BOARD ^ mask)


@njit(cache=True, inline="always")
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True, inline="always")
def _possible(mask):
    """The playable cell of every non-full column."""
    return (mask + BOTTOM) & BOARD


@njit(cache=True, inline="always")
def _col_mask(c):
    return COL_BITS << (H1 * c)


@njit(cache=True, inline="always")
def _mirror(x):
    """Bitboard reflected left-right (column c <-> column 6 - c)."""
    return (((x & COL_BITS) << 42) | ((x & (COL_BITS << 7)) << 28)
            | ((x & (COL_BITS << 14)) << 14) | (x & (COL_BITS << 21))
            | ((x >> 14) & (COL_BITS << 14)) | ((x >> 28) & (COL_BITS << 7))
            | ((x >> 42) & COL_BITS))


@njit(cache=True, inline="always")
def _canonical_key(cur, mask):
    """Key shared by a position and its mirror image (the smaller one)."""
    k = cur + mask
    m = _mirror(cur) + _mirror(mask)
    return k if k < m else m


@njit(cache=True, inline="always")
def _win_now_score(n):
    """Score of a win by the mover's next disc with ``n`` discs played."""
    return (43 - n) // 2


# --------------------------------------------------------------------------
# Transposition table and opening book
# --------------------------------------------------------------------------
# Buckets of two entries; bucket counts are prime so that ``key % count``
# depends on every column.
# Entry: key << 13 | ply << 7 | is_lower << 6 | (score + 32); -1 = empty.
#
# The table array has two regions.  Positions with at least
# ``NEAR_END_PLY`` discs live in the first ``NEAR_END_BUCKETS`` buckets
# (1 MiB: it stays in the CPU cache), all others in the rest (the big
# region, e.g. 128 MiB).  Most search nodes are near the end of the game,
# and with one big table nearly every probe was a cache miss, which bounded
# the search at ~5 M nodes/s; their subtrees are small, so losing some of
# their entries costs little.  With the split the search runs at 14-16 M
# nodes/s in ``benchmarks/opponents_speed.py`` (its "M nodes/s" notes),
# although more nodes are searched.
NEAR_END_PLY = 26
NEAR_END_BUCKETS = 65521  # prime


@njit(cache=True, inline="always")
def _tt_slot(tt, key, n):
    """Index of the first entry of ``key``'s bucket (``n``: its disc count)."""
    if n >= NEAR_END_PLY:
        return (key % NEAR_END_BUCKETS) << 1
    nb = (tt.shape[0] >> 1) - NEAR_END_BUCKETS
    return (NEAR_END_BUCKETS + key % nb) << 1


@njit(cache=True, inline="always")
def _tt_get(tt, key, n):
    i = _tt_slot(tt, key, n)
    e = tt[i]
    if (e >> 13) == key:
        return e
    e = tt[i + 1]
    if (e >> 13) == key:
        return e
    return -1


@njit(cache=True, inline="always")
def _tt_put(tt, key, n, lower, score, root_n):
    i = _tt_slot(tt, key, n)
    e = (key << 13) | (n << 7) | (lower << 6) | (score + 32)
    d = tt[i]
    dn = (d >> 7) & 63
    if d == -1 or (d >> 13) == key or n <= dn or dn < root_n:
        tt[i] = e  # slot 0: keeps the entry nearest the root (biggest work)
    else:
        tt[i + 1] = e  # slot 1: always replaced


@njit(cache=True)
def _book_get(bkeys, bvals, key):
    """Exact score stored for canonical ``key`` or -128 when absent."""
    i = np.searchsorted(bkeys, key)
    if i < bkeys.shape[0] and bkeys[i] == key:
        return np.int64(bvals[i])
    return -128


# --------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------
# Layout of one row of the per-ply search stack ``st`` (int64[44, 16]).
_S_CUR, _S_MASK, _S_ALPHA, _S_BETA, _S_NMOVES, _S_NEXT, _S_KEY = 8, 9, 10, 11, 12, 13, 14


@njit(cache=True)
def _negamax(cur, mask, n, alpha, beta, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Alpha-beta value of a position whose mover cannot win at once.

    Fail-soft bounds: if the true score is <= alpha the result is an upper
    bound <= alpha; if >= beta a lower bound >= beta; otherwise exact.
    ``ctx[0]`` counts nodes, ``ctx[1]`` is the root ply (for TT aging);
    when ``ctx[2] > 0`` and the count passes it, ``ctx[3]`` is set to 1 and
    the search returns at once (result meaningless; every table entry
    already written is still a true bound).  ``horizon`` (99 = none) turns
    the search into a depth-limited one: positions with ``horizon`` discs
    that are not decided tactically score 0 -- only for the player's
    fallback, with a private table, since such values are not true bounds.

    The recursion is unrolled onto an explicit stack ``st`` (one row per
    ply: the ordered move list, the node's position, window, move count,
    next move index and key) because numba's on-disk cache cannot reload
    self-recursive functions reliably.
    """
    root = n
    root_n = ctx[1]
    state = 0  # 0: enter the node at ply n, 1: search its next move, 2: return r
    r = 0
    while True:
        if state == 0:
            ctx[0] += 1
            if ctx[2] > 0 and ctx[0] > ctx[2]:
                ctx[3] = 1
                return 0
            possible = _possible(mask)
            opp = cur ^ mask
            opp_win = _win_spots(opp, mask)
            forced = possible & opp_win
            if forced:
                if forced & (forced - 1):  # two threats: cannot block both
                    r = -((42 - n) // 2)
                    state = 2
                    continue
                possible = forced
            possible &= ~(opp_win >> 1)  # never play under an opponent's threat
            if possible == 0:
                r = -((42 - n) // 2)
                state = 2
                continue
            if n >= N_CELLS - 2:
                r = 0
                state = 2
                continue
            lo = -((40 - n) // 2)  # the opponent cannot win with its next disc
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    r = alpha
                    state = 2
                    continue
            hi = (41 - n) // 2  # we cannot win with our next disc
            if beta > hi:
                beta = hi
                if alpha >= beta:
                    r = beta
                    state = 2
                    continue
            if n >= horizon:
                r = 0
                state = 2
                continue
            key = cur + mask
            e = _tt_get(tt, key, n)
            if e != -1:
                b = (e & 63) - 32
                if (e >> 6) & 1:
                    if alpha < b:
                        alpha = b
                        if alpha >= beta:
                            r = alpha
                            state = 2
                            continue
                else:
                    if beta > b:
                        beta = b
                        if alpha >= beta:
                            r = beta
                            state = 2
                            continue
            if n <= bply:
                v = _book_get(bkeys, bvals, _canonical_key(cur, mask))
                if v != -128:
                    r = v
                    state = 2
                    continue
            row = st[n]
            m = 0
            cut = False
            for i in range(WIDTH):
                c = ORDER[i]
                mv = possible & _col_mask(c)
                if mv:
                    if n < 34:  # enhanced transposition cut-off
                        ck = opp + (mask | mv)
                        ce = _tt_get(tt, ck, n + 1)
                        if ce != -1 and ((ce >> 6) & 1) == 0:
                            s = 32 - (ce & 63)  # child <= u  =>  we >= -u
                            if s >= beta:
                                _tt_put(tt, key, n, 1, s, root_n)
                                r = s
                                cut = True
                                break
                    sc = _popcount(_win_spots(cur | mv, mask | mv)) * 8 + (7 - i)
                    item = (sc << 52) | mv
                    j = m
                    while j > 0 and row[j - 1] < item:
                        row[j] = row[j - 1]
                        j -= 1
                    row[j] = item
                    m += 1
            if cut:
                state = 2
                continue
            row[_S_CUR] = cur
            row[_S_MASK] = mask
            row[_S_ALPHA] = alpha
            row[_S_BETA] = beta
            row[_S_NMOVES] = m
            row[_S_NEXT] = 0
            row[_S_KEY] = key
            state = 1
        if state == 1:
            row = st[n]
            j = row[_S_NEXT]
            if j < row[_S_NMOVES]:
                row[_S_NEXT] = j + 1
                mv = row[j] & KEY_BITS
                pcur = row[_S_CUR]
                pmask = row[_S_MASK]
                cur = pcur ^ pmask
                mask = pmask | mv
                alpha = -row[_S_BETA]
                beta = -row[_S_ALPHA]
                n += 1
                state = 0
                continue
            r = row[_S_ALPHA]
            _tt_put(tt, row[_S_KEY], n, 0, r, root_n)
            state = 2
        # state == 2: hand r to the parent
        if n == root:
            return r
        n -= 1
        row = st[n]
        s = -r
        if s >= row[_S_BETA]:
            _tt_put(tt, row[_S_KEY], n, 1, s, root_n)
            r = s
            continue  # the parent returns too
        if s > row[_S_ALPHA]:
            row[_S_ALPHA] = s
        state = 1


# The drivers below share the trailing arguments
#   horizon, tt, bkeys, bvals, bply, ctx, st
# of ``_negamax``.  Each returns at once (meaningless value) when the node
# budget ran out (``ctx[3] == 1``); the Python side then raises.
@njit(cache=True)
def _solve(cur, mask, n, lo, hi, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Exact score of a non-terminal position, known to lie in [lo, hi].

    Pass the widest bounds (e.g. -64, 64) when nothing is known.
    Null-window searches narrow the interval, each probe biased towards 0
    because proofs near 0 are the expensive ones.
    """
    if _win_spots(cur, mask) & _possible(mask):
        return _win_now_score(n)
    if n <= bply:
        v = _book_get(bkeys, bvals, _canonical_key(cur, mask))
        if v != -128:
            return v
    ctx[1] = n
    lo = max(lo, -((42 - n) // 2))
    hi = min(hi, (41 - n) // 2)
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = _negamax(cur, mask, n, med, med + 1, horizon, tt, bkeys, bvals,
                     bply, ctx, st)
        if ctx[3]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def _at_least(cur, mask, n, t, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Whether the exact score of the position is >= t (one null window)."""
    if _win_spots(cur, mask) & _possible(mask):
        return _win_now_score(n) >= t
    if n <= bply:
        v = _book_get(bkeys, bvals, _canonical_key(cur, mask))
        if v != -128:
            return v >= t
    ctx[1] = n
    return _negamax(cur, mask, n, t - 1, t, horizon, tt, bkeys, bvals, bply,
                    ctx, st) >= t


@njit(cache=True)
def _move_at_least(cur, mask, n, c, t, horizon, tt, bkeys, bvals, bply, ctx,
                   st):
    """Whether playing column ``c`` (legal) scores >= t for the mover."""
    mv = _possible(mask) & _col_mask(c)
    if _win_spots(cur, mask) & mv:
        return _win_now_score(n) >= t
    # the child's score is <= -t  <=>  not (child >= 1 - t)
    return not _at_least(cur ^ mask, mask | mv, n + 1, 1 - t, horizon, tt,
                         bkeys, bvals, bply, ctx, st)


@njit(cache=True)
def _move_scores(cur, mask, n, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Exact score of every column for the mover (-127 for a full column)."""
    out = np.full(WIDTH, -127, dtype=np.int64)
    possible = _possible(mask)
    wins = _win_spots(cur, mask) & possible
    for i in range(WIDTH):
        c = ORDER[i]
        mv = possible & _col_mask(c)
        if mv:
            if wins & mv:
                out[c] = _win_now_score(n)
            else:
                out[c] = -_solve(cur ^ mask, mask | mv, n + 1, -64, 64, horizon,
                                 tt, bkeys, bvals, bply, ctx, st)
                if ctx[3]:
                    return out
    return out


@njit(cache=True)
def _best_moves(cur, mask, n, want_lost_set, horizon, tt, bkeys, bvals, bply,
                ctx, st):
    """Exact score ``v`` of the position and which columns achieve it.

    Returns ``(v, best)`` with ``best`` a bool[7].  When the position is lost
    and ``want_lost_set`` is False, ``v`` is only an upper bound (< 0) and
    ``best`` is all False: the caller then plays any legal move, so the
    expensive exact loss distance is never computed.
    """
    best = np.zeros(WIDTH, dtype=np.bool_)
    possible = _possible(mask)
    wins = _win_spots(cur, mask) & possible
    if wins:
        for c in range(WIDTH):
            if wins & _col_mask(c):
                best[c] = True
        return _win_now_score(n), best
    if _at_least(cur, mask, n, 0, horizon, tt, bkeys, bvals, bply, ctx, st):
        v = _solve(cur, mask, n, 0, 64, horizon, tt, bkeys, bvals, bply, ctx, st)
    elif not want_lost_set:
        return -1, best
    else:
        v = _solve(cur, mask, n, -64, -1, horizon, tt, bkeys, bvals, bply, ctx,
                   st)
    if ctx[3]:
        return v, best
    for i in range(WIDTH):  # centre first: those children are best known
        c = ORDER[i]
        if possible & _col_mask(c):
            best[c] = _move_at_least(cur, mask, n, c, v, horizon, tt, bkeys,
                                     bvals, bply, ctx, st)
            if ctx[3]:
                return v, best
    return v, best


@njit(cache=True)
def _static_order(cur, mask):
    """The search's move-ordering score of each legal column (-1 if full):
    8 * (winning cells the move creates) + centrality (6 = centre).  Used to
    break ties between moves a bounded search could not resolve."""
    out = np.full(WIDTH, -1, dtype=np.int64)
    possible = _possible(mask)
    for i in range(WIDTH):
        c = ORDER[i]
        mv = possible & _col_mask(c)
        if mv:
            out[c] = _popcount(_win_spots(cur | mv, mask | mv)) * 8 + (6 - i)
    return out


# --------------------------------------------------------------------------
# Positions from move strings and boards
# --------------------------------------------------------------------------
def _alignment(x: int) -> bool:
    """Whether the disc set ``x`` contains four in a row."""
    for s in (1, 7, 6, 8):
        y = x & (x >> s)
        if y & (y >> (2 * s)):
            return True
    return False


def position_from_moves(moves: str) -> tuple[int, int, int]:
    """Bitboard position ``(cur, mask, n)`` after the 1-based column digits
    ``moves``.  Raises ValueError on a bad digit, a full column, a move after
    the game ended, or when the final position is already over (a win or a
    full board): such positions have no score to compute."""
    if not isinstance(moves, str):
        raise TypeError(f"moves must be a str of column digits, got {type(moves).__name__}")
    cur = mask = n = 0
    for i, ch in enumerate(moves):
        if ch not in "1234567":
            raise ValueError(
                f"invalid move {ch!r} at index {i} of {moves!r}: expected a column digit 1-7")
        c = ord(ch) - ord("1")
        mv = (mask + (1 << (H1 * c))) & (COL_BITS << (H1 * c)) & BOARD
        if mv == 0:
            raise ValueError(f"column {ch} is already full at index {i} of {moves!r}")
        if _alignment(cur | mv):
            if i == len(moves) - 1:
                raise ValueError(
                    f"the game is already over after {moves!r}: the last move makes four in a row")
            raise ValueError(
                f"move at index {i} of {moves!r} wins the game, so no further moves are allowed")
        cur, mask, n = cur ^ mask, mask | mv, n + 1
    if n == N_CELLS:
        raise ValueError(f"the board is full after {moves!r}: the game is over (draw)")
    return cur, mask, n


def position_from_board(board: np.ndarray, player: int) -> tuple[int, int, int]:
    """Bitboard position ``(cur, mask, n)`` of a farl board.

    ``board`` is ``(6, 7)``, row 0 at the TOP, 0 empty, 1 = player_0 (who
    moved first), 2 = player_1; ``player`` (0 or 1) is to move.  Raises
    ValueError unless the board is a reachable, unfinished position with
    ``player`` to move: values in {0, 1, 2}, no floating discs, disc counts
    consistent with ``player`` (player_0 to move iff the counts are equal),
    nobody has four in a row and the board is not full.
    """
    b = np.asarray(board)
    if b.shape != (HEIGHT, WIDTH):
        raise ValueError(f"board must have shape ({HEIGHT}, {WIDTH}), got {b.shape}")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    if not np.isin(b, (0, 1, 2)).all():
        raise ValueError("board cells must be 0 (empty), 1 or 2")
    n1 = int(np.count_nonzero(b == 1))
    n2 = int(np.count_nonzero(b == 2))
    if n1 == n2:
        to_move = 0
    elif n1 == n2 + 1:
        to_move = 1
    else:
        raise ValueError(
            f"inconsistent disc counts: {n1} of player_0 and {n2} of player_1 "
            "(player_0 moves first, so it has as many discs or one more)")
    if to_move != player:
        raise ValueError(
            f"disc counts ({n1} vs {n2}) say player_{to_move} is to move, not player_{player}")
    discs = [0, 0]
    mask = 0
    for c in range(WIDTH):
        col = b[::-1, c]  # bottom first
        h = int(np.count_nonzero(col))
        if h and np.count_nonzero(col[:h]) != h:
            raise ValueError(f"column {c} has a disc above an empty cell")
        for r in range(h):
            bit = 1 << (H1 * c + r)
            mask |= bit
            discs[int(col[r]) - 1] |= bit
    if _alignment(discs[0]) or _alignment(discs[1]):
        raise ValueError("the game is already over: a player has four in a row")
    n = n1 + n2
    if n == N_CELLS:
        raise ValueError("the board is full: the game is over (draw)")
    return discs[player], mask, n


# --------------------------------------------------------------------------
# Solver object (owns the transposition table and the book)
# --------------------------------------------------------------------------
NO_HORIZON = 99


class SearchAborted(RuntimeError):
    """A search ran out of its node budget (``Solver.set_budget``)."""


class Solver:
    """Exact Connect Four solver with its transposition table and book.

    The table (``tt_entries`` int64 entries, rounded to twice a prime, plus
    the small near-end region, see ``NEAR_END_PLY``) is reused between calls: its entries are true bounds, so it only ever speeds
    later searches up (moves of the same game share most of their trees).
    ``book`` is a path to a ``.npz`` made by ``c4_book.build_book``, ``None``
    for the packaged book when it exists, or ``False`` for no book.
    """

    def __init__(self, tt_entries: int = DEFAULT_TT_ENTRIES, book=None):
        big = _next_prime(max(2, int(tt_entries)) // 2)
        self.tt = np.full(2 * (NEAR_END_BUCKETS + big), -1, dtype=np.int64)
        # ctx: nodes searched, root ply, node limit (0 = none), aborted flag
        self.ctx = np.zeros(4, dtype=np.int64)
        self.scratch = np.zeros((N_CELLS + 2, 16), dtype=np.int64)
        self.horizon = NO_HORIZON
        self.book_keys = np.zeros(0, dtype=np.int64)
        self.book_vals = np.zeros(0, dtype=np.int8)
        self.book_ply = -1
        if book is None:
            from farl_agents.opponents import c4_book
            book = c4_book.DEFAULT_BOOK_PATH if os.path.exists(c4_book.DEFAULT_BOOK_PATH) else False
        if book is not False:
            self.load_book(book)

    # -- book ---------------------------------------------------------------
    def load_book(self, path) -> None:
        """Use the book at ``path`` (see ``c4_book``) from now on."""
        from farl_agents.opponents import c4_book
        keys, vals, max_ply = c4_book.load_book(path)
        self.set_book(keys, vals, max_ply)

    def set_book(self, keys: np.ndarray, vals: np.ndarray, max_ply: int) -> None:
        """Use sorted canonical ``keys`` with exact ``vals`` (plies <= max_ply)."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        vals = np.ascontiguousarray(vals, dtype=np.int8)
        if keys.shape != vals.shape:
            raise ValueError("book keys and values differ in length")
        if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):
            raise ValueError("book keys must be strictly increasing")
        self.book_keys, self.book_vals = keys, vals
        self.book_ply = int(max_ply) if keys.size else -1

    @property
    def book_size(self) -> int:
        return int(self.book_keys.size)

    # -- table and budget -----------------------------------------------------
    def clear(self) -> None:
        """Forget the transposition table (e.g. to time a search cold)."""
        self.tt.fill(-1)

    @property
    def nodes(self) -> int:
        """Search nodes visited since creation (or since ``nodes = 0``)."""
        return int(self.ctx[0])

    @nodes.setter
    def nodes(self, value: int) -> None:
        self.ctx[0] = value

    def set_budget(self, max_nodes: Optional[int]) -> None:
        """Allow at most ``max_nodes`` more search nodes over the following
        queries (None: unlimited).  A query that runs out raises
        ``SearchAborted``; the table stays valid."""
        self.ctx[3] = 0
        self.ctx[2] = 0 if max_nodes is None else self.ctx[0] + max(1, int(max_nodes))

    def _args(self):
        return (self.horizon, self.tt, self.book_keys, self.book_vals, self.book_ply,
                self.ctx, self.scratch)

    def _check(self) -> None:
        if self.ctx[3]:
            raise SearchAborted("node budget exhausted")

    # -- queries on bitboard positions ---------------------------------------
    def score(self, cur: int, mask: int, n: int) -> int:
        """Exact score of a valid unfinished position (mover's view)."""
        v = int(_solve(cur, mask, n, -64, 64, *self._args()))
        self._check()
        return v

    def at_least(self, cur: int, mask: int, n: int, t: int) -> bool:
        """Whether the position's exact score is >= t (cheaper than score)."""
        v = bool(_at_least(cur, mask, n, t, *self._args()))
        self._check()
        return v

    def move_at_least(self, cur: int, mask: int, n: int, col: int, t: int) -> bool:
        """Whether playing the legal 0-based column ``col`` scores >= t."""
        v = bool(_move_at_least(cur, mask, n, col, t, *self._args()))
        self._check()
        return v

    def move_scores(self, cur: int, mask: int, n: int) -> list[Optional[int]]:
        """Exact score of each column for the mover; None for full columns."""
        out = _move_scores(cur, mask, n, *self._args())
        self._check()
        return [None if v == -127 else int(v) for v in out]

    def best_moves(self, cur: int, mask: int, n: int, exact_when_lost: bool = True):
        """``(v, cols)``: exact score and the 0-based columns achieving it.

        With ``exact_when_lost=False`` a lost position returns ``(-1, [])``
        without computing how long the loss can be delayed.
        """
        v, best = _best_moves(cur, mask, n, exact_when_lost, *self._args())
        self._check()
        return int(v), [c for c in range(WIDTH) if best[c]]

    def horizon_scores(self, cur: int, mask: int, n: int, max_nodes: int) -> list[Optional[int]]:
        """Column scores from depth-limited searches, deepened 2 plies at a
        time until the node budget runs out (the deepest finished ones are
        returned).  A non-zero value is exact (the win or loss is forced
        within the horizon, and anything unresolved would score 0, which the
        side to move there would prefer); 0 means "draw or not resolved".
        Uses and clears this solver's table: use a private solver.
        """
        vals = None
        try:
            for h in range(n + 2, N_CELLS + 2, 2):
                self.clear()
                self.horizon = h
                if vals is not None and self.ctx[2] == 0:
                    # the 2-ply search always finishes; the budget (shared
                    # by all deeper iterations) starts after it
                    self.set_budget(max_nodes)
                try:
                    cur_vals = self.move_scores(cur, mask, n)
                except SearchAborted:
                    break
                vals = cur_vals
                if h >= N_CELLS or all(v != 0 for v in vals if v is not None):
                    break
        finally:
            self.horizon = NO_HORIZON
            self.set_budget(None)
            self.clear()
        return vals


_DEFAULT_SOLVER: Optional[Solver] = None


def _next_prime(k: int) -> int:
    """Smallest prime >= k (bucket count: ``key % prime`` mixes all columns)."""
    k = max(k, 2)
    while any(k % d == 0 for d in range(2, int(k ** 0.5) + 1)):
        k += 1
    return k


def default_solver() -> Solver:
    """The shared module-level solver (created on first use, with the book)."""
    global _DEFAULT_SOLVER
    if _DEFAULT_SOLVER is None:
        _DEFAULT_SOLVER = Solver()
    return _DEFAULT_SOLVER


# --------------------------------------------------------------------------
# Public string API
# --------------------------------------------------------------------------
def solve(moves: str, solver: Optional[Solver] = None) -> int:
    """Exact score of the position after ``moves`` (1-based column digits
    from the empty board), from the point of view of the player to move.

    0 = draw; ``22 - k`` if the mover wins with its k-th disc; minus the
    opponent's such score if the mover loses.  ``solve("") == 1``.
    Raises ValueError for invalid or finished games (see
    ``position_from_moves``).
    """
    cur, mask, n = position_from_moves(moves)
    return (solver or default_solver()).score(cur, mask, n)


def analyze(moves: str, solver: Optional[Solver] = None) -> list[Optional[int]]:
    """Score of each of the 7 columns (index 0 = column "1") for the player
    to move after ``moves``, in the ``solve`` convention from that player's
    point of view; None for a full column."""
    cur, mask, n = position_from_moves(moves)
    return (solver or default_solver()).move_scores(cur, mask, n)


def legal_columns(mask: int) -> list[int]:
    """0-based columns that are not full."""
    p = (mask + BOTTOM) & BOARD
    return [c for c in range(WIDTH) if p & (COL_BITS << (H1 * c))]


def loss_delay(score: int, n: int) -> int:
    """Plies from a position with ``n`` discs until the game ends when the
    mover makes a move scoring ``score`` < 0 and the winner then wins as fast
    as possible (the mover's move and the winning disc both count).

    The winner (the opponent) places its k-th disc as its win, ``k = 22 +
    score``.  It is the first player iff ``n`` is odd, so the game ends with
    ``2k - 1`` discs if ``n`` is odd, ``2k`` if even.
    """
    k = 22 + score
    end = 2 * k - 1 if n % 2 == 1 else 2 * k
    return end - n


def _min_score_for_delay(n: int, delay: int) -> int:
    """Smallest losing move score whose loss is at least ``delay`` plies away
    (``loss_delay`` is increasing in the score)."""
    for s in range(-21, 0):
        if loss_delay(s, n) >= delay:
            return s
    return 0


# --------------------------------------------------------------------------
# Players
# --------------------------------------------------------------------------
#: Plies from which the players always search exactly (see ``ABPlayer``).
EXACT_FROM_PLY = 10
#: Node budget of a bounded move (positions before ``EXACT_FROM_PLY``); ``None``
#: (the default): every move is exact, i.e. the players are perfect.  A budget
#: (e.g. 250_000) trades perfection for speed, see ``ABPlayer``.
DEFAULT_MAX_NODES = None
#: Table size of a player's private solver for bounded moves (4 MiB).
PRIVATE_TT_ENTRIES = 1 << 19


def _pick(cols, rng: np.random.Generator) -> int:
    return int(cols[int(rng.integers(len(cols)))])


def seed002_opening_choice(cur: int, mask: int, n: int, rng: np.random.Generator,
                           solver: Optional[Solver] = None, min_delay: int = 12) -> int:
    """Move of the perfect player under the seed-002 opening rule.

    Interpretation (used for the first 12 plies of the game, i.e. while fewer
    than 12 discs are on the board):

    1. Let ``S`` be the columns whose exact score is >= 0 ("keep at least a
       draw": winning or drawing moves, NOT only the best ones).  If ``S`` is
       not empty, play a uniformly random column of ``S``.
    2. Otherwise (every move loses) let ``D`` be the columns after which the
       winner needs at least ``min_delay`` (12) more plies, counted from the
       current position and including both this move and the winning disc
       (``loss_delay(score, n) >= 12``).  Play a uniformly random column of
       ``D``.
    3. If ``D`` is empty too, play uniformly among the moves that delay the
       loss the longest (the AB-DL choice).

    Only threshold tests are needed, never exact scores, which keeps this
    cheaper.  Exact (uses ``solver`` without a budget unless the caller set
    one, then it may raise ``SearchAborted``).  Returns a 0-based column.
    """
    s = solver or default_solver()
    legal = legal_columns(mask)
    # A lost position (the common case for the second player) has no move
    # keeping the draw: one test of it spares the seven proofs near 0.
    keep = []
    if s.at_least(cur, mask, n, 0):
        keep = [c for c in legal if s.move_at_least(cur, mask, n, c, 0)]
    if keep:
        return _pick(keep, rng)
    t = _min_score_for_delay(n, min_delay)
    if t < 0:
        slow = [c for c in legal if s.move_at_least(cur, mask, n, c, t)]
        if slow:
            return _pick(slow, rng)
    _, cols = s.best_moves(cur, mask, n, exact_when_lost=True)
    return _pick(cols, rng)


def _exact_choice(s: Solver, kind: str, cur: int, mask: int, n: int,
                  rng: np.random.Generator) -> int:
    """Exact move choice: ``kind`` is "ab", "dl" or "seed002"."""
    if kind == "seed002":
        return seed002_opening_choice(cur, mask, n, rng, s)
    _, cols = s.best_moves(cur, mask, n, exact_when_lost=(kind == "dl"))
    return _pick(cols or legal_columns(mask), rng)


def _horizon_choice(vals: list, kind: str, cur: int, mask: int, n: int,
                    rng: np.random.Generator, min_delay: int = 12) -> int:
    """Fallback choice from ``Solver.horizon_scores`` values (non-zero values
    are exact, 0 = draw or unresolved)."""
    legal = [c for c in range(WIDTH) if vals[c] is not None]
    if kind == "seed002":
        keep = [c for c in legal if vals[c] >= 0]
        if keep:
            return _pick(keep, rng)
        slow = [c for c in legal if loss_delay(vals[c], n) >= min_delay]
        if slow:
            return _pick(slow, rng)
    best = max(vals[c] for c in legal)
    if best < 0 and kind == "ab":
        return _pick(legal, rng)
    cands = [c for c in legal if vals[c] == best]
    if best == 0 and len(cands) > 1:  # unresolved: prefer the search's ordering
        order = _static_order(cur, mask)
        top = max(order[c] for c in cands)
        cands = [c for c in cands if order[c] == top]
    return _pick(cands, rng)


class ABPlayer:
    """Perfect player "AB".

    Plays uniformly at random among the moves with the best exact score: it
    wins as fast as possible, draws when it cannot win.  When every move
    loses it plays a uniformly random legal move (no delaying).

    Options:

    * ``opening_plies=k``: while fewer than k discs are on the board, follow
      ``seed002_opening_choice`` instead (k=12 for the seed-002 protocol).
    * ``max_nodes`` / ``exact_from_ply`` (speed, off by default): every move
      is exact unless ``max_nodes`` is given.  Exact answers for positions
      before ply 10 that the opening book does not hold take from a fraction
      of a second to tens of seconds (they get faster as the solver's table
      warms up over an evaluation).  With ``max_nodes=N`` a position with
      fewer than ``exact_from_ply`` discs is searched with a budget of N
      nodes in all, on a private, freshly cleared table (book positions stay
      instant and exact): a quarter for the exact search; if that does not
      finish, the rest for depth-limited searches (``Solver.horizon_scores``):
      forced wins and losses within the horizon are still handled exactly
      (fastest win, longest delay), otherwise the player keeps to moves that
      do not lose within the horizon and prefers the one the solver's
      ordering ranks first (more threats, then nearer the centre); under the
      seed-002 rule unresolved moves count as keeping the draw.  Such moves
      may be imperfect: with ``max_nodes=250_000`` and the book through ply
      4, AB (first) against AB (second, random once lost) won 14 of 16 games
      from the empty board, 2 million nodes did no better, while exact play
      won all 8 games tried (the first player wins with perfect play).  The
      fresh private table makes a bounded choice depend only on the position
      and ``rng``; exact choices never depend on the table's contents.

    All randomness comes from the ``rng`` passed to ``choose``.
    """

    name = "AB"
    delay_loss = False

    def __init__(self, solver: Optional[Solver] = None, opening_plies: int = 0,
                 max_nodes: Optional[int] = DEFAULT_MAX_NODES,
                 exact_from_ply: int = EXACT_FROM_PLY):
        self._solver = solver
        self._private: Optional[Solver] = None
        self.opening_plies = int(opening_plies)
        self.max_nodes = None if max_nodes is None else int(max_nodes)
        self.exact_from_ply = int(exact_from_ply)
        #: how the last move was chosen: "exact", "bounded" or "horizon"
        self.last_mode = ""

    @property
    def solver(self) -> Solver:
        if self._solver is None:
            self._solver = default_solver()
        return self._solver

    def _private_solver(self) -> Solver:
        main = self.solver
        if self._private is None:
            self._private = Solver(tt_entries=PRIVATE_TT_ENTRIES, book=False)
        if self._private.book_keys is not main.book_keys:
            self._private.book_keys = main.book_keys
            self._private.book_vals = main.book_vals
            self._private.book_ply = main.book_ply
        return self._private

    def choose(self, board: np.ndarray, player: int, rng: np.random.Generator) -> int:
        """0-based column to play on ``board`` (row 0 at the top) for
        ``player`` (0 = first player, discs 1; 1 = second, discs 2)."""
        cur, mask, n = position_from_board(board, player)
        return self.choose_position(cur, mask, n, rng)

    def choose_position(self, cur: int, mask: int, n: int, rng: np.random.Generator) -> int:
        """Same as ``choose`` on a bitboard position."""
        if n < self.opening_plies:
            kind = "seed002"
        else:
            kind = "dl" if self.delay_loss else "ab"
        if self.max_nodes is None or n >= self.exact_from_ply:
            self.last_mode = "exact"
            return _exact_choice(self.solver, kind, cur, mask, n, rng)
        priv = self._private_solver()
        priv.clear()
        priv.set_budget(max(1, self.max_nodes // 4))
        try:
            col = _exact_choice(priv, kind, cur, mask, n, rng)
            self.last_mode = "bounded"
            return col
        except SearchAborted:
            pass
        finally:
            priv.set_budget(None)
        vals = priv.horizon_scores(cur, mask, n, self.max_nodes - self.max_nodes // 4)
        self.last_mode = "horizon"
        return _horizon_choice(vals, kind, cur, mask, n, rng)


class ABDLPlayer(ABPlayer):
    """Perfect player "AB-DL": like ``ABPlayer`` but, when every move loses,
    plays (uniformly at random among) the moves that delay the loss longest."""

    name = "AB-DL"
    delay_loss = True
