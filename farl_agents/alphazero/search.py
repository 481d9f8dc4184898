"""Batched PUCT for AlphaZero: one search tree per game, every tree's leaf evaluated in one network call.

A simulation step runs over a batch of ``B`` trees (one per self-play game, or one for a harness move):

1. :func:`select_leaves` (compiled): in every tree, descend from the root by the PUCT rule to a position not
   yet expanded, or to the end of the game; write the leaf's observation (its mover's view, the game's own
   ``observe`` kernel), its legal actions and its mover;
2. the caller evaluates all the leaves in **one** network call: policy logits and a value per player;
3. :func:`expand_and_backup` (compiled): priors = the softmax of the logits over the leaf's legal actions
   (at a root, mixed with Dirichlet noise when given), and the leaf's value vector backed up the path.

Selection at a position with mover ``m`` takes the legal action maximising
``Q_m(a) + c_puct * P(a) * sqrt(N) / (1 + N(a))`` (``N`` the visits of the position's children, ``Q_m(a)``
the mean return of ``m`` through ``a`` on the [-1, 1] scale, 0 while ``a`` is unvisited), as in
AlphaZero (Silver et al. 2018).

**N players** (Petosa & Balch 2019, "Multiplayer AlphaZero"): a node keeps the *sum of return vectors*, one
component per player; each mover reads its own. The network's value head has one output per player, in turn
order from the player to move (``v[k]`` is the return of seat ``(m + k) % n_players``; farl's observations
are the mover's view, so the net sees no absolute seat); :func:`expand_and_backup` rotates it to seats. A
path's return vector is the rewards of its moves plus the leaf's value; a game's end is worth its rewards.

Values live on the [-1, 1] scale of the game's ``reward_range`` (``(x - mid) / half``): the network's value
of a position is its mover-relative *future* return so mapped, clipped to [-1, 1] by its tanh.

Chance (2048, EinStein würfelt nicht!) is sampled open-loop, as :mod:`farl_agents.opponents.puct` does: a
node is a sequence of actions, its position rebuilt from the root with fresh chance draws at every descent;
an action legal now but not when the node was expanded gets the uniform prior.

The trees live in preallocated arrays (``simulations + 1`` nodes each; a simulation adds at most one). The
loops are ``cache=True`` numba functions over the game's :class:`~farl_envs.core.kernels.Kernels` value plus
its ``observe`` kernel (:func:`search_kernels`, whose stamp covers this file and the game's sources).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_envs.core.kernels import Kernels, afterstate, chance, kernels_with_observe, legal_actions, observe
from farl_envs.core.spec import TERMINAL, TO_MOVE

LOOPS = ("farl_agents/alphazero/search.py",)
"""The sources of the loops over :func:`search_kernels`' value (they join its stamp)."""

AT_END, NEW, FULL = 0, 1, 2
"""How a descent stopped: at the end of the game, at a position to expand, or at a new child the full tree
has no row for (valued as a leaf, never expanded; cannot happen with ``simulations + 1`` rows)."""


def search_kernels(game) -> Kernels:
    """The :class:`Kernels` value of ``game`` for this module's loops: the core kernels and ``observe``."""
    return kernels_with_observe(game, LOOPS)


class Trees:
    """``batch`` search trees of ``cap`` nodes on ``game``, with the scratch of one simulation step.

    Node arrays (row 0 of each tree is its root): ``children`` int32[B, cap, A] (-1: no child), ``visits``
    float64[B, cap], ``wsum`` float64[B, cap, n_players] (summed return vectors, raw reward units), ``prior``
    float64[B, cap, A] (-1 for actions illegal at expansion), ``expanded`` uint8[B, cap], ``n_nodes``
    int64[B]. Leaf outputs of :func:`select_leaves`: ``obs`` int8[B, *obs_shape], ``leaf_mask`` int8[B, A],
    ``mover`` int64[B], ``status`` int8[B], ``node`` int64[B].
    """

    def __init__(self, game, batch: int, cap: int):
        b, a, n = int(batch), game.n_actions, game.n_players
        longest = int(min(game.max_plies, cap)) + 2  # a descent passes expanded nodes only: at most cap - 1
        self.batch, self.cap = b, int(cap)
        self.children = np.full((b, cap, a), -1, dtype=np.int32)
        self.visits = np.zeros((b, cap))
        self.wsum = np.zeros((b, cap, n))
        self.prior = np.zeros((b, cap, a))
        self.expanded = np.zeros((b, cap), dtype=np.uint8)
        self.n_nodes = np.ones(b, dtype=np.int64)
        self.states = np.zeros((b, game.state_size), dtype=np.int32)
        self.scratch_mask = np.zeros((b, a), dtype=np.int8)
        self.rew = np.zeros((b, n))
        self.path = np.zeros((b, longest), dtype=np.int64)
        self.step_rew = np.zeros((b, longest, n))
        self.depth = np.zeros(b, dtype=np.int64)
        self.node = np.zeros(b, dtype=np.int64)
        self.status = np.zeros(b, dtype=np.int8)
        self.mover = np.zeros(b, dtype=np.int64)
        self.obs = np.zeros((b,) + tuple(game.obs_shape), dtype=np.int8)
        self.obs_flat = self.obs.reshape(b, -1)
        self.leaf_mask = np.zeros((b, a), dtype=np.int8)
        self.est = np.zeros((b, n))
        self.ret = np.zeros((b, n))

    @staticmethod
    def bytes_for(game, batch: int, cap: int) -> int:
        """Bytes of the node arrays (the scratch is small beside them)."""
        return int(batch) * int(cap) * (12 * game.n_actions + 9 + 8 * game.n_players)


@njit(cache=True)
def new_trees(children, visits, wsum, expanded, n_nodes, active):
    """Reset every active tree to its root (not expanded)."""
    for b in range(children.shape[0]):
        if active[b]:
            children[b, 0, :] = -1
            visits[b, 0] = 0.0
            wsum[b, 0, :] = 0.0
            expanded[b, 0] = 0
            n_nodes[b] = 1


@njit(cache=True)
def _descend(kernels, p, root, c_puct, mid, half, has_chance, children, visits, wsum, prior, expanded, n_nodes, b,
             s, mask, rew, path, step_rew, rng):
    """Selection in tree ``b``: from ``root`` to the first position not expanded (see the module docstring);
    returns ``(node, depth, status)`` and leaves the position in ``s``, the path in ``path[0..depth]``, the
    moves' rewards in ``step_rew[0..depth-1]``."""
    n_actions = children.shape[2]
    n_players = wsum.shape[2]
    cap = children.shape[1]
    for i in range(root.shape[0]):
        s[i] = root[i]
    node = 0
    depth = 0
    path[0] = 0
    while True:
        if s[TERMINAL] != 0:
            return node, depth, AT_END
        if expanded[b, node] == 0:
            return node, depth, NEW
        mover = s[TO_MOVE]
        n_legal = legal_actions(kernels, p, s, mask)
        parent_n = 0.0
        for a in range(n_actions):
            c = children[b, node, a]
            if mask[a] != 0 and c >= 0:
                parent_n += visits[b, c]
        root_n = math.sqrt(max(parent_n, 1.0))
        best_a = -1
        best_u = -np.inf
        for a in range(n_actions):
            if mask[a] == 0:
                continue
            c = children[b, node, a]
            pr = prior[b, node, a]
            if pr < 0.0:  # legal here but not in the position the node was expanded in (chance)
                pr = 1.0 / max(n_legal, 1)
            q = 0.0
            n_a = 0.0
            if c >= 0 and visits[b, c] > 0.0:
                n_a = visits[b, c]
                q = (wsum[b, c, mover] / n_a - mid) / half
            u = q + c_puct * pr * root_n / (1.0 + n_a)
            if u > best_u:
                best_u = u
                best_a = a
        c = children[b, node, best_a]
        if c < 0:
            if n_nodes[b] >= cap:
                return node, depth, FULL
            c = n_nodes[b]
            n_nodes[b] += 1
            children[b, node, best_a] = c
            children[b, c, :] = -1
            visits[b, c] = 0.0
            wsum[b, c, :] = 0.0
            expanded[b, c] = 0
        afterstate(kernels, p, s, best_a, s, rew)
        if has_chance and s[TERMINAL] == 0:
            chance(kernels, p, s, rng)
        for r in range(n_players):
            step_rew[depth, r] = rew[r]
        depth += 1
        path[depth] = c
        node = c


@njit(cache=True)
def select_leaves(kernels, p, roots, active, c_puct, mid, half, has_chance, children, visits, wsum, prior, expanded,
                  n_nodes, states, scratch_mask, rew, path, step_rew, depth, node, status, mover, obs, obs_flat,
                  leaf_mask, rngs):
    """Step 1 in every active tree: descend to a leaf; for a leaf to evaluate, write its observation
    (``obs``, the mover's view), legal actions (``leaf_mask``) and mover. Returns how many leaves need the
    network (``status != AT_END``)."""
    count = 0
    for b in range(roots.shape[0]):
        if not active[b]:
            continue
        nd, d, st = _descend(kernels, p, roots[b], c_puct, mid, half, has_chance, children, visits, wsum, prior,
                             expanded, n_nodes, b, states[b], scratch_mask[b], rew[b], path[b], step_rew[b],
                             rngs[b])
        node[b] = nd
        depth[b] = d
        status[b] = st
        if st != AT_END:
            s = states[b]
            mover[b] = s[TO_MOVE]
            legal_actions(kernels, p, s, leaf_mask[b])
            obs_flat[b, :] = 0
            observe(kernels, p, s, s[TO_MOVE], obs[b])
            count += 1
    return count


@njit(cache=True)
def expand_and_backup(active, status, node, depth, path, step_rew, mover, leaf_mask, logits, values, noise,
                      noise_weight, mid, half, prior, expanded, visits, wsum, est, ret):
    """Steps 3 in every active tree, with the network's ``logits`` (float32[B, A]) and mover-relative
    ``values`` (float32[B, n_players], on the [-1, 1] scale) of the leaves: priors = softmax over the legal
    actions (at the root mixed ``(1 - noise_weight) * P + noise_weight * noise``, ``noise`` float64[B, A]
    Dirichlet draws over the root's legal actions; ``noise_weight`` 0: none); the value vector (to seats,
    raw units) plus the path's rewards added to every node on the path."""
    n_actions = prior.shape[2]
    n_players = wsum.shape[2]
    for b in range(status.shape[0]):
        if not active[b]:
            continue
        for i in range(n_players):
            est[b, i] = 0.0
        if status[b] != AT_END:
            nd = node[b]
            top = -np.inf
            for a in range(n_actions):
                if leaf_mask[b, a] != 0 and logits[b, a] > top:
                    top = logits[b, a]
            total = 0.0
            for a in range(n_actions):
                if leaf_mask[b, a] != 0:
                    w = math.exp(logits[b, a] - top)
                    prior[b, nd, a] = w
                    total += w
                else:
                    prior[b, nd, a] = -1.0
            for a in range(n_actions):
                if leaf_mask[b, a] != 0:
                    prior[b, nd, a] /= total
                    if nd == 0 and noise_weight > 0.0:
                        prior[b, nd, a] = (1.0 - noise_weight) * prior[b, nd, a] + noise_weight * noise[b, a]
            m = mover[b]
            for k in range(n_players):
                est[b, (m + k) % n_players] = mid + half * values[b, k]
            if status[b] == NEW:
                expanded[b, nd] = 1
        for i in range(n_players):
            ret[b, i] = est[b, i]
        for d in range(depth[b], 0, -1):
            nd = path[b, d]
            visits[b, nd] += 1.0
            for i in range(n_players):
                ret[b, i] += step_rew[b, d - 1, i]
                wsum[b, nd, i] += ret[b, i]
        visits[b, 0] += 1.0


@njit(cache=True)
def root_visits(children, visits, active, out):
    """``out[b, a]``: the visits of root action ``a`` of tree ``b`` (0 without a child)."""
    for b in range(children.shape[0]):
        for a in range(children.shape[2]):
            c = children[b, 0, a]
            out[b, a] = visits[b, c] if (active[b] and c >= 0) else 0.0


def value_scale(game) -> tuple[float, float]:
    """``(mid, half)``: a return ``x`` is ``(x - mid) / half`` on the [-1, 1] scale (the game's reward range)."""
    lo, hi = (float(x) for x in game.reward_range)
    half = 0.5 * (hi - lo)
    return 0.5 * (lo + hi), (half if half > 0 else 1.0)


def dirichlet_noise(rng: np.random.Generator, masks: np.ndarray, alpha: float) -> np.ndarray:
    """float64[B, A]: a Dirichlet(alpha) draw over each row's legal actions (0 elsewhere)."""
    g = rng.gamma(alpha, 1.0, size=masks.shape) * (masks != 0)
    total = g.sum(axis=1, keepdims=True)
    return np.divide(g, total, out=np.zeros_like(g), where=total > 0)


def run_search(trees: Trees, game, kernels, roots: np.ndarray, active: np.ndarray, simulations: int,
               evaluate, c_puct: float, noise: np.ndarray | None, noise_weight: float, rngs: np.ndarray) -> int:
    """``simulations`` simulation steps of PUCT in the active trees from ``roots`` (int32[B, state_size]);
    ``evaluate(obs, masks) -> (logits, values)`` is called once per step on the leaves that need it (the
    rows of ``obs`` of those trees). Returns the network calls made. The root visits are then read with
    :func:`root_visits`."""
    mid, half = value_scale(game)
    t = trees
    new_trees(t.children, t.visits, t.wsum, t.expanded, t.n_nodes, active)
    b_all = roots.shape[0]
    logits = np.zeros((b_all, game.n_actions), dtype=np.float32)
    values = np.zeros((b_all, game.n_players), dtype=np.float32)
    if noise is None:
        noise, noise_weight = np.zeros((b_all, game.n_actions)), 0.0
    calls = 0
    for _ in range(simulations):
        need = select_leaves(kernels, game.p, roots, active, c_puct, mid, half, game.has_chance, t.children,
                             t.visits, t.wsum, t.prior, t.expanded, t.n_nodes, t.states, t.scratch_mask, t.rew,
                             t.path, t.step_rew, t.depth, t.node, t.status, t.mover, t.obs, t.obs_flat,
                             t.leaf_mask, rngs)
        if need:
            rows = np.flatnonzero(active & (t.status != AT_END))
            lg, vl = evaluate(t.obs[rows], t.leaf_mask[rows])
            logits[rows] = lg
            values[rows] = vl
            calls += 1
        expand_and_backup(active, t.status, t.node, t.depth, t.path, t.step_rew, t.mover, t.leaf_mask, logits,
                          values, noise, float(noise_weight), mid, half, t.prior, t.expanded, t.visits, t.wsum,
                          t.est, t.ret)
    return calls
