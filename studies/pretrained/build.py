"""Building the shipped agents: train with the game's preset in a resumable run, measure, write file + card.

``farl pretrained build GAME`` (from a source checkout: this study is not installed) calls :func:`build`.
Training goes through the common run stack (:class:`~farl_agents.runs.Run`) in ``runs/pretrained/GAME``
(``GAME-quick`` for the quick budget), so a build that is stopped (Ctrl-C,
a crash, ``--stop-after``) continues where it stopped when run again. When
the budget is done the agent is measured by the evaluation harness against
the game's reference opponents (:data:`STRENGTH_PLAN`; a puzzle by its solve rate at chosen scramble depths,
:class:`SolveRate`; Blackjack by its exact expected return, :class:`ExactReturn`) and stored sparse, without
the TCL accumulators (play never reads them), with its weights rounded (to 256
values, to float16 precision, or only the larger half kept) only when the same
measurement of the rounded copy scores no worse (:data:`STORAGES`); its card is
generated from what was run and measured.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

import farl_agents
import farl_envs
from farl_agents.atomic import atomic_write_json
from farl_agents.learners.config import LearnerConfig
from farl_agents.learners.presets import (
    cube_config,
    cube_game,
    fitting_tuple_length,
    nplayer_config,
    nplayer_game,
    paper_config,
    paper_game_params,
    preset_names,
)
from farl_agents.runs import Run, RunSpec
from farl_agents.runs.spec import RunError

BUDGETS = ("paper", "quick")
"""``paper``: the full episodes of the game's preset (:func:`preset_of`; Konen & Bagheri 2020's Appendix A.6 where
the paper has the game); ``quick``: a tenth of them, to try the pipeline in minutes (its agents are not meant
to be shipped)."""

QUICK_FRACTION = 10


@dataclass(frozen=True)
class Measure:
    """One line of a card's strength: ``opponent`` (a ``make_opponent`` name, or ``alone`` for one player)
    played from ``starts`` (a start set of :func:`farl_agents.runs.evaluation.start_states`) in every seat."""

    opponent: str
    starts: str = "initial"
    games: int | None = None


@dataclass(frozen=True)
class SolveRate:
    """One line of a puzzle's card (the Rubik's cube): the share of ``games`` cubes scrambled by exactly ``depth``
    twists that the agent solves within the game's ``max_twists``, ± its standard error; GBG's measure (Konen
    2023), by the solve-rate study's loop (:func:`studies.rubiks.solve_rates.solve_rate`). On the card it reads as
    playing ``alone`` from the start set ``scramble <depth>``."""

    depth: int
    games: int
    opponent: ClassVar[str] = "alone"

    @property
    def starts(self) -> str:
        return f"scramble {self.depth}"


@dataclass(frozen=True)
class ExactReturn:
    """Blackjack's card line: the agent's expected return per round under the infinite shoe, exact (its greedy
    action asked once per n-tuple board, the game tree summed over every chance event by the game's kernels:
    :func:`~farl_agents.opponents.blackjack.exact_return`), beside basic strategy's and the optimal policy's by
    dynamic programming (:func:`~farl_agents.opponents.blackjack.expected_return`). No games are played."""

    opponent: ClassVar[str] = "alone"
    starts: ClassVar[str] = "every deal (exact)"


STRENGTH_PLAN: dict[str, tuple[Measure | SolveRate | ExactReturn, ...]] = {
    "tictactoe": (Measure("maxn10", "initial", 20), Measure("maxn10", "start+1ply")),
    "nim": (Measure("maxn15", "start+1ply"), Measure("bouton", "start+1ply")),
    "nim3p": (Measure("maxn15", "start+1ply", 48), Measure("mcts5000", "start+1ply", 16)),
    "connect_four": (Measure("ab", "initial", 50), Measure("ab-dl", "initial", 50)),
    "hex": (Measure("mcts10000", "initial", 50),),
    "othello": (Measure("bench", "othello-4ply"),),
    "game2048": (Measure("alone", "initial", 250),),
    "rubiks_cube": (SolveRate(5, 300), SolveRate(9, 300), SolveRate(13, 300)),
    "blackjack": (ExactReturn(),),
    "poker": (Measure("random", "initial", 1000), Measure("call", "initial", 1000), Measure("equity", "initial", 1000)),
    # the N-player rows of farl's Table 1 (their opponents and start sets)
    "sim": (Measure("mcts1000", "initial", 20), Measure("maxn1", "initial", 20)),
    "yavalath": (Measure("mcts1000", "initial", 20), Measure("maxn1", "initial", 20)),
    "chinese_checkers": (Measure("random", "initial", 20), Measure("paranoid1", "initial", 20),
                         Measure("paranoid2", "initial", 20), Measure("mcts10", "initial", 20)),
    "einstein_wurfelt_nicht": (Measure("mcts300", "initial", 10),),
    # the games of Cohen-Solal 2020's comparisons
    **{game: (Measure("random", "initial", 10), Measure("mcts100", "initial", 10))
       for game in ("clobber", "santorini", "breakthrough", "outer_open_gomoku", "surakarta", "lines_of_action",
                    "amazons")},
}
"""What a card measures, per game: the reference opponents and start sets of the paper's Table 1 (Max-N,
Bouton's perfect Nim, MCTS, the perfect Connect Four player AB and its loss-delaying AB-DL, Othello's Bench,
2048 alone; the 2x2x2 cube's solve rate at scramble depths 5, 9 and 13, GBG's measure; Blackjack's exact
expected return per round) and of farl's N-player rows, in every seat (Sim K12 and Yavalath also against
Max-N1, one ply greedy on the heuristic their shaping adds: the control that shows what learning added);
TicTacToe also from the empty board alone; the games of the descent comparisons against random play and a small
MCTS (``games`` is per seat; None: one game per start position)."""

NPLAYER_PRESETS = {"sim": "sim12_3p", "yavalath": "yavalath3p_taught", "chinese_checkers": "chinese_checkers3p",
                   "einstein_wurfelt_nicht": "ewn3p"}
"""The N-player games' builds: the preset of their Table 1 row
(:func:`~farl_agents.learners.presets.nplayer_config`)."""

DESCENT_GAMES = {"clobber": "clobber", "santorini": "santorini", "breakthrough": "breakthrough6",
                 "outer_open_gomoku": "oogomoku9", "surakarta": "surakarta", "lines_of_action": "loa",
                 "amazons": "amazons6"}
"""The descent comparisons' games (Cohen-Solal 2020; farl has no paper preset for them): the board of their
comparison (:data:`studies.descent.paper_games.GAMES`) and its TD-FARL settings with tuples as long as
:func:`~farl_agents.learners.presets.fitting_tuple_length` allows, for :data:`DESCENT_EPISODES`."""

DESCENT_EPISODES = 100_000

CUBE_PRESETS = {"rubiks_cube": "cube2_htm"}
"""The cube's build: GBG's published 2x2x2 half-turn run (:func:`~farl_agents.learners.presets.cube_config`),
which solves 95.5 % of the cubes scrambled by 13 twists in docs/results/rubiks_cube.md."""

BLACKJACK_SETTINGS = dict(algo="td", farl=False, farl_terminal=False, ntuples="fixed", tanh_output=False, alpha=0.05,
                          alpha_final=0.0005, epsilon=0.2, epsilon_final=0.0, episodes=400_000_000)
"""Blackjack's build: the learner of docs/results/blackjack.md that comes closest to basic strategy, TD without
final adaptation on the game's declared five 5-tuples, linear output, α 0.05 -> 0.0005 (exponential), ε 0.2 -> 0
(linear), for 400,000,000 rounds (-0.626 % exact; 100,000,000: -0.664 %; basic strategy -0.571 %), 6 to 13 minutes
of one core."""

POKER_SETTINGS = dict(algo="td", ntuples="random-walk", ntuple_count=20, ntuple_length=3, alpha=0.2,
                      alpha_final=0.01, epsilon=0.1, epsilon_final=0.0, teacher="equity", teacher_share=0.5,
                      episodes=500_000)
POKER_PARAMS = {"hands": 1}
"""Poker's build: the ``h1-teacher`` row of docs/results/poker.md, the one learner there that beats ``random`` and
``call`` and comes near ``equity`` (+0.3, -0.3 and -1.7 chips per hand against it over its three seeds, 4000
games per seat): TD-FARL on 20 random walks of 3 cells, α 0.2 -> 0.01, ε 0.1 -> 0, the other seat played by the
``equity`` reference half of the time, 500,000 episodes of one hand each (``hands=1``: a card reads chips won
per hand). Self-play alone loses 3.5 to 9.8 chips per hand to ``equity``."""

def preset_of(game: str) -> tuple[LearnerConfig, dict, str]:
    """``(settings, game parameters, where they come from)`` of ``game``'s build."""
    if game in preset_names():
        return paper_config(game), paper_game_params(game), "paper (Konen & Bagheri 2020, Appendix A.6)"
    if game in NPLAYER_PRESETS:
        name = NPLAYER_PRESETS[game]
        return nplayer_config(name), nplayer_game(name)[1], f"{name} (farl's N-player Table 1 preset)"
    if game in CUBE_PRESETS:
        name = CUBE_PRESETS[game]
        return cube_config(name), cube_game(name)[1], f"{name} (GBG's published cube run, Konen 2023)"
    if game == "blackjack":
        return (LearnerConfig(**BLACKJACK_SETTINGS), {},
                "the TD row of docs/results/blackjack.md (farl's own measurement: no paper has a preset)")
    if game == "poker":
        return (LearnerConfig(**POKER_SETTINGS), dict(POKER_PARAMS),
                "the h1-teacher row of docs/results/poker.md (farl's own measurement: no paper has a preset)")
    from studies.descent.experiments import td_config
    from studies.descent.paper_games import GAMES as DESCENT_SETUPS

    setup = DESCENT_SETUPS[DESCENT_GAMES[game]]
    length = fitting_tuple_length(farl_envs.game_spec(game, **setup.params).n_cell_values)
    return (td_config(game, 0, episodes=DESCENT_EPISODES, ntuple_length=length), dict(setup.params),
            f"{setup.key} (the TD-FARL settings of farl's descent comparisons, Cohen-Solal 2020's games, "
            f"{length}-tuples)")

GAMES = tuple(STRENGTH_PLAN)


def check_game(game: str) -> str:
    """``game`` without ``_v0`` if it has a pretrained build plan, else a ValueError naming those that have."""
    key = game.removesuffix("_v0") if isinstance(game, str) else game
    if key not in STRENGTH_PLAN:
        raise ValueError(f"no pretrained build plan for {game!r}; the games with one: {', '.join(GAMES)}")
    return key


def check_budget(budget: str) -> str:
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; use one of {', '.join(BUDGETS)}")
    return budget


def build_command(game: str, budget: str) -> str:
    """The command line that builds ``game``'s agent at ``budget`` (stored in the run and on the card)."""
    return f"farl pretrained build {shlex.quote(game)} --budget {budget}"


def run_spec(game: str, budget: str) -> RunSpec:
    """The run of a pretrained build: TD-FARL with the game's preset and parameters (:func:`preset_of`), seed 0,
    no evaluation during training (the card's measurement comes after)."""
    game, budget = check_game(game), check_budget(budget)
    config, params, _ = preset_of(game)
    if budget == "quick":
        config = config.replace(episodes=max(1, config.episodes // QUICK_FRACTION))
    return RunSpec(game, params, config, eval_vs=(), family="ntuple")


def run_folder(game: str, budget: str, runs_root: str | Path = "runs/pretrained") -> Path:
    return Path(runs_root) / (game if budget == "paper" else f"{game}-{budget}")


def open_run(game: str, budget: str, runs_root: str | Path = "runs/pretrained") -> Run:
    """The build's run: continued if its folder holds one (it must be the same run), else created."""
    spec = run_spec(game, budget)
    folder = run_folder(spec.game, budget, runs_root)
    if (folder / "run.json").exists():
        run = Run.open(folder)
        if run.spec != spec:
            raise RunError(f"{folder} holds another run than `{build_command(spec.game, budget)}` trains; "
                           f"move it away or give another runs folder")
        return run
    return Run.create(folder, spec, command=build_command(spec.game, budget))


def train(game: str, budget: str = "paper", runs_root: str | Path = "runs/pretrained", progress: bool = False,
          stop_after: float | None = None) -> tuple[Run, str]:
    """Train (or continue training) the build's run; returns the run and its status (``done``, ``stopped``,
    ``interrupted``). ``stop_after`` (``--stop-after``): a finite number of episodes >= 0, else ValueError."""
    if stop_after is not None and (isinstance(stop_after, bool) or not isinstance(stop_after, (int, float))
                                   or not math.isfinite(stop_after) or stop_after < 0):
        raise ValueError(f"--stop-after must be a finite number of episodes >= 0, got {stop_after!r}")
    run = open_run(game, budget, runs_root)
    status = run.train(stop_after=stop_after, progress=progress)
    return run, status


# ----------------------------------------------------------------------------------------------------
# measuring
# ----------------------------------------------------------------------------------------------------
def measure(agent, game: str | None = None, seed: int = 0, jobs: int = 1) -> list[dict]:
    """The card's strength lines: ``agent`` against each :data:`STRENGTH_PLAN` entry of its game, every seat.

    Each line: opponent, start set, games per seat, metric (``win_rate`` for two players, ``mean_score``
    otherwise), score and standard error, wins / draws / losses over all seats, and the same per seat.
    """
    from farl_agents.runs.evaluation import evaluate_agent

    key = check_game(game or agent.game.name)
    lines = []
    for m in STRENGTH_PLAN[key]:
        if isinstance(m, SolveRate):
            lines.append(solve_rate_line(agent, m, seed))
            continue
        if isinstance(m, ExactReturn):
            lines.append(exact_return_line(agent, seed))
            continue
        result = evaluate_agent(agent, [m.opponent], starts=m.starts, n_games=m.games, seed=seed, jobs=jobs)
        mu = result.matchups[0]
        se = mu.win_rate_se if mu.win_rate is not None else mu.score_se
        lines.append({
            "opponent": m.opponent, "starts": m.starts, "games_per_seat": mu.n_games // len(mu.per_seat),
            "metric": result.metric, "score": float(mu.score), "se": float(se),
            "wins": mu.wins, "draws": mu.draws, "losses": mu.losses,
            "per_seat": [{"seat": s.seat, "games": s.n_games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
                          "score": float(s.win_rate if s.win_rate is not None else s.mean_score)}
                         for s in mu.per_seat]})
    return lines


def solve_rate_line(agent, m: SolveRate, seed: int = 0) -> dict:
    """A card line of ``m``: the study's solve rate of ``agent`` (one seat, "wins" the solved cubes), its binomial
    standard error and the mean twists of the solved cubes."""
    from studies.rubiks.solve_rates import solve_rate

    g = agent.game
    rate, twists = solve_rate(agent, int(g.params["size"]), g.params["metric"], m.depth, m.games,
                              int(g.params["max_twists"]), seed, allow_undo=bool(g.params["allow_undo"]))
    solved = round(rate * m.games)
    return {"opponent": m.opponent, "starts": m.starts, "games_per_seat": m.games, "metric": "solve_rate",
            "score": float(rate), "se": math.sqrt(rate * (1 - rate) / m.games),
            "mean_twists": round(twists, 2) if solved else None,
            "wins": solved, "draws": 0, "losses": m.games - solved,
            "per_seat": [{"seat": 0, "games": m.games, "wins": solved, "draws": 0, "losses": m.games - solved,
                          "score": float(rate)}]}


def exact_return_line(agent, seed: int = 0) -> dict:
    """The card line of :class:`ExactReturn` for a Blackjack ``agent`` (ties between its actions drawn once per
    board from ``seed``): its exact return (``score``, s.e. 0, no games) and the two references."""
    from farl_agents.opponents.blackjack import exact_return, expected_return
    from farl_envs.core.rng import make_rng

    g = agent.game
    rng = make_rng(seed)
    value = exact_return(g, lambda s: agent.act(g, s, rng))
    h17 = bool(g.params["dealer_hits_soft17"])
    return {"opponent": ExactReturn.opponent, "starts": ExactReturn.starts, "games_per_seat": 0,
            "metric": "exact_return", "score": float(value), "se": 0.0,
            "basic_strategy": expected_return("basic", h17), "optimal": expected_return("optimal", h17),
            "wins": 0, "draws": 0, "losses": 0,
            "per_seat": [{"seat": 0, "games": 0, "wins": 0, "draws": 0, "losses": 0, "score": float(value)}]}


def no_loss(reference: list[dict], candidate: list[dict]) -> bool:
    """True when ``candidate`` scores no worse than ``reference`` on every line: not lower by more than the
    larger of the two standard errors, and (two players) with no more losses. Both must come from the same
    plan and seed (the harness then deals both agents the same random numbers)."""
    for r, c in zip(reference, candidate, strict=True):
        if (r["opponent"], r["starts"]) != (c["opponent"], c["starts"]):
            raise ValueError("the two measurements follow different plans")
        if c["score"] < r["score"] - max(r["se"], c["se"]):
            return False
        if r["metric"] == "win_rate" and c["losses"] > r["losses"]:
            return False
    return True


STORAGES = {
    "coded-256": "levels",
    "float16-largest-half": "float16",
    "float16-rounded": "float16",
    "float32": None,
}
"""How a shipped agent's weights can be stored, smallest file first, each with its
:meth:`~farl_agents.learners.agent.NTupleAgent.save` format. ``coded-256`` rounds the non-zero weights to 256
values (:func:`~farl_agents.learners.agent_io.quantize`; a byte each), ``float16-largest-half`` keeps the larger
half of them by magnitude (the rest become 0, as for a pattern never seen) in float16 precision,
``float16-rounded`` all of them in float16 precision, ``float32`` all as trained. A build ships the first one
whose measurement is no worse than float32's (:func:`no_loss`); the card lists what each tried storage
measured (``storage_trials``)."""


def playing_copy(agent, storage: str = "float32"):
    """The agent as shipped: the same tuples and weights without the TCL accumulators, with the weights
    rounded as ``storage`` (a key of :data:`STORAGES`) says.

    Temporal coherence learning (Beal & Smith 1999) only scales the learning steps; a move is chosen from
    the weights alone, so the float32 copy plays exactly like ``agent`` while its file is a third of the size
    (it cannot continue the training bit for bit: the run folder keeps the full agent for that). Raises
    ValueError for an unknown storage and (float16) for a weight beyond float16's range.
    """
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.agent_io import quantize
    from farl_agents.ntuple.network import as_dense

    if storage not in STORAGES:
        raise ValueError(f"unknown storage {storage!r}; use one of {', '.join(STORAGES)}")
    copy = NTupleAgent(agent.game, agent.config.replace(tcl="none"), tuples=agent.tuples, layout="dense")
    weights = np.array(as_dense(agent.net, agent.net.weights), dtype=np.float32)
    flat = weights.reshape(-1)
    live = np.flatnonzero(flat)
    if storage == "float16-largest-half" and live.size:
        magnitude = np.abs(flat[live])
        smaller = live[magnitude < np.median(magnitude)]
        flat[smaller] = 0.0
    if storage.startswith("float16"):
        half = flat.astype(np.float16)
        if not np.isfinite(half).all():
            raise ValueError("weights beyond float16's range: keep float32")
        flat[:] = half
    elif storage == "coded-256":
        codes, levels = quantize(flat[live])
        flat[live] = levels[codes]  # a level of exactly 0 would only drop the entry, as a zero weight is absent
    copy.net.weights[...] = weights
    copy.agent_rng[:] = agent.agent_rng
    copy.env_rng[:] = agent.env_rng
    copy.episodes_done = agent.episodes_done
    return copy


# ----------------------------------------------------------------------------------------------------
# files and cards
# ----------------------------------------------------------------------------------------------------
def sha256_of(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_card(out_dir: Path, game: str, card: dict) -> Path:
    """Write ``card`` as ``out_dir/GAME.json`` atomically, after the agent file it describes."""
    path = Path(out_dir) / f"{game}.json"
    atomic_write_json(path, card)
    return path


def build(game: str, budget: str = "paper", out_dir: str | Path | None = None,
          runs_root: str | Path = "runs/pretrained", progress: bool = True, stop_after: float | None = None,
          jobs: int = 1, log=print) -> dict | None:
    """Train (resumably), measure and publish ``game``'s pretrained agent; returns its card (None when the
    training stopped before the budget: run the same command again to continue).

    ``out_dir`` defaults to the package folder ``farl_agents/pretrained`` (of the farl this runs on: in a source
    checkout, the files git ships).
    """
    from farl_agents import __version__

    game, budget = check_game(game), check_budget(budget)
    out_dir = Path(out_dir) if out_dir is not None else Path(farl_agents.__file__).parent / "pretrained"
    run, status = train(game, budget, runs_root, progress=progress, stop_after=stop_after)
    if status != "done":
        log(f"{status} at {int(run.trainer.done):,} of {int(run.trainer.total):,} episodes; continue with: "
            f"{build_command(game, budget)}")
        return None
    agent = run.trainer.agent
    if not np.any(agent.net.weights):
        raise RunError(f"{game}: after {int(run.trainer.done):,} episodes every weight is still 0 (no training game "
                       f"ended with a reward): such an agent plays at random, so none is shipped")
    log(f"trained {int(run.trainer.done):,} episodes in {run.folder}; measuring its strength ...")
    full = playing_copy(agent)
    strength32 = measure(full, game, jobs=jobs)
    storage, chosen, strength = "float32", full, strength32
    trials = []
    for candidate in list(STORAGES)[:-1]:  # smallest first
        try:
            copy = playing_copy(agent, candidate)
        except ValueError as exc:
            log(f"{candidate}: {exc}")
            continue
        measured = measure(copy, game, jobs=jobs)
        trials.append({"storage": candidate, "strength": measured})
        if no_loss(strength32, measured):
            storage, chosen, strength = candidate, copy, measured
            break
        log(f"the {candidate} weights play worse than float32: not shipped that way")
    out_dir.mkdir(parents=True, exist_ok=True)
    agent_path = chosen.save(out_dir / f"{game}.npz", weight_format=STORAGES[storage])
    spec = run.spec
    record = json.loads((run.folder / "run.json").read_text())
    card = {
        "format": "farl-pretrained-card", "version": 1,
        "game": game, "game_params": dict(spec.game_params),
        "file": agent_path.name, "sha256": sha256_of(agent_path), "size_bytes": agent_path.stat().st_size,
        "storage": storage,
        "command": record.get("command") or build_command(game, budget), "budget": budget,
        "episodes": int(run.trainer.done), "preset": preset_of(game)[2],
        "algo": "td-farl", "seed": int(spec.config.seed), "config": spec.config.to_dict(),
        "shipped_without": "TCL accumulators" if spec.config.tcl != "none" else None,
        "train_seconds": round(float(run.train_seconds), 1),
        "farl_version": __version__, "built": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "strength": strength,
        "strength_float32": strength32,
        "storage_trials": trials,
    }
    write_card(out_dir, game, card)
    return card
