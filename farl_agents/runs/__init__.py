"""Training runs for every learner family: one folder layout, checkpoints, resume, progress, curves.

* :mod:`~farl_agents.runs.run` — :class:`Run`: the folder, atomic checkpoints (marker last), resume,
  Ctrl-C, the progress bar, curve points;
* :mod:`~farl_agents.runs.spec` — :class:`RunSpec`, what a run is (``run.json``);
* :mod:`~farl_agents.runs.trainer` — the :class:`Trainer` protocol a learner family implements;
* :mod:`~farl_agents.runs.evaluation` — start sets and scores of the curve points' evaluations;
* :mod:`~farl_agents.runs.curve` — ``curve.csv``, ``curve.png`` and farl's one plotter (panels of series);
* :mod:`~farl_agents.runs.legacy` — farl 0.1's Nemesh and Descent folders, upgraded on resume.
"""
from farl_agents.runs.curve import ALONE, read_curve
from farl_agents.runs.evaluation import start_states
from farl_agents.runs.run import Run, summary_line
from farl_agents.runs.spec import LostCheckpoint, RunError, RunSpec, read_spec

__all__ = ["ALONE", "LostCheckpoint", "Run", "RunError", "RunSpec", "read_curve", "read_spec", "start_states",
           "summary_line"]
