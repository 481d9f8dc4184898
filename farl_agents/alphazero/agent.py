"""The AlphaZero agent: a harness player (PUCT over the trained network) and its file format.

:class:`AlphaZeroAgent` plays a move with ``simulations`` PUCT simulations (:mod:`~.search`, one tree, no
root noise) and takes the most visited root action (ties: the lowest action); with 0 simulations it takes
the policy's most probable legal action.

File (format ``farl-alphazero-agent``, version 1): an ``.npz`` with ``meta`` (JSON: format, version, game and
its parameters, the network's settings, the play settings, training information) and one ``net/<parameter>``
float32 array per network parameter. Written atomically; read through
:class:`~farl_agents.safe_files.NpzFile`: the metadata first, then only the members the network it describes
has, none larger than its parameter needs (:func:`~.network.parameter_shapes`, worked out before anything
is decompressed), every shape checked. No pickle anywhere: a file is data. Every problem is an
:class:`~farl_agents.safe_files.AgentFileError`.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file
from farl_agents.players import check_search_state
from farl_agents.safe_files import AgentFileError, NpzFile

FORMAT = "farl-alphazero-agent"
VERSION = 1
NET_KEYS = ("kind", "filters", "blocks", "hidden")


def need_torch() -> None:
    """RuntimeError with the install command when torch (the ``baselines`` extra) is missing."""
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        from farl_agents.baselines.family import EXTRA_HINT

        raise RuntimeError(f"the alphazero family needs torch, the 'baselines' extra ({exc}); install it with: "
                           f"{EXTRA_HINT}") from None


class AlphaZeroAgent:
    """A harness player (``act(game, state, rng)``) searching with the network's priors and values."""

    score_kind = "share of the search's visits"

    def __init__(self, game, net, net_settings: dict, simulations: int = 100, c_puct: float = 1.25,
                 name: str | None = None, info: dict | None = None):
        import torch

        from farl_agents.alphazero.network import Evaluator
        from farl_agents.alphazero.search import Trees, search_kernels

        torch.set_num_threads(1)  # one position at a time (and in --jobs workers): more threads only wait

        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise ValueError(f"simulations must be an integer >= 0, got {simulations!r}")
        if not (isinstance(c_puct, (int, float)) and math.isfinite(c_puct) and c_puct >= 0):
            raise ValueError(f"c_puct must be a finite number >= 0, got {c_puct!r}")
        self.game = game
        self.net = net
        self.net_settings = dict(net_settings)
        self.simulations = int(simulations)
        self.c_puct = float(c_puct)
        self.name = name or f"alphazero{self.simulations}"
        self.info = dict(info or {})
        self._evaluate = Evaluator(net)
        self._kernels = search_kernels(game)
        self._trees = Trees(game, 1, self.simulations + 1) if self.simulations else None
        self._active = np.ones(1, dtype=np.bool_)

    def __repr__(self) -> str:
        return f"AlphaZeroAgent({self.game.id}, simulations={self.simulations}, name={self.name!r})"

    def __getstate__(self):  # the net's class is built at run time: ship its weights and settings instead
        from farl_agents.alphazero.network import net_arrays

        return {"game": (self.game.name, dict(self.game.params)), "arrays": net_arrays(self.net),
                "net_settings": self.net_settings, "simulations": self.simulations, "c_puct": self.c_puct,
                "name": self.name, "info": self.info}

    def __setstate__(self, d):
        import farl_envs
        from farl_agents.alphazero.network import build_net, load_net_arrays

        game = farl_envs.game_spec(d["game"][0], **d["game"][1])
        ns = d["net_settings"]
        net = build_net(game, ns["kind"], ns["filters"], ns["blocks"], ns["hidden"])
        load_net_arrays(net, d["arrays"])
        self.__init__(game, net, ns, d["simulations"], d["c_puct"], d["name"], d["info"])

    def reset(self) -> None:
        """Nothing to do: every move builds a new tree."""

    def _mask(self, game, state) -> np.ndarray:
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        return mask

    def move_scores(self, game, state: np.ndarray, rng: np.ndarray) -> np.ndarray:
        """``float64[n_actions]``: each legal action's share of the root visits (the policy's probability
        with 0 simulations); NaN for illegal actions."""
        from farl_agents.alphazero.search import root_visits, run_search

        check_search_state(game, state)
        mask = self._mask(game, state)
        obs = np.zeros((1,) + tuple(game.obs_shape), dtype=np.int8)
        if self.simulations == 0:
            game.observe(game.p, state, int(state[0]), obs[0])
            logits, _ = self._evaluate(obs, mask[None])
            z = np.where(mask != 0, logits[0] - logits[0][mask != 0].max(), -np.inf)
            p = np.exp(z)
            return np.where(mask != 0, p / p.sum(), np.nan)
        roots = np.ascontiguousarray(state, dtype=np.int32)[None]
        rngs = np.asarray(rng, dtype=np.uint64).reshape(1, 1)
        run_search(self._trees, game, self._kernels, roots, self._active, self.simulations, self._evaluate,
                   self.c_puct, None, 0.0, rngs)
        rng.reshape(-1)[:] = rngs.reshape(-1)  # the chance draws moved the harness's generator on
        visits = np.zeros((1, game.n_actions))
        root_visits(self._trees.children, self._trees.visits, self._active, visits)
        v = visits[0] * (mask != 0)
        return np.where(mask != 0, v / max(v.sum(), 1.0), np.nan)

    def act(self, game, state: np.ndarray, rng: np.ndarray) -> int:
        scores = self.move_scores(game, state, rng)
        return int(np.argmax(np.where(np.isnan(scores), -np.inf, scores)))


def save_agent(path, game, net, net_settings: dict, simulations: int, c_puct: float, info: dict) -> None:
    """Write an agent file (module docstring) atomically."""
    from farl_agents.alphazero.network import net_arrays

    meta = {"format": FORMAT, "version": VERSION, "game": game.name, "game_params": dict(game.params),
            "network": {k: net_settings[k] for k in NET_KEYS},
            "play": {"simulations": int(simulations), "c_puct": float(c_puct)}, "info": info}
    arrays = {"meta": np.array(json.dumps(meta)), **net_arrays(net)}
    with atomic_file(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def read_agent_file(path, game=None):
    """``(meta, GameSpec, arrays)`` of an agent file, checked against the network its metadata describes;
    :class:`AgentFileError` (a ``ValueError``) if it is not one, or not one for ``game`` when given. Needs no
    torch."""
    import farl_envs
    from farl_agents.alphazero.network import parameter_shapes

    path = Path(path)
    if not path.is_file():
        raise AgentFileError(f"{path}: no such agent file")
    with NpzFile(path, "readable AlphaZero agent file") as f:
        meta = f.meta()
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else None
            raise AgentFileError(f"{path}: not an AlphaZero agent file (format {found!r})")
        if meta.get("version") != VERSION:
            raise AgentFileError(f"{path}: AlphaZero agent file version {meta.get('version')} is not supported "
                                 f"(want {VERSION})")
        for key, kind in (("game", str), ("game_params", dict), ("network", dict), ("play", dict)):
            if not isinstance(meta.get(key), kind):
                raise AgentFileError(f"{path}: AlphaZero agent file field {key!r} is "
                                     f"{'missing' if key not in meta else repr(meta[key])}")
        net, play = meta["network"], meta["play"]
        try:
            spec = farl_envs.game_spec(meta["game"], **meta["game_params"])
            for key in ("filters", "blocks", "hidden"):
                if isinstance(net[key], bool) or not isinstance(net[key], int):
                    raise TypeError(f"network {key} must be an integer, got {net[key]!r}")
            if not isinstance(net["kind"], str):
                raise TypeError("network kind must be text")
            sims = play["simulations"]
            if isinstance(sims, bool) or not isinstance(sims, int) or not 0 <= sims <= 100_000:
                raise ValueError(f"play simulations must be an integer in 0..100000, got {sims!r}")
            c = play["c_puct"]
            if isinstance(c, bool) or not isinstance(c, (int, float)) or not (math.isfinite(c) and c >= 0):
                raise ValueError(f"play c_puct must be a finite number >= 0, got {c!r}")
            shapes = parameter_shapes(spec, net["kind"], net["filters"], net["blocks"], net["hidden"])
        except (KeyError, TypeError, ValueError) as exc:
            raise AgentFileError(f"{path}: AlphaZero agent file describes no agent ({exc})") from None
        if game is not None and (game.name != spec.name or dict(game.params) != dict(spec.params)):
            raise AgentFileError(f"{path}: agent is for {spec.name} {spec.params}, not {game.name} {game.params}")
        limits = {"meta": f.members["meta"].nbytes}
        limits.update({f"net/{k}": 4 * int(np.prod(s)) for k, s in shapes.items()})
        arrays = f.arrays(limits)
    for k, s in shapes.items():
        a = arrays.get(f"net/{k}")
        if a is None or tuple(a.shape) != tuple(s) or a.dtype != np.float32:
            raise AgentFileError(f"{path}: network parameter {k} should be float32 {tuple(s)}, got "
                                 f"{'nothing' if a is None else f'{a.dtype} {tuple(a.shape)}'}")
        if not np.all(np.isfinite(a)):
            raise AgentFileError(f"{path}: network parameter {k} holds NaN or infinite values")
    return meta, spec, arrays


def load_agent(path, game=None, simulations: int | None = None) -> AlphaZeroAgent:
    """The agent in ``path`` as a player (``simulations``: None = the file's play setting)."""
    from farl_agents.alphazero.network import build_net, load_net_arrays

    meta, spec, arrays = read_agent_file(path, game)
    need_torch()
    ns = dict(meta["network"])
    net = build_net(spec, ns["kind"], ns["filters"], ns["blocks"], ns["hidden"])
    load_net_arrays(net, arrays)
    net.eval()
    sims = meta["play"]["simulations"] if simulations is None else simulations
    info = meta.get("info") if isinstance(meta.get("info"), dict) else {}
    return AlphaZeroAgent(spec, net, ns, sims, meta["play"]["c_puct"], info=info)
