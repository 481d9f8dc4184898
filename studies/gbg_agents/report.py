"""docs/results/gbg_agents.json and the page gbg_agents.md, from the study's folder.

Reads ``OUT/import.json`` (verification), ``OUT/eval/*.json`` (``farl eval`` records, each with its command) and
``OUT/farl_<key>/command.json`` (the ``farl train`` of farl's agent on the same board).
"""
from __future__ import annotations

import json
import shlex
import time
from pathlib import Path

from farl_agents.atomic import atomic_write_text
from studies.gbg_agents.gbg_agents import AGENTS, LEFT_OUT, TOLERANCE, _vs_gbg

BOARDS = {
    "sim_k6": "Sim K6, 2 players", "sim_k15": "Sim K15, 2 players",
    "yavalath": "Yavalath edge 5, 2 players (pie rule)",
    "ewn5_g0": "EWN 5x5, 2 players (cell coding 0)", "ewn5_g012_300k": "EWN 5x5, 2 players (GBG coding 1)",
    "ewn5_g012_fixed": "EWN 5x5, 2 players (GBG coding 1)", "ewn5_g012_tcl": "EWN 5x5, 2 players (GBG coding 1)",
    "ewn3_g0": "EWN 3x3, 2 players", "ewn3_g012": "EWN 3x3, 2 players",
}


def _short(cmd: list) -> str:
    """A ``farl train`` command with its long n-tuple list elided (the full command is in the JSON)."""
    cmd = list(cmd)
    if "--ntuple-cells" in cmd:
        cmd[cmd.index("--ntuple-cells") + 1] = "CELLS"
    return shlex.join(cmd)


def _rate(m: dict) -> str:
    return f"{100 * m['win_rate']:.0f} % ± {100 * m['win_rate_se']:.0f}"


def _seats(m: dict) -> str:
    return " / ".join(f"{100 * s['win_rate']:.0f}" for s in m["per_seat"])


def collect(out: Path) -> dict:
    imported = json.loads((out / "import.json").read_text())
    export = json.loads((out / "export.json").read_text()) if (out / "export.json").exists() else {}
    records = [json.loads(p.read_text()) for p in sorted((out / "eval").glob("*.json"))]
    evals, extra = {}, []  # per name the default opponents' record with the most games; other opponents apart
    for rec in records:
        argv = rec["command"].split()
        rec["games"], rec["vs"] = int(argv[argv.index("--games") + 1]), argv[argv.index("--vs") + 1]
        name = rec["name"]
        if rec["vs"] != "mcts1000,random" and not name.startswith("h2h_"):
            extra.append(rec)
        elif name not in evals or rec["games"] > evals[name]["games"]:
            evals[name] = rec
    agents = {}
    for key in AGENTS:
        if key not in imported:
            continue
        row = dict(imported[key])
        row.pop("farl_agent", None)
        row["evals"] = []
        for name, rec in evals.items():
            if name != f"gbg_{key}" and name != f"farl_{key}" and not name.startswith(f"farl_{key}-"):
                continue
            ev = {"who": name.partition("_")[0], "name": name, "command": rec["command"], "wall_s": rec["wall_s"],
                  "matchups": rec["result"]["matchups"], "game": rec["result"]["game"],
                  "params": rec["result"]["params"]}
            train = out / name / "command.json"
            if ev["who"] == "farl" and train.exists():
                t = json.loads(train.read_text())
                ev["train"] = {"command": shlex.join(t["command"]), "argv": t["command"], "wall_s": t["wall_s"],
                               "folder": str(out / name)}
            row["evals"].append(ev)
        row["evals"].sort(key=lambda e: (e["who"] != "gbg", e["name"]))
        row["head_to_head"] = [{"name": name, "command": rec["command"], "matchups": rec["result"]["matchups"]}
                               for name, rec in evals.items()
                               if name == f"h2h_farl_{key}" or name.startswith(f"h2h_farl_{key}-")]
        row["other_opponents"] = [{"name": rec["name"], "command": rec["command"],
                                   "matchups": rec["result"]["matchups"]} for rec in extra
                                  if rec["name"] in (f"gbg_{key}", f"farl_{key}")
                                  or rec["name"].startswith(f"farl_{key}-")]
        agents[key] = row
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "gbg_commit": export.get("gbg_commit"),
            "farl_commit": _vs_gbg().farl_commit(), "samples_per_agent": export.get("samples"),
            "tolerance": TOLERANCE, "agents": agents, "left_out": LEFT_OUT}


def section(data: dict) -> str:
    a = data["agents"]
    lines = [
        "# GBG's stored agents in farl",
        "",
        "GBG ships trained TD n-tuple agents for the 2-player variants of Sim, Yavalath and EinStein würfelt "
        "nicht. `studies/gbg_agents/` loads each with GBG's own loader (a small Java exporter, "
        "`GbgExport.java`, compiled against GBG by `benchmarks/vs_gbg.py`'s machinery) and writes plain data; "
        "farl then maps GBG's cells and cell values to its own, builds an `NTupleAgent` with GBG's tuples and "
        "every player's tables (`weights[0, p]`), and checks its value of "
        f"{data['samples_per_agent']} random-play afterstates per agent, for every player's table, against "
        f"GBG's (GBG commit `{(data['gbg_commit'] or '?')[:10]}`; farl `{data['farl_commit']}`, "
        f"{data['date']}). Commands (each figure's own `farl eval` / `farl train` command is next to it):",
        "",
        "```",
        "python -m studies.gbg_agents.gbg_agents --gbg GBG_CHECKOUT --stage export,import   # export + verify",
        "python -m studies.gbg_agents.gbg_agents --stage train            # farl, same board, GBG's settings",
        "python -m studies.gbg_agents.gbg_agents --stage train --agents yavalath --train-episodes 200000  # and 500000",
        "python -m studies.gbg_agents.gbg_agents --stage measure --games 50 --head-to-head",
        "python -m studies.gbg_agents.gbg_agents --stage measure --agents yavalath --vs mcts10000 --games 50 --publish",
        "```",
        "",
        "## Import and verification",
        "",
        "| GBG agent | board | GBG class, training games | tuples (P values) | farl game | symmetry | "
        "max \\|farl − GBG\\| | status |",
        "|---|---|---|---|---|---|---:|---|",
    ]
    for key, r in a.items():
        farl_game = r.get("farl_game")
        game = (f"`{farl_game['name']}` " + ", ".join(f"{k}={v}" for k, v in farl_game["params"].items())
                if farl_game else "—")
        diff = r.get("max_abs_value_difference")
        lines.append(
            f"| `{r['gbg_file'].removeprefix('agents/')}` | {BOARDS[key]} | {r['gbg_class'].rsplit('.', 1)[-1]}, "
            f"{r['gbg_training_games']:,} | {r['tuples']} ({r['position_values']}) | {game} | "
            f"{'12 (hexagon)' if r.get('farl_use_symmetry') else 'none' if farl_game else '—'} | "
            f"{'—' if diff is None else f'{diff:.1e}'} | {r['status']} |")
    lines += [
        "",
        "Every agent farl has a board for verifies: its values equal GBG's to float32 precision (farl holds the "
        "weights as float32) on every sample and for both players' tables. Facts behind the maps: Sim's edges "
        "and Yavalath's cells are numbered alike in both (values 0 empty, 1 + player); EWN's squares are too, "
        "but GBG codes \"empty\" as its last value and farl as 0, so a GBG value b is farl's (b + 1) mod P. "
        "Yavalath's 12 symmetric boards in GBG are farl's 12 as a set. Short GBG tuples (Sim K6's triangles) "
        "are padded with copies of their last cell, whose table entries then repeat that cell's digit.",
        "",
        "**EWN 5x5 \"G-0-1-2\" agents.** The three were saved in October 2021 under GBG's cell coding 1 of then "
        "(empty square = 2, the number of players, which is also player 0's group of values 4-5; groups "
        "{0,1,2}, {3}, {4,5}). Today's GBG codes empty as 6 and groups (0,1), (2,3), (4,5), so it reads its "
        "tables at entries training never wrote: GBG's own value is 0 for both players on "
        + ", ".join(f"{a[k]['samples_gbg_values_today_all_zero']}" for k in ("ewn5_g012_300k", "ewn5_g012_fixed",
                                                                          "ewn5_g012_tcl") if k in a)
        + f" of the {data['samples_per_agent']} sample positions, so today's GBG plays them by tie-breaking. "
        "farl imports them with the 2021 coding, read off its `cell_coding=2` board (which "
        "tells every cube apart), and verifies against GBG's tables read with that coding "
        "(`values_coding1_of_2021` in the export: GBG's own `NTuple4.getScore` on a 2021 board vector).",
        "",
        "Not imported: " + "; ".join(f"`{k.removeprefix('agents/')}`: {v}" for k, v in data["left_out"].items())
        + ". The EWN 3x3 agents are exported and load, but farl's EWN has no 3x3 board (2 players: OpenSpiel's "
        "5x5 only). GBG's snapshot holds no 3-player EWN, Sim or Yavalath agent.",
        "",
        "## Strength in farl's harness",
        "",
        "Each agent in every seat, the games per seat in its command, against farl's MCTS with 1,000 iterations "
        "and against "
        "random (win rate, draw ½, ± s.e.; per seat: farl's seat 0 / seat 1), from the start position of farl's "
        "game. farl's agent on the same board is TD-FARL trained with the GBG agent's own settings and tuples "
        "(`farl train` below) for the games given. Sim K6 is a second-player win (Mead, Rosa & Huang 1974), "
        "hence the seats. farl's EWN is OpenSpiel's game (random start placement, the published die rule, "
        "`player_1` moves first); GBG's agents were trained on GBG's fixed start and GBG's die rule, so they "
        "play positions they never saw in training here.",
        "",
        "| board | agent | vs MCTS1000 | per seat | vs random | per seat | command |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    trains = []
    for key, r in a.items():
        for ev in r.get("evals", []):
            by = {m["opponent"].lower(): m for m in ev["matchups"]}
            mc, rnd = by.get("mcts1000"), by.get("random")
            if ev["who"] == "gbg":
                label = f"GBG `{Path(r['gbg_file']).name}`"
            elif "train" in ev:
                games = int(ev["train"]["command"].split("--episodes ")[1].split()[0])
                label = f"farl TD-FARL, {games:,} games" + (
                    f" (GBG's: {r['gbg_training_games']:,})" if games != r["gbg_training_games"] else "")
                trains.append((key, ev["train"]))
            else:
                label = "farl"
            lines.append(f"| {BOARDS[key]} | {label} | {_rate(mc) if mc else '—'} | {_seats(mc) if mc else '—'} | "
                         f"{_rate(rnd) if rnd else '—'} | {_seats(rnd) if rnd else '—'} | `{ev['command']}` |")
    lines += ["", "farl − GBG, per board (win rates against MCTS1000, difference ± the combined s.e.; the EWN "
              "\"GBG coding 1\" farl agent learns with farl's coding 1 on the same board):", ""]
    for key, r in a.items():
        gbg = next((e for e in r.get("evals", []) if e["who"] == "gbg"), None)
        for ev in (e for e in r.get("evals", []) if e["who"] == "farl"):
            f_m = next(m for m in ev["matchups"] if m["opponent"].lower() == "mcts1000")
            g_m = next(m for m in gbg["matchups"] if m["opponent"].lower() == "mcts1000")
            diff = f_m["win_rate"] - g_m["win_rate"]
            se = (f_m["win_rate_se"] ** 2 + g_m["win_rate_se"] ** 2) ** 0.5
            lines.append(f"- {BOARDS[key]}, `{ev['name']}` − GBG `{Path(r['gbg_file']).name}`: "
                         f"{100 * diff:+.0f} ± {100 * se:.0f} points")
    others = [(k, o) for k, r in a.items() for o in r.get("other_opponents", [])]
    if others:
        lines += ["", "Against a stronger opponent where MCTS1000 cannot tell the agents apart:", "",
                  "| board | agent | opponent | win rate | per seat | command |", "|---|---|---|---:|---:|---|"]
        for k, o in others:
            for m in o["matchups"]:
                lines.append(f"| {BOARDS[k]} | `{o['name']}` | {m['opponent']} | {_rate(m)} | {_seats(m)} | "
                             f"`{o['command']}` |")
    h2h = [(k, h) for k, r in a.items() for h in r.get("head_to_head", [])]
    if h2h:
        lines += ["", "farl's agent against GBG's on the same board (farl's win rate, every seat, each game from a "
                  "fresh random 2-ply opening):", "",
                  "| board | farl agent | vs GBG's agent | per seat | command |", "|---|---|---:|---:|---|"]
        for k, h in h2h:
            m = h["matchups"][0]
            lines.append(f"| {BOARDS[k]} | `{h['name'].removeprefix('h2h_')}` | {_rate(m)} | {_seats(m)} | "
                         f"`{h['command']}` |")
    if trains:
        lines += ["", "farl's training runs (CELLS: the GBG agent's n-tuples in farl's cells, as JSON; each full "
                  "command is in `gbg_agents.json`):", ""]
        for k, t in trains:
            moved = (f"; its folder renamed to `{t['folder']}` afterwards, the study's name for a run of other "
                     f"length than GBG's" if t["argv"][t["argv"].index("--out") + 1] != t["folder"] else "")
            lines.append(f"- {BOARDS[k]}: `{_short(t['argv'])}` ({t['wall_s']:.0f} s wall{moved})")
    lines += ["", "All figures and the full commands: `docs/results/gbg_agents.json`.", ""]
    return "\n".join(lines)


def publish(out: Path, results: Path) -> None:
    data = collect(out)
    atomic_write_text(results / "gbg_agents.json", json.dumps(data, indent=1) + "\n")
    atomic_write_text(results / "gbg_agents.md", section(data))
    print(f"wrote {results / 'gbg_agents.json'} and {results / 'gbg_agents.md'}")
