"""The descent learners (Cohen-Solal 2020) as a family of ``farl train``.

::

    farl train hex --algo descent --param size=6 --search descent --learning tree --heuristic depth-add --minutes 5
    farl train --resume runs/descent-hex-...

See :mod:`farl_agents.families` for what a family's hooks module provides.
The budget is training time (``--minutes``; evaluations do not count), so
``--eval-every`` and ``--stop-after`` are in training seconds; a curve point
is taken at the first game end past its time. A curve point measures f_θ
played by fixed-depth alpha-beta (``--eval-depth``, default 2, as
``farl tournament`` plays) from random 2-ply openings. The checkpoint is the
agent file plus a state file (replay memory, random streams). Timing makes
descent training non-deterministic: a resumed run is a consistent run, not a
bit-identical one.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file
from farl_agents.compile_notice import CompileWatch
from farl_agents.config_flags import ConfigFlags
from farl_agents.descent.agent import DescentAgent, load_agent, read_agent_file, save_agent
from farl_agents.descent.heuristics import HEURISTICS, make_heuristic
from farl_agents.descent.learning import LEARNINGS
from farl_agents.descent.selection import SELECTIONS
from farl_agents.descent.trainer import LEARN_SEARCHES, DescentConfig, DescentTrainer
from farl_agents.safe_files import AgentFileError, NpzFile

BUDGET_FLAG = "--minutes"
DEFAULT_ALGO = "descent"
DEFAULT_EVAL = {"eval_every": 15.0, "eval_vs": ("mcts100",), "eval_games": 10, "eval_starts": "random:2",
                "eval_depth": 2}
"""The learning curve without ``--eval-*`` flags: every 15 training seconds, 10 games per seat against
MCTS with 100 iterations, from random 2-ply openings, f_θ searched to depth 2."""
PLAY_ITERATIONS = 200
"""UBFMs iterations per move of a descent agent loaded by ``farl eval`` / ``farl play``."""
FLAGS = ConfigFlags(DescentConfig, skip=("game", "game_params"), choices={
    "search": LEARN_SEARCHES, "learning": LEARNINGS, "heuristic": HEURISTICS, "selection": SELECTIONS,
    "evaluation": ("ntuple", "conv")})


def presets() -> dict:
    return {}


def base_config(algo: str | None, game: str, preset: str | None) -> tuple[dict, dict]:
    if preset is not None:
        raise ValueError("the descent family has no presets; set its options with flags")
    return DescentConfig(game=game).to_dict(), {}


def algo_fields(algo: str) -> dict:
    return {}


def algo_name(config: DescentConfig) -> str:
    return f"descent-{config.search}-{config.learning}-{config.heuristic}"


def finish_config(config: DescentConfig, game) -> DescentConfig:
    """The settings with the run's game in them, checked (a clear error before any folder is made)."""
    import dataclasses

    config = dataclasses.replace(config, game=game.name, game_params=dict(game.params)).check()
    make_heuristic(config.heuristic, game)
    return config


def load_player(path, game=None):
    """``(player, GameSpec)``: the agent file played by UBFMs with :data:`PLAY_ITERATIONS` iterations."""
    agent = load_agent(path, game, search="ubfms", iterations=PLAY_ITERATIONS)
    return agent, agent.game


def state_limits(trainer: DescentTrainer, members) -> dict[str, int]:
    """The members of a checkpoint's state file (:meth:`DescentTrainer.state_arrays`) and the most bytes each
    may take: the replay memory the settings allow (boards of any integer type), the generators."""
    size = trainer.config.memory_size
    return {"replay_boards": 8 * size * trainer.game.n_cells, "replay_targets": 8 * size, "agent_rng": 8,
            "np_rng": 4 * 4096}


class Trainer:
    """A :class:`DescentTrainer` in a run (see :class:`farl_agents.runs.trainer.Trainer`)."""

    family = "descent"
    unit = "seconds"
    first_chunk = 2.0
    config_class = DescentConfig

    def __init__(self, trainer: DescentTrainer):
        self.agent = trainer

    @classmethod
    def create(cls, spec) -> "Trainer":
        return cls(DescentTrainer(spec.config))

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        if len(files) != 2:
            raise ValueError("a descent checkpoint is an agent file and a state file")
        trainer = DescentTrainer(spec.config)
        meta, _, ev, _, _ = read_agent_file(files[0], trainer.game)
        trainer.evaluation = ev
        trainer.rebuild_engine()
        with NpzFile(files[1], "descent training state file") as f:
            arrays = f.arrays(state_limits(trainer, f.members))
        try:
            trainer.restore(arrays, meta["info"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise AgentFileError(f"{files[1]}: not the training state of {files[0]} ({exc})") from None
        return cls(trainer)

    @property
    def total(self) -> float:
        return self.agent.total_seconds

    @property
    def done(self) -> float:
        return self.agent.elapsed

    @property
    def episodes(self) -> int:
        return self.agent.games

    @property
    def name(self) -> str:
        c = self.agent.config
        return f"descent {c.search}/{c.learning}/{c.heuristic}"

    def train_chunk(self, amount) -> tuple[int, float, float]:
        t = self.agent
        games, plies, (first, _, second) = t.games, t.plies, t.results
        with CompileWatch() as watch:  # the first games compile the searches for this game (once per cache)
            t.run(max(float(amount), 1e-9))
        t.elapsed = max(0.0, t.elapsed - watch.seconds)  # the budget counts training time, not compiling
        return t.games - games, float((t.results[0] - first) - (t.results[2] - second)), float(t.plies - plies)

    def save(self, folder: Path, stem: str) -> list[str]:
        t = self.agent
        with atomic_file(folder / f"{stem}-state.npz", "wb") as fh:
            np.savez_compressed(fh, **t.state_arrays())
        save_agent(folder / f"{stem}.npz", t.game, t.evaluation, t.config.heuristic, t.info())
        return [f"{stem}.npz", f"{stem}-state.npz"]

    def matches(self, spec) -> bool:
        return self.agent.config == spec.config

    def player(self, spec):
        t = self.agent
        depth = spec.eval_depth or DEFAULT_EVAL["eval_depth"]
        return DescentAgent(t.game, t.evaluation, t.heuristic, "ab", depth=depth, name=f"f_θ (ab d{depth})")


def curve_points(rows: list, vs: str) -> list[dict]:
    """A run's curve rows as ``{"train_seconds", "games", "score", "se"}`` per point (the form of the
    descent results file)."""
    return [{"train_seconds": r["train_seconds"], "games": r["episode"], "score": r[f"score_{vs}"],
             "se": r[f"se_{vs}"]} for r in rows if r.get(f"score_{vs}") is not None]


def legacy_run(folder: Path, record: dict) -> dict:
    """A farl 0.1 Descent run folder (``run.json`` with ``"algo": "descent"``, ``agent.npz``, ``state.npz`` and
    a ``curve.csv`` of its own columns) in the common layout's terms, for
    :func:`farl_agents.runs.legacy.upgrade`: the RunSpec's fields (its curve settings as the evaluation plan),
    the checkpoint files ``(source, name under checkpoints/)``, the training seconds and games done, and the
    curve's rows (score and standard error against its opponent, training seconds, games)."""
    config = DescentConfig.from_dict(record["config"])
    curve = record.get("curve") or {}
    enabled = bool(curve) and curve.get("every_seconds", 0) > 0
    plies = int(curve.get("opening_plies", 2))
    vs = curve.get("vs", "mcts100")
    spec = {"game": config.game, "game_params": config.game_params, "config": config,
            "eval_vs": (vs,) if enabled else (), "eval_every": float(curve.get("every_seconds", 0)) if enabled else 0,
            "eval_games": int(curve.get("games", 10)), "eval_starts": f"random:{plies}" if plies else "initial",
            "eval_seed": int(curve.get("seed", 0)), "eval_depth": int(curve.get("depth", 2))}
    meta = read_agent_file(folder / "agent.npz")[0]
    games, seconds = int(meta["info"]["games"]), float(meta["info"]["train_seconds"])
    rows = []
    if enabled and (folder / "curve.csv").exists():
        with open(folder / "curve.csv", newline="") as fh:
            for r in csv.DictReader(fh):
                if int(r["games"]) <= games:
                    rows.append({"episode": int(r["games"]), "train_seconds": float(r["train_seconds"]),
                                 "wall_seconds": None, "train_reward": None, "train_plies": None,
                                 f"score_{vs}": float(r["score"]), f"se_{vs}": float(r["se"])})
    stem = f"agent-{games:012d}-{int(1000 * seconds):012d}ms"
    files = [(folder / "agent.npz", f"{stem}.npz"), (folder / "state.npz", f"{stem}-state.npz")]
    return {"spec": spec, "files": files, "done": seconds, "episodes": games, "rows": rows}
