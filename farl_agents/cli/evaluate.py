"""``farl eval``: an agent, a run or an opponent against opponents in every seat (the Table 1 harness)."""
from __future__ import annotations

import json

from farl_agents.backend.options import add_backend_options, backend_args
from farl_agents.cli.common import CliError, HelpFormatter, split
from farl_agents.cli.players import load_player, main_player


def add_parser(sub) -> None:
    p = sub.add_parser(
        "eval", help="evaluate an agent (or an opponent) against opponents in every seat",
        description="Play RUN_OR_AGENT against each --vs opponent in every seat (the Table 1 harness) and print "
                    "the win rate (two players playing for a result) or the mean score (N players; games for "
                    "chips such as Poker: the reward won per game) ± standard error, with a per-seat table.",
        formatter_class=HelpFormatter)
    p.add_argument("player", metavar="RUN_OR_AGENT", help="a run folder, an agent file (agent.npz) or an opponent name")
    p.add_argument("--vs", action="append", metavar="OPP", help="opponent name(s) or agent file(s); comma list "
                                                                "or repeated (not needed for 2048)")
    p.add_argument("--game", help="the game (needed when RUN_OR_AGENT is an opponent name)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="game parameter when RUN_OR_AGENT is an opponent name (a run or agent file brings its own)")
    p.add_argument("--games", type=int, metavar="N", help="games per seat and opponent (default: one per start "
                                                          "position, 100 from the initial position)")
    p.add_argument("--start-states", default="initial", metavar="SET",
                   help="initial, all-1ply, start+1ply, othello-4ply, othello-4ply-distinct, random:K or table1")
    p.add_argument("--seats", metavar="LIST", help="seats the evaluated player takes, e.g. 0 or 0,1 (default all)")
    p.add_argument("--protocol", choices=["c4-seed002"],
                   help="a fixed evaluation protocol (Thill et al. 2014's Connect Four test)")
    add_backend_options(p, "chunks of games", note="The games are cut into 4 chunks per job; the results do "
                                                   "not depend on --jobs or the backend")
    p.add_argument("--seed", type=int, default=0, help="seed of the evaluation")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_command, command="eval")


def run_command(args) -> int:
    from farl_agents.evaluate import evaluate
    from farl_agents.runs import start_states

    backend = backend_args(args, CliError)
    player, game = main_player(args.player, args.game, args.param)
    opponents = [load_player(v, game)[0] for v in split(args.vs)]
    if game.n_players > 1 and not opponents and args.protocol is None:
        raise CliError(f"{game.id} has {game.n_players} players: name the opponent(s) with --vs "
                       f"(`farl info` lists them) or give agent files")
    if args.games is not None and args.games < 1:
        raise CliError("--games must be >= 1")
    seats = None
    if args.seats:
        try:
            seats = [int(x) for x in args.seats.split(",")]
        except ValueError:
            raise CliError(f"--seats takes seat numbers like 0,1, got {args.seats!r}") from None
    try:
        res = evaluate(game, player, opponents or None, n_games=args.games,
                       start_states=start_states(game, args.start_states), seed=args.seed, seats=seats,
                       protocol=args.protocol, keep_games=False, **backend)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(res.to_dict(), indent=1))
    else:
        print(res.table())
        print(f"({res.seconds:.1f} s)")
    return 0
