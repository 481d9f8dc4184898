"""Search-distilled values: fit a trained n-tuple agent to what a PUCT search around it says its moves are worth.

Why: on 2-player EinStein würfelt nicht (``docs/results/nplayer_learning.md`` §9) every merged TD learner wins
about 59 % against MCTS1000 bare, whatever its settings, while the same agent inside PUCT 10,000 (the search
wrapper of Scheiermann & Konen 2022, ``farl_agents.opponents.puct``) wins about 63 %. TD's targets look one roll
ahead; the search looks many plies ahead through the agent's own values. This study takes the search's values as
regression targets for the bare network, once, starting from the agent's weights: one improvement step of the
kind AlphaZero repeats (Silver et al. 2018 fit a value net to search results), with an n-tuple network.

Two steps, each resumable:

1. ``generate``: games in which both seats are played by the agent inside PUCT (``--iterations``). At every
   position with two or more legal moves the search's root statistics give each move's visit count and its
   mean return for the mover; every move searched at least ``--min-visits`` times whose afterstate does not end
   the game becomes a sample ``(afterstate, mover, mean return)``. The move played is drawn in proportion to the
   visits for the first ``--explore-plies`` plies (more varied positions) and is the most visited one after.
   Games come in chunks of ``--chunk-games`` with their own seeds (``chunk-00007.npz``, written atomically); a
   chunk already on disk is not played again, so a stopped run continues where it was.
2. ``fit``: the agent's weights move towards the samples' targets by plain stochastic gradient steps on the
   squared error (the TD learner's own update rule, with the target given), for ``--epochs`` passes in a
   seeded random order. With ``--relative`` only the differences between one position's moves are fitted
   (each value towards its target less the position's mean target plus its mean value): a greedy agent's choice
   depends on those alone, and an error common to all of a position's moves costs nothing. Each chunk whose
   number ends in 9 is held out; the page of the run (``fit.json``) gives the mean squared error, plain and
   centred on each position's mean, on the held-out samples before and after, so an over-fitted step size shows.

3. ``agree`` (a diagnostic): on positions of an agent's own greedy games, how often bare agents play the move the
   search around it visits most, and what their choices cost by the search's values: a low-noise proxy for how
   close a fitted agent has come to its searched self.

The targets are in the game's reward units; the tables learn them less the agent's shaping term (an agent
trained with progress shaping values a position as its tables plus ``w·Φ``), as the TD learner's tables do.

Run::

    python -m studies.nplayer.distill generate --agent runs/nplayer/ewn2-c3-exp-len7-1m-ens8 \\
        --iterations 10000 --chunks 0-39 --chunk-games 25 --jobs 2 --out runs/nplayer/distill-ens8-p10k
    python -m studies.nplayer.distill fit --agent runs/nplayer/ewn2-c3-exp-len7-1m-ens8 \\
        --data runs/nplayer/distill-ens8-p10k --alpha 0.05 --epochs 2 --out runs/nplayer/ewn2-distilled

    python -m studies.nplayer.distill agree --search-agent runs/nplayer/ewn2-c3-exp-len7-1m-ens8 \
        --agents runs/nplayer/ewn2-c3-exp-len7-1m-ens8 runs/nplayer/ewn2-distilled --positions 300

The fitted agent is an ordinary farl agent (``<out>/agent.npz``): ``farl eval <out> --vs mcts1000``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from farl_agents.atomic import atomic_file, atomic_write_json
from farl_agents.backend import run_tasks
from farl_agents.learners import td_farl
from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.kernels import potential
from farl_agents.loading import agent_file
from farl_agents.ntuple.network import apply_change, board_indices, value
from farl_agents.openings import seeded_rng
from farl_agents.opponents.puct import PUCT
from farl_agents.safe_files import read_json
from farl_agents.safety import StopRequest
from farl_envs.core.spec import PLY, TERMINAL, TO_MOVE

SETTINGS = ("agent", "iterations", "chunk_games", "min_visits", "explore_plies", "seed")
"""What a data folder's chunks depend on (``settings.json``): a resumed run must repeat them."""
HELD_OUT_DIGIT = 9
"""Chunks whose number ends in this digit are held out of the fit and measure it."""
_ENV, _PLAYER = 0, 1


def load_agent(path) -> NTupleAgent:
    """The agent of an agent file or run folder; ``SystemExit`` with the reason when there is none to load."""
    try:
        return NTupleAgent.load(agent_file(str(path)))
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


def chunk_path(out: Path, chunk: int) -> Path:
    return out / f"chunk-{chunk:05d}.npz"


# ----------------------------------------------------------------------------------------------- generate
def search_samples(game, search, state, rng, min_visits: int):
    """Search ``state``; return ``(samples, visits)``: one ``(afterstate, mover, mean return)`` per legal move
    searched at least ``min_visits`` times whose afterstate does not end the game, and every move's visits."""
    visits, returns = search.search(game, state, rng)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, state, mask)
    mover = int(state[TO_MOVE])
    rewards = np.zeros(game.n_players)
    samples = []
    for a in np.flatnonzero(mask):
        if visits[a] < min_visits:
            continue
        after = np.array(state, dtype=np.int32, copy=True)
        game.afterstate(game.p, after, int(a), after, rewards)
        if after[TERMINAL]:
            continue
        samples.append((after, mover, float(returns[a, mover])))
    return samples, np.where(mask != 0, visits, 0.0)


def play_game(game, search, task: dict, g: int, afters: list, movers: list, targets: list) -> tuple[int, int]:
    """Play game ``g`` of ``task``'s chunk with ``search`` in both seats, appending its samples to the lists;
    return ``(plies, positions searched)``."""
    env_rng = seeded_rng(task["seed"], task["chunk"], g, _ENV)
    rng = seeded_rng(task["seed"], task["chunk"], g, _PLAYER)
    choose = np.random.default_rng([task["seed"], task["chunk"], g])
    s = game.initial_state(game.p, env_rng)
    rewards = np.zeros(game.n_players)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    ply = positions = 0
    while not s[TERMINAL]:
        game.legal_actions(game.p, s, mask)
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            a = int(legal[0])
        else:
            samples, visits = search_samples(game, search, s, rng, task["min_visits"])
            positions += 1
            for after, mover, target in samples:
                afters.append(after)
                movers.append(mover)
                targets.append(target)
            if ply < task["explore_plies"]:
                a = int(choose.choice(game.n_actions, p=visits / visits.sum()))
            else:
                a = int(np.argmax(visits))
        game.afterstate(game.p, s, a, s, rewards)
        if game.has_chance and not s[TERMINAL]:
            game.chance(game.p, s, env_rng)
        ply += 1
    return ply, positions


def play_chunk(task: dict) -> dict:
    """Play one chunk's games (see the module docstring) and write its samples; a worker's task. A stop request
    (Ctrl-C, or the parent's) ends it before its next game without a file: the next run plays it again."""
    out = Path(task["out"])
    path = chunk_path(out, task["chunk"])
    if path.exists():
        return {"status": "kept", "chunk": task["chunk"]}
    agent = load_agent(task["agent"])
    game = agent.game
    search = PUCT(agent, task["iterations"])
    afters, movers, targets = [], [], []
    positions = plies = 0
    started = time.time()
    with StopRequest() as stop:
        for g in range(task["chunk_games"]):
            if stop.requested:
                return {"status": "interrupted", "chunk": task["chunk"]}
            game_plies, game_positions = play_game(game, search, task, g, afters, movers, targets)
            plies += game_plies
            positions += game_positions
    arrays = {"afterstates": np.array(afters, dtype=np.int32).reshape(-1, game.state_size),
              "movers": np.array(movers, dtype=np.int8), "targets": np.array(targets, dtype=np.float64)}
    with atomic_file(path, "wb") as fh:
        np.savez(fh, **arrays)
    return {"status": "done", "chunk": task["chunk"], "samples": len(targets), "positions": positions,
            "plies": plies, "seconds": round(time.time() - started, 1)}


def check_settings(out: Path, settings: dict) -> None:
    """Write ``settings.json`` on the first run; refuse other settings on a resumed one."""
    path = out / "settings.json"
    if path.exists():
        old = read_json(path)
        if old != settings:
            diff = {k: (old.get(k), settings.get(k)) for k in SETTINGS if old.get(k) != settings.get(k)}
            raise SystemExit(f"{out} holds chunks of other settings (was, now): {diff}; use another --out")
    else:
        atomic_write_json(path, settings)


def generate(args) -> int:
    out = Path(args.out)
    settings = {"agent": str(args.agent), "iterations": args.iterations, "chunk_games": args.chunk_games,
                "min_visits": args.min_visits, "explore_plies": args.explore_plies, "seed": args.seed}
    load_agent(args.agent)  # a clear error now, not in every worker
    check_settings(out, settings)
    tasks = [dict(settings, chunk=c, out=str(out)) for c in args.chunks if not chunk_path(out, c).exists()]
    print(f"{len(args.chunks) - len(tasks)} chunks on disk, {len(tasks)} to play", flush=True)

    def report(r: dict) -> None:
        if r["status"] == "interrupted":
            print(f"chunk {r['chunk']}: stopped, to be played on the next run", flush=True)
        if r["status"] == "done":
            print(f"chunk {r['chunk']}: {r['samples']} samples from {r['positions']} positions, "
                  f"{r['plies']} plies, {r['seconds']} s", flush=True)

    run_tasks(play_chunk, tasks, jobs=args.jobs, progress=not args.quiet, desc="chunks", on_result=report,
              describe=lambda r: f"chunk {r['chunk']}: {r.get('samples', 0)} samples")
    return 0


# ----------------------------------------------------------------------------------------------- fit
def load_samples(data: Path, chunks: list[int]):
    """The samples of ``chunks`` (files on disk), concatenated: afterstates, movers, targets."""
    afters, movers, targets = [], [], []
    for c in chunks:
        with np.load(chunk_path(data, c), allow_pickle=False) as z:
            afters.append(z["afterstates"])
            movers.append(z["movers"])
            targets.append(z["targets"])
    if not afters:
        return np.zeros((0, 0), np.int32), np.zeros(0, np.int8), np.zeros(0)
    return np.concatenate(afters), np.concatenate(movers).astype(np.int64), np.concatenate(targets)


def table_inputs(agent: NTupleAgent, afters: np.ndarray, movers: np.ndarray, targets: np.ndarray):
    """Each sample's n-tuple board, and its target in table units: the target in the network's reward scale less
    the agent's shaping term ``w·Φ_mover`` (see the module docstring)."""
    game, cfg = agent.game, agent.config
    boards = np.zeros((len(targets), game.n_cells), dtype=np.int32)
    shaped = np.zeros(len(targets))
    phi = np.zeros(game.n_players)
    for k in range(len(targets)):
        game.board(game.p, afters[k], boards[k])
        if cfg.shaping != 0.0:
            shaped[k] = cfg.shaping * potential(agent.potential, game.p, afters[k], phi, int(movers[k]))
    return boards, targets * cfg.reward_scale - shaped


@njit(cache=True)
def fit_pass(net, boards, movers, targets, order, alpha, tanh_output, idx, skip, train):
    """One pass over ``order``: each sample's squared error (before its own step), summed; with ``train``, a
    gradient step of size ``alpha`` on it (``alpha / (m · N_S)`` per weight, as the TD learner's)."""
    step = alpha / (idx.shape[0] * idx.shape[1])
    total = 0.0
    for k in order:
        board_indices(net, boards[k], idx)
        v = value(net, movers[k], 0, idx, tanh_output)
        err = targets[k] - v
        total += err * err
        if train:
            grad = 1.0 - v * v if tanh_output else 1.0
            apply_change(net, movers[k], 0, idx, step, err * grad, False, 0.0, skip)
    return total


def position_groups(afters: np.ndarray, movers: np.ndarray) -> np.ndarray:
    """``int64[n_groups + 1]``: where each searched position's samples start (and the end). ``generate`` writes a
    position's samples one after another, and they share the mover and the afterstate's ply count, which the next
    searched position does not (its ply count is larger, or a new game's is smaller)."""
    if len(movers) == 0:
        return np.zeros(1, dtype=np.int64)
    key = afters[:, PLY].astype(np.int64) * 64 + movers
    breaks = np.flatnonzero(key[1:] != key[:-1]) + 1
    return np.concatenate([[0], breaks, [len(movers)]]).astype(np.int64)


@njit(cache=True)
def fit_relative_pass(net, boards, movers, targets, starts, order, alpha, tanh_output, idx, skip, values, train):
    # idx: int64[largest position, n_sym, m], each move's indices, read once for its value and its step
    """One pass over the positions in ``order`` fitting the *differences* between a position's moves: each move's
    value moves towards its target less the position's mean target plus the position's mean value (the exact
    gradient of the squared error of the centred values). Returns the summed squared error of the centred values
    (before each position's steps); positions with one sample carry no difference and are skipped."""
    step = alpha / (idx.shape[1] * idx.shape[2])
    total = 0.0
    for g in order:
        lo, hi = starts[g], starts[g + 1]
        n = hi - lo
        if n < 2:
            continue
        mean_v = 0.0
        mean_t = 0.0
        for k in range(lo, hi):
            board_indices(net, boards[k], idx[k - lo])
            values[k - lo] = value(net, movers[k], 0, idx[k - lo], tanh_output)
            mean_v += values[k - lo] / n
            mean_t += targets[k] / n
        for k in range(lo, hi):
            err = (targets[k] - mean_t) - (values[k - lo] - mean_v)
            total += err * err
            if train:
                v = values[k - lo]
                grad = 1.0 - v * v if tanh_output else 1.0
                apply_change(net, movers[k], 0, idx[k - lo], step, err * grad, False, 0.0, skip)
    return total


def own_tables(agent: NTupleAgent) -> np.ndarray:
    """``int64[n_players]``: the weight set in which each player values its own afterstates."""
    n = agent.game.n_players
    return np.array([td_farl.table_of(agent.params, n, m, m) for m in range(n)], dtype=np.int64)


def squared_error(agent: NTupleAgent, boards, movers, targets, order=None, alpha: float = 0.0) -> float:
    """The mean squared error of ``agent``'s tables on the samples (in table units; the shaping term cancels);
    with ``alpha > 0`` it also trains on them, in ``order``, and the error is each sample's before its step."""
    if len(targets) == 0:
        return float("nan")
    order = np.arange(len(targets)) if order is None else order
    idx = np.empty(agent.net.sym_cells.shape[:2], dtype=np.int64)
    skip = np.zeros((0, 0), dtype=np.bool_)
    total = fit_pass(agent.net, boards, own_tables(agent)[movers], targets, order, float(alpha),
                     agent.params.tanh_output, idx, skip, alpha > 0.0)
    return total / len(targets) / agent.config.reward_scale ** 2


def relative_error(agent: NTupleAgent, boards, movers, targets, starts, order=None, alpha: float = 0.0) -> float:
    """:func:`squared_error` of the values centred on their position's mean against the targets centred alike (the
    error that decides which move a greedy agent picks), per sample of positions with two or more; with ``alpha
    > 0`` also a :func:`fit_relative_pass` in ``order`` (of positions)."""
    sizes = np.diff(starts)
    counted = int(sizes[sizes >= 2].sum())
    if counted == 0:
        return float("nan")
    order = np.arange(len(sizes)) if order is None else order
    largest = max(int(sizes.max()), 1)
    idx = np.empty((largest, *agent.net.sym_cells.shape[:2]), dtype=np.int64)
    values = np.zeros(largest)
    total = fit_relative_pass(agent.net, boards, own_tables(agent)[movers], targets, starts, order, float(alpha),
                              agent.params.tanh_output, idx, np.zeros((0, 0), dtype=np.bool_), values, alpha > 0.0)
    return total / counted / agent.config.reward_scale ** 2


def fit(args) -> int:
    data, out = Path(args.data), Path(args.out)
    settings = read_json(data / "settings.json")
    chunks = sorted(int(p.stem.split("-")[1]) for p in data.glob("chunk-*.npz"))
    held = [c for c in chunks if c % 10 == HELD_OUT_DIGIT]
    train = [c for c in chunks if c % 10 != HELD_OUT_DIGIT]
    if not train:
        raise SystemExit(f"{data} has no training chunks (chunks ending in {HELD_OUT_DIGIT} are held out)")
    agent = load_agent(args.agent)
    if agent.config.algo != "td" or agent.net.weights.shape[0] != 1:
        raise SystemExit("fit takes a TD agent (one output per weight set)")
    if not 0.0 < args.tanh_clip < 1.0:
        raise SystemExit(f"--tanh-clip must be in (0, 1), got {args.tanh_clip}")
    afters_train, movers_train, raw_train = load_samples(data, train)
    boards_train, targets_train = table_inputs(agent, afters_train, movers_train, raw_train)
    afters, movers_held, raw_held = load_samples(data, held)
    boards_held, targets_held = table_inputs(agent, afters, movers_held, raw_held)
    if agent.params.tanh_output:
        targets_train = np.clip(targets_train, -args.tanh_clip, args.tanh_clip)
        targets_held = np.clip(targets_held, -args.tanh_clip, args.tanh_clip)
    starts_train = position_groups(afters_train, movers_train)
    starts_held = position_groups(afters, movers_held)

    def errors(boards, movers, targets, starts) -> dict:
        return {"mse": round(squared_error(agent, boards, movers, targets), 6),
                "relative_mse": round(relative_error(agent, boards, movers, targets, starts), 6)}

    before = {"training": errors(boards_train, movers_train, targets_train, starts_train),
              "held_out": errors(boards_held, movers_held, targets_held, starts_held)}
    print(f"{len(targets_train):,} training samples ({len(train)} chunks, {len(starts_train) - 1:,} positions), "
          f"{len(targets_held):,} held out ({len(held)} chunks); before: {before}", flush=True)
    order_rng = np.random.default_rng(args.seed)
    passes = []
    for e in range(args.epochs):
        if args.relative:
            relative_error(agent, boards_train, movers_train, targets_train, starts_train,
                           order_rng.permutation(len(starts_train) - 1), args.alpha)
        else:
            squared_error(agent, boards_train, movers_train, targets_train, order_rng.permutation(len(targets_train)),
                          args.alpha)
        passes.append({"epoch": e + 1, "held_out": errors(boards_held, movers_held, targets_held, starts_held)})
        print(f"epoch {e + 1}: held out {passes[-1]['held_out']}", flush=True)
    agent.save(out / "agent.npz")
    atomic_write_json(out / "fit.json", {
        "agent": str(args.agent), "data": str(data), "data_settings": settings, "alpha": args.alpha,
        "epochs": args.epochs, "relative": args.relative, "seed": args.seed, "tanh_clip": args.tanh_clip,
        "training_chunks": len(train), "held_out_chunks": len(held), "training_samples": int(len(targets_train)),
        "held_out_samples": int(len(targets_held)), "before": before,
        "after": {"training": errors(boards_train, movers_train, targets_train, starts_train),
                  "held_out": passes[-1]["held_out"]}, "passes": passes})
    print(f"wrote {out / 'agent.npz'} and {out / 'fit.json'}", flush=True)
    return 0


# ----------------------------------------------------------------------------------------------- agree
def agreement(search_agent: NTupleAgent, agents: list, iterations: int, positions: int, seed: int) -> dict:
    """How often each of ``agents`` (bare, greedy) plays the move PUCT ``iterations`` around ``search_agent``
    visits most, and what each choice costs by the search's own values, on the positions of ``search_agent``'s
    own greedy games (from ``seed``) where two or more moves are legal.

    The cost of a choice is the search's mean return of its most visited move less that of the chosen move, for
    the mover (0 when they agree; a move the search never tried counts as the worst move it tried). A cheap, low-noise
    proxy for how far a bare agent plays from its searched self, where a win rate needs thousands of games."""
    game = search_agent.game
    search = PUCT(search_agent, iterations)
    agree = np.zeros(len(agents))
    cost = np.zeros(len(agents))
    seen = g = 0
    rewards = np.zeros(game.n_players)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    while seen < positions:
        env_rng, rng = seeded_rng(seed, g, _ENV), seeded_rng(seed, g, _PLAYER)
        g += 1
        s = game.initial_state(game.p, env_rng)
        while not s[TERMINAL] and seen < positions:
            game.legal_actions(game.p, s, mask)
            if mask.sum() > 1:
                visits, returns = search.search(game, s, rng)
                mover = int(s[TO_MOVE])
                best = int(np.argmax(visits))
                q = np.where(visits > 0, returns[:, mover], np.nan)
                for k, agent in enumerate(agents):
                    a = agent.act(game, s.copy(), rng)
                    agree[k] += a == best
                    cost[k] += q[best] - (q[a] if visits[a] > 0 else np.nanmin(q))
                seen += 1
            game.afterstate(game.p, s, search_agent.act(game, s.copy(), rng), s, rewards)
            if game.has_chance and not s[TERMINAL]:
                game.chance(game.p, s, env_rng)
    return {"positions": seen, "games": g, "iterations": iterations, "seed": seed,
            "agreement": (agree / seen).round(4).tolist(), "mean_cost": (cost / seen).round(5).tolist()}


def agree(args) -> int:
    search_agent = load_agent(args.search_agent)
    agents = [load_agent(a) for a in args.agents]
    for path, agent in zip(args.agents, agents):
        if not agent.game.same_rules(search_agent.game):
            raise SystemExit(f"{path} plays {agent.game.id}, the search agent {search_agent.game.id}")
    result = agreement(search_agent, agents, args.iterations, args.positions, args.seed)
    result.update(search_agent=str(args.search_agent), agents=[str(a) for a in args.agents])
    for path, share, cost in zip(args.agents, result["agreement"], result["mean_cost"]):
        print(f"{path}: plays the search's move in {100 * share:.1f} % of {result['positions']} positions, "
              f"mean cost {cost:.4f}", flush=True)
    if args.out:
        atomic_write_json(args.out, result)
    return 0


# ----------------------------------------------------------------------------------------------- CLI
def chunk_range(text: str) -> list[int]:
    """``"0-39"`` or ``"3,5"`` as a list of chunk numbers."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-"))
            chunks = list(range(low, high + 1))
        else:
            chunks = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"chunks look like 0-39 or 3,5, got {text!r}") from None
    if not chunks or min(chunks) < 0:
        raise argparse.ArgumentTypeError(f"chunks must be numbers >= 0, got {text!r}")
    return chunks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    gen = sub.add_parser("generate", help="play searched games and keep the search's values (resumable)")
    gen.add_argument("--agent", required=True, help="agent file or run folder (a TD n-tuple agent)")
    gen.add_argument("--iterations", type=int, default=10000, help="PUCT iterations per move")
    gen.add_argument("--chunks", type=chunk_range, required=True, help="chunk numbers to play, e.g. 0-39")
    gen.add_argument("--chunk-games", type=int, default=25, help="games per chunk")
    gen.add_argument("--min-visits", type=int, default=200, help="a move's visits for it to be a sample")
    gen.add_argument("--explore-plies", type=int, default=4, help="plies whose move is drawn by the visits")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--jobs", type=int, default=1)
    gen.add_argument("--quiet", action="store_true")
    gen.add_argument("--out", required=True, help="folder for the chunks and settings.json")
    fitp = sub.add_parser("fit", help="fit the agent's tables to the samples")
    fitp.add_argument("--agent", required=True, help="the agent to start from (file or run folder)")
    fitp.add_argument("--data", required=True, help="a folder written by generate")
    fitp.add_argument("--alpha", type=float, default=0.05, help="step size (as the TD learners' alpha)")
    fitp.add_argument("--epochs", type=int, default=2)
    fitp.add_argument("--relative", action="store_true",
                      help="fit the differences between a position's moves (their order), not the values themselves")
    fitp.add_argument("--tanh-clip", type=float, default=0.99, help="targets clipped to ±this for a tanh output")
    fitp.add_argument("--seed", type=int, default=0, help="seed of the passes' order")
    fitp.add_argument("--out", required=True, help="folder for agent.npz and fit.json")
    agr = sub.add_parser("agree", help="how often bare agents play the move of a PUCT search around an agent")
    agr.add_argument("--search-agent", required=True, help="the agent inside the search; its games give the positions")
    agr.add_argument("--agents", nargs="+", required=True, help="bare agents to compare with the search's choice")
    agr.add_argument("--iterations", type=int, default=10000)
    agr.add_argument("--positions", type=int, default=300)
    agr.add_argument("--seed", type=int, default=777)
    agr.add_argument("--out", help="a JSON file for the figures")
    args = parser.parse_args(argv)
    for name in ("iterations", "chunk_games", "min_visits", "jobs", "epochs", "positions"):
        if getattr(args, name, 1) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.step == "generate" and args.explore_plies < 0:
        parser.error("--explore-plies must be >= 0")
    if args.step == "fit" and not (np.isfinite(args.alpha) and args.alpha > 0):
        parser.error(f"--alpha must be > 0, got {args.alpha}")
    return {"generate": generate, "fit": fit, "agree": agree}[args.step](args)


if __name__ == "__main__":
    raise SystemExit(main())
