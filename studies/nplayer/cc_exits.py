"""Chinese Checkers learners shaped by a race that keeps spoilers an exit: does the learner then free its target?

Against two random players a learner shaped by race progress (``nplayer_learning.md`` §5) loses its wins to
spoilers: another player's peg walled into its target point, which, under OpenSpiel's rules, blocks it for good.
The scripted ``racer-exits`` (``cc_racer.py``) wins every game under OpenSpiel's 1,000 turns because it counts
each walled-in spoiler against its progress; the learners reach only the plain racer's level. This study gives
the learner the same term: its shaping potential (and so its play, tables + w·Φ) is the game's heuristic with
:data:`~studies.nplayer.cc_racer.EXITS_PENALTY` of progress taken off per walled-in spoiler in a player's target.

The rules are the game's own: the variant is registered as ``chinese_checkers_exits`` with Chinese Checkers'
kernels and only another ``heuristic`` (registered by :func:`register`, which the commands below call; its agent
files load only where that is done).

    python -m studies.nplayer.cc_exits train --out runs/cc3p-1000-exits-seed0      # resumable
    python -m studies.nplayer.cc_exits eval runs/cc3p-1000-exits-seed0 --games 100 --seed 0
    python -m studies.nplayer.cc_exits eval runs/cc3p-1000-exits-seed0 --vs paranoid2 --games 20
"""
from __future__ import annotations

import argparse
import dataclasses

import numpy as np
from numba import njit

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.learners import NTupleAgent
from farl_agents.learners.presets import nplayer_config
from farl_agents.runs import Run, RunSpec
from farl_envs.games.chinese_checkers import P_PLAYERS, race_progress
from studies.nplayer.cc_racer import EXITS_PENALTY, walled_in_count

NAME = "chinese_checkers_exits"


@njit(cache=True)
def heuristic_with_exits(p, s, out):
    """Chinese Checkers' heuristic, ``0.45 (own progress - mean progress of the others)`` clipped to +-0.49, with
    each player's progress lowered by ``EXITS_PENALTY`` per walled-in spoiler in its target."""
    players = p[P_PLAYERS]
    progress = np.zeros(players)
    race_progress(p, s, progress)
    for q in range(players):
        progress[q] -= EXITS_PENALTY * walled_in_count(p, s, q)
    total = progress.sum()
    for q in range(players):
        relative = progress[q] - (total - progress[q]) / (players - 1)
        out[q] = min(0.49, max(-0.49, 0.45 * relative))


def make_spec(players: int = 3, max_moves: int = 1000):
    """Chinese Checkers (its rules, parameters and kernels) with :func:`heuristic_with_exits` as its heuristic."""
    spec = farl_envs.game_spec("chinese_checkers", players=players, max_moves=max_moves)
    return dataclasses.replace(spec, name=NAME, heuristic=heuristic_with_exits)


def register() -> None:
    """Add the variant to farl's games (once per process): runs, agent files and evaluations name it. Not done on
    import, so importing the module leaves the registry as it is."""
    if NAME not in farl_envs.list_games():
        farl_envs.register(NAME, make_spec, gymnasium_id="farl/ChineseCheckersExits-v0")


def run_spec(seed: int, episodes: int, teacher_share: float, max_moves: int) -> RunSpec:
    """§5's learner (the ``chinese_checkers3p`` preset, shaping w = 10), with random players as teachers in a
    ``teacher_share`` of the episodes (0: self-play only)."""
    teacher = dict(teacher="random", teacher_share=teacher_share) if teacher_share > 0 else {}
    config = nplayer_config("chinese_checkers3p", seed=seed, episodes=episodes, **teacher)
    return RunSpec(NAME, {"players": 3, "max_moves": max_moves}, config, eval_vs=("random",),
                   eval_every=episodes // 10, eval_games=10, eval_starts="initial")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train", help="train (or continue) a learner of the variant")
    tr.add_argument("--out", required=True)
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--episodes", type=int, default=100_000)
    tr.add_argument("--teacher-share", type=float, default=0.5,
                    help="share of the episodes with random players in the other seats (0: self-play only)")
    tr.add_argument("--max-moves", type=int, default=1000)
    ev = sub.add_parser("eval", help="the learner in every seat against two copies of an opponent")
    ev.add_argument("run")
    ev.add_argument("--vs", default="random", help="an opponent name as `farl eval --vs` takes it")
    ev.add_argument("--games", type=int, default=100, help="games per seat")
    ev.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    register()
    if args.command == "train":
        spec = run_spec(args.seed, args.episodes, args.teacher_share, args.max_moves)
        run, _ = Run.open_or_create(args.out, spec)
        print(run.train(progress=False))
        return 0
    agent = NTupleAgent.load(f"{args.run}/agent.npz", game=NAME)
    m = evaluate(agent.game, agent, args.vs, n_games=args.games, seed=args.seed, jobs=1).matchups[0]
    print(f"{args.run} against two {args.vs}, {args.games} games per seat, seed {args.seed}: "
          f"{m.wins} won, {m.draws} drawn, {m.losses} lost; mean score {m.mean_score:.3f} ± {m.score_se:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
