"""What a learner family provides so that :class:`~farl_agents.runs.run.Run` can train it.

Every family (the n-tuple TD/SARSA/Q learners, Nemesh, Descent, the ones to
come) trains through the same run folder, checkpoints, resume, progress bar
and learning curve. The family's side is a small class with this shape; the
run never looks inside the learner.
"""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Protocol


class Trainer(Protocol):
    """A learner being trained, as the run sees it.

    ``unit`` is what the budget, ``--eval-every`` and ``--stop-after``
    count: ``"episodes"`` (n-tuple self-play episodes), ``"games"`` (Nemesh
    games), ``"seconds"`` (Descent's training time, evaluations excluded) or
    ``"steps"`` (the SB3 baselines' environment steps).
    """

    family: ClassVar[str]
    """The family's name as recorded in ``run.json`` (``"ntuple"``, ``"nemesh"``, ``"descent"``)."""
    unit: ClassVar[str]
    first_chunk: ClassVar[float]
    """Units in the first training chunk (later chunks are sized by time)."""
    config_class: ClassVar[type]
    """The family's frozen settings dataclass (``to_dict`` / ``from_dict``)."""
    agent: object
    """The learner itself (``NTupleAgent``, ``NemeshAgent``, ``DescentTrainer``)."""

    @classmethod
    def create(cls, spec) -> "Trainer":
        """A fresh learner for ``spec`` (a ``RunSpec``); ValueError on bad settings."""

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        """The learner saved in ``files`` (what :meth:`save` wrote); ValueError/OSError if unusable."""

    @property
    def total(self) -> float:
        """The length of the run, in units."""

    @property
    def done(self) -> float:
        """Units trained so far."""

    @property
    def episodes(self) -> int:
        """Training games played so far (the curve's ``episode`` column)."""

    @property
    def name(self) -> str:
        """A short label for titles and progress bars."""

    def prepare(self) -> None:
        """Optional: compile the training loop (or load it from numba's cache) without training, changing no
        weight and drawing no random number. The run calls it before its clock starts, under a notice
        (:mod:`farl_agents.compile_notice`); a family without it compiles in its first chunk, whose compile
        seconds the run takes out of the training time all the same."""

    def train_chunk(self, amount: float) -> tuple[int, float, float | None]:
        """Train for ``amount`` units (at least one game); returns (games, sum of player 0's rewards,
        sum of plies or None)."""

    def save(self, folder: Path, stem: str) -> list[str]:
        """Write a checkpoint as files ``folder/<stem>*``; return their names, the agent file first
        (the one ``farl eval`` and ``farl play`` read)."""

    def matches(self, spec) -> bool:
        """Whether this learner (just loaded) has the settings ``spec`` describes."""

    def player(self, spec):
        """The harness player that curve points evaluate (``act(game, state, rng)``)."""
