"""``train_baseline``: one MaskablePPO or masked-DQN run on a farl game, with a learning curve.

The run trains through the registered Gymnasium wrapper (``farl/<Game>-v0``,
seat ``"alternate"`` so the network plays every seat) against the training
opponent, under a budget of environment steps and/or minutes of training
wall-clock, and evaluates the greedy policy (:class:`SB3Player`) with the
farl harness at checkpoints of each budget (factors of 2 apart, ending at
the budget). Evaluation time is not charged to the training clock.

Environment steps are the learner's own moves (opponents' replies happen
inside ``step``).
"""
from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.baselines.envs import PlayerOpponent
from farl_agents.baselines.files import save_baseline
from farl_agents.baselines.measure import Budget, Checkpoints, Evaluator, curve_row, plot_curves, write_curve_csv
from farl_agents.baselines.models import ALGOS, HYPERPARAMS, N_ENVS, attach_logger, check_algo, make_model
from farl_envs.core.spec import GameSpec

__all__ = ["ALGOS", "HYPERPARAMS", "N_ENVS", "attach_logger", "build_model", "check_algo", "run_sb3",
           "train_baseline"]

OPPONENT_CHOICES = ("self-play", "random", "<any farl opponent name, e.g. mcts50>")

DEFAULT_TIMESTEPS = {"tictactoe": 100_000, "connect_four": 200_000, "hex": 200_000, "othello": 200_000,
                     "game2048": 100_000, "nim": 50_000, "nim3p": 50_000}
"""Budget of ``train_baseline`` when neither ``timesteps`` nor ``minutes`` is given."""

SNAPSHOT_EVERY = 10_000
"""Self-play: steps between copies of the learner into the frozen opponent."""


# ------------------------------------------------------------ SB3 pieces
def _check_budget(timesteps, minutes, game: GameSpec):
    if timesteps is not None and (isinstance(timesteps, bool) or not isinstance(timesteps, (int, np.integer))
                                  or timesteps < 1):
        raise ValueError(f"timesteps must be an integer >= 1, got {timesteps!r}")
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, (int, float, np.number))
                                or not math.isfinite(minutes) or minutes <= 0):
        raise ValueError(f"minutes must be a number > 0, got {minutes!r}")
    if timesteps is None and minutes is None:
        timesteps = DEFAULT_TIMESTEPS[game.name]
    return Budget(None if timesteps is None else int(timesteps), None if minutes is None else 60.0 * float(minutes))


def _training_opponents(game: GameSpec, opponent: str, n_envs: int, seed: int):
    """One wrapper-opponent per env (``None`` = uniform random), and the snapshot opponent if self-play."""
    if game.n_players == 1:
        return [None] * n_envs, None
    if not isinstance(opponent, str) or not opponent.strip():
        raise ValueError(f"opponent must be 'self-play', 'random' or a farl opponent name, got {opponent!r}")
    key = opponent.strip().lower()
    if key in ("self-play", "selfplay", "self"):
        from farl_agents.baselines.players import SnapshotOpponent
        snap = SnapshotOpponent(game, seed=seed + 7919)
        return [snap] * n_envs, snap
    if key == "random":
        return [None] * n_envs, None
    from farl_agents.opponents import make_opponent
    make_opponent(key, game)  # validates the name for this game (ValueError)
    return [PlayerOpponent(make_opponent(key, game), seed=seed + 7919 + i) for i in range(n_envs)], None


def build_model(game: GameSpec, algo: str, seed: int = 0, opponent: str = "self-play", n_envs: int | None = None,
                hyperparams: dict | None = None, verbose: int = 0):
    """The SB3 model (MaskablePPO or MaskedDQN) on ``n_envs`` wrapped envs, and the snapshot opponent (or None)."""
    algo = check_algo(algo)
    n_envs = N_ENVS[algo] if n_envs is None else int(n_envs)
    if n_envs < 1:
        raise ValueError(f"n_envs must be >= 1, got {n_envs}")
    opps, snap = _training_opponents(game, opponent, n_envs, seed)
    return make_model(game, algo, opps, seed=seed, hyperparams=hyperparams, verbose=verbose), snap

def _curve_callback(budget: Budget, checkpoints: Checkpoints, evaluator, game: GameSpec, label: str, rows: list,
                    on_checkpoint=None):
    """An SB3 callback that starts the budget's clock, evaluates at the checkpoints and stops at the budget.

    Each checkpoint appends a :func:`curve_row` to ``rows`` and calls
    ``on_checkpoint(row, player)``; both run outside the training clock.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    from farl_agents.baselines.players import SB3Player

    class CurveCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.episodes = 0

        def _record(self, marks, seconds=None):
            seconds = budget.elapsed() if seconds is None else seconds
            with budget.paused():
                player = SB3Player(self.model, game, name=label)
                row = curve_row(self.num_timesteps, seconds, self.episodes, marks, evaluator(player))
                rows.append(row)
                if on_checkpoint is not None:
                    on_checkpoint(row, player)

        def _on_training_start(self):
            budget.start()
            self._record([])

        def _on_step(self) -> bool:
            self.episodes += int(np.sum(self.locals.get("dones", 0)))
            seconds = budget.elapsed()
            marks = checkpoints.due(self.num_timesteps, seconds)
            if marks:
                self._record(marks, seconds)
            return not budget.done(self.num_timesteps, seconds)

    return CurveCallback()


def run_sb3(game: GameSpec, algo: str, budget: Budget, *, seed: int = 0, opponent: str = "self-play",
            evaluator=None, eval_points: int = 10, snapshot_every: int | None = None, n_envs: int | None = None,
            hyperparams: dict | None = None, progress_bar: bool = False, threads: int = 1, verbose: int = 0,
            on_checkpoint=None, label: str | None = None):
    """Train under ``budget`` with checkpoint evaluations; returns ``(model, rows, snapshot_opponent)``."""
    import torch
    from stable_baselines3.common.callbacks import CallbackList

    from farl_agents.baselines.players import SnapshotCallback

    algo = check_algo(algo)
    if threads is not None:
        torch.set_num_threads(int(threads))
    model, snap = build_model(game, algo, seed=seed, opponent=opponent, n_envs=n_envs, hyperparams=hyperparams,
                              verbose=verbose)
    if algo == "dqn":
        model.budget = budget
    evaluator = evaluator if evaluator is not None else Evaluator(game)
    rows: list = []
    callbacks = []
    if snap is not None:
        callbacks.append(SnapshotCallback(snap, SNAPSHOT_EVERY if snapshot_every is None else int(snapshot_every)))
    callbacks.append(_curve_callback(budget, Checkpoints(budget, eval_points), evaluator, game, label or algo, rows,
                                     on_checkpoint))
    # learn() stops through the callback; total_timesteps only bounds it (and sizes the progress bar)
    total = budget.steps + model.n_envs if budget.seconds is None else 10 ** 12
    # SB3's bar counts towards total_timesteps: shown for step budgets only
    model.learn(total_timesteps=int(total), callback=CallbackList(callbacks),
                progress_bar=progress_bar and budget.seconds is None)
    if algo == "dqn":
        model.budget = None
    return model, rows, snap


# --------------------------------------------------------------- the API
def train_baseline(game: str, algo: str, timesteps: int | None = None, minutes: float | None = None, seed: int = 0,
                   opponent: str = "self-play", out=None, *, eval_opponents=None, eval_games: int | None = None,
                   eval_points: int = 10, snapshot_every: int | None = None, n_envs: int | None = None,
                   hyperparams: dict | None = None, progress_bar: bool = False, threads: int = 1,
                   verbose: int = 0, **game_params):
    """Train MaskablePPO or masked DQN on ``game`` and record its learning curve.

    Args:
        game: farl game name (``"tictactoe"``, ``"connect_four"``, ``"game2048"`` ...).
        algo: ``"maskable-ppo"`` or ``"dqn"``.
        timesteps: budget in environment steps (the learner's moves).
        minutes: budget in minutes of training wall-clock (evaluations excluded).
            With both, training runs until both are spent; with neither,
            :data:`DEFAULT_TIMESTEPS` of the game.
        seed: seeds SB3 (torch, numpy), the envs and the opponents.
        opponent: ``"self-play"`` (default: a frozen copy of the learner,
            refreshed every ``snapshot_every`` steps), ``"random"``, or any
            :func:`~farl_agents.opponents.make_opponent` name (``"mcts50"``).
            Ignored for 2048.
        out: directory for ``model.zip`` (SB3), ``curve.csv``, ``curve.png``
            and ``run.json``; ``None`` saves nothing.
        eval_opponents / eval_games / eval_points: the checkpoint evaluations
            (default :func:`eval_opponents`, :func:`eval_games`, 10 per budget).
        n_envs, hyperparams: see :data:`N_ENVS`, :data:`HYPERPARAMS`.
        progress_bar: SB3's progress bar (step budgets only).
        threads: torch threads (1: one core).
        **game_params: the game's parameters (``cols=8``).

    Returns:
        ``(model, info)``: the SB3 model and a JSON-friendly dict (``curve``:
        one row per checkpoint with steps, seconds and scores; ``final``: the
        last row; ``files``).
    """
    spec = farl_envs.game_spec(game, **game_params)
    algo = check_algo(algo)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    budget = _check_budget(timesteps, minutes, spec)
    evaluator = Evaluator(spec, eval_opponents, eval_games)
    t0 = time.perf_counter()
    model, rows, snap = run_sb3(spec, algo, budget, seed=int(seed), opponent=opponent, evaluator=evaluator,
                                eval_points=eval_points, snapshot_every=snapshot_every, n_envs=n_envs,
                                hyperparams=hyperparams, progress_bar=progress_bar, threads=threads,
                                verbose=verbose)
    info = {"game": spec.name, "params": dict(spec.params), "algo": algo, "seed": int(seed),
            "opponent": opponent if spec.n_players > 1 else None, "timesteps": int(model.num_timesteps),
            "train_seconds": rows[-1]["seconds"] if rows else None, "total_seconds": time.perf_counter() - t0,
            "budget": {"timesteps": budget.steps, "minutes": None if budget.seconds is None else budget.seconds / 60},
            "eval": {"opponents": evaluator.labels, "games_per_seat": evaluator.n_games},
            "snapshot_refreshes": None if snap is None else snap.refreshes,
            "hyperparams": {**HYPERPARAMS[algo], **(hyperparams or {})},
            "curve": rows, "final": rows[-1] if rows else None, "files": {}}
    if out is not None:
        info["files"] = save_run(model, info, out)
    return model, info


def save_run(model, info: dict, out) -> dict:
    """Write ``model.zip``, ``curve.csv``, ``curve.png`` and ``run.json`` into directory ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"model": str(out / "model.zip"), "curve_csv": str(out / "curve.csv"),
             "curve_png": str(out / "curve.png"), "run": str(out / "run.json")}
    save_baseline(model, files["model"], farl_envs.game_spec(info["game"], **info["params"]), info["algo"],
                  info["hyperparams"])
    write_curve_csv(info["curve"], files["curve_csv"])
    metric = "win rate" if info["eval"]["opponents"] != ["score"] else "mean score"
    plot_curves({info["algo"]: info["curve"]}, info["eval"]["opponents"], files["curve_png"],
                f"{info['algo']} on {info['game']} {info['params'] or ''}".rstrip(), metric)
    tmp = files["run"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump({**info, "files": files}, f, indent=1, default=str)
    os.replace(tmp, files["run"])
    return files
