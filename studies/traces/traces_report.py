"""The page of the eligibility-trace study (Thill, Bagheri, Koch & Konen 2014, Table I and Fig. 6).

From each run's ``success.csv`` (:mod:`studies.traces.traces`): the success curve smoothed by a
centred moving mean over :data:`SMOOTH_POINTS` measurements (the paper smooths "to dampen fluctuations"
without saying how; this is our choice), the *time to learn* = the training games at which the smoothed
curve crosses 80 % for the last time (linear interpolation between measurements; none if it ends below),
the training minutes at that point (interpolated the same way), and the *asymptotic success* = the mean raw
success over the last half of the run, at most its last 500,000 games (the paper: the last 500,000 of
2,000,000). Medians per variant go beside the paper's; the box plot is its Fig. 6.
"""
from __future__ import annotations

from pathlib import Path
from statistics import median

import numpy as np

from farl_agents.atomic import atomic_write_text
from studies.formatting import pct
from studies.traces.traces_rows import CENTRE, PLY, VARIANTS

SMOOTH_POINTS = 5
ASYMPTOTIC_GAMES = 500_000


def smooth(y, points: int = SMOOTH_POINTS) -> np.ndarray:
    """Centred moving mean over ``points`` measurements (fewer at the ends)."""
    y = np.asarray(y, dtype=float)
    h = points // 2
    return np.array([y[max(0, i - h):i + h + 1].mean() for i in range(len(y))])


def last_crossing(x, y, level: float):
    """The x at which ``y`` rises through ``level`` for the last time (interpolated); None if it ends below.

    A curve that never goes below ``level`` crossed it at its first point.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(y) == 0 or y[-1] < level:
        return None
    below = np.nonzero(y < level)[0]
    if len(below) == 0:
        return float(x[0])
    i = below[-1]
    return float(x[i] + (level - y[i]) / (y[i + 1] - y[i]) * (x[i + 1] - x[i]))


def first_reach(x, y, level: float):
    """The first x at which ``y`` is at or above ``level``; None if it never is."""
    at = np.nonzero(np.asarray(y, dtype=float) >= level)[0]
    return float(np.asarray(x, dtype=float)[at[0]]) if len(at) else None


#: a measurement below this after the smoothed curve first reached the level counts as a relapse
RELAPSE_BELOW = 0.5


def run_summary(rows: list[dict], episodes: int, level: float = 0.8) -> dict:
    """Time to learn (games, training minutes), when the smoothed curve first reached ``level``, the share of
    later raw measurements below :data:`RELAPSE_BELOW` (relapses), asymptotic and final success of one run."""
    ep = np.array([r["episode"] for r in rows], dtype=float)
    sec = np.array([r["train_seconds"] for r in rows], dtype=float)
    raw = np.array([r["success"] for r in rows], dtype=float)
    s = smooth(raw)
    games = last_crossing(ep, s, level)
    first = first_reach(ep, s, level)
    later = raw[ep > first] if first is not None else raw[:0]
    # the relapses whose opening move was recorded, and how many of them opened off the centre column
    fallen = [r.get("opening") for r in rows if first is not None and r["episode"] > first
              and r["success"] < RELAPSE_BELOW and r.get("opening") is not None]
    minutes = None
    if games is not None:
        minutes = float(np.interp(games, ep, sec)) / 60
    window = min(ASYMPTOTIC_GAMES, episodes / 2)
    tail = [r["success"] for r in rows if r["episode"] > episodes - window]
    return {"time_to_learn": games, "minutes_to_learn": minutes, "first_reach": first,
            "relapses": float(np.mean(later < RELAPSE_BELOW)) if len(later) else None,
            "asymptotic": float(np.mean(tail)) if tail else None,
            "final_success": rows[-1]["success"] if rows else None, "measurements": len(rows),
            "relapse_openings": [sum(o != CENTRE for o in fallen), len(fallen)]}


def collect(out, budget: str, variants: list[str]) -> dict:
    """``{variant: [per-run dict]}``, summarised from each run's success.csv; a run is finished when it has a
    result.json (whose summary, written at the end, is recomputed here so that every run has the same fields)."""
    import json

    from studies.traces.traces_rows import BUDGETS, prefix, read_success

    plan = BUDGETS[budget]
    found = {}
    for v in variants:
        runs = []
        for folder in sorted((Path(out) / f"{prefix(budget)}_runs" / v).glob("seed*")):
            rows = read_success(folder / "success.csv")
            if (folder / "result.json").is_file():
                result = json.loads((folder / "result.json").read_text())
                runs.append({**result, **run_summary(rows, result["episodes"]), "finished": True})
            else:
                if rows:
                    runs.append({**run_summary(rows, plan.episodes), "finished": False,
                                 "episodes_done": rows[-1]["episode"], "seed": int(folder.name.removeprefix("seed"))})
        found[v] = runs
    return found


def openings_tally(found: dict) -> str:
    """One sentence: of the relapses whose opening was recorded, in every run on the page, how many opened off
    the centre ("" while no run has recorded one)."""
    off = known = runs = 0
    for variant_runs in found.values():
        for r in variant_runs:
            o, k = r.get("relapse_openings") or (0, 0)
            off, known, runs = off + o, known + k, runs + (k > 0)
    if not known:
        return ""
    return (f" So far, in the {runs} run{'s' if runs != 1 else ''} with relapses and recorded openings, {off} of "
            f"their {known} relapses opened off the centre.")


def _openings(run: dict) -> str:
    off, known = run.get("relapse_openings") or (0, 0)
    return f", relapses that opened off the centre: {off} of {known}" if known else ""


def _fmt(x, unit: str = "") -> str:
    if x is None:
        return "–"
    return f"{x:,.0f}{unit}" if unit != " min" else f"{x:.1f}{unit}"


def _med(values):
    values = [v for v in values if v is not None]
    return median(values) if values else None


def claims(meds: dict, suffix: str = "", firsts: dict | None = None) -> list[str]:
    """The paper's two main claims, judged on the medians (finished runs that reached 80 % only) of the rows
    whose keys end in ``suffix`` (``""``: farl's player-centred chain; ``"-ply"``: the per-ply chain).

    ``firsts``: each variant's median first measurement at 80 %; the halving claim then also gives that ratio,
    which one fall of the curve late in a run does not move (the time to learn is its *last* crossing)."""
    out = []
    chain = " (per-ply chain)" if suffix else ""
    std, et, rr = meds.get("tcl-std" + suffix), meds.get("tcl-et" + suffix), meds.get("tcl-rr" + suffix)
    if std and (et or rr):
        parts = [f"TCL-STD / TCL[et] = {std / et:.2f}" if et else None,
                 f"TCL-STD / TCL[rr] = {std / rr:.2f}" if rr else None]
        ratio = std / et if et else std / rr
        verdict = ("holds" if ratio >= 1.8 else "holds in part, faster but not twice as fast" if ratio > 1.1
                   else "does not hold")
        first = ""
        f_std, f_et = (firsts or {}).get("tcl-std" + suffix), (firsts or {}).get("tcl-et" + suffix)
        if f_std and f_et:
            first = f"; on the first measurement at 80 %: TCL-STD / TCL[et] = {f_std / f_et:.2f}"
        out.append(f"* Traces halve the time to learn{chain}: {verdict} ({'; '.join(p for p in parts if p)}; "
                   f"paper 430,000 / 230,000 = 1.87{first}).")
    else:
        out.append(f"* Traces halve the time to learn{chain}: not decided yet (TCL-STD and a traced TCL variant "
                   "need finished runs that reached 80 %).")
    traced = {k: v for k, v in meds.items()
              if k in tuple(b + suffix for b in ("tcl-et", "tcl-res", "tcl-rep", "tcl-rr")) and v}
    if rr and len(traced) > 1:
        best = min(traced, key=traced.get)
        verdict = "holds" if best == "tcl-rr" + suffix else f"does not hold (fastest: {VARIANTS[best][0]})"
        out.append(f"* [rr] is fastest among the 70×8 traced TCL variants{chain}: {verdict}.")
    else:
        out.append(f"* [rr] is fastest{chain}: not decided yet (needs TCL[rr] and another traced variant).")
    return out


def _cost(out, budget: str, variants: list[str]) -> str:
    """One line: the measured wall seconds per measurement and per 10,000 training games (all runs so far)."""
    from studies.traces.traces_rows import prefix, read_success

    evals, trains = [], []
    for v in variants:
        for path in (Path(out) / f"{prefix(budget)}_runs" / v).glob("seed*/success.csv"):
            rows = read_success(path)
            evals += [r["eval_seconds"] for r in rows]
            trains += [(b["train_seconds"] - a["train_seconds"]) / (b["episode"] - a["episode"]) * 10_000
                       for a, b in zip(rows, rows[1:]) if b["episode"] > a["episode"]]
    if not evals:
        return ""
    return (f"Measured over the runs so far (wall seconds, on whatever else the machine ran): one measurement "
            f"(a success rate) {np.mean(evals):.1f} s on average ({len(evals)} measurements); 10,000 training "
            f"games {np.mean(trains) if trains else float('nan'):.1f} s.")


def box_plot(found: dict, labels: dict, paper: dict, budget_games: int, path: Path) -> bool:
    """Fig. 6: time to learn per variant (runs whose curve ends below 80 % drawn at the budget, as x)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k, runs in found.items() if runs]
    if not keys:
        return False
    fig, ax = plt.subplots(figsize=(1.4 * len(keys) + 2, 4))
    data = [[r["time_to_learn"] for r in found[k] if r.get("finished") and r["time_to_learn"] is not None]
            or [np.nan] for k in keys]
    ax.boxplot(data, showfliers=True)
    for i, k in enumerate(keys, start=1):
        missed = [r for r in found[k] if r.get("finished") and r["time_to_learn"] is None]
        if missed:
            ax.plot([i] * len(missed), [budget_games] * len(missed), "kx")
        ax.plot([i], [paper[k][0]], "rD", label="paper (median of 20)" if i == 1 else None)
    ax.set_xticks(range(1, len(keys) + 1), [labels[k] for k in keys])
    ax.set_ylabel("time to learn [80 %], training games")
    ax.legend(loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def chain_ratios(meds: dict, paper: dict, suffix: str) -> dict:
    """Our median time to learn over the paper's, per variant of one chain (``""``: player-centred rows;
    ``PLY``: per-ply rows), for the variants with a median."""
    return {v: meds[v] / paper[v][0] for v in meds
            if meds[v] is not None and (v.endswith(PLY) if suffix else not v.endswith(PLY))}


def _ratio_range(ratios: dict, labels: dict) -> str:
    lo, hi = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
    return f"{ratios[lo]:.1f} ({labels[lo]}) to {ratios[hi]:.1f} ({labels[hi]})"


def in_short(meds: dict, labels: dict, paper: dict, table: dict) -> list[str]:
    """The page's first lines: per chain, how far our median times to learn are from the paper's and the range
    of asymptotic success, so that a reader sees the finding before the tables."""
    out = []
    for suffix, name in (("", "farl's player-centred chain"), (PLY, "the paper's per-ply chain")):
        ratios = chain_ratios(meds, paper, suffix)
        if not ratios:
            continue
        asym = [row["asymptotic"] for v, row in table.items() if v in ratios and row.get("asymptotic") is not None]
        line = f"* With {name}, the median times to learn are {_ratio_range(ratios, labels)} times the paper's"
        if asym:
            line += f"; asymptotic success {pct(min(asym))} to {pct(max(asym))}"
        out.append(line + ".")
    return out


def design_note(meds: dict, labels: dict, paper: dict, table: dict | None = None) -> str:
    """Why the times differ from the paper's: the learners' two differences of design and, where a row was
    also run with the paper's per-ply chain, a table of the two chains side by side. ``table``: each variant's
    medians as on the page (``{"first": .., "asymptotic": ..}``), for that comparison."""
    text = (
        "Both learners keep two look-up tables per n-tuple, one per player (the paper's 2 × 70 × 8-tuples), and "
        "both skip the update after a random move. Two differences of design remain:\n\n"
        "1. **The TD chain.** The paper's Alg. 1 moves every position's value toward the next position's, one "
        "ply later, with values taken from the first player's side throughout, and one trace vector holds both "
        "players' positions. farl's player-centred learners (Konen & Bagheri 2020, as GBG) move a player's "
        "afterstate toward that player's next afterstate, two plies later, each player from its own side, each "
        "with its own list. `td_chain=\"ply\"` (`LearnerConfig`) is the paper's chain in farl, checked against "
        "Alg. 1 written with dense vectors (`tests/test_ply_chain.py`); the rows marked \"per ply\" use it, "
        "with the paper's λ per ply.\n"
        "2. **Starting weights.** Ours start at 0, the paper's uniform in [-0.0005, 0.0005]. This only changes "
        "which of equal values is picked in the first games; it is not measured.")
    table = table or {}
    pairs = [(v[: -len(PLY)], v) for v in meds if v.endswith(PLY) and v[: -len(PLY)] in meds]
    if pairs:
        text += ("\n\nMedians by chain (player-centred / per ply):\n\n"
                 "| variant | time to learn | paper | first at 80 % | asymptotic success |\n"
                 "|---|---:|---:|---:|---:|")
        for base, ply in pairs:
            b, q = table.get(base, {}), table.get(ply, {})
            first = f"{_fmt(b.get('first'))} / {_fmt(q.get('first'))}"
            asym = f"{pct(b.get('asymptotic'))} / {pct(q.get('asymptotic'))}"
            text += (f"\n| {labels[base]} | {_fmt(meds[base])} / {_fmt(meds[ply])} | {paper[base][0]:,} | "
                     f"{first} | {asym} |")
    return text


OPENING_NOTE = "\n".join([
    "The agent moves first in every measured game, and against perfect play only the centre column wins; the "
    "others draw or lose. Its opening move alone then decides much of a measurement.",
    "",
    "* **Player-centred.** A probe of TCL-STD (`python -m studies.traces.traces --openings --variant "
    "tcl-std --games 300000`: the study's measurement every 10,000 games, with the agent's opening move and the "
    "values of the seven first moves) splits its 30 measurements cleanly by the opening. The 19 with the centre "
    "scored 58.9 % on average (the lowest 10.5 %, at 10,000 games; then 38.0 %), the 11 off the centre 3.0 % "
    "(the highest 6.2 %). The values of the seven first moves stay between -0.33 and +0.73 and move by more "
    "than their differences from one measurement to the next, so the choice of the centre flips back and "
    "forth: that is what a relapse is, at least in the first 300,000 games.",
    "* **Per ply.** The paper's chain separates the centre from the other first moves. In the same probe of "
    "TCL-STD per ply (`--variant tcl-std-ply`), over the 15 measurements after 150,000 games, the centre's value "
    "led the best other first move by 0.29 on average (at least 0.07) and the agent always opened there. With "
    "farl's chain the lead was 0.06 on average (as low as -0.20), and 5 of the 15 measurements opened off the "
    "centre.",
    "* **In the runs.** Since the runs record the opening (the `opening` column of `success.csv`, from the runs "
    "started after it was added), the per-run lines below count the relapses that opened off the centre."])
"""The opening move behind the relapses (the probe's figures are its printed lines)."""

LAMBDA_NOTE = "\n".join([
    "The paper's TD(λ) runs one chain through every position of a game, both players' (one value function, the "
    "sign alternating), so its λ decays a trace per ply. farl's learners are player-centred (Konen & Bagheri "
    "2020): a player's chain holds its own afterstates only, one entry per two plies, so the presets use λ² per "
    "entry (0.25 for the paper's 0.5, 0.64 for its 0.8). The rows \"per ply\" run the paper's chain and take its "
    "λ as it is.",
    "",
    "* **λ per entry breaks down.** The first runs of this study passed the paper's λ unchanged, which decays "
    "like 0.89 per ply for its 0.8, where the paper's Fig. 8 shows learning break down (λ >= 0.9). They broke "
    "down the same way: TCL[rr] never above 34 % success in 1,000,000 games; TCL[et] swinging between 2 % and "
    "95 %. What those runs showed: [archive.md](archive.md).",
    "* **With λ², replacing traces cut at random moves still drift.** In the first λ² run of TCL[rr] (seed 0, "
    "checked at 320,000 games, success 0.5 %) the values of all seven opening moves had saturated at +1.0, a "
    "divergence the paper does not report; the first TCL[et] run was at 85 % at 360,000 games. In training "
    "alone TCL[rr]'s largest weight grew without bound (1.3 after 25,000 games, 5.7 after 100,000, 18 after "
    "300,000: the all-empty patterns shared by almost every position, balanced by negative weights elsewhere), "
    "while at the same λ = 0.64 standard, reset-only and replace-only traces stay near 1.2-1.8 "
    "(`python -m studies.traces.traces --growth --variant tcl-rr --games 300000`, add "
    "`--trace-mode rep` etc.).",
    "* **Not TCL, and not without random moves.** After 200,000 games the largest weight is 11.9 with TC-EXP, "
    "4.9 with TC-id and 8.5 without TCL (`--set tcl=id`, `--set tcl=none`), against 1.4 for replace-only "
    "traces. With ε = 0 (`--set epsilon=0`: no random move, so no reset) TCL[rr] stays at 0.23.",
    "* **Most of it came from cutting the other players' lists.** Alg. 1 of Thill et al. resets its one trace "
    "vector, and the first runs emptied every player's list at a random move. In farl's player-centred learner "
    "the opponent's random move is part of what a player's own move led to, not that player's exploration, so "
    "the reset rows (TCL[res], TCL[rr], TDL[rr], TCL-M[rr]) now empty only the random mover's list "
    "(`THILL2014_RESET_MODES` in `farl_agents/learners/presets.py`; `LearnerConfig.reset_all_players` keeps "
    "the other choice). With it the largest weight is 2.7 after 200,000 games instead of 11.9. The TCL[rr] run "
    "made with every list cut (seed 0, success 0-1 % from 200,000 games on): [archive.md](archive.md).",
    "* **The remainder needs the cut, with farl's chain only.** The largest weight still climbs at about 1 per "
    "100,000 games (3.8 after 300,000, 6.3 after 600,000: `python -m studies.traces.traces --growth "
    "--variant tcl-rr --games 600000`), where replace-only traces stay at 1.4. With "
    "`--set learn_from_random_moves=true` (no update is skipped, so, as in GBG, no list is cut) TCL[rr] stays "
    "at 1.25 after 200,000 games, and it is not the mirror symmetry (`--set use_symmetry=false`: 3.7 after "
    "200,000). It involves final adaptation: without it (`--set farl=false`) the largest weight stays at 0.45 "
    "after 200,000 games, though such an agent never sees a loss, so the two do not learn the same values; "
    "without FARL's terminal step alone (`--set farl_terminal=false`) it still reaches 2.3. It also needs long "
    "traces: with λ = 0.3 per entry (`--set lam=0.3`, about 0.55 per ply) it levels off at 1.3. Why replacing "
    "traces drift when their lists are cut, where replacing or cutting alone does not, is still open for "
    "farl's chain. Under the paper's own chain (one list for both players, emptied at every "
    "random move, as Alg. 1 does) it does not happen: TCL[rr] per ply's largest weight levels off at 2.0 after "
    "100,000 games, 2.6 after 200,000 and 2.8 after 300,000 (`python -m studies.traces.traces "
    "--growth --variant tcl-rr-ply --games 300000`)."])


def on_page(out, budget: str, variants: list[str]) -> list[str]:
    """``variants`` and every other variant with a run folder under ``out``, in :data:`VARIANTS` order: a
    study of some rows (``--variants tcl-et-ply``) adds them to the page instead of replacing it."""
    from studies.traces.traces_rows import prefix

    runs = Path(out) / f"{prefix(budget)}_runs"
    return [v for v in VARIANTS if v in variants or any((runs / v).glob("seed*"))]


def write_report(out, budget: str, variants: list[str], command: str | None = None) -> Path:
    """Write OUT/<prefix>.md and its box plot from the runs on disk; returns the page's path."""
    from studies.traces.traces_rows import BUDGETS, PAPER_TABLE, prefix

    out = Path(out)
    plan = BUDGETS[budget]
    variants = on_page(out, budget, variants)
    found = collect(out, budget, variants)
    labels = {k: VARIANTS[k][0] for k in VARIANTS}
    lines = [f"# Eligibility traces on Connect Four ({budget} budget)", "",
             "Thill, Bagheri, Koch & Konen 2014, Table I and Fig. 6, beside ours.", "",
             f"* **Runs.** Each run self-plays {plan.episodes:,} games. Every {plan.every:,} games the greedy agent "
             f"plays {plan.games} games against the perfect player (the agent moves first; the perfect player "
             "picks at random among the moves that keep its result during its first 12 plies): its success rate "
             "(win 1, draw 0.5).",
             "* **Time to learn.** The games at which the success curve, smoothed by a centred moving mean over "
             f"{SMOOTH_POINTS} measurements, crosses 80 % for the last time (none if it ends below). Minutes: our "
             "training time at that point (wall seconds of the training chunks, evaluations excluded).",
             f"* **Asymptotic success.** The mean success over the last {min(ASYMPTOTIC_GAMES, plan.episodes // 2):,} "
             "games.",
             "* **First reached.** The first measurement at which the smoothed curve is at 80 % or more. "
             f"**Relapses:** the share of the raw measurements after it that fall below {RELAPSE_BELOW:.0%} (a curve "
             "that learned once and kept it has none; the paper's medians of 20 runs show no such falls).",
             "* **Medians** are over the finished runs (the time to learn: over those that reached 80 %); the "
             "paper's are over 20 runs.", ""]
    ply_rows = [v for v in variants if v.endswith(PLY)]
    if command:
        lines += ["Made by", "", f"    {command}", ""]
        if ply_rows:
            runs = max((len(found[v]) for v in ply_rows), default=1)
            lines += ["after the rows with the paper's per-ply TD chain were trained by", "",
                      f"    farl reproduce traces --variants {','.join(ply_rows)} --runs {runs} --budget {budget}", ""]
    rows = ["| variant | runs finished (running) | time to learn [80 %], games: ours | paper | "
            "minutes: ours | paper | first reached 80 % | relapses | asymptotic success | "
            "runs that end below 80 % |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    meds, table = {}, {}
    for v in variants:
        runs = found[v]
        done = [r for r in runs if r.get("finished")]
        reached = [r for r in done if r["time_to_learn"] is not None]
        meds[v] = _med([r["time_to_learn"] for r in reached])
        asym = _med([r["asymptotic"] for r in done])
        relapses = _med([r["relapses"] for r in done])
        table[v] = {"first": _med([r["first_reach"] for r in done]), "asymptotic": asym}
        rows.append(f"| {labels[v]} | {len(done)} ({len(runs) - len(done)}) | {_fmt(meds[v])} | "
                    f"{PAPER_TABLE[v][0]:,} | {_fmt(_med([r['minutes_to_learn'] for r in reached]), ' min')} | "
                    f"{PAPER_TABLE[v][1]:.1f} min | {_fmt(table[v]['first'])} | "
                    f"{pct(relapses)} | {pct(asym)} | {len(done) - len(reached)} |")
    firsts = {v: row["first"] for v, row in table.items()}
    verdicts = claims(meds, firsts=firsts) + (claims(meds, PLY, firsts) if ply_rows else [])
    short = in_short(meds, labels, PAPER_TABLE, table)
    lines += (["## In short", ""] + short if short else ["## The paper's claims", ""]) + verdicts + [""]
    lines += ["## Table I, ours beside the paper's", ""] + rows
    png = out / f"{prefix(budget)}_box.png"
    if box_plot({v: found[v] for v in variants}, labels, PAPER_TABLE, plan.episodes, png):
        lines += ["", f"![time to learn per variant, as the paper's Fig. 6]({png.name})", "",
                  "Boxes: our finished runs; red diamonds: the paper's medians; x: a run whose curve ends below 80 % "
                  "(drawn at the budget)."]
    lines += ["", "## Two differences of design; the TD chain measured", "",
              design_note(meds, labels, PAPER_TABLE, table)]
    lines += ["", "## Why the curves fall back: the opening move", "", OPENING_NOTE + openings_tally(found)]
    lines += ["", "## λ per ply", "", LAMBDA_NOTE]
    lines += ["", "## Per run", "", "Unfinished runs: progress so far.", ""]
    for v in variants:
        for r in found[v]:
            state = "finished" if r.get("finished") else f"at {r['episodes_done']:,} games"
            lines.append(f"* {labels[v]} seed {r['seed']}: {state}, time to learn {_fmt(r['time_to_learn'])}, "
                         f"first reached 80 % at {_fmt(r['first_reach'])}, relapses {pct(r['relapses'])}, "
                         f"last success {100 * r['final_success']:.1f} %" + _openings(r))
    cost = _cost(out, budget, variants)
    if cost:
        lines += ["", "## Cost", "", cost]
    path = out / f"{prefix(budget)}.md"
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
