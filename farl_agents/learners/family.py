"""The n-tuple learners (TD / SARSA / Q, with or without FARL) as a family of ``farl train``.

See :mod:`farl_agents.families` for what a family's hooks module provides.
The budget is ``LearnerConfig.episodes``; a chunk is ``NTupleAgent.train(n)``,
which continues exactly where it stopped, so chunk sizes never change the
weights; the checkpoint is the agent file itself.
"""
from __future__ import annotations

from pathlib import Path

from farl_agents.config_flags import ConfigFlags
from farl_agents.learners import config as config_module
from farl_agents.learners.agent import NTupleAgent, check_against_game, described_tuples
from farl_agents.learners.agent_io import AgentFileError
from farl_agents.learners.config import LearnerConfig
from farl_agents.learners.presets import (
    cube_config,
    cube_game,
    cube_names,
    nplayer_config,
    nplayer_game,
    nplayer_names,
    paper_config,
    paper_game_params,
    preset_names,
)
from farl_agents.opponents import make_opponent

ALGOS = {"td-farl": ("td", True), "td": ("td", False), "sarsa-farl": ("sarsa", True), "sarsa": ("sarsa", False),
         "q-farl": ("q", True), "q": ("q", False)}
"""``--algo`` name -> (LearnerConfig.algo, LearnerConfig.farl); "no FARL" switches both parts of final
adaptation off."""
DEFAULT_ALGO = "td-farl"
FLAGS = ConfigFlags(LearnerConfig, skip=("algo", "farl"), choices={
    "alpha_schedule": config_module.SCHEDULES, "epsilon_schedule": config_module.SCHEDULES,
    "trace_mode": config_module.TRACE_MODES, "tcl": config_module.TCL_MODES,
    "chance_target": config_module.CHANCE_TARGETS, "ntuples": config_module.NTUPLE_KINDS})
BUDGET_FLAG = "--episodes"


def connect_four_rows() -> list[str]:
    """The presets that are rows of Thill et al. 2014's Table I (Connect Four 7x6), not games."""
    import farl_envs

    return [n for n in preset_names() if n + "_v0" not in farl_envs.list_games()]


def presets() -> dict:
    """``--preset`` name -> what it is."""
    out = {"paper": "the game's settings of Konen & Bagheri 2020, Appendix A.6 (Table 1), with its Table 1 "
                    "parameters"}
    for row in connect_four_rows():
        out[row] = "rows of Thill et al. 2014's Table I (Connect Four 7x6)"
    for name in nplayer_names():
        out[name] = "farl's N-player Table 1 rows (beyond the paper), with their game parameters"
    for name in cube_names():
        out[name] = "GBG's Rubik's cube runs (Konen 2023), with their game parameters"
    return out


def base_config(algo: str | None, game: str, preset: str | None) -> tuple[dict, dict]:
    """``(LearnerConfig fields, game params)`` before any flag: the class defaults or a preset."""
    a, farl = ALGOS[algo or DEFAULT_ALGO]
    if preset is None:
        return LearnerConfig(algo=a, farl=farl, farl_terminal=farl).to_dict(), {}
    if preset in connect_four_rows() and game != "connect_four":
        raise ValueError(f"preset {preset!r} is a Connect Four row of Thill et al. 2014, not for {game}")
    if preset == "paper":
        return paper_config(game, algo=a, farl=farl).to_dict(), paper_game_params(game)
    if preset in connect_four_rows():
        return paper_config(preset, algo=a, farl=farl).to_dict(), paper_game_params(preset)
    if preset in nplayer_names():
        preset_game, params = nplayer_game(preset)
        if game != preset_game:
            raise ValueError(f"preset {preset!r} is for {preset_game}, not {game}")
        return nplayer_config(preset, algo=a, farl=farl).to_dict(), params
    if preset in cube_names():
        preset_game, params = cube_game(preset)
        if game != preset_game:
            raise ValueError(f"preset {preset!r} is for {preset_game}, not {game}")
        return cube_config(preset, algo=a, farl=farl).to_dict(), params
    raise ValueError(f"unknown preset {preset!r}; use one of {', '.join(presets())}")


def algo_fields(algo: str) -> dict:
    """The fields ``--algo algo`` sets."""
    a, farl = ALGOS[algo]
    return {"algo": a, "farl": farl}


def algo_name(config: LearnerConfig) -> str:
    return f"{config.algo}{'-farl' if config.farl else ''}"


def load_player(path, game=None):
    """``(NTupleAgent, its GameSpec)``; ``game`` (a GameSpec), when given, must match name and parameters."""
    try:
        agent = NTupleAgent.load(path, game=None if game is None else game.name)
    except FileNotFoundError:
        raise ValueError(f"no agent file at {path}") from None
    except AgentFileError as exc:
        raise ValueError(str(exc)) from None
    if game is not None and not agent.game.same_rules(game):  # start-only parameters may differ
        raise ValueError(f"{path} plays {agent.game.name} {agent.game.params}, not {game.params}")
    return agent, agent.game


class Trainer:
    """An :class:`NTupleAgent` in a run (see :class:`farl_agents.runs.trainer.Trainer`)."""

    family = "ntuple"
    unit = "episodes"
    first_chunk = 64
    config_class = LearnerConfig

    def __init__(self, agent: NTupleAgent):
        self.agent = agent
        if agent.config.teacher:  # the teaching seats' player (LearnerConfig.teacher)
            agent.teacher_player = make_opponent(agent.config.teacher, agent.game)

    @classmethod
    def create(cls, spec) -> "Trainer":
        return cls(NTupleAgent(spec.game, spec.config, **spec.game_params))

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        return cls(NTupleAgent.load(files[0], game=spec.game))

    @property
    def total(self) -> int:
        return self.agent.config.episodes

    @property
    def done(self) -> int:
        return self.agent.episodes_done

    @property
    def episodes(self) -> int:
        return self.agent.episodes_done

    @property
    def name(self) -> str:
        return self.agent.name

    def prepare(self) -> None:
        """Compile the self-play loop (or load it from the cache) before the run's clock starts."""
        self.agent.compile()

    def train_chunk(self, amount) -> tuple[int, float, float]:
        results = self.agent.train(int(amount))
        return int(results.shape[0]), float(results[:, 0].sum()), float(results[:, -1].sum())

    def save(self, folder: Path, stem: str) -> list[str]:
        self.agent.save(folder / f"{stem}.npz")
        return [f"{stem}.npz"]

    def matches(self, spec) -> bool:
        return self.agent.config == spec.config and self.agent.game.params == spec.game_params

    def player(self, spec):
        return self.agent


DEFAULT_EVAL: dict = {}
"""The n-tuple family's curve defaults are RunSpec's (Table 1 start sets, no opponent unless named)."""


def finish_config(config: LearnerConfig, game) -> LearnerConfig:
    """The settings as given, once ``game`` is found to take them (the checks the agent makes when it is built)."""
    check_against_game(config, game)
    if config.teacher:
        make_opponent(config.teacher, game)  # ValueError for a name it does not know, before a folder exists
    described_tuples(config, game)
    return config
