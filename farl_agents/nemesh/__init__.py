"""Agent Nemesh (Shalita, Saranga & Haim 2013): SARSA on 36 hand-made Connect Four features with alpha-beta look-ahead.

Modules, each with one job:

* :mod:`~farl_agents.nemesh.features` -- the 18 features per player, counted by numba from the kernel state;
* :mod:`~farl_agents.nemesh.search` -- forced moves and alpha-beta over the linear evaluation;
* :mod:`~farl_agents.nemesh.learner` -- the SARSA update, its schedules, initial weights, the compiled game loop;
* :mod:`~farl_agents.nemesh.trainer` -- sessions (RANDOM / TRAINER / AGENT) and the report's curriculum;
* :mod:`~farl_agents.nemesh.agent` -- :class:`NemeshAgent` (harness player, agent files);
* :mod:`~farl_agents.nemesh.family` -- the family's hooks: ``farl train connect_four --algo nemesh`` and agent
  files in ``farl eval``.

The measurements of ``docs/results/nemesh.md`` and ``nemesh_full.md`` are a study built on these modules, in
the source checkout's ``studies/nemesh/`` (not installed).
"""
from farl_agents.nemesh.agent import NemeshAgent, NemeshFileError
from farl_agents.nemesh.features import FEATURE_NAMES, N_FEATURES, state_features
from farl_agents.nemesh.trainer import PRESETS, Session, train, train_preset

__all__ = ["NemeshAgent", "NemeshFileError", "FEATURE_NAMES", "N_FEATURES", "state_features", "PRESETS",
           "Session", "train", "train_preset"]
