"""Does TD-FARL learn GBG's Poker? ``docs/results/poker.md``.

Each *variant* is one ``farl train poker`` setting (``VARIANTS``: hands per episode, step size, n-tuples, final
adaptation on or off), trained with a few seeds; every run is then measured by one ``farl eval`` against
``random``, ``call`` and ``equity`` (:mod:`farl_agents.opponents.poker`) in both seats, beside the same three
players measured against each other (``REFERENCES``). The page prints every command beside its figures::

    nice -n 5 python -m studies.poker.learning                 # every run and evaluation, then the page
    python -m studies.poker.learning --variants h1-base        # some variants (keys)
    python -m studies.poker.learning --table-only              # the page from what is there

Resumable: a run folder whose checkpoint says ``finished`` is not trained again, an unfinished one resumes
(``farl train --resume``), and an evaluation whose JSON exists under ``--runs-dir`` (default ``runs/poker``) is
not played again.

The figure is the evaluated player's mean reward per game (``mean_score`` of ``farl eval --json``), here shown as
chips per game (the reward is the chip change over the 100 start chips): with ``hands=1`` every game is one
hand, so it is chips won per hand. The win rate (share of games ending with more chips) is printed too, but it
is a poor measure of poker play (an agent that folds often wins few hands and may still lose fewer chips).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents import cli
from farl_agents.atomic import atomic_write_text
from farl_agents.loading import load_player
from farl_agents.opponents import make_opponent
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games.poker import CHECK, FOLD, SHOWDOWN

RUNS = Path("runs/poker")
OPPONENTS = ("random", "call", "equity")
EVAL_GAMES = 1000
"""Games per seat and opponent of every evaluation (``hands=1``: one hand each)."""
FULL_EVAL_GAMES = 200
"""Games per seat of the evaluations on GBG's whole game (``hands=0``: up to 100 hands each)."""
CURVE_GAMES = 500
"""Games per seat of each curve point against random (the compiled evaluation during training)."""


@dataclass(frozen=True)
class Variant:
    """One training setting: ``farl train poker`` with ``params`` and ``settings`` (``--set``), ``seeds``."""

    key: str
    params: tuple
    settings: dict
    seeds: tuple = (0, 1, 2)
    why: str = ""
    algo: str = "td-farl"

    def folder(self, runs: Path, seed: int) -> Path:
        return runs / f"{self.key}-s{seed}"

    def argv(self, runs: Path, seed: int, folder: Path | None = None) -> list[str]:
        episodes = int(self.settings["episodes"])
        out = ["train", "poker", "--algo", self.algo]
        for p in self.params:
            out += ["--param", p]
        for key, value in {**self.settings, "seed": seed}.items():
            text = json.dumps(value, separators=(",", ":")) if isinstance(value, list) else str(value).lower() \
                if isinstance(value, bool) else str(value)
            out += ["--set", f"{key}={text}"]
        return out + ["--eval-every", str(episodes // 10), "--eval-vs", "random", "--eval-games", str(CURVE_GAMES),
                      "--eval-starts", "initial", "--out", str(folder or self.folder(runs, seed)), "--quiet"]

    def games(self) -> int:
        return FULL_EVAL_GAMES if "hands=0" in self.params else EVAL_GAMES


BASE = {"ntuples": "random-walk", "ntuple_count": 20, "ntuple_length": 3, "alpha": 0.2, "epsilon": 0.1,
        "episodes": 2_000_000}
#: a tuple set written for the game's 13 cells (0, 1 the mover's hole cards; 2..6 the board; 7, 8 his and the
#: other's stack; 9, 10 his and the other's chips in the pot; 11 the phase; 12 the street): the hole cards alone,
#: with the phase, each board card, the street and each player's chips in the pot, the betting, board triples
HAND_TUPLES = [[0, 1, 11], [0, 1, 2], [0, 1, 3], [0, 1, 4], [0, 1, 5], [0, 1, 6], [0, 1, 12], [0, 1, 9], [0, 1, 10],
               [9, 10, 12], [2, 3, 4], [4, 5, 6]]

VARIANTS = [
    Variant("h1-untrained", ("hands=1",), {**BASE, "episodes": 10}, seeds=(0,),
            why="the control: the base setting stopped after 10 episodes (almost every table entry still 0)"),
    Variant("h1-base", ("hands=1",), BASE, why="one hand per episode; 20 random walks of 3 cells, alpha 0.2"),
    Variant("h1-nofarl", ("hands=1",), {**BASE, "farl": False, "farl_terminal": False}, algo="td",
            why="the same without final adaptation"),
    Variant("h1-decay", ("hands=1",), {**BASE, "alpha_final": 0.01, "epsilon_final": 0.0},
            why="alpha 0.2 -> 0.01 (exponential), epsilon 0.1 -> 0 (linear)"),
    Variant("h1-hand", ("hands=1",), {**BASE, "ntuples": "explicit", "ntuple_cells": HAND_TUPLES},
            why="12 tuples written for the game (hole cards with each board card, the street, the pot)"),
    Variant("h1-hand-decay", ("hands=1",), {**BASE, "ntuples": "explicit", "ntuple_cells": HAND_TUPLES,
                                            "alpha_final": 0.01, "epsilon_final": 0.0},
            why="the written tuples with the decaying alpha and epsilon"),
    Variant("h1-walk4", ("hands=1",), {**BASE, "ntuple_count": 30, "ntuple_length": 4, "episodes": 4_000_000,
                                       "alpha_final": 0.01, "epsilon_final": 0.0},
            why="30 random walks of 4 cells, decaying alpha and epsilon, 4M episodes"),
    Variant("h1-long", ("hands=1",), {**BASE, "episodes": 20_000_000, "alpha_final": 0.01, "epsilon_final": 0.0},
            why="h1-decay ten times as long (20M episodes)"),
    Variant("h1-teacher", ("hands=1",), {**BASE, "episodes": 500_000, "alpha_final": 0.01, "epsilon_final": 0.0,
                                         "teacher": "equity", "teacher_share": 0.5},
            why="h1-decay's settings, 500k episodes, the other seat played by `equity` half of the time "
                "(LearnerConfig.teacher)"),
    Variant("h1-teacher-all", ("hands=1",), {**BASE, "episodes": 1_000_000, "alpha_final": 0.01,
                                             "epsilon_final": 0.0, "teacher": "equity", "teacher_share": 1.0},
            seeds=(0, 1), why="the same with `equity` in the other seat in every episode, 1M episodes"),
    Variant("full-base", ("hands=0",), {**BASE, "episodes": 300_000},
            why="GBG's whole game (hands until one player has all chips, cap 100); 300k episodes"),
]


@dataclass(frozen=True)
class Reference:
    """A reference player measured like the agents: ``farl eval NAME --game poker --param ...``."""

    name: str
    params: tuple = ("hands=1",)
    opponents: tuple = field(default=OPPONENTS)

    @property
    def key(self) -> str:
        return f"ref-{self.name}-{'-'.join(p.replace('=', '') for p in self.params)}"

    def games(self) -> int:
        return FULL_EVAL_GAMES if "hands=0" in self.params else EVAL_GAMES


REFERENCES = [Reference(n) for n in OPPONENTS] + [Reference(n, ("hands=0",)) for n in OPPONENTS]


def eval_argv(target: str, opponents, games: int, params=()) -> list[str]:
    out = ["eval", target, "--vs", ",".join(opponents), "--games", str(games), "--seed", "0"]
    if params:
        out += ["--game", "poker"]
        for p in params:
            out += ["--param", p]
    return out


def command(argv: list[str]) -> str:
    return "farl " + " ".join(f"'{a}'" if any(ch in a for ch in "[], ") else a for a in argv)


def _run_cli(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    if code != 0:
        raise RuntimeError(f"stopped with exit code {code}: {command(argv)}")
    return out.getvalue()


def finished(folder: Path) -> bool:
    ckpt = folder / "checkpoint.json"
    return ckpt.exists() and bool(json.loads(ckpt.read_text()).get("finished"))


def train(variant: Variant, runs: Path, seed: int) -> Path:
    folder = variant.folder(runs, seed)
    if finished(folder):
        return folder
    argv = ["train", "--resume", str(folder), "--quiet"] if (folder / "checkpoint.json").exists() \
        else variant.argv(runs, seed)
    start = time.perf_counter()
    _run_cli(argv)
    print(f"trained {folder} in {time.perf_counter() - start:.0f} s", flush=True)
    return folder


def evaluation(key: str, argv: list[str], runs: Path) -> dict:
    path = runs / f"{key}.eval.json"
    if path.exists():
        return json.loads(path.read_text())
    start = time.perf_counter()
    result = json.loads(_run_cli(argv + ["--json"]))
    for m in result["matchups"]:
        m.pop("games", None)
    result["study"] = {"command": command(argv + ["--json"]), "wall_seconds": time.perf_counter() - start}
    runs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(result, indent=1) + "\n")
    print(f"evaluated {key} in {result['study']['wall_seconds']:.0f} s", flush=True)
    return result


TRAJECTORIES = (("h1-base", 0), ("h1-decay", 0), ("h1-hand-decay", 0), ("h1-teacher", 0))
"""Runs trained again in ten stretches (``--stop-after``, then ``--resume``), each checkpoint measured like the
final agents: how the strength moves during training."""
TRAJECTORY_POINTS = 10
TRAJECTORY_GAMES = 500
"""Games per seat and opponent at each point of a trajectory."""


def trajectory_folder(runs: Path, key: str, seed: int) -> Path:
    return runs / f"traj-{key}-s{seed}"


def trajectory(variant: Variant, seed: int, runs: Path) -> None:
    """Train ``variant`` with ``seed`` in :data:`TRAJECTORY_POINTS` stretches into its own folder and measure the
    checkpoint after each (``farl eval FOLDER/checkpoints/agent-N.npz``)."""
    folder = trajectory_folder(runs, variant.key, seed)
    episodes = int(variant.settings["episodes"])
    for k in range(1, TRAJECTORY_POINTS + 1):
        n = episodes * k // TRAJECTORY_POINTS
        key = f"{folder.name}-{n}"
        if (runs / f"{key}.eval.json").exists():
            continue
        ckpt = folder / "checkpoint.json"
        done = json.loads(ckpt.read_text())["done"] if ckpt.exists() else 0
        if done < n:
            argv = ["train", "--resume", str(folder), "--quiet"] if ckpt.exists() \
                else variant.argv(runs, seed, folder=folder)
            _run_cli(argv + ["--stop-after", str(n)] if n < episodes else argv)
        state = json.loads(ckpt.read_text())
        if state["done"] != n:
            raise RuntimeError(f"{folder} is at episode {state['done']}, not {n}: delete it and run again")
        evaluation(key, eval_argv(str(folder / state["agent"]), OPPONENTS, TRAJECTORY_GAMES), runs)


FREE_CHECK_HANDS = 1000
"""Hands per seat against ``equity`` in which :func:`free_check_folds` counts an agent's decisions."""


def free_check_folds(target: str, runs: Path, key: str) -> dict:
    """How often the player ``target`` (a run folder or an opponent name) folds when checking is free, and how
    often it folds at all, over :data:`FREE_CHECK_HANDS` one-hand games per seat against ``equity`` (seeded; cached
    in ``runs/KEY.free.json``). Folding where a check is legal can never gain (the check keeps every later choice,
    the fold included), so its share measures one plain mistake of a learnt policy."""
    path = runs / f"{key}.free.json"
    if path.exists():
        return json.loads(path.read_text())
    game = farl_envs.game_spec("poker", hands=1)
    player = load_player(target, game)[0] if Path(target).exists() else make_opponent(target, game)
    opponent = make_opponent("equity", game)
    rng = make_rng(2026)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    counts = {"free": 0, "free_folds": 0, "decisions": 0, "folds": 0}
    for k in range(2 * FREE_CHECK_HANDS):
        s = game.initial_state(game.p, rng)
        seat = k % 2
        while not s[TERMINAL]:
            mover = player if int(s[TO_MOVE]) == seat else opponent
            a = mover.act(game, s, rng)
            if mover is player:
                game.legal_actions(game.p, s, mask)
                if not mask[SHOWDOWN]:
                    counts["decisions"] += 1
                    counts["folds"] += int(a == FOLD)
                    if mask[CHECK]:
                        counts["free"] += 1
                        counts["free_folds"] += int(a == FOLD)
            out = s.copy()
            game.afterstate(game.p, s, a, out, np.zeros(game.n_players))
            if not out[TERMINAL]:
                game.chance(game.p, out, rng)
            s = out
    runs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(counts, indent=1) + "\n")
    return counts


CONFIRM = ("h1-teacher", "h1-teacher-all")
"""The variants closest to ``equity``, measured against it again on fresh deals: another seed, more games."""
CONFIRM_GAMES = 4000


def confirm_argv(folder: Path) -> list[str]:
    return ["eval", str(folder), "--vs", "equity", "--games", str(CONFIRM_GAMES), "--seed", "1"]


def run(variants: list[Variant], runs: Path, references: bool = True) -> None:
    if references:
        for ref in REFERENCES:
            evaluation(ref.key, eval_argv(ref.name, ref.opponents, ref.games(), ref.params), runs)
        free_check_folds("random", runs, "ref-random")
    for v in variants:
        for seed in v.seeds:
            folder = train(v, runs, seed)
            evaluation(f"{v.key}-s{seed}", eval_argv(str(folder), OPPONENTS, v.games()), runs)
            if "hands=1" in v.params:
                free_check_folds(str(folder), runs, f"{v.key}-s{seed}")
    for key, seed in TRAJECTORIES:
        variant = next((v for v in variants if v.key == key), None)
        if variant is not None:
            trajectory(variant, seed, runs)
    for v in variants:
        if v.key in CONFIRM:
            for seed in v.seeds:
                evaluation(f"{v.key}-s{seed}-confirm", confirm_argv(v.folder(runs, seed)), runs)


# ------------------------------------------------------------------------------------------------ the page
def _load(runs: Path, key: str) -> dict | None:
    path = runs / f"{key}.eval.json"
    return json.loads(path.read_text()) if path.exists() else None


def chips(m: dict, se: bool = True) -> str:
    """Chips per game ± s.e. (the reward is chips over 100)."""
    text = f"{100 * m['mean_score']:+.1f}"
    return f"{text} ± {100 * m['score_se']:.1f}" if se else text


def win_share(m: dict) -> str:
    """The share of games won (a split pot ½) from a matchup's counts: ``farl eval`` headlines chips for Poker
    and leaves its ``win_rate`` empty."""
    return f"{100 * (m['wins'] + m['draws'] / 2) / m['n_games']:.0f} %"


def matchup(result: dict, opponent: str) -> dict:
    return next(m for m in result["matchups"] if m["opponent"] == opponent)


def table(rows: list[tuple[str, dict | None]]) -> list[str]:
    """One line per evaluated player: chips per game ± s.e. against each opponent (both seats together), the
    per-seat figures and the win rate beside."""
    head = "| player | " + " | ".join(f"vs {o}: chips / game" for o in OPPONENTS) + " | per seat (0 / 1) vs " \
           + " / ".join(OPPONENTS) + " | win rate vs " + " / ".join(OPPONENTS) + " |"
    out = [head, "|" + "---|" * (3 + len(OPPONENTS))]
    for label, result in rows:
        if result is None:
            out.append(f"| {label} | " + " | ".join("not run" for _ in range(len(OPPONENTS) + 2)) + " |")
            continue
        ms = [matchup(result, o) for o in OPPONENTS]
        seats = " / ".join(", ".join(chips(s, se=False) for s in m["per_seat"]) for m in ms)
        wins = " / ".join(win_share(m) for m in ms)
        out.append(f"| {label} | " + " | ".join(chips(m) for m in ms) + f" | {seats} | {wins} |")
    return out


def curve_summary(folder: Path) -> str:
    """The curve's scores against random (win rate at each tenth of the run), min .. max after the first."""
    path = folder / "curve.csv"
    if not path.exists():
        return "-"
    lines = path.read_text().splitlines()
    col = lines[0].split(",").index("score_random")
    scores = [float(line.split(",")[col]) for line in lines[2:] if line.split(",")[col]]
    return f"{100 * min(scores):.0f} .. {100 * max(scores):.0f} %" if scores else "-"


def free_cell(runs: Path, key: str) -> str:
    path = runs / f"{key}.free.json"
    if not path.exists():
        return "-"
    c = json.loads(path.read_text())
    return f"{100 * c['free_folds'] / max(1, c['free']):.0f} % (of {c['free']:,})"


def page(runs: Path, reading: str) -> str:
    out = ["# Poker: does TD-FARL learn GBG's heads-up Hold'em?", "",
           "Written by `python -m studies.poker.learning --table-only` from the evaluations under `runs/poker` "
           "(each figure's command in the tables below; `nice -n 5 python -m studies.poker.learning` trains and "
           "measures everything, about 45 minutes of wall time on a loaded two-core machine).", "",
           "The game is [poker](../games/poker.md) (GBG's heads-up Texas Hold'em, 100 chips each, blinds 5/10, "
           "fixed bets of one big blind, all-in always legal). The figure is **chips won per game** by the "
           "evaluated player (`100 * mean_score` of `farl eval --json`, ± one standard error), over both seats, "
           f"{EVAL_GAMES} games per seat for `hands=1` (one hand per game, so chips per hand) and "
           f"{FULL_EVAL_GAMES} per seat for GBG's whole game (`hands=0`, up to 100 hands). The opponents: "
           "`random` (uniform legal moves), `call` (always checks or calls) and `equity` (the reference rule "
           "player of `farl_agents/opponents/poker.py`: Monte-Carlo equity against a random hand, raise from "
           "0.65, all-in from 0.9, call from max(0.4, pot odds), else check or fold).", ""]
    out += ["## The reference players", ""]
    for params, title in ((("hands=1",), "One hand per game (`hands=1`)"),
                          (("hands=0",), "GBG's whole game (`hands=0`)")):
        out += [f"{title}:", ""]
        refs = [r for r in REFERENCES if r.params == params]
        out += table([(f"`{r.name}`", _load(runs, r.key)) for r in refs])
        out += ["", "Commands:", ""]
        out += [f"- `{command(eval_argv(r.name, r.opponents, r.games(), r.params) + ['--json'])}`" for r in refs]
        out += [""]
    out += [f"Free checks folded (`free_check_folds` of this study: {FREE_CHECK_HANDS} one-hand games per seat "
            f"against `equity`, counted in `runs/poker/ref-random.free.json`): `random` {free_cell(runs, 'ref-random')}"
            "; `equity` and `call` never, by their rules.", ""]
    out += ["## TD-FARL agents", "",
            "| variant | what | training command (seed 0; others `--set seed=S`, folder `-sS`) |", "|---|---|---|"]
    for v in VARIANTS:
        out.append(f"| `{v.key}` | {v.why} | `{command(v.argv(runs, 0))}` |")
    out += ["", "Every run measured by `farl eval runs/poker/VARIANT-sSEED --vs random,call,equity --games G "
            "--seed 0 --json` (G = 1000 for `hands=1`, 200 for `hands=0`); the curve column is the range of the "
            f"training curve's win rates against random ({CURVE_GAMES} games per seat at each tenth of the run, "
            "after the first point); the last column the same count of folded free checks as for `random` "
            "above (`runs/poker/VARIANT-sSEED.free.json`, written by `python -m studies.poker.learning`).", ""]
    rows = []
    ranges = {}
    for v in VARIANTS:
        for seed in v.seeds:
            key = f"{v.key}-s{seed}"
            rows.append((f"`{key}`", _load(runs, key)))
            ranges[key] = curve_summary(v.folder(runs, seed))
    lines = table(rows)
    lines[0] += " curve vs random (win rate) | folds a free check (of such decisions) |"
    lines[1] += "---|---|"
    for i, (label, _) in enumerate(rows):
        lines[2 + i] += f" {ranges[label.strip('`')]} | {free_cell(runs, label.strip('`'))} |"
    out += lines
    out += ["", f"Against `equity` again on other deals (`--seed 1`), {CONFIRM_GAMES} games per seat:", "",
            "| agent | vs equity: chips / game | per seat (0 / 1) | command |", "|---|---|---|---|"]
    for key in CONFIRM:
        variant = next(v for v in VARIANTS if v.key == key)
        for seed in variant.seeds:
            result = _load(runs, f"{key}-s{seed}-confirm")
            argv = confirm_argv(variant.folder(runs, seed)) + ["--json"]
            if result is None:
                out.append(f"| `{key}-s{seed}` | not run | | `{command(argv)}` |")
                continue
            m = matchup(result, "equity")
            seats = ", ".join(chips(x, se=False) for x in m["per_seat"])
            out.append(f"| `{key}-s{seed}` | {chips(m)} | {seats} | `{command(argv)}` |")
    out += ["", "## During training", "",
            f"Each run below trained again in {TRAJECTORY_POINTS} stretches (`farl train ... --stop-after N`, then "
            "`farl train --resume FOLDER --stop-after N`), the checkpoint after each measured by `farl eval "
            f"FOLDER/checkpoints/agent-N.npz --vs random,call,equity --games {TRAJECTORY_GAMES} --seed 0 --json` "
            "(chips per hand ± s.e.; the win rate against random beside).", ""]
    for key, seed in TRAJECTORIES:
        variant = next(v for v in VARIANTS if v.key == key)
        folder = trajectory_folder(runs, key, seed)
        episodes = int(variant.settings["episodes"])
        out += [f"`{folder.name}` ({variant.why}; folder `{folder}`):", "",
                "| episodes | vs random | vs call | vs equity | win rate vs random |", "|---|---|---|---|---|"]
        for k in range(1, TRAJECTORY_POINTS + 1):
            n = episodes * k // TRAJECTORY_POINTS
            result = _load(runs, f"{folder.name}-{n}")
            if result is None:
                out.append(f"| {n:,} | not run | not run | not run | |")
                continue
            ms = [matchup(result, o) for o in OPPONENTS]
            out.append(f"| {n:,} | " + " | ".join(chips(m) for m in ms) + f" | {win_share(ms[0])} |")
        out += [""]
    out += ["## Reading", "", reading.strip(), ""]
    return "\n".join(out)


READING = """
**What the reference players show.** One hand per game, `equity` wins 9.3 ± 1.2 chips per hand against `random` and
10.7 ± 0.8 against `call`, and breaks even against itself; `call` alone wins 7.3 ± 1.5 against `random`, which folds
a quarter of its decisions (its free checks too). Over GBG's whole game `equity` ends ahead in 68 % of the games
against `random` and 89 % against `call`. Beating `random` is therefore a low bar: a calling station clears it by 7
chips a hand.

**Does TD-FARL learn poker?** A little, in self-play, and not far. Every self-play setting ends ahead of `random`
(+1.7 to +7.7 chips per hand; one seed without final adaptation, `h1-nofarl-s1`, at -1.1, a run that learnt to fold
most hands), about even with `call` (-3.1 to +3.7) and behind `equity` in every run (-3.5 to -9.8 chips per hand,
three to eight standard errors). So the self-play agents play at about a calling station's level against `random`
and lose to the rule player by about half of what the rule player takes from `random`. The 10-episode control
(`h1-untrained-s0`) already makes +2.2 against `random` and loses 8.2 to `equity`: what self-play adds is a few
chips a hand. Longer training with a decaying step size (`h1-long`, 20M episodes) and longer tuples (`h1-walk4`, 30
random walks of 4 cells) give the smallest losses to `equity` (-3.5 to -4.9); the tuples written for the game (the
hole cards with each board card, the street, the pot: `h1-hand`, `h1-hand-decay`) do no better than random walks
(-4.7 to -7.2). Final adaptation on or off makes no difference visible across three seeds (`h1-base` -6.2 to -9.8,
`h1-nofarl` -4.5 to -6.2 against `equity`); with one hand per episode a player makes one to four moves, so the
game's end, whose reward every final afterstate already carries, is never far.

**A plain mistake the self-play agents keep.** GBG's rules let a player fold when checking is free; folding there
can never gain (the check keeps every later choice). The last column counts it, over 1000 hands per seat against
`equity`: the self-play agents fold 2 to 30 % of their free checks (58 % for `h1-nofarl-s1`), the decaying, longer
and 4-cell runs least (2 to 15 %). A fold's afterstate is terminal and worth exactly its chip loss, while the
check's afterstate is worth what the tables have learnt for it; in self-play against an opponent who bets and goes
all-in a lot (ε = 0.1, and its own mistakes), the tables rate many weak continuing positions below the 5 or 10 chips
a fold loses, with no structure in the n-tuples that ties them to "I can still fold later".

**Why the n-tuples struggle.** The board codes each card as one of 52 values in its own cell. Hand strength is a
joint property of seven cards: a pair is two cells of equal rank, a flush five of equal suit, a straight five
consecutive ranks. A 3-cell tuple sees the two hole cards with one board card at most, and a table entry for "ace of
spades, ace of hearts, king of clubs" shares nothing with "ace of clubs, ace of diamonds, king of hearts". The
tables can learn the hole cards (1,326 combinations, a pattern any tuple holding cells 0 and 1 covers) and the
betting, but hardly what the board does to a hand, which is where `equity` gains (our reading of the tuple
structure, not measured here).

**Trained against the reference player.** With `equity` in the other seat half of the time (`h1-teacher`,
`LearnerConfig.teacher`), the learner catches up with it: -0.6 ± 1.1, +1.5 ± 1.2 and +1.3 ± 1.2 chips per hand over
three seeds, and -1.7 ± 0.5, +0.3 ± 0.6 and -0.3 ± 0.6 on 4000 fresh deals per seat: even. The trajectory
`traj-h1-teacher-s0` climbs steadily from -5.8 to about 0 against `equity` (and from +2.5 to about +5 against
`call`) over 500k episodes, while against `random` it stays at +0.4 to +4.1. With `equity` in every episode
(`h1-teacher-all`, 1M episodes) both seeds beat it: +1.5 ± 1.0 and +2.8 ± 1.0 chips per hand, and on 4000 fresh
deals per seat +1.3 ± 0.5 and +2.7 ± 0.5 (2.6 and 5 standard errors). But they are specialists: both lose to
`random` (-1.6 ± 0.7, -1.0 ± 0.7), which the 10-episode control and all but one self-play agent beat. TD on
afterstates can thus learn a counter to a fixed opponent it meets every episode, not yet a sound player in
self-play.

**Pretrained agent?** No. The only agents that beat the reference player clearly (`h1-teacher-all`) beat it by 1.3
and 2.7 chips (an eighth to a quarter of a big blind) per hand, lose to `random`, were trained on one-hand episodes
only (not on GBG's whole game, whose stacks they never saw move) and exploit one fixed rule player; shipping
`equity` itself is the better reference, and the best self-play agents (`h1-long`, `h1-walk4`) lose 3.5 to 5 chips
per hand to it.

**The instability.** The first 20k-episode run's score against `random` that "swung between 38 % and 76 %" was the
curve's **win rate**, the share of games a player ends with more chips (the curve's figure for two-player games; on
a few games per point it carries its own sampling noise too). Two things moved it. (1) The win rate is a poor figure
for poker: an agent that never folds wins most single hands against a player who folds often, whatever it loses in
the others. The 10-episode control shows the very swing: its curve (one point per episode, 500 games per seat) reads
75 % at episodes 0 to 2, while its tables are (nearly) all 0 and a fold, the only afterstate worth less than 0, is
never chosen, then 39 % from episode 3 on, once updates have pushed some continuing afterstates below a fold's loss;
after 10 episodes it folds every small blind (exactly -5.0 chips per hand in seat 1) and still ends +2.2 chips per
hand ahead of `random`. (2) With a constant step size (α = 0.2) and ε = 0.1 the policy keeps moving: in
`traj-h1-base-s0` the checkpoints at each tenth score between +1.0 and -7.6 chips per hand against `equity` (± 1.2
to 2.0) and 37 to 61 % in win rate against `random`. The decaying schedule (α 0.2 to 0.01, ε 0.1 to 0) holds
`traj-h1-decay-s0` between -3.5 and -6.3 against `equity` after its first tenth, within about two standard errors of
its mean; the agent is stable there, and no better. Measure poker agents in chips per hand (`mean_score`), over a
thousand hands per seat or more, not by the curve's win rate.

**GBG's whole game** (`hands=0`, up to 100 hands per episode, 300k episodes): the agents win +6 to +13 chips per
game against `random`, break even with `call` and lose 18 to 30 chips per game to `equity` (35 to 41 % of the games
won), the same picture as one hand per episode.

**Reproducing.** The runs are deterministic: the stretched runs of the last section end with the same weights as the
uninterrupted runs of the same seed (`runs/poker/h1-base-s0` and `traj-h1-base-s0`, and likewise for `h1-decay` and
`h1-teacher`). All training and evaluation took about 45 minutes of wall time on a loaded two-core machine (`nice -n
5`), most of it the teacher runs (`equity` is a Python player: 2,000 to 5,000 episodes per second against 100,000 or
more in compiled self-play).
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="*", help="variant keys (default all)")
    ap.add_argument("--runs-dir", type=Path, default=RUNS)
    ap.add_argument("--out", type=Path, default=Path("docs/results"))
    ap.add_argument("--table-only", action="store_true", help="write the page from the evaluations present")
    ap.add_argument("--no-references", action="store_true", help="skip the reference players' evaluations")
    args = ap.parse_args(argv)
    known = {v.key: v for v in VARIANTS}
    unknown = [k for k in args.variants or [] if k not in known]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {', '.join(known)}")
    chosen = [known[k] for k in args.variants] if args.variants else VARIANTS
    if not args.table_only:
        run(chosen, args.runs_dir, references=not args.no_references)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "poker.md", page(args.runs_dir, READING))
    print(f"wrote {args.out / 'poker.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
