"""The scaled-down measurements of docs/results/descent.md (Cohen-Solal 2020's qualitative claims).

(Longer than farl's usual 400 lines: it is one results page's script, its stages read top to bottom
beside the page they write; split, one experiment would be scattered over several files.)

    python -m studies.descent.experiments --minutes 1 --out runs/descent-exp

Stages (each cached in ``OUT``; rerunning skips what is done):

``train``        every variant of :data:`VARIANTS` for ``--minutes`` of training on
                 each game (Hex 6x6, Connect Four 6x7), one after the other on one core;
                 TD-FARL (Konen & Bagheri 2020 preset) for the same wall-clock.
``tournaments``  per experiment of :data:`EXPERIMENTS`, the all-play-all of its
                 variants' final f_θ with fixed-depth alpha-beta (both seats, random
                 openings) -- Cohen-Solal 2020's Sec. 3.2 protocol.
``play``         UBFMs vs UBFM vs ID alpha-beta with the same f_θ and time per move
                 (Sec. 6.2), and the best descent agent against TD-FARL and the
                 reference opponents (perfect Connect Four player, MCTS on Hex).
``speed``        (only when asked for) search speed per game; ID counts inner nodes.
``curves``       (only when asked for) learning curves of tree, root and terminal
                 learning (:data:`CURVE_VARIANTS`) on Hex 6x6: every variant and seed
                 trained for the same wall-clock, f_θ measured every ``--curve-every``
                 training seconds (depth-2 alpha-beta vs ``--curve-vs``, the same
                 openings at every point); one PNG (``--curves-png``) with the mean
                 over seeds and the band between the lowest and highest seed.

Writes ``OUT/results.json`` and ``OUT/descent_tables.md`` (the generated tables; the reading is in
descent.md). ``--publish`` writes the pages and the figure into ``docs/results`` instead (the shipped ones);
``--tables``, ``--report``, ``--summary`` and ``--curves-png`` name them one by one.

The paper's Tables 2-4 on its nine games (or any registered two-player game
without chance), as resumable cells (:mod:`studies.descent.games_runner`,
the games' table in :mod:`studies.descent.paper_games`):

``cells``         train every (game, variant, repetition) and play every
                  (game, experiment, repetition) all-play-all, ``--jobs`` games
                  at a time, into ``--out`` (default ``runs/descent-games``);
                  then writes the report as ``games-report`` does.
``games-report``  merge the finished cells into ``--summary`` (JSON) and
                  ``--report`` (default ``OUT/descent_games.md``; ``--publish``: docs/results).

    python -m studies.descent.experiments --stage cells --reps 5 --jobs 2
"""
from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.descent.agent import load_agent
from farl_agents.descent.family import curve_points
from farl_agents.descent.run import train_run
from farl_agents.descent.tournament import all_play_all, markdown
from farl_agents.descent.trainer import DescentConfig
from farl_agents.evaluate import evaluate
from farl_agents.runs import Run, read_curve
from farl_agents.runs.curve import plot_series
from studies.descent import games_report, games_runner, paper_games

GAMES = {"hex6": ("hex", {"size": 6}), "c4": ("connect_four", {"rows": 6, "cols": 7})}
"""The original stages' games; any key of :data:`~studies.descent.paper_games.GAMES` or registered
two-player game (``NAME`` or ``NAME:k=v,...``) works too (:func:`game_of`)."""


def game_of(key: str) -> tuple[str, dict]:
    """``(registry name, params)`` of a game key of the original stages or of the nine games' table."""
    if key in GAMES:
        return GAMES[key]
    gs = paper_games.setup(key)
    return gs.game, dict(gs.params)

VARIANTS = {
    "id-tree": dict(search="id", learning="tree"),
    "id-root": dict(search="id", learning="root"),
    "id-terminal": dict(search="id", learning="terminal"),
    "descent-tree": dict(search="descent", learning="tree"),
    "ubfm-tree": dict(search="ubfm", learning="tree"),
    "mcts-tree": dict(search="mcts", learning="tree"),
    "descent-depth-add": dict(search="descent", learning="tree", heuristic="depth-add"),
    "descent-depth-mul": dict(search="descent", learning="tree", heuristic="depth-mul"),
    "descent-mobility": dict(search="descent", learning="tree", heuristic="mobility"),
}

EXPERIMENTS = {
    "data": ["id-tree", "id-root", "id-terminal"],
    "search": ["descent-tree", "ubfm-tree", "id-tree", "mcts-tree"],
    "heuristic": ["descent-tree", "descent-depth-add", "descent-depth-mul", "descent-mobility"],
}

CURVE_VARIANTS = ["id-tree", "id-root", "id-terminal"]
"""The data experiment's variants (tree / root / terminal learning, ID alpha-beta as in the paper's Sec. 3.3)."""

REFERENCES = {"hex6": ["random", "mcts1000", "mcts10000"], "c4": ["random", "mcts1000", "ab"]}


def _load(out: Path) -> dict:
    try:
        return json.loads((out / "results.json").read_text())
    except (OSError, ValueError):
        return {}


def _store(out: Path, results: dict) -> None:
    atomic_write_json(out / "results.json", results)


def train_stage(out: Path, minutes: float, move_seconds: float, games, seed: int, experiments=None,
                td: bool = True) -> None:
    results = _load(out)
    wanted = set(VARIANTS) if not experiments else {v for e in experiments for v in EXPERIMENTS[e]}
    for key in games:
        name, params = game_of(key)
        for var, over in VARIANTS.items():
            if var not in wanted:
                continue
            folder = out / key / var
            if (folder / "run.json").exists() and Run.open(folder).finished:
                continue
            cfg = DescentConfig(game=name, game_params=params, minutes=minutes, move_seconds=move_seconds,
                                seed=seed, **over)
            t0 = time.time()
            tr = train_run(cfg, folder, eval_every=0).trainer.agent
            print(f"[train] {key} {var}: {tr.games} games, {tr.elapsed:.0f} s training, "
                  f"{time.time() - t0:.0f} s wall", flush=True)
            results.setdefault("train", {}).setdefault(key, {})[var] = {
                "games": tr.games, "train_seconds": tr.elapsed, "results_first_draw_second": tr.results}
            _store(out, results)
        td_file = out / key / "td-farl.npz"
        if td and not td_file.exists():
            info = train_td(name, params, 60.0 * minutes, seed, td_file)
            results.setdefault("train", {}).setdefault(key, {})["td-farl"] = info
            _store(out, results)
            print(f"[train] {key} td-farl: {info}", flush=True)


def td_config(name: str, seed: int, **overrides):
    """TD-FARL's settings for ``name``: the Konen & Bagheri 2020 preset where the paper has one, else the
    generic one of this comparison (random-walk 6-tuples as the descent f_θ, ε 0.1, α 0.2 → 0.02, λ 0).

    Amazons (a turn of three decisions): TD-FARL's compiled self-play treats each decision as a move of
    its own, so it also learns values of the half-made turns (their boards mark the lifted queen's square
    with 4); the descent family searches whole turns instead (:mod:`farl_agents.descent.expand`)."""
    from farl_agents.learners.config import LearnerConfig
    from farl_agents.learners.presets import paper_config, preset_names

    if name in preset_names():
        return paper_config(name, seed=seed, **overrides)
    base = dict(epsilon=0.1, alpha=0.2, alpha_final=0.02, ntuples="random-walk", ntuple_count=20,
                ntuple_length=6, seed=seed)
    base.update(overrides)
    return LearnerConfig(**base)


def train_td(name: str, params: dict, seconds: float, seed: int, path: Path, probe_episodes: int = 200) -> dict:
    """TD-FARL (:func:`td_config`) trained for ``seconds`` of wall-clock (episodes scaled to fit)."""
    from farl_agents.learners.agent import NTupleAgent

    probe = NTupleAgent(name, td_config(name, seed), **params)
    probe.train(max(1, probe_episodes // 10))  # compile
    t0 = time.perf_counter()
    probe.train(probe_episodes)
    rate = probe_episodes / max(time.perf_counter() - t0, 1e-6)
    episodes = max(probe_episodes // 2, int(rate * seconds))
    agent = NTupleAgent(name, td_config(name, seed, episodes=episodes), **params)
    t0 = time.perf_counter()
    while agent.episodes_done < episodes and time.perf_counter() - t0 < seconds:
        agent.train(min(500, episodes - agent.episodes_done))
    agent.save(path)
    return {"episodes": agent.episodes_done, "seconds": time.perf_counter() - t0}


def tournament_stage(out: Path, games, depth: int, openings: int, seed: int, experiments=None,
                     pool=()) -> None:
    """Per experiment, the all-play-all of its variants; with ``pool`` (more run folders: repetitions
    with other seeds) every function of every repetition meets every other (the paper's final
    comparison) and a variant's win % is the mean over its repetitions' games."""
    results = _load(out)
    folders = [out] + [Path(p) for p in pool]
    label = "tournaments" if not pool else "pooled_tournaments"
    for key in games:
        name, params = game_of(key)
        game = farl_envs.game_spec(name, **params)
        for exp, names in EXPERIMENTS.items():
            if experiments and exp not in experiments:
                continue
            if exp in results.get(label, {}).get(key, {}):
                continue
            files = {(n if not pool else f"{n}#{i}"): str(f / key / n / "agent.npz")
                     for n in names for i, f in enumerate(folders)}
            t0 = time.time()
            res = all_play_all(game, files, depth=depth, openings=openings, opening_plies=2, seed=seed)
            if pool:
                merged = {}
                for n in names:
                    rows = [res["variants"][f"{n}#{i}"] for i in range(len(folders))]
                    games_n = sum(r["games"] for r in rows)
                    pct = sum(r["win_pct"] * r["games"] for r in rows) / games_n
                    merged[n] = {"win_pct": pct, "games": games_n,
                                 "se_pct": float(np.sqrt(sum((r["se_pct"] * r["games"]) ** 2 for r in rows))
                                                 / games_n),
                                 "per_repetition": [round(r["win_pct"], 1) for r in rows]}
                res["by_repetition"] = res["variants"]
                res["variants"] = merged
                res["repetitions"] = [str(f) for f in folders]
            res["wall_seconds"] = time.time() - t0
            results.setdefault(label, {}).setdefault(key, {})[exp] = res
            _store(out, results)
            print(f"[tournament] {key} {exp}:\n{markdown(res)}", flush=True)


def _pair(game, a, b, n_games, seed):
    res = evaluate(game, [a], [b], n_games=n_games, start_states=("random", 2), seed=seed)
    m = res.matchups[0]
    return {"win_rate": m.win_rate, "se": m.win_rate_se, "games": m.n_games, "w_d_l": [m.wins, m.draws, m.losses]}


def play_stage(out: Path, games, move_seconds: float, n_games: int, ref_games: int, seed: int) -> None:
    results = _load(out)
    for key in games:
        name, params = game_of(key)
        game = farl_envs.game_spec(name, **params)
        done = results.setdefault("play", {}).setdefault(key, {})
        # (1) UBFMs vs UBFM vs ID with the same f_θ and the same time per move
        for var in ("descent-tree", "descent-depth-add"):
            tag = f"searches[{var}]"
            if tag in done:
                continue
            base = load_agent(out / key / var / "agent.npz", game)
            players = {s: base.with_search(s, seconds=move_seconds, name=s) for s in ("ubfms", "ubfm", "id")}
            table = {}
            for x, y in itertools.combinations(players, 2):
                table[f"{x} vs {y}"] = _pair(game, players[x], players[y], n_games, seed)
                print(f"[play] {key} {var} {x} vs {y}: {table[f'{x} vs {y}']}", flush=True)
            done[tag] = table
            _store(out, results)
        # (2) the best descent-trained f_θ (by the search + heuristic tournaments) against TD-FARL and references
        if "best" not in done:
            score = {}
            for exp in ("search", "heuristic"):
                for n, r in results["tournaments"][key][exp]["variants"].items():
                    if n.startswith("descent"):
                        score.setdefault(n, []).append(r["win_pct"])
            best = max(score, key=lambda n: np.mean(score[n]))
            agent = load_agent(out / key / best / "agent.npz", game, search="ubfms", seconds=move_seconds,
                               name=f"{best} (UBFMs)")
            from farl_agents.learners.agent import NTupleAgent
            from farl_agents.opponents import make_opponent

            td = NTupleAgent.load(out / key / "td-farl.npz")
            entry = {"variant": best, "vs td-farl": _pair(game, agent, td, n_games, seed)}
            print(f"[play] {key} best={best} vs td-farl: {entry['vs td-farl']}", flush=True)
            for ref in REFERENCES.get(key, paper_games.setup(key).references if key not in GAMES else ()):
                opp = make_opponent(ref, game)
                entry[f"vs {ref}"] = _pair(game, agent, opp, ref_games, seed)
                entry[f"td-farl vs {ref}"] = _pair(game, td, opp, ref_games, seed)
                print(f"[play] {key} vs {ref}: descent {entry[f'vs {ref}']} td {entry[f'td-farl vs {ref}']}",
                      flush=True)
                done["best"] = entry
                _store(out, results)
            done["best"] = entry
            _store(out, results)


def speed_stage(out: Path, seconds: float = 3.0) -> None:
    """Search speed (iterations and created nodes per second) from the start position, untrained f_θ."""
    from farl_agents.descent.alphabeta import AlphaBeta
    from farl_agents.descent.evaluation import NTupleEvaluation
    from farl_agents.descent.heuristics import make_heuristic
    from farl_agents.descent.mcts_learn import EvalMCTS
    from farl_agents.descent.search import TreeSearch
    from farl_envs.core.rng import make_rng

    results = _load(out)
    table = {}
    for key, (name, params) in {**GAMES, "othello": ("othello", {})}.items():
        game = farl_envs.game_spec(name, **params)
        h = make_heuristic("classic", game)
        ev = NTupleEvaluation(game, 1.0, True)
        ev.weights[:] = np.random.default_rng(0).normal(0, 0.05, ev.weights.shape).astype(np.float32)
        s = np.ascontiguousarray(game.initial_state(game.p, make_rng(0)), dtype=np.int32)
        row = {}
        for label in ("descent", "ubfm", "mcts", "id"):
            for warm in (True, False):
                if label == "id":
                    eng = AlphaBeta(game, ev, h)
                    t0 = time.perf_counter()
                    eng.search(s, seconds=0.2 if warm else seconds)
                    dt = time.perf_counter() - t0
                    row[label] = {"depth": eng.depth_reached, "nodes_per_s": eng.nodes / dt}
                else:
                    eng = (EvalMCTS(game, ev, h) if label == "mcts" else TreeSearch(game, ev, h, label))
                    t0 = time.perf_counter()
                    eng.search(s, seconds=0.2 if warm else seconds)
                    dt = time.perf_counter() - t0
                    row[label] = {"iterations_per_s": eng.iterations_done / dt, "nodes_per_s": len(eng.table) / dt}
        table[key] = row
        print(f"[speed] {key}: {row}", flush=True)
    results["speed"] = table
    _store(out, results)


def _train_curve_run(task) -> str:
    """One (variant, seed) training run with its learning curve (a process-pool task)."""
    folder, config, curve = task
    folder = Path(folder)
    t0 = time.time()
    tr = train_run(DescentConfig(**config), folder, **curve).trainer.agent
    print(f"[curves] {folder.name}: {tr.games} games, {tr.elapsed:.0f} s training, {time.time() - t0:.0f} s wall",
          flush=True)
    return str(folder)


def curve_series(per_seed: dict) -> tuple:
    """``(t, mean, low, high)`` over seeds, aligned by point index (points every S training seconds)."""
    runs = [rows for rows in per_seed.values() if rows]
    n = min(len(rows) for rows in runs)
    t = [float(np.mean([rows[k]["train_seconds"] for rows in runs])) for k in range(n)]
    score = np.array([[rows[k]["score"] for k in range(n)] for rows in runs])
    if len(runs) > 1:
        return t, score.mean(axis=0).tolist(), score.min(axis=0).tolist(), score.max(axis=0).tolist()
    se = np.array([rows[k]["se"] for k in range(n) for rows in runs])
    return t, score[0].tolist(), (score[0] - se).tolist(), (score[0] + se).tolist()


def curves_stage(out: Path, key: str, minutes: float, move_seconds: float, seeds, every: float, vs: str,
                 games: int, jobs: int, png) -> None:
    """Tree / root / terminal learning on ``key`` with learning curves; writes ``results["curves"][key]``
    and ``png``."""
    import multiprocessing

    name, params = game_of(key)
    curve = {"eval_every": every, "eval_vs": (vs,), "eval_games": games, "eval_depth": 2, "eval_seed": 0,
             "eval_starts": "random:2"}
    tasks = [(str(out / "curves" / key / f"{var}-s{seed}"),
              dict(game=name, game_params=params, minutes=minutes, move_seconds=move_seconds, seed=seed,
                   **VARIANTS[var]), curve)
             for seed in seeds for var in CURVE_VARIANTS]
    t0 = time.time()
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            list(pool.imap_unordered(_train_curve_run, tasks))
    else:
        for task in tasks:
            _train_curve_run(task)
    wall = time.time() - t0
    runs = {var: {str(seed): curve_points(read_curve(out / "curves" / key / f"{var}-s{seed}" / "curve.csv"), vs)
                  for seed in seeds} for var in CURVE_VARIANTS}
    info = {}
    for var in CURVE_VARIANTS:
        info[var] = {}
        for seed in seeds:
            tr = Run.open(out / "curves" / key / f"{var}-s{seed}").trainer
            info[var][str(seed)] = {"games": tr.episodes, "train_seconds": tr.done}
    results = _load(out)
    results.setdefault("curves", {})[key] = {
        "settings": {"minutes": minutes, "move_seconds": move_seconds, "seeds": list(seeds), "jobs": jobs,
                     "every_seconds": every, "vs": vs, "games": games, "depth": 2, "opening_plies": 2, "seed": 0},
        "runs": runs, "training": info, "wall_seconds": wall, "png": str(png)}
    _store(out, results)
    draw_curves(results["curves"][key], key, png)
    print(f"[curves] {key}: {len(tasks)} runs in {wall:.0f} s wall; figure {png}", flush=True)


def draw_curves(entry: dict, key: str, png) -> None:
    st = entry["settings"]
    series = {}
    for var, per_seed in entry["runs"].items():
        series[var.replace("id-", "ID + ") + " learning"] = curve_series(per_seed)
    band = "band: lowest to highest seed" if len(st["seeds"]) > 1 else "band: ±1 s.e."
    plot_series(png, series, f"{key}: f_θ (alpha-beta depth {st['depth']}) vs {st['vs']}, "
                             f"{2 * st['games']} games per point\nmean of {len(st['seeds'])} seeds, {band}; "
                             f"{st['minutes']} min wall-clock training per run")


def tables(results: dict, meta: dict) -> str:
    """The generated markdown tables."""
    lines = ["# Descent family: generated tables", "", "Made by (in this order):", ""]
    lines += [f"    {c}" for c in meta.get("commands", [])] + [""]
    for key, per in results.get("train", {}).items():
        lines += [f"## {key}: training", "", "| variant | games | training s | first/draw/second wins |",
                  "|---|---:|---:|---|"]
        for var, r in per.items():
            if var == "td-farl":
                lines.append(f"| td-farl | {r['episodes']} episodes | {r['seconds']:.0f} | |")
            else:
                lines.append(f"| {var} | {r['games']} | {r['train_seconds']:.0f} | "
                             f"{'/'.join(map(str, r['results_first_draw_second']))} |")
        lines.append("")
    for key, per in results.get("tournaments", {}).items():
        for exp, res in per.items():
            lines.append(markdown(res, f"{key}: {exp} experiment"))
    for key, per in results.get("pooled_tournaments", {}).items():
        for exp, res in per.items():
            lines += [f"### {key}: {exp} experiment, {len(res['repetitions'])} repetitions pooled", "",
                      f"all-play-all of every repetition's f_θ, alpha-beta depth {res['depth']}, "
                      f"{res['openings']} random {res['opening_plies']}-ply openings x 2 seats per pair; "
                      "runs: " + ", ".join(res["repetitions"]), "",
                      "| variant | win % | s.e. | games | per repetition |", "|---|---:|---:|---:|---|"]
            for n, r in sorted(res["variants"].items(), key=lambda kv: -kv[1]["win_pct"]):
                lines.append(f"| {n} | {r['win_pct']:.1f} | {r['se_pct']:.1f} | {r['games']} | "
                             f"{' / '.join(map(str, r['per_repetition']))} |")
            lines.append("")
    if "speed" in results:
        lines += ["## search speed (start position, untrained f_θ)", "",
                  "| game | descent it/s | descent nodes/s | UBFM it/s | UBFM nodes/s | MCTS it/s "
                  "| ID nodes/s (depth) |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for key, r in results["speed"].items():
            lines.append(f"| {key} | {r['descent']['iterations_per_s']:.0f} | {r['descent']['nodes_per_s']:.0f} | "
                         f"{r['ubfm']['iterations_per_s']:.0f} | {r['ubfm']['nodes_per_s']:.0f} | "
                         f"{r['mcts']['iterations_per_s']:.0f} | {r['id']['nodes_per_s']:.0f} ({r['id']['depth']}) |")
        lines.append("")
    for key, entry in results.get("curves", {}).items():
        st = entry["settings"]
        lines += [f"## {key}: learning curves (tree / root / terminal learning)", "",
                  f"f_θ with alpha-beta depth {st['depth']} against {st['vs']}, {2 * st['games']} games per point "
                  f"({st['games']} random {st['opening_plies']}-ply openings x 2 seats, the same at every point); "
                  f"a point every {st['every_seconds']:g} training seconds; {st['minutes']} min wall-clock per run, "
                  f"{st['move_seconds']} s per move; seeds {', '.join(map(str, st['seeds']))}; "
                  f"{st['jobs']} runs at a time; {entry['wall_seconds']:.0f} s wall for the stage. "
                  f"Figure: `{entry['png']}`.", "",
                  "Score (win 1, draw ½) per point: mean over seeds [per seed]; training games at the last point.", ""]
        header = "| variant | " + " | ".join(f"t≈{t:.0f} s" for t in curve_series(
            next(iter(entry["runs"].values())))[0]) + " | games (per seed) |"
        lines += [header, "|---|" + "---:|" * (header.count("|") - 2)]
        for var, per_seed in entry["runs"].items():
            t, mean, _, _ = curve_series(per_seed)
            cells = []
            for k, m in enumerate(mean):
                each = " ".join(f"{rows[k]['score']:.2f}" for rows in per_seed.values())
                cells.append(f"{m:.2f} [{each}]")
            g = " / ".join(str(r["games"]) for r in entry["training"][var].values())
            lines.append(f"| {var} | " + " | ".join(cells) + f" | {g} |")
        lines.append("")
    for key, per in results.get("play", {}).items():
        lines += [f"## {key}: play", ""]
        for tag, table in per.items():
            if tag == "best":
                lines += [f"best descent-trained f_θ: **{table['variant']}** (UBFMs)", "",
                          "| match | win rate | s.e. | W/D/L |", "|---|---:|---:|---|"]
                for k, r in table.items():
                    if k != "variant":
                        lines.append(f"| {k} | {100 * r['win_rate']:.1f} % | {100 * r['se']:.1f} | "
                                     f"{'/'.join(map(str, r['w_d_l']))} |")
            else:
                lines += [f"{tag}", "", "| match | win rate of first named | s.e. | W/D/L |", "|---|---:|---:|---|"]
                for k, r in table.items():
                    lines.append(f"| {k} | {100 * r['win_rate']:.1f} % | {100 * r['se']:.1f} | "
                                 f"{'/'.join(map(str, r['w_d_l']))} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.descent.experiments", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=None, help="results folder (default runs/descent-exp; cells: "
                                               "runs/descent-games)")
    p.add_argument("--minutes", type=float, default=1.0, help="training minutes per variant")
    p.add_argument("--move-seconds", type=float, default=None,
                   help="search seconds per move (training; default 0.05, cells: the game's table)")
    p.add_argument("--games", default=None, help="comma-separated game keys (default hex6,c4; cells: the nine "
                                                 "games of studies/descent/paper_games.py)")
    p.add_argument("--stage", default="all",
                   choices=["train", "tournaments", "play", "speed", "curves", "tables", "all", "cells",
                            "games-report"])
    p.add_argument("--reps", type=int, default=5, help="cells: repetitions (seeds 0..reps-1)")
    p.add_argument("--train-seconds", type=float, default=None,
                   help="cells: training CPU seconds per run (default: the game's table)")
    p.add_argument("--report", default=None, help="cells: the report (default OUT/descent_games.md)")
    p.add_argument("--summary", default=None, help="cells: the merged results (default OUT/descent_games.json)")
    p.add_argument("--depth", type=int, default=2, help="alpha-beta depth of the tournaments")
    p.add_argument("--openings", type=int, default=10, help="random 2-ply openings per pair (x 2 seats)")
    p.add_argument("--play-seconds", type=float, default=0.03, help="seconds per move in the play stage")
    p.add_argument("--play-games", type=int, default=6, help="games per seat in the play stage")
    p.add_argument("--ref-games", type=int, default=5, help="games per seat against reference opponents")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tables", default=None, help="the tables page (default OUT/descent_tables.md)")
    p.add_argument("--experiments", default="", help="restrict training/tournaments to these experiments "
                                                      "(comma-separated: data,search,heuristic)")
    p.add_argument("--no-td", action="store_true", help="do not train TD-FARL")
    p.add_argument("--curve-seeds", default="0,1,2", help="curves stage: training seeds (comma-separated)")
    p.add_argument("--curve-every", type=float, default=15.0, help="curves stage: training seconds between points")
    p.add_argument("--curve-vs", default="mcts100", help="curves stage: the reference opponent")
    p.add_argument("--curve-games", type=int, default=20, help="curves stage: games per seat and point")
    p.add_argument("--jobs", type=int, default=2, help="curves stage: training runs at a time")
    p.add_argument("--curves-png", default=None, help="curves stage: the figure (default OUT/descent_curves.png)")
    p.add_argument("--publish", action="store_true",
                   help="write the pages and figure that --tables, --report, --summary and --curves-png leave unset "
                        "into docs/results (the shipped ones) instead of OUT")
    p.add_argument("--pool", default="", help="further run folders (repetitions) for pooled tournaments")
    args = p.parse_args(argv)
    _page_paths(args)
    if args.stage in ("cells", "games-report"):
        return cells_main(args, argv)
    if args.move_seconds is None:
        args.move_seconds = 0.05
    out = Path(args.out or "runs/descent-exp")
    out.mkdir(parents=True, exist_ok=True)
    games = [g for g in (args.games or "hex6,c4").split(",") if g]
    for g in games:
        try:
            game_of(g)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    t0 = time.time()
    exps = [e for e in args.experiments.split(",") if e]
    for e in exps:
        if e not in EXPERIMENTS:
            raise SystemExit(f"unknown experiment {e!r}; use {', '.join(EXPERIMENTS)}")
    pool = [p for p in args.pool.split(",") if p]
    if args.stage in ("train", "all"):
        train_stage(out, args.minutes, args.move_seconds, games, args.seed, exps, not args.no_td)
    if args.stage in ("tournaments", "all"):
        tournament_stage(out, games, args.depth, args.openings, args.seed, exps, pool)
    if args.stage in ("play", "all"):
        play_stage(out, games, args.play_seconds, args.play_games, args.ref_games, args.seed)
    if args.stage == "speed":
        speed_stage(out)
    if args.stage == "curves":
        seeds = [int(x) for x in args.curve_seeds.split(",") if x.strip()]
        for g in games:
            curves_stage(out, g, args.minutes, args.move_seconds, seeds, args.curve_every, args.curve_vs,
                         args.curve_games, args.jobs, args.curves_png if len(games) == 1 else
                         str(Path(args.curves_png).with_name(f"{Path(args.curves_png).stem}_{g}.png")))
    results = _load(out)
    meta = results.setdefault("meta", {})
    commands = meta.setdefault("commands", [meta.pop("command")] if "command" in meta else [])
    if args.stage != "tables":
        commands.append("python -m studies.descent.experiments " + " ".join(argv or []))
    _store(out, results)
    atomic_write_text(args.tables, tables(results, meta))
    print(f"done in {time.time() - t0:.0f} s; tables in {args.tables}")
    return 0


def _page_paths(args) -> None:
    """Fill the unset page paths: under ``--out`` (its stage's default folder), or ``docs/results`` with
    ``--publish``, so a user's runs never overwrite the shipped pages."""
    cells = args.stage in ("cells", "games-report")
    pages = Path("docs/results") if args.publish else Path(args.out or ("runs/descent-games" if cells
                                                                         else "runs/descent-exp"))
    defaults = {"report": "descent_games.md", "summary": "descent_games.json", "tables": "descent_tables.md",
                "curves_png": "descent_curves.png"}
    for name, file in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, str(pages / file))


def cells_main(args, argv) -> int:
    """The ``cells`` and ``games-report`` stages (see the module docstring)."""
    out = Path(args.out or "runs/descent-games")
    keys = [g for g in (args.games or ",".join(paper_games.GAMES)).split(",") if g]
    exps = [e for e in args.experiments.split(",") if e]
    for e in exps:
        if e not in paper_games.EXPERIMENTS:
            raise SystemExit(f"unknown experiment {e!r}; use {', '.join(paper_games.EXPERIMENTS)}")
    if args.reps < 1:
        raise SystemExit("--reps must be >= 1")
    try:
        for k in keys:
            paper_games.setup(k)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    reps = list(range(args.reps))
    command = "python -m studies.descent.experiments " + " ".join(argv or [])
    if args.stage == "cells":
        out.mkdir(parents=True, exist_ok=True)
        overrides = {"train_seconds": args.train_seconds, "move_seconds": args.move_seconds}
        games_runner.run(out, keys, reps, exps or None, overrides, args.jobs)
    write_games_report(out, keys, reps, args.summary, args.report,
                       command.replace("--stage games-report", "--stage cells"))
    return 0


def write_games_report(out, keys, reps, summary_path, report_path, command: str) -> dict:
    """Merge the finished cells under ``out`` and write the JSON summary and the markdown report."""
    summary = games_runner.collect(out, keys, reps)
    summary["command"] = command
    atomic_write_json(summary_path, summary)
    atomic_write_text(report_path, games_report.markdown(summary, command, "nice -n 10 " + command))
    print(f"report: {report_path}, summary: {summary_path}", flush=True)
    return summary


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
