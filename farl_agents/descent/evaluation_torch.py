"""The paper's small convolutional f_θ (Cohen-Solal 2020, Sec. 3.2.1), in torch (optional ``baselines`` extra).

Three 3×3 convolution layers and one dense hidden layer, ReLU after every
layer but the last, one output neuron (tanh for the classic heuristic, none
otherwise), fitted by Adam with L2 regularisation (``weight_decay``), one
epoch of mini-batches per learning phase (Alg. 7). The paper's filter count,
hidden width, batch size and L2 factor are lost in the text: the defaults
here (16 filters, 64 hidden units, batches of 128, λ = 1e-4) are small enough
for a CPU. The paper's layers have no margin; on boards as small as ours
three unpadded 3×3 layers would leave nothing of TicTacToe, so the layers
here pad by one cell ("same" size).

Input: the n-tuple board one-hot encoded, one plane per cell value, on the
game's grid (``GameSpec.grid_shape``; Hex's rhombus is its square array).
Games without a grid shape are refused. Adam's moment estimates are not
saved in agent files: a resumed run restarts them. torch is imported only when a
:class:`ConvEvaluation` is made, so the rest of the family works without it.
"""
from __future__ import annotations

import numpy as np

from farl_agents.ntuple.budget import human, memory_limit


def parameter_shapes(game, filters: int, hidden: int) -> dict[str, tuple]:
    """The shape of every parameter of the net :class:`ConvEvaluation` builds for ``game`` (its
    ``state_dict`` names), worked out without torch: an agent file's members are checked against them
    before anything is read. ``ValueError`` for a game without a grid, sizes below 1, or a net over the
    memory limit (:func:`~farl_agents.ntuple.budget.memory_limit`)."""
    if not game.grid_shape:
        raise ValueError(f"{game.name} has no board grid; the conv evaluation needs one (use ntuple)")
    if filters < 1 or hidden < 1:
        raise ValueError(f"filters and hidden must be >= 1, got {filters} and {hidden}")
    rows, cols = game.grid_shape
    planes = int(game.n_cell_values)
    shapes = {"0.weight": (filters, planes, 3, 3), "0.bias": (filters,),
              "2.weight": (filters, filters, 3, 3), "2.bias": (filters,),
              "4.weight": (filters, filters, 3, 3), "4.bias": (filters,),
              "7.weight": (hidden, filters * rows * cols), "7.bias": (hidden,),
              "9.weight": (1, hidden), "9.bias": (1,)}
    need = 4 * 3 * sum(int(np.prod(s)) for s in shapes.values())  # the weights and Adam's two moment estimates
    if need > memory_limit():
        raise ValueError(f"a conv net of {filters} filters and {hidden} hidden units on {rows}x{cols} needs "
                         f"{human(need)}; the limit is {human(memory_limit())}")
    return shapes


class ConvEvaluation:
    """f_θ as a small conv net; same interface as :class:`~farl_agents.descent.evaluation.NTupleEvaluation`."""

    kind = "conv"

    def __init__(self, game, scale: float = 1.0, tanh_output: bool = True, lr: float = 1e-3, l2: float = 1e-4,
                 filters: int = 16, hidden: int = 64, batch: int = 128, seed: int = 0):
        try:
            import torch
        except ImportError:
            raise ValueError("the conv evaluation needs torch: pip install 'farl-rl[baselines]'") from None
        parameter_shapes(game, int(filters), int(hidden))  # refused before torch allocates anything
        torch.set_num_threads(1)
        self.torch = torch
        self.game = game
        self.scale, self.tanh_output = float(scale), bool(tanh_output)
        self.lr, self.l2 = float(lr), float(l2)
        self.filters, self.hidden, self.batch = int(filters), int(hidden), int(batch)
        self.rows, self.cols = game.grid_shape
        self.planes = int(game.n_cell_values)
        nn = torch.nn
        torch.manual_seed(seed)
        self.net = nn.Sequential(
            nn.Conv2d(self.planes, filters, 3, padding=1), nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1), nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(filters * self.rows * self.cols, hidden), nn.ReLU(),
            nn.Linear(hidden, 1))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr, weight_decay=l2)

    def _input(self, boards: np.ndarray):
        b = np.asarray(boards, dtype=np.int64).reshape(-1, self.rows, self.cols)
        x = np.zeros((b.shape[0], self.planes, self.rows, self.cols), dtype=np.float32)
        for v in range(self.planes):
            x[:, v] = b == v
        return self.torch.from_numpy(x)

    def _forward(self, x):
        out = self.net(x)[:, 0]
        return self.torch.tanh(out) if self.tanh_output else out

    def values(self, boards: np.ndarray) -> np.ndarray:
        if len(boards) == 0:
            return np.zeros(0)
        with self.torch.no_grad():
            v = self._forward(self._input(boards)).numpy().astype(np.float64)
        return np.clip(v, -1.0, 1.0) * self.scale

    def fit(self, boards: np.ndarray, targets: np.ndarray, rng: np.random.Generator) -> float:
        if len(targets) == 0:
            return 0.0
        torch = self.torch
        y_all = np.clip(np.asarray(targets, dtype=np.float32) / self.scale, -1.0, 1.0)
        order = rng.permutation(len(y_all))
        total = 0.0
        for start in range(0, len(order), self.batch):
            k = order[start:start + self.batch]
            x, y = self._input(boards[k]), torch.from_numpy(y_all[k])
            loss = torch.mean((self._forward(x) - y) ** 2)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += float(loss.detach()) * len(k)
        return total / len(order)

    # ------------------------------------------------------------ files
    def meta(self) -> dict:
        return {"kind": self.kind, "scale": self.scale, "tanh_output": self.tanh_output, "lr": self.lr,
                "l2": self.l2, "filters": self.filters, "hidden": self.hidden, "batch": self.batch}

    def arrays(self) -> dict:
        return {f"conv/{k}": v.detach().numpy().copy() for k, v in self.net.state_dict().items()}

    def load_arrays(self, arrays: dict) -> None:
        state = self.net.state_dict()
        new = {}
        for k, v in state.items():
            a = arrays.get(f"conv/{k}")
            if a is None or tuple(a.shape) != tuple(v.shape):
                raise ValueError(f"conv layer {k}: expected shape {tuple(v.shape)}, got "
                                 f"{None if a is None else tuple(a.shape)}")
            new[k] = self.torch.from_numpy(np.asarray(a, dtype=np.float32))
        self.net.load_state_dict(new)

    @classmethod
    def from_meta(cls, game, meta: dict) -> "ConvEvaluation":
        return cls(game, float(meta["scale"]), bool(meta["tanh_output"]), float(meta["lr"]), float(meta["l2"]),
                   int(meta["filters"]), int(meta["hidden"]), int(meta["batch"]))
