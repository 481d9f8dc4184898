"""A training run as a folder you can stop and continue: chunks, checkpoints, learning curve.

A run trains one :class:`~farl_agents.learners.NTupleAgent` for
``config.episodes`` self-play episodes and evaluates it at regular *curve
points* (episode 0, every ``eval_every`` episodes, and the last episode).
Everything lives in one folder::

    DIR/run.json           what the run is: game, params, learner config, evaluation plan,
                           farl version, command (written once, never changed)
    DIR/agent.npz          the agent at the last checkpoint (NTupleAgent.save format)
    DIR/curve.csv          the learning curve, one row per curve point: episode, wall seconds,
                           mean training reward of player 0 and plies since the previous row,
                           then score_<opp> and se_<opp> for every evaluation opponent
    DIR/curve.png          the same, drawn
    DIR/eval.json          the latest evaluation (EvalResult.to_dict, without per-game records)
    DIR/checkpoints/       agent-<episodes>.npz: the agent the marker refers to
    DIR/checkpoint.json    the checkpoint marker, written last

**Checkpoints.** Training runs in chunks (``agent.train(n)``, sized to take
about ``chunk_seconds``); a checkpoint is written after every evaluation, at
least every ``checkpoint_minutes``, when the run stops and on Ctrl-C. Every
file is written to a temporary name and moved into place with
``os.replace``; the marker ``checkpoint.json`` comes last and names the agent
file it belongs to (under ``checkpoints/``) together with the curve rows and
the training statistics of the unfinished curve interval. A run killed at
any instant therefore resumes from a consistent state: the last marker and
the agent file it names. ``agent.npz``, ``curve.csv`` and ``eval.json`` are
copies for people and tools; they may be one checkpoint ahead of the marker
after a crash and are rewritten on resume. A marker whose agent file is gone
(``checkpoints/`` is not committed with a run, so a fresh clone has only the
marker) is served by ``agent.npz`` when that holds the same episode count;
otherwise it raises ``LostCheckpoint``: ``farl train --resume`` stops with
that message, ``farl reproduce`` starts such a run again from episode 0.

**Determinism.** ``agent.train`` continues exactly where it stopped
(schedules by episode index, random streams and TCL accumulators in the
agent file), evaluations use their own seeded generators (never the
agent's), and a curve point's evaluation is redone on resume when the
checkpoint was taken before it. So a run that is stopped and resumed, any
number of times, ends with exactly the weights, and the same curve rows
(except wall time), of a run that never stopped.
"""
from __future__ import annotations

import csv
import dataclasses
import datetime
import io
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.evaluate import EvalResult, evaluate, positions_after
from farl_agents.learners import LearnerConfig, NTupleAgent
from farl_envs.core.rng import make_rng

MARKER_FORMAT = "farl-run-checkpoint"
MARKER_VERSION = 1
ALONE = "alone"
"""The evaluation "opponent" of one-player games (2048): the agent plays by itself."""
START_STATE_NAMES = ("table1", "initial", "all-1ply", "start+1ply", "othello-4ply", "othello-4ply-distinct",
                     "random:K")
#: the start set of each game's Table 1 evaluation (docs/notes/learner_spec.md §14); others: "initial"
TABLE1_STARTS = {"tictactoe": "start+1ply", "nim": "start+1ply", "nim3p": "start+1ply", "othello": "othello-4ply"}
CURVE_COLUMNS = ("episode", "wall_seconds", "train_reward", "train_plies")


class RunError(ValueError):
    """A run folder that cannot be used (missing, foreign, inconsistent, not writable)."""


class LostCheckpoint(RunError):
    """The checkpoint marker names an agent file that is gone (in a fresh clone, say: checkpoint
    agents are not committed). Such a run cannot continue, only start again from episode 0."""

    def __init__(self, folder: Path, agent_file: str):
        self.folder, self.agent_file = Path(folder), agent_file
        super().__init__(f"{folder}: the checkpoint's agent {agent_file} is missing (checkpoint agents are "
                         f"not committed with a run); start the run again in a new folder")


# ---------------------------------------------------------------- what a run is
@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a training run; stored as ``run.json`` and fixed for the run's life."""

    game: str
    """Short game name, e.g. ``"tictactoe"``."""
    game_params: dict
    """The game's parameters, e.g. ``{"cols": 8}`` (empty: the game's defaults)."""
    config: LearnerConfig
    """The learner; ``config.episodes`` is the length of the run and ``config.seed`` its seed."""
    eval_vs: tuple = ()
    """Opponents (``make_opponent`` names) played at every curve point; ``("alone",)`` for 2048; empty: none."""
    eval_every: int = 0
    """Episodes between curve points (0: a twentieth of the run)."""
    eval_games: int | None = None
    """Games per seat and opponent at each curve point (None: the harness default for the start set)."""
    eval_starts: str = "table1"
    """Start positions of the evaluations (see :func:`start_states`)."""
    eval_seed: int = 0
    """Seed of the evaluations (independent of the agent's random streams)."""

    def __post_init__(self):
        game = farl_envs.game_spec(self.game, **self.game_params)  # raises ValueError for bad names/params
        object.__setattr__(self, "game", game.name)
        object.__setattr__(self, "game_params", dict(game.params))
        object.__setattr__(self, "eval_vs", tuple(self.eval_vs))
        if self.eval_every < 0:
            raise ValueError("eval_every must be >= 0")
        if self.eval_games is not None and self.eval_games < 1:
            raise ValueError("eval_games must be >= 1")
        if game.n_players == 1 and self.eval_vs not in ((), (ALONE,)):
            raise ValueError(f"{game.id} is a one-player game: it is evaluated alone, not against {self.eval_vs}")
        if game.n_players > 1 and ALONE in self.eval_vs:
            raise ValueError(f"{game.id} has {game.n_players} players: name the opponents to evaluate against")

    @property
    def every(self) -> int:
        return self.eval_every or max(1, self.config.episodes // 20)

    def curve_points(self) -> list[int]:
        """The episodes after which the curve gets a row: 0, every, 2·every, ..., episodes."""
        total = self.config.episodes
        return sorted(set(range(0, total, self.every)) | {total})

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["config"] = self.config.to_dict()
        d["eval_vs"] = list(self.eval_vs)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RunSpec":
        d = dict(d)
        d["config"] = LearnerConfig.from_dict(d["config"])
        d["eval_vs"] = tuple(d.get("eval_vs", ()))
        return cls(**d)


# ----------------------------------------------------------- start positions
def start_states(game, spec: str):
    """The ``start_states`` argument of :func:`~farl_agents.evaluate.evaluate` for a start-set name.

    ``table1`` (the game's Table 1 set: start + 1-ply for TicTacToe and Nim,
    the 244 4-ply openings for Othello, else the initial position),
    ``initial``, ``all-1ply``, ``start+1ply`` (the initial position and every
    position after one move: GBG's "different starts"), ``othello-4ply``,
    ``othello-4ply-distinct`` or ``random:K`` (a fresh random K-ply opening per game).
    """
    if spec == "table1":
        spec = TABLE1_STARTS.get(game.name, "initial")
    if spec == "start+1ply":
        return [game.initial_state(game.p, make_rng(0))] + positions_after(game, 1)
    m = re.fullmatch(r"random:(\d+)", spec)
    if m:
        return ("random", int(m.group(1)))
    if spec in START_STATE_NAMES:
        return spec
    raise ValueError(f"unknown start states {spec!r}; use one of {', '.join(START_STATE_NAMES)}")


def evaluate_agent(agent, opponents, starts: str = "table1", n_games: int | None = None, seed: int = 0,
                   jobs: int = 1) -> EvalResult:
    """Evaluate ``agent`` greedily against ``opponents`` (names or players) in every seat.

    One-player games ignore ``opponents``. The harness seeds its own
    generators from ``seed``: the agent's random streams are not touched.
    """
    game = agent.game
    opps = None if game.n_players == 1 else list(opponents)
    return evaluate(game, agent, opps, n_games=n_games, start_states=start_states(game, starts), seed=seed,
                    jobs=jobs, keep_games=False)


def score_columns(eval_vs) -> list[str]:
    cols = []
    for o in eval_vs:
        cols += [f"score_{o}", f"se_{o}"]
    return cols


def scores_of(result: EvalResult, eval_vs) -> dict:
    """``{"score_<opp>": ..., "se_<opp>": ...}`` of an evaluation (win rate for two players, else mean score)."""
    out = {}
    for name, m in zip(eval_vs, result.matchups):
        se = m.win_rate_se if m.win_rate is not None else m.score_se
        out[f"score_{name}"], out[f"se_{name}"] = float(m.score), float(se)
    return out


# --------------------------------------------------------------- files
def _publish_copy(src: Path, dst: Path) -> None:
    """Make ``dst`` a copy of ``src`` atomically (a hard link when the file system allows)."""
    tmp = dst.with_name("." + dst.name + ".tmp")
    if tmp.exists():
        tmp.unlink()
    try:
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def ensure_writable(folder: Path) -> Path:
    """Create ``folder`` (and parents) and check that files can be written there."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise RunError(f"cannot write to {folder} ({exc.strerror or exc}): choose another output folder") from None
    return folder


def curve_csv(rows: list, eval_vs) -> str:
    cols = list(CURVE_COLUMNS) + score_columns(eval_vs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    def cell(c, x):
        if x is None:
            return ""
        if c == "episode":
            return int(x)
        return f"{x:.3f}" if c == "wall_seconds" else f"{x:.7g}"

    for r in rows:
        w.writerow([cell(c, r.get(c)) for c in cols])
    return buf.getvalue()


def read_curve(path) -> list[dict]:
    """The rows of a ``curve.csv`` as dicts of floats (None for empty cells); ``episode`` is an int."""
    with open(path, newline="") as f:
        rows = []
        for r in csv.DictReader(f):
            rows.append({k: (None if v == "" else (int(v) if k == "episode" else float(v))) for k, v in r.items()})
    return rows


def plot_curve(rows: list, eval_vs, path, title: str) -> None:
    """Draw a run's curve: evaluation scores (left axis) and the mean training reward (right axis)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    x = [r["episode"] for r in rows]
    for o in eval_vs:
        ys = [r.get(f"score_{o}") for r in rows]
        es = [r.get(f"se_{o}") for r in rows]
        pts = [(a, b, c) for a, b, c in zip(x, ys, es) if b is not None]
        if pts:
            xa, ya, ea = (np.array(v, dtype=float) for v in zip(*pts))
            ax.plot(xa, ya, marker="o", ms=3, label=f"vs {o}" if o != ALONE else "score (greedy)")
            ax.fill_between(xa, ya - ea, ya + ea, alpha=0.2)
    ax.set_xlabel("training episodes")
    ax.set_ylabel("evaluation score (win rate or mean score)")
    tr = [(a, r["train_reward"]) for a, r in zip(x, rows) if r.get("train_reward") is not None]
    if tr:
        ax2 = ax.twinx()
        ax2.plot(*zip(*tr), color="grey", lw=1, ls="--", label="training reward (player 0)")
        ax2.set_ylabel("mean training reward of player 0", color="grey")
        ax2.legend(loc="lower right", fontsize=8)
    if eval_vs:
        ax.legend(loc="upper left", fontsize=8)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = Path(path).with_name("." + Path(path).name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


# --------------------------------------------------------- stopping safely
class StopRequest:
    """While active, the first Ctrl-C (or SIGTERM) only asks the run to stop at the next safe point.

    A second Ctrl-C raises ``KeyboardInterrupt`` at once. Outside the main
    thread (where handlers cannot be set) it does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, message=None):
        self.signum = None
        self.message = message
        self._old = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def _handle(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signum = signum
        if self.message:
            self.message("stopping at the next safe point to write a checkpoint (Ctrl-C again aborts)")

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        for s, old in self._old.items():
            signal.signal(s, old)
        return False


# ------------------------------------------------------------------ the run
class Run:
    """A training run in ``folder``: create one with :meth:`create`, continue one with :meth:`open`."""

    def __init__(self, folder: Path, spec: RunSpec, agent: NTupleAgent, rows: list, pending: dict,
                 wall_seconds: float):
        self.folder = Path(folder)
        self.spec = spec
        self.agent = agent
        self.rows = rows
        """Curve rows so far (dicts with the keys of ``curve.csv``)."""
        self.pending = pending
        """Training statistics since the last curve row: episodes, reward_sum, plies_sum."""
        self._wall0 = wall_seconds
        self._t0 = time.perf_counter()
        self._last_checkpoint = time.monotonic()
        self._opponents = None
        self._plotted = 0
        self._last_plot = time.monotonic()
        self.interrupt_signal = None
        """The signal that interrupted the last :meth:`train` (``signal.SIGINT`` or ``SIGTERM``), if any."""
        self.last_eval: EvalResult | None = None

    # ------------------------------------------------------------ open/create
    @classmethod
    def create(cls, folder, spec: RunSpec, command: str | None = None) -> "Run":
        """Start a new run in ``folder`` (created; must not hold a run already)."""
        folder = ensure_writable(Path(folder))
        if (folder / "run.json").exists():
            raise RunError(f"{folder} already holds a run: continue it with `farl train --resume {folder}` "
                           f"or choose another output folder")
        agent = NTupleAgent(spec.game, spec.config, **spec.game_params)  # fails before any file is written
        info = {"format": "farl-run", "farl_version": farl_envs.__version__, "created":
                datetime.datetime.now().isoformat(timespec="seconds"), "command": command, **spec.to_dict()}
        atomic_write_json(folder / "run.json", info)
        return cls(folder, spec, agent, [], _no_pending(), 0.0)

    @classmethod
    def open(cls, folder) -> "Run":
        """Continue the run in ``folder`` from its last checkpoint (from scratch if it has none)."""
        folder = Path(folder)
        spec = read_spec(folder)
        ensure_writable(folder)
        for pattern in (".*.tmp", ".*.tmp.png", "checkpoints/*.tmp"):  # left behind by a killed writer
            for stray in folder.glob(pattern):
                stray.unlink(missing_ok=True)
        marker_path = folder / "checkpoint.json"
        if not marker_path.exists():
            return cls(folder, spec, NTupleAgent(spec.game, spec.config, **spec.game_params), [], _no_pending(), 0.0)
        try:
            marker = json.loads(marker_path.read_text())
            if marker.get("format") != MARKER_FORMAT or marker.get("version") != MARKER_VERSION:
                raise RunError(f"{marker_path} is not a farl checkpoint marker (version {MARKER_VERSION})")
            rows, pending, wall = marker["rows"], marker["pending"], float(marker["wall_seconds"])
            episodes = int(marker["episodes_done"])
            if (folder / marker["agent"]).exists():
                agent = NTupleAgent.load(folder / marker["agent"], game=spec.game)
            else:
                agent = cls._published_copy_of(folder, episodes, spec)
                if agent is None:
                    raise LostCheckpoint(folder, marker["agent"])
        except (json.JSONDecodeError, KeyError, TypeError, FileNotFoundError) as exc:
            raise RunError(f"{folder}: damaged checkpoint ({type(exc).__name__}: {exc}); "
                           f"start the run again in a new folder") from None
        if agent.episodes_done != episodes or agent.config != spec.config or agent.game.params != spec.game_params:
            raise RunError(f"{folder}: the checkpoint's agent does not match run.json; start the run again "
                           f"in a new folder")
        return cls(folder, spec, agent, rows, pending, wall)

    @staticmethod
    def _published_copy_of(folder: Path, episodes: int, spec: RunSpec) -> NTupleAgent | None:
        """The agent of ``folder/agent.npz`` when it is the checkpoint's agent (same episode count and
        settings): a copy of the checkpoint file, so a run whose ``checkpoints/`` is gone can still go on."""
        try:
            copy = NTupleAgent.load(folder / "agent.npz", game=spec.game)
        except (OSError, ValueError, KeyError):
            return None
        same = (copy.episodes_done == episodes and copy.config == spec.config
                and copy.game.params == spec.game_params)
        return copy if same else None

    @classmethod
    def restart(cls, folder) -> "Run":
        """Drop the progress of the run in ``folder`` (marker, curve, latest evaluation) and start it
        again from episode 0 with the settings of its ``run.json``."""
        folder = Path(folder)
        read_spec(folder)  # only a farl run folder is touched
        for name in ("checkpoint.json", "curve.csv", "curve.png", "eval.json", "agent.npz"):
            (folder / name).unlink(missing_ok=True)
        return cls.open(folder)

    # -------------------------------------------------------------- state
    @property
    def episodes_done(self) -> int:
        return self.agent.episodes_done

    @property
    def percent(self) -> bool:
        """Whether evaluation scores are win rates (two-player games)."""
        return self.agent.game.n_players == 2

    @property
    def finished(self) -> bool:
        return self.agent.episodes_done >= self.spec.config.episodes and bool(self.rows) \
            and self.rows[-1]["episode"] == self.spec.config.episodes

    @property
    def wall_seconds(self) -> float:
        """Wall time of the run so far (all sessions, up to the last checkpoint before this one)."""
        return self._wall0 + time.perf_counter() - self._t0

    def opponents(self):
        if self._opponents is None:
            from farl_agents.opponents import make_opponent
            game = self.agent.game
            self._opponents = [] if game.n_players == 1 else [make_opponent(o, game) for o in self.spec.eval_vs]
        return self._opponents

    # ------------------------------------------------------------- training
    def train(self, stop_after: int | None = None, progress: bool = True, chunk_seconds: float = 2.0,
              checkpoint_minutes: float = 5.0, eval_jobs: int = 1, on_chunk=None) -> str:
        """Train to the end of the run (or to ``stop_after`` episodes), evaluating at the curve points.

        Returns ``"done"``, ``"stopped"`` (``stop_after`` reached) or
        ``"interrupted"`` (Ctrl-C / SIGTERM; see :attr:`interrupt_signal`).
        A checkpoint has been written in each case. ``on_chunk(run)`` is
        called after every training chunk (tests use it to interrupt).
        """
        total = self.spec.config.episodes
        limit = total if stop_after is None else max(0, min(total, int(stop_after)))
        points = self.spec.curve_points()
        bar = _progress(self, total, progress)
        self.interrupt_signal = None
        chunk = 64
        compiled = False
        consistent = True
        try:
            say = bar.write if bar is not None else (lambda text: print(text, file=sys.stderr, flush=True))
            with StopRequest(say) as stop:
                while True:
                    e = self.agent.episodes_done
                    if e in points and (not self.rows or self.rows[-1]["episode"] < e):
                        self._curve_point(eval_jobs, bar)
                        self.checkpoint()
                    if e >= limit or stop.requested:
                        break
                    target = min(next(p for p in points if p > e), limit)
                    n = min(target - e, chunk)
                    t = time.perf_counter()
                    consistent = False
                    results = self.agent.train(n)
                    dt = time.perf_counter() - t
                    self._add_training(results)
                    consistent = True
                    if compiled:  # the first chunk includes compilation
                        chunk = int(min(max(16, n * chunk_seconds / max(dt, 1e-6), chunk // 2), 4 * chunk + 16))
                    compiled = True
                    if bar is not None:
                        bar.update(n)
                    if on_chunk is not None:
                        on_chunk(self)
                    if time.monotonic() - self._last_checkpoint > 60 * checkpoint_minutes:
                        self.checkpoint()
                if stop.requested:
                    self.interrupt_signal = stop.signum
                    self.checkpoint(draw=True)
                    return "interrupted"
        except KeyboardInterrupt:
            self.interrupt_signal = signal.SIGINT
            if consistent:  # else the agent may be half-way through a chunk: keep the last checkpoint
                self.checkpoint(draw=True)
            return "interrupted"
        finally:
            if bar is not None:
                bar.close()
        self.checkpoint(draw=True)
        return "stopped" if self.agent.episodes_done < total else "done"

    def _add_training(self, results: np.ndarray) -> None:
        p = self.pending
        p["episodes"] += int(results.shape[0])
        p["reward_sum"] += float(results[:, 0].sum())
        p["plies_sum"] += float(results[:, -1].sum())

    def _curve_point(self, eval_jobs: int, bar) -> None:
        p = self.pending
        row = {"episode": self.agent.episodes_done, "wall_seconds": None,
               "train_reward": p["reward_sum"] / p["episodes"] if p["episodes"] else None,
               "train_plies": p["plies_sum"] / p["episodes"] if p["episodes"] else None}
        if self.spec.eval_vs:
            res = evaluate_agent(self.agent, self.opponents(), self.spec.eval_starts, self.spec.eval_games,
                                 self.spec.eval_seed, eval_jobs)
            row.update(scores_of(res, self.spec.eval_vs))
            self.last_eval = res
        row["wall_seconds"] = self.wall_seconds
        self.rows.append(row)
        self.pending = _no_pending()
        if bar is not None:
            bar.set_postfix_str(describe_row(row, self.spec.eval_vs, self.percent), refresh=True)

    # ----------------------------------------------------------- checkpoint
    def checkpoint(self, draw: bool = False) -> None:
        """Write the agent, the curve and the marker (last), each atomically; drop older agent files.

        ``curve.png`` is redrawn when ``draw`` is set (end of a session) or
        at most once a minute otherwise.
        """
        e = self.agent.episodes_done
        ck = self.folder / "checkpoints"
        ck.mkdir(exist_ok=True)
        name = f"agent-{e:012d}.npz"
        self.agent.save(ck / name)
        _publish_copy(ck / name, self.folder / "agent.npz")
        atomic_write_text(self.folder / "curve.csv", curve_csv(self.rows, self.spec.eval_vs))
        if self.last_eval is not None:
            atomic_write_json(self.folder / "eval.json", self.last_eval.to_dict())
        marker = {"format": MARKER_FORMAT, "version": MARKER_VERSION, "episodes_done": e,
                  "agent": f"checkpoints/{name}", "finished": e >= self.spec.config.episodes,
                  "wall_seconds": self.wall_seconds, "pending": self.pending, "rows": self.rows,
                  "time": datetime.datetime.now().isoformat(timespec="seconds")}
        atomic_write_json(self.folder / "checkpoint.json", marker)
        for old in ck.glob("agent-*.npz"):
            if old.name != name:
                old.unlink(missing_ok=True)
        self._last_checkpoint = time.monotonic()
        due = draw or time.monotonic() - self._last_plot > 60
        if self.rows and due and self._plotted != len(self.rows):
            try:
                plot_curve(self.rows, self.spec.eval_vs, self.folder / "curve.png", self.title())
                self._plotted = len(self.rows)
                self._last_plot = time.monotonic()
            except Exception:  # a missing font or backend must never cost a checkpoint
                pass

    def title(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.spec.game_params.items())
        return f"{self.spec.game}{'(' + params + ')' if params else ''} {self.agent.name} seed {self.spec.config.seed}"


def _no_pending() -> dict:
    return {"episodes": 0, "reward_sum": 0.0, "plies_sum": 0.0}


def read_spec(folder) -> RunSpec:
    """The :class:`RunSpec` stored in ``folder/run.json``."""
    path = Path(folder) / "run.json"
    if not path.is_file():
        raise RunError(f"{folder} is not a farl run folder (no run.json)")
    try:
        info = json.loads(path.read_text())
        keys = {f.name for f in dataclasses.fields(RunSpec)}
        return RunSpec.from_dict({k: v for k, v in info.items() if k in keys})
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise RunError(f"{path} is not a readable farl run description ({exc})") from None


def describe_row(row: dict, eval_vs, percent: bool = True) -> str:
    """``"vs maxn10 48.0%±5.0%"``-style summary of a curve row (``percent``: scores are win rates)."""
    parts = []
    for o in eval_vs:
        s, se = row.get(f"score_{o}"), row.get(f"se_{o}")
        if s is None:
            continue
        if percent:
            parts.append(f"vs {o} {100 * s:.1f}%±{100 * se:.1f}%")
        else:
            parts.append(f"{'score' if o == ALONE else 'vs ' + o} {s:.4g}±{se:.2g}")
    if not parts and row.get("train_reward") is not None:
        parts.append(f"train reward {row['train_reward']:.3g}")
    return ", ".join(parts)


def _progress(run: Run, total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    bar = tqdm(total=total, initial=run.agent.episodes_done, unit="ep", dynamic_ncols=True, smoothing=0.1,
               desc=f"{run.spec.game} {run.agent.name}")
    if run.rows:
        bar.set_postfix_str(describe_row(run.rows[-1], run.spec.eval_vs, run.percent))
    return bar


def summary_line(run: Run) -> str:
    """One line about the state of ``run`` (for the CLI)."""
    last = run.rows[-1] if run.rows else None
    text = f"{run.agent.episodes_done}/{run.spec.config.episodes} episodes, {run.wall_seconds:.1f} s"
    if last is not None:
        d = describe_row(last, run.spec.eval_vs, run.percent)
        if d:
            text += f"; at episode {last['episode']}: {d}"
    return text

