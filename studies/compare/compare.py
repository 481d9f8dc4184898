"""``compare``: n-tuple TD-FARL against MaskablePPO and DQN at equal budgets, judged by one harness.

Every learner trains under the **same two budgets**:

* **equal environment steps** — S moves made by the learner. For SB3 these
  are ``num_timesteps`` (its own moves; opponents reply inside ``step``);
  TD-FARL learns by self-play, where it makes *every* move, so its steps are
  the plies of its training games (the plies column of ``agent.train``);
* **equal wall-clock** — M minutes of training on one core (evaluations and
  TD-FARL's one-off numba compilation excluded; the compile time is
  reported separately).

Each learner runs once until both budgets are spent and is evaluated with
:func:`farl_agents.evaluate.evaluate` at checkpoints of each budget
(factors of 2 apart, ending at the budget: the learning curves) and, with
more games, exactly at S steps and at M minutes (the tables). All learners meet the same opponents with the
same seed. The report (Markdown, with a PNG of strength vs steps and vs
seconds) goes where ``out_md`` says, by default into the comparison's folder
``out_dir``; the shipped pages in ``docs/results`` change only when asked
for by name.

Resumable: each finished learner x seed is kept in ``out_dir`` as
``<learner>-seed<k>.json`` the moment it ends, so after a Ctrl-C or a crash
the same call (the same ``farl compare`` command) trains only what is left.
A folder holding a comparison with other settings is refused.

TD-FARL is :class:`~farl_agents.learners.NTupleAgent` with the paper preset
(``paper_config(game)``, Konen & Bagheri 2020, Appendix A.6) unchanged; its ε and
α schedules run over the preset's episode count whatever the budget.
"""
from __future__ import annotations

import json
import math
import os
import platform
import shlex
import time
from datetime import date
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.baselines.measure import Budget, Checkpoints, Evaluator, curve_row, plot_curves
from farl_agents.baselines.train import check_algo, run_sb3
from farl_envs.core.spec import GameSpec

LEARNERS = ("td-farl", "maskable-ppo", "dqn")

DEFAULT_BUDGETS = {"tictactoe": (200_000, 2.0), "connect_four": (200_000, 3.0), "game2048": (100_000, 2.0),
                   "nim": (50_000, 1.0), "nim3p": (50_000, 1.0), "hex": (200_000, 3.0), "othello": (200_000, 3.0)}
"""(steps, minutes) used when neither budget is given."""


def _game_spec(game: str, game_params: dict) -> GameSpec:
    from farl_agents.learners.presets import paper_game_params

    params = paper_game_params(game)
    params.update(game_params)
    return farl_envs.game_spec(game, **params)


# ------------------------------------------------------------- TD-FARL
def train_td_farl(game: GameSpec, budget: Budget, *, seed: int = 0, evaluator=None, eval_points: int = 10,
                  on_checkpoint=None, config=None):
    """Self-play TD-FARL under ``budget`` with checkpoint evaluations.

    Returns ``(agent, rows, compile_seconds)``; steps are training plies.
    """
    from farl_agents.learners import NTupleAgent, paper_config

    cfg = config if config is not None else paper_config(game.name, seed=seed)
    t = time.perf_counter()
    NTupleAgent(game, cfg).train(2)  # compile the self-play loop for this game (not charged to the budget)
    compile_seconds = time.perf_counter() - t
    agent = NTupleAgent(game, cfg)
    evaluator = evaluator if evaluator is not None else Evaluator(game)
    checkpoints = Checkpoints(budget, eval_points)
    rows: list = []
    steps = episodes = 0

    def record(marks, seconds=None):
        seconds = budget.elapsed() if seconds is None else seconds
        with budget.paused():
            row = curve_row(steps, seconds, episodes, marks, evaluator(agent))
            rows.append(row)
            if on_checkpoint is not None:
                on_checkpoint(row, agent)

    budget.start()
    record([])
    rate = None  # episodes per second
    per_game = game.max_plies  # plies per game, from the last chunk
    seconds = 0.0
    while not budget.done(steps, seconds):
        n = 16 if rate is None else max(1, int(rate * 0.2))  # chunks of ~0.2 s
        if checkpoints.step_marks:  # approach the next step mark from below (games may get longer)
            n = min(n, max(1, math.ceil((checkpoints.step_marks[0] - steps) / min(1.5 * per_game, game.max_plies))))
        t = time.perf_counter()
        res = agent.train(n)
        dt = time.perf_counter() - t
        rate = n / max(dt, 1e-6)
        per_game = max(float(res[:, -1].mean()), 1.0)
        steps += int(res[:, -1].sum())
        episodes += n
        seconds = budget.elapsed()
        marks = checkpoints.due(steps, seconds)
        if marks:
            record(marks, seconds)
    return agent, rows, compile_seconds


# ------------------------------------------------------------ one learner, one seed
def run_one(task: dict) -> dict:
    """Train one learner with one seed under both budgets and evaluate it (a task of
    :func:`farl_agents.backend.run_tasks`; the record comes back in the result, no files).

    An exception comes back whole (``exception``), raised again by :func:`compare` as a sequential run would.
    """
    try:
        return {"index": task["index"], "learner": task["learner"], "seed": task["seed"], "status": "done",
                "record": _train_and_measure(task)}
    except Exception as exc:  # noqa: BLE001 - handed back whole, see the docstring
        return {"index": task["index"], "learner": task["learner"], "seed": task["seed"], "status": "failed",
                "error": f"{type(exc).__name__}: {exc}", "exception": exc}


def _train_and_measure(task: dict) -> dict:
    spec = _game_spec(task["game"], task["game_params"])
    evaluator = Evaluator(spec, task["eval_opponents"], task["eval_games"])
    final_eval = Evaluator(spec, task["eval_opponents"], task["final_games"])
    budget = Budget(task["budget_steps"], task["budget_seconds"])
    finals: dict = {}

    def on_checkpoint(row, player):
        hit_steps = budget.steps is not None and "steps" in row["checkpoint"] and \
            row["steps"] >= budget.steps and "steps" not in finals
        hit_time = budget.seconds is not None and "time" in row["checkpoint"] and \
            row["seconds"] >= budget.seconds - 1e-3 and "time" not in finals
        if hit_steps or hit_time:
            final = curve_row(row["steps"], row["seconds"], row["episodes"], [], final_eval(player))
            if hit_steps:
                finals["steps"] = final
            if hit_time:
                finals["time"] = final

    t0 = time.perf_counter()
    compile_s = 0.0
    name, s = task["learner"], task["seed"]
    if name == "td-farl":
        _, rows, compile_s = train_td_farl(spec, budget, seed=s, evaluator=evaluator,
                                           eval_points=task["eval_points"], on_checkpoint=on_checkpoint)
    else:
        _, rows, _ = run_sb3(spec, name, budget, seed=s, opponent=task["opponent"], evaluator=evaluator,
                             eval_points=task["eval_points"], on_checkpoint=on_checkpoint, label=name)
    return {"seed": s, "curve": rows, "equal_steps": finals.get("steps"), "equal_time": finals.get("time"),
            "compile_seconds": compile_s, "run_seconds": time.perf_counter() - t0}


# ------------------------------------------------------------ the API
def compare(game: str, budget_steps: int | None = None, budget_minutes: float | None = None, runs: int = 1,
            out_md=None, *, out_dir=None, seed: int = 0, learners=LEARNERS, opponent: str = "self-play",
            eval_opponents=None,
            eval_games: int | None = None, final_games: int | None = None, eval_points: int = 8,
            command: str | None = None, verbose: bool = True, backend: str = "local", jobs: int = 1,
            ray_address: str | None = None, **game_params) -> dict:
    """Train TD-FARL, MaskablePPO and DQN at equal steps and equal wall-clock; write a Markdown report.

    Args:
        game: farl game name; its parameters default to the paper's Table 1
            row (``paper_game_params``), ``**game_params`` override them.
        budget_steps: S, environment steps per learner (see the module docstring).
        budget_minutes: M, minutes of training per learner. Neither given:
            :data:`DEFAULT_BUDGETS`.
        runs: independent runs (seeds ``seed .. seed + runs - 1``); the tables
            give the mean over runs (± the standard error over runs when > 1).
        out_md: the report path (default ``<out_dir>/compare_<game>.md``;
            without ``out_dir`` no report is written); the PNG goes beside
            it. ``False`` writes no report.
        out_dir: the comparison's folder: finished runs are kept there and
            skipped when the call is repeated (see the module docstring).
            ``None`` keeps nothing.
        learners: a subset of :data:`LEARNERS`.
        opponent: SB3's training opponent (``"self-play"``, ``"random"``, a farl opponent name).
        eval_opponents: harness opponents (default :func:`~farl_agents.baselines.measure.eval_opponents`).
        eval_games / final_games: games per seat at curve checkpoints / at the two budget points.
        eval_points: curve checkpoints per budget.
        command: the command line recorded in the report (default: the equivalent ``farl compare``).
        backend / jobs / ray_address: where the learner x seed runs train, as in
            :func:`farl_agents.backend.run_tasks` (default: one after the other here). Runs side by side
            share the machine: the equal-wall-clock budget assumes one CPU per run.

    Returns:
        A dict with the per-learner, per-run results (``equal_steps``,
        ``equal_time``, ``curve``), the report text and paths.
    """
    spec = _game_spec(game, game_params)
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, got {runs!r}")
    learners = [("td-farl" if str(x).lower().replace("_", "-") in ("td-farl", "td", "farl") else check_algo(x))
                for x in learners]
    if not learners:
        raise ValueError("learners is empty")
    if budget_steps is None and budget_minutes is None:
        budget_steps, budget_minutes = DEFAULT_BUDGETS[spec.name]
    if budget_steps is not None and (isinstance(budget_steps, bool) or not isinstance(budget_steps, (int, np.integer))
                                     or budget_steps < 1):
        raise ValueError(f"budget_steps must be an integer >= 1, got {budget_steps!r}")
    if budget_minutes is not None and (not isinstance(budget_minutes, (int, float)) or isinstance(budget_minutes, bool)
                                       or not math.isfinite(budget_minutes) or budget_minutes <= 0):
        raise ValueError(f"budget_minutes must be a number > 0, got {budget_minutes!r}")
    evaluator = Evaluator(spec, eval_opponents, eval_games)
    final_eval = Evaluator(spec, eval_opponents, final_games if final_games is not None
                           else (100 if spec.n_players > 1 else 50))
    if command is None:
        command = _command(spec, budget_steps, budget_minutes, runs, seed, learners, opponent, game_params)

    t_all = time.perf_counter()
    load_start = _load()
    tasks = [{"index": (r, i), "game": spec.name, "game_params": dict(spec.params), "learner": name,
              "seed": int(seed) + r, "budget_steps": budget_steps,
              "budget_seconds": None if budget_minutes is None else 60.0 * budget_minutes, "opponent": opponent,
              "eval_opponents": eval_opponents, "eval_games": evaluator.n_games, "final_games": final_eval.n_games,
              "eval_points": eval_points}
             for r in range(runs) for i, name in enumerate(learners)]
    from farl_agents.backend import run_tasks
    from studies import ship_to_ray

    kept = _Kept(out_dir, {k: v for k, v in tasks[0].items() if k not in ("index", "learner", "seed")})
    finished = [r for r in map(kept.load, tasks) if r is not None]
    todo = [t for t in tasks if (t["learner"], t["seed"]) not in {(r["learner"], r["seed"]) for r in finished}]
    if finished and verbose:
        print(f"[compare {spec.name}] {len(finished)} of {len(tasks)} runs already finished in {out_dir}",
              flush=True)
    ship_to_ray(backend)
    done = finished + run_tasks(run_one, todo, backend=backend, jobs=jobs, ray_address=ray_address,
                                progress=verbose and bool(todo), desc=f"compare {spec.name}",
                                describe=lambda r: f"{r['learner']} seed {r['seed']}: {r['status']}",
                                folder_keys=(), on_result=kept.save)
    if len(done) < len(tasks) or any(r["status"] == "interrupted" for r in done):
        if verbose and out_dir is not None:
            print(f"[compare {spec.name}] stopped; the finished runs are kept in {out_dir}: the same command "
                  f"continues", flush=True)
        raise KeyboardInterrupt  # a Ctrl-C: runs in progress are lost (SB3 and TD-FARL keep no checkpoints here)
    for r in done:
        if r["status"] != "done":
            raise r.get("exception") or RuntimeError(f"{r['learner']} seed {r['seed']}: {r.get('error')}")
    results = {name: [] for name in learners}
    for r in sorted(done, key=lambda r: r["index"]):
        rec = r["record"]
        results[r["learner"]].append(rec)
        if verbose:
            print(f"[compare {spec.name}] {r['learner']} seed {rec['seed']}: {rec['run_seconds']:.0f} s; "
                  f"at S steps {_brief(rec['equal_steps'])}; at M minutes {_brief(rec['equal_time'])}", flush=True)
    from farl_agents.players import RandomPlayer
    reference = curve_row(0, 0.0, 0, [], final_eval(RandomPlayer()))  # the untrained yardstick
    total = time.perf_counter() - t_all

    out = {"reference": reference, "game": spec.name, "params": dict(spec.params), "budget_steps": budget_steps,
           "budget_minutes": budget_minutes, "runs": runs, "labels": evaluator.labels,
           "eval_games": evaluator.n_games, "final_games": final_eval.n_games, "opponent": opponent,
           "results": results, "seconds": total, "command": command, "load": (load_start, _load())}
    if out_md is None and out_dir is not None:
        out_md = Path(out_dir) / f"compare_{spec.name}.md"
    if out_md not in (None, False):
        md_path = Path(out_md)
        md_path.parent.mkdir(parents=True, exist_ok=True)
        png_path = md_path.with_suffix(".png")
        metric = "win rate" if spec.n_players == 2 else "mean score"
        curves = {(n if runs == 1 else f"{n} s{rec['seed']}"): rec["curve"]
                  for n in learners for rec in results[n]}
        plot_curves(curves, evaluator.labels, png_path,
                    f"{spec.name}{' ' + str(spec.params) if spec.params else ''}: "
                    "strength vs environment steps and vs training seconds",
                    metric)
        text = report(out, png_path.name)
        tmp = md_path.with_suffix(".md.tmp")
        tmp.write_text(text)
        os.replace(tmp, md_path)
        out.update(markdown=text, files={"md": str(md_path), "png": str(png_path)})
    return out


class _Kept:
    """The finished runs of a comparison in its folder: ``settings.json`` and one ``<learner>-seed<k>.json`` each.

    Without a folder it keeps nothing. The settings (game, budgets, opponents,
    evaluation sizes) must match the folder's: a folder is one comparison.
    """

    def __init__(self, folder, settings: dict):
        self.folder = None if folder is None else Path(folder)
        self.settings = json.loads(json.dumps(settings))  # as JSON gives it back (tuples as lists)
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "settings.json"
        if path.exists():
            try:
                saved = json.loads(path.read_text())
            except (OSError, ValueError, RecursionError) as exc:
                raise ValueError(f"{path}: unreadable ({type(exc).__name__}); give another --out") from None
            if saved != self.settings:
                diff = sorted(k for k in set(saved) | set(self.settings) if saved.get(k) != self.settings.get(k))
                raise ValueError(f"{self.folder} holds a comparison with other settings ({', '.join(diff)}); "
                                 f"give another --out or the same settings")
        else:
            atomic_write_json(path, self.settings)

    def _path(self, learner: str, seed: int) -> Path:
        return self.folder / f"{learner}-seed{seed}.json"

    def load(self, task: dict) -> dict | None:
        """The finished result of ``task`` kept in the folder, or None."""
        if self.folder is None or not self._path(task["learner"], task["seed"]).exists():
            return None
        path = self._path(task["learner"], task["seed"])
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: unreadable ({type(exc).__name__}); delete it to train that run again") \
                from None
        if not isinstance(record, dict) or record.get("seed") != task["seed"] or \
                not isinstance(record.get("curve"), list):
            raise ValueError(f"{path}: not a finished run of this comparison; delete it to train that run again")
        return {"index": task["index"], "learner": task["learner"], "seed": task["seed"], "status": "done",
                "record": record}

    def save(self, result: dict) -> None:
        """Keep a finished result (called as each run ends)."""
        if self.folder is not None and result.get("status") == "done":
            atomic_write_json(self._path(result["learner"], result["seed"]), result["record"])


def _load() -> float | None:
    """The 1-minute load average (other processes share the machine), if the OS tells."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def _brief(row) -> str:
    if row is None:
        return "-"
    return ", ".join(f"{k} {row[k]:.3g}" for k in row if k not in ("steps", "seconds", "episodes", "checkpoint")
                     and not k.endswith("_se"))


def _command(spec, steps, minutes, runs, seed, learners, opponent, game_params) -> str:
    parts = ["farl", "compare", spec.name]
    if steps is not None:
        parts += ["--budget-steps", str(steps)]
    if minutes is not None:
        parts += ["--budget-minutes", f"{minutes:g}"]
    if runs != 1:
        parts += ["--runs", str(runs)]
    if seed:
        parts += ["--seed", str(seed)]
    if list(learners) != list(LEARNERS):
        parts += ["--learners", ",".join(learners)]
    if opponent != "self-play":
        parts += ["--opponent", opponent]
    for k, v in game_params.items():
        parts += [f"--{k.replace('_', '-')}", str(v)]
    return " ".join(shlex.quote(p) for p in parts)


# ------------------------------------------------------------ the report
def _cell(values: list, ses: list, pct: bool) -> str:
    vals = [v for v in values if v is not None]
    if not vals:
        return "-"
    mean = float(np.mean(vals))
    if len(vals) > 1:
        se = float(np.std(vals, ddof=1) / math.sqrt(len(vals)))
    else:
        se = float(ses[0]) if ses and ses[0] is not None else 0.0
    if pct:
        return f"{100 * mean:.1f}% ± {100 * se:.1f}"
    return f"{mean:,.0f} ± {se:,.0f}" if abs(mean) >= 100 else f"{mean:.3f} ± {se:.3f}"


def _table(out: dict, key: str) -> list[str]:
    labels = out["labels"]
    pct = out["labels"] != ["score"] and farl_envs.game_spec(out["game"], **out["params"]).n_players == 2
    head = "| learner | env steps | training s | episodes | " + " | ".join(
        (f"vs {lb}" if lb != "score" else "mean score") for lb in labels) + " |"
    lines = [head, "|---|---:|---:|---:|" + "---:|" * len(labels)]
    for name, recs in out["results"].items():
        rows = [r[key] for r in recs if r[key] is not None]
        if not rows:
            continue
        cells = [_cell([r[lb] for r in rows], [r[f"{lb}_se"] for r in rows], pct) for lb in labels]
        lines.append(f"| {name} | {np.mean([r['steps'] for r in rows]):,.0f} | "
                     f"{_secs(np.mean([r['seconds'] for r in rows]))} | "
                     f"{np.mean([r['episodes'] for r in rows]):,.0f} | " + " | ".join(cells) + " |")
    ref = out.get("reference")
    if ref is not None:
        lines.append("| *random player (reference)* | – | – | – | "
                     + " | ".join(_cell([ref[lb]], [ref[f"{lb}_se"]], pct) for lb in labels) + " |")
    return lines


def _secs(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.0f}"


def _best(out: dict, key: str) -> list[str]:
    lines = []
    for lb in out["labels"]:
        scores = {}
        for name, recs in out["results"].items():
            vals = [r[key][lb] for r in recs if r[key] is not None]
            if vals:
                scores[name] = float(np.mean(vals))
        if scores:
            order = sorted(scores, key=scores.get, reverse=True)
            what = "mean score" if lb == "score" else f"vs {lb}"
            lines.append(f"{what}: " + " > ".join(f"{n} ({scores[n]:.3g})" for n in order))
    return lines


def _versions() -> str:
    parts = [f"Python {platform.python_version()}", f"numpy {np.__version__}"]
    for mod in ("numba", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            m = __import__(mod)
            parts.append(f"{mod} {m.__version__}")
        except ImportError:
            pass
    return ", ".join(parts)


def _load_note(load) -> str:
    if not load or None in load:
        return ""
    return (f" Machine load average {load[0]:.1f} at the start, {load[1]:.1f} at the end ({os.cpu_count()} cores; "
            f"this comparison uses one: above 1, other processes competed for the CPU and wall-clock budgets "
            f"bought fewer steps).")


_PERFECT_PLAYERS_NOTE = (
    "**ab** and **ab-dl** are the perfect Connect Four players (`make_opponent(\"ab\")`, `\"ab-dl\"`): both win "
    "as fast as they can and draw when they cannot win, so moving first they win every game and a learner scores "
    "at most 50 % against either. When every move loses (as second player after a centre opening, a first-player "
    "win), AB plays a uniformly random legal move, while AB-DL plays the moves that delay the loss longest: after a "
    "centre opening AB moves at random for as long as the learner keeps the win, AB-DL makes it find the win "
    "against the longest defence.")
"""Read under the tables when the perfect players are among the opponents (what their win rates can reach)."""


def report(out: dict, png_name: str) -> str:
    """The Markdown page of a :func:`compare` result."""
    spec_params = out["params"]
    steps, minutes = out["budget_steps"], out["budget_minutes"]
    two = out["labels"] != ["score"]
    lines = [f"# TD-FARL vs deep RL: {out['game']} {spec_params if spec_params else ''}".rstrip(), "",
             f"Made by `{out['command']}` on {platform.machine()}, one core (torch threads 1), {_versions()}, "
             f"{date.today().isoformat()}. Wall-clock of the whole comparison (training, evaluations, compilation): "
             f"**{out['seconds'] / 60:.1f} min**." + _load_note(out.get("load")), "",
             "Learners: **td-farl** = n-tuple TD-FARL with the paper preset (`paper_config`), self-play; "
             "**maskable-ppo** = sb3-contrib MaskablePPO; **dqn** = SB3 DQN with masked argmax, masked exploration "
             "and masked TD target (`farl_agents.baselines.dqn`). SB3 learners: MLP 128-128, "
             f"8 envs (PPO) / 1 env (DQN), seat alternating, training opponent `{out['opponent']}`"
             + (" (frozen copy of the learner, refreshed every 10,000 steps)" if out["opponent"] == "self-play"
                else "") + ". "
             "Environment steps: SB3 counts its own moves; TD-FARL's are the plies of its self-play games (it "
             "makes every move). Training seconds exclude evaluations"
             + (" and TD-FARL's one-off numba compilation" if "td-farl" in out["results"] else "") + ".", ""]
    if "td-farl" in out["results"]:
        cs = [r["compile_seconds"] for r in out["results"]["td-farl"]]
        lines += [f"TD-FARL compilation (not charged): {np.mean(cs):.1f} s.", ""]
    what = ("win rate (win 1, draw ½, loss 0; all seats; ± standard error" if two and
            farl_envs.game_spec(out["game"], **spec_params).n_players == 2 else "mean score (± standard error")
    what += ", over runs when runs > 1)" if out["runs"] > 1 else ")"
    lines += [f"Evaluation: `farl_agents.evaluate.evaluate`, greedy play, {out['final_games']} games per seat "
              f"and opponent at the budget points ({out['eval_games']} on the curves), seed 12345; "
              f"{what}. Runs: {out['runs']}.", ""]
    if {"ab", "ab-dl"} & set(out["labels"]):
        lines += [_PERFECT_PLAYERS_NOTE, ""]
    if steps is not None:
        lines += [f"## Equal environment steps: {steps:,}", ""] + _table(out, "equal_steps") + [""]
        lines += ["Ranking: " + "; ".join(_best(out, "equal_steps")) + ".", ""]
    if minutes is not None:
        lines += [f"## Equal wall-clock: {minutes:g} min of training", ""] + _table(out, "equal_time") + [""]
        lines += ["Ranking: " + "; ".join(_best(out, "equal_time")) + ".", ""]
    lines += ["## Learning curves", "", f"![strength vs steps and vs seconds]({png_name})", "",
              "<details><summary>checkpoint rows</summary>", ""]
    labels = out["labels"]
    lines += ["| learner | seed | checkpoint | env steps | training s | " + " | ".join(labels) + " |",
              "|---|---:|---|---:|---:|" + "---:|" * len(labels)]
    for name, recs in out["results"].items():
        for rec in recs:
            for row in rec["curve"]:
                lines.append(f"| {name} | {rec['seed']} | {row['checkpoint']} | {row['steps']:,} | "
                             f"{_secs(row['seconds'])} | " + " | ".join(f"{row[lb]:.3g}" for lb in labels) + " |")
    lines += ["", "</details>", ""]
    return "\n".join(lines)
