"""Deep-RL baselines: Stable-Baselines3 MaskablePPO and DQN on the farl games, judged by the same harness.

Needs the ``baselines`` extra (``pip install torch==2.13.0 && pip install "farl-rl[baselines]"``);
importing this package does not import torch — the names below load on first use.

=======================  ==========================================================
``train_baseline``       one MaskablePPO / masked-DQN run with a learning curve
                         (:mod:`~farl_agents.baselines.train`)
``SB3Player``            a trained model as a harness player (masked greedy)
``SnapshotOpponent``     frozen copy of the learner as a self-play opponent
``MaskedDQN``            SB3 DQN that never picks, explores or bootstraps illegal
                         actions (:mod:`~farl_agents.baselines.dqn`)
``make_env``             the registered Gymnasium env with the networks' observation
                         (:mod:`~farl_agents.baselines.envs`)
``load_baseline``        reload a saved ``model.zip``: rebuilt from its settings,
                         never unpickled (:mod:`~farl_agents.baselines.files`)
``save_baseline``        write one, with the settings as plain JSON
=======================  ==========================================================

>>> from farl_agents.baselines import train_baseline, SB3Player      # doctest: +SKIP
>>> model, info = train_baseline("tictactoe", "maskable-ppo", timesteps=50_000, out="runs/ttt-ppo")
>>> from farl_agents.evaluate import evaluate
>>> print(evaluate("tictactoe", SB3Player(model, "tictactoe"), ["maxn10", "random"]).table())

CLI: ``farl train GAME --algo maskable-ppo|dqn ...`` (the run stack; ``farl baseline`` is its deprecated
alias) and ``farl compare GAME ...`` (:mod:`farl_agents.baselines.cli`; TD-FARL against both at equal budgets,
a study of the source checkout: ``studies/compare/``).
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "train_baseline": "train", "load_baseline": "files", "save_baseline": "files", "Budget": "train",
    "Evaluator": "train",
    "ALGOS": "models", "HYPERPARAMS": "models",
    "SB3Player": "players", "SnapshotOpponent": "players", "SnapshotCallback": "players",
    "MaskedDQN": "dqn", "MaskedDQNPolicy": "dqn",
    "make_env": "envs", "encode": "envs", "PlayerOpponent": "envs", "BaselineEnv": "envs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        module = importlib.import_module(f"farl_agents.baselines.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'farl_agents.baselines' has no attribute {name!r}")
