"""GBG's stored Sim, Yavalath and EWN agents inside farl: export, import, verify, measure (issue 41).

GBG (github WolfgangKonen/GBG, Konen's General Board Game playing framework) ships trained TD n-tuple agents as
Java-serialised ``.agt.zip`` files. farl never reads those: a small Java program of this study
(``GbgExport.java``, compiled against the user's GBG checkout by ``benchmarks/vs_gbg.py``'s ``build_driver``)
loads each agent with GBG's own loader and writes plain data, ``<key>.json`` (settings, tuples, sample positions
with GBG's values) and ``<key>.f64`` (the look-up tables). This module then maps the cells and cell values to
farl's (:mod:`studies.gbg_agents.mapping`), builds a farl ``NTupleAgent`` with GBG's tuples and weights, and
checks that farl's value of every sample afterstate, for every player's table, equals GBG's (an agent whose
values do not match is reported and not saved). Saved agents (``<key>.farl.npz``) play in farl's harness::

    # a GBG work tree: any checkout, or from a bare clone (this one lacks a few large blobs, left out here)
    git --git-dir=GBG.git archive HEAD src lib agents/Sim agents/Yavalath agents/EWN ':(exclude)lib/Ludii-1.3.0.jar' \
        ':(exclude)agents/Yavalath/02 Players Size 05/TCL3_200_7_25k.agt.zip' | tar -x -C /tmp/gbg
    python -m studies.gbg_agents.gbg_agents --gbg /tmp/gbg --gbg-commit SHA --stage export,import
    python -m studies.gbg_agents.gbg_agents --stage train
    python -m studies.gbg_agents.gbg_agents --stage measure --games 50 --head-to-head --publish

Stages (each reads the previous one's files from ``--out``, default ``runs/gbg_agents``):

* ``export``: compile the exporter (into ``OUT/build``) and run it for every agent (needs java, javac, GBG);
* ``import``: build, verify and save the farl agents; ``OUT/import.json`` holds the verification;
* ``train``: ``farl train`` TD-FARL on each imported agent's board with the GBG agent's settings and n-tuples
  (``OUT/farl_<key>``, or ``OUT/farl_<key>-<N>`` with ``--train-episodes N``); resumable;
* ``measure``: ``farl eval AGENT --vs mcts1000,random --games G --json`` for every saved GBG agent, every finished
  farl run and every agent given with ``--farl-agent NAME=PATH``; with ``--head-to-head`` each farl run also
  against its GBG agent (from random 2-ply openings); each evaluation is kept in ``OUT/eval/`` (a rerun reads it);
* ``--publish`` writes ``docs/results/gbg_agents.json`` and ``docs/results/gbg_agents.md``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from studies.gbg_agents import mapping

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXPORTER = HERE / "GbgExport.java"
RESULTS = ROOT / "docs" / "results"

# GBG's stored TD n-tuple agents for the three games: key -> (GBG game, agent file, GBG's scalable parameters,
# farl game, farl parameters or None when farl has no such board, GBG coding the tables were trained with). The
# folder names give the parameters (EWN's "G-0" is GBG's cell coding 0, "G-0-1-2" coding 1; Yavalath's 2-player
# game always has the pie rule). The three 5x5 "G-0-1-2" agents were saved in October 2021 under GBG's coding 1 of
# then (mapping.gbg_value_of); today's GBG reads their tables with another coding and finds no trained entry, so
# they are imported with the 2021 coding, read off farl's cell_coding=2 board.
_EWN5_2021 = ("5x5 2-Player;[0,1],[2,3],[4,5];False", "einstein_wurfelt_nicht",
              {"players": 2, "size": 5, "cell_coding": 2}, "2021")
AGENTS = {
    "sim_k6": ("Sim", "agents/Sim/K6_Player2/TDNT3-15mover-fixed4-lam05-NEW.agt.zip", "2;6;None",
               "sim", {"players": 2, "nodes": 6}, "today"),
    "sim_k15": ("Sim", "agents/Sim/K15_Player2/TDNT3-random10-6-lam00-NEW.agt.zip", "2;15;None",
                "sim", {"players": 2, "nodes": 15}, "today"),
    "yavalath": ("Yavalath", "agents/Yavalath/02 Players Size 05/TDN3_100_7_1000k.agt.zip", "2;5",
                 "yavalath", {"size": 5, "players": 2, "swap": True}, "today"),
    "ewn5_g0": ("EWN", "agents/EWN/5x5 2 Players G-0/tdnt4-100000.agt.zip", "5x5 2-Player;[0,..,n];False",
                "einstein_wurfelt_nicht", {"players": 2, "size": 5, "cell_coding": 0}, "today"),
    "ewn5_g012_300k": ("EWN", "agents/EWN/5x5 2 Players G-0-1-2/tdnt4-15-6-300k.agt.zip", *_EWN5_2021),
    "ewn5_g012_fixed": ("EWN", "agents/EWN/5x5 2 Players G-0-1-2/tdnt4-fixed0-100k.agt.zip", *_EWN5_2021),
    "ewn5_g012_tcl": ("EWN", "agents/EWN/5x5 2 Players G-0-1-2/tcl4-100000.agt.zip", *_EWN5_2021),
    "ewn3_g0": ("EWN", "agents/EWN/3x3 2 Players G-0/tdnt4-10000.agt.zip", "3x3 2-Player;[0,..,n];False",
                "einstein_wurfelt_nicht", None, "today"),
    "ewn3_g012": ("EWN", "agents/EWN/3x3 2 Players G-0-1-2/tdnt4-100000.agt.zip",
                  "3x3 2-Player;[0,1],[2,3],[4,5];False", "einstein_wurfelt_nicht", None, "2021"),
}

# agent files under GBG's agents/ for these games that are left out, and why
LEFT_OUT = {
    "agents/Sim/K6_Player2/Max-N.agt.zip": "a Max-N search agent: no weights to import",
    "agents/Sim/K15_Player2/test.agt.zip": "a test file: 1,000 of its 100,000 training games played",
    "agents/Yavalath/02 Players Size 05/MCTStest.agt.zip": "an MCTS agent: no weights to import",
    "agents/Yavalath/02 Players Size 05/TCL3_200_7_25k.agt.zip": "a TD n-tuple agent, but its file is not in the "
                                                                 "stored GBG snapshot (the blob is absent)",
    "agents/EWN/3x3 2 Players G-0/qlearn4-10000.agt.zip": "a Q-learning agent (one output per action)",
    "agents/EWN/3x3 2 Players G-0/sarsa4-10000.agt.zip": "a SARSA agent (one output per action)",
    "agents/EWN/3x3 2 Players G-0/test_MC.agt.zip": "a Monte-Carlo agent: no weights to import",
}

NO_FARL_BOARD = ("farl's EinStein würfelt nicht has no 3x3 board (2 players: 5x5, OpenSpiel's game; "
                 "farl_envs.game_spec('einstein_wurfelt_nicht', players=2, size=3) raises)")

TOLERANCE = 1e-5
"""Largest |farl value - GBG value| accepted: farl holds the weights as float32 (GBG float64) and sums them in
float64, so a sum of ~100 weights of size ~1 differs from GBG's by ~1e-6 at most."""


# ------------------------------------------------------------------ export (Java)
def _vs_gbg():
    """benchmarks/vs_gbg.py as a module (the benchmarks folder is not a package)."""
    bench = str(ROOT / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import vs_gbg

    return vs_gbg


def build_exporter(gbg: Path, build: Path, log=print) -> str:
    """Compile GbgExport.java with vs_gbg's ``build_driver``; returns the java class path."""
    return _vs_gbg().build_driver(gbg, build, log=log, driver=EXPORTER)


def export(key: str, gbg: Path, cp: str, out: Path, samples: int, seed: int) -> dict:
    """Run the exporter for one agent; returns its one-line summary."""
    gbg_game, path, scapar = AGENTS[key][:3]
    cmd = ["java", "-Djava.awt.headless=true", "-cp", cp, "GbgExport", gbg_game, path, str(out / key),
           str(samples), str(seed), scapar]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=gbg)
    if proc.returncode != 0:
        raise RuntimeError(f"GBG exporter failed for {key} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ import and verify (plain data only)
def read_export(prefix: Path) -> tuple[dict, list]:
    """The exporter's JSON and its tables as ``luts[player][tuple]`` (float64 arrays)."""
    meta = json.loads(prefix.with_suffix(".json").read_text())
    flat = np.fromfile(prefix.with_suffix(".f64"), dtype="<f8")
    lengths = meta["lut_length"]
    if flat.size != meta["num_players"] * sum(lengths):
        raise ValueError(f"{prefix}.f64 holds {flat.size} numbers, the JSON describes "
                         f"{meta['num_players']} x {sum(lengths)}")
    luts, at = [], 0
    for _ in range(meta["num_players"]):
        tables = []
        for n in lengths:
            tables.append(flat[at:at + n])
            at += n
        luts.append(tables)
    return meta, luts


def symmetry_setting(game, meta: dict) -> tuple[bool, str]:
    """``(use_symmetry, how)`` for farl: which symmetric boards reproduce GBG's value."""
    used = meta["symmetries_used"]
    if used is None:
        return False, "GBG draws its symmetric boards at random: farl uses none and is compared on the board alone"
    if len(used) == 1:
        return False, "GBG sums over the board alone; so does farl"
    if mapping.symmetry_perms_match(game, np.asarray(used)):
        return True, f"GBG's {len(used)} symmetric boards are farl's {game.id} symmetries"
    raise ValueError(f"GBG's {len(used)} symmetric boards are not farl's symmetries of {game.id}")


def import_agent(key: str, prefix: Path) -> tuple[object, dict]:
    """Build the farl agent of an exported GBG agent and verify it on the exporter's sample positions.

    Returns ``(agent or None, report)``; the agent is None when farl has no such board or a value differs.
    """
    meta, luts = read_export(prefix)
    name, params, coding = AGENTS[key][3:]
    report = {"key": key, "gbg_file": AGENTS[key][1], "gbg_class": meta["agent_class"],
              "gbg_training_games": meta["game_num"], "sigmoid": meta["sigmoid"],
              "gbg_use_symmetry": meta["use_symmetry"], "gbg_n_sym": meta["n_sym"],
              "tuples": _describe(meta["tuples"]), "position_values": meta["num_position_values"],
              "gbg_settings": {k: meta[k] for k in ("alpha", "alpha_final", "epsilon", "epsilon_final", "lambda",
                                                   "gamma", "tcl", "tcl_exp", "ntuple_random", "ntuple_fixed_mode",
                                                   "choose_start_01", "descr")}}
    if params is None:
        report.update(status="not imported", reason=NO_FARL_BOARD)
        return None, report
    game = mapping.game_of(name, params)
    report["farl_game"] = {"name": game.name, "params": game.params}
    use_sym, how = symmetry_setting(game, meta)
    agent = mapping.farl_agent(game, meta, luts, use_sym, coding)
    cmap = mapping.cell_map(game)
    gval = mapping.gbg_value_of(game, meta["num_position_values"], coding)
    if coding == "2021":
        field = "values_coding1_of_2021"
    else:
        field = "values_board_alone" if meta["symmetries_used"] is None else "values"
    worst, board_mismatch = 0.0, 0
    for s in meta["samples"]:
        state = mapping.farl_state(game, s["state"], s["mover"])
        board = mapping.farl_board(game, state)
        if coding == "today":  # GBG's board vector read off farl's board
            board_mismatch += int(not np.array_equal(gval[board[cmap]], s["bvec"]))
        for p, gbg_value in enumerate(s[field]):
            worst = max(worst, abs(agent.afterstate_value(state, p) - gbg_value))
    ok = board_mismatch == 0 and worst <= TOLERANCE
    today_zero = sum(all(v == 0 for v in s["values"]) for s in meta["samples"])
    report.update(coding=coding, samples_gbg_values_today_all_zero=today_zero,
                  symmetry=how, farl_use_symmetry=use_sym, samples=len(meta["samples"]),
                  samples_games=meta["samples_games"], value_compared=field, max_abs_value_difference=worst,
                  boards_differing=board_mismatch if coding == "today" else None,
                  status="verified" if ok else "values differ")
    return (agent if ok else None), report


def _describe(tuples: list) -> str:
    """``"10 x 6"`` or ``"4 x 3 + 6 x 6"``: the tuple set by length."""
    counts: dict[int, int] = {}
    for t in tuples:
        counts[len(t)] = counts.get(len(t), 0) + 1
    return " + ".join(f"{c} x {n}" for n, c in sorted(counts.items()))


# ------------------------------------------------------------------ train farl on the same board
def train_command(key: str, meta: dict, folder: Path, episodes: int | None = None) -> list[str]:
    """``farl train`` of TD-FARL on the GBG agent's board with the GBG agent's own settings where farl has them:
    its n-tuples (GBG's cells, padded as in the import), α and ε schedules, λ, horizon, output and symmetry use,
    and its number of training games (``episodes`` overrides it)."""
    name, params, coding = AGENTS[key][3:]
    if coding == "2021":  # farl learns with its own coding 1 (today's GBG coding 1), not the 13-value board
        params = {**params, "cell_coding": 1}
    game = mapping.game_of(name, params)
    tuples = mapping.farl_tuples(game, meta["tuples"])
    use_sym = meta["use_symmetry"] and meta["symmetries_used"] is not None and len(meta["symmetries_used"]) > 1
    cmd = ["farl", "train", name]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    cmd += ["--ntuples", "explicit", "--ntuple-cells", json.dumps(tuples.tolist(), separators=(",", ":")),
            "--ntuple-count", str(tuples.shape[0]), "--ntuple-length", str(tuples.shape[1]),
            "--alpha", f"{meta['alpha']:g}", "--alpha-final", f"{meta['alpha_final']:g}",
            "--epsilon", f"{meta['epsilon']:g}", "--epsilon-final", f"{meta['epsilon_final']:g}",
            "--lam", f"{meta['lambda']:g}", "--horizon-cut", f"{meta['horizon_cut']:g}",
            "--tanh-output" if meta["sigmoid"] else "--no-tanh-output",
            "--use-symmetry" if use_sym else "--no-use-symmetry",
            "--episodes", str(episodes or meta["game_num"]), "--eval-vs", "random", "--eval-games", "10",
            "--eval-every", str(episodes or meta["game_num"]), "--quiet", "--out", str(folder)]
    return cmd


def finished(folder: Path) -> bool:
    """True when the ``farl train`` run in ``folder`` has played all its episodes (its checkpoint says so)."""
    check = folder / "checkpoint.json"
    return check.exists() and bool(json.loads(check.read_text()).get("finished")) and (folder / "agent.npz").exists()


def train(key: str, out: Path, episodes: int | None, log=print) -> Path:
    """Train (or resume) farl on one GBG agent's board (:func:`train_command`) in ``OUT/farl_<key>`` (the GBG
    agent's number of games) or ``OUT/farl_<key>-<episodes>``; returns the agent file."""
    folder = out / (f"farl_{key}" if episodes is None else f"farl_{key}-{episodes}")
    agent = folder / "agent.npz"
    if finished(folder):
        return agent
    meta = json.loads((out / f"{key}.json").read_text())
    cmd = (["farl", "train", "--resume", str(folder), "--quiet"] if (folder / "run.json").exists()
           else train_command(key, meta, folder, episodes))
    log(f"{key}: {' '.join(cmd[:4])} ... ({folder})", flush=True)
    t = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"farl train failed for {key}:\n{proc.stderr[-3000:]}")
    (folder / "command.json").write_text(json.dumps({"command": cmd, "wall_s": round(time.time() - t, 1)},
                                                    indent=1) + "\n")
    return agent


# ------------------------------------------------------------------ measure (farl's harness)
DEFAULT_VS = "mcts1000,random"
H2H_STARTS = "random:2"
"""Head-to-head games start from a fresh random 2-ply opening (played from both seats): two greedy agents from
the empty board would replay one game per seat, up to tie-breaks."""


def eval_command(agent: str, vs: str, games: int, seed: int, starts: str | None = None) -> list[str]:
    return ["farl", "eval", agent, "--vs", vs, "--games", str(games), "--seed", str(seed),
            *(["--start-states", starts] if starts else []), "--json"]


def measure(name: str, agent_path: str, vs: str, games: int, seed: int, out: Path, starts: str | None = None,
            log=print) -> dict:
    """One ``farl eval`` of an agent file, kept in ``out/eval/<name>-<games>g[-vs-<opponents>].json`` (the
    opponents named when they are not :data:`DEFAULT_VS`; a rerun reads the file); returns that record."""
    tag = "" if vs == DEFAULT_VS or name.startswith("h2h_") else "-vs-" + vs.replace(",", "+")
    target = out / "eval" / f"{name}-{games}g{tag}.json"
    if target.exists():
        return json.loads(target.read_text())
    cmd = eval_command(agent_path, vs, games, seed, starts)
    log(f"{name}: {' '.join(cmd)}", flush=True)
    t = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"farl eval failed for {name}:\n{proc.stderr[-3000:]}")
    record = {"name": name, "agent": agent_path, "vs": vs, "games": games, "command": " ".join(cmd),
              "wall_s": round(time.time() - t, 1), "result": json.loads(proc.stdout)}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=1) + "\n")
    return record


# ------------------------------------------------------------------ command line
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gbg", help="a GBG checkout (src/, lib/ and the agents/ files); needed by --stage export")
    ap.add_argument("--gbg-commit", help="GBG's commit, recorded with the export (default: the checkout's, when it "
                                         "is a git work tree)")
    ap.add_argument("--stage", default="export,import,measure",
                    help="comma list of export, import, train, measure")
    ap.add_argument("--train-episodes", type=int, help="farl's training games (default: the GBG agent's)")
    ap.add_argument("--agents", default=",".join(AGENTS), help=f"comma list of {', '.join(AGENTS)}")
    ap.add_argument("--out", default="runs/gbg_agents", help="the study's folder (exports, agents, evaluations)")
    ap.add_argument("--samples", type=int, default=50, help="random-play afterstates GBG and farl both value")
    ap.add_argument("--seed", type=int, default=1, help="seed of the sample games (GBG's java.util.Random)")
    ap.add_argument("--vs", default=DEFAULT_VS, help="farl eval's opponents")
    ap.add_argument("--games", type=int, default=20, help="games per seat and opponent")
    ap.add_argument("--eval-seed", type=int, default=0)
    ap.add_argument("--head-to-head", action="store_true",
                    help="measure also: each farl agent trained on a GBG agent's board against that GBG agent")
    ap.add_argument("--farl-agent", action="append", default=[], metavar="NAME=PATH",
                    help="also measure this farl agent file (trained on one of the boards), as NAME")
    ap.add_argument("--publish", action="store_true",
                    help="write docs/results/gbg_agents.json and docs/results/gbg_agents.md")
    args = ap.parse_args(argv)
    keys = args.agents.split(",")
    for k in keys:
        if k not in AGENTS:
            ap.error(f"unknown agent {k!r}; choose from {', '.join(AGENTS)}")
    stages = set(args.stage.split(","))
    known = {"export", "import", "train", "measure"}
    if stages - known:
        ap.error(f"unknown stage(s) {', '.join(sorted(stages - known))}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    if "export" in stages:
        reason = _vs_gbg().skip_reason(args.gbg)
        if reason:
            print(f"skipped: {reason}")
            return 0
        gbg = Path(args.gbg).resolve()
        cp = build_exporter(gbg, (out / "build").resolve())
        for k in keys:
            if not (gbg / AGENTS[k][1]).is_file():
                print(f"{k}: {AGENTS[k][1]} is not in {gbg}; skipped")
                continue
            summary = export(k, gbg, cp, out.resolve(), args.samples, args.seed)
            print(f"{k}: exported {summary['agent_class']}, {summary['samples']} samples", flush=True)
        commit = args.gbg_commit or _vs_gbg().gbg_commit(gbg)
        (out / "export.json").write_text(json.dumps({"gbg": str(gbg), "gbg_commit": commit,
                                                     "samples": args.samples, "seed": args.seed}, indent=1) + "\n")

    if "import" in stages:
        reports = {}
        for k in keys:
            if not (out / f"{k}.json").exists():
                print(f"{k}: no export in {out}; skipped")
                continue
            agent, report = import_agent(k, out / k)
            if agent is not None:
                path = out / f"{k}.farl.npz"
                agent.save(path)
                report["farl_agent"] = str(path)
            reports[k] = report
            diff = report.get("max_abs_value_difference")
            print(f"{k}: {report['status']}" + (f", max |farl - GBG| = {diff:.2e} over {report['samples']} "
                                                 f"positions x players ({report['symmetry']})" if diff is not None
                                                 else f" ({report.get('reason')})"), flush=True)
        old = json.loads((out / "import.json").read_text()) if (out / "import.json").exists() else {}
        (out / "import.json").write_text(json.dumps(old | reports, indent=1) + "\n")

    if "train" in stages:
        imported = json.loads((out / "import.json").read_text())
        for k in keys:
            if imported.get(k, {}).get("status") == "verified":
                train(k, out, args.train_episodes)

    if "measure" in stages:
        imported = json.loads((out / "import.json").read_text())
        for k in keys:
            path = imported.get(k, {}).get("farl_agent")
            if path:
                measure(f"gbg_{k}", path, args.vs, args.games, args.eval_seed, out)
            for folder in sorted([out / f"farl_{k}", *out.glob(f"farl_{k}-*")]):
                if finished(folder):
                    measure(folder.name, str(folder / "agent.npz"), args.vs, args.games, args.eval_seed, out)
                    if path and args.head_to_head and AGENTS[k][5] == "today":  # farl's agent against GBG's
                        measure(f"h2h_{folder.name}", str(folder / "agent.npz"), path, args.games, args.eval_seed,
                                out, starts=H2H_STARTS)
        for item in args.farl_agent:
            name, _, path = item.partition("=")
            measure(f"farl_{name}", path, args.vs, args.games, args.eval_seed, out)

    if args.publish:
        from studies.gbg_agents import report

        report.publish(out, RESULTS)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
