"""``farl c4-book``: build or verify the Connect Four solver's opening book."""
from __future__ import annotations

import inspect

from farl_agents.cli.common import CliError, HelpFormatter


def add_parser(sub) -> None:
    p = sub.add_parser("c4-book", help="build or verify the Connect Four solver's opening book",
                       description="Runs build_book / verify_book of the Connect Four solver "
                                   "(farl_agents.opponents.connect_four.book). Options a function does not take "
                                   "are ignored.",
                       formatter_class=HelpFormatter)
    p.add_argument("action", choices=["build", "verify"])
    p.add_argument("--path", help="the book file (default: the solver's packaged book)")
    p.add_argument("--max-ply", type=int, default=4, help="build: book nodes up to this ply")
    p.add_argument("--time-budget", type=float, metavar="SECONDS", help="build: start no new ply after this")
    p.add_argument("--sample", type=int, default=20, help="verify: entries to re-solve without the book")
    p.add_argument("--min-ply", type=int, default=0, help="verify: skip entries before this ply (slow to solve)")
    p.add_argument("--seed", type=int, default=0, help="verify: seed of the sample")
    p.set_defaults(func=run_command, command="c4-book")


def run_command(args) -> int:
    from farl_agents.opponents.connect_four import book

    fn = {"build": book.build_book, "verify": book.verify_book}[args.action]
    wanted = {"path": args.path, "max_ply": args.max_ply, "time_budget": args.time_budget, "sample": args.sample,
              "min_ply": args.min_ply, "seed": args.seed}
    accepted = inspect.signature(fn).parameters
    kwargs = {k: v for k, v in wanted.items() if k in accepted and v is not None}
    try:
        result = fn(**kwargs)
    except FileNotFoundError as exc:
        raise CliError(f"no opening book at {exc.filename or args.path}: build one with `farl c4-book build`") \
            from None
    if isinstance(result, dict) and "mismatches" in result:
        bad = result["mismatches"]
        print(f"checked {result.get('checked', '?')} book entries: "
              f"{'all exact' if not bad else f'{len(bad)} wrong: {bad}'}")
        return 1 if bad else 0
    if result is not None:
        print(result)
    return 0
