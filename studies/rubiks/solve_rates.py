"""Solve rate by scramble depth: how often a player solves the cube scrambled by exactly ``p`` twists.

For each depth ``p`` in ``1..--pmax``, ``--games`` cubes scrambled by ``p`` twists (the game's own scrambles:
``scramble_min = scramble_max = p``, so GBG's rule of no twist undoing or merging with the one before), each
played by the player until solved or ``--twists`` twists (GBG evaluates with episodes of 50). The players are
anything ``farl eval`` takes: agent files, run folders, search wrappers around them (``RUN+mcts100``), or
``random``. Konen 2023 reports GBG's n-tuple agents this way (its Figure of solved rate against p).

    python -m studies.rubiks.solve_rates runs/cube2-htm runs/cube2-htm+mcts100 --size 2 --metric half --pmax 13

GBG's rule of play (Konen 2023's evaluation) is the game's own rule: the cube's ``allow_undo=False`` (its
default) makes the inverse of the twist just played illegal (the first twist of a cube is free). GBG's
``TDNTuple4Agt`` skips that inverse in its move choice, so a greedy agent cannot fall into a two-twist cycle
(A, B, A, B, ...) that wastes its 50 twists; GBG's published bare solve rates are measured so. ``--allow-undo``
plays the cube of the first release, every twist legal (farl's "plain greedy" rows; a bare TD n-tuple agent's
greedy twist is then chosen here, by :func:`greedy_no_undo` with no twist barred, because the agent's own ``act``
keeps the rules it was trained under). ``--no-undo`` keeps the study's own check of the rule: the greedy twist
chosen here (:func:`greedy_no_undo`, the last twist remembered by this loop, not read from the state), which must
give the game rule's figures.

``--gbg-scrambles`` scrambles as GBG's code does (``GameBoardCube.selectByTwists1``): in the half-turn metric
that is the game's own rule (no face twice in a row), in the quarter-turn metric it is not. GBG draws a position
in its list of quarter twists (``U, U', L, L', F, F', ...``, farl's action order) but tests it as if it were an
index ``3 * face + turns - 1`` of the half-turn list, so it forbids the wrong twists: after ``L``, ``L'``, ``F``,
``F'`` (and later faces) the inverse twist may follow, and some other twists are barred instead. Such scrambles
undo themselves in part: on the 2x2x2, 16 quarter twists are on average 12.0 after cancelling adjacent inverse
pairs (9.8 of 13; the 3x3x3: 11.2 of 13), so GBG's quarter-turn rates at scramble depth p are for easier cubes
than farl's.

Writes a Markdown table (and ``--json``) atomically; prints each row as it is measured.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_agents.learners.agent import NTupleAgent
from farl_agents.loading import load_player
from farl_agents.players import reset_player
from farl_envs.core.rng import make_rng, rng_below
from farl_envs.core.spec import HEADER, PLY, TERMINAL
from farl_envs.games.rubiks_cube import INVERSE, P_METRIC, P_SIZE, last_slot


def greedy_no_undo(agent, g, s: np.ndarray, last: int, rng) -> int:
    """The greedy twist of the TD n-tuple ``agent`` in ``s`` (score r + V(afterstate), V = 0 once solved, ties
    broken with ``rng``) among every twist except ``INVERSE`` of ``last`` (-1: none), GBG's rule of play."""
    skip = -1 if last < 0 else int(INVERSE[g.p[P_SIZE] - 2, g.p[P_METRIC], last])
    after, rewards = np.empty_like(s), np.zeros(1)
    best, scores = [], -np.inf
    for a in range(g.n_actions):
        if a == skip:
            continue
        g.afterstate(g.p, s, a, after, rewards)
        v = rewards[0] + (0.0 if after[TERMINAL] else agent.afterstate_value(after, 0))
        if v > scores:
            best, scores = [a], v
        elif v == scores:
            best.append(a)
    return best[int(rng_below(rng, len(best)))] if len(best) > 1 else best[0]


def gbg_scramble(g, p: int, rng) -> np.ndarray:
    """The solved cube of ``g`` scrambled by ``p`` twists under GBG's rule as coded (module docstring; drawn
    again, whole, when it ends solved)."""
    quarter = g.p[P_METRIC] == 0
    rewards = np.zeros(1)
    while True:
        s = np.zeros(g.state_size, dtype=np.int32)
        s[HEADER:last_slot(g.p)] = np.arange(last_slot(g.p) - HEADER)
        last_face, last_times = -1, 0
        for _ in range(p):
            while True:
                i = int(rng_below(rng, g.n_actions))
                barred = i // 3 == last_face and (not quarter or i % 3 + 1 != last_times)
                if not barred:
                    break
            g.afterstate(g.p, s, i, s, rewards)
            last_face = i // 2 if quarter else i // 3
            last_times = (1 if i % 2 == 0 else 3) if quarter else i % 3 + 1
        s[TERMINAL], s[PLY], s[last_slot(g.p)] = 0, 0, 0  # a start: no twist played yet
        if rewards[0] <= 0:  # the last twist did not solve it
            return s


def solve_rate(player, size: int, metric: str, p: int, games: int, twists: int, seed: int = 0,
               no_undo: bool = False, gbg_scrambles: bool = False, allow_undo: bool = False) -> tuple[float, float]:
    """``(share solved, mean twists of the solved ones)`` over ``games`` cubes scrambled by ``p`` twists, played
    under the game's rule (``allow_undo``: the cube where every twist is legal); ``no_undo``: ``player`` (a TD
    n-tuple agent) plays by :func:`greedy_no_undo`; ``gbg_scrambles``: the cubes scrambled by
    :func:`gbg_scramble`."""
    g = farl_envs.game_spec("rubiks_cube", size=size, metric=metric, scramble_min=p, scramble_max=p,
                            max_twists=twists, allow_undo=allow_undo)
    if no_undo and not isinstance(player, NTupleAgent):
        raise ValueError("--no-undo needs a bare TD n-tuple agent (an agent file or run folder)")
    if allow_undo and not isinstance(player, NTupleAgent):
        raise ValueError("--allow-undo needs a bare TD n-tuple agent (an agent file or run folder)")
    own_loop = no_undo or allow_undo  # the greedy twist chosen here, not by the agent's act
    rewards = np.zeros(1)
    solved, lengths = 0, []
    for k in range(games):
        start_rng = make_rng(seed * 1_000_003 + 7919 * p + k)
        s = gbg_scramble(g, p, start_rng) if gbg_scrambles else np.array(g.initial_state(g.p, start_rng))
        rng = make_rng(seed + 1 + k)
        reset_player(player)
        a = -1
        for t in range(twists):
            a = greedy_no_undo(player, g, s, a if no_undo else -1, rng) if own_loop else player.act(g, s, rng)
            g.afterstate(g.p, s, a, s, rewards)
            if rewards[0] > 0:  # the solving twist's +1 (the game may also end at its twist cap)
                solved += 1
                lengths.append(t + 1)
                break
            if s[TERMINAL]:
                break
    return solved / games, float(np.mean(lengths)) if lengths else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", nargs="+", help="agent files, run folders, wrapped players (RUN+mcts100), random")
    ap.add_argument("--size", type=int, default=2)
    ap.add_argument("--metric", default="half", choices=("half", "quarter"))
    ap.add_argument("--pmax", type=int, default=13, help="deepest scramble (default 13)")
    ap.add_argument("--games", type=int, default=200, help="cubes per depth")
    ap.add_argument("--twists", type=int, default=50, help="twists allowed per cube (GBG: 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gbg-scrambles", action="store_true",
                    help="scramble as GBG's code does (differs in the quarter-turn metric; see the docstring)")
    ap.add_argument("--no-undo", action="store_true",
                    help="the study's own check of GBG's rule of play (the game's default): the greedy twist, "
                         "never the inverse of the one just played, chosen here (bare agents only)")
    ap.add_argument("--allow-undo", action="store_true",
                    help="the cube with every twist legal (allow_undo=True; the first release's rules; bare agents "
                         "only)")
    ap.add_argument("--out", help="Markdown file to write")
    ap.add_argument("--json", help="JSON file to write")
    args = ap.parse_args(argv)
    game = farl_envs.game_spec("rubiks_cube", size=args.size, metric=args.metric)
    depths = list(range(1, args.pmax + 1))
    rows = {}
    for text in args.players:
        player, _ = load_player(text, None if not text.startswith("random") else game)
        rates = []
        for p in depths:
            rate, mean_len = solve_rate(player, args.size, args.metric, p, args.games, args.twists, args.seed,
                                        args.no_undo, args.gbg_scrambles, args.allow_undo)
            rates.append(rate)
            print(f"{text}  p={p:2d}  solved {100 * rate:5.1f} %  (mean {mean_len:.1f} twists)", flush=True)
        rows[text] = rates
    command = "python -m studies.rubiks.solve_rates " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [f"Solve rate (%) by scramble depth p, {args.size}x{args.size}x{args.size}, {args.metric}-turn metric, "
             f"{args.games} cubes per depth, at most {args.twists} twists"
             f"{', every twist legal (allow_undo)' if args.allow_undo else ', no twist undoing the one before'}"
             f"{' (the study greedy_no_undo)' if args.no_undo else ''}"
             f"{', GBG scrambles' if args.gbg_scrambles else ''}. Made by `{command}`.", "",
             "| player | " + " | ".join(f"p={p}" for p in depths) + " |", "|---|" + "---:|" * len(depths)]
    lines += [f"| `{t}` | " + " | ".join(f"{100 * r:.0f}" for r in rates) + " |" for t, rates in rows.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        atomic_write_text(Path(args.out), text)
    if args.json:
        atomic_write_text(Path(args.json), json.dumps({"size": args.size, "metric": args.metric, "games": args.games,
                                                       "twists": args.twists, "no_undo": args.no_undo,
                                                       "allow_undo": args.allow_undo,
                                                       "gbg_scrambles": args.gbg_scrambles,
                                                       "rates": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
