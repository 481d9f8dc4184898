"""AlphaZero (Silver et al. 2018; N players as Petosa & Balch 2019) as a family of ``farl train``.

::

    farl train tictactoe --algo alphazero --minutes 3 --out runs/az-ttt
    farl train --resume runs/az-ttt
    farl eval runs/az-ttt --vs maxn10

See :mod:`farl_agents.families` for what a family's hooks module provides and
:mod:`farl_agents.alphazero.selfplay` for the algorithm. The budget is training time (``--minutes``: self-play
and network updates; evaluations, checkpoints and compiling do not count), so ``--eval-every`` and
``--stop-after`` are in training seconds. A curve point plays the network with ``play_simulations`` PUCT
simulations per move. The checkpoint is the agent file plus a state file (Adam's moments, counters, the
numpy and torch generators, the replay buffer); the self-play games under way are not saved (a resumed run
starts new ones), and timing makes the run non-deterministic: a resumed run is a consistent run, not a
bit-identical one.

Importing this module imports no torch; creating or loading a trainer and loading an agent file for play
do (the ``baselines`` extra), and say how to install it when it is missing.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from farl_agents.alphazero.agent import AlphaZeroAgent, load_agent, need_torch, read_agent_file, save_agent
from farl_agents.alphazero.config import AlphaZeroConfig
from farl_agents.atomic import atomic_file
from farl_agents.compile_notice import CompileWatch
from farl_agents.config_flags import ConfigFlags
from farl_agents.safe_files import AgentFileError, NpzFile

BUDGET_FLAG = "--minutes"
DEFAULT_ALGO = "alphazero"
DEFAULT_EVAL = {"eval_every": 30.0, "eval_vs": ("mcts100",), "eval_games": 10, "eval_starts": "random:2"}
"""The learning curve without ``--eval-*`` flags: every 30 training seconds, 10 games per seat against MCTS
with 100 iterations, from random 2-ply openings."""
FLAGS = ConfigFlags(AlphaZeroConfig, choices={"network": ("auto", "resnet", "mlp")})


def presets() -> dict:
    return {}


def base_config(algo: str | None, game: str, preset: str | None) -> tuple[dict, dict]:
    if preset is not None:
        raise ValueError("the alphazero family has no presets; set its options with flags")
    return AlphaZeroConfig().to_dict(), {}


def algo_fields(algo: str) -> dict:
    return {}


def algo_name(config: AlphaZeroConfig) -> str:
    return "alphazero"


def finish_config(config: AlphaZeroConfig, game) -> AlphaZeroConfig:
    """The settings checked against the game (network shape and memory) before any folder is made."""
    from farl_agents.alphazero.network import net_kind, parameter_shapes

    need_torch()
    parameter_shapes(game, net_kind(game, config.network), config.filters, config.blocks, config.hidden)
    return config


def load_player(path, game=None):
    """``(AlphaZeroAgent, GameSpec)``: the agent file played with its saved number of PUCT simulations."""
    agent = load_agent(path, game)
    return agent, agent.game


class Trainer:
    """A :class:`~farl_agents.alphazero.selfplay.SelfPlay` learner in a run (see
    :class:`farl_agents.runs.trainer.Trainer`)."""

    family = "alphazero"
    unit = "seconds"
    first_chunk = 2.0
    config_class = AlphaZeroConfig

    def __init__(self, spec, learner):
        self.spec = spec
        self.agent = learner

    @classmethod
    def _learner(cls, spec):
        import farl_envs
        from farl_agents.alphazero.selfplay import SelfPlay

        need_torch()
        game = farl_envs.game_spec(spec.game, **spec.game_params)
        return SelfPlay(spec.config, game)

    @classmethod
    def create(cls, spec) -> "Trainer":
        return cls(spec, cls._learner(spec))

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        from farl_agents.alphazero.network import load_net_arrays

        if len(files) != 2:
            raise ValueError("an AlphaZero checkpoint is an agent file and a state file")
        learner = cls._learner(spec)
        meta, _, arrays = read_agent_file(files[0], learner.game)
        if meta["network"] != _net_settings(learner):
            raise AgentFileError(f"{files[0]}: its network is not the one run.json describes")
        try:
            load_net_arrays(learner.net, arrays)
            with NpzFile(files[1], "AlphaZero training state file") as f:
                state_meta = f.meta()
                state = f.arrays(learner.state_limits(len(list(learner.net.parameters()))))
            learner.restore(state_meta, state)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, AgentFileError):
                raise
            raise AgentFileError(f"{files[1]}: not the training state of {files[0]} ({exc})") from None
        return cls(spec, learner)

    @property
    def total(self) -> float:
        return 60.0 * self.spec.config.minutes

    @property
    def done(self) -> float:
        return self.agent.elapsed

    @property
    def episodes(self) -> int:
        return self.agent.games_played

    @property
    def name(self) -> str:
        return "AlphaZero"

    def prepare(self) -> None:
        self.agent.compile()

    def train_chunk(self, amount) -> tuple[int, float, float]:
        with CompileWatch() as watch:  # the first step compiles the search loops if prepare() did not
            games, reward0, plies = self.agent.run(max(float(amount), 1e-9))
        self.agent.elapsed = max(0.0, self.agent.elapsed - watch.seconds)
        return games, reward0, plies

    def save(self, folder: Path, stem: str) -> list[str]:
        a = self.agent
        meta, arrays = a.state_arrays()
        with atomic_file(folder / f"{stem}-state.npz", "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        c = self.spec.config
        info = {"games": a.games_played, "positions": a.positions, "updates": a.updates,
                "train_seconds": a.elapsed, "settings": dataclasses.asdict(c)}
        save_agent(folder / f"{stem}.npz", a.game, a.net, _net_settings(a), c.play_simulations, c.c_puct, info)
        return [f"{stem}.npz", f"{stem}-state.npz"]

    def matches(self, spec) -> bool:
        return self.spec.config == spec.config

    def player(self, spec):
        a, c = self.agent, spec.config
        return AlphaZeroAgent(a.game, a.net, _net_settings(a), c.play_simulations, c.c_puct,
                              name=f"alphazero{c.play_simulations}")


def _net_settings(learner) -> dict:
    from farl_agents.alphazero.network import net_kind

    c = learner.config
    return {"kind": net_kind(learner.game, c.network), "filters": c.filters, "blocks": c.blocks, "hidden": c.hidden}
