"""The Rubik's cube's geometry without its rules: facelet numbering, the twists as permutations, the cubie slots
of the sticker encoding, the net drawing (:mod:`farl_envs.games.rubiks_cube` holds the rules).

Everything is computed once at import from 3-D coordinates, so no twist is written out by hand. A cube of size
``n`` (2 or 3) has its cubies at coordinates ``-(n-1), -(n-3), ..., n-1`` on each axis (x towards R, y towards U,
z towards F); a facelet is the point ``cubie + normal``, which lies at ``±n`` on its face's axis, so the point
names the facelet. A clockwise quarter twist of the face with outward normal ``a`` (clockwise as seen looking
at that face) turns every facelet point ``v`` with ``v·a >= n-1`` (the face's layer) into ``a(a·v) - a×v``.

Facelet ``f * n*n + row * n + col`` is on face ``f`` in the order of :data:`FACES` (U, L, F, D, R, B, GBG's
order), each face seen from outside as in the net::

          U
        L F R B
          D

(U with its top row next to B, D with its top row next to F, the side faces with their top row next to U).
"""
from __future__ import annotations

import numpy as np

FACES = "ULFDRB"
#: outward normal of each face (x: R, y: U, z: F)
NORMALS = np.array([(0, 1, 0), (-1, 0, 0), (0, 0, 1), (0, -1, 0), (1, 0, 0), (0, 0, -1)], dtype=np.int64)
#: where each face's top-left corner sits in the net, in facelets (column, row) per unit of n
NET_ORIGIN = {"U": (1, 0), "L": (0, 1), "F": (1, 1), "R": (2, 1), "B": (3, 1), "D": (1, 2)}
#: Kociemba's corner slots (their faces in clockwise order seen from outside, the U/D facelet first)
CORNERS = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
#: Kociemba's edge slots (the reference facelet first: U/D, or F/B for the four middle-layer edges)
EDGES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")


def _coord(n: int, k: int) -> int:
    return -(n - 1) + 2 * k


def facelet_points(n: int) -> np.ndarray:
    """``int64[6n², 3]``: the point of every facelet (see the module docstring for the numbering)."""
    pts = np.zeros((6 * n * n, 3), dtype=np.int64)
    for f, face in enumerate(FACES):
        for r in range(n):
            for c in range(n):
                cr, cc = _coord(n, r), _coord(n, c)
                x, y, z = {"U": (cc, n, cr), "D": (cc, -n, -cr), "F": (cc, -cr, n), "B": (-cc, -cr, -n),
                           "R": (n, -cr, -cc), "L": (-n, -cr, cc)}[face]
                pts[f * n * n + r * n + c] = (x, y, z)
    return pts


def _index(n: int) -> dict:
    return {tuple(int(v) for v in p): i for i, p in enumerate(facelet_points(n))}


def quarter_twist(n: int, face: int) -> np.ndarray:
    """``int64[6n²]``: where the sticker at each facelet goes under a clockwise quarter twist of ``face``."""
    pts, where, a = facelet_points(n), _index(n), NORMALS[face]
    to = np.arange(len(pts), dtype=np.int64)
    for i, v in enumerate(pts):
        if v @ a >= n - 1:
            w = a * (a @ v) - np.cross(a, v)
            to[i] = where[tuple(int(x) for x in w)]
    return to


def twist_cycles(to: np.ndarray) -> list[list[int]]:
    """The cycles of the move ``to`` (sticker at ``c[j]`` goes to ``c[j+1]``), fixed facelets left out."""
    seen, cycles = set(), []
    for i in range(len(to)):
        if i in seen or to[i] == i:
            continue
        cyc, j = [], i
        while j not in seen:
            seen.add(j)
            cyc.append(j)
            j = int(to[j])
        cycles.append(cyc)
    return cycles


def _facelet(n: int, cubie: tuple, face: str) -> int:
    """The facelet of the cubie at ``cubie`` (coordinates) on ``face``."""
    normal = NORMALS[FACES.index(face)]
    return _index(n)[tuple(int(v) for v in np.asarray(cubie) + normal)]


def _position(n: int, faces: str) -> tuple:
    """The coordinates of the corner or edge cubie touching ``faces`` (0 on the other axes)."""
    pos = np.zeros(3, dtype=np.int64)
    for face in faces:
        pos += NORMALS[FACES.index(face)] * (n - 1)
    return tuple(int(v) for v in pos)


def corner_facelets(n: int) -> np.ndarray:
    """``int64[8, 3]``: the facelets of each corner slot of :data:`CORNERS`, in the slot's facelet order."""
    return np.array([[_facelet(n, _position(n, c), f) for f in c] for c in CORNERS], dtype=np.int64)


def edge_facelets() -> np.ndarray:
    """``int64[12, 2]``: the facelets of each edge slot of :data:`EDGES` (3x3x3 only)."""
    return np.array([[_facelet(3, _position(3, e), f) for f in e] for e in EDGES], dtype=np.int64)


def net_cells(n: int) -> list[list[int]]:
    """``[x, y]`` of every facelet in the net (facelet units, x right, y down)."""
    cells = []
    for face in FACES:
        ox, oy = NET_ORIGIN[face]
        for r in range(n):
            for c in range(n):
                cells.append([ox * n + c, oy * n + r])
    return cells


def cubies(n: int, stickers) -> tuple:
    """``(cp, co, ep, eo)`` of the cube of size ``n`` with sticker ``stickers[facelet]`` on each facelet, per
    slot: the cubie in it (numbered by its home slot) and its twist or flip (which facelet of the slot holds the
    cubie's reference sticker); ``ep``/``eo`` empty for the 2x2x2. Raises ``ValueError`` when a slot's stickers
    are not the stickers of one cubie in their cyclic order."""
    out = []
    groups = [corner_facelets(n)] + ([edge_facelets()] if n == 3 else [])
    for facelets in groups:
        k = facelets.shape[1]
        home = {int(f): (c, i) for c, row in enumerate(facelets) for i, f in enumerate(row)}
        perm, ori = np.zeros(len(facelets), dtype=np.int64), np.zeros(len(facelets), dtype=np.int64)
        for slot, row in enumerate(facelets):
            found = [home.get(int(stickers[f]), (-1, -1)) for f in row]
            cubie, first = found[0]
            if cubie < 0 or any(found[i] != (cubie, (first + i) % k) for i in range(k)):
                raise ValueError(f"the stickers of slot {slot} are not one cubie's in their cyclic order")
            perm[slot], ori[slot] = cubie, (-first) % k
        out += [perm, ori]
    if n == 2:
        out += [np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)]
    return tuple(out)


def stickers(n: int, cp, co, ep=(), eo=()) -> np.ndarray:
    """The stickers of the cube with cubie ``cp[slot]`` in each corner slot twisted by ``co[slot]`` (and
    ``ep``/``eo`` for the 3x3x3 edges), the inverse of :func:`cubies` (no reachability check: the rules'
    ``validate`` does that)."""
    s = np.arange(6 * n * n, dtype=np.int32)
    groups = [(corner_facelets(n), cp, co)] + ([(edge_facelets(), ep, eo)] if n == 3 else [])
    for facelets, perm, ori in groups:
        k = facelets.shape[1]
        for slot in range(len(perm)):
            for i in range(k):
                s[facelets[slot, (i + int(ori[slot])) % k]] = facelets[int(perm[slot]), i]
    return s


def parity(perm) -> int:
    """1 for an odd permutation, 0 for an even one."""
    perm, seen, odd = [int(v) for v in perm], set(), 0
    for i in range(len(perm)):
        j, length = i, 0
        while j not in seen:
            seen.add(j)
            j, length = perm[j], length + 1
        odd ^= (length > 0 and length % 2 == 0)
    return int(odd)


#: GBG's colours of the faces U, L, F, D, R, B: white, blue, orange, yellow, green, red
FACE_COLOURS = ((245, 245, 245), (30, 90, 220), (255, 140, 0), (250, 215, 0), (20, 160, 60), (200, 20, 30))
