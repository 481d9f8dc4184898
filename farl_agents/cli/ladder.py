"""``farl ladder``: every named player of a game on one Elo scale (a resumable round robin, random = 0).

``farl ladder tictactoe --players maxn1,maxn9,mcts100 --games 10 --out runs/ladder-ttt`` plays every pair in
every seat, writes OUT/matches/ (one file per pair: rerunning the command plays only the missing pairs, so
adding a player plays only its matches), OUT/ladder.json, OUT/ladder.md and OUT/ladder.png. The matches and the
rating method are :mod:`farl_agents.ladder`'s (docs/ladder.md).
"""
from __future__ import annotations

from farl_agents.backend.options import add_backend_options, backend_args
from farl_agents.cli.common import (
    CliError,
    HelpFormatter,
    add_quiet_flag,
    command_line,
    game_with_params,
    params_of,
    split,
)
from farl_agents.runs.evaluation import START_STATE_NAMES


def add_parser(sub) -> None:
    p = sub.add_parser(
        "ladder", help="rate players of a game on one Elo scale (round robin, Bradley-Terry, random = 0)",
        description="Play every pair of --players against each other in every seat (resumable: one file per "
                    "match under OUT/matches) and rate them by Bradley-Terry maximum likelihood on the Elo "
                    "scale, random fixed at 0 (added when not named), draws as half a win, ± bootstrap "
                    "standard errors. Writes OUT/ladder.json, OUT/ladder.md and OUT/ladder.png.",
        epilog="Example: farl ladder tictactoe --players maxn1,maxn9,mcts100 --games 10 --out runs/ladder-ttt",
        formatter_class=HelpFormatter)
    p.add_argument("game", metavar="GAME")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter (repeat)")
    p.add_argument("--players", action="append", required=True, metavar="P1,P2,...",
                   help="players as `farl eval --vs` takes them (opponent names, pretrained, agent files, run "
                        "folders); comma list or repeated; random is always added as the anchor")
    p.add_argument("--games", type=int, required=True, metavar="N",
                   help="games per seating of each pair: N in each seat (N-player games: each of the pair alone "
                        "in each seat against copies of the other)")
    p.add_argument("--openings", default="table1", metavar="SET",
                   help=f"start positions, as eval's --start-states: {', '.join(START_STATE_NAMES)} (default "
                        f"table1: the set the game declares); game g of every seating starts from the same one")
    p.add_argument("--out", required=True, metavar="DIR", help="the ladder's folder (rerun with it to resume or "
                                                              "to add players)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and of the bootstrap")
    add_backend_options(p, "matches", note="One task per pair of players")
    add_quiet_flag(p)
    p.set_defaults(func=run_command, command="ladder")


def run_command(args) -> int:
    from farl_agents.ladder import ladder

    backend = backend_args(args, CliError)
    game = game_with_params(args.game, params_of(args.param))
    if args.games < 1:
        raise CliError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    try:
        result = ladder(game, split(args.players), args.games, args.out, openings=args.openings, seed=args.seed,
                        progress=not args.quiet, command=command_line(args.argv), **backend)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    width = max(len(p["name"]) for p in result["players"])
    print(f"{'player':<{width}}  {'Elo':>7}  {'± s.e.':>6}  games")
    for p in result["players"]:
        print(f"{p['name']:<{width}}  {p['elo']:+7.1f}  {p['elo_se']:6.1f}  {p['games']}")
    print(f"wrote {args.out}/ladder.json, ladder.md, ladder.png")
    return 0
