"""The adaptive evaluation f_θ: an n-tuple network fitted by regression to tree values.

Cohen-Solal 2020 uses a small convolutional network trained with Adam; here the
default is farl's n-tuple network (:mod:`farl_agents.ntuple.network`, the
same tables, tuple sets and symmetric sums as the TD-FARL learners), fitted
by least-mean-squares steps towards the targets chosen by tree / root /
terminal learning. The network keeps one table set (``player`` 0) and
returns values from the **first player's** point of view, in units of the
heuristic (output × ``scale``).

Output: ``tanh`` for the classic heuristic (the paper puts tanh on its
output for the classic gain, nothing otherwise), identity for the others;
targets are divided by the heuristic's ``scale`` so they lie in [-1, 1].

Update (Alg. 7, one epoch per learning phase): the pairs are shuffled and
each one moves the weights of its board by
``α / (m · N_S) · (y − V) · σ'(ν)`` (the n-tuple network's normalised LMS
step instead of Adam mini-batches; Adam + L2 belongs to the optional conv net).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.ntuple.network import apply_change, board_indices, build_net, raw_value
from farl_agents.ntuple.sets import make_set


@njit(cache=True)
def _values(net, boards, tanh_output, scale, out):
    idx = np.empty(net.sym_cells.shape[:2], dtype=np.int64)
    for k in range(boards.shape[0]):
        board_indices(net, boards[k], idx)
        nu = raw_value(net, 0, 0, idx)
        v = np.tanh(nu) if tanh_output else nu
        out[k] = scale * min(max(v, -1.0), 1.0)


@njit(cache=True)
def _fit(net, boards, targets, order, step, tanh_output):
    idx = np.empty(net.sym_cells.shape[:2], dtype=np.int64)
    no_skip = np.zeros((0, 0), dtype=np.bool_)
    sq = 0.0
    for t in range(order.shape[0]):
        k = order[t]
        board_indices(net, boards[k], idx)
        nu = raw_value(net, 0, 0, idx)
        v = np.tanh(nu) if tanh_output else nu
        err = targets[k] - v
        sq += err * err
        grad = err * (1.0 - v * v) if tanh_output else err
        apply_change(net, 0, 0, idx, step, grad, False, 0.0, no_skip)
    return sq / max(order.shape[0], 1)


def default_tuples(game, seed: int = 0) -> np.ndarray:
    """The TD-FARL preset's n-tuple set for ``game`` (fixed paper set, or its random walks)."""
    from farl_agents.learners.presets import paper_config

    try:
        cfg = paper_config(game.name)
    except ValueError:  # a game without a paper preset: a modest random-walk set
        return make_set(game, "random-walk", 20, min(6, game.n_cells), seed)
    try:
        return make_set(game, cfg.ntuples, cfg.ntuple_count, cfg.ntuple_length, seed)
    except ValueError:  # e.g. fixed set for other board sizes
        return make_set(game, "random-walk", cfg.ntuple_count, min(cfg.ntuple_length, game.n_cells), seed)


class NTupleEvaluation:
    """f_θ as an n-tuple network (see the module docstring).

    Args:
        game: the GameSpec.
        scale: the heuristic's bound; values are returned in heuristic units.
        tanh_output: σ = tanh (classic) or identity.
        alpha: α, the LMS step size (divided by m · N_S).
        tuples: ``int[m, n]`` cell lists (default: :func:`default_tuples`).
    """

    kind = "ntuple"

    def __init__(self, game, scale: float = 1.0, tanh_output: bool = True, alpha: float = 0.2,
                 tuples: np.ndarray | None = None, seed: int = 0):
        self.game = game
        self.scale = float(scale)
        self.tanh_output = bool(tanh_output)
        self.alpha = float(alpha)
        self.tuples = np.asarray(default_tuples(game, seed) if tuples is None else tuples, dtype=np.int32)
        self.net = build_net(self.tuples, game.n_cell_values, 1, 1, game.symmetries(game.p),
                             game.action_symmetries(game.p) if game.action_symmetries else
                             np.zeros((len(game.symmetries(game.p)), game.n_actions), dtype=np.int32),
                             True, False, 0.0)

    @property
    def weights(self) -> np.ndarray:
        return self.net.weights

    def set_weights(self, w: np.ndarray) -> None:
        if w.shape != self.net.weights.shape:
            raise ValueError(f"weights must have shape {self.net.weights.shape}, got {w.shape}")
        self.net.weights[...] = w

    def values(self, boards: np.ndarray) -> np.ndarray:
        """f_θ of each board (first player's view, heuristic units, clipped to ±scale)."""
        boards = np.ascontiguousarray(boards, dtype=np.int32)
        out = np.empty(boards.shape[0])
        if boards.shape[0]:
            _values(self.net, boards, self.tanh_output, self.scale, out)
        return out

    def fit(self, boards: np.ndarray, targets: np.ndarray, rng: np.random.Generator) -> float:
        """One epoch of LMS steps towards ``targets`` (heuristic units); returns the mean squared error (scaled)."""
        if len(targets) == 0:
            return 0.0
        boards = np.ascontiguousarray(boards, dtype=np.int32)
        y = np.clip(np.asarray(targets, dtype=np.float64) / self.scale, -1.0, 1.0)
        order = rng.permutation(len(y)).astype(np.int64)
        m, n_s = self.net.sym_cells.shape[1], self.net.sym_cells.shape[0]
        return float(_fit(self.net, boards, y, order, self.alpha / (m * n_s), self.tanh_output))

    # ------------------------------------------------------------ files
    def meta(self) -> dict:
        return {"kind": self.kind, "scale": self.scale, "tanh_output": self.tanh_output, "alpha": self.alpha}

    def arrays(self) -> dict:
        return {"weights": self.weights, "tuples": self.tuples.astype(np.int32)}

    def load_arrays(self, arrays: dict) -> None:
        w = arrays.get("weights")
        if w is None or w.shape != self.weights.shape or w.dtype != np.float32:
            raise ValueError(f"weights have shape {None if w is None else w.shape}, "
                             f"expected {self.weights.shape} float32")
        self.set_weights(w)

    @classmethod
    def from_meta(cls, game, meta: dict, arrays: dict) -> "NTupleEvaluation":
        tuples = arrays.get("tuples")
        if tuples is None or tuples.ndim != 2 or tuples.dtype.kind != "i" or tuples.size == 0 \
                or tuples.min() < 0 or tuples.max() >= game.n_cells:
            raise ValueError("n-tuple array has a bad shape or cells")
        return cls(game, float(meta["scale"]), bool(meta["tanh_output"]), float(meta["alpha"]), tuples=tuples)


def make_evaluation(kind: str, game, scale: float, tanh_output: bool, alpha: float = 0.2, seed: int = 0):
    """A fresh f_θ: ``"ntuple"`` (default) or ``"conv"`` (torch, optional)."""
    if kind == "ntuple":
        return NTupleEvaluation(game, scale, tanh_output, alpha, seed=seed)
    if kind == "conv":
        from farl_agents.descent.evaluation_torch import ConvEvaluation

        return ConvEvaluation(game, scale, tanh_output, seed=seed)
    raise ValueError(f"unknown evaluation {kind!r}; choose ntuple or conv")


def evaluation_from_file(game, meta: dict, arrays: dict):
    """The f_θ stored in an agent file (``meta["evaluation"]`` + its arrays), shapes checked."""
    kind = meta.get("kind")
    if kind == "ntuple":
        ev = NTupleEvaluation.from_meta(game, meta, arrays)
    elif kind == "conv":
        from farl_agents.descent.evaluation_torch import ConvEvaluation

        ev = ConvEvaluation.from_meta(game, meta)
    else:
        raise ValueError(f"evaluation kind {kind!r} is not supported")
    ev.load_arrays(arrays)
    return ev

