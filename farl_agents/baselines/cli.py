"""``farl compare`` (and the deprecated ``farl baseline``): the deep-RL baselines on the command line.

::

    farl compare tictactoe --budget-steps 200000 --budget-minutes 2
    farl train tictactoe --algo maskable-ppo --timesteps 100000 --out runs/ttt-ppo   # one baseline run

``farl baseline GAME --algo ...`` is an alias of ``farl train GAME --algo ...``
(:func:`train_argv` translates it) that says so before it runs.

The main ``farl`` command (:mod:`farl_agents.cli`) calls :func:`register`;
``python -m farl_agents.baselines ...`` runs the same commands on their own.
Importing this module does not import torch. Mistakes in what was typed
raise ``ValueError`` (one line, exit code 2); a missing ``baselines`` extra
raises ``RuntimeError`` (same).
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time

from farl_agents import loading
from farl_agents.backend.options import add_backend_options, backend_args
from farl_agents.baselines.family import EXTRA_HINT
from farl_agents.console import HelpFormatter, add_quiet_flag


def _need_sb3() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"this command needs the 'baselines' extra ({exc}); install it with: {EXTRA_HINT}") \
            from None


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def _params(items) -> dict:
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param takes KEY=VALUE, got {item!r}")
        value = value.strip()
        low = value.lower()
        if low in ("true", "false"):
            out[key.strip().replace("-", "_")] = low == "true"
        else:
            try:
                out[key.strip().replace("-", "_")] = int(value)
            except ValueError:
                raise ValueError(f"--param {key}: game parameters are integers or true/false, got {value!r}") \
                    from None
    return out


def _game(name: str, params: dict):
    """The short name of game ``name``, its parameters' names checked (their values are checked where the game
    is made); ValueError listing the games or the game's parameters."""
    key = loading.game_key(name)
    loading.check_param_names(key, params)
    return key


def _command_line(args, default_prog: str) -> str:
    return " ".join([default_prog] + [shlex.quote(a) for a in args.argv])


# ---------------------------------------------------------------- commands
DEPRECATED = ("`farl baseline` is deprecated: it now runs `{}` (one entry point for the baselines: the run "
              "stack's, resumable, with agent.zip for farl eval / play / serve)")
"""The line `farl baseline` prints before it runs the equivalent `farl train` command."""


def train_argv(args) -> list[str]:
    """The ``farl train`` arguments that do what ``farl baseline`` with ``args`` asked for.

    ``--minutes`` has no counterpart (the run stack's SB3 budget is steps) and
    is refused; ``--eval-points K`` becomes ``--eval-every`` of a K-th of the
    budget; without ``--eval-vs`` the game's default opponents are used, as
    ``farl baseline`` did.
    """
    import farl_envs
    from farl_agents.baselines.measure import eval_opponents
    from farl_agents.baselines.train import DEFAULT_TIMESTEPS

    params = _params(args.param)
    game = _game(args.game, params)
    if args.minutes is not None:
        raise ValueError("farl baseline --minutes is gone: give --timesteps (the budget of `farl train --algo "
                         f"{args.algo}` is environment steps)")
    steps = args.timesteps if args.timesteps is not None else DEFAULT_TIMESTEPS.get(game, 100_000)
    opps = ([o for item in args.eval_vs for o in item.split(",") if o] if args.eval_vs
            else eval_opponents(farl_envs.game_spec(game, **params)))
    out = args.out or f"runs/baseline-{game}-{args.algo}-seed{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    argv = ["train", game, "--algo", args.algo, "--timesteps", str(steps), "--seed", str(args.seed),
            "--opponent", args.opponent, "--out", out, "--eval-every", str(max(1, -(-steps // args.eval_points)))]
    for key, value in params.items():
        argv += ["--param", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    if opps:
        argv += ["--eval-vs", ",".join(opps)]
    if args.eval_games is not None:
        argv += ["--eval-games", str(args.eval_games)]
    if args.quiet:
        argv.append("--quiet")
    return argv


def cmd_baseline(args) -> int:
    """``python -m farl_agents.baselines baseline``: only says which ``farl train`` command replaces it (the
    ``farl`` command runs that command itself, see :func:`farl_agents.cli.main`)."""
    argv = train_argv(args)
    print(f"{DEPRECATED.format(shlex.join(['farl', *argv]))}; run that command", file=sys.stderr)
    return 2


def cmd_compare(args) -> int:
    backend = backend_args(args)
    game = _game(args.game, params := _params(args.param))
    _need_sb3()
    from farl_agents.checkout import import_study  # the comparison is a study of the source checkout

    study = import_study("compare.compare", "compare")
    LEARNERS, compare = study.LEARNERS, study.compare  # noqa: N806 - the study's constant

    learners = LEARNERS if not args.learners else [x.strip() for x in args.learners.split(",") if x.strip()]
    opps = None if not args.eval_vs else [o for item in args.eval_vs for o in item.split(",") if o]
    prog = "python -m farl_agents.baselines" if args.standalone else "farl"
    out_dir = args.out or f"runs/compare-{game}"
    out = compare(game, budget_steps=args.budget_steps, budget_minutes=args.budget_minutes, runs=args.runs,
                  out_md=args.out_md, out_dir=out_dir, seed=args.seed, learners=learners, opponent=args.opponent,
                  eval_opponents=opps, eval_games=args.eval_games, final_games=args.final_games,
                  eval_points=args.eval_points, command=_command_line(args, prog), **backend, **params)
    print(f"wrote {out['files']['md']} and {out['files']['png']} ({out['seconds'] / 60:.1f} min)")
    return 0


# ---------------------------------------------------------------- parsers
def register(subparsers) -> None:
    """Add ``baseline`` and ``compare`` to an argparse ``subparsers`` object (each sets ``func(args) -> int``)."""
    fmt = HelpFormatter
    p = subparsers.add_parser(
        "baseline", help="deprecated: runs `farl train GAME --algo maskable-ppo|dqn` (says the command)",
        description="Deprecated alias of `farl train GAME --algo maskable-ppo|dqn --timesteps N`: prints the "
                    "equivalent `farl train` command and runs it (a resumable run folder with agent.zip).",
        epilog="Example: farl baseline tictactoe --algo maskable-ppo --timesteps 100000", formatter_class=fmt)
    p.add_argument("game", help="the game, e.g. tictactoe, connect_four, game2048")
    p.add_argument("--algo", required=True, choices=["maskable-ppo", "dqn"], help="the algorithm")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--timesteps", type=_positive_int, metavar="N",
                        help="budget in environment steps (default: a per-game budget, 100,000 for tictactoe)")
    budget.add_argument("--minutes", type=_positive_float, metavar="M", help="budget in minutes of training")
    p.add_argument("--seed", type=int, default=0, help="seed of SB3, the envs and the opponents")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/baseline-GAME-ALGO-seedS-TIME)")
    p.add_argument("--opponent", default="self-play", metavar="OPP",
                   help="training opponent: self-play (frozen copies of the learner), random, or a farl opponent "
                        "name such as mcts50")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter, e.g. cols=8 (repeatable)")
    p.add_argument("--eval-vs", action="append", metavar="OPP",
                   help="evaluation opponents of the learning curve (default per game, e.g. maxn10,random)")
    p.add_argument("--eval-games", type=_positive_int, metavar="N", help="games per seat at each checkpoint")
    p.add_argument("--eval-points", type=_positive_int, default=10, metavar="K", help="checkpoints on the curve")
    add_quiet_flag(p)
    p.set_defaults(func=cmd_baseline, command="baseline", standalone=False)

    p = subparsers.add_parser(
        "compare", help="TD-FARL vs MaskablePPO vs DQN at equal steps and equal wall-clock",
        description="Train n-tuple TD-FARL (paper preset) and both SB3 baselines under the same budgets of "
                    "environment steps and of training minutes, evaluate all with the same harness against the "
                    "same opponents, and write OUT/compare_GAME.md with a PNG of the learning curves. Each "
                    "finished run is kept in OUT as it ends: the same command after an interruption trains only "
                    "what is left.",
        epilog="Example: farl compare tictactoe --budget-steps 200000 --budget-minutes 2", formatter_class=fmt)
    p.add_argument("game", help="the game (parameters default to the paper's Table 1 row)")
    p.add_argument("--budget-steps", type=_positive_int, metavar="N", help="equal environment steps")
    p.add_argument("--budget-minutes", type=_positive_float, metavar="M", help="equal minutes of training")
    p.add_argument("--runs", type=_positive_int, default=1, help="independent runs (seeds SEED..SEED+R-1)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--learners", metavar="LIST", help="subset of td-farl,maskable-ppo,dqn")
    p.add_argument("--opponent", default="self-play", metavar="OPP", help="SB3's training opponent")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter (repeatable)")
    p.add_argument("--eval-vs", action="append", metavar="OPP", help="evaluation opponents (default per game)")
    p.add_argument("--eval-games", type=_positive_int, metavar="N", help="games per seat at curve checkpoints")
    p.add_argument("--final-games", type=_positive_int, metavar="N", help="games per seat at the budget points")
    p.add_argument("--eval-points", type=_positive_int, default=8, metavar="K", help="curve checkpoints per budget")
    p.add_argument("--out", metavar="DIR", help="the comparison's folder: finished runs and the report "
                                                "(default runs/compare-GAME)")
    p.add_argument("--out-md", metavar="FILE", help="report path (default OUT/compare_GAME.md; "
                                                    "docs/results/compare_GAME.md to update the shipped page)")
    add_backend_options(p, "runs", note="One run is one learner with one seed; the equal-wall-clock budget "
                                        "assumes one CPU per run")
    p.set_defaults(func=cmd_compare, command="compare", standalone=False)


def main(argv=None) -> int:
    """``python -m farl_agents.baselines baseline|compare ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m farl_agents.baselines",
                                     description="Deep-RL baselines for farl (the `farl baseline` / `farl compare` "
                                                 "commands).")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    if args.command is None:  # no subcommand given
        parser.print_help()
        return 2
    args.argv, args.standalone = argv, True
    try:
        return int(args.func(args) or 0)
    except (ValueError, RuntimeError) as exc:
        print(f"{parser.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
