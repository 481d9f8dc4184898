"""``farl reproduce table1``: the paper's Table 1, resumable and cached, on local workers or a Ray cluster;
``farl reproduce traces``: Thill et al. 2014's eligibility-trace study the same way;
``farl reproduce alphazero``: AlphaZero against TD-FARL, descent and PPO at equal CPU time (issue 44).

A thin entry: the studies themselves (``studies/table1/``, ``studies/traces/``, ``studies/alphazero/``) live
in farl's source checkout, not in the installed library (:mod:`farl_agents.checkout`); from an installed wheel
the command says so and exits 2. Output goes under ``runs/`` unless ``--out`` names a folder: the shipped pages in
``docs/results`` are rewritten only with ``--out docs/results``."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from farl_agents import checkout as studies
from farl_agents.backend import STREAM_SECONDS
from farl_agents.backend.options import add_backend_options, backend_args
from farl_agents.cli.common import CliError, HelpFormatter, add_quiet_flag, command_line

#: The default output folder of each study: a user's runs never overwrite the shipped pages.
DEFAULT_OUT = {"table1": "runs/table1", "traces": "runs/traces", "alphazero": "runs/alphazero"}
DEFAULT_RUNS = {"table1": 10, "traces": 10, "alphazero": 3}


def add_parser(sub) -> None:
    description = ("Train FARL and no-FARL agents with the paper's settings for each row over several seeds, "
                   "evaluate them as the paper's Table 1 does and write OUT/table1.md (budget quick: "
                   "table1_quick.md) plus one learning-curve PNG per row. Finished runs are cached, unfinished "
                   "ones resume: rerun the same command after an interruption. Runs the studies of a source "
                   "checkout (studies/table1, studies/traces); an installed wheel has none.")
    p = sub.add_parser(
        "reproduce", help="reproduce the paper's Table 1 (FARL vs no-FARL), resumable and cached",
        description=description, formatter_class=HelpFormatter)
    p.set_defaults(func=run_command, command="reproduce")
    if not studies.available():  # an installed wheel: any arguments, one clear message when run
        p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        return
    table1 = studies.import_study("table1.table1", "reproduce")
    BUDGETS, ROWS = table1.BUDGETS, table1.ROWS  # noqa: N806 - the study's constants

    p.add_argument("what", choices=["table1", "traces", "alphazero"],
                   help="table1: Konen & Bagheri 2020's Table 1; traces: Thill, Bagheri, Koch & Konen 2014's "
                        "Table I and Fig. 6 (eligibility traces, Connect Four; --variants, --budget paper|long|"
                        "quick|smoke); alphazero: farl's AlphaZero against TD-FARL (bare and with MCTS at test "
                        "time), descent and MaskablePPO at equal CPU minutes on TicTacToe, Connect Four and "
                        "Hex 6x6, with a ladder per game (its runs one at a time, here; --runs, --table-only)")
    p.add_argument("--variants", default="default",
                   help="traces: comma list of variants (tdl-std, tcl-std, tcl-et, tcl-rr, tcl-m-rr, ...; each "
                        "also with -ply, e.g. tcl-et-ply: the paper's TD chain through every ply), default or all")
    p.add_argument("--edax", metavar="PATH", default=None,
                   help="the Edax binary for the Othello row's Edax d1 column (sets FARL_EDAX; docs/reproducing.md)")
    p.add_argument("--rows", default=",".join(ROWS),
                   help="comma list of rows, or all (the paper's), nplayer (3-player games beyond the paper) or ply "
                        "(the paper's two-player rows with the per-ply TD chain: tictactoe-ply, connect4-ply, ...); "
                        "the N-player rerun's per-ply column: ewn3p_large-ply, yavalath3p_taught-ply, ...")
    p.add_argument("--runs", type=int, default=None,
                   help="training runs (seeds) per cell (default 10; alphazero: 3)")
    p.add_argument("--budget", choices=sorted(set(BUDGETS) | {"long"}), default="paper",
                   help="paper: the paper's episodes and evaluation sizes; quick: minutes; smoke: seconds (tests)")
    p.add_argument("--out", default=None,
                   help="output folder (default runs/table1, runs/traces or runs/alphazero; the shipped pages of "
                        "table1 and traces: --out docs/results)")
    add_backend_options(p, "runs", jobs_default=os.cpu_count() or 1)
    p.add_argument("--stream-seconds", type=float, default=STREAM_SECONDS, metavar="S",
                   help="--backend ray: how often a running run sends its new checkpoint home")
    add_quiet_flag(p)
    p.add_argument("--table-only", action="store_true",
                   help="train nothing: write the table and the curves from the runs already in OUT")
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="also rewrite the table block of PATH (between its <!-- table1:BUDGET start/end --> "
                        "markers) with the short form of the table")


def run_command(args) -> int:
    table1 = studies.import_study("table1.table1", "reproduce")
    if args.out is None:
        args.out = DEFAULT_OUT[args.what]
    if args.runs is None:
        args.runs = DEFAULT_RUNS[args.what]
    if args.what == "alphazero":
        return _alphazero(args)
    if args.edax is not None:
        if not Path(args.edax).is_file():
            raise CliError(f"--edax {args.edax}: no such file")
        os.environ["FARL_EDAX"] = str(Path(args.edax).resolve())  # the runs' workers inherit it
    if args.what == "traces":
        return _traces(args)
    if args.budget == "long":
        raise CliError("--budget long is for traces only")

    try:
        rows = table1.parse_rows(args.rows)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.runs < 1:
        raise CliError("--runs must be >= 1")
    backend = backend_args(args, CliError)
    if not args.stream_seconds > 0:
        raise CliError(f"--stream-seconds must be > 0, got {args.stream_seconds:g}")
    if args.readme is not None and not Path(args.readme).is_file():
        raise CliError(f"--readme {args.readme}: no such file")
    if args.table_only:
        if not Path(args.out).is_dir():
            raise CliError(f"--out {args.out}: no such folder (nothing to tabulate)")
        table1.tabulate(Path(args.out), args.budget, rows, command_line(args.argv))
        code = 0
    else:
        code = table1.reproduce(rows, runs=args.runs, budget=args.budget, out=args.out, command=command_line(args.argv),
                                progress=not args.quiet, stream_seconds=args.stream_seconds, **backend)
    if args.readme is not None:
        try:
            print(f"updated {table1.update_readme(Path(args.readme), Path(args.out), args.budget, rows)}")
        except ValueError as exc:
            raise CliError(str(exc)) from None
    return code


def _traces(args) -> int:
    traces = studies.import_study("traces.traces", "reproduce")

    try:
        variants = traces.parse_variants(args.variants)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.runs < 1:
        raise CliError("--runs must be >= 1")
    if args.table_only:
        write_report = studies.import_study("traces.traces_report", "reproduce").write_report
        print(f"wrote {write_report(Path(args.out), args.budget, variants, command_line(args.argv))}")
        return 0
    return traces.reproduce(variants, runs=args.runs, budget=args.budget, out=args.out,
                            command=command_line(args.argv), progress=not args.quiet,
                            stream_seconds=args.stream_seconds, **backend_args(args, CliError))


def _alphazero(args) -> int:
    contest = studies.import_study("alphazero.contest", "reproduce")
    if args.runs < 1:
        raise CliError("--runs must be >= 1")
    if args.backend != "local":
        raise CliError("alphazero runs here, one run at a time (each run's budget is CPU time of one core); "
                       "drop --backend")
    games = list(contest.ARENAS)
    if not args.table_only:
        contest.contest(games, args.runs, args.out)
        contest.ladders(games, args.out)
    write_report = studies.import_study("alphazero.contest_report", "reproduce").write_report
    print(f"wrote {write_report(args.out, Path(args.out) / 'alphazero_vs_ntuple.md', games, args.runs)}")
    return 0
