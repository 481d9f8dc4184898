"""AlphaZero's policy/value network: a small residual CNN for grid observations, an MLP for the others (torch).

Input: the game's observation planes (``GameSpec.obs_shape``, the mover's view, as the batched envs give
them). Grid games (observations ``rows x cols x planes``) get a residual CNN: a 3x3 convolution to
``filters`` channels, ``blocks`` residual blocks (two 3x3 convolutions, the input added before the last
ReLU), then two heads, as AlphaZero's net has (Silver et al. 2018) but without batch normalisation (small
nets on a CPU train well without it, and a net without running statistics plays the same in training and
evaluation): the policy head a 1x1 convolution to 2 channels and a linear layer to one logit per action;
the value head a 1x1 convolution to 1 channel, a hidden layer of ``hidden`` units and one output per player
(tanh: mover-relative returns on the [-1, 1] scale, Petosa & Balch 2019). Other observations (Nim, Chinese
Checkers' vector) are flattened into an MLP of two ``hidden`` layers with the same two heads.

:func:`parameter_shapes` gives every parameter's name and shape without torch, so an agent file's members
are checked against the net its settings describe before anything is read. torch is imported by
:func:`build_net` only (the ``baselines`` extra).
"""
from __future__ import annotations

import numpy as np

from farl_agents.ntuple.budget import human, memory_limit

KINDS = ("auto", "resnet", "mlp")


def net_kind(game, kind: str) -> str:
    """``resnet`` or ``mlp``: ``auto`` picks the CNN for observations of shape ``rows x cols x planes``."""
    if kind not in KINDS:
        raise ValueError(f"network must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "auto":
        return "resnet" if len(game.obs_shape) == 3 else "mlp"
    if kind == "resnet" and len(game.obs_shape) != 3:
        raise ValueError(f"{game.name}'s observation has shape {tuple(game.obs_shape)}, not rows x cols x planes: "
                         f"use the mlp network")
    return kind


def parameter_shapes(game, kind: str, filters: int, blocks: int, hidden: int) -> dict[str, tuple]:
    """The shape of every parameter (``state_dict`` names) of the net :func:`build_net` makes; ``ValueError``
    for sizes below 1 (blocks below 0) or a net over the memory limit (weights and Adam's two moments)."""
    kind = net_kind(game, kind)
    if filters < 1 or hidden < 1 or blocks < 0:
        raise ValueError(f"filters and hidden must be >= 1 and blocks >= 0, got {filters}, {hidden}, {blocks}")
    a, n = game.n_actions, game.n_players
    shapes: dict[str, tuple] = {}
    if kind == "resnet":
        rows, cols, planes = (int(x) for x in game.obs_shape)
        cells = rows * cols
        shapes["stem.weight"], shapes["stem.bias"] = (filters, planes, 3, 3), (filters,)
        for i in range(blocks):
            for j in (1, 2):
                shapes[f"blocks.{i}.conv{j}.weight"] = (filters, filters, 3, 3)
                shapes[f"blocks.{i}.conv{j}.bias"] = (filters,)
        shapes["policy_conv.weight"], shapes["policy_conv.bias"] = (2, filters, 1, 1), (2,)
        shapes["policy.weight"], shapes["policy.bias"] = (a, 2 * cells), (a,)
        shapes["value_conv.weight"], shapes["value_conv.bias"] = (1, filters, 1, 1), (1,)
        shapes["value_hidden.weight"], shapes["value_hidden.bias"] = (hidden, cells), (hidden,)
    else:
        inputs = int(np.prod(game.obs_shape))
        shapes["body.0.weight"], shapes["body.0.bias"] = (hidden, inputs), (hidden,)
        shapes["body.2.weight"], shapes["body.2.bias"] = (hidden, hidden), (hidden,)
        shapes["policy.weight"], shapes["policy.bias"] = (a, hidden), (a,)
        shapes["value_hidden.weight"], shapes["value_hidden.bias"] = (hidden, hidden), (hidden,)
    shapes["value.weight"], shapes["value.bias"] = (n, hidden), (n,)
    need = 3 * 4 * sum(int(np.prod(s)) for s in shapes.values())
    if need > memory_limit():
        raise ValueError(f"an AlphaZero net of {filters} filters, {blocks} blocks and {hidden} hidden units on "
                         f"{game.id} needs {human(need)}; the limit is {human(memory_limit())}")
    return shapes


def build_net(game, kind: str, filters: int, blocks: int, hidden: int):
    """The torch module (``forward(x) -> (logits, values)``, ``x`` float32[B, *obs_shape])."""
    import torch
    from torch import nn

    kind = net_kind(game, kind)
    parameter_shapes(game, kind, filters, blocks, hidden)  # refused before torch allocates anything
    a, n = game.n_actions, game.n_players

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(filters, filters, 3, padding=1)
            self.conv2 = nn.Conv2d(filters, filters, 3, padding=1)

        def forward(self, x):
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            rows, cols, planes = (int(v) for v in game.obs_shape)
            self.stem = nn.Conv2d(planes, filters, 3, padding=1)
            self.blocks = nn.Sequential(*[Block() for _ in range(blocks)])
            self.policy_conv = nn.Conv2d(filters, 2, 1)
            self.policy = nn.Linear(2 * rows * cols, a)
            self.value_conv = nn.Conv2d(filters, 1, 1)
            self.value_hidden = nn.Linear(rows * cols, hidden)
            self.value = nn.Linear(hidden, n)

        def forward(self, x):
            x = x.permute(0, 3, 1, 2)  # rows x cols x planes -> planes first
            h = self.blocks(torch.relu(self.stem(x)))
            logits = self.policy(torch.relu(self.policy_conv(h)).flatten(1))
            v = torch.relu(self.value_hidden(torch.relu(self.value_conv(h)).flatten(1)))
            return logits, torch.tanh(self.value(v))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            inputs = int(np.prod(game.obs_shape))
            self.body = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.policy = nn.Linear(hidden, a)
            self.value_hidden = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, n)

        def forward(self, x):
            h = self.body(x.flatten(1))
            return self.policy(h), torch.tanh(self.value(torch.relu(self.value_hidden(h))))

    return ResNet() if kind == "resnet" else MLP()


def net_arrays(net) -> dict[str, np.ndarray]:
    """The net's parameters as float32 arrays named ``net/<parameter>`` (an agent file's members)."""
    return {f"net/{k}": v.detach().cpu().numpy().astype(np.float32) for k, v in net.state_dict().items()}


def load_net_arrays(net, arrays: dict) -> None:
    """Set the net's parameters from ``net/<parameter>`` arrays; ``ValueError`` naming a missing or misshapen one."""
    import torch

    state = net.state_dict()
    new = {}
    for k, v in state.items():
        a = arrays.get(f"net/{k}")
        if a is None or tuple(a.shape) != tuple(v.shape):
            raise ValueError(f"network parameter {k}: expected shape {tuple(v.shape)}, got "
                             f"{None if a is None else tuple(a.shape)}")
        a = np.asarray(a, dtype=np.float32)
        if not np.all(np.isfinite(a)):
            raise ValueError(f"network parameter {k} holds NaN or infinite values")
        new[k] = torch.from_numpy(a.copy())
    net.load_state_dict(new)


class Evaluator:
    """``evaluate(obs, masks) -> (logits, values)`` of a net without gradients, for :func:`~.search.run_search`:
    ``obs`` int8[B, *obs_shape] -> float32 logits [B, A] and mover-relative values [B, n_players]."""

    def __init__(self, net):
        import torch

        self.torch = torch
        self.net = net

    def __call__(self, obs: np.ndarray, masks: np.ndarray):
        torch = self.torch
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
            logits, values = self.net(x)
        return logits.numpy(), values.numpy()
