"""``farl tournament``: the comparison protocol of Cohen-Solal 2020 for the descent family.

``farl tournament GAME --variant NAME:key=value,... (repeat) --minutes M``
trains every variant for M minutes (each in a run folder under OUT, through
:func:`farl_agents.descent.run.train_run`; rerunning the command reuses
finished runs and resumes unfinished ones), then plays an all-play-all of
their final evaluation functions with fixed-depth alpha-beta in both seats
(or ``--agents FILE ...`` to skip training). Training itself is
``farl train GAME --algo descent`` (:mod:`farl_agents.descent.family`). The
variants train through :func:`farl_agents.backend.run_tasks`: one after the
other by default, ``--jobs J`` at a time on this machine, or on a Ray cluster
(``--backend ray [--ray-address ...]``; their run folders come home to OUT).
"""
from __future__ import annotations

import time
import traceback
from pathlib import Path

from farl_agents.backend.options import add_backend_options, backend_args
from farl_agents.cli.common import add_quiet_flag, params_of
from farl_agents.descent.trainer import DescentConfig


def _game(name: str, params: dict):
    import farl_envs

    name = name.removesuffix("_v0")
    try:
        return farl_envs.game_spec(name, **params)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"cannot make game {name!r} with {params}: {exc}") from None


# ------------------------------------------------------------------ tournament
def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "tournament", help="Cohen-Solal 2020's protocol: train descent variants for equal time, then all-play-all",
        description="Train each --variant for --minutes (same wall-clock), then play every pair of final "
                    "evaluation functions with fixed-depth alpha-beta in both seats from random openings; "
                    "prints win percentages with standard errors and writes OUT/tournament.{json,md}.",
        epilog="Example: farl tournament hex --param size=6 --variant tree:learning=tree "
               "--variant root:learning=root --variant terminal:learning=terminal --minutes 2")
    p.add_argument("game")
    p.add_argument("--param", action="append", metavar="KEY=VALUE")
    p.add_argument("--variant", action="append", metavar="NAME:KEY=VALUE,...",
                   help="a training variant (keys: search, learning, heuristic, selection, completion, "
                        "move_seconds, move_iterations, alpha, evaluation); repeat")
    p.add_argument("--agents", nargs="+", metavar="FILE", help="agent files to compare instead of training")
    p.add_argument("--minutes", type=float, default=1.0, help="training minutes per variant")
    p.add_argument("--depth", type=int, default=2, help="alpha-beta depth of the matches")
    p.add_argument("--openings", type=int, default=10, help="random openings per pair (each in both seats)")
    p.add_argument("--opening-plies", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", metavar="DIR", help="folder for runs and results (default runs/tournament-GAME-TIME)")
    p.add_argument("--eval-every-seconds", type=float, default=15.0, metavar="S",
                   help="learning curve of each variant's run: a point every S training seconds (0: none)")
    p.add_argument("--eval-vs", default="mcts100", metavar="OPP", help="the curves' reference opponent")
    add_quiet_flag(p)
    add_backend_options(p, "training runs", note="Each variant still trains for --minutes of wall-clock: give "
                                                 "each its own CPU")
    p.set_defaults(func=cmd_tournament, command="tournament")


def train_variant(task: dict) -> dict:
    """One variant's training run in ``task["folder"]`` (a task of :func:`farl_agents.backend.run_tasks`)."""
    from farl_agents.descent.run import train_run

    try:
        run = train_run(DescentConfig(**task["config"]), task["folder"], progress=task["progress"], **task["curve"])
    except Exception as exc:  # noqa: BLE001 - reported per variant, with the traceback in the folder
        Path(task["folder"]).mkdir(parents=True, exist_ok=True)
        (Path(task["folder"]) / "error.txt").write_text(traceback.format_exc())
        return {"name": task["name"], "status": "failed", "error": f"{type(exc).__name__}: {exc}"}
    return {"name": task["name"], "status": "done" if run.finished else "interrupted"}


def cmd_tournament(args) -> int:
    import dataclasses

    from farl_agents.backend import run_tasks
    from farl_agents.descent.tournament import all_play_all, markdown, parse_variant, write

    backend = backend_args(args)
    game = _game(args.game, params_of(args.param))
    if args.eval_every_seconds < 0:
        raise ValueError("--eval-every-seconds must be >= 0 (0: no learning curve)")
    curve = {"eval_every": args.eval_every_seconds, "eval_vs": (args.eval_vs,), "eval_seed": args.seed}
    out = Path(args.out) if args.out else Path("runs") / f"tournament-{game.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    files = {}
    if args.agents:
        for f in args.agents:
            files[Path(f).parent.name if Path(f).name == "agent.npz" else Path(f).stem] = f
    tasks = []
    for text in args.variant or ():
        name, over = parse_variant(text)
        cfg = DescentConfig(game=game.name, game_params=dict(game.params), minutes=args.minutes, seed=args.seed,
                            **over).check()
        tasks.append({"name": name, "folder": str(out / name), "config": dataclasses.asdict(cfg), "curve": curve,
                      "progress": not args.quiet and backend["backend"] == "local" and backend["jobs"] == 1})
        files[name] = str(out / name / "agent.npz")
    if len(files) < 2:
        raise ValueError("a tournament needs at least two variants or agent files (--variant / --agents)")
    # runs trained in an earlier call are reused, unfinished ones continue
    results = run_tasks(train_variant, tasks, progress=not args.quiet and len(tasks) > 1, desc="variants",
                        folder_keys=("folder",), **backend)
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        raise RuntimeError("; ".join(f"variant {r['name']} failed: {r['error']}" for r in failed))
    if len(results) < len(tasks) or any(r["status"] == "interrupted" for r in results):
        print("interrupted: the variants' runs are checkpointed; run the same command again to continue")
        return 130
    result = all_play_all(game, files, args.depth, args.openings, args.opening_plies, args.seed)
    write(result, out, f"{game.name} {game.params}")
    print(markdown(result, f"{game.name} {game.params}"))
    return 0
