"""Table 1 report: ``OUT/<prefix>.md``, the README block between its markers and the learning curves.

Everything is read from the run folders under ``OUT`` (``result.json`` of
finished runs, ``run.json``, ``checkpoint.json`` and ``curve.csv``), never
from agent files, so a checkout without the trained agents writes the same
table. Nothing here trains; :mod:`studies.table1.table1` calls
:func:`tabulate` after its runs.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_agents.runs import read_curve
from farl_agents.runs.curve import Panel, Reference, Series, plot_panels
from studies.formatting import mean_se
from studies.table1.table1_rows import (
    GROUPS,
    NPLAYER_PLY_ROWS,
    NPLAYER_ROWS,
    PAPER_ROW_NOTES,
    PAPER_TABLE1,
    PLY,
    PLY_ROWS,
    ROWS,
    Row,
    agents_root,
    find_row,
    paper_episodes,
    plan,
    prefix,
    runs_dir,
)

README_START = "<!-- table1:{budget} start -->"
README_END = "<!-- table1:{budget} end -->"
#: Size in inches of a learning-curve figure.
FIGSIZE = (7, 4.2)


# ------------------------------------------------------------- reading the runs
def finished_results(out: Path, budget: str, row: Row) -> list[dict]:
    """``result.json`` of every finished run of ``row`` under ``budget`` (all seeds found on disk)."""
    found = []
    for path in sorted(runs_dir(out, budget, row).glob("*-seed*/result.json")):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, json.JSONDecodeError):
            continue
    return found


def unfinished_progress(folder: Path, row: Row, episodes: int) -> str | None:
    """How far an unfinished run got: episodes of its last checkpoint and its last curve point.

    Only facts read from the run folder (``checkpoint.json``, ``curve.csv``);
    None when the run has no checkpoint yet.
    """
    try:
        marker = json.loads((folder / "checkpoint.json").read_text())
        done = int(marker["episodes_done"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    text = f"{done:,} of {episodes:,} episodes at its last checkpoint"
    opp = row.curve_opponent
    try:
        points = [r for r in read_curve(folder / "curve.csv")
                  if r.get(f"score_{opp.name}") is not None and r["episode"] <= done]
    except (OSError, ValueError, KeyError):
        points = []
    if points:
        last = points[-1]
        shown = _fmt(last[f"score_{opp.name}"], None, row.percent, row.big)
        what = "average score" if row.alone else opp.label
        text += f"; latest curve point (episode {last['episode']:,}): {shown} ({what})"
    return text


# ------------------------------------------------------------- numbers and cells
def _fmt(x: float, se, percent: bool, big: bool) -> str:
    if percent:
        s = f"{100 * x:.1f} %"
        return s if se is None else f"{100 * x:.1f} % ± {100 * se:.1f} %"
    if big:
        return f"{x:,.0f}" if se is None else f"{x:,.0f} ± {se:,.0f}"
    return f"{x:.3f}" if se is None else f"{x:.3f} ± {se:.3f}"


def _fmt_paper(value: tuple, percent: bool, big: bool) -> str:
    x, se = value
    if percent:
        return f"{100 * x:g} % ± {100 * se:g} %"
    if big:
        return f"{x:,.0f} ± {se:,.0f}"
    return f"{x:g} ± {se:g}"


def _minutes(seconds: float) -> str:
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def cell_lines(row: Row, res: list[dict]) -> list[dict]:
    """One line of the table per opponent of ``row``: the paper's cells and ours (formatted) from the
    finished runs ``res``; ``runs`` counts our runs behind the line (FARL plus no-FARL)."""
    percent, big = row.percent, row.big
    out = []
    for opp in row.opponents:
        paper = PAPER_TABLE1.get((row.paper_key, opp.name))
        cells, runs = [], 0
        for farl in (True, False):
            if farl not in row.farl_cells:   # a column the row never trains (per ply: FARL has no effect)
                cells.append("--")
                continue
            vals = [r["scores"][opp.name] for r in res if r["farl"] == farl and opp.name in r["scores"]]
            m, se, n = mean_se(vals)
            runs += n
            cells.append("not run" if n == 0 else f"{_fmt(m, se, percent, big)} ({n} run{'s' if n > 1 else ''})")
        skipped = (any(opp.name in r.get("skipped", ()) for r in res)
                   and all(opp.name not in r["scores"] for r in res))
        out.append({"label": opp.label, "opponent": opp.name,
                    "paper_farl": "--" if paper is None else _fmt_paper(paper[0], percent, big),
                    "paper_nofarl": "--" if paper is None else _fmt_paper(paper[1], percent, big),
                    "farl": cells[0], "nofarl": cells[1],
                    "runs": runs, "skipped_everywhere": skipped})
    return out


# ------------------------------------------------------------- the README block
def readme_table(out: Path, budget: str, rows: list[Row] | None = None) -> str:
    """The short form of ``OUT/<prefix>.md`` for the README: game, opponent, the paper's cells and ours,
    for ``rows`` (default all), only lines with at least one finished run."""
    lines = ["| game | vs. | paper FARL | paper no-FARL | ours FARL | ours no-FARL |",
             "|---|---|---|---|---|---|"]
    for row in rows or ROWS.values():
        for line in cell_lines(row, finished_results(out, budget, row)):
            if line["runs"]:
                lines.append(f"| {row.title} | {line['label']} | {line['paper_farl']} | {line['paper_nofarl']} | "
                             f"{line['farl']} | {line['nofarl']} |")
    return "\n".join(lines)


def update_readme(readme: Path, out: Path, budget: str, rows: list[Row] | None = None) -> Path:
    """Replace the block between the ``table1:<budget>`` markers of ``readme`` by ``readme_table``."""
    readme = Path(readme)
    text = readme.read_text()
    start, end = README_START.format(budget=budget), README_END.format(budget=budget)
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"{readme} has no table block for the {budget} budget: put the lines {start} and {end} "
                         f"where the table belongs")
    atomic_write_text(readme, text[:i + len(start)] + "\n" + readme_table(out, budget, rows) + "\n" + text[j:])
    return readme


# ------------------------------------------------------------- the markdown file
def write_table(out: Path, budget: str, command: str | None, seconds: float | None = None,
                group: str = "paper") -> Path:
    """Write ``OUT/<prefix>.md`` (``group="nplayer"``: the N-player rows' file) from every finished run on
    disk; returns its path."""
    out = Path(out)
    if group == "nplayer":
        return _write_nplayer_table(out, budget, command, seconds)
    if group == "ply":
        return _write_ply_table(out, budget, command, seconds)
    lines = [f"# Table 1 reproduction ({budget} budget)", "",
             "TD-FARL (Alg. 2) against no-FARL, Konen & Bagheri 2020 Table 1 beside ours. Each of our",
             "cells is the mean ± standard error of the mean over the finished training runs (the number of",
             "runs is given per cell; one run has no error bar). Win rates count a draw as half a win; against",
             "a perfect opponent 50 % is the best possible. See `studies/table1/table1_rows.py` for the",
             "protocol and `docs/notes/learner_spec.md` §13-14 for the paper's settings.", ""]
    if budget != "paper":
        lines += [f"**This is the `{budget}` budget: fewer training episodes than the paper for the slower games "
                  "(see the episodes column) and far fewer evaluation games, so its numbers are rough.**", ""]
    lines += ["| game | evaluated vs. | paper FARL | paper no-FARL | ours FARL | ours no-FARL | episodes per run "
              "(paper) | time per row |",
              "|---|---|---|---|---|---|---|---|"]
    notes = []
    for row in ROWS.values():
        res = finished_results(out, budget, row)
        notes += _unfinished_notes(out, budget, row, res)
        lines += _row_lines(row, res, plan(row, budget).episodes, notes)
    lines += ["", "Protocol per row (games are per seat and opponent in the final evaluation):", ""]
    lines += [_protocol_line(row, budget) for row in ROWS.values()]
    if budget == "paper":
        notes += [PAPER_ROW_NOTES[key] for key in ROWS if key in PAPER_ROW_NOTES]
    if notes:
        lines += [""] + [f"* {n}" for n in notes]
    lines += ["", f"{TIME_PER_ROW} Runs ran in parallel. Learning curves: `{prefix(budget)}_<row>.png`; the runs:",
              f"`{prefix(budget)}_runs/`.", ""]
    lines += _agents_note(out, budget)
    return _finish(out, budget, "paper", lines, command, seconds)


def _finish(out: Path, budget: str, group: str, lines: list, command: str | None, seconds: float | None) -> Path:
    """Append the commands and the stamp to ``lines`` and write them to ``OUT/<prefix>.md``."""
    made_by = _commands(out, budget, group)
    if made_by:
        lines += ["The runs were started by these commands; each continues its unfinished runs and, with",
                  "`--runs N`, adds seeds (finished runs are cached). Today's farl writes into this page's folder",
                  "only when `--out` names it (`--out docs/results` for the shipped pages):", "", "```", *made_by,
                  "```", ""]
    if command:
        lines += [f"This file was written by `{command}`.", ""]
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    extra = f", this invocation took {_minutes(seconds)}" if seconds is not None else ""
    lines += [f"Written {stamp} by farl {farl_envs.__version__} on {os.cpu_count()} CPU(s){extra}.", ""]
    path = out / f"{prefix(budget, group)}.md"
    atomic_write_text(path, "\n".join(lines))
    return path


def _write_nplayer_table(out: Path, budget: str, command: str | None, seconds: float | None) -> Path:
    """``OUT/table1_nplayer[_<budget>].md``: the N-player rows, TD-FARL against no-FARL (no paper figures)."""
    shown = "long runs: the presets' episodes, `--budget paper`" if budget == "paper" else f"{budget} budget"
    lines = [f"# Table 1 for N-player games ({shown}), beyond the paper", "",
             "TD-FARL (Alg. 2 of Konen & Bagheri 2020) against no-FARL on 3-player games the paper did not play,",
             "with the settings of `farl_agents.learners.presets.nplayer_config`. Each cell is the agent's mean",
             "final reward over its games in every seat (the opponent fills the two other seats), then the mean",
             "± standard error of the mean over the finished training runs (their number in brackets). Sim,",
             "Yavalath and EWN score +1 for a win and -1 for a loss; Chinese Checkers +2 for the winner and -1 for",
             "the others, 0 for all when the move limit ends the game. The per-ply column trains the same",
             "settings with the TD chain through every ply (every player's tables learn on every ply) and",
             "without final adaptation, which has nothing to do on that chain; `--` where the row has no such",
             "column.", "",
             "| game | evaluated vs. | FARL | no-FARL | per ply (no FARL) | episodes per run | time per row |",
             "|---|---|---|---|---|---|---|"]
    notes = []
    for row in NPLAYER_ROWS.values():
        res = finished_results(out, budget, row)
        notes += _unfinished_notes(out, budget, row, res)
        ply_row = NPLAYER_PLY_ROWS.get(row.key + PLY)
        ply_res = finished_results(out, budget, ply_row) if ply_row else []
        if ply_row:
            notes += _unfinished_notes(out, budget, ply_row, ply_res)
        ply_lines = cell_lines(ply_row, ply_res) if ply_row else [{"nofarl": "--"}] * len(row.opponents)
        for i, (line, ply_line) in enumerate(zip(cell_lines(row, res), ply_lines)):
            timing = _row_time(res + ply_res) if i == 0 else ""
            lines.append(f"| {row.title if i == 0 else ''} | {line['label']} | {line['farl']} | {line['nofarl']} | "
                         f"{ply_line['nofarl']} | {plan(row, budget).episodes:,} | {timing} |")
    lines += ["", "Protocol per row (games are per seat and opponent in the final evaluation):", ""]
    lines += [_protocol_line(row, budget) for row in NPLAYER_ROWS.values()]
    lines += ["* A per-ply row (`<row>-ply`) plays its row's protocol."]
    if notes:
        lines += [""] + [f"* {n}" for n in notes]
    lines += ["", f"{TIME_PER_ROW} Runs ran in parallel. Learning curves: `{prefix(budget, 'nplayer')}_<row>.png`;",
              f"the runs: `{prefix(budget, 'nplayer')}_runs/`.", ""]
    lines += _agents_note(out, budget, "nplayer")
    return _finish(out, budget, "nplayer", lines, command, seconds)


def _write_ply_table(out: Path, budget: str, command: str | None, seconds: float | None) -> Path:
    """``OUT/table1_ply[_<budget>].md``: the paper's rows trained with the per-ply TD chain, beside the paper's
    figures and our player-centred runs of the same budget."""
    lines = [f"# Table 1 with the per-ply TD chain ({budget} budget), beyond the paper", "",
             "Konen & Bagheri 2020's learners are player-centred: a player's afterstate learns from that player's",
             "next afterstate, so the last afterstate of the player who did not move last never sees the final",
             "reward unless final adaptation (FARL) gives it. Thill, Bagheri, Koch & Konen 2014 run one TD chain",
             "through every ply instead (`td_chain=\"ply\"`): each ply's afterstate learns from the next ply's,",
             "valued from the other side, so that afterstate learns from the final ply and its reward without",
             "any extra step, and final adaptation has nothing left to do (farl skips it on that chain). With",
             "three players (Nim3P) there is no other side to negate: every player's values learn on every ply,",
             "each from its own value of the next ply's afterstate, kept per (valuer, maker) pair since a board",
             "need not show who made it. This table trains the paper's rows with",
             "that chain and without FARL, under the same settings, budgets and evaluation (a λ per entry becomes",
             "its square root per ply, its cube root with three players: the same decay per round of plies). The",
             f"player-centred columns are our runs of `{prefix(budget)}.md`. Each cell is the mean ±",
             "standard error over the finished runs, their number in brackets; win rates count a draw as half",
             "a win.", "",
             "| game | evaluated vs. | paper FARL | paper no-FARL | player-centred FARL | player-centred no-FARL | "
             "per ply (no FARL) | episodes per run | time per row |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes, shown = [], []
    for row in PLY_ROWS.values():
        res = finished_results(out, budget, row)
        if not res and not list(runs_dir(out, budget, row).glob("*-seed*/run.json")):
            continue
        shown.append(row)
        notes += _unfinished_notes(out, budget, row, res)
        base = cell_lines(ROWS[row.paper_key], finished_results(out, budget, ROWS[row.paper_key]))
        episodes = f"{plan(row, budget).episodes:,}"
        for i, (line, centred) in enumerate(zip(cell_lines(row, res), base)):
            first = i == 0
            notes += _skipped_note(row, line)
            timing = _row_time(res) if first else ""
            lines.append(f"| {row.title if first else ''} | {line['label']} | {line['paper_farl']} | "
                         f"{line['paper_nofarl']} | {centred['farl']} | {centred['nofarl']} | {line['nofarl']} | "
                         f"{episodes if first else ''} | {timing} |")
    lines += ["", "Protocol per row (games are per seat and opponent in the final evaluation):", ""]
    lines += [_protocol_line(row, budget) for row in shown]
    if notes:
        lines += [""] + [f"* {n}" for n in notes]
    lines += ["", f"Rows without a run are left out. {TIME_PER_ROW} Learning curves beside the player-centred ones:",
              f"`{prefix(budget, 'ply')}_<row>.png`; the runs: `{prefix(budget, 'ply')}_runs/`.", ""]
    lines += _agents_note(out, budget, "ply")
    return _finish(out, budget, "ply", lines, command, seconds)


def _row_lines(row: Row, res: list[dict], episodes: int, notes: list) -> list[str]:
    """The table lines of ``row`` (one per opponent); notes on opponents never played go to ``notes``."""
    paper = paper_episodes(row)
    shown = f"{episodes:,}" + ("" if episodes == paper else f" ({paper:,})")
    lines = []
    for i, line in enumerate(cell_lines(row, res)):
        first = i == 0
        notes += _skipped_note(row, line)
        timing = _row_time(res) if first else ""
        lines.append(f"| {row.title if first else ''} | {line['label']} | {line['paper_farl']} | "
                     f"{line['paper_nofarl']} | {line['farl']} | {line['nofarl']} | "
                     f"{shown if first else ''} | {timing} |")
    return lines


TIME_PER_ROW = ("Time per row is the training time of its finished runs and their final evaluation added up "
                "(numba compiling and the curve points' evaluations left out; runs recorded before `result.json` "
                "had `compile_seconds` count their whole wall time, compiling included).")
"""The note under each table on what its "time per row" column counts."""


def _row_time(res: list[dict]) -> str:
    """The "time per row" cell: the finished runs' training time and final evaluation (compiling excluded; see
    :data:`TIME_PER_ROW`) added up, and per run."""
    if not res:
        return ""
    total = sum(r.get("train_seconds", 0) + r.get("eval_seconds", 0) for r in res)
    return f"{_minutes(total)} ({_minutes(total / len(res))} per run)"


def _skipped_note(row: Row, line: dict) -> list[str]:
    """The note for an opponent no run of ``row`` could play (Edax, when it is not installed)."""
    if not line["skipped_everywhere"]:
        return []
    return [f"{row.title} vs {line['label']}: not played ({line['opponent']} is not installed here)."]


def _unfinished_notes(out: Path, budget: str, row: Row, res: list[dict]) -> list[str]:
    """Notes on the runs of ``row`` under ``out`` that have a ``run.json`` but no result yet."""
    started = sorted(runs_dir(out, budget, row).glob("*-seed*/run.json"))
    unfinished = len(started) - len(res)
    if unfinished <= 0:
        return []
    notes = [f"{row.title}: {unfinished} more run{'s are' if unfinished > 1 else ' is'} unfinished "
             f"(checkpointed or failed; run the command again to continue)."]
    episodes = plan(row, budget).episodes
    for run_json in started:
        folder = run_json.parent
        progress = None if (folder / "result.json").exists() else unfinished_progress(folder, row, episodes)
        if progress:
            notes.append(f"{row.title}, unfinished run `{folder.name}`: {progress}.")
    return notes


def _protocol_line(row: Row, budget: str) -> str:
    p = plan(row, budget)
    alone = row.alone
    per = "" if alone else " per seat"
    vs = "" if alone else f" vs {row.curve_opponent.label}"
    against = ", ".join(o.label for o in row.opponents) if not alone else "nobody (greedy play)"
    return (f"* {row.title}: starts `{row.starts}`, {p.final_games} games{per} against {against}; "
            f"curve points every {p.eval_every:,} episodes ({p.curve_games} "
            f"game{'s' if p.curve_games > 1 else ''}{per}{vs}).")


def _agents_note(out: Path, budget: str, group: str = "paper") -> list[str]:
    """Where the trained agents are when they are not in ``out`` (the published results folder)."""
    agents = agents_root(out)
    if agents == Path(out):
        return []
    where = f"{agents.as_posix()}/{prefix(budget, group)}_runs/"
    return ["The trained agents are not kept here (nor in git): the runs train under",
            f"`{where}` and copy their settings, curve, checkpoint marker and results to",
            f"`{prefix(budget, group)}_runs/`. A finished run counts from its `result.json` alone; an unfinished one",
            f"whose folder under `{where}` is missing (a fresh clone) starts again from episode 0.", ""]


def _commands(out: Path, budget: str, group: str = "paper") -> list[str]:
    """The commands that started the runs under ``out`` (from their ``run.json``), sorted."""
    made_by = set()
    for run_json in (Path(out) / f"{prefix(budget, group)}_runs").glob("*/*-seed*/run.json"):
        try:
            made_by.add(json.loads(run_json.read_text()).get("command"))
        except (OSError, json.JSONDecodeError):
            continue
    made_by.discard(None)
    return sorted(made_by)


# ------------------------------------------------------------- curves
def _curve_series(out: Path, budget: str, row: Row) -> dict:
    """farl -> (episodes, mean, s.e., runs) of the first opponent's score over the runs' curve points."""
    col = f"score_{row.curve_opponent.name}"
    series = {}
    for farl in (True, False):
        by_episode = {}
        for path in sorted(runs_dir(out, budget, row).glob(f"{'farl' if farl else 'nofarl'}-seed*/curve.csv")):
            try:
                for r in read_curve(path):
                    if r.get(col) is not None:
                        by_episode.setdefault(r["episode"], []).append(r[col])
            except (OSError, ValueError, KeyError):
                continue
        if by_episode:
            xs = sorted(by_episode)
            stats = [mean_se(by_episode[x]) for x in xs]
            series[farl] = (np.array(xs), np.array([s[0] for s in stats]),
                            np.array([s[1] or 0.0 for s in stats]), max(s[2] for s in stats))
    return series


def plot_row(out: Path, budget: str, row: Row) -> Path | None:
    """Learning curves of ``row`` (first opponent): mean ± s.e. over runs, FARL vs no-FARL, paper as dashes.

    A per-ply row draws its one column beside the FARL and no-FARL curves of the player-centred row it repeats.
    """
    series = _curve_series(out, budget, row)
    if not series:
        return None
    opp = row.curve_opponent
    k = 100.0 if row.percent else 1.0
    paper = PAPER_TABLE1.get((row.paper_key, opp.name))
    ply = row.per_ply
    colors = {True: "tab:blue", False: "tab:orange"}
    centred = _curve_series(out, budget, find_row(row.paper_key)) if ply else series
    drawn = [(centred, farl, f"{'player-centred ' if ply else ''}{'FARL' if farl else 'no-FARL'}", colors[farl])
             for farl in (True, False)]
    if ply:
        drawn.append((series, False, "per ply (no FARL)", "tab:green"))
    lines = []
    for source, farl, name, color in drawn:
        if farl in source:
            x, m, se, n = source[farl]
            lines.append(Series(f"{name} ({n} run{'s' if n > 1 else ''})", x, k * m, k * (m - se), k * (m + se),
                                color=color))
    references = [] if paper is None else [
        Reference(k * paper[0 if farl else 1][0], f"paper {'FARL' if farl else 'no-FARL'} (final)", colors[farl])
        for farl in (True, False)]
    what = "win rate (%)" if row.percent else "mean score"
    compared = "per-ply chain vs player-centred" if ply else "TD-FARL vs no-FARL"
    panel = Panel(lines, references=references, xlabel="training episodes",
                  ylabel=f"{what} vs {opp.label}" if opp.name != "alone" else "average score (greedy)",
                  title=f"{row.title}: {compared}\n({budget} budget, mean ± s.e. over runs)")
    path = Path(out) / f"{prefix(budget, row.group)}_{row.key}.png"
    plot_panels(path, [panel], panel_size=FIGSIZE)
    return path


def tabulate(out: Path, budget: str, rows: list[Row], command: str | None, seconds: float | None = None,
             log=print) -> Path:
    """Write ``OUT/<prefix>.md`` and the curves of ``rows`` from the runs on disk, and log the short
    table of ``rows``; returns the path of the markdown file."""
    groups = [g for g in GROUPS if any(r.group == g for r in rows)] or ["paper"]
    md = [write_table(out, budget, command, seconds=seconds, group=g) for g in groups][0]
    for row in rows:
        plot_row(out, budget, row)
    log("\n" + readme_table(out, budget, rows) + "\n")
    log(f"wrote {md} (the full table) and the learning curves {out / prefix(budget, groups[0])}_<row>.png")
    return md

