"""``farl``: train, evaluate and play agents of every learner family, and reproduce the paper's Table 1.

::

    farl train tictactoe --algo td-farl --preset paper --eval-vs maxn10 --eval-every 1000
    farl train --resume runs/tictactoe-td-farl-seed0-20260101-120000      # after Ctrl-C or a crash
    farl eval runs/tictactoe-td-farl-seed0-20260101-120000 --vs maxn10 --start-states start+1ply
    farl play runs/tictactoe-td-farl-seed0-20260101-120000 --seat 1
    farl reproduce table1 --rows tictactoe,nim,nim3p --budget quick --runs 3
    farl info

One module per command (``train``, ``evaluate``, ``play``, ``reproduce``,
``info``, ``c4_book``, ``tournament`` for the descent family), each with ``add_parser(subparsers)`` and
``run_command(args) -> int``; the deep-RL baselines add ``baseline`` and
``compare`` (:mod:`farl_agents.baselines.cli`).

Mistakes in what was typed (unknown game, option or opponent, bad config
file, missing or foreign agent file, unwritable folder) end with a one-line
message and exit code 2; ``--debug`` shows the traceback instead. A run
stopped with Ctrl-C exits with 130 after writing a checkpoint.
"""
from __future__ import annotations

import shlex
import sys

import farl_envs
from farl_agents.baselines import cli as baselines_cli
from farl_agents.checkout import NoStudies
from farl_agents.cli import c4_book, evaluate, info, ladder, play, pretrained, reproduce, serve, tournament, train
from farl_agents.cli.common import CliError, Parser
from farl_agents.runs import RunError
from farl_agents.safe_files import AgentFileError


def build_parser(argv: list[str] | None = None) -> Parser:
    """The ``farl`` parser; ``farl train``'s flags are those of the family ``argv`` is about."""
    parser = Parser(prog="farl", description="n-tuple FARL agents: train, evaluate, play, reproduce Table 1.",
                    epilog="`farl COMMAND --help` explains a command. --debug (anywhere) shows tracebacks.")
    parser.add_argument("--version", action="version", version=f"farl {farl_envs.__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of errors")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    train_argv = argv[1:] if argv and argv[0] == "train" else []
    train.add_parser(sub, train.family_for_argv(train_argv))
    for module in (evaluate, play, reproduce, info, c4_book, tournament, ladder, serve, pretrained):
        module.add_parser(sub)
    baselines_cli.register(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None) -> int:
    """Run the ``farl`` command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        command = vars(args).get("command")
        if extra:
            raise CliError(f"unrecognized arguments: {' '.join(extra)}; see `farl {command or ''} --help`")
        args.argv = argv
        if command is None:
            parser.print_help()
            return 2
        if command == "baseline":  # the deprecated alias: the run stack's command, said first
            train_argv = baselines_cli.train_argv(args)
            print(baselines_cli.DEPRECATED.format(shlex.join(["farl", *train_argv])), file=sys.stderr)
            return main(train_argv + (["--debug"] if debug else []))
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        if debug:
            raise
        print("farl: interrupted", file=sys.stderr)
        return 130
    except (CliError, ValueError, OSError, RuntimeError) as exc:
        if debug:
            raise
        # a mistake in what was typed or in a file says all there is to say; anything else may be farl's bug
        said = isinstance(exc, (CliError, RunError, AgentFileError, NoStudies))
        hint = "" if said else " (--debug shows the traceback)"
        print(f"farl: error: {_one_line(exc)}{hint}", file=sys.stderr)
        return 2


__all__ = ["CliError", "build_parser", "main"]
