"""Eligibility with a horizon (Konen & Bagheri 2020, Alg. 7), one list per player.

Instead of a trace vector over millions of weights, each player keeps the
last H states it adapted (their table indices, the action for SARSA/Q, and
σ'(ν) at that time). An update with error δ changes the newest entry with
factor 1, the one before with λ, then λ², ... up to H = h + 1 entries, where
h = floor(log_λ(horizon_cut)) (Jaśkowski's horizon; GBG keeps the same h + 1).

Each entry also records its *owner*, the player whose tables it moves. In the
player-centred learners list p holds only p's states (owner = p). The TD
chain through every ply (``LearnerConfig.td_chain = "ply"``, Thill, Bagheri,
Koch & Konen 2014, Alg. 1) keeps both players' states in list 0, each with
its owner and the sign of its value (folded into its σ'), so that one error
moves every player's recent states.

Trace variants (the names of Thill, Bagheri, Koch & Konen 2014):

===========  ==  ============================================================
``et``       0   standard: a state hit by several entries gets all of them
``res``      1   reset: a skipped update after a random move empties the lists
``rep``      2   replacing: a weight hit by several entries changes only once,
                 with the newest entry's factor
``rr``       3   reset + replacing
===========  ==  ============================================================
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from farl_agents.ntuple.network import apply_change

TRACE_MODES = {"et": 0, "res": 1, "rep": 2, "rr": 3}


def horizon_entries(lam: float, horizon_cut: float) -> int:
    """H = 1 + floor(log_λ(horizon_cut)) entries; 1 when λ = 0."""
    if not 0.0 <= lam < 1.0:
        raise ValueError(f"lambda must be in [0, 1), got {lam}")
    if lam == 0.0:
        return 1
    if not 0.0 < horizon_cut < 1.0:
        raise ValueError(f"horizon_cut must be in (0, 1), got {horizon_cut}")
    return 1 + int(math.floor(math.log(horizon_cut) / math.log(lam) + 1e-12))


class Traces(NamedTuple):
    """Per-player ring buffers of the last H adapted states."""

    idx: np.ndarray      # int64[N, H, n_sym, m]
    output: np.ndarray   # int64[N, H]   action (SARSA/Q) or 0 (TD)
    grad: np.ndarray     # float64[N, H] σ'(ν) when the entry was adapted (times -1: a state valued from the
    #                                   other side of a per-ply chain)
    owner: np.ndarray    # int64[N, H]   whose tables the entry moves
    length: np.ndarray   # int64[N]
    head: np.ndarray     # int64[N]      slot of the newest entry
    skip: np.ndarray     # bool[n_sym, m] scratch for replacing traces


def make_traces(n_players: int, entries: int, n_sym: int, m: int) -> Traces:
    return Traces(np.zeros((n_players, entries, n_sym, m), np.int64), np.zeros((n_players, entries), np.int64),
                  np.zeros((n_players, entries)), np.zeros((n_players, entries), np.int64),
                  np.zeros(n_players, np.int64), np.zeros(n_players, np.int64), np.zeros((n_sym, m), np.bool_))


@njit(cache=True, inline="always")
def clear_traces(traces):
    traces.length[:] = 0


@njit(cache=True, inline="always")
def cut_traces(traces, player, everyone):
    """After ``player``'s random move (``res`` / ``rr``): empty every player's list, or only ``player``'s."""
    if everyone:
        traces.length[:] = 0
    else:
        traces.length[player] = 0


@njit(cache=True, inline="always")
def _mark_replaced(traces, lst, slot, head, n_newer, output, q):
    """skip[j, i] = the index of entry ``slot`` of list ``lst`` at (j, i) was already changed by one of the
    ``n_newer`` entries after it (the slots ``head``, ``head - 1``, ... of the ring) with the same owner."""
    idx = traces.idx[lst, slot]
    owner = traces.owner[lst, slot]
    traces.skip[:, :] = False
    for j in range(idx.shape[0]):
        for i in range(idx.shape[1]):
            k = idx[j, i]
            for s in range(n_newer):
                ns = (head - s) % traces.idx.shape[1]
                if traces.owner[lst, ns] != owner:
                    continue
                for jj in range(idx.shape[0]):
                    if traces.idx[lst, ns, jj, i] == k and (not q or traces.output[lst, ns] == output):
                        traces.skip[j, i] = True
                        break
                if traces.skip[j, i]:
                    break


@njit(cache=True, inline="always")
def push(traces, lst, owner, output, idx, grad):
    """Make (``idx``, ``output``, ``grad``) owned by ``owner`` the newest entry of list ``lst``; returns its slot."""
    entries = traces.idx.shape[1]
    head = (traces.head[lst] + 1) % entries
    traces.head[lst] = head
    for j in range(idx.shape[0]):  # a loop, not traces.idx[lst, head] = idx: numba compiles a slice assignment's
        for i in range(idx.shape[1]):  # shape-error message (string formatting) in seconds, once per process
            traces.idx[lst, head, j, i] = idx[j, i]
    traces.output[lst, head] = output
    traces.grad[lst, head] = grad
    traces.owner[lst, head] = owner
    if traces.length[lst] < entries:
        traces.length[lst] += 1
    return head


@njit(cache=True, inline="always")
def adapt(net, traces, player, output, idx, delta, grad, alpha, lam, trace_mode, tcl_exp, tcl_beta):
    """One TD(λ) update with horizon for ``player`` (Alg. 7), on the player's own list."""
    adapt_chain(net, traces, player, player, output, idx, delta, grad, alpha, lam, trace_mode, tcl_exp, tcl_beta)


@njit(cache=True, inline="always")
def adapt_chain(net, traces, lst, owner, output, idx, delta, grad, alpha, lam, trace_mode, tcl_exp, tcl_beta):
    """One TD(λ) update with horizon on list ``lst``.

    Pushes (``idx``, ``output``, ``grad`` = σ'(ν)) owned by ``owner`` as the
    list's newest entry and moves every entry's weights (in its owner's
    tables) by α/(m·N_S) · δ · λ^age · σ'_entry.
    """
    entries = traces.idx.shape[1]
    head = push(traces, lst, owner, output, idx, grad)
    n_sym, m = idx.shape[0], idx.shape[1]
    step = alpha / (m * n_sym)
    replacing = trace_mode >= 2
    q = net.weights.shape[0] > 1
    factor = 1.0
    for age in range(traces.length[lst]):
        slot = (head - age) % entries
        out = traces.output[lst, slot]
        change = delta * factor * traces.grad[lst, slot]
        replaced = replacing and age > 0
        if replaced:
            _mark_replaced(traces, lst, slot, head, age, out, q)
        # one call site (numba inlines each site's whole body): no skips unless replacing
        apply_change(net, traces.owner[lst, slot], out, traces.idx[lst, slot], step, change, tcl_exp, tcl_beta,
                     traces.skip if replaced else traces.skip[:0])
        factor *= lam
