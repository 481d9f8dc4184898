"""``farl pretrained``: build the shipped agents and list their cards.

``build`` runs the builder study of a source checkout (``studies/pretrained/build.py``, not installed; from a wheel
it says so and exits 2); ``list`` reads the cards of the installed agents.

::

    farl pretrained build connect_four                 # paper budget; run again to continue after a stop
    farl pretrained build tictactoe --budget quick --out /tmp/zoo
    farl pretrained list                               # the cards as a table
    farl pretrained list --markdown                    # the same table for docs/pretrained.md
"""
from __future__ import annotations

import argparse
from pathlib import Path

from farl_agents import checkout as studies
from farl_agents import zoo
from farl_agents.backend import check_jobs
from farl_agents.cli.common import CliError, HelpFormatter, add_quiet_flag


def add_parser(sub) -> None:
    p = sub.add_parser("pretrained", help="build the pretrained agents shipped with farl, or list their cards",
                       description="The pretrained agents (farl_agents/pretrained/): `build` trains one with the "
                                   "game's preset (resumable), measures it and writes its agent file and card; "
                                   "`list` prints the cards.",
                       formatter_class=HelpFormatter)
    p.set_defaults(func=lambda args: _missing_action(p), command="pretrained")
    actions = p.add_subparsers(title="actions", metavar="ACTION")
    b = actions.add_parser("build", help="train, measure and write GAME's pretrained agent and card",
                           description="Train GAME with its preset (Konen & Bagheri 2020's where the paper has the "
                                       "game, GBG's run for the Rubik's cube, else farl's N-player, "
                                       "descent-comparison or Blackjack settings) through the run "
                                       "stack in RUNS/GAME (running the same command again continues a stopped "
                                       "build), measure it against the game's reference opponents (the cube: its "
                                       "solve rates; Blackjack: its exact return), and write "
                                       "GAME.npz and GAME.json (the card) into the output folder.",
                           formatter_class=HelpFormatter)
    b.set_defaults(func=run_build, command="pretrained")
    if not studies.available():  # an installed wheel: any arguments, one clear message when run
        b.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    else:
        _build_arguments(b, studies.import_study("pretrained.build", "pretrained build"))
    ls = actions.add_parser("list", help="print the cards of the pretrained agents as a table",
                            formatter_class=HelpFormatter)
    ls.add_argument("--markdown", action="store_true", help="a Markdown table (the one in docs/pretrained.md)")
    ls.add_argument("--dir", metavar="DIR", help="read the cards in DIR instead of the installed ones")
    ls.set_defaults(func=run_list, command="pretrained")


def _build_arguments(b, builder) -> None:
    """The flags of ``farl pretrained build``, from the builder study's games and budgets."""
    b.add_argument("game", metavar="GAME", help=f"one of {', '.join(builder.GAMES)}")
    b.add_argument("--budget", choices=builder.BUDGETS, default="paper",
                   help="paper: the preset's episodes; quick: a tenth of them (a try-out, not for shipping)")
    b.add_argument("--out", metavar="DIR", help="where the agent and card go (default: the installed "
                                                "farl_agents/pretrained folder)")
    b.add_argument("--runs", metavar="DIR", default="runs/pretrained", help="folder of the training runs")
    b.add_argument("--stop-after", type=float, metavar="N", help="stop after N episodes (continue later)")
    b.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="worker processes of the measurements, 1..1024 (capped at the CPUs)")
    add_quiet_flag(b)


def _missing_action(parser) -> int:
    raise CliError("say what to do: `farl pretrained build GAME` or `farl pretrained list`")


def run_build(args) -> int:
    builder = studies.import_study("pretrained.build", "pretrained build")
    try:
        game = builder.check_game(args.game)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        jobs = check_jobs(args.jobs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    card = builder.build(game, args.budget, out_dir=args.out, runs_root=args.runs, progress=not args.quiet,
                 stop_after=args.stop_after, jobs=jobs)
    if card is None:
        return 0
    print(f"wrote {card['file']} ({card['size_bytes']:,} bytes, {card['storage']}) and {game}.json")
    for line in card["strength"]:
        print(f"  {strength_text(line)}")
    return 0


def run_list(args) -> int:
    cards = read_cards(Path(args.dir) if args.dir else zoo.FOLDER)
    if not cards:
        print("no pretrained agents yet (`farl pretrained build GAME` makes one)")
        return 0
    print(cards_table(cards, markdown=args.markdown))
    return 0


def read_cards(folder: Path) -> list[dict]:
    """The cards in ``folder`` (``*.json`` next to their ``*.npz``), sorted by game."""
    import json

    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json")) if p.with_suffix(".npz").is_file()]


def strength_text(line: dict) -> str:
    """One measurement of a card in words: ``vs maxn10 from initial, 20 games/seat: 50.0% ± 0.0% (W0 D40 L0)``."""
    who = "alone" if line["opponent"] == "alone" else f"vs {line['opponent']}"
    head = f"{who} from {line['starts']}, {line['games_per_seat']} games/seat"
    if line["metric"] == "win_rate":
        return (f"{head}: {100 * line['score']:.1f}% ± {100 * line['se']:.1f}% "
                f"(W{line['wins']} D{line['draws']} L{line['losses']})")
    if line["metric"] == "solve_rate":  # a puzzle: the share of its starts solved (the Rubik's cube)
        return (f"alone from {line['starts']}, {line['games_per_seat']} cubes: solved {100 * line['score']:.1f}% "
                f"± {100 * line['se']:.1f}%")
    if line["metric"] == "exact_return":  # Blackjack: no games, the game tree summed
        return (f"alone, exact over {line['starts'].removesuffix(' (exact)')}: return {100 * line['score']:+.3f}% "
                f"per round (basic strategy {100 * line['basic_strategy']:+.3f}%, "
                f"optimal {100 * line['optimal']:+.3f}%)")
    return f"{head}: mean score {line['score']:.4g} ± {line['se']:.2g}"


def size_text(n: int) -> str:
    """``13.6 kB`` / ``12.30 MB``."""
    return f"{n / 1e3:.1f} kB" if n < 1e6 else f"{n / 1e6:.2f} MB"


def cards_table(cards: list[dict], markdown: bool = False) -> str:
    """The cards as a table: game, episodes, strength, storage, size, how it was built."""
    head = ["game", "episodes", "strength (evaluation harness, every seat)", "file", "built with"]
    rows = []
    for c in cards:
        params = " ".join(f"{k}={v}" for k, v in c["game_params"].items())
        game = c["game"] + (f" ({params})" if params else "")
        rows.append([game, f"{c['episodes']:,}", "; ".join(strength_text(s) for s in c["strength"]),
                     f"{size_text(c['size_bytes'])} {c['storage']}",
                     f"`{c['command']}` (farl {c['farl_version']}, {c['built'][:10]})" if markdown
                     else f"{c['command']} (farl {c['farl_version']}, {c['built'][:10]})"])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    out = []
    for c, r in zip(cards, rows):
        out.append(f"{r[0]}: {r[1]} episodes, {r[3]}, sha256 {c['sha256'][:12]}...")
        out += [f"    {strength_text(s)}" for s in c["strength"]]
        out.append(f"    built with: {r[4]}")
    return "\n".join(out)
