"""The evaluations of a run's curve points: start sets, scores, one-line summaries."""
from __future__ import annotations

import re

from farl_agents.eval_results import EvalResult
from farl_agents.evaluate import evaluate
from farl_agents.openings import positions_after
from farl_agents.runs.curve import ALONE
from farl_envs.core.rng import make_rng

START_STATE_NAMES = ("table1", "initial", "all-1ply", "start+1ply", "othello-4ply", "othello-4ply-distinct",
                     "random:K")


def start_states(game, spec: str):
    """The ``start_states`` argument of :func:`~farl_agents.evaluate.evaluate` for a start-set name.

    ``table1`` (the set the game declares, ``GameSpec.evaluation_starts``, docs/notes/learner_spec.md §14:
    start + 1-ply for TicTacToe and Nim, the 244 4-ply openings for Othello, else the initial position),
    ``initial``, ``all-1ply``, ``start+1ply`` (the initial position and every
    position after one move: GBG's "different starts"), ``othello-4ply``,
    ``othello-4ply-distinct`` or ``random:K`` (a fresh random K-ply opening per game).
    """
    if spec == "table1":
        spec = game.evaluation_starts
    if spec == "start+1ply":
        return [game.initial_state(game.p, make_rng(0))] + positions_after(game, 1)
    m = re.fullmatch(r"random:(\d+)", spec)
    if m:
        return ("random", int(m.group(1)))
    if spec in START_STATE_NAMES:
        return spec
    raise ValueError(f"unknown start states {spec!r}; use one of {', '.join(START_STATE_NAMES)}")


def evaluate_agent(agent, opponents, starts: str = "table1", n_games: int | None = None, seed: int = 0,
                   jobs: int = 1, game=None) -> EvalResult:
    """Evaluate ``agent`` (a harness player) against ``opponents`` (names or players) in every seat.

    ``game`` defaults to ``agent.game``. One-player games ignore ``opponents``.
    The harness seeds its own generators from ``seed``: the agent's random
    streams are not touched.
    """
    game = agent.game if game is None else game
    opps = None if game.n_players == 1 else list(opponents)
    return evaluate(game, agent, opps, n_games=n_games, start_states=start_states(game, starts), seed=seed,
                    jobs=jobs, keep_games=False)


def scores_of(result: EvalResult, eval_vs) -> dict:
    """``{"score_<opp>": ..., "se_<opp>": ...}`` of an evaluation (win rate for two players, else mean score)."""
    out = {}
    for name, m in zip(eval_vs, result.matchups):
        se = m.win_rate_se if m.win_rate is not None else m.score_se
        out[f"score_{name}"], out[f"se_{name}"] = float(m.score), float(se)
    return out


def describe_row(row: dict, eval_vs, percent: bool = True) -> str:
    """``"vs maxn10 48.0%±5.0%"``-style summary of a curve row (``percent``: scores are win rates).

    Mean scores of N-player games read ``"vs mcts100 score +0.33±0.21"`` (two decimals always, so a
    shaky ``1±0`` reads ``+1.00±0.00``); a one-player game's own score ``"score 2,048±310"``.
    """
    parts = []
    for o in eval_vs:
        s, se = row.get(f"score_{o}"), row.get(f"se_{o}")
        if s is None:
            continue
        if percent:
            parts.append(f"vs {o} {100 * s:.1f}%±{100 * se:.1f}%")
        elif o == ALONE:
            parts.append(f"score {s:,.0f}±{se:,.0f}" if abs(s) >= 100 else f"score {s:.3g}±{se:.2g}")
        else:
            parts.append(f"vs {o} score {s:+.2f}±{se:.2f}")
    if not parts and row.get("train_reward") is not None:
        parts.append(f"train reward {row['train_reward']:.3g}")
    return ", ".join(parts)
