"""How often a player's last afterstate would never see the game's final reward without FARL.

In TD learning on afterstates each player p adapts its last afterstate
``s_last[p]`` only when p moves again (Konen & Bagheri 2020, Alg. 2). When
the game ends on someone else's move, p does not move again: whatever reward
p collected after ``s_last[p]`` reaches that afterstate only through final
adaptation (FARL part 1). This module plays games and counts, per seat, how
often that reward is non-zero: the games in which no-FARL loses a final
reward signal for that seat. It also counts, per seat, how often the seat
made the game's last move.

A player who drops out (Sim, Yavalath with 3 players) gets -1 on his own move;
that reward reaches his previous afterstate through his own TD update, so
only rewards after his last move count as lost (none, for him).

Run ``python -m studies.table1.final_rewards --games 2000`` to print
the Markdown table quoted in ``docs/results/table1_nplayer.md``, and
``python -m studies.table1.final_rewards --pretrained --games 300`` for the
same counts in the self-play of farl's shipped N-player agents (the games
where they learn), two random opening plies then the agent in every seat.
"""
from __future__ import annotations

import argparse

import numpy as np

import farl_envs
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, TO_MOVE

#: (label, game, params): the four N-player rows, and the paper's Nim3P and two 2-player games for scale
GAMES = (
    ("Sim K6, 3 players", "sim", {"players": 3, "nodes": 6}),
    ("Yavalath 5, 3 players", "yavalath", {"players": 3, "size": 5}),
    ("Chinese Checkers, 3 players (300 turns)", "chinese_checkers", {"players": 3, "max_moves": 300}),
    ("EWN 6x6, 3 players (teams 0+1 vs 2)", "einstein_wurfelt_nicht", {"players": 3, "size": 6}),
    ("Nim3P 3x5 (paper)", "nim3p", {"heaps": 3, "heap_size": 5, "max_take": 5, "extra_rule": True}),
    ("TicTacToe (paper)", "tictactoe", {}),
    ("Sim K6, 2 players", "sim", {"players": 2, "nodes": 6}),
    ("Sim K12, 3 players", "sim", {"players": 3, "nodes": 12}),
)

#: (label, game) of the shipped N-player agents (``farl pretrained list``), each playing on its own board
PRETRAINED = (
    ("Sim K12, 3 players (shipped agent)", "sim"),
    ("Yavalath 5, 3 players (shipped agent)", "yavalath"),
    ("Chinese Checkers, 3 players, 1,000 turns (shipped agent)", "chinese_checkers"),
    ("EWN 6x6, 3 players (shipped agent)", "einstein_wurfelt_nicht"),
)
OPENING_PLIES = 2
"""Uniformly random plies before a shipped agent takes every seat (greedy self-play would repeat one game)."""


def play_game(game, rng, agent=None) -> tuple[int, np.ndarray, np.ndarray]:
    """One uniformly random game: ``(last mover, final reward of each seat, reward after each seat's last move)``;
    with ``agent``, :data:`OPENING_PLIES` random plies and then ``agent`` choosing for every seat."""
    s = game.initial_state(game.p, rng)
    plies = 0
    mask = np.zeros(game.n_actions, dtype=np.int8)
    step = np.zeros(game.n_players)
    total = np.zeros(game.n_players)
    at_last_move = np.zeros(game.n_players)  # each seat's total when it made its last afterstate
    mover = -1
    while s[TERMINAL] == 0:
        mover = int(s[TO_MOVE])
        game.legal_actions(game.p, s, mask)
        if agent is None or plies < OPENING_PLIES:
            action = rng_choice_mask(rng, mask)
        else:
            action = agent.act(game, s.copy(), rng)
        plies += 1
        game.afterstate(game.p, s, action, s, step)
        total += step
        at_last_move[mover] = total[mover]
        if s[TERMINAL] == 0:
            game.chance(game.p, s, rng)
    return mover, total.copy(), total - at_last_move


def count(game, n_games: int, seed: int = 0, agent=None) -> dict:
    """Per seat: share of random games (with ``agent``: of its self-play games) it ended (made the last move),
    share in which a non-zero final reward arrived after its last move (lost without FARL), its mean final
    reward; and the mean length in plies."""
    rng = make_rng(seed)
    n = game.n_players
    ended, lost, reward = np.zeros(n), np.zeros(n), np.zeros(n)
    decided = 0
    for _ in range(n_games):
        mover, total, after = play_game(game, rng, agent)
        ended[mover] += 1
        lost += after != 0
        reward += total
        decided += bool(np.any(total != 0))
    return {"ended": ended / n_games, "lost": lost / n_games, "reward": reward / n_games,
            "decided": decided / n_games, "games": n_games}


def table(n_games: int, seed: int = 0, pretrained: bool = False) -> str:
    """The Markdown table of :func:`count` for every game of :data:`GAMES` (``pretrained``: of
    :data:`PRETRAINED`, in the shipped agents' self-play)."""
    from farl_agents.learners import NTupleAgent

    lines = ["| game | games with a non-zero reward | seat: made the last move | "
             "seat: final reward lost without FARL | any seat lost (mean over seats) |",
             "|---|---|---|---|---|"]
    rows = [(label, name, None) for label, name in PRETRAINED] if pretrained else GAMES
    for label, name, params in rows:
        agent = NTupleAgent.pretrained(name) if pretrained else None
        game = agent.game if pretrained else farl_envs.game_spec(name, **params)
        c = count(game, n_games, seed, agent)
        ended = " / ".join(f"{100 * x:.0f} %" for x in c["ended"])
        lost = " / ".join(f"{100 * x:.0f} %" for x in c["lost"])
        lines.append(f"| {label} | {100 * c['decided']:.0f} % | {ended} | {lost} | {100 * c['lost'].mean():.0f} % |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="random games per game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pretrained", action="store_true", help="the shipped N-player agents' self-play instead")
    args = ap.parse_args(argv)
    print(table(args.games, args.seed, args.pretrained))


if __name__ == "__main__":
    main()
