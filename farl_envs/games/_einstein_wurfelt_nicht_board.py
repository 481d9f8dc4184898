"""EinStein würfelt nicht!'s board: state and parameter layout, sides, start positions, names and pictures.

No move rules here: :mod:`farl_envs.games.einstein_wurfelt_nicht` (whose
docstring describes all of this) holds the kernels and imports the layout
below. The start positions are OpenSpiel's random placement of the 2-player
game (a permutation of the cubes per player, by its lexicographic rank) and
GBG's fixed setups of the 3- and 4-player games.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE, check_int_param

ROLL = HEADER          # state index of the roll
CELLS = HEADER + 1     # state index of the first board cell

# indices into the parameter vector p
P_PLAYERS, P_SIZE, P_CUBES, P_CODING, P_PASS, P_FIRST, P_DIE_RULE = 0, 1, 2, 3, 4, 5, 6
P_TARGET = 7           # four goal cells (-1: none), one per seat
P_START = 11           # size*size start cells (3 and 4 players; zeros for 2 players)

OPENSPIEL_PERMUTATIONS = 720  # 6! placements of a player's cubes

#: forward directions (drow, dcol); player k uses rows 3k .. 3k + 2
DIRS = np.array([
    [1, 1], [1, 0], [0, 1],        # player_0 (OpenSpiel's black)
    [-1, 0], [-1, -1], [0, -1],    # player_1 (OpenSpiel's white)
    [-1, 0], [-1, 1], [0, 1],      # player_2 (GBG)
    [0, -1], [1, 0], [1, -1],      # player_3 (GBG)
], dtype=np.int64)
DIRECTION_NAMES = ("down-right", "down", "right", "up", "up-left", "left",
                   "up", "up-right", "right", "left", "down", "down-left")


@njit(cache=True)
def team(n_players, seat):
    """0 or 1: the side of ``seat`` (2 players: the seat; 3: {0, 1} vs {2}; 4: {0, 2} vs {1, 3})."""
    if n_players == 3:
        return 1 if seat == 2 else 0
    return seat % 2


# GBG's fixed starting positions (StartingPositions.S6P3, S4P4, S6P4) as
# strings: row by row, two characters per square, player letter (a..d for
# seats 0..3) and GBG's token value + 1, ".." empty
_GBG_STARTS = {
    (3, 6): ("a1a3a6......",
             "a2a5........",
             "a4..........",
             "c6........b4",
             "c3c5....b5b2",
             "c1c2c4b6b3b1"),
    (4, 4): ("a1a2d3d1",
             "a3....d2",
             "c2....b3",
             "c1c3b2b1"),
    (4, 6): ("a1a3a6d4d2d1",
             "a2a5....d5d3",
             "a4........d6",
             "c6........b4",
             "c3c5....b5b2",
             "c1c2c4b6b3b1"),
}


def gbg_start_cells(n_players: int, size: int, cubes: int) -> np.ndarray:
    """GBG's start position as farl cell codes (``int64[size*size]``)."""
    rows = _GBG_STARTS[(n_players, size)]
    out = np.zeros(size * size, dtype=np.int64)
    for r, line in enumerate(rows):
        for c in range(size):
            tok = line[2 * c: 2 * c + 2]
            if tok != "..":
                player, number = "abcd".index(tok[0]), int(tok[1])
                out[r * size + c] = 1 + cubes * player + number - 1
    return out


@njit(cache=True)
def _unrank(rank, out):
    """The permutation of 1..6 with lexicographic ``rank`` (0..719) into ``out[0:6]``."""
    used = 0  # bit j set: number j + 1 taken
    fact = 120
    for i in range(6):
        digit = rank // fact
        rank -= digit * fact
        j = 0
        seen = 0
        while True:
            if not (used >> j) & 1:
                if seen == digit:
                    break
                seen += 1
            j += 1
        out[i] = j + 1
        used |= 1 << j
        if i < 5:
            fact //= 5 - i


@njit(cache=True)
def place_two_player(s, black_rank, white_rank):
    """Lay OpenSpiel's placements of ranks ``black_rank`` / ``white_rank`` on the 5x5 board of ``s``."""
    perm = np.empty(6, dtype=np.int64)
    _unrank(black_rank, perm)
    k = 0
    for r in range(5):
        for c in range(5):
            if r + c <= 2:
                s[CELLS + 5 * r + c] = perm[k]           # player 0: code = number
                k += 1
    _unrank(white_rank, perm)
    k = 0
    for r in range(5):
        for c in range(5):
            if r + c >= 6:
                s[CELLS + 5 * r + c] = 6 + perm[k]       # player 1: code = 6 + number
                k += 1


def start_position(p, black_rank: int, white_rank: int, roll: int) -> np.ndarray:
    """The 2-player start of OpenSpiel's placement outcomes ``black_rank``, ``white_rank`` (0..719),
    white (``player_1``) to move with ``roll`` (1..6)."""
    if int(p[P_PLAYERS]) != 2:
        raise ValueError("start_position is for the 2-player game (3 and 4 players start from GBG's fixed setup)")
    for name, rank in (("black_rank", black_rank), ("white_rank", white_rank)):
        check_int_param(name, rank, 0, OPENSPIEL_PERMUTATIONS - 1)
    check_int_param("roll", roll, 1, 6)
    s = np.zeros(CELLS + 25, dtype=np.int32)
    place_two_player(s, black_rank, white_rank)
    s[TO_MOVE] = 1
    s[ROLL] = roll
    return s


def forward_steps(player: int, r0: int, c0: int, r: int, c: int) -> int:
    """Fewest forward steps of ``player`` from (r0, c0) to (r, c); -1 when unreachable."""
    dr, dc = r - r0, c - c0
    if player == 0:
        ok, a, b = dr >= 0 and dc >= 0, dr, dc
    elif player == 1:
        ok, a, b = dr <= 0 and dc <= 0, -dr, -dc
    elif player == 2:
        ok, a, b = dr <= 0 and dc >= 0, -dr, dc
    else:
        ok, a, b = dr >= 0 and dc <= 0, dr, -dc
    return max(a, b) if ok else -1


_LETTERS = {2: "bw", 3: "xo*", 4: "xo*#"}


def text(p, s) -> str:
    """The board as text (a cube: its player's letter and number), then who is to move with which roll."""
    n_players, n, k = int(p[P_PLAYERS]), int(p[P_SIZE]), int(p[P_CUBES])
    letters = _LETTERS[n_players]
    lines = []
    for r in range(n):
        row = []
        for c in range(n):
            v = int(s[CELLS + r * n + c])
            row.append(" ." if v == 0 else f"{letters[(v - 1) // k]}{(v - 1) % k + 1}")
        lines.append(" ".join(row))
    seat = int(s[TO_MOVE])
    if s[TERMINAL]:
        lines.append("game over")
    else:
        lines.append(f"player_{seat} ({letters[seat]}) to move, roll {int(s[ROLL])}")
    return "\n".join(lines)


def symmetries(p) -> np.ndarray:
    """The identity, and with 2 players the mirror in the main diagonal."""
    n = int(p[P_SIZE])
    grid = np.arange(n * n, dtype=np.int32).reshape(n, n)
    if int(p[P_PLAYERS]) == 2:
        return np.array([grid.ravel(), grid.T.ravel()], dtype=np.int32)
    return grid.ravel()[None, :].copy()


_MIRROR_DIR = (0, 2, 1, 5, 4, 3)  # 2 players: direction under (row, col) -> (col, row)


def action_symmetries(p) -> np.ndarray:
    """The move (cell, direction, capture) maps to (mirrored cell, mirrored direction, capture)."""
    n, n_players = int(p[P_SIZE]), int(p[P_PLAYERS])
    n_actions = n * n * 6 * n_players + int(p[P_PASS])
    ident = np.arange(n_actions, dtype=np.int32)
    if n_players != 2:
        return ident[None, :].copy()
    mirror = np.empty(n_actions, dtype=np.int32)
    for a in range(n_actions):
        cell, d, cap = a // 12, (a // 2) % 6, a % 2
        cell_m = (cell % n) * n + cell // n
        mirror[a] = (cell_m * 6 + _MIRROR_DIR[d]) * 2 + cap
    return np.stack([ident, mirror])


def paint(p, s) -> np.ndarray:
    """Colour index per square for ``rgb_array``: 0 empty, else the cube code (player and number)."""
    n = int(p[P_SIZE])
    return s[CELLS:].reshape(n, n).astype(np.int32)


_BASE_COLOURS = (((20, 20, 20), (130, 130, 130)),     # player_0: black, lighter for higher numbers
                 ((255, 255, 255), (175, 175, 175)),  # player_1: white, darker for higher numbers
                 ((230, 60, 50), (120, 10, 10)),      # player_2: red
                 ((60, 170, 70), (10, 80, 20)))       # player_3: green


def colours(n_players: int, k: int) -> tuple:
    """The colour of every cube code (index 0: an empty square)."""
    out = [(205, 170, 110)]  # empty square: wood
    for q in range(n_players):
        lo, hi = _BASE_COLOURS[q]
        for v in range(k):
            f = v / (k - 1)
            out.append(tuple(int(round(lo[i] + f * (hi[i] - lo[i]))) for i in range(3)))
    return tuple(out)


def action_name(n: int, d_count: int, a: int) -> str:
    """``"(r,c)->(r2,c2)"``, ``x`` appended for a capture."""
    cell, d, cap = a // (2 * d_count), (a // 2) % d_count, a % 2
    r, c = cell // n, cell % n
    r2, c2 = r + int(DIRS[d, 0]), c + int(DIRS[d, 1])
    return f"({r},{c})->({r2},{c2})" + ("x" if cap else "")
