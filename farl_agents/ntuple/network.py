"""The n-tuple network: look-up tables over board cells, summed over symmetries.

Paper symbols (Konen & Bagheri 2020, Eq. 2-3 and Alg. 7) and their names here:

============  =====================  ==========================================
paper         here                   meaning
============  =====================  ==========================================
m             ``n_tuples``           number of n-tuples
P             ``n_values``           values a cell can take; a tuple of length
                                     n indexes a table of P**n weights
N_S           ``n_sym``              symmetric boards summed (1 = no symmetry)
σ             ``tanh_output``        output tanh ("output sigmoid") or identity
α             ``alpha``              step size; each update is scaled by
                                     α / (m · N_S)
α_i           TCL factor             per-weight step factor (TC-id / TC-EXP)
============  =====================  ==========================================

The weights are one ``float32`` array ``weights[output, player, slot]``:
one table set per *player* (V(s'|p) is the value for the player p who
produced the afterstate, "player-centred") and per *output* (1 for TD; one
per action for SARSA/Q). A board position's *index* is
``offset[i] + Σ_k cell[t_i[k]] · P**k`` for tuple ``i`` (first listed cell =
least significant digit).

Two layouts map an index to its slot:

* **dense** (the default): the slot is the index; every possible entry has
  its place from the start.
* **paged**, for tables too large to hold whole (2048's four 6-tuples over 16
  tile values are 67 million entries, 768 MiB with TCL, of which about a
  fifth are ever touched in 200,000 games): entries live in pages of
  :data:`PAGE_SIZE` consecutive indices, and ``page_of[index // PAGE_SIZE]``
  says where a page sits in ``weights`` (0: never written). A page gets its
  place, in order of first write, when :func:`apply_change` first writes one
  of its entries; reading an entry of a page never written reads page 0, which
  stays at the initial values (weight 0, TCL accumulators at their start).
  The arrays are allocated at full size but zero-filled lazily by the
  operating system, so memory is only spent on the pages handed out (and on
  the parts of ``page_of`` that were written). Same arithmetic, same order:
  both layouts learn the same floats (``tests/test_paged_tables.py``).

Everything that touches the weights is an ``@njit`` function over plain
arrays bundled in the :class:`Net` named tuple, so the compiled self-play
loops and the Python AEC path call exactly the same code and produce the same
floats. The functions are inlined into their compiled callers
(``inline="always"``): a call that passes the ``Net`` tuple as arguments
costs more than the table work of a small network.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class Net(NamedTuple):
    """All arrays of one n-tuple network (see the module docstring)."""

    weights: np.ndarray
    """float32[n_outputs, n_sets, lut_size]: one weight set per player (per (valuer, maker) pair on TD's per-ply
    chain with three or more players, ``LearnerConfig.weight_sets``)"""
    tcl_n: np.ndarray
    """float32 like ``weights``: TCL sum of recommended changes N_i (empty without TCL)"""
    tcl_a: np.ndarray
    """float32 like ``weights``: TCL sum of their absolute values A_i (empty without TCL)"""
    sym_cells: np.ndarray
    """int32[n_sym, m, n]: board cell read by digit k of tuple i on symmetric board j"""
    powers: np.ndarray
    """int64[n]: P**k"""
    offsets: np.ndarray
    """int64[m]: start of tuple i's table inside ``lut_size``"""
    action_sym: np.ndarray
    """int32[n_sym, n_actions]: action on symmetric board j equivalent to action a"""
    cell_uses: np.ndarray
    """int64[n_cells, max_uses, 3]: every (symmetric board j, tuple i, P**k) that reads a cell"""
    cell_use_count: np.ndarray
    """int64[n_cells]: how many rows of ``cell_uses`` are filled"""
    page_of: np.ndarray
    """int32[ceil(lut_size / PAGE_SIZE)]: paged layout, the page number of each index page (0: none yet); empty
    for the dense layout"""
    pages_used: np.ndarray
    """int64[1]: paged layout, how many pages have been handed out (page 0 not counted)"""
    lut_size: np.ndarray
    """int64[1]: the number of distinct indices, ``m * P**n``"""


PAGE_SIZE = 4
"""Indices per page of the paged layout. Measured on a 2048 agent after 200,000 paper-preset games (22.7 % of
its entries written): pages of 2, 4, 8, 16 indices would need 345, 332, 355, 408 MiB with the page table, against
768 MiB dense (``benchmarks/table_memory.py``, ``docs/results/table_memory.md``)."""
PAGE_BITS = 2
assert 1 << PAGE_BITS == PAGE_SIZE


def build_net(tuples: np.ndarray, n_values: int, n_players: int, n_outputs: int,
              cell_symmetries: np.ndarray, action_symmetries: np.ndarray, use_symmetry: bool,
              tcl: bool, tcl_init: float, paged: bool = False) -> Net:
    """Allocate a zero-initialised network (GBG and the paper start all weights at 0).

    Args:
        tuples: ``int[m, n]`` cell lists (all tuples have the same length n).
        n_values: P, the number of values a cell can take.
        cell_symmetries: ``int[n_sym, n_cells]`` permutations, row 0 the identity.
        action_symmetries: ``int[n_sym, n_actions]``, matching ``cell_symmetries``.
        use_symmetry: False keeps only the identity (N_S = 1).
        tcl: allocate the TCL accumulators, both starting at ``tcl_init``.
        paged: the paged layout (module docstring): memory grows with the entries written.
    """
    tuples = np.asarray(tuples, dtype=np.int64)
    if tuples.ndim != 2 or tuples.shape[0] == 0 or tuples.shape[1] == 0:
        raise ValueError("tuples must be a non-empty 2-D array [n_tuples, length]")
    m, n = tuples.shape
    if float(n_values) ** n > 2**31:
        raise ValueError(f"a {n}-tuple over {n_values} values needs {n_values}**{n} weights: too many")
    perms = np.asarray(cell_symmetries, dtype=np.int64)
    acts = np.asarray(action_symmetries, dtype=np.int64)
    if tuples.min() < 0 or tuples.max() >= perms.shape[1]:
        raise ValueError(f"tuple cells must be in 0..{perms.shape[1] - 1}")
    if not use_symmetry:
        perms, acts = perms[:1], acts[:1]
    sym_cells = np.ascontiguousarray(perms[:, tuples], dtype=np.int32)  # [n_sym, m, n]; C order: one compiled type
    powers = n_values ** np.arange(n, dtype=np.int64)
    offsets = np.arange(m, dtype=np.int64) * int(n_values) ** n
    lut = m * int(n_values) ** n
    if paged:
        page_of = np.zeros(-(-lut // PAGE_SIZE), dtype=np.int32)  # zero-filled by the OS as it is touched
        slots = (page_of.size + 1) * PAGE_SIZE  # page 0 first: what a page never written reads
    else:
        page_of = np.zeros(0, dtype=np.int32)
        slots = lut
    if tcl:
        # w, N and A of one entry side by side: an update touches one cache line, not three
        table = np.zeros((n_outputs, n_players, slots, 3), dtype=np.float32)
        if paged:  # only page 0 holds the starting accumulators; a page copies them when handed out
            table[:, :, :PAGE_SIZE, 1:] = tcl_init
        else:
            table[..., 1:] = tcl_init
        weights, tcl_n, tcl_a = table[..., 0], table[..., 1], table[..., 2]
    else:
        weights = np.zeros((n_outputs, n_players, slots), dtype=np.float32)
        tcl_n = np.zeros((0, 0, 0), dtype=np.float32)
        tcl_a = np.zeros((0, 0, 0), dtype=np.float32)
    uses = [[] for _ in range(perms.shape[1])]
    for j in range(sym_cells.shape[0]):
        for i in range(m):
            for k in range(n):
                uses[sym_cells[j, i, k]].append((j, i, powers[k]))
    width = max(1, max(len(u) for u in uses))
    cell_uses = np.zeros((perms.shape[1], width, 3), dtype=np.int64)
    for c, u in enumerate(uses):
        if u:
            cell_uses[c, : len(u)] = u
    cell_use_count = np.array([len(u) for u in uses], dtype=np.int64)
    action_sym = np.ascontiguousarray(acts, dtype=np.int32)  # C order whatever the game built: one compiled type
    return Net(weights, tcl_n, tcl_a, sym_cells, powers, offsets, action_sym, cell_uses, cell_use_count, page_of,
               np.zeros(1, dtype=np.int64), np.array([lut], dtype=np.int64))


@njit(cache=True, inline="always")
def board_indices(net, board, out):
    """Fill ``out`` (``int64[n_sym, m]``) with the table index of every tuple on every symmetric board."""
    sc = net.sym_cells
    for j in range(sc.shape[0]):
        for i in range(sc.shape[1]):
            k = net.offsets[i]
            for d in range(sc.shape[2]):
                k += board[sc[j, i, d]] * net.powers[d]
            out[j, i] = k


@njit(cache=True, inline="always")
def board_indices_from(net, base_board, base_idx, board, out):
    """Like :func:`board_indices`, but starting from a board whose indices are known.

    Only the tuples that read a cell where ``board`` differs from
    ``base_board`` are touched, so an afterstate (one or two changed cells)
    costs a fraction of a full computation. Integer arithmetic: the result is
    exactly that of :func:`board_indices`.
    """
    for j in range(out.shape[0]):  # element by element: a slice assignment checks overlap and broadcasting
        for i in range(out.shape[1]):
            out[j, i] = base_idx[j, i]
    for c in range(board.shape[0]):
        diff = board[c] - base_board[c]
        if diff != 0:
            for u in range(net.cell_use_count[c]):
                out[net.cell_uses[c, u, 0], net.cell_uses[c, u, 1]] += diff * net.cell_uses[c, u, 2]


@njit(cache=True, inline="always")
def read_slot(net, k):
    """Where index ``k``'s entry is read: ``k`` itself (dense), or its place in its page (page 0 if never written)."""
    if net.page_of.shape[0] == 0:
        return k
    return (np.int64(net.page_of[k >> PAGE_BITS]) << PAGE_BITS) | (k & (PAGE_SIZE - 1))


@njit(cache=True, inline="always")
def one_layout(net):
    """``net`` with its three tables typed as strided arrays (numba's layout ``A``), whatever their layout.

    A net with TCL holds its weights, N and A interleaved (strided views of one array), a net without TCL holds
    plain contiguous weights: two numba types. The compiled self-play loops take their net through this, so each
    game's loop is compiled once for both (a thin outer function per type calls it); the slices are views of
    the same memory.
    """
    return Net(net.weights[:, :, 0:], net.tcl_n[:, :, 0:], net.tcl_a[:, :, 0:], net.sym_cells, net.powers,
               net.offsets, net.action_sym, net.cell_uses, net.cell_use_count, net.page_of, net.pages_used,
               net.lut_size)


@njit(cache=True, inline="always")
def write_slot(net, k):
    """Where index ``k``'s entry is written; the paged layout hands out its page first if it has none.

    A new page starts as a copy of page 0 (weight 0, TCL accumulators at their start) for every output and
    player, so the first write finds exactly what a dense table would hold.
    """
    if net.page_of.shape[0] == 0:
        return k
    q = k >> PAGE_BITS
    page = np.int64(net.page_of[q])
    if page == 0:
        net.pages_used[0] += 1
        page = net.pages_used[0]
        net.page_of[q] = page
        start = page << PAGE_BITS
        tcl = net.tcl_n.shape[0] > 0
        for o in range(net.weights.shape[0]):
            for p in range(net.weights.shape[1]):
                for d in range(PAGE_SIZE):
                    net.weights[o, p, start + d] = net.weights[o, p, d]
                    if tcl:
                        net.tcl_n[o, p, start + d] = net.tcl_n[o, p, d]
                        net.tcl_a[o, p, start + d] = net.tcl_a[o, p, d]
    return (page << PAGE_BITS) | (k & (PAGE_SIZE - 1))


@njit(cache=True, inline="always")
def raw_value(net, player, output, idx):
    """ν: the weight sum over tuples and symmetric boards (TD: ``output`` 0).

    For SARSA/Q pass ``output = action``: symmetric board j reads the table of
    the equivalent action ``action_sym[j, action]``.
    """
    total = 0.0
    q = net.weights.shape[0] > 1
    for j in range(idx.shape[0]):
        o = net.action_sym[j, output] if q else 0
        for i in range(idx.shape[1]):
            total += net.weights[o, player, read_slot(net, idx[j, i])]
    return total


@njit(cache=True, inline="always")
def squash(nu, tanh_output):
    """σ(ν): tanh or identity."""
    return np.tanh(nu) if tanh_output else nu


@njit(cache=True, inline="always")
def value(net, player, output, idx, tanh_output):
    """V (or Q) = σ(ν) of a board given by its indices."""
    return squash(raw_value(net, player, output, idx), tanh_output)


@njit(cache=True, inline="always")
def apply_change(net, player, output, idx, step, change, tcl_exp, tcl_beta, skip):
    """Move the weights of one board by ``change`` ("recommended weight change").

    ``step`` = α / (m · N_S). Each table entry changes at most once even when
    several symmetric boards hit it (index inhibition, Alg. 7). With TCL (the
    accumulators are non-empty) each visit first reads the entry's factor
    α_i = |N|/A (TC-id) or exp(β(|N|/A − 1)) (TC-EXP) and then accumulates
    N += change, A += |change|; like GBG, a duplicate visit accumulates too.
    ``skip`` (``bool[n_sym, m]``, or with 0 rows for none) leaves out the
    marked (board, tuple) pairs (replacing traces).
    """
    tcl = net.tcl_n.shape[0] > 0
    q = net.weights.shape[0] > 1
    skipping = skip.shape[0] > 0
    n_sym = idx.shape[0]
    for i in range(idx.shape[1]):
        for j in range(n_sym):
            if skipping and skip[j, i]:
                continue
            k = idx[j, i]
            o = net.action_sym[j, output] if q else 0
            duplicate = False
            for jj in range(j):
                oo = net.action_sym[jj, output] if q else 0
                if idx[jj, i] == k and oo == o:
                    duplicate = True
                    break
            factor = 1.0
            at = write_slot(net, k)
            if tcl:
                if not duplicate:  # a duplicate's factor would go unused: no exp for it
                    ratio = abs(net.tcl_n[o, player, at]) / net.tcl_a[o, player, at]
                    if tcl_exp:
                        # exp(β · 0) is exactly 1: the entries whose changes all had one sign (and new ones) skip exp
                        factor = 1.0 if ratio == 1.0 else np.exp(tcl_beta * (ratio - 1.0))
                    else:
                        factor = ratio
                net.tcl_n[o, player, at] += change
                net.tcl_a[o, player, at] += abs(change)
            if not duplicate:
                net.weights[o, player, at] += step * change * factor


# ----------------------------------------------------------------------------
# Whole tables from Python: the entries as indices, whatever the layout
# ----------------------------------------------------------------------------
def is_paged(net: Net) -> bool:
    return net.page_of.size > 0


def lut_size(net: Net) -> int:
    """Entries per output and player: the number of distinct indices (``m * P**n``)."""
    return int(net.lut_size[0])


def written(net: Net) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, slots)`` of the entries of a paged network's pages handed out, in index order (a dense network
    has every entry at its own index)."""
    lut = lut_size(net)
    q = np.flatnonzero(net.page_of)
    offsets = np.arange(PAGE_SIZE, dtype=np.int64)
    keys = (q[:, None].astype(np.int64) * PAGE_SIZE + offsets).ravel()
    slots = (net.page_of[q][:, None].astype(np.int64) * PAGE_SIZE + offsets).ravel()
    inside = keys < lut  # the last page may reach past the table
    return keys[inside], slots[inside]


def slots_of(net: Net, keys: np.ndarray) -> np.ndarray:
    """Where the entries of the indices ``keys`` are read (:func:`read_slot` on an array)."""
    keys = np.asarray(keys, dtype=np.int64)
    if not is_paged(net):
        return keys
    return (net.page_of[keys >> PAGE_BITS].astype(np.int64) << PAGE_BITS) | (keys & (PAGE_SIZE - 1))


def as_dense(net: Net, table: np.ndarray) -> np.ndarray:
    """``table`` (``net.weights``, ``tcl_n`` or ``tcl_a``) indexed by index: the array itself (dense), or a new
    ``float32[outputs, players, lut_size]`` array (paged; entries never written hold page 0's value)."""
    if not is_paged(net):
        return table
    out = np.empty(table.shape[:2] + (lut_size(net),), dtype=np.float32)
    out[...] = table[:, :, :1]
    keys, slots = written(net)
    out[:, :, keys] = table[:, :, slots]
    return out


def stored_bytes(net: Net) -> int:
    """The bytes of the tables that hold entries: all of them (dense); the pages handed out, page 0 and the
    page table (paged; the table's untouched parts actually take none)."""
    per_entry = 12 if net.tcl_n.size else 4
    rows = net.weights.shape[0] * net.weights.shape[1]
    if not is_paged(net):
        return rows * net.weights.shape[2] * per_entry
    return rows * (int(net.pages_used[0]) + 1) * PAGE_SIZE * per_entry + net.page_of.nbytes


@njit(cache=True)
def _places(net, keys, out):
    for i in range(keys.shape[0]):
        out[i] = write_slot(net, keys[i])


STORE_CHUNK = 1 << 20


def store(net: Net, table: np.ndarray, positions: np.ndarray, values: np.ndarray) -> None:
    """Set the entries at ``positions`` (flat positions over ``[outputs, players, lut_size]``) of ``table``
    (``net.weights``, ``tcl_n`` or ``tcl_a``) to ``values``; the paged layout hands out their pages first."""
    lut = lut_size(net)
    positions = np.asarray(positions, dtype=np.int64)
    for start in range(0, positions.size, STORE_CHUNK):  # in chunks: a few small index arrays at a time
        part = positions[start:start + STORE_CHUNK]
        keys = part % lut
        rows = part // lut
        if is_paged(net):
            slots = np.empty_like(keys)
            _places(net, keys, slots)
        else:
            slots = keys
        table[rows // table.shape[1], rows % table.shape[1], slots] = values[start:start + STORE_CHUNK]


def n_sym(net: Net) -> int:
    return int(net.sym_cells.shape[0])


def n_tuples(net: Net) -> int:
    return int(net.sym_cells.shape[1])
