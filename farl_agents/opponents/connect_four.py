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
Negamax alpha-beta on the bitboards, compiled with numba (the recursion is a
plain compiled call):

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
  bounds of the exact score, so the table is kept between searches;
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

_EMPTY = np.int64(-1)


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
# Entry: key << 13 | ply << 7 | is_lower << 6 | (score + 32); -1 = empty.
@njit(cache=True, inline="always")
def _tt_get(tt, key):
    nb = tt.shape[0] >> 1
    i = (key % nb) << 1
    e = tt[i]
    if (e >> 13) == key:
        return e
    e = tt[i + 1]
    if (e >> 13) == key:
        return e
    return -1


@njit(cache=True, inline="always")
def _tt_put(tt, key, n, lower, score, root_n):
    nb = tt.shape[0] >> 1
    i = (key % nb) << 1
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
@njit(cache=True)
def _negamax(cur, mask, n, alpha, beta, tt, bkeys, bvals, bply, ctx, scratch):
    """Alpha-beta value of a position whose mover cannot win at once.

    Fail-soft bounds: if the true score is <= alpha the result is an upper
    bound <= alpha; if >= beta a lower bound >= beta; otherwise exact.
    ``ctx[0]`` counts nodes, ``ctx[1]`` is the root ply (for TT aging),
    ``scratch`` holds one move list per ply.
    """
    ctx[0] += 1
    possible = _possible(mask)
    opp = cur ^ mask
    opp_win = _win_spots(opp, mask)
    forced = possible & opp_win
    if forced:
        if forced & (forced - 1):  # two threats: cannot block both
            return -((42 - n) // 2)
        possible = forced
    possible &= ~(opp_win >> 1)  # never play under an opponent's threat
    if possible == 0:
        return -((42 - n) // 2)
    if n >= N_CELLS - 2:
        return 0
    lo = -((40 - n) // 2)  # the opponent cannot win with its next disc
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (41 - n) // 2  # we cannot win with our next disc
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    key = cur + mask
    e = _tt_get(tt, key)
    if e != -1:
        b = (e & 63) - 32
        if (e >> 6) & 1:
            if alpha < b:
                alpha = b
                if alpha >= beta:
                    return alpha
        else:
            if beta > b:
                beta = b
                if alpha >= beta:
                    return beta
    if n <= bply:
        v = _book_get(bkeys, bvals, _canonical_key(cur, mask))
        if v != -128:
            return v
    root_n = ctx[1]
    row = scratch[n]
    m = 0
    for i in range(WIDTH):
        c = ORDER[i]
        mv = possible & _col_mask(c)
        if mv:
            if n < 34:  # enhanced transposition cut-off
                ck = opp + (mask | mv)
                ce = _tt_get(tt, ck)
                if ce != -1 and ((ce >> 6) & 1) == 0:
                    s = 32 - (ce & 63)  # child <= u  =>  we >= -u
                    if s >= beta:
                        _tt_put(tt, key, n, 1, s, root_n)
                        return s
            sc = _popcount(_win_spots(cur | mv, mask | mv)) * 8 + (7 - i)
            item = (sc << 52) | mv
            j = m
            while j > 0 and row[j - 1] < item:
                row[j] = row[j - 1]
                j -= 1
            row[j] = item
            m += 1
    for j in range(m):
        mv = row[j] & KEY_BITS
        s = -_negamax(opp, mask | mv, n + 1, -beta, -alpha, tt, bkeys, bvals,
                      bply, ctx, scratch)
        if s >= beta:
            _tt_put(tt, key, n, 1, s, root_n)
            return s
        if s > alpha:
            alpha = s
    _tt_put(tt, key, n, 0, alpha, root_n)
    return alpha


@njit(cache=True)
def _solve(cur, mask, n, lo, hi, tt, bkeys, bvals, bply, ctx, scratch):
    """Exact score of a non-terminal position, known to lie in [lo, hi].

    Pass the widest bounds (``-(42 - n) // 2``, ``(43 - n) // 2``) when
    nothing is known.  Null-window searches halve the interval, each probe
    biased towards 0 because proofs near 0 are the expensive ones.
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
        r = _negamax(cur, mask, n, med, med + 1, tt, bkeys, bvals, bply, ctx,
                     scratch)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def _at_least(cur, mask, n, t, tt, bkeys, bvals, bply, ctx, scratch):
    """Whether the exact score of the position is >= t (one null window)."""
    if _win_spots(cur, mask) & _possible(mask):
        return _win_now_score(n) >= t
    if n <= bply:
        v = _book_get(bkeys, bvals, _canonical_key(cur, mask))
        if v != -128:
            return v >= t
    ctx[1] = n
    return _negamax(cur, mask, n, t - 1, t, tt, bkeys, bvals, bply, ctx,
                    scratch) >= t


@njit(cache=True)
def _move_at_least(cur, mask, n, c, t, tt, bkeys, bvals, bply, ctx, scratch):
    """Whether playing column ``c`` (legal) scores >= t for the mover."""
    mv = _possible(mask) & _col_mask(c)
    if _win_spots(cur, mask) & mv:
        return _win_now_score(n) >= t
    # the child's score is <= -t  <=>  not (child >= 1 - t)
    return not _at_least(cur ^ mask, mask | mv, n + 1, 1 - t, tt, bkeys, bvals,
                         bply, ctx, scratch)


@njit(cache=True)
def _move_scores(cur, mask, n, tt, bkeys, bvals, bply, ctx, scratch):
    """Exact score of every column for the mover (-127 for a full column)."""
    out = np.full(WIDTH, -127, dtype=np.int64)
    possible = _possible(mask)
    wins = _win_spots(cur, mask) & possible
    for c in range(WIDTH):
        mv = possible & _col_mask(c)
        if mv:
            if wins & mv:
                out[c] = _win_now_score(n)
            else:
                out[c] = -_solve(cur ^ mask, mask | mv, n + 1, -64, 64, tt,
                                 bkeys, bvals, bply, ctx, scratch)
    return out


@njit(cache=True)
def _best_moves(cur, mask, n, want_lost_set, tt, bkeys, bvals, bply, ctx,
                scratch):
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
    if _at_least(cur, mask, n, 0, tt, bkeys, bvals, bply, ctx, scratch):
        v = _solve(cur, mask, n, 0, 64, tt, bkeys, bvals, bply, ctx, scratch)
    elif not want_lost_set:
        return -1, best
    else:
        v = _solve(cur, mask, n, -64, -1, tt, bkeys, bvals, bply, ctx, scratch)
    for i in range(WIDTH):  # centre first: those children are best known
        c = ORDER[i]
        if possible & _col_mask(c):
            best[c] = _move_at_least(cur, mask, n, c, v, tt, bkeys, bvals,
                                     bply, ctx, scratch)
    return v, best


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
class Solver:
    """Exact Connect Four solver with its transposition table and book.

    The table (``tt_entries`` int64 entries) is reused between calls: its
    entries are true bounds, so it only ever speeds later searches up (moves
    of the same game share most of their trees).  ``book`` is a path to a
    ``.npz`` made by ``c4_book.build_book``, ``None`` for the packaged book
    when it exists, or ``False`` for no book.
    """

    def __init__(self, tt_entries: int = DEFAULT_TT_ENTRIES, book=None):
        self.tt = np.full(max(2, int(tt_entries) & ~1), -1, dtype=np.int64)
        self.ctx = np.zeros(2, dtype=np.int64)
        self.scratch = np.zeros((N_CELLS + 2, 8), dtype=np.int64)
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

    def _args(self):
        return (self.tt, self.book_keys, self.book_vals, self.book_ply,
                self.ctx, self.scratch)

    # -- queries on bitboard positions ---------------------------------------
    def score(self, cur: int, mask: int, n: int) -> int:
        """Exact score of a valid unfinished position (mover's view)."""
        return int(_solve(cur, mask, n, -64, 64, *self._args()))

    def at_least(self, cur: int, mask: int, n: int, t: int) -> bool:
        """Whether the position's exact score is >= t (cheaper than score)."""
        return bool(_at_least(cur, mask, n, t, *self._args()))

    def move_at_least(self, cur: int, mask: int, n: int, col: int, t: int) -> bool:
        """Whether playing the legal 0-based column ``col`` scores >= t."""
        return bool(_move_at_least(cur, mask, n, col, t, *self._args()))

    def move_scores(self, cur: int, mask: int, n: int) -> list[Optional[int]]:
        """Exact score of each column for the mover; None for full columns."""
        out = _move_scores(cur, mask, n, *self._args())
        return [None if v == -127 else int(v) for v in out]

    def best_moves(self, cur: int, mask: int, n: int, exact_when_lost: bool = True):
        """``(v, cols)``: exact score and the 0-based columns achieving it.

        With ``exact_when_lost=False`` a lost position returns ``(-1, [])``
        without computing how long the loss can be delayed.
        """
        v, best = _best_moves(cur, mask, n, exact_when_lost, *self._args())
        return int(v), [c for c in range(WIDTH) if best[c]]


_DEFAULT_SOLVER: Optional[Solver] = None


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
    cheap.  Returns a 0-based column.
    """
    s = solver or default_solver()
    legal = legal_columns(mask)
    keep = [c for c in legal if s.move_at_least(cur, mask, n, c, 0)]
    if keep:
        return int(keep[rng.integers(len(keep))])
    t = _min_score_for_delay(n, min_delay)
    if t < 0:
        slow = [c for c in legal if s.move_at_least(cur, mask, n, c, t)]
        if slow:
            return int(slow[rng.integers(len(slow))])
    _, cols = s.best_moves(cur, mask, n, exact_when_lost=True)
    return int(cols[rng.integers(len(cols))])


class ABPlayer:
    """Perfect player "AB".

    Plays uniformly at random among the moves with the best exact score: it
    wins as fast as possible, draws when it cannot win.  When every move
    loses it plays a uniformly random legal move (no delaying).  With
    ``opening_plies=k`` it follows ``seed002_opening_choice`` while fewer than
    k discs are on the board (k=12 for the seed-002 protocol).  All
    randomness comes from the ``rng`` passed to ``choose``.
    """

    name = "AB"
    delay_loss = False

    def __init__(self, solver: Optional[Solver] = None, opening_plies: int = 0):
        self._solver = solver
        self.opening_plies = int(opening_plies)

    @property
    def solver(self) -> Solver:
        if self._solver is None:
            self._solver = default_solver()
        return self._solver

    def choose(self, board: np.ndarray, player: int, rng: np.random.Generator) -> int:
        """0-based column to play on ``board`` (row 0 at the top) for
        ``player`` (0 = first player, discs 1; 1 = second, discs 2)."""
        cur, mask, n = position_from_board(board, player)
        return self.choose_position(cur, mask, n, rng)

    def choose_position(self, cur: int, mask: int, n: int, rng: np.random.Generator) -> int:
        """Same as ``choose`` on a bitboard position."""
        if n < self.opening_plies:
            return seed002_opening_choice(cur, mask, n, rng, self.solver)
        v, cols = self.solver.best_moves(cur, mask, n, exact_when_lost=self.delay_loss)
        if not cols:  # lost and not delaying: any legal move
            cols = legal_columns(mask)
        return int(cols[rng.integers(len(cols))])


class ABDLPlayer(ABPlayer):
    """Perfect player "AB-DL": like ``ABPlayer`` but, when every move loses,
    plays (uniformly at random among) the moves that delay the loss longest."""

    name = "AB-DL"
    delay_loss = True
