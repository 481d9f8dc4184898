"""2048 (the 4x4 sliding-tile game) rules as numba kernels.

==================  ===========================================
players             1 (``player_0``)
actions             4: 0 ``"up"``, 1 ``"right"``, 2 ``"down"``,
                    3 ``"left"``; legal when it changes the board
rewards             the sum of the tiles created by merges in the
                    move (``[2, 2, 2, 2]`` left scores 8)
chance              after every move one tile appears on a uniformly
                    chosen empty cell: 2 with probability 0.9, 4 with
                    0.1; outcome code ``2 * cell + (tile == 4)``
observation         ``int8[4, 4]``: the exponent of each cell (0 empty,
                    1 the tile 2, 2 the tile 4, ..., 17 the tile 131072)
n-tuple board       16 cells, the exponent capped at 15
                    (``MAX_EXPONENT_NTUPLE``; P = 16)
symmetries          8 (rotations and reflections of the square)
==================  ===========================================

Rules. A move slides every tile as far as it goes in the chosen direction;
two equal tiles that meet merge into one of twice the value, and the move
scores that value. Each tile merges at most once per move, and the pair
nearest the wall we move towards merges first: ``[2, 2, 2, 2]`` left gives
``[4, 4, 0, 0]`` (8 points), ``[2, 2, 4, 0]`` left gives ``[4, 4, 0, 0]``
(4 points, the new 4 does not merge again), ``[4, 4, 4, 0]`` left gives
``[8, 4, 0, 0]`` and right gives ``[0, 0, 4, 8]``. A move that changes
nothing is illegal. The game starts with two random tiles.

The largest tile a 4x4 board can build is 2**17 = 131072, so exponents stay
in 0..17. Two 131072 tiles never meet in real play; should a hand-made
position put them side by side they do not merge (that would need
exponent 18), which keeps every reachable state inside the documented range.

When the game ends. The game is over when no move changes the board, i.e.
the board is full and no two neighbours are equal. (A board with a tile
and an empty cell always has a move: some row or column holds both, and
sliding it one way or the other changes it.) A legal move either merges,
which frees a cell, or slides a tile into an empty cell, which keeps one
empty; so the afterstate of a move always has an empty cell and
``afterstate`` never ends the game. The end is detected after the random
tile: ``chance`` (and ``place_tile``) set the terminal flag when the new
tile fills the last empty cell and no merge is possible.

Chance in compiled code: ``chance(p, s, rng)`` draws the cell first
(``rng_below(rng, n_empty)``, counting empty cells in cell order) and then
the tile (``rng_uniform(rng) < 0.9`` gives a 2), so the same seed gives the
same game in the AEC env and in compiled loops. Search algorithms can use
``chance_outcomes(p, s)`` (every ``(cell, tile, probability)``) and
``place_tile(p, s, cell, tile)`` to apply a chosen outcome.
Compiled searches enumerate the same outcomes with
``chance_outcome_count(p, s)`` and ``apply_chance_outcome(p, s, i)``, which
the spec declares for them.

Cell numbering (``cell = 4 * row + col``, row 0 at the top; "up" moves
tiles towards row 0)::

     0  1  2  3
     4  5  6  7
     8  9 10 11
    12 13 14 15

State: the common header (:mod:`farl_envs.core.spec`; the player to move is
always 0 and the ply counts moves, not random tiles) followed by the 16
exponents. The score is not stored: it is the sum of the rewards, and
leaving it out keeps equal boards equal states (for search tables).

What ``validate`` checks: exponents in 0..17, at least one tile, player 0
to move, and the terminal flag set exactly when no move is possible. The
ply count is not checked against the tiles, since experiments often start
from made-up boards.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below, rng_uniform
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._fixed_ntuples import GAME2048
from farl_envs.games._grid import square_symmetries

SIZE = 4
N_CELLS = SIZE * SIZE
N_ACTIONS = 4
STATE_SIZE = HEADER + N_CELLS
MAX_EXPONENT = 17
#: the n-tuple encoding caps exponents here (tiles 32768 and up share a value)
MAX_EXPONENT_NTUPLE = 15
#: probability that a new tile is a 2 (else a 4)
P_TWO = 0.9
ACTION_NAMES = ("up", "right", "down", "left")
#: a practical bound on the number of moves: each adds at least 2 to the
#: tile sum, which stays below 2**18 on a 4x4 board in real play
MAX_PLIES = 2**17

#: LINES[a, i, j]: the j-th cell of line i when moving in direction a,
#: j = 0 being the cell at the wall the tiles move towards
LINES = np.zeros((N_ACTIONS, SIZE, SIZE), dtype=np.int64)
for _i in range(SIZE):
    for _j in range(SIZE):
        LINES[0, _i, _j] = SIZE * _j + _i                # up: column i, top first
        LINES[1, _i, _j] = SIZE * _i + (SIZE - 1 - _j)   # right: row i, right end first
        LINES[2, _i, _j] = SIZE * (SIZE - 1 - _j) + _i   # down: column i, bottom first
        LINES[3, _i, _j] = SIZE * _i + _j                # left: row i, left end first
del _i, _j


@njit(cache=True)
def _moves(s, a):
    """True when direction ``a`` changes the board of ``s``: some tile has
    an empty cell ahead of it, or two tiles meet with equal values."""
    for i in range(SIZE):
        prev = 0
        gap = False
        for j in range(SIZE):
            v = s[HEADER + LINES[a, i, j]]
            if v == 0:
                gap = True
            else:
                if gap or (v == prev and v < MAX_EXPONENT):
                    return True
                prev = v
    return False


@njit(cache=True)
def _stuck(s):
    """True when no move is possible: the board is full and no two
    neighbours can merge."""
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            return False
    for r in range(SIZE):
        for c in range(SIZE):
            v = s[HEADER + SIZE * r + c]
            if v < MAX_EXPONENT:
                if c + 1 < SIZE and s[HEADER + SIZE * r + c + 1] == v:
                    return False
                if r + 1 < SIZE and s[HEADER + SIZE * (r + 1) + c] == v:
                    return False
    return True


@njit(cache=True)
def place_tile(p, s, cell, tile):
    """Put ``tile`` (2 or 4) on the empty ``cell`` of ``s`` in place, set the
    terminal flag when no move is left, and return the outcome code."""
    s[HEADER + cell] = 1 if tile == 2 else 2
    if _stuck(s):
        s[TERMINAL] = 1
    return 2 * cell + (0 if tile == 2 else 1)


@njit(cache=True)
def chance(p, s, rng):
    n_empty = 0
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            n_empty += 1
    if n_empty == 0:  # not after a legal move; keep the flag honest anyway
        if _stuck(s):
            s[TERMINAL] = 1
        return -1
    k = rng_below(rng, n_empty)
    tile = 2 if rng_uniform(rng) < P_TWO else 4
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            if k == 0:
                return place_tile(p, s, c, tile)
            k -= 1
    return -1


@njit(cache=True)
def chance_outcome_count(p, s):
    """The number of random tiles that may follow the afterstate ``s``: a 2 or a 4 on each empty cell."""
    n_empty = 0
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            n_empty += 1
    return 2 * n_empty


@njit(cache=True)
def apply_chance_outcome(p, s, i):
    """Apply outcome ``i`` in place (the ``i // 2``-th empty cell in cell order gets a 2 for even ``i``, a 4
    for odd ``i``; :func:`place_tile`) and return its probability, as :func:`chance_outcomes` lists it."""
    n_empty = chance_outcome_count(p, s) // 2
    k = i // 2
    for c in range(N_CELLS):
        if s[HEADER + c] == 0:
            if k == 0:
                if i % 2 == 0:
                    place_tile(p, s, c, 2)
                    return P_TWO / n_empty
                place_tile(p, s, c, 4)
                return (1.0 - P_TWO) / n_empty
            k -= 1
    return 0.0


@njit(cache=True)
def initial_state(p, rng):
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    chance(p, s, rng)
    chance(p, s, rng)
    return s


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    n = 0
    for a in range(N_ACTIONS):
        if _moves(s, a):
            mask[a] = 1
            n += 1
    return n


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    ply = s[PLY]
    copy_state(s, out)
    score = 0
    for i in range(SIZE):
        # compact line i towards its wall: ``write`` is the next free slot,
        # ``last`` the value just written there if it may still merge
        write = 0
        last = 0
        for j in range(SIZE):
            cj = HEADER + LINES[a, i, j]
            v = out[cj]
            if v == 0:
                continue
            out[cj] = 0
            if v == last and v < MAX_EXPONENT:
                out[HEADER + LINES[a, i, write - 1]] = v + 1
                score += 1 << (v + 1)
                last = 0  # the merged tile may not merge again
            else:
                out[HEADER + LINES[a, i, write]] = v
                last = v
                write += 1
    out[TO_MOVE] = 0
    out[PLY] = ply + 1
    rewards[0] = float(score)


@njit(cache=True)
def board(p, s, out):
    for c in range(N_CELLS):
        v = s[HEADER + c]
        out[c] = v if v < MAX_EXPONENT_NTUPLE else MAX_EXPONENT_NTUPLE


@njit(cache=True)
def observe(p, s, seat, out):
    for c in range(N_CELLS):
        out[c // SIZE, c % SIZE] = s[HEADER + c]


def chance_info(code: int) -> tuple:
    """The ``(cell, tile)`` of a ``chance`` outcome code (what the env reports in ``infos``)."""
    return (code >> 1, 4 if code & 1 else 2)


def chance_outcomes(p, s) -> list:
    """Every random tile that may follow the afterstate ``s``, as
    ``[(cell, tile, probability), ...]`` (tile 2 or 4); the probabilities
    sum to 1. Empty when ``s`` has no empty cell."""
    empty = [int(c) for c in np.flatnonzero(np.asarray(s)[HEADER:] == 0)]
    if not empty:
        return []
    n = len(empty)
    out = []
    for c in empty:
        out.append((c, 2, P_TWO / n))
        out.append((c, 4, (1.0 - P_TWO) / n))
    return out


def validate(p, s) -> str:
    """Empty when ``s`` is a legal 2048 position, else the reason."""
    msg = check_header(s, 1, STATE_SIZE)
    if msg:
        return msg
    cells = s[HEADER:]
    if np.any((cells < 0) | (cells > MAX_EXPONENT)):
        return f"cells must hold exponents 0 (empty) .. {MAX_EXPONENT} (tile {2 ** MAX_EXPONENT})"
    if not np.any(cells):
        return "the board must hold at least one tile"
    if bool(s[TERMINAL]) != bool(_stuck(s)):
        return ("terminal flag is set but a move is still possible" if s[TERMINAL]
                else "no move is possible, so the terminal flag must be set")
    return ""


def render_text(p, s) -> str:
    """The tiles as text, ``.`` for an empty cell, one row per line."""
    vals = [(str(2 ** int(v)) if v else ".") for v in s[HEADER:]]
    width = max(len(v) for v in vals)
    return "\n".join(" ".join(vals[SIZE * r + c].rjust(width) for c in range(SIZE)) for r in range(SIZE))


def symmetries(p) -> np.ndarray:
    """``int32[8, 16]``: the rotations and reflections of the square."""
    return square_symmetries(SIZE)


def action_symmetries(p) -> np.ndarray:
    """``int32[8, 4]``: the direction that symmetry k turns each move into.

    Found by playing each move on a board whose four moves all differ and
    checking which move of the transformed board gives the transformed result
    (rows in the order of :func:`symmetries`).
    """
    perms = symmetries(p)
    s = np.zeros(HEADER + N_CELLS, dtype=np.int32)
    s[HEADER:] = [1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0]
    rew = np.zeros(1)
    out = np.empty((perms.shape[0], 4), dtype=np.int32)
    for k, perm in enumerate(perms):
        sym = s.copy()
        sym[HEADER:] = s[HEADER:][perm]
        for a in range(4):
            moved = np.empty_like(s)
            afterstate(p, s, a, moved, rew)
            want = moved[HEADER:][perm]
            hits = []
            for d in range(4):
                cand = np.empty_like(s)
                afterstate(p, sym, d, cand, rew)
                if np.array_equal(cand[HEADER:], want):
                    hits.append(d)
            assert len(hits) == 1, "the probe board must tell the four moves apart"
            out[k, a] = hits[0]
    return out


#: RGB per n-tuple value (empty, 2, 4, ..., 32768+), the usual 2048 palette
_CELL_COLORS = (
    (205, 193, 180), (238, 228, 218), (237, 224, 200), (242, 177, 121), (245, 149, 99),
    (246, 124, 95), (246, 94, 59), (237, 207, 114), (237, 204, 97), (237, 200, 80),
    (237, 197, 63), (237, 194, 46), (180, 130, 200), (150, 100, 190), (120, 70, 170),
    (60, 58, 50),
)


def make_spec() -> GameSpec:
    """The 2048 spec (the game has no parameters)."""
    return GameSpec(
        name="game2048", version=0, params={}, p=np.zeros(1, dtype=np.int64),
        n_players=1, n_actions=N_ACTIONS, state_size=STATE_SIZE, n_cells=N_CELLS,
        n_cell_values=MAX_EXPONENT_NTUPLE + 1, obs_shape=(SIZE, SIZE), obs_high=MAX_EXPONENT,
        max_plies=MAX_PLIES, has_chance=True, reward_range=(0.0, float(2**18)),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        chance=chance, chance_info=chance_info, board=board, observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=ACTION_NAMES,
        cell_colors=_CELL_COLORS, grid_shape=(SIZE, SIZE),
        chance_outcome_count=chance_outcome_count, apply_chance_outcome=apply_chance_outcome,
        fixed_ntuples=GAME2048, view="game2048",
    )

