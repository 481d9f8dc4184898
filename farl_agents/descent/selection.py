"""Action selection during learning (Cohen-Solal 2020, Sec. 2.3, 5.2 and 7.1), with simulated annealing.

Every function takes the root's children as arrays, values v from the
**first player's** view and resolved values r, the flag ``first`` (is the
first player to move), ``progress`` = t / T (elapsed / total learning time,
in [0, 1]) and a farl ``uint64[1]`` generator; it returns a child index.

``epsilon_greedy`` (Alg. 2): the exploitation rate ε' = ``progress`` (the seed
anneals from pure exploration at the start to pure exploitation at the end):
with probability ε' the best child, otherwise a uniformly random one.

``softmax``: P(c_i) ∝ exp(± v_i / (τ · scale)), the sign making the mover's
good children likely; the temperature anneals linearly from ``tau_start`` to
``tau_end`` (in units of the heuristic's scale; the seed's values are lost).

``ordinal`` (Alg. 12): children sorted from best to worst for the mover,
c_0 ... c_{n-1}; walking down the list, child c_i is taken with probability
ε' + (1 − ε') / (n − i), so that

    P(c_i) = (ε' + (1 − ε')/(n − i)) · Π_{j<i} (1 − ε' − (1 − ε')/(n − j)).

The last child is taken with probability 1 if reached, so the probabilities
sum to 1; ε' = 0 gives the uniform distribution, ε' = 1 always the best
child, and in between the probabilities do not increase with the rank (this
reconstruction of the lost formula depends only on the order of the values,
as the paper says, and matches the "optimized calculation" of Alg. 12).

``completed`` (Sec. 5.2) wraps any of them: a winning resolved child is
always taken (the best such one), losing resolved children are dropped when
another child exists, and the wrapped method chooses among the rest.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.rng import rng_below, rng_uniform

SELECTIONS = ("egreedy", "softmax", "ordinal")


def _rank(v: np.ndarray, r: np.ndarray, first: bool) -> np.ndarray:
    """Indices from best to worst for the mover, by (r, v) (stable: action order breaks ties)."""
    keys = np.lexsort((np.arange(len(v)), -v if first else v, -r if first else r))
    return keys


def epsilon_greedy(v, r, first, progress, rng) -> int:
    if rng_uniform(rng) < progress:
        return int(_rank(v, r, first)[0])
    return int(rng_below(rng, len(v)))


def softmax_probabilities(v, first, tau) -> np.ndarray:
    z = (np.asarray(v, dtype=np.float64) if first else -np.asarray(v, dtype=np.float64)) / max(tau, 1e-9)
    z = np.exp(z - z.max())
    return z / z.sum()


def softmax(v, r, first, progress, rng, scale=1.0, tau_start=1.0, tau_end=0.02) -> int:
    tau = (tau_start + (tau_end - tau_start) * min(max(progress, 0.0), 1.0)) * scale
    p = softmax_probabilities(v, first, tau)
    u = rng_uniform(rng)
    return int(min(np.searchsorted(np.cumsum(p), u, side="right"), len(p) - 1))


def ordinal_probabilities(n: int, exploit: float) -> np.ndarray:
    """P(c_i) of the ordinal distribution for n children sorted best first, exploitation rate ε'."""
    out = np.empty(n)
    remain = 1.0
    for i in range(n):
        q = exploit + (1.0 - exploit) / (n - i)
        out[i] = remain * q
        remain *= 1.0 - q
    return out


def ordinal(v, r, first, progress, rng) -> int:
    order = _rank(v, r, first)
    n = len(order)
    for i in range(n):
        if rng_uniform(rng) < progress + (1.0 - progress) / (n - i):
            return int(order[i])
    return int(order[-1])


def select(method: str, v, r, first: bool, progress: float, rng, scale: float = 1.0,
           completed: bool = True) -> int:
    """The child index chosen by ``method`` (optionally completed); see the module docstring."""
    v = np.asarray(v, dtype=np.float64)
    r = np.asarray(r, dtype=np.int64)
    if method not in SELECTIONS:
        raise ValueError(f"unknown selection {method!r}; choose one of {', '.join(SELECTIONS)}")
    idx = np.arange(len(v))
    if completed:
        win = 1 if first else -1
        winning = idx[r == win]
        if len(winning):
            best = winning[np.argmax(v[winning])] if first else winning[np.argmin(v[winning])]
            return int(best)
        keep = idx[r != -win]
        if len(keep):
            idx = keep
    vv, rr = v[idx], r[idx]
    if method == "egreedy":
        k = epsilon_greedy(vv, rr, first, progress, rng)
    elif method == "softmax":
        k = softmax(vv, rr, first, progress, rng, scale)
    else:
        k = ordinal(vv, rr, first, progress, rng)
    return int(idx[k])
