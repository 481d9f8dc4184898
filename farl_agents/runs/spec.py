"""What a run is: :class:`RunSpec`, stored as ``run.json`` and fixed for the run's life."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import farl_envs
from farl_agents import families
from farl_agents.runs.curve import ALONE
from farl_agents.safe_files import read_json
from farl_agents.safety import RunError


class LostCheckpoint(RunError):
    """The checkpoint marker names an agent file that is gone (in a fresh clone, say: checkpoint
    agents are not committed). Such a run cannot continue, only start again from episode 0."""

    def __init__(self, folder: Path, agent_file: str):
        self.folder, self.agent_file = Path(folder), agent_file
        super().__init__(f"{folder}: the checkpoint's agent {agent_file} is missing (checkpoint agents are "
                         f"not committed with a run); start the run again in a new folder")


DEFAULT_CURVE_POINTS = 20
"""Without ``eval_every``, a run has this many curve intervals."""


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a training run, for every learner family."""

    game: str
    """Short game name, e.g. ``"tictactoe"``."""
    game_params: dict
    """The game's parameters, e.g. ``{"cols": 8}`` (empty: the game's defaults)."""
    config: object
    """The family's settings (``LearnerConfig``, ``NemeshConfig``, ``DescentConfig``), including the budget
    and the seed."""
    eval_vs: tuple = ()
    """Opponents (``make_opponent`` names) played at every curve point; ``("alone",)`` for 2048; empty: none."""
    eval_every: float = 0
    """Units (episodes, games or training seconds) between curve points (0: a twentieth of the run)."""
    eval_games: int | None = None
    """Games per seat and opponent at each curve point (None: the harness default for the start set)."""
    eval_starts: str = "table1"
    """Start positions of the evaluations (see :func:`farl_agents.runs.evaluation.start_states`)."""
    eval_seed: int = 0
    """Seed of the evaluations (independent of the learner's random streams)."""
    eval_depth: int | None = None
    """Search depth of the evaluated player, for families that evaluate through a search (Descent's
    alpha-beta on f_θ; None: the family's default)."""
    family: str = "ntuple"
    """The learner family (:mod:`farl_agents.families`)."""

    def _afterstate_td_on_public_rewards(self, game, family) -> bool:
        """TD on afterstates may train a game with hidden information whose move rewards are public
        (``GameSpec.move_rewards_public``): it chooses by a move's reward and its afterstate's board, the mover's
        own view. SARSA and Q value the position *before* a move, whose board is the previous mover's view (his
        cards), so they may not."""
        return family.name == "ntuple" and game.move_rewards_public and self.config.algo == "td"

    def __post_init__(self):
        game = farl_envs.game_spec(self.game, **self.game_params)  # raises ValueError for bad names/params
        object.__setattr__(self, "game", game.name)
        object.__setattr__(self, "game_params", dict(game.params))
        object.__setattr__(self, "eval_vs", tuple(self.eval_vs))
        family = families.get(self.family)  # a known family
        if game.hidden_information and not family.observations_only and not self._afterstate_td_on_public_rewards(
                game, family):
            learners = ", ".join(f.name for f in families.FAMILIES if f.observations_only)
            also = " (or, since its move rewards are public, TD: --algo td-farl / td)" if game.move_rewards_public \
                else ""
            raise ValueError(f"{game.id} hides information (each seat sees its own cards), and the {family.name} "
                             f"learners read more than a seat may see (a move's reward at a showdown, or the full "
                             f"state); train it with a family that learns from observations alone: {learners}{also}")
        if self.eval_every < 0:
            raise ValueError("eval_every must be >= 0")
        if self.eval_games is not None and self.eval_games < 1:
            raise ValueError("eval_games must be >= 1")
        if self.eval_depth is not None and self.eval_depth < 1:
            raise ValueError("eval_depth must be >= 1")
        if game.n_players == 1 and self.eval_vs not in ((), (ALONE,)):
            raise ValueError(f"{game.id} is a one-player game: it is evaluated alone, not against {self.eval_vs}")
        if game.n_players > 1 and ALONE in self.eval_vs:
            raise ValueError(f"{game.id} has {game.n_players} players: name the opponents to evaluate against")

    def every(self, total: float) -> float:
        """Units between curve points for a run of ``total`` units (whole units when the run counts them:
        episodes, games or steps, whose chunks end on a curve point; a fractional ``eval_every`` there would
        leave chunks of one episode between a point and the next whole unit)."""
        if self.eval_every:
            return max(1, math.ceil(self.eval_every)) if isinstance(total, int) else self.eval_every
        step = total / DEFAULT_CURVE_POINTS
        return max(1, int(step)) if isinstance(total, int) else step

    def curve_points(self, total: float) -> list:
        """The progress values after which the curve gets a row: 0, every, 2·every, ..., total."""
        every = self.every(total)
        points, k = [], 0
        while k * every < total:
            points.append(k * every)
            k += 1
        return sorted(set(points) | {total})

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["config"] = self.config.to_dict()
        d["eval_vs"] = list(self.eval_vs)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RunSpec":
        d = dict(d)
        family = d.get("family", "ntuple")  # farl 0.1 n-tuple runs do not name their family
        d["family"] = family
        d["config"] = families.get(family).trainer().config_class.from_dict(d["config"])
        d["eval_vs"] = tuple(d.get("eval_vs", ()))
        return cls(**d)


def read_spec(folder) -> RunSpec:
    """The :class:`RunSpec` stored in ``folder/run.json``."""
    path = Path(folder) / "run.json"
    if not path.is_file():
        raise RunError(f"{folder} is not a farl run folder (no run.json)")
    try:
        info = read_json(path)
        keys = {f.name for f in dataclasses.fields(RunSpec)}
        return RunSpec.from_dict({k: v for k, v in info.items() if k in keys})
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RunError(f"{path} is not a readable farl run description ({exc})") from None
