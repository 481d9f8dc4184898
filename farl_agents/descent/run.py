"""A descent configuration trained in a run folder, for scripts and ``farl tournament``: :func:`train_run`.

Above the run stack (it builds a :class:`~farl_agents.runs.Run`), so apart from the family's hooks module
(:mod:`farl_agents.descent.family`), which the run stack reaches through :mod:`farl_agents.families`.
"""
from __future__ import annotations

from pathlib import Path

from farl_agents.descent.family import DEFAULT_EVAL
from farl_agents.descent.trainer import DescentConfig
from farl_agents.runs import Run, RunSpec


def train_run(config: DescentConfig, folder, progress: bool = False, **plan) -> Run:
    """Train ``config`` in the run folder ``folder`` (or continue the run there; a finished run is left alone)
    and return the :class:`~farl_agents.runs.Run`. ``plan``: ``eval_*`` fields of the RunSpec (default
    :data:`~farl_agents.descent.family.DEFAULT_EVAL`); ``eval_every=0`` for no curve."""
    folder = Path(folder)
    if (folder / "run.json").exists():
        run = Run.open(folder)
    else:
        plan = {**DEFAULT_EVAL, **plan}
        if not plan["eval_every"]:
            plan["eval_vs"] = ()
        spec = RunSpec(config.game, config.game_params, config, family="descent", **plan)
        run = Run.create(folder, spec)
    if not run.finished:
        run.train(progress=progress)
    return run
