"""How fast are the reference opponents?  Run:  python benchmarks/opponents_speed.py [--games N]

Measures on one core, after compilation (one warm-up move per player):

1. Max-N moves/s on TicTacToe (Max-N10) and Nim3P 3x5 (Max-N15), over whole
   self-play games; "cold" builds a new player (empty transposition table)
   for every game, "warm" keeps one player for all games;
2. MCTS iterations/s on Hex 6x6 (MCTS10000, the Table 1 opponent), over the
   moves of whole games against a random player;
3. Bench moves/s on Othello (Bench against Bench from the 244 4-ply starts);
3b. the search wrappers around the pretrained agents (``pretrained+mcts1000`` on Hex 6x6 and Othello:
   nodes/s, where each node is one position the agent values with all its legal afterstates, beside the
   plain MCTS's iterations/s on the same game), over the moves of whole games against a random player
   (``--only wrappers`` measures these alone);
4. the Connect Four solver's ms/move over whole games against a random
   player (the worst case: random moves leave the opening book at once),
   over whole AB vs AB-DL games from the empty board, which also checks
   perfect play: each must end in a first-player win at ply 41, and over
   whole *evaluations* of a trained TD-FARL agent as the harness runs them:
   Table 1's protocol (50 games per seat against AB, then AB-DL) and seed
   002's (learner first, the perfect player randomising its first 12
   plies; 50 of the protocol's 200 games).  Those start from a cold table
   (the book only), so the figure includes the early expensive solves.  The agent is the one given
   with ``--c4-agent`` (e.g. a Table 1 run's ``agent.npz``), else one trained
   here for ``--c4-train`` episodes with the paper settings.  A second, weak
   agent (``--c4-weak-train`` episodes, default 10,000) shows the slow case:
   the worse the learner plays, the more positions lie outside the opening
   book, and the Thill et al. 2014 rule then needs a proof near 0 for every move.
   The slowest case of all is the Thill et al. 2014 protocol against a uniformly
   random player (``--c4-random-games``, default 20 games): random openings
   leave the book's Thill et al. 2014 tree after ply 5, where each such proof takes
   up to seconds.

Prints a table and writes ``docs/results/opponents_speed.md``.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_agents.evaluate import play_game
from farl_agents.openings import othello_4ply_starts
from farl_agents.opponents import MCTS, BenchPlayer, MaxN, connect_four_player
from farl_agents.opponents import connect_four as c4
from farl_agents.opponents.puct import PUCT
from farl_agents.players import RandomPlayer
from farl_envs.core.rng import make_rng

ROOT = Path(__file__).resolve().parents[1]


class Timed:
    """Wrap a player and add up the time spent in ``act`` and the moves made."""

    def __init__(self, player):
        self.player, self.name = player, player.name
        self.seconds, self.moves, self.worst = 0.0, 0, 0.0

    def reset(self):
        r = getattr(self.player, "reset", None)
        if r:
            r()

    def act(self, game, state, rng):
        t = time.perf_counter()
        a = self.player.act(game, state, rng)
        dt = time.perf_counter() - t
        self.seconds += dt
        self.worst = max(self.worst, dt)
        self.moves += 1
        return a


def warm_up(game, player):
    rng = make_rng(0)
    s = game.initial_state(game.p, rng)
    player.act(game, s, rng)


def maxn_speed(name, depth, games):
    game = farl_envs.game_spec(name)
    warm_up(game, MaxN(depth))
    rows = []
    for mode in ("cold", "warm"):
        shared = Timed(MaxN(depth))
        moves, seconds = 0, 0.0
        for g in range(games):
            p = shared if mode == "warm" else Timed(MaxN(depth))
            play_game(game, [p] * game.n_players, game.initial_state(game.p, make_rng(g)), make_rng(g), make_rng(g + 1))
            if mode == "cold":
                moves, seconds = moves + p.moves, seconds + p.seconds
        if mode == "warm":
            moves, seconds = shared.moves, shared.seconds
        rows.append((f"Max-N{depth} {name} ({mode} table)", moves / seconds, "moves/s",
                     f"{1000 * seconds / moves:.3f} ms/move over {games} self-play games"))
    return rows


def mcts_speed(games):
    game = farl_envs.game_spec("hex", size=6)
    mcts = MCTS(10000)
    warm_up(game, mcts)
    timed = Timed(mcts)
    for g in range(games):
        play_game(game, [timed, RandomPlayer()] if g % 2 == 0 else [RandomPlayer(), timed],
                  game.initial_state(game.p, make_rng(g)), make_rng(g), make_rng(g + 100))
    its = timed.moves * mcts.iterations
    return [("MCTS10000 Hex 6x6", its / timed.seconds, "iterations/s",
             f"{1000 * timed.seconds / timed.moves:.1f} ms/move, {timed.moves} moves in {games} games vs random")]


def bench_speed(games):
    game = farl_envs.game_spec("othello")
    starts = othello_4ply_starts(game)
    bench = Timed(BenchPlayer())
    warm_up(game, bench.player)
    for g in range(games):
        play_game(game, [bench, bench], starts[g % len(starts)], make_rng(g), make_rng(g + 1))
    return [("Bench Othello", bench.moves / bench.seconds, "moves/s",
             f"{1e6 * bench.seconds / bench.moves:.1f} us/move over {games} self-play games")]


def wrapper_speed(games):
    """Nodes/s of the PUCT wrapper around the pretrained Hex and Othello agents, and plain MCTS beside them."""
    from farl_agents.opponents import make_opponent

    rows = []
    for name, plain in (("hex", 1000), ("othello", 1000)):
        for player in (make_opponent("pretrained+mcts1000", name), MCTS(plain)):
            game = player.agent.game if isinstance(player, PUCT) else farl_envs.game_spec(
                name, **make_opponent("pretrained", name).game.params)
            warm_up(game, player)
            timed = Timed(player)
            for g in range(games):
                play_game(game, [timed, RandomPlayer()] if g % 2 == 0 else [RandomPlayer(), timed],
                          game.initial_state(game.p, make_rng(g)), make_rng(g), make_rng(g + 100))
            nodes = timed.moves * player.iterations
            unit = "nodes/s" if isinstance(player, PUCT) else "iterations/s"
            what = ("the agent values every legal afterstate of each node" if isinstance(player, PUCT)
                    else "one random playout per iteration")
            rows.append((f"{player.name} {game.id} {game.params}", nodes / timed.seconds, unit,
                         f"{1000 * timed.seconds / timed.moves:.1f} ms/move, {timed.moves} moves in {games} games "
                         f"vs random; {what}"))
    return rows


def connect_four_speed(games):
    game = farl_envs.game_spec("connect_four")
    rows = []
    for kind in ("ab", "ab-dl"):
        solver = Timed(connect_four_player(kind, game))
        warm_up(game, solver.player)
        c4.default_solver().clear()  # cold: the kinds play the same games, so a warm table would be free
        solver.seconds, solver.moves = 0.0, 0
        worst = 0.0
        for g in range(games):
            before = solver.seconds
            seats = [solver, RandomPlayer()] if g % 2 == 0 else [RandomPlayer(), solver]
            play_game(game, seats, game.initial_state(game.p, make_rng(g)), make_rng(g), make_rng(g + 1))
            worst = max(worst, solver.seconds - before)
        rows.append((f"Connect Four {kind}", 1000 * solver.seconds / solver.moves, "ms/move",
                     f"{solver.moves} moves in {games} games vs random (slowest game {worst:.2f} s); "
                     f"cold table at the start"))
    rows.append(perfect_play_check(game, games))
    return rows


def _c4_agent(path, episodes):
    """An agent for the evaluation timings: loaded, or trained here."""
    from farl_agents.learners import NTupleAgent
    if path:
        return NTupleAgent.load(path), f"agent {path}"
    from farl_agents.learners.presets import paper_config
    agent = NTupleAgent("connect_four", paper_config("connect_four", episodes=episodes, seed=0))
    t = time.perf_counter()
    agent.train(episodes)
    return agent, f"TD-FARL agent trained here ({episodes:,} episodes, paper settings, {time.perf_counter() - t:.0f} s)"


def connect_four_eval_speed(agent_path, train_episodes, table1_games=50, seed002_games=50):
    """ms per perfect-player move over whole evaluations of an agent, cold table."""
    if train_episodes < 1 and not agent_path:
        return []
    agent, what = _c4_agent(agent_path, train_episodes)
    return _timed_evaluations(agent, what, table1_games, seed002_games)


def _timed_evaluations(agent, what, table1_games, seed002_games):
    """Rows for Table 1's protocol (skipped when ``table1_games`` is 0) and Thill et al. 2014's."""
    from farl_agents.evaluate import evaluate

    game = farl_envs.game_spec("connect_four")
    rows = []
    protocols = [("Table 1 protocol", ("ab", "ab-dl"), dict(n_games=table1_games))] if table1_games else []
    protocols.append(("Thill et al. 2014 protocol", ("ab",), dict(n_games=seed002_games, protocol="c4-seed002")))
    for label, kinds, kw in protocols:
        c4.default_solver().clear()  # cold: only the opening book is known
        extra = dict(random_plies=12) if "protocol" in kw else {}
        opps = [Timed(connect_four_player(k, game, **extra)) for k in kinds]
        nodes = c4.default_solver().nodes
        res = evaluate(game, agent, opps, seed=0, **kw)
        rate = (c4.default_solver().nodes - nodes) / max(1e-9, sum(o.seconds for o in opps)) / 1e6
        for opp, m in zip(opps, res.matchups):
            rows.append((f"Connect Four {opp.name} in a whole evaluation ({label})",
                         1000 * opp.seconds / opp.moves, "ms/move",
                         f"{opp.moves} moves in {m.n_games} games vs {what}; its win rate {m.win_rate:.1%}; "
                         f"slowest move {opp.worst:.2f} s; cold table at the start of the {label}; "
                         f"search {rate:.1f} M nodes/s"))
    return rows


def perfect_play_check(game, games):
    """AB (first) against AB-DL (second) from the empty board, timed over whole games.

    With perfect play the first player wins with its 21st disc, so every game
    must end with a first-player win at ply 41 (AB wins as fast as it can,
    AB-DL delays its loss as long as it can): a check of perfect play at every
    move of both players that uses only the known solution of Connect Four.
    """
    ab, dl = Timed(connect_four_player("ab", game)), Timed(connect_four_player("ab-dl", game))
    c4.default_solver().clear()  # cold: only the opening book is known
    perfect, worst = 0, 0.0
    for g in range(games):
        before = ab.seconds + dl.seconds
        total, plies = play_game(game, [ab, dl], game.initial_state(game.p, make_rng(g)), make_rng(g),
                                 make_rng(g + 1000))
        perfect += int(total[0] > 0 and plies == 41)
        worst = max(worst, ab.seconds + dl.seconds - before)
    seconds, moves = ab.seconds + dl.seconds, ab.moves + dl.moves
    return ("Connect Four AB vs AB-DL", 1000 * seconds / moves, "ms/move",
            f"{moves} moves in {games} games from the empty board (slowest game {worst:.2f} s); "
            f"first player won at ply 41 (perfect play) in {perfect} of {games}; cold table at the start")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="games per measurement (default 20)")
    ap.add_argument("--c4-games", type=int, default=40,
                    help="Connect Four games vs random per player, and AB vs AB-DL games (default 40: "
                         "a few slow games dominate the mean, so fewer games give noisy figures)")
    ap.add_argument("--c4-agent", default=None,
                    help="Connect Four agent file for the evaluation timings (default: train one here)")
    ap.add_argument("--c4-train", type=int, default=200_000,
                    help="episodes of the agent trained here when --c4-agent is not given (default 200000)")
    ap.add_argument("--c4-weak-train", type=int, default=10_000,
                    help="episodes of the weak agent also timed (default 10000; 0: skip it)")
    ap.add_argument("--c4-random-games", type=int, default=20,
                    help="games of the Thill et al. 2014 protocol timed against a uniformly random player, the "
                         "slowest case (default 20; 0: skip it)")
    ap.add_argument("--only", choices=["all", "connect4", "wrappers"], default="all",
                    help="measure every opponent (default), the Connect Four solver only, or the search wrappers "
                         "only")
    ap.add_argument("--out", default=None, help="the results page (default docs/results/opponents_speed.md; with "
                                                "--only wrappers docs/results/wrapper_speed.md)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.c4_games < 2:
        raise SystemExit("--games must be >= 1 and --c4-games >= 2")
    load0 = os.getloadavg()[0]
    rows = []
    if args.only == "all":
        rows += maxn_speed("tictactoe", 10, args.games)
        rows += maxn_speed("nim3p", 15, args.games)
        rows += mcts_speed(max(2, args.games // 5))
        rows += bench_speed(args.games)
    if args.only in ("all", "wrappers"):
        rows += wrapper_speed(max(2, args.games // 5))
    if args.only in ("all", "connect4"):
        rows += connect_four_speed(args.c4_games)
        rows += connect_four_eval_speed(args.c4_agent, args.c4_train)
        rows += connect_four_eval_speed(None, args.c4_weak_train)
    if args.only in ("all", "connect4") and args.c4_random_games:
        rows += _timed_evaluations(RandomPlayer(), "a uniformly random player", 0, args.c4_random_games)
    lines = ["| opponent | speed | unit | notes |", "|---|---:|---|---|"]
    for name, value, unit, note in rows:
        val = "-" if value != value else f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
        lines.append(f"| {name} | {val} | {unit} | {note} |")
    table = "\n".join(lines)
    print(table)
    load = os.getloadavg()[0]
    given = argv if argv is not None else sys.argv[1:]
    cmd = "python benchmarks/opponents_speed.py" + "".join(f" {a}" for a in given)
    title = "Search wrappers: speed" if args.only == "wrappers" else "Reference opponents: speed"
    text = (f"# {title}\n\nMade by `{cmd}` on {platform.processor() or platform.machine()}, "
            f"Python {platform.python_version()}, one core, after compilation; load average "
            f"{load0:.1f} at the start and {load:.1f} at the end on {os.cpu_count()} cores (the benchmark "
            f"counts 1; above the number of cores, processes shared a core and the figures are that much too "
            f"slow).\n\n{table}\n")
    page = "wrapper_speed.md" if args.only == "wrappers" else "opponents_speed.md"
    out = Path(args.out) if args.out else ROOT / "docs" / "results" / page
    atomic_write_text(out, text)
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
