"""Rubik's cube (2x2x2 pocket cube or 3x3x3): undo a random scramble with as few twists as possible.

(Longer than farl's usual 400 lines: a third of it is this docstring, the game's page (the twists, the no-undo
rule, the sticker state and GBG's STICKER2 board); the cube's geometry is in ``_rubiks_cube_board.py``.)

==================  ==============================================================
players             1 (``player_0``)
parameters          ``size=2`` (2 or 3), ``metric="half"`` (``"half"`` or
                    ``"quarter"``), ``scramble_min=1``, ``scramble_max`` (default
                    God's number of the size and metric: 11, 14, 20 or 26),
                    ``max_twists=50`` (the episode cap), ``allow_undo=False``
                    (``True``: the inverse of the last twist is legal too)
actions             ``"half"``: 3 per face, a = 3 * face + k for the face turned
                    clockwise by 90°, 180°, 270° (``U``, ``U2``, ``U'``);
                    ``"quarter"``: 2 per face, a = 2 * face + k (``U``, ``U'``).
                    Faces in GBG's order U, L, F (2x2x2: 9 or 6 actions) and
                    D, R, B (3x3x3: 18 or 12); every twist is legal except the
                    inverse of the twist just played (``allow_undo=False``)
rewards             -0.04 per twist, +1 more for the twist that solves the cube
                    (GBG's published agents: ``stepRew -0.04, rewPos 1.0``)
chance              only at the start (the scramble, from ``initial_state``'s rng)
observation         ``int8[6, size, size]``: the colour (0..5 = U, L, F, D, R, B's
                    colours) of every sticker, per face seen from outside
n-tuple board       GBG's ``STICKER2``: 14 cells, P = 7 (2x2x2); 40 cells,
                    P = 12 (3x3x3)
symmetries          the identity only (see below)
==================  ==============================================================

The start. ``initial_state`` scrambles the solved cube by ``p`` random twists, ``p`` uniform in
``scramble_min..scramble_max`` (GBG's ``pMin..pMax``), every twist drawn uniformly from the legal ones
except that, as in GBG's scrambles (``TWIST_DOUBLETS = false``), a twist never undoes or merges with the one
before it: in the half-turn metric it never turns the same face as the twist before, in the quarter-turn metric
it is never the inverse of the twist before (``U`` then ``U`` is allowed, ``U`` then ``U'`` is not). A scramble
that ends on the solved cube is drawn again, whole. ``p`` twists need not leave the cube ``p`` twists from solved
(for large ``p`` most scrambles are closer), as in GBG. GBG trains on ``p`` uniform in ``1..pMax`` and evaluates on
``pMin..pMax``: two parameter sets here.

No undoing (``allow_undo=False``, GBG's rule of play). A twist that undoes the twist just played is not legal:
after ``U`` not ``U'``, after ``U'`` not ``U``, and in the half-turn metric after ``U2`` not ``U2`` (each
twist's inverse, ``INVERSE``: the same face turned the other way; ``U`` then ``U`` stays legal, it is ``U2``).
The first twist of an episode is free (the scramble's last twist does not count). GBG's agents play so
(``TDNTuple4Agt`` skips the inverse of the state's last twist when it picks a move); a shortest solution never
undoes a twist, so the rule loses nothing, and it keeps a greedy player out of two-twist cycles (A, B, A, B, ...)
that use up its twists (docs/results/rubiks_cube.md). ``allow_undo=True`` makes every twist legal, the rules of
the first release.

The end. The episode ends when the cube is solved (a termination, reward +1 on top of the twist's -0.04) or
after ``max_twists`` twists (a truncation through ``GameSpec.truncated``: the AEC env reports ``truncations``,
the Gymnasium wrapper ``truncated=True``). The step cost makes a shorter solution worth more, as GBG's
``stepReward`` does; GBG's ``CubeConfig`` now defaults to -1 / +10 (pocket), its published agent files were
trained with -0.04 / +1, the values here.

Which twists. The 2x2x2 twists only U, L and F, as GBG does: the DRB corner never moves, so the cube never
turns as a whole and its positions are the 7! · 3^6 = 3,674,160 of the fixed-corner group (God's number 11
half-turn, 14 quarter-turn). The 3x3x3 twists all six faces; its centres never move and its positions are
the 8! · 3^8 · 12! · 2^12 / 12 = 43,252,003,274,489,856,000 of the cube group (God's number 20 / 26).
``U`` is the U face turned clockwise as seen looking at it (Singmaster's notation); GBG's action keys
``U1, U2, U3, L1, ...`` have the same order.

Stickers. Facelet ``face * size² + row * size + col`` (faces U, L, F, D, R, B), each face seen from outside as
in the net (U's top row next to B, D's top row next to F, the side faces' top row next to U)::

          U
        L F R B
          D

State: the common header (player always 0; the ply counts twists) followed by, for every facelet, the
number of the sticker on it (the facelet where that sticker sits on the solved cube), then one slot for the last
twist played (``1 + action``; 0 before the first twist). The sticker's colour is its number // size². The cube
is solved exactly when every sticker is home. The last-twist slot is part of the rules only (which twists are
legal); the observation and the n-tuple board read the stickers alone, so two states that differ only in it
look the same to an agent.

The n-tuple board (GBG's ``STICKER2``). One sticker of every cubie that moves is tracked, the cubie's U or D
coloured one (for the four middle-layer edges its F or B one): for each such cubie one cell holds the slot it is
in and one cell the facelet of that slot its tracked sticker is on (0 the slot's U/D facelet, or F/B for the
middle-layer edges; 1, 2 clockwise). That is the cube's permutation and orientation per cubie. 2x2x2: the
7 cubies other than DRB, cells 0..6 the slot (0..6; slots URF, UFL, ULB, UBR, DFR, DLF, DBL) and cells 7..13
the facelet (0..2): P = 7. 3x3x3: cells 0..7 the corners' slots (0..7, Kociemba's order URF ... DRB),
8..15 their facelets (0..2), 16..27 the edges' slots (0..11: UR, UF, UL, UB, DR, DF, DL, DB, FR, FL, BL,
BR), 28..39 their facelets (0..1): P = 12. The 2x2x2 layout is GBG's 2x7 field; the 3x3x3 one GBG's
8+8+12+12 cells. Random-walk n-tuples walk on GBG's adjacency (``cell_neighbours``): every other cell
(2x2x2); every other corner cell or every other edge cell (3x3x3).

Symmetries. The n-tuple board declares the identity only. The cube's 24 colour symmetries (GBG's ``nSym``:
recolour the cube by a whole-cube rotation and rotate it back) are not implemented: on the sticker board they
change the cells' values (which slot, which facelet) as well as their order, and a farl symmetry is a
permutation of cells; they would need a board-level transform of their own.

Version history: v0, first release. The no-undo rule (``allow_undo=False``) became the default later in v0,
with the last-twist slot at the end of the state (a state is one entry longer); the observation and the
n-tuple board are unchanged, so agents trained before still load and keep their values, and
``allow_undo=True`` gives the first release's legal twists.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header, check_int_param
from farl_envs.games import _rubiks_cube_board as geo

STEP_REWARD = -0.04
SOLVED_REWARD = 1.0
METRICS = ("quarter", "half")
#: God's number per (size, metric): 2x2x2 fixed-corner group and 3x3x3 cube group
GODS_NUMBER = {(2, "half"): 11, (2, "quarter"): 14, (3, "half"): 20, (3, "quarter"): 26}
MAX_SCRAMBLE = 100
MAX_TWISTS_LIMIT = 10_000

# parameter vector: [size, metric (0 quarter, 1 half), scramble_min, scramble_max, max_twists, allow_undo]
P_SIZE, P_METRIC, P_SMIN, P_SMAX, P_MAX_TWISTS, P_ALLOW_UNDO = range(6)
MAX_FACELETS = 54
N_TWIST_FACES = {2: 3, 3: 6}


def _tables():
    """Per (size - 2, metric, action): the twist's cycles, its face, its inverse action; the board's lookups."""
    cyc = np.zeros((2, 2, 18, 10, 4), dtype=np.int64)
    cyc_len = np.zeros((2, 2, 18, 10), dtype=np.int64)
    n_cyc = np.zeros((2, 2, 18), dtype=np.int64)
    face_of = np.zeros((2, 2, 18), dtype=np.int64)
    inverse = np.zeros((2, 2, 18), dtype=np.int64)
    names = {}
    for n in (2, 3):
        quarter = [geo.quarter_twist(n, f) for f in range(N_TWIST_FACES[n])]
        for m, metric in enumerate(METRICS):
            turns = (1, 3) if metric == "quarter" else (1, 2, 3)
            acts = [(f, k) for f in range(N_TWIST_FACES[n]) for k in turns]
            names[(n, metric)] = tuple(geo.FACES[f] + {1: "", 2: "2", 3: "'"}[k] for f, k in acts)
            for a, (f, k) in enumerate(acts):
                to = np.arange(6 * n * n)
                for _ in range(k):
                    to = quarter[f][to]
                cycles = geo.twist_cycles(to)
                n_cyc[n - 2, m, a] = len(cycles)
                for j, c in enumerate(cycles):
                    cyc_len[n - 2, m, a, j] = len(c)
                    cyc[n - 2, m, a, j, :len(c)] = c
                face_of[n - 2, m, a] = f
                inverse[n - 2, m, a] = acts.index((f, 4 - k))
    # board lookups: by sticker, the cell of its slot and of its facelet (-1: not tracked); by facelet, its slot
    # and its place in the slot
    loc_cell = np.full((2, MAX_FACELETS), -1, dtype=np.int64)
    face_cell = np.full((2, MAX_FACELETS), -1, dtype=np.int64)
    slot = np.full((2, MAX_FACELETS), -1, dtype=np.int64)
    place = np.full((2, MAX_FACELETS), -1, dtype=np.int64)
    for n in (2, 3):
        corners = geo.corner_facelets(n)
        n_corners = 7 if n == 2 else 8
        groups = [(corners[:n_corners], 0, n_corners)]
        if n == 3:
            groups.append((geo.edge_facelets(), 2 * n_corners, 12))
        for facelets, base, count in groups:
            for c in range(count):
                loc_cell[n - 2, facelets[c, 0]] = base + c
                face_cell[n - 2, facelets[c, 0]] = base + count + c
                for k in range(facelets.shape[1]):
                    slot[n - 2, facelets[c, k]] = c
                    place[n - 2, facelets[c, k]] = k
    return cyc, cyc_len, n_cyc, face_of, inverse, names, loc_cell, face_cell, slot, place


CYCLES, CYCLE_LEN, N_CYCLES, FACE_OF, INVERSE, ACTION_NAMES, LOC_CELL, FACE_CELL, SLOT, PLACE = _tables()


@njit(cache=True)
def n_actions_of(p):
    return (3 if p[P_METRIC] == 1 else 2) * (3 if p[P_SIZE] == 2 else 6)


@njit(cache=True)
def last_slot(p):
    """The state index of the last twist played (``1 + action``, 0 for none): right after the stickers."""
    return HEADER + 6 * p[P_SIZE] * p[P_SIZE]


@njit(cache=True)
def _twist(p, s, a):
    """Apply twist ``a`` to ``s`` in place (each cycle rotated: the sticker on ``c[j]`` moves to ``c[j+1]``)."""
    z, m = p[P_SIZE] - 2, p[P_METRIC]
    for j in range(N_CYCLES[z, m, a]):
        ln = CYCLE_LEN[z, m, a, j]
        last = s[HEADER + CYCLES[z, m, a, j, ln - 1]]
        for i in range(ln - 1, 0, -1):
            s[HEADER + CYCLES[z, m, a, j, i]] = s[HEADER + CYCLES[z, m, a, j, i - 1]]
        s[HEADER + CYCLES[z, m, a, j, 0]] = last


@njit(cache=True)
def solved(p, s):
    """True when every sticker of ``s`` is home."""
    n = p[P_SIZE]
    for i in range(6 * n * n):
        if s[HEADER + i] != i:
            return False
    return True


@njit(cache=True)
def scramble(p, s, k, rng):
    """``k`` random twists on ``s`` in place, none undoing or merging with the one before (module docstring)."""
    na = n_actions_of(p)
    z, m = p[P_SIZE] - 2, p[P_METRIC]
    last = -1
    for _ in range(k):
        while True:
            a = rng_below(rng, na)
            if last < 0:
                break
            if m == 1 and FACE_OF[z, m, a] == FACE_OF[z, m, last]:
                continue
            if m == 0 and a == INVERSE[z, m, last]:
                continue
            break
        _twist(p, s, a)
        last = a


@njit(cache=True)
def initial_state(p, rng):
    """The solved cube scrambled by ``p`` twists, ``p`` uniform in ``scramble_min..scramble_max``."""
    n = p[P_SIZE]
    s = np.zeros(last_slot(p) + 1, dtype=np.int32)  # the last-twist slot stays 0: the first twist is free
    while True:
        for i in range(6 * n * n):
            s[HEADER + i] = i
        k = p[P_SMIN] + rng_below(rng, p[P_SMAX] - p[P_SMIN] + 1)
        scramble(p, s, k, rng)
        if not solved(p, s):
            return s


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    na = n_actions_of(p)
    mask[:na] = 1
    last = s[last_slot(p)] - 1
    if last < 0 or p[P_ALLOW_UNDO]:
        return na
    mask[INVERSE[p[P_SIZE] - 2, p[P_METRIC], last]] = 0
    return na - 1


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    copy_state(s, out)
    _twist(p, out, a)
    out[TO_MOVE] = 0
    out[PLY] = s[PLY] + 1
    out[last_slot(p)] = a + 1
    r = STEP_REWARD
    if solved(p, out):
        out[TERMINAL] = 1
        r += SOLVED_REWARD
    elif out[PLY] >= p[P_MAX_TWISTS]:
        out[TERMINAL] = 1
    rewards[0] = r


@njit(cache=True)
def observe(p, s, seat, out):
    n = p[P_SIZE]
    nn = n * n
    for f in range(6):
        for r in range(n):
            for c in range(n):
                out[f, r, c] = s[HEADER + f * nn + r * n + c] // nn


@njit(cache=True)
def board(p, s, out):
    """GBG's ``STICKER2`` cells (module docstring): each tracked sticker's slot and its place in the slot."""
    n = p[P_SIZE]
    z = n - 2
    for loc in range(6 * n * n):
        sid = s[HEADER + loc]
        c = LOC_CELL[z, sid]
        if c >= 0:
            out[c] = SLOT[z, loc]
            out[FACE_CELL[z, sid]] = PLACE[z, loc]


# ------------------------------------------------------------------------------------ Python-level helpers
def _size(p) -> int:
    return int(p[P_SIZE])


def cubies(p, s) -> tuple:
    """``(cp, co, ep, eo)`` of ``s`` per slot (:func:`~farl_envs.games._rubiks_cube_board.cubies`)."""
    return geo.cubies(_size(p), np.asarray(s)[HEADER:last_slot(p)])


def from_cubies(p, cp, co, ep=(), eo=(), ply: int = 0) -> np.ndarray:
    """The state of those cubies (:func:`~farl_envs.games._rubiks_cube_board.stickers`), ``ply`` twists played,
    no last twist known (the next twist is free)."""
    s = np.zeros(last_slot(p) + 1, dtype=np.int32)
    s[HEADER:last_slot(p)], s[PLY] = geo.stickers(_size(p), cp, co, ep, eo), ply
    return s


def last_twist(p, s) -> int:
    """The action of the twist played last in ``s``, -1 before the first twist."""
    return int(s[last_slot(p)]) - 1


def validate(p, s) -> str:
    """Empty when ``s`` is a position the twists reach (with a consistent ply count and terminal flag)."""
    n = _size(p)
    msg = check_header(s, 1, last_slot(p) + 1)
    if msg:
        return msg
    stickers = s[HEADER:last_slot(p)]
    if sorted(int(v) for v in stickers) != list(range(6 * n * n)):
        return f"the stickers must be a permutation of 0..{6 * n * n - 1}"
    try:
        cp, co, ep, eo = cubies(p, s)
    except ValueError as exc:
        return str(exc)
    if n == 3:
        centres = [f * 9 + 4 for f in range(6)]
        if any(int(s[HEADER + c]) != c for c in centres):
            return "the centres never move"
        if geo.parity(cp) != geo.parity(ep):
            return "the corner and edge permutations must have the same parity"
        if int(eo.sum()) % 2:
            return "the edge flips must sum to an even number"
    elif cp[7] != 7 or co[7] != 0:
        return "the DRB corner never moves on the 2x2x2 (only U, L and F turn)"
    if int(co.sum()) % 3:
        return "the corner twists must sum to a multiple of 3"
    ply, cap = int(s[PLY]), int(p[P_MAX_TWISTS])
    if ply > cap:
        return f"twist count must be in 0..{cap} (max_twists), got {ply}"
    if s[TO_MOVE] != 0:
        return "player_0 is the only player"
    last, na = last_twist(p, s), int(n_actions_of(p))
    if not -1 <= last < na:
        return f"the last twist (1 + action) must be in 0..{na}, got {last + 1}"
    if last >= 0 and ply == 0:
        return "no twist is played yet (ply 0), so there is no last twist (0)"
    if bool(s[TERMINAL]) != (solved(p, s) or ply >= cap):
        return "terminal flag must be set exactly when the cube is solved or max_twists twists are played"
    return ""


def truncated(p, s) -> bool:
    """True when the episode ended by ``max_twists``, not by solving the cube."""
    return not solved(p, s)


def render_text(p, s) -> str:
    """The net of the stickers, one letter per colour (the face it belongs to)."""
    n = _size(p)
    grid = [[" "] * (4 * n) for _ in range(3 * n)]
    for i, (x, y) in enumerate(geo.net_cells(n)):
        grid[y][x] = geo.FACES[int(s[HEADER + i]) // (n * n)]
    text = "\n".join("".join(row).rstrip() for row in grid)
    status = "solved" if solved(p, s) else f"{int(s[PLY])} twists"
    last = last_twist(p, s)
    if last >= 0:
        status += f", the last {ACTION_NAMES[(n, METRICS[int(p[P_METRIC])])][last]}"
    return f"{text}\n{status}"


def paint(p, s) -> np.ndarray:
    """The net as colour indices for ``rgb_array`` (0 background, 1 + colour for a sticker)."""
    n = _size(p)
    grid = np.zeros((3 * n, 4 * n), dtype=np.int64)
    for i, (x, y) in enumerate(geo.net_cells(n)):
        grid[y, x] = 1 + int(s[HEADER + i]) // (n * n)
    return grid


def symmetries(p) -> np.ndarray:
    """The identity only (the cube's colour symmetries are not implemented yet)."""
    n_cells = 14 if _size(p) == 2 else 40
    return np.arange(n_cells, dtype=np.int32)[None, :]


def action_symmetries(p) -> np.ndarray:
    """The identity only, as :func:`symmetries`."""
    return np.arange(int(n_actions_of(p)), dtype=np.int32)[None, :]


def cell_neighbours(p) -> list[list[int]]:
    """GBG's STICKER2 adjacency: every other cell (2x2x2); every other corner or every other edge cell (3x3x3)."""
    if _size(p) == 2:
        return [[j for j in range(14) if j != i] for i in range(14)]
    corner, edge = range(16), range(16, 40)
    return [[j for j in (corner if i < 16 else edge) if j != i] for i in range(40)]


def make_spec(size: int = 2, metric: str = "half", scramble_min: int = 1, scramble_max: int | None = None,
              max_twists: int = 50, allow_undo: bool = False) -> GameSpec:
    """The ``size`` cube (2 or 3) in the ``metric`` (``"half"`` or ``"quarter"``), scrambled by
    ``scramble_min..scramble_max`` twists (default: 1 to God's number), capped at ``max_twists`` twists; the
    inverse of the last twist is legal only with ``allow_undo``."""
    if isinstance(size, bool) or size not in (2, 3):
        raise ValueError(f"size must be 2 or 3, got {size!r}")
    size = int(size)
    if metric not in METRICS:
        raise ValueError(f"metric must be 'quarter' or 'half', got {metric!r}")
    if scramble_max is None:
        scramble_max = GODS_NUMBER[(size, metric)]
    scramble_max = check_int_param("scramble_max", scramble_max, 1, MAX_SCRAMBLE)
    scramble_min = check_int_param("scramble_min", scramble_min, 1, scramble_max)
    max_twists = check_int_param("max_twists", max_twists, 1, MAX_TWISTS_LIMIT)
    if not isinstance(allow_undo, (bool, np.bool_)):
        raise ValueError(f"allow_undo must be True or False, got {allow_undo!r}")
    allow_undo = bool(allow_undo)
    p = np.array([size, METRICS.index(metric), scramble_min, scramble_max, max_twists, int(allow_undo)],
                 dtype=np.int64)
    n_cells = 14 if size == 2 else 40
    return GameSpec(
        name="rubiks_cube", version=0,
        params={"size": size, "metric": metric, "scramble_min": scramble_min, "scramble_max": scramble_max,
                "max_twists": max_twists, "allow_undo": allow_undo},
        p=p, n_players=1, n_actions=int(n_actions_of(p)), state_size=HEADER + 6 * size * size + 1,
        n_cells=n_cells, n_cell_values=7 if size == 2 else 12, obs_shape=(6, size, size), obs_high=5,
        max_plies=max_twists, reward_range=(STEP_REWARD * max_twists, SOLVED_REWARD + STEP_REWARD),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate, board=board,
        observe=observe, validate=validate, render_text=render_text, symmetries=symmetries,
        action_symmetries=action_symmetries, action_names=ACTION_NAMES[(size, metric)], truncated=truncated,
        start_params=("scramble_min", "scramble_max"),
        cell_neighbours=cell_neighbours,
        cell_colors=((60, 60, 60),) + geo.FACE_COLOURS, grid_shape=(3 * size, 4 * size), paint=paint,
    )
