"""OpenSpiel's own AlphaZero, trained on a CPU budget and played in farl's harness (issue 44's outside reference).

OpenSpiel (pip ``open_spiel``) ships a Python AlphaZero on JAX and flax (``open_spiel.python.algorithms.
alpha_zero``): a learner process that fills a replay buffer from actor processes, trains a policy/value network
and broadcasts checkpoints (orbax), the actors playing self-play games with OpenSpiel's PUCT ``MCTSBot``. This
module drives it unchanged and measures what it learns in farl's evaluation harness.

**Training** (:func:`train`). One learner subprocess (``alpha_zero.alpha_zero`` with a :class:`Config` built
from :func:`openspiel_config`), which spawns one actor and no evaluator process, XLA on one thread
(:data:`XLA_ONE_THREAD`) and the whole process tree pinned to one core. The budget is **CPU time of the process
tree**: a watchdog in the calling process reads, every :data:`POLL_SECONDS`, the user + system time of the
learner, of every live descendant (actor, multiprocessing's resource tracker) and the times of the learner's
reaped children (psutil); at ``cpu_minutes`` it sends SIGINT to the learner and its descendants (OpenSpiel's
learner catches the interrupt, tells the actors to stop and joins them). The figure kept as ``cpu_seconds`` is
the one the kernel gives when the learner is reaped (``os.wait4``: the learner and all its reaped descendants,
start-up, imports and compilation included); it passes the budget by the time the processes need to stop.
``checkpoint_freq`` is 1, so every learner step writes a new ``checkpoint-<step>`` folder and an interrupt never
hits the only copy; the highest complete one is kept, the others are deleted. ``folder/result.json`` is written
last (atomically). A folder with a ``result.json`` is not trained again; a folder without one (a half run) is
cleared of OpenSpiel's files and trained from the start: OpenSpiel's learner keeps no replay buffer on disk, so
it cannot resume.

**Seeds.** ``seed`` labels the repeat and seeds numpy's global generator in the learner; OpenSpiel's actors and
MCTS bots draw from unseeded generators and the learner and actor run asynchronously, so no two runs are
identical.

**Playing** (:func:`player`). The kept checkpoint in OpenSpiel's ``model_nnx.Model``; its ``inference`` method
compiled with ``jax.jit`` (the same function on the same weights; OpenSpiel's actors call it uncompiled, which
costs 4.5 ms a position for the MLP here against 0.06 ms compiled); OpenSpiel's ``AlphaZeroEvaluator`` and
``MCTSBot`` with PUCT, no root noise and no solver, as OpenSpiel's own evaluation bot plays; with
``simulations=0`` the network's likeliest legal move. farl's kernel state is turned into a pyspiel state by
replaying a move order that yields its board (:func:`openspiel_actions`); the actions of the three games are the
same numbers on both sides (TicTacToe ``3 * row + col``, Connect Four the column, Hex ``size * row + col`` with
the same rhombus and goals: ``player_0`` / OpenSpiel's x joins top and bottom).

Needs ``pip install flax optax chex orbax-checkpoint psutil`` (open_spiel and jax besides); they are optional
study dependencies, not farl's.

CLI::

    python -m studies.alphazero.openspiel_az train tictactoe --cpu-minutes 3 --seed 0 \
        --out runs/alphazero/openspiel/tictactoe-3min-seed0
    python -m studies.alphazero.openspiel_az eval runs/alphazero/openspiel/tictactoe-3min-seed0 \
        --vs maxn10 --vs random --games 50
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

INSTALL_HINT = ("OpenSpiel's AlphaZero needs open_spiel, jax, flax, optax, chex, orbax-checkpoint and psutil: "
                "pip install open_spiel flax optax chex orbax-checkpoint psutil")
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
"""XLA on one thread (as farl's ``benchmarks/vector_speed.py`` runs pgx), unless ``XLA_FLAGS`` is set."""
POLL_SECONDS = 0.25
STOP_GRACE_SECONDS = 60.0
"""Wall seconds the processes get to stop after the interrupt before SIGTERM (then SIGKILL after as long)."""
REPO = Path(__file__).resolve().parents[2]

COMMON = dict(learning_rate=1e-3, weight_decay=1e-4, decouple_weight_decay=False, train_batch_size=128,
              replay_buffer_size=2 ** 10, replay_buffer_reuse=4, max_steps=0, checkpoint_freq=1, actors=1,
              evaluators=0, evaluation_window=50, eval_levels=7, uct_c=1.41, max_simulations=40,
              policy_alpha=1.0, policy_epsilon=0.25, temperature=1.0, temperature_drop=2, nn_model="mlp",
              nn_width=128, nn_depth=2, verbose=False, quiet=True, nn_api_version="nnx")
"""OpenSpiel's example settings (``examples/alpha_zero.py``: PUCT c 1.41, 40 simulations, batch 128, reuse 4,
Adam 1e-3, L2 1e-4, root noise 0.25 / alpha 1) with what a budget of minutes on one core needs: 1 actor,
0 evaluators, a buffer of 1,024 states (a learner step every 256 new states; the example's 8,192 would give no
step in a few minutes), a checkpoint every step, no step limit, and an MLP 128x2 (OpenSpiel's actors run the
network uncompiled: 4.5 ms a position for it here, 22-30 ms for its resnets)."""
PER_GAME = {"tictactoe": dict(temperature_drop=2), "connect_four": dict(temperature_drop=10),
            "hex": dict(temperature_drop=6)}
"""Moves played in proportion to the visit counts before the best is taken (2 is OpenSpiel's TicTacToe setting)."""


def require() -> None:
    """ImportError with the install line unless OpenSpiel's AlphaZero and its dependencies are importable."""
    missing = [m for m in ("pyspiel", "jax", "flax", "optax", "chex", "orbax", "psutil")
               if importlib.util.find_spec(m) is None]
    if not missing and importlib.util.find_spec("orbax.checkpoint") is None:
        missing = ["orbax.checkpoint"]
    if missing:
        raise ImportError(f"missing {', '.join(missing)}. {INSTALL_HINT}")


# ------------------------------------------------------------------------------------------ farl <-> OpenSpiel
def openspiel_game_string(game: str, params: dict | None = None) -> str:
    """OpenSpiel's name (with parameters) of farl's ``game`` with ``params``."""
    import farl_envs

    spec = farl_envs.game_spec(game, **(params or {}))
    if spec.name == "tictactoe":
        return "tic_tac_toe"
    if spec.name == "connect_four":
        rows, cols = spec.params["rows"], spec.params["cols"]
        return "connect_four" if (rows, cols) == (6, 7) else f"connect_four(rows={rows},columns={cols})"
    if spec.name == "hex":
        return f"hex(board_size={spec.params['size']})"
    raise ValueError(f"no OpenSpiel counterpart mapped for farl's {spec.id}: tictactoe, connect_four, hex")


def _interleave(first: list, second: list, what: str) -> list:
    if len(first) not in (len(second), len(second) + 1):
        raise ValueError(f"{what}: {len(first)} pieces of player_0 against {len(second)} of player_1")
    order = []
    for i, a in enumerate(first):
        order.append(a)
        if i < len(second):
            order.append(second[i])
    return order


def _connect_four_order(cells: np.ndarray, rows: int, cols: int) -> list:
    """Columns to play, alternating player_0 / player_1 from an empty board, that fill ``cells`` (row 0 at the
    top); a depth-first search over the column heights (each column's discs must go in bottom-up)."""
    stacks = []
    for c in range(cols):
        stack = []
        for r in range(rows - 1, -1, -1):
            v = int(cells[r * cols + c])
            if v == 0:
                break
            stack.append(v)
        stacks.append(stack)
    total = sum(len(s) for s in stacks)
    seen = set()
    heights = [0] * cols
    order = []

    def search(mark: int) -> bool:
        if len(order) == total:
            return True
        key = tuple(heights)
        if key in seen:
            return False
        seen.add(key)
        for c in range(cols):
            if heights[c] < len(stacks[c]) and stacks[c][heights[c]] == mark:
                heights[c] += 1
                order.append(c)
                if search(3 - mark):
                    return True
                order.pop()
                heights[c] -= 1
        return False

    if not search(1):
        raise ValueError("connect_four: no alternating move order reaches this board")
    return order


def openspiel_actions(spec, state: np.ndarray) -> list:
    """OpenSpiel actions that lead from the start to the position of farl's kernel ``state``.

    The board is all a position of these games is (no repetition or move-count rule), and its pieces never move,
    so any alternating order of its pieces reaches it; a live position has no line or chain earlier either.
    """
    cells = np.asarray(state[3:], dtype=np.int64)
    if spec.name in ("tictactoe", "hex"):
        n = 9 if spec.name == "tictactoe" else spec.params["size"] ** 2
        cells = cells[:n]
        return _interleave(np.flatnonzero(cells == 1).tolist(), np.flatnonzero(cells == 2).tolist(), spec.id)
    if spec.name == "connect_four":
        rows, cols = spec.params["rows"], spec.params["cols"]
        return _connect_four_order(cells[cols:cols + rows * cols], rows, cols)
    raise ValueError(f"no OpenSpiel counterpart mapped for farl's {spec.id}")


def openspiel_state(os_game, spec, state: np.ndarray):
    """The pyspiel state of farl's kernel ``state`` (a live position), checked to have the same player to move."""
    os_state = os_game.new_initial_state()
    for a in openspiel_actions(spec, state):
        os_state.apply_action(int(a))
    if os_state.is_terminal() or os_state.current_player() != int(state[0]):
        raise ValueError(f"{spec.id}: the rebuilt OpenSpiel position does not match farl's (player to move "
                         f"{int(state[0])}, OpenSpiel {os_state.current_player()})")
    return os_state


# ------------------------------------------------------------------------------------------------ training
def openspiel_config(game: str, game_params: dict | None, folder, overrides: dict | None = None) -> dict:
    """The fields of OpenSpiel's ``alpha_zero.Config`` for a run (all but the two it fills in itself)."""
    import farl_envs

    spec = farl_envs.game_spec(game, **(game_params or {}))
    cfg = dict(COMMON, game=openspiel_game_string(game, game_params), path=str(Path(folder).resolve()))
    cfg.update(PER_GAME.get(spec.name, {}))
    for key, value in (overrides or {}).items():
        if key not in cfg:
            raise ValueError(f"unknown OpenSpiel AlphaZero setting {key!r}; known: {', '.join(sorted(cfg))}")
        cfg[key] = type(cfg[key])(value) if not isinstance(cfg[key], bool) else _as_bool(value)
    if cfg["actors"] < 1 or cfg["eval_levels"] < 2:
        raise ValueError("OpenSpiel's learner needs actors >= 1 and eval_levels >= 2")
    return cfg


def _as_bool(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


_OPENSPIEL_FILE = re.compile(r"^(checkpoint-.*|log-.*\.txt|learner\.jsonl|config\.json|run\.json|learner-output\.txt)$")


def _clear_half_run(folder: Path) -> list:
    removed = []
    for p in sorted(folder.iterdir()):
        if _OPENSPIEL_FILE.match(p.name):
            shutil.rmtree(p) if p.is_dir() else p.unlink()
            removed.append(p.name)
    return removed


def _complete_checkpoints(folder: Path) -> list:
    """``(step, name)`` of the checkpoint folders orbax finished (renamed from its temporary name, with its
    metadata file), lowest step first."""
    found = []
    for p in folder.iterdir():
        m = re.fullmatch(r"checkpoint-(\d+)", p.name)
        if m and p.is_dir() and (p / "_CHECKPOINT_METADATA").exists():
            found.append((int(m.group(1)), p.name))
    return sorted(found)


def run_learner(folder) -> None:
    """The learner subprocess of :func:`train`: OpenSpiel's ``alpha_zero`` on ``folder/run.json``'s config."""
    folder = Path(folder).resolve()
    run = json.loads((folder / "run.json").read_text())
    if run.get("cpu") is not None:
        os.sched_setaffinity(0, {int(run["cpu"])})  # before any child: the actor inherits it
    np.random.seed(int(run["seed"]) % 2 ** 32)
    _stop_when_orphaned()
    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    config = alpha_zero.Config(observation_shape=None, output_size=None, **run["openspiel_config"])
    try:
        alpha_zero.alpha_zero(config)
    except KeyboardInterrupt:  # an interrupt before OpenSpiel's learner loop started
        pass


def _stop_when_orphaned() -> None:
    """Interrupt the learner (which then stops its actor) if the process that started it goes away."""
    import _thread
    import threading

    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        _thread.interrupt_main()

    threading.Thread(target=watch, daemon=True).start()


def _tree_cpu(root, seen: dict) -> float:
    """CPU seconds (user + system) of ``root``, its reaped children and its live descendants; every descendant
    met is remembered in ``seen`` (pid -> psutil.Process) so that it can be stopped later."""
    import psutil

    t = root.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in root.children(recursive=True):
        seen.setdefault(child.pid, child)
        try:
            c = child.cpu_times()
            total += c.user + c.system
        except psutil.Error:
            pass
    return total


def _signal_tree(root, seen: dict, sig) -> None:
    import psutil

    for proc in [root, *seen.values()]:
        try:
            if proc.is_running():
                proc.send_signal(sig)
        except psutil.Error:
            pass


def _last_log_record(folder: Path) -> dict:
    path = folder / "learner.jsonl"
    if not path.exists():
        return {}
    last = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                last = json.loads(line)
            except json.JSONDecodeError:  # a line cut by the interrupt
                pass
    return last


def _versions() -> dict:
    out = {}
    for dist in ("open_spiel", "jax", "jaxlib", "flax", "optax", "chex", "orbax-checkpoint"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def train(game: str, game_params: dict | None, cpu_minutes: float, seed: int, folder, *,
          overrides: dict | None = None, cpu: int | None = -1, wall_limit_seconds: float | None = None,
          verbose: bool = True) -> dict:
    """Train OpenSpiel's AlphaZero on farl's ``game`` for ``cpu_minutes`` of CPU time of its process tree.

    Returns the run's result (also ``folder/result.json``): CPU and wall seconds, learner steps, states and
    games played, the kept checkpoint and OpenSpiel's config. A finished folder is returned as it is; a half run
    is cleared and started again (see the module docstring).

    ``overrides``: OpenSpiel ``Config`` fields to change (:data:`COMMON`). ``cpu``: the core the process tree
    is pinned to (-1: the highest the caller may use; None: no pinning). ``wall_limit_seconds``: stop also after
    this many wall seconds (default ``max(4 * budget, budget + 600)``).
    """
    import psutil

    from farl_agents.atomic import atomic_write_json

    folder = Path(folder).resolve()  # orbax takes absolute checkpoint paths only
    result_path = folder / "result.json"
    if result_path.exists():
        return json.loads(result_path.read_text())
    if cpu_minutes <= 0:
        raise ValueError(f"cpu_minutes must be > 0, got {cpu_minutes}")
    require()
    folder.mkdir(parents=True, exist_ok=True)
    removed = _clear_half_run(folder)
    if removed and verbose:
        print(f"{folder}: a half run ({len(removed)} files) cleared; training from the start", flush=True)
    cfg = openspiel_config(game, game_params, folder, overrides)
    if cpu == -1:
        cpu = max(os.sched_getaffinity(0))
    budget = 60.0 * float(cpu_minutes)
    wall_limit = wall_limit_seconds if wall_limit_seconds is not None else max(4 * budget, budget + 600)
    atomic_write_json(folder / "run.json", dict(game=game, game_params=dict(game_params or {}), seed=int(seed),
                                                cpu_minutes=float(cpu_minutes), cpu=cpu, openspiel_config=cfg))
    env = dict(os.environ)
    env.setdefault("XLA_FLAGS", XLA_ONE_THREAD)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    code = "import sys; from studies.alphazero.openspiel_az import run_learner; run_learner(sys.argv[1])"
    start = time.monotonic()
    with open(folder / "learner-output.txt", "w") as out:
        proc = subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=out, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
    root = psutil.Process(proc.pid)
    seen: dict = {}
    cpu_at_stop = None
    stopped_by = None
    stop_time = None
    watched = 0.0
    escalated = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        try:
            watched = _tree_cpu(root, seen)
        except psutil.Error:
            pass
        now = time.monotonic()
        if stopped_by is None and (watched >= budget or now - start >= wall_limit):
            stopped_by = "cpu budget" if watched >= budget else "wall limit"
            cpu_at_stop, stop_time = watched, now
            _signal_tree(root, seen, signal.SIGINT)
        elif stop_time is not None and now - stop_time > STOP_GRACE_SECONDS * (1 + escalated) and escalated < 2:
            _signal_tree(root, seen, signal.SIGTERM if escalated == 0 else signal.SIGKILL)
            escalated += 1
        time.sleep(POLL_SECONDS)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    leftovers = [p for p in seen.values() if p.is_running()]
    for p in leftovers:  # an actor the learner did not join (it was interrupted before its loop)
        try:
            p.kill()
        except psutil.Error:
            pass
    cpu_seconds = usage.ru_utime + usage.ru_stime
    if stopped_by is None:
        tail = (folder / "learner-output.txt").read_text()[-3000:]
        raise RuntimeError(f"OpenSpiel's learner exited (code {proc.returncode}) before the budget "
                           f"({cpu_seconds:.1f} of {budget:.0f} CPU s); its output ends:\n{tail}")
    checkpoints = _complete_checkpoints(folder)
    if not checkpoints:
        raise RuntimeError(f"{folder}: no complete checkpoint after {cpu_seconds:.1f} CPU s (budget too small "
                           f"for OpenSpiel's start-up?)")
    step, name = checkpoints[-1]
    for p in folder.iterdir():  # keep the latest checkpoint only (and no temporary folder of an interrupted save)
        if p.name.startswith("checkpoint-") and p.name != name:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    record = _last_log_record(folder)
    result = dict(
        game=game, game_params=dict(game_params or {}), openspiel_game=cfg["game"], seed=int(seed),
        cpu_minutes=float(cpu_minutes), cpu_seconds=round(cpu_seconds, 2),
        cpu_seconds_watchdog=round(max(watched, cpu_at_stop or 0.0), 2),
        cpu_seconds_at_stop=round(cpu_at_stop, 2), wall_seconds=round(wall, 2), stopped_by=stopped_by,
        learner_exit_code=proc.returncode, leftover_processes_killed=len(leftovers),
        learner_steps=int(record.get("step", 0)), states=int(record.get("total_states", 0)),
        games=int(record.get("total_trajectories", 0)), checkpoint=name, checkpoint_step=step,
        cpu_measure=("os.wait4 rusage of the learner subprocess (user + system, its reaped descendants "
                     "included); the watchdog stopped it at cpu_seconds_at_stop (psutil, the live process tree)"),
        pinned_cpu=cpu, xla_flags=env.get("XLA_FLAGS"), versions=_versions(), openspiel_config=cfg,
    )
    atomic_write_json(result_path, result)
    if verbose:
        print(f"{folder}: {result['learner_steps']} learner steps, {result['games']} games, "
              f"{cpu_seconds:.1f} CPU s in {wall:.1f} s, kept {name}", flush=True)
    return result


# ------------------------------------------------------------------------------------------------- playing
class _CompiledModel:
    """OpenSpiel's model with its ``inference`` compiled (``AlphaZeroEvaluator`` calls ``inference``)."""

    def __init__(self, model):
        import jax

        self._fn = jax.jit(model.inference)

    def inference(self, observation, legals_mask):
        value, policy = self._fn(np.asarray(observation, dtype=np.float32), np.asarray(legals_mask, dtype=bool))
        return np.asarray(value), np.asarray(policy)


class OpenSpielAZPlayer:
    """farl harness player: OpenSpiel's MCTS with the trained network (see :func:`player`)."""

    def __init__(self, folder, simulations: int = 100, name: str | None = None):
        self.folder = Path(folder).resolve()  # orbax takes absolute checkpoint paths only
        result_path = self.folder / "result.json"
        if not result_path.exists():
            raise FileNotFoundError(f"{result_path}: not a finished OpenSpiel AlphaZero run")
        self.result = json.loads(result_path.read_text())
        self.simulations = int(simulations)
        if self.simulations < 0:
            raise ValueError(f"simulations must be >= 0, got {simulations}")
        self.name = name or f"openspiel-az{self.simulations}"
        import farl_envs

        self.spec = farl_envs.game_spec(self.result["game"], **self.result["game_params"])
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            require()
            import pyspiel
            from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
            from open_spiel.python.algorithms.alpha_zero import utils

            cfg = self.result["openspiel_config"]
            os_game = pyspiel.load_game(self.result["openspiel_game"])
            model = utils.api_selector(cfg["nn_api_version"]).Model.build_model(
                cfg["nn_model"], os_game.observation_tensor_shape(), os_game.num_distinct_actions(),
                cfg["nn_width"], cfg["nn_depth"], cfg["weight_decay"], cfg["learning_rate"], str(self.folder),
                decouple_weight_decay=cfg["decouple_weight_decay"])
            model.load_checkpoint(self.result["checkpoint_step"])
            compiled = _CompiledModel(model)
            self._loaded = (os_game, compiled, evaluator_lib.AlphaZeroEvaluator(os_game, compiled))
        return self._loaded

    def act(self, game, state: np.ndarray, rng: np.ndarray) -> int:
        from open_spiel.python.algorithms import mcts

        from farl_envs.core.rng import rng_next

        if game.id != self.spec.id or game.params != self.spec.params:
            raise ValueError(f"{self.name} was trained on {self.spec.id} {self.spec.params}, not {game.id} "
                             f"{game.params}")
        os_game, compiled, az_evaluator = self._load()
        os_state = openspiel_state(os_game, self.spec, state)
        seed = int(rng_next(rng)) & 0xFFFFFFFF
        if self.simulations == 0:
            _, policy = compiled.inference(os_state.observation_tensor(), os_state.legal_actions_mask())
            legal = os_state.legal_actions()
            return int(legal[int(np.argmax([policy[a] for a in legal]))])
        bot = mcts.MCTSBot(os_game, self.result["openspiel_config"]["uct_c"], self.simulations, az_evaluator,
                           solve=False, random_state=np.random.RandomState(seed),
                           child_selection_fn=mcts.SearchNode.puct_value, dirichlet_noise=None,
                           dont_return_chance_node=True)
        return int(bot.step(os_state))

    def __repr__(self) -> str:
        return f"OpenSpielAZPlayer({str(self.folder)!r}, simulations={self.simulations})"


def player(folder, simulations: int = 100) -> OpenSpielAZPlayer:
    """The trained run in ``folder`` as a farl harness player named ``openspiel-az<simulations>``:
    OpenSpiel's PUCT ``MCTSBot`` with ``simulations`` per move on its network, or the network's likeliest
    legal move when ``simulations`` is 0. Its random choices (MCTS's order of equal children) come from the
    harness's ``rng``, so it is deterministic given it. Loads the network at its first move."""
    return OpenSpielAZPlayer(folder, simulations)


# ----------------------------------------------------------------------------------------------------- CLI
def _key_values(items: list, what: str) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"{what} takes KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _game_params(items: list) -> dict:
    return {k: int(v) for k, v in _key_values(items, "--param").items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.alphazero.openspiel_az",
                                     description="OpenSpiel's AlphaZero on a CPU budget, evaluated in farl's harness")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train on a CPU budget (CPU time of the learner and actor processes)")
    t.add_argument("game", help="farl's game name: tictactoe, connect_four, hex")
    t.add_argument("--param", action="append", help="a game parameter KEY=INT (hex: size=6)")
    t.add_argument("--cpu-minutes", type=float, required=True)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", required=True, help="the run folder (result.json, the kept checkpoint, OpenSpiel's logs)")
    t.add_argument("--set", action="append", help="an OpenSpiel Config field KEY=VALUE (e.g. nn_model=resnet)")
    e = sub.add_parser("eval", help="play a trained run against farl opponents in farl's harness")
    e.add_argument("folder")
    e.add_argument("--vs", action="append", required=True, help="an opponent name (make_opponent), repeatable")
    e.add_argument("--games", type=int, default=50, help="games per seat and opponent")
    e.add_argument("--simulations", type=int, default=100)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--starts", default="initial", help="start positions, a start-set name of farl train --eval-starts: "
                   "initial, start+1ply, all-1ply, random:K")
    e.add_argument("--json", help="write the evaluation results (a list) to this file")
    args = parser.parse_args(argv)
    if args.command == "train":
        result = train(args.game, _game_params(args.param), args.cpu_minutes, args.seed, args.out,
                       overrides=_key_values(args.set, "--set"))
        print(json.dumps({k: v for k, v in result.items() if k != "openspiel_config"}, indent=1))
        return 0
    from farl_agents.evaluate import evaluate
    from farl_agents.runs import start_states

    agent = player(args.folder, args.simulations)
    starts = start_states(agent.spec, args.starts)  # the start-set names of farl train --eval-starts
    out = []
    for vs in args.vs:
        res = evaluate(agent.spec, agent, vs, n_games=args.games, start_states=starts, seed=args.seed)
        print(res.table(), f"({res.seconds:.0f} s)", flush=True)
        out.append(res.to_dict())
    if args.json:
        from farl_agents.atomic import atomic_write_json

        atomic_write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
