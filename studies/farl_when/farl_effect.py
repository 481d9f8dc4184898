"""Does final adaptation make TD agents stronger on the descent paper's games? A test of ``farl_when.md``'s rule.

``docs/results/farl_when.md`` explains Konen & Bagheri 2020's open question (why Othello ignores FARL) with a
rule: FARL matters when one sign of a seat's final reward can only arrive after its last move, that is, when
the game ends on the move that decides it. Random self-play puts five of Cohen-Solal 2020's games firmly on that
side and Lines of Action (24 % of losses reach the loser's own move) and Surakarta (8 %) slightly towards
Othello. This script checks the prediction on agents: per game and seed, two TD agents with the same settings
and budget (the pretrained agents' build, :func:`studies.pretrained.build.preset_of`), one with final
adaptation and one without, then

* each against a uniformly random player and against MCTS with 300 iterations, from the initial position;
* the two against each other from random 2-ply openings (two greedy players would replay one game otherwise),

every seat, a win scoring 1 and a draw ½::

    python -m studies.farl_when.farl_effect --seeds 3 --out docs/results/farl_effect_descent_games.json

Beside the matchups, each agent's own ε-greedy self-play is measured as ``farl_when`` measures the Table 1
games: how many games are decided, and the share of losses and wins that reach a seat only after its last move
(lost without FARL). The JSON keeps one entry per game and seed and is written after each, so a stopped run
continues where it stopped (complete entries are skipped; an entry without the self-play measurement gets it
and keeps its matchups); ``--table`` prints the Markdown tables of a finished file.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_json
from studies.formatting import pct, pct_mean_se

#: the descent comparisons' games, in farl_when.md's order (most one-sided first)
GAMES = ("breakthrough", "clobber", "amazons", "outer_open_gomoku", "santorini", "surakarta", "lines_of_action")
LABELS = {"breakthrough": "Breakthrough 6x6", "clobber": "Clobber 5x6", "amazons": "Amazons 6x6",
          "outer_open_gomoku": "Outer-Open Gomoku 9x9", "santorini": "Santorini", "surakarta": "Surakarta",
          "lines_of_action": "Lines of Action 8x8"}


def agents_for(game: str, seed: int, episodes: int | None = None):
    """The FARL and no-FARL agents of ``game`` (untrained), same settings and seed; and the game's parameters."""
    from farl_agents.learners import NTupleAgent
    from studies.pretrained.build import preset_of

    config, params, _ = preset_of(game)
    config = config.replace(seed=seed, **({} if episodes is None else {"episodes": episodes}))
    with_farl = NTupleAgent(game, config.replace(farl=True, farl_terminal=True), **params)
    without = NTupleAgent(game, config.replace(farl=False, farl_terminal=False), **params)
    return with_farl, without, params


def _score(res) -> dict:
    m = res.matchups[0]
    return {"score": float(m.score), "se": float(m.score_se), "games": int(m.n_games),
            "per_seat": [float(s.win_rate if s.win_rate is not None else s.mean_score) for s in m.per_seat]}


#: what :func:`studies.farl_when.farl_when.measure` reports that the page quotes
MECHANISM_KEYS = ("games", "plies_mean", "decided", "last_mover_wins", "last_mover_loses", "losses_lost",
                  "wins_lost", "v_nonmover")


def measure_one(game: str, seed: int, episodes: int | None, games: int, mcts: int, have: dict | None = None,
                mechanism_games: int = 200) -> dict:
    """Train both agents of ``game`` and ``seed``; in each one's ε-greedy self-play, who receives the final
    reward after its last move (:func:`studies.farl_when.farl_when.measure`, ``mechanism_games`` games);
    and the three kinds of matchup (``games`` per seat). ``have``: an earlier entry of the same game, seed and
    budget whose matchups are kept (training is seeded, so its agents are these)."""
    from farl_agents.evaluate import evaluate
    from studies.farl_when.farl_when import measure

    with_farl, without, params = agents_for(game, seed, episodes)
    out = {"game": game, "params": params, "seed": seed, "episodes": with_farl.config.episodes}
    for key, agent in (("farl", with_farl), ("nofarl", without)):
        t = time.process_time()
        agent.train(agent.config.episodes)
        out[f"{key}_train_cpu"] = round(time.process_time() - t, 1)
        got = measure(agent.game, agent, mechanism_games, agent.config.epsilon, seed)
        out[f"{key}_selfplay"] = {k: got[k] for k in MECHANISM_KEYS}
    if have is not None and have.get("episodes") == out["episodes"] and "farl_vs_nofarl" in have:
        return {**have, **out}
    spec = with_farl.game
    for key, agent in (("farl", with_farl), ("nofarl", without)):
        for opp in ("random", f"mcts{mcts}"):
            res = evaluate(spec, agent, opp, n_games=games, start_states="initial", seed=seed, keep_games=False)
            out[f"{key}_vs_{opp.rstrip('0123456789')}"] = _score(res)
    res = evaluate(spec, with_farl, without, n_games=games, start_states=("random", 2), seed=seed,
                   keep_games=False)
    out["farl_vs_nofarl"] = _score(res)
    return out


def run(games_list, seeds: int, out: Path, episodes: int | None = None, games: int = 50, mcts: int = 300,
        log=print) -> dict:
    """Measure every game and seed not yet in ``out`` (resumable); returns the file's contents."""
    data = json.loads(out.read_text()) if out.is_file() else {"entries": {}}
    data.update(settings={"games_per_seat": games, "mcts": mcts, "episodes": episodes})
    for seed in range(seeds):
        for game in games_list:
            key = f"{game}/seed{seed}"
            have = data["entries"].get(key)
            if have is not None and "farl_selfplay" in have:
                continue
            t = time.perf_counter()
            data["entries"][key] = measure_one(game, seed, episodes, games, mcts, have)
            atomic_write_json(out, data)
            e = data["entries"][key]
            log(f"{key}: FARL vs no-FARL {e['farl_vs_nofarl']['score']:.2f}, vs MCTS {e['farl_vs_mcts']['score']:.2f}"
                f" / {e['nofarl_vs_mcts']['score']:.2f} ({time.perf_counter() - t:.0f} s)")
    return data


def table(data: dict) -> str:
    """The Markdown table: per game, the mean over seeds ± its standard error."""
    by_game: dict = {}
    for e in data["entries"].values():
        by_game.setdefault(e["game"], []).append(e)
    lines = ["| game | seeds | FARL vs no-FARL | FARL vs random | no-FARL vs random | FARL vs MCTS | "
             "no-FARL vs MCTS |", "|---|---:|---:|---:|---:|---:|---:|"]
    for game in [g for g in GAMES if g in by_game] + [g for g in by_game if g not in GAMES]:
        es = by_game[game]
        cells = [pct_mean_se([e[k]["score"] for e in es]) for k in
                 ("farl_vs_nofarl", "farl_vs_random", "nofarl_vs_random", "farl_vs_mcts", "nofarl_vs_mcts")]
        lines.append(f"| {LABELS.get(game, game)} | {len(es)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _mean(values) -> float | None:
    v = [x for x in values if x is not None]
    return float(np.mean(v)) if v else None


def _val(x) -> str:
    return "–" if x is None else f"{x:+.2f}"


def mechanism_table(data: dict) -> str:
    """Per game (means over seeds), each agent's own self-play: decided games, the share of losses and of wins
    that arrive after the receiver's last move, and the value V_p(s_last) of a losing seat that did not move last.
    """
    by_game: dict = {}
    for e in data["entries"].values():
        if "farl_selfplay" in e:
            by_game.setdefault(e["game"], []).append(e)
    lines = ["| game | agent | plies | decided | losses lost without FARL | wins lost without FARL | "
             "V(last afterstate) of a loser that did not move last |", "|---|---|---:|---:|---:|---:|---:|"]
    for game in [g for g in GAMES if g in by_game]:
        for key, name in (("farl", "FARL"), ("nofarl", "no-FARL")):
            sp = [e[f"{key}_selfplay"] for e in by_game[game]]
            lines.append(f"| {LABELS[game]} | {name} | {_mean([x['plies_mean'] for x in sp]):.0f} | "
                         f"{pct(_mean([x['decided'] for x in sp]), 0)} | "
                         f"{pct(_mean([x['losses_lost'] for x in sp]), 0)} | "
                         f"{pct(_mean([x['wins_lost'] for x in sp]), 0)}"
                         f" | {_val(_mean([x['v_nonmover']['loss'] for x in sp]))} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES), help=f"comma list (default: {', '.join(GAMES)})")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--episodes", type=int, default=None, help="training episodes per agent (default: the "
                                                               "pretrained build's)")
    ap.add_argument("--games-per-seat", type=int, default=50)
    ap.add_argument("--mcts", type=int, default=300, help="MCTS iterations of the reference opponent")
    ap.add_argument("--out", required=True, help="JSON file (resumable: its entries are kept)")
    ap.add_argument("--table", action="store_true", help="print the Markdown table of --out and stop")
    a = ap.parse_args(argv)
    out = Path(a.out)
    if a.table:
        if not out.is_file():
            ap.error(f"{out} does not exist")
        data = json.loads(out.read_text())
        print(table(data) + "\n\n" + mechanism_table(data))
        return 0
    names = [g.strip() for g in a.games.split(",") if g.strip()]
    unknown = [g for g in names if g not in GAMES]
    if unknown or not names:
        ap.error(f"unknown game(s) {', '.join(unknown) or a.games!r}; known: {', '.join(GAMES)}")
    if a.seeds < 1 or a.games_per_seat < 1:
        ap.error("--seeds and --games-per-seat must be >= 1")
    data = run(names, a.seeds, out, a.episodes, a.games_per_seat, a.mcts)
    print(table(data) + "\n\n" + mechanism_table(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
