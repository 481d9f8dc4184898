"""Measurements of agent Nemesh for ``docs/results/nemesh.md``.

(Longer than farl's usual 400 lines: it is one results page's script, its stages read top to bottom
beside the page they write; split, one experiment would be scattered over several files.)

::

    python -m studies.nemesh.experiments                 # every stage, then the results file
    python -m studies.nemesh.experiments --stages eval-7x6,report
    python -m studies.nemesh.experiments --stages report --out docs/results/nemesh.md  # the shipped page

Stages (each writes ``WORK/<stage>.json`` and is skipped when that file
exists, so an interrupted run continues where it stopped):

``alpha``
    does alpha0 of the learning-rate schedule keep the weights finite?
    (6x8, 100 games vs random + 400 self-play games at depth 3, per alpha0)
``train-7x6`` / ``train-6x8``
    the report's curriculum (1,000 games vs random at depth 3, then
    self-play at depths 3, 4, 5 with T0 = 0, 10, 20) with every game count
    multiplied by ``--fraction``; the wall-clock time is recorded
``tdfarl-7x6`` / ``tdfarl-6x8``
    TD-FARL n-tuple self-play for the same wall-clock time as Nemesh on that
    board (7x6: Konen & Bagheri 2020's paper settings with the fixed 70 8-tuples; 6x8:
    the same settings with 70 random-walk 8-tuples, as the fixed set exists
    for 7x6 only)
``eval-7x6`` / ``eval-6x8``
    the harness (every seat) against random, MCTS, the perfect player (7x6
    only) and each other (from random 2-ply openings, so two mostly
    deterministic players do not replay one game)
``ablation-7x6``
    the trained weights searched at depths 3 and 7, and the untrained
    initial weights at the trained agent's depth, against the strongest MCTS
    and TD-FARL (and the untrained against the trained agent)
``abdl-7x6``
    both agents against AB-DL (perfect, delays its losses)
``speed``
    milliseconds per move of the trained agents at depths 3, 5 and 7
``report``
    writes the results file from the stages' JSON.

Everything runs in this one process (one core).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.runs.curve import Panel, Series, plot_panels
from studies.formatting import pct

BOARDS = {"7x6": (6, 7), "6x8": (6, 8)}
STAGES = ("alpha", "train-7x6", "tdfarl-7x6", "eval-7x6", "train-6x8", "tdfarl-6x8", "eval-6x8",
          "ablation-7x6", "abdl-7x6", "speed", "report")
COMMAND = "python -m studies.nemesh.experiments"
FULL_BUDGET_LINE = ("The report's whole curriculum on 6x8, against TD-FARL at its own full budget and at Nemesh's "
                    "training time: [nemesh_full.md](nemesh_full.md) (`python -m studies.nemesh.full_budget`).")


def _stage_alpha(args) -> dict:
    from farl_agents.nemesh import NemeshAgent
    from farl_agents.nemesh.trainer import Session, train

    rows = []
    for a0 in (1.0, 0.3, 0.1):
        agent = NemeshAgent(rows=6, cols=8, depth=3, seed=args.seed, alpha0=a0)
        t = time.time()
        try:
            train(agent, [Session("random", 100, 3, 0), Session("self", 400, 3, 0)])
            top = float(np.abs(agent.weights).max())
        except RuntimeError:
            top = float("inf")
        rows.append({"alpha0": a0, "max_abs_weight": top, "seconds": round(time.time() - t, 1)})
        print(f"alpha0={a0}: max |w| = {top:.3g}", flush=True)
    return {"rows": rows}


def _stage_train(args, board: str) -> dict:
    from farl_agents.nemesh import NemeshAgent
    from farl_agents.nemesh.trainer import preset, scaled, sessions_to_json, train

    rows, cols = BOARDS[board]
    sessions = scaled(preset("report"), args.fraction)
    agent = NemeshAgent(rows=rows, cols=cols, depth=sessions[-1].depth, seed=args.seed)
    stats = [{"seconds": 0.0, "games": 0, "p1_reward": 0.0, "plies": 0.0} for _ in sessions]
    clock = {"t": time.time()}

    def record(ag, results) -> bool:
        # called after every chunk, before the trainer moves on to the next session
        st = stats[ag.progress["session"]]
        now = time.time()
        st["seconds"] += now - clock["t"]
        clock["t"] = now
        st["games"] += len(results)
        st["p1_reward"] += float(results[:, 0].sum())
        st["plies"] += float(results[:, 2].sum())
        return True

    t0 = time.time()
    train(agent, sessions, on_chunk=record)  # the whole curriculum, once
    per_session = []
    for sess, st in zip(sessions, stats):
        per_session.append({**sessions_to_json([sess])[0], "seconds": round(st["seconds"], 1),
                            "p1_mean_reward": st["p1_reward"] / max(st["games"], 1),
                            "mean_plies": st["plies"] / max(st["games"], 1)})
        print(f"{board}: {sess} {per_session[-1]['seconds']} s", flush=True)
    assert agent.games_done == sum(s.games for s in sessions)
    seconds = time.time() - t0
    path = Path(args.work) / f"nemesh-{board}.npz"
    agent.save(path)
    return {"board": board, "fraction": args.fraction, "sessions": per_session, "seconds": round(seconds, 1),
            "games": agent.games_done, "agent": str(path), "weights": agent.weights.round(4).tolist()}


def _stage_tdfarl(args, board: str) -> dict:
    from farl_agents.learners import NTupleAgent, paper_config

    rows, cols = BOARDS[board]
    budget = _load(args, f"train-{board}")["seconds"]
    if board == "7x6":
        config = paper_config("connect_four", seed=args.seed)
    else:
        config = paper_config("connect_four", seed=args.seed, ntuples="random-walk", ntuple_count=70,
                                     ntuple_length=8)
    agent = NTupleAgent("connect_four", config, rows=rows, cols=cols)
    agent.train(10)  # compile first: Nemesh's kernels come from numba's disk cache, so neither clock counts compiling
    t0 = time.time()
    chunk = 2_000
    while time.time() - t0 < budget:
        agent.train(chunk)
    seconds = time.time() - t0
    path = Path(args.work) / f"tdfarl-{board}.npz"
    agent.save(path)
    print(f"TD-FARL {board}: {agent.episodes_done:,} episodes in {seconds:.0f} s", flush=True)
    return {"board": board, "episodes": agent.episodes_done, "seconds": round(seconds, 1), "agent": str(path),
            "ntuples": config.ntuples, "budget_seconds": budget}


def matchup_row(res, label: str) -> dict:
    m = res.matchups[0]
    return {"label": label, "player": m.player, "opponent": m.opponent, "games": m.n_games, "wins": m.wins,
            "draws": m.draws, "losses": m.losses, "win_rate": m.win_rate, "se": m.win_rate_se,
            "per_seat": [{"seat": s.seat, "win_rate": s.win_rate, "games": s.n_games} for s in m.per_seat],
            "seconds": round(res.seconds, 1)}


def _stage_eval(args, board: str) -> dict:
    from farl_agents.evaluate import evaluate
    from farl_agents.learners import NTupleAgent
    from farl_agents.nemesh import NemeshAgent
    from farl_agents.opponents import make_opponent

    nemesh = NemeshAgent.load(_load(args, f"train-{board}")["agent"])
    td = NTupleAgent.load(_load(args, f"tdfarl-{board}")["agent"])
    game = nemesh.game
    g = args.games
    plan = [(nemesh, "random", g, "initial"), (td, "random", g, "initial")]
    for n in args.mcts:
        plan += [(nemesh, f"mcts{n}", max(4, g // 4), "initial"), (td, f"mcts{n}", max(4, g // 4), "initial")]
    if board == "7x6":
        plan += [(nemesh, "ab", max(4, g // 4), "initial"), (td, "ab", max(4, g // 4), "initial")]
    plan += [(nemesh, td, g // 2, ("random", 2))]
    rows = []
    for player, opp, n, starts in plan:
        opponent = opp if not isinstance(opp, str) else make_opponent(opp, game)
        label = f"{player.name} vs {getattr(opponent, 'name', opp)}"
        res = evaluate(game, player, opponent, n_games=n, start_states=starts, seed=args.seed, jobs=1,
                       keep_games=False)
        row = matchup_row(res, label)
        row["starts"] = starts if isinstance(starts, str) else f"random:{starts[1]}"
        rows.append(row)
        print(f"{board} {label}: {row['win_rate']:.3f} +- {row['se']:.3f} ({row['games']} games, "
              f"{row['seconds']} s)", flush=True)
    return {"board": board, "rows": rows, "nemesh_depth": nemesh.depth}


def _stage_ablation(args, board: str) -> dict:
    """Search depth and learning: the trained weights at depths 3 and 7, and the untrained initial weights."""
    from farl_agents.evaluate import evaluate
    from farl_agents.learners import NTupleAgent
    from farl_agents.nemesh import NemeshAgent
    from farl_agents.opponents import make_opponent

    trained = NemeshAgent.load(_load(args, f"train-{board}")["agent"])
    td = NTupleAgent.load(_load(args, f"tdfarl-{board}")["agent"])
    game = trained.game
    rows, cols = BOARDS[board]
    deep = {d: NemeshAgent(rows=rows, cols=cols, depth=d, weights=trained.weights) for d in (3, 7)}
    untrained = NemeshAgent(rows=rows, cols=cols, depth=trained.depth)
    untrained.name = f"nemesh-untrained-d{trained.depth}"
    mcts = make_opponent(f"mcts{max(args.mcts)}", game)
    g = args.games
    plan = []
    for player in (deep[3], deep[7], untrained):
        plan += [(player, mcts, max(4, g // 4), "initial"), (player, td, g // 2, ("random", 2))]
    plan.append((untrained, trained, g // 2, ("random", 2)))
    rows_out = []
    for player, opponent, n, starts in plan:
        res = evaluate(game, player, opponent, n_games=n, start_states=starts, seed=args.seed, jobs=1,
                       keep_games=False)
        row = matchup_row(res, f"{player.name} vs {opponent.name}")
        row["starts"] = starts if isinstance(starts, str) else f"random:{starts[1]}"
        rows_out.append(row)
        print(f"{board} {row['label']}: {row['win_rate']:.3f} +- {row['se']:.3f} ({row['games']} games, "
              f"{row['seconds']} s)", flush=True)
    return {"board": board, "rows": rows_out}


def _stage_abdl(args, board: str) -> dict:
    """Nemesh and TD-FARL against AB-DL, the perfect player that delays its losses as long as it can."""
    from farl_agents.evaluate import evaluate
    from farl_agents.learners import NTupleAgent
    from farl_agents.nemesh import NemeshAgent
    from farl_agents.opponents import make_opponent

    nemesh = NemeshAgent.load(_load(args, f"train-{board}")["agent"])
    td = NTupleAgent.load(_load(args, f"tdfarl-{board}")["agent"])
    opponent = make_opponent("ab-dl", nemesh.game)
    rows_out = []
    for player in (nemesh, td):
        res = evaluate(nemesh.game, player, opponent, n_games=max(4, args.games // 4), seed=args.seed, jobs=1,
                       keep_games=False)
        row = matchup_row(res, f"{player.name} vs {opponent.name}")
        row["starts"] = "initial"
        rows_out.append(row)
        print(f"{board} {row['label']}: {row['win_rate']:.3f} +- {row['se']:.3f} ({row['games']} games, "
              f"{row['seconds']} s)", flush=True)
    return {"board": board, "rows": rows_out}


def _stage_speed(args) -> dict:
    """Milliseconds per move of the trained agents at depths 3, 5, 7 on positions after 4-16 random plies."""
    from farl_agents.nemesh import NemeshAgent
    from farl_envs.core.rng import make_rng, rng_choice_mask

    rows_out = []
    for board in BOARDS:
        trained = NemeshAgent.load(_load(args, f"train-{board}")["agent"])
        game = trained.game
        rng = make_rng(args.seed)
        positions = []
        mask = np.zeros(game.n_actions, dtype=np.int8)
        rewards = np.zeros(2)
        while len(positions) < 200:
            s = game.initial_state(game.p, rng)
            for _ in range(4 + len(positions) % 13):
                game.legal_actions(game.p, s, mask)
                game.afterstate(game.p, s, rng_choice_mask(rng, mask), s, rewards)
                if s[1]:
                    break
            if not s[1]:
                positions.append(s)
        for depth in (3, 5, 7):
            agent = NemeshAgent(rows=game.params["rows"], cols=game.params["cols"], depth=depth,
                                weights=trained.weights)
            agent.act(game, positions[0], rng)
            t = time.perf_counter()
            for s in positions:
                agent.act(game, s, rng)
            ms = 1000 * (time.perf_counter() - t) / len(positions)
            rows_out.append({"board": board, "depth": depth, "ms_per_move": round(ms, 2)})
            print(f"{board} depth {depth}: {ms:.2f} ms per move", flush=True)
    return {"rows": rows_out}


def _load(args, stage: str) -> dict:
    path = Path(args.work) / f"{stage}.json"
    if not path.is_file():
        raise ValueError(f"stage {stage} has not run yet: {COMMAND} --stages {stage}")
    return json.loads(path.read_text())


def _have(args, stage: str) -> bool:
    return (Path(args.work) / f"{stage}.json").is_file()


# ------------------------------------------------------------------ results file
def eval_table(ev: dict) -> list[str]:
    out = ["| player | opponent | starts | games | W / D / L | win rate (draw = ½) | as player 1 | as player 2 "
           "| time |", "|---|---|---|---|---|---|---|---|---|"]
    for r in ev["rows"]:
        seats = {s["seat"]: s["win_rate"] for s in r["per_seat"]}
        out.append(f"| {r['player']} | {r['opponent']} | {r['starts']} | {r['games']} | {r['wins']} / {r['draws']} / "
                   f"{r['losses']} | {pct(r['win_rate'], se=r['se'])} | {pct(seats.get(0))} | {pct(seats.get(1))} "
                   f"| {r['seconds']} s |")
    return out


def _plot(args, path: Path) -> bool:
    """Win rates of Nemesh and TD-FARL against each opponent, one panel per board; False if nothing to draw."""
    boards = [b for b in BOARDS if _have(args, f"eval-{b}")]
    if not boards:
        return False
    panels = []
    for board in boards:
        rows = [r for r in _load(args, f"eval-{board}")["rows"] if not r["opponent"].startswith(("td", "nemesh"))]
        opps = list(dict.fromkeys(r["opponent"] for r in rows))
        bars = []
        for who in ("nemesh", "td"):
            vals = np.array([next((r["win_rate"] for r in rows if r["opponent"] == o and r["player"].startswith(who)),
                                  0) for o in opps], dtype=float)
            errs = np.array([next((r["se"] for r in rows if r["opponent"] == o and r["player"].startswith(who)), 0)
                             for o in opps], dtype=float)
            bars.append(Series("Nemesh" if who == "nemesh" else "TD-FARL (same wall-clock)", np.arange(len(opps)),
                               vals, vals - errs, vals + errs, kind="bar"))
        panels.append(Panel(bars, title=f"Connect Four {board}", xticklabels=opps, ylim=(0, 1.05),
                            ylabel="win rate (draw = 1/2)"))
    plot_panels(path, panels, columns=len(panels), panel_size=(5.5, 3.6), dpi=110)
    return True


def write_report(args) -> str:
    from farl_agents.nemesh.features import FEATURE_NAMES

    lines = ["# Agent Nemesh (Shalita, Saranga & Haim 2013) on Connect Four 7x6 and 6x8", "",
             "Made by the commands below (one process, one core, on a 2-core machine shared with other "
             "long jobs, so every time is wall-clock under load and only indicative). The raw numbers are in "
             f"the stage JSON files of the work folder (`{args.work}`, not committed).", ""]
    commands = {}
    for stage in STAGES[:-1]:
        if _have(args, stage):
            commands.setdefault(_load(args, stage)["command"], []).append(stage)
    for command, stages in commands.items():
        lines.append(f"* `{command}` -- stages {', '.join(stages)}")
    lines += ["", FULL_BUDGET_LINE, ""]
    if _have(args, "alpha"):
        lines += ["## Learning rate", "",
                  "alpha = alpha0 / (1 + T0 + turn). Largest |weight| after 100 games vs random and 400 self-play "
                  "games at depth 3 on 6x8 (stage `alpha`):", "", "| alpha0 | max abs weight | time |",
                  "|---|---|---|"]
        for r in _load(args, "alpha")["rows"]:
            lines.append(f"| {r['alpha0']} | {r['max_abs_weight']:.3g} | {r['seconds']} s |")
        lines += ["", "alpha0 = 1 (the report's 'high learning rate' taken literally on these feature counts) "
                      "diverges; farl's default is alpha0 = 0.1.", ""]
    for board in BOARDS:
        if not _have(args, f"train-{board}"):
            lines += [f"## {board}: not run yet", "", f"`{COMMAND} --stages train-{board},tdfarl-{board},"
                                                         f"eval-{board},report`", ""]
            continue
        tr = _load(args, f"train-{board}")
        lines += [f"## {board}", "", f"### Training (report curriculum × {tr['fraction']})", "",
                  "| session | opponent | games | depth | T0 | time | player 1's mean reward | mean plies |",
                  "|---|---|---|---|---|---|---|---|"]
        for i, s in enumerate(tr["sessions"]):
            lines.append(f"| {i + 1} | {s['opponent']} | {s['games']:,} | {s['depth']} | {s['turn_start']} | "
                         f"{s['seconds']} s | {s['p1_mean_reward']:+.2f} | {s['mean_plies']:.1f} |")
        lines += ["", f"Nemesh: {tr['games']:,} games in {tr['seconds']:.0f} s."]
        if _have(args, f"tdfarl-{board}"):
            td = _load(args, f"tdfarl-{board}")
            lines += [f"TD-FARL ({td['ntuples']} n-tuples, Konen & Bagheri 2020's Connect Four settings): "
                      f"{td['episodes']:,} self-play episodes in {td['seconds']:.0f} s (the same wall-clock)."]
        lines.append("")
        if _have(args, f"eval-{board}"):
            ev = _load(args, f"eval-{board}")
            lines += [f"### Strength (Nemesh plays at depth {ev['nemesh_depth']})", ""] + eval_table(ev) + [""]
        else:
            lines += [f"Evaluation not run yet: `{COMMAND} --stages eval-{board},report`", ""]
        if _have(args, f"abdl-{board}"):
            lines += ["### Against AB-DL (the perfect player that delays a lost game as long as it can)", ""] \
                + eval_table(_load(args, f"abdl-{board}")) + [""]
        if _have(args, f"ablation-{board}"):
            lines += ["### Search depth and learning (same trained weights at other depths; the untrained initial "
                      "weights)", ""] + eval_table(_load(args, f"ablation-{board}")) + [""]
        w = np.array(tr["weights"])
        lines += ["<details><summary>Learned weights (w1: player 1's vector, w2: player 2's; 'own': the "
                  "features of the vector's player, initially positive; 'opponent's': initially negative)"
                  "</summary>", "", "| feature | w1 on own | w1 on opponent's | w2 on own | "
                  "w2 on opponent's |", "|---|---|---|---|---|"]
        for i, name in enumerate(FEATURE_NAMES):
            lines.append(f"| {name} | {w[0, i]:+.3f} | {w[0, 18 + i]:+.3f} | {w[1, 18 + i]:+.3f} | {w[1, i]:+.3f} |")
        lines += ["", "</details>", ""]
    if _have(args, "speed"):
        sp = _load(args, "speed")["rows"]
        lines += ["## Time per move", "", "Trained agent, 200 positions after 4-16 random plies (forced moves "
                  "included, so easy positions are cheap; stage `speed`):", "", "| board | depth 3 | depth 5 | "
                  "depth 7 |", "|---|---|---|---|"]
        for board in BOARDS:
            ms = {r["depth"]: r["ms_per_move"] for r in sp if r["board"] == board}
            lines.append(f"| {board} | {ms.get(3, '-')} ms | {ms.get(5, '-')} ms | {ms.get(7, '-')} ms |")
        lines.append("")
    png = Path(args.out).with_suffix(".png")
    if _plot(args, png):
        lines += [f"![win rates]({png.name})", ""]
    if args.reading and Path(args.reading).is_file():
        lines += [Path(args.reading).read_text().rstrip(), ""]
    text = "\n".join(lines)
    atomic_write_text(args.out, text)
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    p.add_argument("--stages", default=",".join(STAGES), help=f"comma list of {', '.join(STAGES)}")
    p.add_argument("--fraction", type=float, default=0.02, help="multiply the report's game counts by this")
    p.add_argument("--games", type=int, default=100, help="games per seat against random and in the head-to-head "
                                                          "(x2 openings); a quarter of it against MCTS and AB")
    p.add_argument("--mcts", default="100,1000", help="MCTS iteration budgets")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work", default="runs/nemesh_experiments", help="folder for agents and stage JSON")
    p.add_argument("--out", default="runs/nemesh_experiments/nemesh.md",
                   help="the results page (default beside --work; the shipped page: --out docs/results/nemesh.md)")
    p.add_argument("--reading", default="runs/nemesh_experiments/reading.md",
                   help="a hand-written reading appended to the results file, if it exists")
    p.add_argument("--redo", action="store_true", help="run the stages even if their JSON exists")
    args = p.parse_args(argv)
    args.mcts = [int(x) for x in str(args.mcts).split(",") if x]
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    bad = [s for s in stages if s not in STAGES]
    if bad:
        raise SystemExit(f"unknown stage(s) {', '.join(bad)}; the stages are {', '.join(STAGES)}")
    Path(args.work).mkdir(parents=True, exist_ok=True)
    for stage in stages:
        if stage == "report":
            write_report(args)
            print(f"wrote {args.out}")
            continue
        if _have(args, stage) and not args.redo:
            print(f"{stage}: done before, skipped")
            continue
        t = time.time()
        kind, _, board = stage.partition("-")
        if kind in ("alpha", "speed"):
            result = {"alpha": _stage_alpha, "speed": _stage_speed}[kind](args)
        else:
            result = {"train": _stage_train, "tdfarl": _stage_tdfarl, "eval": _stage_eval,
                      "ablation": _stage_ablation, "abdl": _stage_abdl}[kind](args, board)
        result["stage_seconds"] = round(time.time() - t, 1)
        result["command"] = COMMAND + " " + " ".join(sys.argv[1:] if argv is None else argv)
        atomic_write_json(Path(args.work) / f"{stage}.json", result)
        print(f"{stage}: {result['stage_seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
