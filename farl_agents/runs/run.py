"""A training run as a folder you can stop and continue, for every learner family.

(Longer than farl's usual 400 lines: it is one class, whose creating, resuming, training, evaluating
and checkpointing share the run's state and its crash-safety rules; this description of the folder
and of those rules is fifty of them.)

A run trains one learner (a family's :class:`~farl_agents.runs.trainer.Trainer`)
for its budget and evaluates it at regular *curve points* (at 0, every
``eval_every`` units, and at the end). Everything lives in one folder::

    DIR/run.json           what the run is (RunSpec: family, game, params, settings, evaluation plan),
                           farl version, command (written once, never changed)
    DIR/agent.npz          the agent at the last checkpoint, playable by `farl eval` / `farl play`
                           (agent.zip for the SB3 baselines: their models are SB3's zip files)
    DIR/curve.csv          the learning curve (columns in farl_agents.runs.curve)
    DIR/curve.png          the same, drawn
    DIR/eval.json          the latest evaluation (EvalResult.to_dict, without per-game records)
    DIR/checkpoints/       the files of the checkpoint the marker refers to (<stem>-*.npz)
    DIR/checkpoint.json    the checkpoint marker, written last

**Checkpoints.** Training runs in chunks sized to take about
:data:`CHUNK_SECONDS`; a checkpoint is written after every evaluation, at
least every ``checkpoint_minutes``, when the run stops and on Ctrl-C (a curve
point without evaluation only rewrites ``curve.csv``: saving a big network
takes seconds, which at 20 points of a short run had halved its speed). Every
file is written to a temporary name and moved into place with
``os.replace``; the marker ``checkpoint.json`` comes last and names the files
it belongs to together with the curve rows and the training statistics of
the unfinished curve interval. A run killed at any instant therefore resumes
from a consistent state: the last marker and the files it names.
``agent.npz``, ``curve.csv`` and ``eval.json`` are copies for people and
tools; they may be one checkpoint ahead of the marker after a crash and are
rewritten on resume. A marker whose only file is gone (``checkpoints/`` is
not committed with a run, so a fresh clone has only the marker) is served by
``agent.npz`` when that holds the same progress; otherwise it raises
``LostCheckpoint``: ``farl train --resume`` stops with that message,
``farl reproduce`` starts such a run again from episode 0.

**Determinism.** Where a family's training is deterministic (the n-tuple
learners and Nemesh count episodes or games; Descent counts seconds and is
not), a run that is stopped and resumed, any number of times, ends with
exactly the weights, and the same curve rows (except times), of a run that
never stopped: training continues exactly where it stopped, and evaluations
use their own seeded generators, never the learner's.

Run folders of farl 0.1's Nemesh and Descent commands are converted to this
layout when they are resumed (:mod:`farl_agents.runs.legacy`).
"""
from __future__ import annotations

import datetime
import math
import signal
import sys
import threading
import time
from pathlib import Path

import farl_envs
from farl_agents import families
from farl_agents.atomic import atomic_write_json
from farl_agents.compile_notice import CompileWatch, game_title
from farl_agents.eval_results import EvalResult
from farl_agents.runs import legacy
from farl_agents.runs.curve import plot_curve, write_curve
from farl_agents.runs.evaluation import describe_row, evaluate_agent, scores_of
from farl_agents.runs.spec import LostCheckpoint, RunError, RunSpec, read_spec
from farl_agents.safe_files import AgentFileError, BadFileError, read_json
from farl_agents.safety import RunLock, StopRequest, ensure_writable, publish_copy

MARKER_FORMAT = "farl-run-checkpoint"
MARKER_VERSION = 1
CHUNK_SECONDS = 1.0
"""Wall seconds a training chunk aims at: short enough for a responsive progress bar and for Ctrl-C (which
waits for the chunk under way), long enough that the per-chunk work (statistics, progress) costs nothing."""
MIN_CHUNK, MAX_CHUNK_GROWTH = 16, 4
"""Chunk sizes (episodes or games) stay >= MIN_CHUNK and grow at most MAX_CHUNK_GROWTH-fold per chunk."""
PLOT_EVERY_SECONDS = 60
"""curve.png is redrawn at most this often during a session (and always at its end)."""
STRAY_PATTERNS = (".*.tmp", ".*.tmp.png", "checkpoints/*.tmp", "checkpoints/.*.tmp")
"""Temporary files a killed writer may leave behind."""


def _no_pending() -> dict:
    return {"episodes": 0, "reward_sum": 0.0, "plies_sum": 0.0}


class Run:
    """A training run in ``folder``: start one with :meth:`create`, continue one with :meth:`open`."""

    def __init__(self, folder: Path, spec: RunSpec, trainer, rows: list, pending: dict, wall_seconds: float,
                 train_seconds: float = 0.0):
        self.folder = Path(folder)
        self.spec = spec
        self.trainer = trainer
        self.rows = rows
        """Curve rows so far (dicts with the keys of ``curve.csv``)."""
        self.pending = pending
        """Training statistics since the last curve row: episodes, reward_sum, plies_sum (None: unknown)."""
        self._wall0 = wall_seconds
        self._train_s = train_seconds
        self._clock = None  # perf_counter() when this session's wall clock started; None between sessions
        self.compile_seconds = 0.0
        """Seconds numba spent compiling in this process's sessions (never counted as training time)."""
        self._notice = "none"
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
        folder = Path(folder)
        if (folder / "run.json").exists():
            raise RunError(f"{folder} already holds a run: continue it with `farl train --resume {folder}` "
                           f"or choose another output folder")
        trainer = families.get(spec.family).trainer().create(spec)  # fails before any file is written
        folder = ensure_writable(folder)
        info = {"format": "farl-run", "farl_version": farl_envs.__version__, "created":
                datetime.datetime.now().isoformat(timespec="seconds"), "command": command, **spec.to_dict()}
        atomic_write_json(folder / "run.json", info)
        return cls(folder, spec, trainer, [], _no_pending(), 0.0)

    @classmethod
    def open(cls, folder) -> "Run":
        """Continue the run in ``folder`` from its last checkpoint (from scratch if it has none)."""
        folder = Path(folder)
        legacy.upgrade(folder)  # farl 0.1 Nemesh / Descent folders get the common layout first
        spec = read_spec(folder)
        ensure_writable(folder)
        cls_trainer = families.get(spec.family).trainer()
        marker_path = folder / "checkpoint.json"
        if not marker_path.exists():
            return cls(folder, spec, cls_trainer.create(spec), [], _no_pending(), 0.0)
        marker = read_marker(marker_path, cls.PROGRESS_COLUMN[cls_trainer.unit])
        rows, pending, wall, files, done = (marker[k] for k in ("rows", "pending", "wall_seconds", "files", "done"))
        try:
            if all((folder / f).exists() for f in files):
                trainer = cls_trainer.load(spec, [folder / f for f in files])
            elif len(files) == 1 and (folder / ("agent" + Path(files[0]).suffix)).exists():
                trainer = cls._published_copy_of(cls_trainer, folder / ("agent" + Path(files[0]).suffix), spec, done)
                if trainer is None:
                    raise LostCheckpoint(folder, files[0])
            else:
                raise LostCheckpoint(folder, ", ".join(f for f in files if not (folder / f).exists()))
        except (AgentFileError, KeyError, TypeError, FileNotFoundError) as exc:
            raise RunError(f"{folder}: damaged checkpoint ({type(exc).__name__}: {' '.join(str(exc).split())}); "
                           f"start the run again in a new folder") from None
        if trainer.done != done or not trainer.matches(spec):
            raise RunError(f"{folder}: the checkpoint's agent does not match run.json; start the run again "
                           f"in a new folder")
        return cls(folder, spec, trainer, rows, pending, wall, marker["train_seconds"])

    @staticmethod
    def _published_copy_of(cls_trainer, published: Path, spec: RunSpec, done):
        """The learner of the published agent file when it is the checkpoint's (same progress and settings):
        a copy of the checkpoint file, so a run whose ``checkpoints/`` is gone can still go on."""
        try:
            copy = cls_trainer.load(spec, [published])
        except (OSError, ValueError, KeyError):
            return None
        return copy if copy.done == done and copy.matches(spec) else None

    @classmethod
    def restart(cls, folder) -> "Run":
        """Drop the progress of the run in ``folder`` (marker, curve, latest evaluation) and start it
        again from the beginning with the settings of its ``run.json``."""
        folder = Path(folder)
        read_spec(folder)  # only a farl run folder is touched
        for name in ("checkpoint.json", "curve.csv", "curve.png", "eval.json", "agent.npz", "agent.zip"):
            (folder / name).unlink(missing_ok=True)
        return cls.open(folder)

    @classmethod
    def open_or_create(cls, folder, spec: RunSpec, command: str | None = None,
                       other_settings: str = "other settings") -> tuple["Run", str | None]:
        """The run of ``spec`` in ``folder`` for a study's cached task: continued from its checkpoint, started
        again from 0 when the checkpoint's agent file is gone (a fresh clone holds only the marker), or
        created. Returns the run and why it starts again (None when it does not). RunError when the folder
        holds a run with other settings (``other_settings`` says which, in the message)."""
        folder = Path(folder)
        if not (folder / "run.json").exists():
            return cls.create(folder, spec, command=command), None
        restarted = None
        try:
            run = cls.open(folder)
        except LostCheckpoint as exc:
            restarted = f"its checkpoint agent {exc.agent_file} is missing"
            run = cls.restart(folder)
        if run.spec != spec:
            raise RunError(f"{folder} holds a run with {other_settings}; move it away to rerun")
        return run, restarted

    # -------------------------------------------------------------- state
    @property
    def game(self):
        return farl_envs.game_spec(self.spec.game, **self.spec.game_params)

    @property
    def percent(self) -> bool:
        """Whether evaluation scores are win rates (two-player games played for a result, not for chips)."""
        return self.game.headline_win_rate

    PROGRESS_COLUMN = {"episodes": "episode", "games": "episode", "seconds": "train_seconds", "steps": "env_steps"}
    """The curve column that holds a row's progress, by the trainer's unit."""

    def _progress_of(self, row: dict) -> float:
        return row[self.PROGRESS_COLUMN[self.trainer.unit]]

    @property
    def agent_file(self) -> Path:
        """The published agent file (``agent.npz``; ``agent.zip`` for SB3 models)."""
        for name in ("agent.npz", "agent.zip"):
            if (self.folder / name).exists():
                return self.folder / name
        return self.folder / "agent.npz"

    @property
    def finished(self) -> bool:
        t = self.trainer
        return t.done >= t.total and bool(self.rows) and self._progress_of(self.rows[-1]) >= t.total

    @property
    def wall_seconds(self) -> float:
        """Wall time of the run so far, all sessions: the clock runs only inside :meth:`train` and stops at a
        session's last checkpoint, so a resumed run goes on from exactly the figure its last session reported."""
        running = 0.0 if self._clock is None else time.perf_counter() - self._clock
        return self._wall0 + running

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._wall0 = self.wall_seconds
            self._clock = None

    @property
    def train_seconds(self) -> float:
        """Training time so far: evaluations, checkpoints and numba's compiling excluded."""
        return float(self.trainer.done) if self.trainer.unit == "seconds" else self._train_s

    def opponents(self):
        if self._opponents is None:
            from farl_agents.opponents import make_opponent

            game = self.game
            self._opponents = [] if game.n_players == 1 else [make_opponent(o, game) for o in self.spec.eval_vs]
        return self._opponents

    def _next_point(self):
        """The progress at which the next curve row is due (None: the curve is complete)."""
        last = self._progress_of(self.rows[-1]) if self.rows else None
        for p in self.spec.curve_points(self.trainer.total):
            if last is None or p > last:
                return p
        return None

    def _point_due(self) -> bool:
        nxt = self._next_point()
        if nxt is None:
            return False
        if self.trainer.done >= self.trainer.total:  # the last point: once, and only for a learner that changed since
            return not self.rows or self._progress_of(self.rows[-1]) < self.trainer.done
        return self.trainer.done >= nxt

    # ------------------------------------------------------------- training
    def train(self, stop_after: float | None = None, progress: bool = True, chunk_seconds: float = CHUNK_SECONDS,
              checkpoint_minutes: float = 5.0, eval_jobs: int = 1, on_chunk=None) -> str:
        """Train to the end of the run (or to ``stop_after`` units), evaluating at the curve points.

        Returns ``"done"``, ``"stopped"`` (``stop_after`` reached) or
        ``"interrupted"`` (Ctrl-C / SIGTERM; see :attr:`interrupt_signal`).
        A checkpoint has been written in each case. ``on_chunk(run)`` is
        called after every training chunk (tests use it to interrupt).
        While it trains, ``DIR/.lock`` keeps a second process from training
        the same run (:class:`~farl_agents.safety.RunLock`).
        """
        with RunLock(self.folder):
            self._remove_strays()
            self._clock = time.perf_counter()
            try:
                return self._train(stop_after, progress, chunk_seconds, checkpoint_minutes, eval_jobs, on_chunk)
            finally:
                self._stop_clock()

    def _remove_strays(self) -> None:
        """Delete half-written files a crashed process left (:data:`STRAY_PATTERNS`). Only under the run's lock:
        while another process trains the run, its temporary files are the checkpoint it is writing."""
        for pattern in STRAY_PATTERNS:
            for stray in self.folder.glob(pattern):
                stray.unlink(missing_ok=True)

    def _train(self, stop_after, progress, chunk_seconds, checkpoint_minutes, eval_jobs, on_chunk) -> str:
        total = self.trainer.total
        limit = total if stop_after is None else max(0, min(total, stop_after))
        bar = None
        self.interrupt_signal = None
        self._notice = "auto" if progress else "line"
        timed = self.trainer.unit == "seconds"
        chunk = chunk_seconds if timed else self.trainer.first_chunk
        consistent = True
        try:
            resize = False
            if self.trainer.done < limit:  # nothing to train (--stop-after 0, a finished run): nothing to compile
                with AbortOnSignal():  # compiling changes nothing: Ctrl-C stops it at once
                    resize = self._prepare()  # the first chunk can size the next only if it compiled nothing
            bar = self._progress_bar(progress)  # after compiling: its clock and ETA count training only
            say = bar.write if bar is not None else (lambda text: print(text, file=sys.stderr, flush=True))
            with StopRequest(say) as stop:
                while True:
                    if self._point_due() and not stop.requested:  # after Ctrl-C the point waits for the resume
                        with AbortOnSignal():  # an evaluation changes nothing until its row is added
                            self._curve_point(eval_jobs, bar)
                        if (self.spec.eval_vs or len(self.rows) == 1
                                or time.monotonic() - self._last_checkpoint > 60 * checkpoint_minutes):
                            self.checkpoint()
                        else:  # a point without evaluation: the curve file follows, the checkpoint keeps its cadence
                            write_curve(self.folder / "curve.csv", self.rows, self.spec.eval_vs)
                    done = self.trainer.done
                    if done >= limit or stop.requested:
                        break
                    nxt = self._next_point()
                    target = limit if nxt is None or nxt <= done else min(nxt, limit)
                    n = min(target - done, chunk)
                    t = time.perf_counter()
                    consistent = False
                    with self._watch(self._loop_label(), bar) as watch:  # a family without prepare() compiles here
                        games, reward_sum, plies_sum = self.trainer.train_chunk(n)
                    dt = max(0.0, time.perf_counter() - t - watch.seconds)
                    self._train_s += dt
                    self._add_training(games, reward_sum, plies_sum)
                    consistent = True
                    if resize and not timed and not watch.compilations:
                        chunk = int(min(max(MIN_CHUNK, n * chunk_seconds / max(dt, 1e-6), chunk // 2),
                                        MAX_CHUNK_GROWTH * chunk + MIN_CHUNK))
                    resize = True
                    if bar is not None:
                        self._advance(bar)
                    if on_chunk is not None:
                        on_chunk(self)
                    if time.monotonic() - self._last_checkpoint > 60 * checkpoint_minutes:
                        self.checkpoint()
                if stop.requested:
                    self.interrupt_signal = stop.signum
                    self.checkpoint(draw=_drawing_is_quick(), end=True)
                    return "interrupted"
        except KeyboardInterrupt as exc:
            self.interrupt_signal = getattr(exc, "signum", signal.SIGINT)
            if consistent:  # else the learner may be half-way through a chunk: keep the last checkpoint
                self.checkpoint(draw=_drawing_is_quick(), end=True)
            return "interrupted"
        finally:
            if bar is not None:
                bar.close()
        self.checkpoint(draw=True, end=True)
        return "stopped" if self.trainer.done < total else "done"

    def _loop_label(self) -> str:
        """What a training chunk compiles, for the notice: ``the TicTacToe TD-FARL loop``."""
        name = self.trainer.name
        return f"the {game_title(self.spec.game)} {name.upper() if self.spec.family == 'ntuple' else name} loop"

    def _watch(self, what: str, bar) -> CompileWatch:
        """A :class:`CompileWatch` for a part of the session: announces a compilation (above the progress bar,
        if there is one) and, when it ends, adds its seconds to :attr:`compile_seconds` and moves the bar's
        clock on by them, so that its rate and ETA count training only."""
        def book(watch: CompileWatch) -> None:
            self.compile_seconds += watch.seconds
            if bar is not None and watch.seconds:
                _skip_bar_time(bar, watch.seconds)

        return CompileWatch(what, show=self._notice, write=None if bar is None else bar.write, when_done=book)

    def _prepare(self) -> bool:
        """Compile the trainer's loop before training (:meth:`Trainer.prepare`, if the family has it) under a
        notice; True if it did (then the first chunk compiles nothing and its time can size the next)."""
        prepare = getattr(self.trainer, "prepare", None)
        if prepare is None:
            return False
        with self._watch(self._loop_label(), None):
            prepare()
        return True

    def _add_training(self, games: int, reward_sum: float, plies_sum: float | None) -> None:
        p = self.pending
        p["episodes"] += int(games)
        p["reward_sum"] += float(reward_sum)
        p["plies_sum"] = None if plies_sum is None or p["plies_sum"] is None else p["plies_sum"] + float(plies_sum)

    def _curve_point(self, eval_jobs: int, bar) -> None:
        p = self.pending
        n = p["episodes"]
        t = self.trainer
        row = {"episode": t.episodes, "env_steps": t.done if t.unit == "steps" else None,
               "train_seconds": self.train_seconds, "wall_seconds": None,
               "train_reward": p["reward_sum"] / n if n else None,
               "train_plies": p["plies_sum"] / n if n and p["plies_sum"] is not None else None}
        if self.spec.eval_vs:
            with self._watch(f"the evaluation against {', '.join(self.spec.eval_vs)}", bar):
                res = evaluate_agent(self.trainer.player(self.spec), self.opponents(), self.spec.eval_starts,
                                     self.spec.eval_games, self.spec.eval_seed, eval_jobs, game=self.game)
            row.update(scores_of(res, self.spec.eval_vs))
            self.last_eval = res
        row["wall_seconds"] = self.wall_seconds
        self.rows.append(row)
        self.pending = _no_pending()
        if bar is not None:
            bar.set_postfix_str(describe_row(row, self.spec.eval_vs, self.percent), refresh=True)

    # ----------------------------------------------------------- checkpoint
    def checkpoint(self, draw: bool = False, end: bool = False) -> None:
        """Write the learner, the curve and the marker (last), each atomically; drop older checkpoint files.

        ``curve.png`` is redrawn when ``draw`` is set (end of a session) or
        at most once a minute otherwise. At the ``end`` of a session the wall
        clock stops before the marker is written, so the marker holds the time
        the session reports.
        """
        if end:
            self._stop_clock()
        ck = self.folder / "checkpoints"
        ck.mkdir(exist_ok=True)
        stem = f"agent-{int(self.trainer.episodes):012d}"
        if self.trainer.unit == "seconds":
            stem += f"-{int(1000 * self.trainer.done):012d}ms"
        names = self.trainer.save(ck, stem)
        publish_copy(ck / names[0], self.folder / ("agent" + Path(names[0]).suffix))
        write_curve(self.folder / "curve.csv", self.rows, self.spec.eval_vs)
        if self.last_eval is not None:
            atomic_write_json(self.folder / "eval.json", self.last_eval.to_dict())
        marker = {"format": MARKER_FORMAT, "version": MARKER_VERSION, "episodes_done": int(self.trainer.episodes),
                  "done": self.trainer.done, "agent": f"checkpoints/{names[0]}",
                  "files": [f"checkpoints/{n}" for n in names], "finished": self.trainer.done >= self.trainer.total,
                  "wall_seconds": self.wall_seconds, "train_seconds": self._train_s, "pending": self.pending,
                  "rows": self.rows, "time": datetime.datetime.now().isoformat(timespec="seconds")}
        atomic_write_json(self.folder / "checkpoint.json", marker)
        for old in ck.glob("agent-*"):
            if old.name not in names:
                old.unlink(missing_ok=True)
        self._last_checkpoint = time.monotonic()
        due = draw or time.monotonic() - self._last_plot > PLOT_EVERY_SECONDS
        if self.rows and due and self._plotted != len(self.rows):
            try:
                plot_curve(self.rows, self.spec.eval_vs, self.folder / "curve.png", self.title(),
                           x=self.PROGRESS_COLUMN[self.trainer.unit])
                self._plotted = len(self.rows)
                self._last_plot = time.monotonic()
            except Exception:  # noqa: BLE001 - matplotlib (fonts, backends): a plot must never cost a checkpoint
                pass

    def title(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.spec.game_params.items())
        seed = getattr(self.spec.config, "seed", None)
        return (f"{self.spec.game}{'(' + params + ')' if params else ''} {self.trainer.name}"
                + (f" seed {seed}" if seed is not None else ""))

    def _progress_bar(self, enabled: bool):
        if not enabled:
            return None
        from tqdm import tqdm

        timed = self.trainer.unit == "seconds"
        bar = tqdm(total=round(self.trainer.total) if timed else self.trainer.total, initial=self._bar_position(),
                   unit={"seconds": "s", "episodes": "ep", "steps": "step"}.get(self.trainer.unit, "game"),
                   dynamic_ncols=True, smoothing=0.1, desc=f"{self.spec.game} {self.trainer.name}")
        if self.rows:
            bar.set_postfix_str(describe_row(self.rows[-1], self.spec.eval_vs, self.percent))
        return bar

    def _bar_position(self):
        """Where the bar stands: the run's progress in its unit (whole seconds for timed runs), never past
        the total (a chunk of SB3's PPO ends on a whole rollout, a timed chunk a little after its time)."""
        done = round(self.trainer.done) if self.trainer.unit == "seconds" else int(self.trainer.done)
        return min(done, round(self.trainer.total) if self.trainer.unit == "seconds" else self.trainer.total)

    def _advance(self, bar) -> None:
        position = self._bar_position()
        if position > bar.n:
            bar.update(position - bar.n)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM while :class:`AbortOnSignal` was active; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class AbortOnSignal:
    """While active (in the main thread), Ctrl-C and SIGTERM raise :class:`Interrupted` at once.

    For the parts of a session that change nothing a checkpoint holds: numba compiling the loop, and a curve
    point's evaluation until its row is added. Elsewhere the run's :class:`StopRequest` lets the training
    chunk under way finish first; here there is nothing to finish, and a compilation (a minute on an empty
    cache) or an evaluation against a slow opponent would keep Ctrl-C waiting.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __enter__(self) -> "AbortOnSignal":
        self._old = {}
        self.signum = None
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._old[s] = signal.signal(s, self._raise)
        return self

    def _raise(self, signum, frame):
        self.signum = signum
        raise Interrupted(signum)

    def __exit__(self, exc_type, exc, tb) -> bool:
        for s, old in self._old.items():
            signal.signal(s, old)
        if exc_type is not None and not issubclass(exc_type, KeyboardInterrupt) and self.signum is not None:
            # numba, stopped in the middle of compiling, may fail on its way out with an error of its own
            raise Interrupted(self.signum) from exc
        return False


def _drawing_is_quick() -> bool:
    """Whether curve.png can be redrawn at once on Ctrl-C: matplotlib is loaded already (its first import takes
    about a second, which a stop request should not wait for; the next session draws the picture)."""
    return "matplotlib.pyplot" in sys.modules


def _skip_bar_time(bar, seconds: float) -> None:
    """Move a tqdm bar's clock on by ``seconds`` that were not training (compiling): its elapsed time, rate
    and ETA leave them out."""
    for name in ("start_t", "last_print_t"):
        if hasattr(bar, name):
            setattr(bar, name, getattr(bar, name) + seconds)


def read_marker(path: Path, progress_column: str) -> dict:
    """The checkpoint marker at ``path``, every field :meth:`Run.open` uses checked for its type.

    ``rows`` (curve rows: tables of numbers or nulls, each with a number in ``progress_column``),
    ``pending`` (episodes, reward and plies sums), ``wall_seconds``, ``train_seconds``, ``done`` and
    ``files`` (names under ``checkpoints/``; older markers name one ``agent``). The file is read through
    :func:`~farl_agents.safe_files.read_json` (size and depth bounded). Anything else raises
    :class:`RunError` naming the folder and the field.
    """
    folder = path.parent

    def damaged(what: str) -> RunError:
        return RunError(f"{folder}: damaged checkpoint ({path.name}: {what}); start the run again in a new folder")

    try:
        marker = read_json(path)
    except (BadFileError, OSError) as exc:
        raise damaged(" ".join(str(exc).split())) from None
    if not isinstance(marker, dict):
        raise damaged(f"a {type(marker).__name__}, not a table")
    if marker.get("format") != MARKER_FORMAT or marker.get("version") != MARKER_VERSION:
        raise RunError(f"{path} is not a farl checkpoint marker (version {MARKER_VERSION})")

    def number(key, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise damaged(f"{key} must be a finite number >= 0, got {value!r}")
        return value

    out = {"done": number("done", marker.get("done", marker.get("episodes_done"))),
           "wall_seconds": float(number("wall_seconds", marker.get("wall_seconds"))),
           "train_seconds": float(number("train_seconds", marker.get("train_seconds", 0.0)))}
    files = marker.get("files") or [marker.get("agent")]
    if not isinstance(files, list) or not all(isinstance(f, str) and _checkpoint_name(f) for f in files):
        raise damaged(f"files must be a list of names under checkpoints/, got {files!r}")
    out["files"] = files
    pending = marker.get("pending")
    if not isinstance(pending, dict) or set(pending) != set(_no_pending()):
        raise damaged(f"pending must be a table of {', '.join(_no_pending())}, got {pending!r}")
    episodes = pending["episodes"]
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0:
        raise damaged(f"pending episodes must be a whole number >= 0, got {episodes!r}")
    for key, optional in (("reward_sum", False), ("plies_sum", True)):
        value = pending[key]
        if not (value is None and optional) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise damaged(f"pending {key} must be a number, got {value!r}")
    out["pending"] = dict(pending)
    rows = marker.get("rows")
    if not isinstance(rows, list):
        raise damaged(f"rows must be a list of curve rows, got {type(rows).__name__}")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not all(isinstance(k, str) for k in row):
            raise damaged(f"row {i} must be a table of curve columns, got {row!r}")
        bad = [k for k, v in row.items() if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)))]
        if bad:
            raise damaged(f"row {i}: {bad[0]} must be a number or null, got {row[bad[0]]!r}")
        number(f"row {i} {progress_column}", row.get(progress_column))
    out["rows"] = rows
    return out


def _checkpoint_name(name: str) -> bool:
    """``name`` is a file right under ``checkpoints/`` (never a path that leaves the run folder)."""
    parts = Path(name).parts
    return len(parts) == 2 and parts[0] == "checkpoints" and parts[1] not in (".", "..") and "\\" not in name


def summary_line(run: Run) -> str:
    """One line about the state of ``run`` (for the CLI): progress, training and wall time (all sessions; compile
    seconds are this process's), and the last curve point."""
    last = run.rows[-1] if run.rows else None
    t = run.trainer
    unit = t.unit
    done = f"{t.done:.1f}/{t.total:.1f}" if unit == "seconds" else f"{t.done:,}/{t.total:,}"
    text = f"{done} {unit}, training {run.train_seconds:.1f} s of {run.wall_seconds:.1f} s"
    if run.compile_seconds >= 0.05:
        text += f" ({run.compile_seconds:.1f} s of it compiling, once: numba caches it)"
    if last is not None:
        d = describe_row(last, run.spec.eval_vs, run.percent)
        if d:
            where = (f"{last['train_seconds']:.1f} s" if unit == "seconds"
                     else f"{unit[:-1]} {last[run.PROGRESS_COLUMN[unit]]:,}")
            text += f"; at {where}: {d}"
    return text
