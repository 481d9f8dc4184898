"""The Nemesh learner family on the ``farl`` command line (see :mod:`farl_agents.families`).

::

    farl train connect_four --algo nemesh --cols 8 --preset report          # the report's curriculum
    farl train connect_four --algo nemesh --preset quick --out runs/nm       # seconds
    farl train --resume runs/nm                                              # after Ctrl-C or a crash
    farl eval runs/nm/agent.npz --vs mcts200

The run folder holds ``run.json`` (``"algo": "nemesh"``, the board, the
sessions, the settings, the command, the status), ``checkpoint.npz`` (the
agent with its place in the curriculum and its random stream, written
atomically every few minutes, at every session's end and on Ctrl-C) and, at
the end, ``agent.npz``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import shlex
import signal
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_json

ALGOS = ("nemesh",)
FORMATS = ("farl-nemesh-agent",)
INFO = {"nemesh": "seed 003: linear-feature SARSA (36 features) with alpha-beta look-ahead; Connect Four "
                  "any size (farl train connect_four --algo nemesh --cols 8 --preset report|quick)"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(f"{message}; see `farl train connect_four --algo nemesh --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="farl train", description="Train agent Nemesh (seed 003) on Connect Four: SARSA on 36 "
                "hand-made features, alpha-beta look-ahead, the report's bootstrapping curriculum.")
    p.add_argument("game", nargs="?", help="connect_four")
    p.add_argument("--algo", choices=ALGOS, default="nemesh")
    p.add_argument("--rows", type=int, default=6, help="board rows, 4..10 (default 6)")
    p.add_argument("--cols", type=int, default=7, help="board columns, 4..10 (default 7; the report plays 8)")
    p.add_argument("--preset", default="report", help="curriculum: report (1,000 games vs random at depth 3, "
                   "then 3 x 100,000 self-play games at depth 3/4/5) or quick (seconds)")
    p.add_argument("--fraction", type=float, default=1.0, help="multiply every session's game count by this "
                   "(e.g. 0.01 for a 1%% run of the report's curriculum)")
    p.add_argument("--depth", type=int, help="search depth the saved agent plays with "
                   "(default: the last session's depth)")
    p.add_argument("--alpha0", type=float, help="alpha0 of the learning rate alpha0 / (1 + T0 + turn)")
    p.add_argument("--seed", type=int, default=0, help="seed of the training stream")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/connect_four-nemesh-<rows>x<cols>-"
                                                "seed<seed>-<time>)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its last checkpoint")
    p.add_argument("--stop-after", type=int, metavar="N", help="stop with a checkpoint once N games are done")
    p.add_argument("--checkpoint-minutes", type=float, default=2.0, metavar="M", help="checkpoint at least "
                                                                                     "this often")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _command(argv) -> str:
    return "farl train " + shlex.join(argv)


def _new_run(args, argv) -> tuple[Path, dict]:
    from farl_agents.nemesh.agent import NemeshAgent
    from farl_agents.nemesh.trainer import preset, scaled, sessions_to_json, start

    if args.game is None:
        raise ValueError("name the game: farl train connect_four --algo nemesh (or --resume DIR)")
    if args.game.removesuffix("_v0") != "connect_four":
        raise ValueError(f"Nemesh plays connect_four only, not {args.game!r}")
    sessions = preset(args.preset)
    if args.fraction != 1.0:
        sessions = scaled(sessions, args.fraction)
    depth = args.depth if args.depth is not None else sessions[-1].depth
    kw = {} if args.alpha0 is None else {"alpha0": args.alpha0}
    agent = NemeshAgent(rows=args.rows, cols=args.cols, depth=depth, seed=args.seed, **kw)
    start(agent, sessions)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = Path(args.out or f"runs/connect_four-nemesh-{args.rows}x{args.cols}-seed{args.seed}-{stamp}")
    if (folder / "run.json").exists():
        raise ValueError(f"{folder} already holds a run; continue it with --resume {folder} or pick another --out")
    import farl_envs
    record = {"algo": "nemesh", "game": "connect_four", "game_params": dict(agent.game.params),
              "preset": args.preset, "fraction": args.fraction, "sessions": sessions_to_json(sessions),
              "settings": agent.meta()["settings"], "command": _command(argv),
              "farl_version": farl_envs.__version__, "status": "running", "games_done": 0, "wall_seconds": 0.0}
    folder.mkdir(parents=True, exist_ok=True)
    agent.save(folder / "checkpoint.npz")
    atomic_write_json(folder / "run.json", record)
    return folder, record


def _open_run(folder) -> tuple[Path, dict]:
    folder = Path(folder)
    try:
        record = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        raise ValueError(f"{folder} holds no readable Nemesh run (run.json missing or broken)") from None
    if not isinstance(record, dict) or record.get("algo") != "nemesh":
        raise ValueError(f"{folder}/run.json is not a Nemesh run")
    if not (folder / "checkpoint.npz").is_file():
        raise ValueError(f"{folder} has no checkpoint.npz to resume from")
    return folder, record


def train_main(argv) -> int:
    """``farl train ... --algo nemesh``: train (or resume) a run folder; returns the exit code."""
    from farl_agents.nemesh.agent import NemeshAgent
    from farl_agents.nemesh.trainer import sessions_from_json, total_games, train

    argv = list(argv)
    args = _parser().parse_args(argv)
    if args.stop_after is not None and args.stop_after < 0:
        raise ValueError("--stop-after must be >= 0")
    if args.checkpoint_minutes <= 0:
        raise ValueError("--checkpoint-minutes must be > 0")
    if args.resume:
        given = [a for a in argv if a.startswith("--") and a.split("=")[0] not in
                 ("--resume", "--quiet", "--stop-after", "--checkpoint-minutes", "--algo")]
        if args.game or given:
            raise ValueError(f"--resume continues the run stored in {args.resume}; drop "
                             f"{', '.join(([args.game] if args.game else []) + given)}")
        folder, record = _open_run(args.resume)
    else:
        folder, record = _new_run(args, argv)
    agent = NemeshAgent.load(folder / "checkpoint.npz")
    sessions = sessions_from_json(record["sessions"])
    total = total_games(sessions)
    p = agent.game.params
    print(f"{'resuming' if args.resume else 'training'} Nemesh on connect_four {p['rows']}x{p['cols']} "
          f"({record['preset']}, {total:,} games, depth {agent.depth}) in {folder}"
          + (f" at game {agent.games_done:,}" if args.resume else ""))

    bar = None
    if not args.quiet:
        from tqdm import tqdm
        bar = tqdm(total=total, initial=agent.games_done, unit="game", dynamic_ncols=True)
    state = {"last": time.monotonic(), "session": agent.progress.get("session"), "stop": False,
             "t0": time.monotonic(), "wall": float(record.get("wall_seconds", 0.0))}

    def checkpoint(status: str) -> None:
        agent.save(folder / "checkpoint.npz")
        record.update(status=status, games_done=agent.games_done,
                      wall_seconds=round(state["wall"] + time.monotonic() - state["t0"], 1))
        atomic_write_json(folder / "run.json", record)
        state["last"] = time.monotonic()

    def on_chunk(ag, results) -> bool:
        if bar is not None:
            bar.update(len(results))
            bar.set_postfix(session=ag.progress["session"] + 1, p1_reward=f"{results[:, 0].mean():+.2f}")
        if ag.progress["session"] != state["session"] or \
                time.monotonic() - state["last"] > 60 * args.checkpoint_minutes:
            state["session"] = ag.progress["session"]
            checkpoint("running")
        if args.stop_after is not None and ag.games_done >= args.stop_after:
            return False
        return not state["stop"]

    def on_signal(signum, frame):
        state["stop"] = True

    old = signal.signal(signal.SIGTERM, on_signal)
    try:
        if args.stop_after is None or agent.games_done < args.stop_after:
            train(agent, sessions, chunk_games=20, on_chunk=on_chunk)
    except KeyboardInterrupt:
        checkpoint("interrupted")
        print(f"\ninterrupted; continue with: farl train --resume {shlex.quote(str(folder))}")
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
        if bar is not None:
            bar.close()
    from farl_agents.nemesh.trainer import finished
    if finished(agent):
        checkpoint("done")
        agent.save(folder / "agent.npz")
        print(f"done: {agent.games_done:,} games; agent {folder / 'agent.npz'}, settings {folder / 'run.json'}")
        return 0
    checkpoint("stopped" if not state["stop"] else "interrupted")
    print(f"stopped at game {agent.games_done:,} of {total:,}; continue with: "
          f"farl train --resume {shlex.quote(str(folder))}")
    return 143 if state["stop"] else 0


def load_player(path, game=None):
    """``(NemeshAgent, its GameSpec)`` from a Nemesh agent file; ``game`` (a GameSpec), if given, must match."""
    from farl_agents.nemesh.agent import NemeshAgent

    try:
        agent = NemeshAgent.load(path, game)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    return agent, agent.game
