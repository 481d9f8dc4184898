"""GBG's boards in farl's terms: cells, cell values, positions, and a GBG n-tuple network as a farl network.

Pure Python and numpy (no Java): :mod:`studies.gbg_agents.gbg_agents` runs GBG's loader and hands the plain data
it wrote to :func:`farl_agent`. The facts carried over from GBG (its layouts and codings, read in GBG's
``XNTupleFuncs*`` and ``StateObserver*`` classes; no GBG code is copied):

===========  ==================================================  ==========================================
game         GBG's board vector                                  farl's n-tuple board
===========  ==================================================  ==========================================
Sim K_n      one cell per edge (i, j), i < j, lexicographic      the same order; the same values
             order; 0 uncoloured, 1 + player
Yavalath     the hexagon's cells row by row from the top, left   the same order (GBG's tile (x, y) of the
             to right; 0 empty, 1 + player                       9x9 array with |y - x| < 5 is farl's (r, c)
                                                                 = (x, y - x + 4)); the same values
EWN          the squares row by row (``size * size``); coding    the same squares; values ``(b + 1) mod P``:
             0: player k -> k; coding 1: ``3k + g`` with g the   farl puts "empty" first (0), GBG last
             token's group (values 0-1, 2-3, 4-5); "empty" is
             the last value (P - 1)
===========  ==================================================  ==========================================

A GBG n-tuple's look-up table index is ``sum_k board[t_k] * Q_k`` with ``Q_k`` the product of the radices of the
digits before k (``NTuple2``: every radix is P; ``NTuple4``: the radix of each cell), first cell lowest, as farl
does with one radix P for every cell. So a GBG table maps entry by entry onto a farl table: the digits stay in
place, each digit's value goes through the value map. farl's tuples must be equally long; a shorter GBG tuple
is padded with copies of its last cell, whose digits then repeat that cell's value (the other entries of the
padded table are never read and stay 0). GBG's table of player p becomes ``weights[0, p]``.
"""
from __future__ import annotations

import numpy as np

import farl_envs
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec


# ------------------------------------------------------------------ cells and values
def yavalath_gbg_tiles(size: int) -> list[tuple[int, int]]:
    """GBG's Yavalath tiles ``(x, y)`` in board-vector order: the ``(2 size - 1)^2`` array row by row, keeping
    the tiles with ``|y - x| < size``."""
    m = 2 * size - 1
    return [(x, y) for x in range(m) for y in range(m) if abs(y - x) < size]


def yavalath_tile_to_farl(size: int, x: int, y: int) -> tuple[int, int]:
    """farl's ``(r, c)`` of GBG's tile ``(x, y)``: the same row, ``c = y - x + size - 1`` (GBG's tiles lean the
    other way in the array; the neighbours match: GBG's (x-1, y-1), (x-1, y), (x, y+1) are farl's (r-1, c),
    (r-1, c+1), (r, c+1))."""
    return x, y - x + size - 1


def cell_map(game: GameSpec) -> np.ndarray:
    """``int[n_cells]``: farl's n-tuple cell of each GBG board-vector cell."""
    if game.name == "sim" or game.name == "einstein_wurfelt_nicht":
        return np.arange(game.n_cells)
    if game.name == "yavalath":
        from farl_envs.games.yavalath import cell_coords

        size = game.params["size"]
        index = {rc: i for i, rc in enumerate(cell_coords(size))}
        return np.array([index[yavalath_tile_to_farl(size, x, y)] for x, y in yavalath_gbg_tiles(size)])
    raise ValueError(f"no GBG mapping for {game.name}")


def value_map(game: GameSpec, gbg_values: int) -> np.ndarray:
    """``int[gbg_values]``: farl's cell value of each GBG board-vector value."""
    if gbg_values != game.n_cell_values:
        raise ValueError(f"GBG codes {gbg_values} cell values, farl's {game.id} {game.params} {game.n_cell_values}")
    if game.name in ("sim", "yavalath"):
        return np.arange(gbg_values)
    if game.name == "einstein_wurfelt_nicht":
        return (np.arange(gbg_values) + 1) % gbg_values  # GBG's "empty" is its last value, farl's is 0
    raise ValueError(f"no GBG mapping for {game.name}")


# ------------------------------------------------------------------ positions
def farl_state(game: GameSpec, raw: dict, mover: int) -> np.ndarray:
    """farl's kernel state of a position given by GBG's state object (the exporter's ``state``: Sim's edge
    owners, Yavalath's tiles, EWN's squares), ``mover`` having just moved. Only what the n-tuple board reads is
    exact (the cells); the header says the next player is to move and the game goes on."""
    s = game.initial_state(game.p, make_rng(0)).copy()
    n = game.params.get("players", 2)
    if game.name == "sim":
        edges = np.asarray(raw["edges"])  # 0 uncoloured, 1 + player: farl's cell values
        s[HEADER:HEADER + edges.size] = edges
        s[PLY] = int(np.count_nonzero(edges))
    elif game.name == "yavalath":
        size = game.params["size"]
        cells = np.zeros(game.n_cells, dtype=np.int64)
        order = {rc: i for i, rc in enumerate(_yavalath_coords(size))}
        for x, y, player in raw["tiles"]:
            cells[order[yavalath_tile_to_farl(size, x, y)]] = player + 1  # GBG: -1 empty, else the player
        s[HEADER:HEADER + cells.size] = cells
        s[PLY] = int(np.count_nonzero(cells)) + (1 if raw.get("swap_used") else 0)
    elif game.name == "einstein_wurfelt_nicht":
        from farl_envs.games.einstein_wurfelt_nicht import CELLS, ROLL

        k = 6 if game.params["size"] >= 5 else 3
        for i, (player, number) in enumerate(raw["squares"]):  # GBG: player -1 empty; numbers 0..K-1
            s[CELLS + i] = 0 if player < 0 else 1 + k * player + number
        s[ROLL] = 0  # an afterstate: the next roll not yet thrown
    else:
        raise ValueError(f"no GBG mapping for {game.name}")
    s[TO_MOVE] = (mover + 1) % n
    s[TERMINAL] = 0
    return s


def _yavalath_coords(size: int):
    from farl_envs.games.yavalath import cell_coords

    return cell_coords(size)


def farl_board(game: GameSpec, state: np.ndarray) -> np.ndarray:
    """farl's n-tuple board of a kernel state (``GameSpec.board``)."""
    out = np.zeros(game.n_cells, dtype=np.int32)
    game.board(game.p, state, out)
    return out


# ------------------------------------------------------------------ networks
def symmetry_perms_match(game: GameSpec, gbg_perms: np.ndarray) -> bool:
    """True when GBG's symmetric boards (``gbg_perms[j]``: board vector j reads GBG cell ``gbg_perms[j, i]`` at
    cell i) are farl's, as a set, once the cells are mapped. Both sum the tables over the whole set, so the order
    does not matter."""
    cmap = cell_map(game)
    inverse = np.argsort(cmap)
    # GBG's board j at farl cell cmap[i] holds GBG cell gbg_perms[j, i], i.e. farl cell cmap[gbg_perms[j, i]]
    mapped = np.zeros_like(gbg_perms)
    for j, perm in enumerate(np.asarray(gbg_perms)):
        mapped[j] = cmap[perm[inverse]]
    ours = {tuple(r) for r in np.asarray(game.symmetries(game.p))}
    theirs = {tuple(int(c) for c in r) for r in mapped}
    return len(theirs) == len(mapped) and ours == theirs


def farl_tuples(game: GameSpec, tuples: list) -> np.ndarray:
    """``int[m, n]``: GBG's tuples in farl's cells, each padded to the longest with copies of its last cell."""
    cmap = cell_map(game)
    n = max(len(t) for t in tuples)
    return np.array([[int(cmap[c]) for c in t] + [int(cmap[t[-1]])] * (n - len(t)) for t in tuples], dtype=np.int64)


def gbg_value_of(game: GameSpec, gbg_values: int, coding: str = "today") -> np.ndarray:
    """``int[P]``: the GBG board-vector value of each farl cell value (the inverse of :func:`value_map`).

    ``coding="2021"``: EWN's cell coding 1 as GBG wrote it in October 2021, when the stored 5x5 "G-0-1-2" agents
    were saved (an empty square N = 2, a token of player k with value v = 0..5 ``3k + (0 if v < 3 else 1 if
    v < 4 else 2)``); it is read off farl's ``cell_coding=2`` board (``1 + 6k + v``), which tells every token
    apart. Several farl values share one GBG value there (the empty square and player 0's values 4 and 5 all
    read 2), so the map goes this way round.
    """
    if coding == "today":
        vmap = value_map(game, gbg_values)
        out = np.zeros(game.n_cell_values, dtype=np.int64)
        out[vmap] = np.arange(gbg_values)
        return out
    if coding == "2021" and game.name == "einstein_wurfelt_nicht" and game.params["cell_coding"] == 2 \
            and game.params["size"] >= 5:
        n = game.params["players"]
        if gbg_values != 3 * n + 1:
            raise ValueError(f"GBG's 2021 coding 1 has {3 * n + 1} values, the export {gbg_values}")
        out = np.zeros(game.n_cell_values, dtype=np.int64)
        out[0] = n
        for v in range(1, game.n_cell_values):
            player, value = divmod(v - 1, 6)
            out[v] = 3 * player + (0 if value < 3 else 1 if value < 4 else 2)
        return out
    raise ValueError(f"no GBG coding {coding!r} for {game.id} {game.params}")


def converted_tables(game: GameSpec, tuples: list, radix: list, luts: list, coding: str = "today"):
    """GBG's tables in farl's index space, tuple by tuple: yields ``(i, weights float64[players, P**n])``.

    Every farl index of tuple i is read digit by digit (farl's cell values), each digit mapped to GBG's value
    (:func:`gbg_value_of`) and the GBG index formed with GBG's radices; the padded digits (:func:`farl_tuples`)
    must repeat the last real digit, or the entry is one no board can reach and stays 0.
    """
    big_p = game.n_cell_values
    n = farl_tuples(game, tuples).shape[1]
    gval = gbg_value_of(game, max(max(r) for r in radix), coding)
    index = np.arange(big_p ** n, dtype=np.int64)
    digits = [(index // big_p ** k) % big_p for k in range(n)]
    for i, rad in enumerate(radix):
        length = len(rad)
        reachable = np.ones(index.size, dtype=bool)
        for k in range(length, n):
            reachable &= digits[k] == digits[length - 1]
        gbg_index = np.zeros(index.size, dtype=np.int64)
        place = 1
        for k in range(length):
            values = gval[digits[k]]
            if values.max() >= rad[k]:
                raise ValueError(f"tuple {i} digit {k}: GBG value {values.max()} beyond its radix {rad[k]}")
            gbg_index += values * place
            place *= int(rad[k])
        weights = np.zeros((len(luts), index.size))
        for p, tables in enumerate(luts):
            lut = np.asarray(tables[i], dtype=np.float64)
            if lut.size != place:
                raise ValueError(f"tuple {i}: table of {lut.size} entries, its radices give {place}")
            weights[p] = np.where(reachable, lut[gbg_index], 0.0)
        yield i, weights


def convert_tables(game: GameSpec, tuples: list, radix: list, luts: list, coding: str = "today"):
    """``(tuples int[m, n], weights float64[players, m * P**n])``: :func:`converted_tables` in one array (small
    networks; :func:`farl_agent` stores large ones tuple by tuple)."""
    parts = [w for _, w in converted_tables(game, tuples, radix, luts, coding)]
    return farl_tuples(game, tuples), np.concatenate(parts, axis=1)


def farl_agent(game: GameSpec, export: dict, luts: list, use_symmetry: bool, coding: str = "today"):
    """A farl :class:`~farl_agents.learners.NTupleAgent` holding GBG's tuples and tables (player p's tables in
    ``weights[0, p]``), with GBG's output (tanh or none); the learner settings are GBG's where farl has them.
    Large networks get farl's paged layout (only the entries GBG's tables set are stored)."""
    from farl_agents.learners import LearnerConfig, NTupleAgent
    from farl_agents.ntuple import network

    tuples = farl_tuples(game, export["tuples"])
    final = export["alpha_final"] if export["alpha_final"] > 0 else None
    cfg = LearnerConfig(
        tanh_output=bool(export["sigmoid"]), use_symmetry=use_symmetry, ntuples="explicit",
        ntuple_cells=tuple(tuple(int(c) for c in t) for t in tuples), ntuple_count=len(tuples),
        ntuple_length=tuples.shape[1], alpha=float(export["alpha"]), alpha_final=final,
        epsilon=float(export["epsilon"]), epsilon_final=float(export["epsilon_final"]),
        lam=float(export["lambda"]), gamma=float(export["gamma"]), episodes=max(1, int(export["game_num"])))
    # no TCL accumulators: the imported agent plays, it is not trained on
    agent = NTupleAgent(game, cfg, tuples=tuples)
    lut = network.lut_size(agent.net)
    size = lut // len(tuples)
    for i, weights in converted_tables(game, export["tuples"], export["radix"], luts, coding):
        for p in range(weights.shape[0]):
            at = np.flatnonzero(weights[p])
            network.store(agent.net, agent.net.weights, p * lut + i * size + at, weights[p, at].astype(np.float32))
    agent.episodes_done = int(export["game_num"])
    return agent


def game_of(name: str, params: dict) -> GameSpec:
    return farl_envs.game_spec(name, **params)
