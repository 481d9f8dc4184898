"""Agent Nemesh (Shalita, Saranga & Haim 2013) as a family of ``farl train``.

::

    farl train connect_four --algo nemesh --preset report --param cols=8    # the report's curriculum on 6x8
    farl train connect_four --algo nemesh --preset quick --out runs/nm        # a few minutes
    farl train --resume runs/nm                                               # after Ctrl-C or a crash

See :mod:`farl_agents.families` for what a family's hooks module provides.
The budget is the curriculum's game count; a chunk is a few games of the
current session (the curriculum resumes mid-session, so chunk sizes never
change the weights); the checkpoint is the agent file, which carries its
place in the curriculum and its random stream.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from farl_agents.config_flags import ConfigFlags, check_field_types, settings_from_dict
from farl_agents.nemesh import trainer as curriculum
from farl_agents.nemesh.agent import NemeshAgent, connect_four
from farl_agents.nemesh.learner import ALPHA0, GAMMA

BUDGET_FLAG = "--fraction"
DEFAULT_ALGO = "nemesh"


@dataclass(frozen=True)
class NemeshConfig:
    """The settings of a Nemesh training run (saved in ``run.json``)."""

    preset: str = "report"
    """The curriculum: report (1,000 games vs random at depth 3, then 3 x 100,000 self-play games at depth
    3/4/5) or quick (150 games, a few minutes)."""
    fraction: float = 1.0
    """Multiply every session's game count by this (e.g. 0.01 for a 1 % run of the report's curriculum)."""
    depth: int | None = None
    """Search depth the trained agent plays with (None: the last session's depth)."""
    alpha0: float = ALPHA0
    """alpha0 of the learning rate alpha0 / (1 + T0 + turn)."""
    gamma: float = GAMMA
    """Discount rate (the report: 0.8)."""
    seed: int = 0
    """Seed of the training stream."""

    def __post_init__(self):
        check_field_types(self)  # TypeError / ValueError naming the field (fraction=nan, seed=True, ...)
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"NemeshConfig.depth must be >= 1 or None, got {self.depth}")
        if self.seed < 0:
            raise ValueError(f"NemeshConfig.seed must be >= 0, got {self.seed}")
        curriculum.preset(self.preset)  # ValueError naming the presets
        self.sessions()  # ValueError for a bad fraction

    def sessions(self) -> tuple:
        """The curriculum's sessions, game counts scaled by ``fraction``."""
        sessions = curriculum.preset(self.preset)
        return sessions if self.fraction == 1.0 else curriculum.scaled(sessions, self.fraction)

    def play_depth(self) -> int:
        return self.depth if self.depth is not None else self.sessions()[-1].depth

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "NemeshConfig":
        return settings_from_dict(cls, d, "Nemesh options")


FLAGS = ConfigFlags(NemeshConfig, skip=("preset",), choices={})


def presets() -> dict:
    """``--preset`` name -> what it is."""
    return {name: f"curriculum of {curriculum.total_games(s):,} games" for name, s in curriculum.PRESETS.items()}


def base_config(algo: str | None, game: str, preset: str | None) -> tuple[dict, dict]:
    if game != "connect_four":
        raise ValueError(f"Nemesh plays connect_four only, not {game!r}")
    return NemeshConfig(preset=preset or "report").to_dict(), {}


def algo_fields(algo: str) -> dict:
    return {}


def algo_name(config: NemeshConfig) -> str:
    return "nemesh"


def load_player(path, game=None):
    """``(NemeshAgent, its GameSpec)`` from a Nemesh agent file; ``game`` (a GameSpec), if given, must match."""
    try:
        agent = NemeshAgent.load(path, game)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    return agent, agent.game


class Trainer:
    """A :class:`NemeshAgent` going through its curriculum (see :class:`farl_agents.runs.trainer.Trainer`)."""

    family = "nemesh"
    unit = "games"
    first_chunk = 20
    config_class = NemeshConfig

    def __init__(self, agent: NemeshAgent, config: NemeshConfig):
        self.agent = agent
        self.config = config
        self.sessions = config.sessions()
        curriculum.start(agent, self.sessions)

    @classmethod
    def create(cls, spec) -> "Trainer":
        c = spec.config
        agent = NemeshAgent(rows=spec.game_params["rows"], cols=spec.game_params["cols"], depth=c.play_depth(),
                            alpha0=c.alpha0, gamma=c.gamma, seed=c.seed)
        return cls(agent, c)

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        return cls(NemeshAgent.load(files[0], connect_four(**spec.game_params)), spec.config)

    @property
    def total(self) -> int:
        return curriculum.total_games(self.sessions)

    @property
    def done(self) -> int:
        return self.agent.games_done

    @property
    def episodes(self) -> int:
        return self.agent.games_done

    @property
    def name(self) -> str:
        return f"nemesh d{self.agent.depth}"

    def train_chunk(self, amount) -> tuple[int, float, float]:
        results = curriculum.train(self.agent, self.sessions, chunk_games=int(amount),
                                   on_chunk=lambda agent, res: False)
        return int(results.shape[0]), float(results[:, 0].sum()), float(results[:, 2].sum())

    def save(self, folder: Path, stem: str) -> list[str]:
        self.agent.save(folder / f"{stem}.npz")
        return [f"{stem}.npz"]

    def matches(self, spec) -> bool:
        s, c = self.agent.settings, spec.config
        return (self.agent.game.params == spec.game_params and s.depth == c.play_depth() and s.alpha0 == c.alpha0
                and s.gamma == c.gamma and s.seed == c.seed
                and self.agent.progress.get("sessions") == curriculum.sessions_to_json(c.sessions()))

    def player(self, spec):
        return self.agent


DEFAULT_EVAL: dict = {}
"""Nemesh runs have no curve unless ``--eval-vs`` names an opponent."""


def finish_config(config: NemeshConfig, game) -> NemeshConfig:
    """The settings as given (the board size is a game parameter, checked by the game)."""
    return config


def legacy_run(folder: Path, record: dict) -> dict:
    """A farl 0.1 Nemesh run folder (``run.json`` with ``"algo": "nemesh"``, ``checkpoint.npz``) in the common
    layout's terms, for :func:`farl_agents.runs.legacy.upgrade`: the RunSpec's fields, the checkpoint files
    ``(source, name under checkpoints/)``, the units and games done, and the curve rows (none: farl 0.1 kept
    no Nemesh curve). farl 0.1 wrote ``agent.npz`` only at the end of a Nemesh run, so the upgrade publishes
    the checkpoint there."""
    s = record["settings"]
    config = NemeshConfig(preset=record["preset"], fraction=float(record["fraction"]), depth=int(s["depth"]),
                          alpha0=float(s["alpha0"]), gamma=float(s["gamma"]), seed=int(s["seed"]))
    games = int(record["games_done"])
    return {"spec": {"game": record["game"], "game_params": record["game_params"], "config": config},
            "files": [(folder / "checkpoint.npz", f"agent-{games:012d}.npz")], "done": games, "episodes": games,
            "rows": []}
