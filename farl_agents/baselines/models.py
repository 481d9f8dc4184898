"""The baselines' SB3 models: algorithms, their hyperparameters, and building one on farl's Gymnasium envs.

The bottom of :mod:`farl_agents.baselines`: training (:mod:`~farl_agents.baselines.train`)
and reading saved files (:mod:`~farl_agents.baselines.files`) both build
their models here, from settings alone, so that a saved model is rebuilt
the same way it was first made. Importing this module does not import
torch; :func:`make_model` does.
"""
from __future__ import annotations

from farl_agents.baselines.envs import make_env
from farl_envs.core.spec import GameSpec

ALGOS = ("maskable-ppo", "dqn")
_ALGO_ALIASES = {"maskable-ppo": "maskable-ppo", "maskableppo": "maskable-ppo", "ppo": "maskable-ppo",
                 "dqn": "dqn"}
HYPERPARAMS = {
    "maskable-ppo": dict(n_steps=256, batch_size=64, n_epochs=10, learning_rate=3e-4, gamma=0.99,
                         gae_lambda=0.95, ent_coef=0.01, policy_kwargs=dict(net_arch=[128, 128])),
    "dqn": dict(learning_rate=2.5e-4, buffer_size=100_000, learning_starts=1_000, batch_size=64, gamma=0.99,
                train_freq=4, target_update_interval=2_000, exploration_fraction=0.2,
                exploration_final_eps=0.05, policy_kwargs=dict(net_arch=[128, 128])),
}
"""Defaults of each algorithm (SB3's names); ``hyperparams=`` overrides single entries.

PPO: SB3's defaults (2048 steps per rollout = 8 envs x 256, minibatch 64, 10
epochs) plus a little entropy bonus for self-play; DQN: SB3's defaults
scaled to budgets of 10^5 steps (smaller buffer, earlier start, target
copied every 2,000 steps, ε 1 → 0.05 over the first 20 % of the budget).
Both: an MLP of 128-128 units."""

N_ENVS = {"maskable-ppo": 8, "dqn": 1}
"""Parallel copies of the env (one process, stepped in turn: batches the network calls)."""


def check_algo(algo: str) -> str:
    """The algorithm's name in :data:`ALGOS` (``ppo`` and ``maskable_ppo`` are accepted too); else ``ValueError``."""
    key = str(algo).strip().lower().replace("_", "-")
    if key not in _ALGO_ALIASES:
        raise ValueError(f"unknown algorithm {algo!r}; choose one of {', '.join(ALGOS)}")
    return _ALGO_ALIASES[key]


def make_model(game: GameSpec, algo: str, opponents: list, seed: int = 0, hyperparams: dict | None = None,
               verbose: int = 0):
    """The SB3 model (MaskablePPO or MaskedDQN) on one wrapped env per entry of ``opponents``.

    ``opponents``: the wrapper opponent of each env (``None``: uniform random),
    see :func:`~farl_agents.baselines.envs.make_env`. ``hyperparams`` update
    :data:`HYPERPARAMS` entry by entry; unknown names raise ``ValueError``.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from farl_agents.baselines.dqn import MaskedDQN

    algo = check_algo(algo)
    if len(opponents) < 1:
        raise ValueError("a model needs at least one env")
    params = dict(game.params)

    def env_fn(i):
        return lambda: Monitor(make_env(game.name, seat="alternate", opponents=opponents[i], **params))

    venv = DummyVecEnv([env_fn(i) for i in range(len(opponents))])
    hp = dict(HYPERPARAMS[algo])
    if hyperparams:
        unknown = set(hyperparams) - set(hp) - {"policy_kwargs", "max_grad_norm", "clip_range", "vf_coef",
                                                "gradient_steps", "exploration_initial_eps", "tau"}
        if unknown:
            raise ValueError(f"unknown {algo} hyperparameters: {', '.join(sorted(unknown))}")
        hp.update(hyperparams)
    cls = MaskablePPO if algo == "maskable-ppo" else MaskedDQN
    model = cls("MlpPolicy", venv, seed=seed, verbose=verbose, device="cpu", **hp)
    attach_logger(model, verbose)
    return model


def attach_logger(model, verbose: int = 0) -> None:
    """Give ``model`` a logger that writes no folder: SB3's default one makes an empty ``SB3-<date>`` folder in
    the system's temporary directory on every ``learn`` (with ``verbose`` it prints the training table)."""
    import sys

    from stable_baselines3.common.logger import HumanOutputFormat, Logger

    model.set_logger(Logger(folder=None, output_formats=[HumanOutputFormat(sys.stdout)] if verbose else []))
