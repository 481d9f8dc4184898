"""``farl reproduce table1``: the paper's Table 1, resumable and cached."""
from __future__ import annotations

import os
from pathlib import Path

from farl_agents.cli.common import CliError, HelpFormatter, add_quiet_flag, command_line


def add_parser(sub) -> None:
    from farl_agents.experiments.table1 import BUDGETS, ROWS

    p = sub.add_parser(
        "reproduce", help="reproduce the paper's Table 1 (FARL vs no-FARL), resumable and cached",
        description="Train FARL and no-FARL agents with the paper's settings for each row over several seeds, "
                    "evaluate them as the paper's Table 1 does and write OUT/table1.md (budget quick: "
                    "table1_quick.md) plus one learning-curve PNG per row. Finished runs are cached, unfinished "
                    "ones resume: rerun the same command after an interruption.",
        formatter_class=HelpFormatter)
    p.add_argument("what", choices=["table1"], help="what to reproduce")
    p.add_argument("--rows", default=",".join(ROWS), help="comma list of rows (or all)")
    p.add_argument("--runs", type=int, default=10, help="training runs (seeds) per cell")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel runs")
    p.add_argument("--budget", choices=BUDGETS, default="paper",
                   help="paper: the paper's episodes and evaluation sizes; quick: minutes; smoke: seconds (tests)")
    p.add_argument("--out", default="docs/results", help="output folder")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="local worker processes or Ray tasks (pip install 'farl[ray]')")
    add_quiet_flag(p)
    p.add_argument("--table-only", action="store_true",
                   help="train nothing: write the table and the curves from the runs already in OUT")
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="also rewrite the table block of PATH (between its <!-- table1:BUDGET start/end --> "
                        "markers) with the short form of the table")
    p.set_defaults(func=run_command, command="reproduce")


def run_command(args) -> int:
    from farl_agents.experiments import table1

    try:
        rows = table1.parse_rows(args.rows)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.runs < 1 or args.jobs < 1:
        raise CliError("--runs and --jobs must be >= 1")
    if args.readme is not None and not Path(args.readme).is_file():
        raise CliError(f"--readme {args.readme}: no such file")
    if args.table_only:
        if not Path(args.out).is_dir():
            raise CliError(f"--out {args.out}: no such folder (nothing to tabulate)")
        table1.tabulate(Path(args.out), args.budget, rows, command_line(args.argv))
        code = 0
    else:
        code = table1.reproduce(rows, runs=args.runs, jobs=args.jobs, budget=args.budget, out=args.out,
                                backend=args.backend, command=command_line(args.argv), progress=not args.quiet)
    if args.readme is not None:
        try:
            print(f"updated {table1.update_readme(Path(args.readme), Path(args.out), args.budget, rows)}")
        except ValueError as exc:
            raise CliError(str(exc)) from None
    return code
