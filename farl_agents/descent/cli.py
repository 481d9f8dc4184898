"""The descent family's command line (see :mod:`farl_agents.families`).

``farl train GAME --algo descent [--search descent|ubfm|id|mcts] [--learning tree|root|terminal]
[--heuristic classic|depth-add|depth-mul|score|mobility|presence] [--selection egreedy|softmax|ordinal]
[--minutes M] [--seed S] [--out DIR] [--eval-every-seconds S] [--eval-vs OPP]`` trains f_θ by
self-play for M minutes (progress bar, atomic checkpoints, ``DIR/run.json`` with
``"algo": "descent"``) and every S training seconds measures the learning curve
(``DIR/curve.csv`` and ``DIR/curve.png``: f_θ with depth-2 alpha-beta against
OPP, see :mod:`farl_agents.descent.curves`); ``farl train --resume DIR`` continues it. ``farl eval`` / ``farl play`` accept
the ``agent.npz`` it writes (played by UBFMs, 200 iterations per move).

``farl tournament GAME --variant NAME:key=value,... (repeat) --minutes M``
runs the seed's comparison protocol: train every variant for M minutes, then
an all-play-all of their final evaluation functions with fixed-depth
alpha-beta in both seats (or ``--agents FILE ...`` to skip training).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from farl_agents.descent.heuristics import HEURISTICS
from farl_agents.descent.learning import LEARNINGS
from farl_agents.descent.selection import SELECTIONS
from farl_agents.descent.trainer import LEARN_SEARCHES, DescentConfig

ALGOS = ("descent",)
FORMATS = ("farl-descent-agent",)
INFO = {"descent": "seed 004: descent / UBFM / ID alpha-beta / MCTS self-play, tree|root|terminal learning, "
                   "reinforcement heuristics, completion, ordinal distribution; n-tuple or conv f_θ "
                   "(also farl tournament)"}

PLAY_ITERATIONS = 200
"""UBFMs iterations per move of a descent agent loaded by ``farl eval`` / ``farl play``."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(f"{message}; see `{self.prog} --help`")


def _params(items) -> dict:
    out = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--param takes KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _game(name: str, params: dict):
    import farl_envs

    name = name.removesuffix("_v0")
    try:
        return farl_envs.game_spec(name, **params)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"cannot make game {name!r} with {params}: {exc}") from None


def train_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="farl train", description="Train a descent-family agent (seed 004) by self-play.")
    p.add_argument("game", nargs="?", help="the game: tictactoe, connect_four, hex, othello, nim")
    p.add_argument("--algo", choices=ALGOS, default="descent")
    p.add_argument("--search", choices=LEARN_SEARCHES, default="descent", help="search used while learning")
    p.add_argument("--learning", choices=LEARNINGS, default="tree", help="learning data (Alg. 3-5)")
    p.add_argument("--heuristic", choices=HEURISTICS, default="classic", help="terminal evaluation f_t")
    p.add_argument("--selection", choices=SELECTIONS, default="egreedy", help="action selection (completed)")
    p.add_argument("--no-completion", action="store_true", help="plain UBFM/descent (no Alg. 9)")
    p.add_argument("--minutes", type=float, default=1.0, help="training time T in minutes (default 1)")
    p.add_argument("--move-seconds", type=float, default=0.05, help="search time per move (default 0.05 s)")
    p.add_argument("--move-iterations", type=int, default=0, help="search iterations per move (overrides seconds)")
    p.add_argument("--alpha", type=float, default=0.2, help="n-tuple LMS step size α")
    p.add_argument("--evaluation", choices=("ntuple", "conv"), default="ntuple",
                   help="f_θ: n-tuple network (default) or the paper's small conv net (needs torch)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter, e.g. size=6")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/descent-GAME-...)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR")
    p.add_argument("--checkpoint-seconds", type=float, default=30.0, help="training seconds between checkpoints")
    p.add_argument("--eval-every-seconds", type=float, default=15.0, metavar="S",
                   help="learning curve: measure f_θ every S training seconds (default 15; 0: no curve); "
                        "measuring does not count as training time")
    p.add_argument("--eval-vs", default="mcts100", metavar="OPP",
                   help="the curve's reference opponent (default mcts100; any farl opponent name)")
    p.add_argument("--eval-games", type=int, default=10, help="curve: games per seat and point (default 10)")
    p.add_argument("--eval-depth", type=int, default=2,
                   help="curve: alpha-beta depth of the measured player (default 2, as in farl tournament)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def train_main(argv: list[str]) -> int:
    from farl_agents.descent.curves import CurveSettings
    from farl_agents.descent.run import run_training

    args = train_parser().parse_args(argv)
    if args.resume:
        given = [a for a in argv if a.startswith("--") and a.split("=")[0] not in
                 ("--resume", "--no-progress", "--algo", "--checkpoint-seconds")]
        if args.game or given:
            raise ValueError(f"--resume continues the run stored in {args.resume} with its own settings "
                             f"(learning curve included); drop {' '.join(given) or args.game}")
        out = Path(args.resume)
        trainer = run_training(None, out, resume=True, progress=not args.no_progress,
                               checkpoint_seconds=args.checkpoint_seconds)
    else:
        if not args.game:
            raise ValueError("name the game to train (e.g. farl train hex --algo descent), or --resume DIR")
        game = _game(args.game, _params(args.param))
        config = DescentConfig(game=game.name, game_params=dict(game.params), search=args.search,
                               learning=args.learning, heuristic=args.heuristic, selection=args.selection,
                               completion=not args.no_completion, minutes=args.minutes,
                               move_iterations=args.move_iterations, move_seconds=args.move_seconds,
                               alpha=args.alpha, evaluation=args.evaluation, seed=args.seed).check()
        from farl_agents.descent.heuristics import make_heuristic

        make_heuristic(config.heuristic, game)  # a clear error before any folder is made
        curve = CurveSettings(every_seconds=args.eval_every_seconds, vs=args.eval_vs, games=args.eval_games,
                              depth=args.eval_depth, seed=args.seed).check(game)
        out = Path(args.out) if args.out else Path("runs") / (
            f"descent-{game.name}-{args.search}-{args.learning}-{args.heuristic}-seed{args.seed}-"
            f"{time.strftime('%Y%m%d-%H%M%S')}")
        trainer = run_training(config, out, progress=not args.no_progress,
                               checkpoint_seconds=args.checkpoint_seconds, curve=curve)
    print(f"descent: {trainer.games} games in {trainer.elapsed:.1f} s; agent {out / 'agent.npz'}")
    from farl_agents.descent.curves import read_curve

    rows = read_curve(out / "curve.csv")
    if rows:
        last = rows[-1]
        n = last["wins"] + last["draws"] + last["losses"]
        print(f"learning curve ({len(rows)} points, {out / 'curve.csv'}, {out / 'curve.png'}): final f_θ vs "
              f"{last['opponent']}: score {last['score']:.3f} ± {last['se']:.3f} ({n} games)")
    return 0


def load_player(path, game=None):
    """``(player, GameSpec)``: the agent file played by UBFMs with :data:`PLAY_ITERATIONS` iterations."""
    from farl_agents.descent.agent import load_agent

    agent = load_agent(path, game, search="ubfms", iterations=PLAY_ITERATIONS)
    return agent, agent.game


# ------------------------------------------------------------------ tournament
def register(subparsers) -> None:
    p = subparsers.add_parser(
        "tournament", help="seed 004's protocol: train descent variants for equal time, then all-play-all",
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
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_tournament, command="tournament")


def cmd_tournament(args) -> int:
    from farl_agents.descent.curves import CurveSettings
    from farl_agents.descent.run import run_training
    from farl_agents.descent.tournament import all_play_all, markdown, parse_variant, write

    game = _game(args.game, _params(args.param))
    curve = CurveSettings(every_seconds=args.eval_every_seconds, vs=args.eval_vs, seed=args.seed).check(game)
    out = Path(args.out) if args.out else Path("runs") / f"tournament-{game.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    files = {}
    if args.agents:
        for f in args.agents:
            files[Path(f).parent.name if Path(f).name == "agent.npz" else Path(f).stem] = f
    for text in args.variant or ():
        name, over = parse_variant(text)
        cfg = DescentConfig(game=game.name, game_params=dict(game.params), minutes=args.minutes, seed=args.seed,
                            **over).check()
        folder = out / name
        rec = folder / "run.json"
        if rec.exists() and json.loads(rec.read_text()).get("status") == "done":
            pass  # trained in an earlier call: reuse
        else:
            run_training(cfg, folder, resume=rec.exists(), progress=not args.no_progress, curve=curve)
        files[name] = str(folder / "agent.npz")
    if len(files) < 2:
        raise ValueError("a tournament needs at least two variants or agent files (--variant / --agents)")
    result = all_play_all(game, files, args.depth, args.openings, args.opening_plies, args.seed)
    write(result, out, f"{game.name} {game.params}")
    print(markdown(result, f"{game.name} {game.params}"))
    return 0
