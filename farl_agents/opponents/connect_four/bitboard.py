"""Connect Four 7x6 positions as bitboards: the layout, the rule kernels of
the solver, and conversions from move strings, farl boards and kernel states.

Why the solver has its own rule code
------------------------------------
The rules of Connect Four are written once for farl in the game kernel
(:mod:`farl_envs.games.connect_four`: ``afterstate`` finds four in a row by
walking the lines through the new disc of an ``int32`` state array, and
``validate`` checks whole positions).  The solver visits tens of millions
of positions per second, and at that rate it needs every rule to be a few
machine instructions on 64-bit integers: ``win_spots`` finds all cells that
would complete four in a row for a player with eight shifts and ANDs,
``possible_moves`` all playable cells with one addition.  So the search
keeps this second, bitboard version of "four in a row" and "legal move";
``tests/test_connect_four_solver.py`` plays many random games with both
and checks that they agree on every legal move, every win and every end of
the game.  Positions coming from outside (farl boards and kernel states)
are checked by the kernel's own ``validate`` before they are converted.

Layout
------
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
  smaller of the keys of the position and of its mirror image
  (``canonical_key``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games.connect_four import make_spec, state_size

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

#: The kernel's game description for the board the solver plays (its
#: ``validate`` checks positions that come from outside).
GAME = make_spec(rows=HEIGHT, cols=WIDTH)


# --------------------------------------------------------------------------
# Kernels (compiled; inlined into the search)
# --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def win_spots(x, mask):
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
def popcount(x):
    """Number of set bits of ``x``."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True, inline="always")
def possible_moves(mask):
    """The playable cell of every non-full column."""
    return (mask + BOTTOM) & BOARD


@njit(cache=True, inline="always")
def column_mask(c):
    """The cells of column ``c`` (with its sentinel bit)."""
    return COL_BITS << (H1 * c)


@njit(cache=True, inline="always")
def mirror(x):
    """Bitboard reflected left-right (column c <-> column 6 - c)."""
    return (((x & COL_BITS) << 42) | ((x & (COL_BITS << 7)) << 28)
            | ((x & (COL_BITS << 14)) << 14) | (x & (COL_BITS << 21))
            | ((x >> 14) & (COL_BITS << 14)) | ((x >> 28) & (COL_BITS << 7))
            | ((x >> 42) & COL_BITS))


@njit(cache=True, inline="always")
def canonical_key(cur, mask):
    """Key shared by a position and its mirror image (the smaller one)."""
    k = cur + mask
    m = mirror(cur) + mirror(mask)
    return k if k < m else m


def legal_columns(mask: int) -> list[int]:
    """0-based columns that are not full."""
    p = possible_moves(mask)
    return [c for c in range(WIDTH) if p & column_mask(c)]


# --------------------------------------------------------------------------
# Positions from move strings, keys, kernel states and boards
# --------------------------------------------------------------------------
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
        mv = possible_moves(mask) & column_mask(c)
        if mv == 0:
            raise ValueError(f"column {ch} is already full at index {i} of {moves!r}")
        if win_spots(cur, mask) & mv:
            if i == len(moves) - 1:
                raise ValueError(
                    f"the game is already over after {moves!r}: the last move makes four in a row")
            raise ValueError(
                f"move at index {i} of {moves!r} wins the game, so no further moves are allowed")
        cur, mask, n = cur ^ mask, mask | mv, n + 1
    if n == N_CELLS:
        raise ValueError(f"the board is full after {moves!r}: the game is over (draw)")
    return cur, mask, n


def position_from_key(key: int) -> tuple[int, int, int]:
    """Inverse of the key ``cur + mask``: the position ``(cur, mask, n)``.

    Per column the key holds ``own + 2**h - 1`` (``h`` the height, ``own`` the
    mover's discs), so ``h`` is the bit length of ``value + 1`` minus one.
    """
    cur = mask = 0
    for c in range(WIDTH):
        v = (key >> (H1 * c)) & COL_BITS
        h = (v + 1).bit_length() - 1
        own = v - ((1 << h) - 1)
        cur |= own << (H1 * c)
        mask |= ((1 << h) - 1) << (H1 * c)
    return cur, mask, bin(mask).count("1")


def _game_over(s: np.ndarray) -> ValueError:
    """The error for a finished game (``s`` valid with its terminal flag set)."""
    full = int(s[PLY]) == N_CELLS
    why = "the board is full (draw)" if full else "a player has four in a row"
    return ValueError(f"the game is already over: {why}")


def _bitboards(s: np.ndarray) -> tuple[int, int, int]:
    """``(cur, mask, n)`` of a kernel state that ``validate`` accepted."""
    heights = s[HEADER:HEADER + WIDTH]
    grid = s[HEADER + WIDTH:HEADER + WIDTH + N_CELLS].reshape(HEIGHT, WIDTH)
    discs = [0, 0]
    mask = 0
    for c in range(WIDTH):
        for h in range(int(heights[c])):
            bit = 1 << (H1 * c + h)
            mask |= bit
            discs[int(grid[HEIGHT - 1 - h, c]) - 1] |= bit
    return discs[int(s[TO_MOVE])], mask, int(s[PLY])


def position_from_state(s: np.ndarray) -> tuple[int, int, int]:
    """Bitboard position ``(cur, mask, n)`` of a kernel state of Connect Four
    6x7 (see :mod:`farl_envs.games.connect_four`).

    Raises ValueError when the kernel's ``validate`` rejects the state or
    the game is over (a finished position has no move to choose).
    """
    s = np.asarray(s)
    msg = GAME.validate(GAME.p, s)
    if msg:
        raise ValueError(f"not a Connect Four 6x7 position: {msg}")
    if s[TERMINAL]:
        raise _game_over(s)
    return _bitboards(s)


def position_from_board(board: np.ndarray, player: int) -> tuple[int, int, int]:
    """Bitboard position ``(cur, mask, n)`` of a farl board.

    ``board`` is ``(6, 7)``, row 0 at the TOP, 0 empty, 1 = player_0 (who
    moved first), 2 = player_1; ``player`` (0 or 1) is to move.  The board is
    written into a kernel state and checked by the kernel's ``validate``
    (cell values, gravity, disc counts against the player to move), so this
    raises ValueError unless it is a legal, unfinished position with
    ``player`` to move.
    """
    b = np.asarray(board)
    if b.shape != (HEIGHT, WIDTH):
        raise ValueError(f"board must have shape ({HEIGHT}, {WIDTH}), got {b.shape}")
    if b.dtype.kind not in "iub":
        raise ValueError(f"board must hold integers (0 empty, 1 or 2), got dtype {b.dtype}")
    s = np.zeros(state_size(HEIGHT, WIDTH), dtype=np.int64)
    s[TO_MOVE] = int(player)
    s[PLY] = int(np.count_nonzero(b))
    s[HEADER:HEADER + WIDTH] = np.count_nonzero(b, axis=0)
    s[HEADER + WIDTH:] = b.ravel()
    msg = GAME.validate(GAME.p, s)
    if msg:
        s[TERMINAL] = 1
        if not GAME.validate(GAME.p, s):  # legal, but the game has ended
            raise _game_over(s)
        raise ValueError(f"not a Connect Four 6x7 position: {msg}")
    return _bitboards(s)
