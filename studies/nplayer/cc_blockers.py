"""Why a Chinese Checkers agent draws against random players: pegs of other players parked in its target point.

Under OpenSpiel's rules (farl's) a player wins only when its own pegs fill all ten holes of the opposite point,
and nothing removes another player's peg from there. Random players walk their pegs at random, and with three
players the neighbouring points lie on their way, so one of their pegs may sit in the agent's target until the
move limit. This plays the agent in every seat against copies of an opponent and reports, for every game it
does not win, how many of its own pegs and of the others' are in its target at the end, and the turns its wins
took (all players' turns; the move limit counts them too).

    python -m studies.nplayer.cc_blockers runs/cc3p-shaping10-seed0 --vs random --games 10
    python -m studies.nplayer.cc_blockers racer --vs random --games 100   # the whole-turn racer (cc_racer.py)
    python -m studies.nplayer.cc_blockers racer-exits --vs random --games 100   # ... keeping spoilers an exit
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

import farl_envs
from farl_agents.loading import load_player
from farl_agents.opponents import make_opponent
from farl_agents.players import reset_player
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games import chinese_checkers as cc
from studies.nplayer.cc_racer import WholeTurnRacer, target_holes


def play(game, players, seat: int, env_rng, player_rng) -> dict:
    """One game from the initial position; seat ``seat``'s result, the turns played, and its target's holes at the
    end (own pegs, the others' pegs)."""
    s = np.array(game.initial_state(game.p, env_rng), dtype=np.int32)
    total, rewards = np.zeros(game.n_players), np.zeros(game.n_players)
    for p in {id(x): x for x in players}.values():
        reset_player(p)
    while not s[TERMINAL]:
        a = players[int(s[TO_MOVE])].act(game, s.copy(), player_rng)
        game.afterstate(game.p, s, int(a), s, rewards)
        total += rewards
    cells = s[cc.CELLS + target_holes(game.p, seat)]
    result = "win" if total[seat] > 0 else "loss" if total[seat] < 0 else "draw"
    return {"result": result, "turns": int(s[cc.TURNS]), "own": int(np.sum(cells == seat + 1)),
            "others": int(np.sum((cells != 0) & (cells != seat + 1)))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("agent", help="an agent file or run folder of Chinese Checkers, or racer / racer-exits (the "
                    "whole-turn racers of studies/nplayer/cc_racer.py, 3 players, 300 turns)")
    ap.add_argument("--vs", default="random")
    ap.add_argument("--games", type=int, default=10, help="games per seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-moves", type=int, default=None,
                    help="the racers only: play under this move limit (turns) instead of 300 (an agent plays the "
                    "limit it was trained under: train it under another)")
    args = ap.parse_args(argv)
    if args.agent in ("racer", "racer-exits"):
        player = WholeTurnRacer(cc.WALLED_IN_PENALTY if args.agent == "racer-exits" else 0.0)
        game = farl_envs.game_spec("chinese_checkers", players=3, max_moves=300)
    else:
        player, game = load_player(args.agent)
    if game.name != "chinese_checkers":
        raise SystemExit(f"{args.agent} plays {game.name}, not chinese_checkers")
    if args.max_moves is not None:
        if args.agent not in ("racer", "racer-exits"):
            raise SystemExit("--max-moves is for the racers; an agent plays the move limit it was trained under")
        game = farl_envs.game_spec("chinese_checkers", **{**game.params, "max_moves": args.max_moves})
    opponent = make_opponent(args.vs, game)
    env_rng, player_rng = make_rng(args.seed), make_rng(args.seed + 1)
    games = []
    for seat in range(game.n_players):
        seats = [opponent] * game.n_players
        seats[seat] = player
        games += [play(game, seats, seat, env_rng, player_rng) for _ in range(args.games)]
    results = Counter(g["result"] for g in games)
    print(f"{args.agent} against {args.vs}, {args.games} games per seat: " +
          f"{results['win']} won, {results['draw']} drawn, {results['loss']} lost")
    not_won = [g for g in games if g["result"] != "win"]
    blocked = sum(g["others"] > 0 for g in not_won)
    print(f"games not won with another player's peg in the agent's target at the end: {blocked} of {len(not_won)}")
    for g in not_won:
        print(f"  {g['result']}: own pegs in the target {g['own']}/10, others' pegs {g['others']}, "
              f"turns {g['turns']}")
    wins = sorted(g["turns"] for g in games if g["result"] == "win")
    if wins:
        print(f"turns of the wins (all players'): median {int(np.median(wins))}, range {wins[0]}-{wins[-1]}")


if __name__ == "__main__":
    main()
