"""The results page of the AlphaZero contest (:mod:`studies.alphazero.contest`), written from its finished runs.

Everything on the page comes from the run folders: the final evaluations (``result.json``), the curves, the
calibrations and the ladders. A hand-written answer between the markers ``<!-- answer -->`` and
``<!-- /answer -->`` of the existing page is kept when the page is written again (the reading of the
figures; the figures themselves are always regenerated).
"""
from __future__ import annotations

import datetime
import json
import platform
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_file
from farl_agents.plotting import Panel, Series, plot_panels
from studies.alphazero import contest
from studies.alphazero.contest import LEARNERS, mean_se

CONTESTANTS = ("td-farl", "td-farl+mcts", "alphazero", "descent", "maskable-ppo")
"""The rows of every table, in this order."""
ANSWER = ("<!-- answer -->", "<!-- /answer -->")


def _pct(mean: float, se: float) -> str:
    return f"{100 * mean:.1f} ± {100 * se:.1f}"


def _score(rs: list[dict], name: str, ref: str) -> tuple[float, float]:
    """Mean and s.e. over the runs; with one run, that run's own s.e. over its games."""
    if len(rs) == 1:
        return rs[0]["scores"][name][ref]["score"], rs[0]["scores"][name][ref]["se"]
    return mean_se([r["scores"][name][ref]["score"] for r in rs])


def _game_table(arena, results: list[dict]) -> list[str]:
    refs = list(arena.references)
    lines = ["| contestant | CPU min | runs | training s | episodes | " + " | ".join(f"vs {r} %" for r in refs)
             + " |", "|---|---:|---:|---:|---:|" + "---:|" * len(refs)]
    for minutes in arena.budgets:
        for name in CONTESTANTS:
            learner = "td-farl" if name == "td-farl+mcts" else name
            rs = [r for r in results if r["minutes"] == minutes and r["learner"] == learner and name in r["scores"]]
            if not rs:
                continue
            cells = [_pct(*_score(rs, name, ref)) for ref in refs]
            secs = np.mean([r["train_seconds"] for r in rs])
            eps = np.mean([r["episodes"] for r in rs])
            lines.append(f"| {name} | {minutes:g} | {len(rs)} | {secs:.0f} | {eps:,.0f} | " + " | ".join(cells)
                         + " |")
    return lines


def _curve_panel(arena, results: list[dict]) -> Panel | None:
    """Strength against the curve opponent vs training seconds: one line per learner and budget, the mean over
    seeds at each curve point (the runs of one cell have their points at the same fractions)."""
    key = f"score_{arena.curve_vs}"
    series = []
    for minutes in arena.budgets:
        for learner in LEARNERS:
            rs = [r for r in results if r["minutes"] == minutes and r["learner"] == learner]
            if not rs:
                continue
            n = min(len(r["curve"]) for r in rs)
            x = [np.mean([r["curve"][i]["train_seconds"] for r in rs]) for i in range(n)]
            y = [np.mean([r["curve"][i][key] for r in rs]) for i in range(n)]
            series.append(Series(f"{learner} ({minutes:g} min)", x, y,
                                 linestyle="-" if minutes == max(arena.budgets) else ":",
                                 color=f"C{LEARNERS.index(learner)}"))
    if not series:
        return None
    return Panel(series, title=f"{_title(arena)}: vs {arena.curve_vs} during training (mean over seeds)",
                 xlabel="training seconds (the run's clock, see the protocol)",
                 ylabel=f"score vs {arena.curve_vs}", ylim=(-0.02, 1.02),
                 legend="best")


def _title(arena) -> str:
    spec = farl_envs.game_spec(arena.game, **arena.params)
    params = ", ".join(f"{k}={v}" for k, v in arena.params.items())
    return spec.name + (f" ({params})" if params else "")


def _ladder_lines(out: Path, arena) -> list[str]:
    path = out / arena.game / "ladder" / "ladder.json"
    if not path.exists():
        return ["No ladder yet (`python -m studies.alphazero.contest --ladder`)."]
    result = json.loads(path.read_text())
    labels = {name: label for label, name in contest.ladder_players(out, arena).items()}
    lines = [f"{result['games_per_seating']} games per seating of each pair, openings `{result['openings']}`; "
             f"Elo by maximum likelihood, anchored at random = 0, ± bootstrap s.e. (`farl_agents.ladder`).", "",
             "| rank | player | Elo | ± s.e. |", "|---:|---|---:|---:|"]
    for k, p in enumerate(result["players"], 1):
        lines.append(f"| {k} | {labels.get(p['name'], p['name'])} | {p['elo']:+.0f} | {p['elo_se']:.0f} |")
    return lines


OPENSPIEL_PROTOCOL = (
    "OpenSpiel 2.0.2's own Python AlphaZero (`open_spiel.python.algorithms.alpha_zero`, JAX with flax's `nnx` "
    "model), run unchanged by `studies/alphazero/openspiel_az.py`: one learner and one actor process, no "
    "evaluator process, XLA on one thread, the process tree pinned to one core, stopped by an interrupt when "
    "the tree's CPU time reaches the budget (start-up and compiling included; *CPU s used* is the watchdog's "
    "reading of the tree, which overshoots the budget while the processes stop). OpenSpiel's example "
    "settings but a replay buffer of 1,024 states and an MLP 128x2 (with the example's 8,192 states and "
    "resnet no learner step happens within minutes: its actors evaluate the network uncompiled, one position "
    "at a time, 4.5 ms per position for the MLP). At play: OpenSpiel's `MCTSBot` (PUCT, no noise, 100 "
    "simulations per move) on the compiled network, farl's positions rebuilt in OpenSpiel by replaying a move "
    "order of the board. Runs are not reproducible from a seed (OpenSpiel's self-play draws from unseeded "
    "generators and its learner and actor run asynchronously).")


def _openspiel_lines(out: Path) -> list[str]:
    rows = []
    for folder in sorted((out / "openspiel").glob("*")) if (out / "openspiel").is_dir() else []:
        res, ev = folder / "result.json", folder / "eval.json"
        if not (res.exists() and ev.exists()):
            continue
        r, evals = json.loads(res.read_text()), json.loads(ev.read_text())
        cells = "; ".join(f"vs {m['opponent']} {_pct(m['win_rate'], m['win_rate_se'])} %"
                          for e in evals for m in e["matchups"])
        rows.append(f"| {folder.name} | {r['game']} | {r['cpu_minutes']:g} | "
                    f"{r.get('cpu_seconds_watchdog', r['cpu_seconds']):.0f} | {r['learner_steps']} | "
                    f"{r['games']:,} | {cells} |")
    if not rows:
        return ["No OpenSpiel run evaluated yet (`python -m studies.alphazero.openspiel_az train ...` and "
                "`... eval ... --json FOLDER/eval.json`)."]
    return ["| run | game | CPU min | CPU s used | learner steps | self-play games | harness results |",
            "|---|---|---:|---:|---:|---:|---|"] + rows


def _unfinished(out: Path, games, seeds: int) -> list[str]:
    left = []
    for arena, minutes, learner, seed in contest.tasks(games, seeds):
        folder = contest.folder_of(out, arena.game, minutes, learner, seed)
        if not (folder / "result.json").exists():
            state = "failed (error.txt)" if (folder / "error.txt").exists() else (
                "started" if (folder / "run.json").exists() else "not started")
            left.append(f"{arena.game} {minutes:g} min {learner} seed {seed}: {state}")
    return left


def _calibration_lines(out: Path) -> list[str]:
    path = out / "calibration.json"
    if not path.exists():
        return []
    table = json.loads(path.read_text())
    lines = ["| game / learner | units per CPU second | measured | load |", "|---|---:|---|---:|"]
    for key, v in sorted(table.items()):
        unit = "episodes" if key.endswith("td-farl") else "steps"
        lines.append(f"| {key} | {v['units_per_cpu_second']:,.0f} {unit} | {v['measured']} | {v['load']} |")
    return lines


def report(out, games, seeds: int = 3, png_dir: Path | None = None, old_text: str = "") -> tuple[str, list]:
    """The page's Markdown and its figures ``[(png path, panels)]``."""
    out = Path(out)
    answer = ""
    if ANSWER[0] in old_text and ANSWER[1] in old_text:
        answer = old_text[old_text.index(ANSWER[0]):old_text.index(ANSWER[1]) + len(ANSWER[1])]
    lines = ["# AlphaZero against n-tuple TD-FARL at equal CPU time", "",
             "Does n-tuple TD-FARL with a search at test time match AlphaZero at a fraction of its training "
             "cost (Scheiermann & Konen 2022 call their MCTS wrapper AlphaZero-inspired, search only at test "
             "time)? Every contestant learns by self-play for the same CPU minutes on one core and is measured "
             "by one harness (`farl_agents.evaluate`).", "",
             answer or f"{ANSWER[0]}\n*(the reading of the figures goes here)*\n{ANSWER[1]}", "",
             "Made by (resumable; each finished run is kept in its folder; under docs/results the folders' "
             "results, curves and ladders are kept in git, their agent files and checkpoints are not):", "", "```",
             f"python -m studies.alphazero.contest --out {out}            # train and evaluate",
             f"python -m studies.alphazero.contest --out {out} --ladder   # the ladders",
             f"python -m studies.alphazero.contest --out {out} --report docs/results/alphazero_vs_ntuple.md",
             "```", "",
             f"Page written {datetime.date.today().isoformat()} on {platform.machine()} (2 cores; each run on "
             f"one, torch single-threaded).", "",
             "## Protocol", "",
             "| contestant | training (`farl train --algo`) | play |", "|---|---|---|",
             "| td-farl | n-tuple TD-FARL, the paper preset (Konen & Bagheri 2020) | greedy on its afterstate values |",
             f"| td-farl+mcts | the same agent | PUCT, {contest.SIMULATIONS} simulations per move, the agent's values "
             "(Scheiermann & Konen 2022) |",
             "| alphazero | farl's AlphaZero (Silver et al. 2018): batched PUCT self-play, residual CNN | "
             f"PUCT, {contest.SIMULATIONS} simulations per move, its network |",
             "| descent | descent (Cohen-Solal 2020) | UBFMs on f_θ, 200 iterations per move (`farl eval`'s) |",
             "| maskable-ppo | sb3-contrib MaskablePPO against a frozen copy of itself | its policy |", "",
             "Budgets are CPU minutes of training (evaluations and compiling excluded). AlphaZero and descent "
             "count them in CPU seconds of their process. TD-FARL's episodes and PPO's steps are the count the "
             f"learner's own speed buys: each was measured once per game over {contest.CALIBRATION_SECONDS:g} CPU "
             "seconds (table at the end). The column *training s* is the run's own clock of training: CPU seconds "
             "for AlphaZero and descent, wall seconds for TD-FARL and PPO, which exceed their CPU time when other "
             "work shares the two cores (their budget is the count, not the clock). The "
             "final evaluation plays the agent file as `farl eval` plays it against each reference, "
             "in every seat; win rate with draws ½, mean ± s.e. over the runs (seeds; with one run, its s.e. over "
             "its games).", ""]
    figures = []
    for g in games:
        arena = contest.ARENAS[g]
        results = contest.finished(out, g)
        lines += [f"## {_title(arena)}", "",
                  f"Budgets {', '.join(f'{m:g}' for m in arena.budgets)} CPU minutes; references "
                  f"{', '.join(arena.references)}, {arena.final_games} games per seat each, openings "
                  f"`{arena.starts}`.", ""]
        if not results:
            lines += ["No finished run yet.", ""]
            continue
        lines += _game_table(arena, results) + [""]
        panel = _curve_panel(arena, results)
        if panel is not None and png_dir is not None:
            png = png_dir / f"alphazero_vs_ntuple_{g}.png"
            figures.append((png, [panel]))
            lines += [f"![{g} curves]({png.name})", ""]
        lines += ["### Ladder", ""] + _ladder_lines(out, arena) + [""]
    lines += ["## The outside reference: OpenSpiel's AlphaZero", "", OPENSPIEL_PROTOCOL, "",
              *_openspiel_lines(out), "",
              "Made by `python -m studies.alphazero.openspiel_az train GAME --cpu-minutes M --seed S --out "
              "runs/alphazero/openspiel/NAME` and `python -m studies.alphazero.openspiel_az eval "
              "runs/alphazero/openspiel/NAME --vs ... --games 25 --starts ... --json "
              "runs/alphazero/openspiel/NAME/eval.json` (the contest's references and openings).", ""]
    left = _unfinished(out, games, seeds)
    if left:
        lines += ["## Still to run", "", "The same command continues with these:", ""] + [f"- {x}" for x in left] \
            + [""]
    cal = _calibration_lines(out)
    if cal:
        lines += ["## Calibration of the counted budgets", ""] + cal + [""]
    return "\n".join(lines), figures


def write_report(out, page, games=None, seeds: int = 3) -> Path:
    """Write the page (and its PNGs beside it) from the contest in ``out``."""
    page = Path(page)
    games = list(contest.ARENAS) if games is None else list(games)
    old = page.read_text() if page.exists() else ""
    text, figures = report(out, games, seeds, page.parent, old)
    for png, panels in figures:
        plot_panels(png, panels)
    page.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(page, "w") as fh:
        fh.write(text)
    return page
