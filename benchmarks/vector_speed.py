"""Batched random self-play: steps per CPU second.  Run:  python benchmarks/vector_speed.py [--seconds S]

For every game (default parameters; Hex also at 11x11, pgx's size) and each batch size of ``--sizes`` (default 1,
64, 1,024 and 16,384 envs), random self-play steps per CPU second of this process (``time.process_time``: all its
threads, so a multi-threaded backend is counted per core) of:

* ``farl``: :func:`farl_envs.vector.make`, ``step(random_actions())`` (both one compiled call; the Python per step
  is the actions' checks and the returned copies); memory per env (the batch's arrays / ``num_envs``) and the
  first call's time (numba compiling, or loading its disk cache) reported beside;
* ``farl-no-obs``: the same made with ``observations=False`` (no observation computed per step: random playouts,
  learners that read ``afterstates()``);
* ``pgx``: pgx on CPU JAX, ``jax.jit(jax.vmap(step))`` with pgx's ``auto_reset`` and a random legal action
  (categorical over the mask) in the same jitted call; compile time beside (Connect Four, Othello, Hex 11x11,
  TicTacToe, 2048);
* ``openspiel``: OpenSpiel's ``vector_env.SyncVectorEnv`` of ``rl_environment.Environment`` s (a Python loop over
  the envs, as OpenSpiel ships it) with random legal actions;
* ``openspiel-loop``: plain pyspiel states in a Python loop (``legal_actions`` / ``apply_action``), OpenSpiel
  without its RL environment layer;
* ``pettingzoo``: PettingZoo's classic ``connect_four_v3`` / ``tictactoe_v3`` AEC envs, one Python loop over
  ``num_envs`` of them (``last`` / ``step`` / ``reset`` at the end). SuperSuit's vector wrappers
  (``pettingzoo_env_to_vec_env_v1``) take *parallel* envs, and the classic games are AEC envs with
  ``is_parallelizable=False``, so no SuperSuit vectorisation applies to them; whether SuperSuit is installed is
  noted on the page;
* ``anchors`` (Connect Four only): a hand-written numba bitboard random-playout loop (two 49-bit boards, column
  heights, no observation, no mask array): plies per CPU second, the ceiling of this kind of kernel on this
  machine. It does not depend on ``num_envs``.

The Python-loop backends (OpenSpiel, PettingZoo) step their envs one by one, so their rate per env hardly
depends on the batch: they are measured up to ``--max-python-envs`` (1,024) and the larger sizes say so.
Targets of issue 43 in the last lines: farl ≥ 10x pgx per core at 1,024 envs, ≥ 30 % of the anchor, ≥ 100x
PettingZoo (Connect Four, Othello, Hex). Writes ``docs/results/vector_speed.md`` (``--out``).
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import numpy as np
from numba import njit

import farl_envs
import farl_envs.vector as fv
from farl_agents.atomic import atomic_write_text
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games import connect_four as c4

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1, 64, 1024, 16384)

ROWS = [(name, {}) for name in farl_envs.GAMES] + [("hex", {"size": 11})]
"""(farl game, parameters): every game at its defaults, and Hex at pgx's size."""

PGX = {("connect_four", ""): "connect_four", ("othello", ""): "othello", ("hex", "size=11"): "hex",
       ("tictactoe", ""): "tic_tac_toe", ("game2048", ""): "2048"}
OPENSPIEL = {("connect_four", ""): "connect_four", ("tictactoe", ""): "tic_tac_toe", ("hex", ""): "hex(board_size=6)",
             ("hex", "size=11"): "hex", ("othello", ""): "othello", ("game2048", ""): "2048",
             ("chinese_checkers", ""): "chinese_checkers", ("einstein_wurfelt_nicht", ""): "einstein_wurfelt_nicht",
             ("breakthrough", ""): "breakthrough", ("clobber", ""): "clobber", ("amazons", ""): "amazons",
             ("lines_of_action", ""): "lines_of_action"}
PETTINGZOO = {("connect_four", ""): "connect_four_v3", ("tictactoe", ""): "tictactoe_v3"}
BACKENDS = ("farl", "farl-no-obs", "pgx", "openspiel", "openspiel-loop", "pettingzoo", "anchors")


def label(params: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())


def timed_rate(step, n_envs: int, seconds: float) -> float:
    """``n_envs`` x calls of ``step()`` per CPU second, over at least ``seconds`` CPU seconds (one call at least)."""
    calls = 0
    start = time.process_time()
    while True:
        step()
        calls += 1
        used = time.process_time() - start
        if used >= seconds:
            return n_envs * calls / used


# ------------------------------------------------------------------------------------------------------- farl
def farl_case(name: str, params: dict, n: int, seconds: float, observations: bool = True) -> dict:
    start = time.perf_counter()
    v = fv.make(name, n, seed=0, observations=observations, **params)
    v.reset()
    v.step(v.random_actions())  # compiles the loops, or loads them from numba's cache
    first = time.perf_counter() - start
    arrays = [a for a in vars(v).values() if isinstance(a, np.ndarray)]
    return {"rate": timed_rate(lambda: v.step(v.random_actions()), n, seconds), "first_s": first,
            "bytes_per_env": sum(a.nbytes for a in arrays) / n}


# -------------------------------------------------------------------------------------------------------- pgx
def pgx_case(game_id: str, n: int, seconds: float) -> dict:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(game_id)
    step = auto_reset(env.step, env.init)

    def one(state, key):
        key, pick, move = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits)
        return step(state, action, move), key

    batched = jax.jit(jax.vmap(one))
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    state = jax.jit(jax.vmap(env.init))(keys)
    start = time.perf_counter()
    holder = list(batched(state, keys))
    jax.block_until_ready(holder[0])
    compile_s = time.perf_counter() - start

    def go():
        holder[0], holder[1] = batched(holder[0], holder[1])
        jax.block_until_ready(holder[0].legal_action_mask)

    return {"rate": timed_rate(go, n, seconds), "first_s": compile_s}


# --------------------------------------------------------------------------------------------------- OpenSpiel
def openspiel_case(game_string: str, n: int, seconds: float) -> dict:
    import pyspiel
    from open_spiel.python import rl_environment
    from open_spiel.python.rl_agent import StepOutput
    from open_spiel.python.vector_env import SyncVectorEnv

    rnd = np.random.default_rng(0)
    game = pyspiel.load_game(game_string)
    envs = SyncVectorEnv([rl_environment.Environment(game, seed=i) for i in range(n)])
    holder = [envs.reset()]

    def go():
        outs = []
        for ts in holder[0]:
            legal = ts.observations["legal_actions"][ts.observations["current_player"]]
            outs.append(StepOutput(action=legal[int(rnd.integers(len(legal)))], probs=None))
        holder[0] = envs.step(outs, reset_if_done=True)[0]

    return {"rate": timed_rate(go, n, seconds)}


def openspiel_loop_case(game_string: str, n: int, seconds: float) -> dict:
    """``n`` plain pyspiel states stepped in a Python loop (``legal_actions`` / ``apply_action``, chance outcomes
    sampled by their probabilities, a new game when one ends): OpenSpiel without its RL environment layer."""
    import pyspiel

    rnd = np.random.default_rng(0)
    game = pyspiel.load_game(game_string)
    states = [game.new_initial_state() for _ in range(n)]

    def go():
        for i, st in enumerate(states):
            while st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes())
                st.apply_action(outcomes[int(rnd.choice(len(outcomes), p=probs))])
            if st.is_terminal():
                states[i] = game.new_initial_state()
                continue
            legal = st.legal_actions()
            st.apply_action(legal[int(rnd.integers(len(legal)))])

    return {"rate": timed_rate(go, n, seconds)}


# -------------------------------------------------------------------------------------------------- PettingZoo
def pettingzoo_case(module: str, n: int, seconds: float) -> dict:
    import importlib

    make = importlib.import_module(f"pettingzoo.classic.{module}").env
    rnd = np.random.default_rng(0)
    envs = [make() for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=i)

    def go():
        for e in envs:
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.reset()
            else:
                e.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))

    return {"rate": timed_rate(go, n, seconds)}


# ----------------------------------------------------------------------------------------------------- anchors
@njit(cache=True)
def connect_four_bitboard_plies(n_plies, seed):
    """Random Connect Four games on bitboards until ``n_plies`` plies are played; returns the plies played.

    Column ``c`` holds bits ``7 c .. 7 c + 5`` (bottom up) and a free sentinel bit ``7 c + 6``; ``heights[c]`` is
    the next free bit. Four in a row for the stones ``b``: ``m = b & (b >> d)`` then ``m & (m >> 2 d)`` for the
    directions ``d`` = 1 (vertical), 7 (horizontal), 6 and 8 (diagonals). Random numbers: xorshift64.
    """
    x = np.uint64(seed) | np.uint64(1)
    heights = np.zeros(7, dtype=np.int64)
    free = np.zeros(7, dtype=np.int64)
    plies = 0
    while plies < n_plies:
        boards = [np.uint64(0), np.uint64(0)]
        for c in range(7):
            heights[c] = 7 * c
        mover = 0
        for _ in range(42):
            n = 0
            for c in range(7):
                if heights[c] < 7 * c + 6:
                    free[n] = c
                    n += 1
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            c = free[np.int64(x % np.uint64(n))]
            b = boards[mover] | (np.uint64(1) << np.uint64(heights[c]))
            boards[mover] = b
            heights[c] += 1
            plies += 1
            won = False
            for d in (1, 7, 6, 8):
                m = b & (b >> np.uint64(d))
                if m & (m >> np.uint64(2 * d)):
                    won = True
            if won:
                break
            mover = 1 - mover
    return plies


def anchors_case(seconds: float) -> dict:
    connect_four_bitboard_plies(100, 1)  # compile (or load from the cache)
    chunk = [10_000]

    def go():
        connect_four_bitboard_plies(chunk[0], 7)

    rate = timed_rate(go, chunk[0], min(seconds, 0.2))
    chunk[0] = max(10_000, int(rate * 0.05))
    return {"rate": timed_rate(go, chunk[0], seconds)}


# ---------------------------------------------------------------------------------------------------- anatomy
@njit(cache=True)
def connect_four_kernel_plies(states, start, p, rounds, seed, observe_too, obs):
    """``rounds`` random plies in every game of ``states`` through farl's own Connect Four kernels (array board,
    ``legal_actions`` mask, ``afterstate`` with its four-in-a-row check), restarting a game when it ends: the
    vector step's work without its streams, reward arrays, Python, and (unless ``observe_too``) observation."""
    mask = np.zeros(7, dtype=np.int8)
    rewards = np.zeros(2)
    x = np.uint64(seed) | np.uint64(1)
    for _ in range(rounds):
        for i in range(states.shape[0]):
            s = states[i]
            if s[TERMINAL] != 0:  # a new game
                s[:] = start
            n = c4.legal_actions(p, s, mask)
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            k = np.int64(x % np.uint64(n))
            a = 0
            for j in range(7):
                if mask[j] != 0:
                    if k == 0:
                        a = j
                        break
                    k -= 1
            c4.afterstate(p, s, a, s, rewards)
            if observe_too:
                obs[i, :] = 0
                c4.observe(p, s, s[TO_MOVE], obs[i])
    return rounds * states.shape[0]


def anatomy(seconds: float, n: int = 1024) -> list:
    """Where a Connect Four step at ``n`` envs goes: CPU ns per env step of the whole ``step`` (with the random
    actions), of farl's kernels in a bare loop (with and without the
    observation), and of the bitboard anchor."""
    v = fv.make("connect_four", n, seed=0, copy=False)
    v.reset()
    v.step(v.random_actions())
    full = 1e9 / timed_rate(lambda: v.step(v.random_actions()), n, seconds)
    g = v.game
    states = v.kernel_states()
    start = c4.initial_state(g.p, np.zeros(1, dtype=np.uint64))
    obs = np.zeros((n,) + v.obs_shape, dtype=np.int8)
    connect_four_kernel_plies(states, start, g.p, 1, 3, True, obs)
    connect_four_kernel_plies(states, start, g.p, 1, 3, False, obs)
    with_obs = 1e9 / timed_rate(lambda: connect_four_kernel_plies(states, start, g.p, 8, 3, True, obs), 8 * n,
                                seconds)
    bare = 1e9 / timed_rate(lambda: connect_four_kernel_plies(states, start, g.p, 8, 3, False, obs), 8 * n,
                            seconds)
    anchor = 1e9 / anchors_case(seconds)["rate"]
    return [("`step(random_actions())`: what a user calls", full),
            ("farl's Connect Four kernels in a bare loop: legal mask, random pick, afterstate, observation", with_obs),
            ("the same without the observation", bare),
            ("the bitboard anchor (two 49-bit boards, no mask or observation arrays)", anchor)]


# -------------------------------------------------------------------------------------------------------- page
def fmt(x) -> str:
    if isinstance(x, str):
        return x
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def measure(rows, sizes, backends, seconds, max_python) -> dict:
    results = {}
    installed = {"pgx": find_spec("pgx") is not None and find_spec("jax") is not None,
                 "openspiel": find_spec("pyspiel") is not None, "openspiel-loop": find_spec("pyspiel") is not None,
                 "pettingzoo": find_spec("pettingzoo") is not None}
    for name, params in rows:
        key = (name, label(params))
        for backend in backends:
            cells = {}
            if backend == "anchors":
                if name == "connect_four" and not params:
                    cells = dict.fromkeys(sizes, anchors_case(seconds))
            elif backend in ("farl", "farl-no-obs"):
                cells = {n: farl_case(name, params, n, seconds, backend == "farl") for n in sizes}
            else:
                table = {"pgx": PGX, "openspiel": OPENSPIEL, "openspiel-loop": OPENSPIEL,
                         "pettingzoo": PETTINGZOO}[backend]
                if key not in table:
                    continue
                for n in sizes:
                    if not installed[backend]:
                        cells[n] = "not installed"
                    elif backend != "pgx" and n > max_python:
                        cells[n] = f"not run (Python loop; see {max_python})"
                    elif backend == "pgx":
                        cells[n] = pgx_case(table[key], n, seconds)
                    elif backend == "openspiel":
                        cells[n] = openspiel_case(table[key], n, seconds)
                    elif backend == "openspiel-loop":
                        cells[n] = openspiel_loop_case(table[key], n, seconds)
                    else:
                        cells[n] = pettingzoo_case(table[key], n, seconds)
            if cells:
                results[(key, backend)] = cells
                shown = "  ".join(f"{n}: {fmt(c['rate']) if isinstance(c, dict) else c}" for n, c in cells.items())
                print(f"{name:24s} {label(params):8s} {backend:10s} {shown}", flush=True)
    return results


def page(results, rows, sizes, args, command, load, parts_of_a_step=()) -> str:
    lines = ["# Batched random self-play: steps per CPU second", "",
             f"Made by `{command}` on {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}; machine load (1-minute average) "
             f"{load[0]:.1f} before and {load[1]:.1f} after. Each figure: random self-play steps (plies of every "
             f"env) per CPU second of the process over ~{args.seconds:g} CPU s; "
             "`benchmarks/vector_speed.py`'s docstring says what each backend "
             "runs. SuperSuit " + ("is installed" if find_spec("supersuit") else "is not installed") +
             " (its vector wrappers take parallel envs; PettingZoo's classic games are turn-based AEC envs).", ""]
    head = "| game | backend | " + " | ".join(f"{n:,} envs" for n in sizes) + " | first call / JIT | memory per env |"
    lines += [head, "|" + "---|" * (len(sizes) + 4)]
    for name, params in rows:
        key = (name, label(params))
        for backend in BACKENDS:
            cells = results.get((key, backend))
            if not cells:
                continue
            vals = [fmt(c["rate"]) if isinstance(c, dict) else c for c in cells.values()]
            first = next((c for c in cells.values() if isinstance(c, dict) and "first_s" in c), None)
            mem = next((c for c in cells.values() if isinstance(c, dict) and "bytes_per_env" in c), None)
            game = name + (f" ({key[1]})" if key[1] else "")
            first_s = f"{first['first_s']:.1f} s" if first else ""
            memory = f"{mem['bytes_per_env']:.0f} B" if mem else ""
            lines.append(f"| {game} | {backend} | " + " | ".join(vals) + f" | {first_s} | {memory} |")
    lines += ["", "## Targets (issue 43) at 1,024 envs", ""]
    for name, params in [("connect_four", {}), ("othello", {}), ("hex", {"size": 11}), ("hex", {})]:
        key = (name, label(params))
        farl = results.get((key, "farl"), {}).get(1024)
        if not isinstance(farl, dict):
            continue
        parts = []
        for backend, goal in (("pgx", 10), ("pettingzoo", 100), ("anchors", 0.3)):
            other = results.get((key, backend), {}).get(1024)
            if isinstance(other, dict):
                r = farl["rate"] / other["rate"]
                parts.append(f"{r:.2f}x {backend} (target {goal}x: {'met' if r >= goal else 'not met'})")
        if parts:
            lines.append(f"* {name} {key[1]}: " + "; ".join(parts))
    if parts_of_a_step:
        anchor = parts_of_a_step[-1][1]
        lines += ["", "## Where a Connect Four step goes (1,024 envs)", "",
                  "CPU nanoseconds per env step, measured in the same run (`anatomy()` in the script):", "",
                  "| what runs | ns per env step | x the anchor |", "|---|---:|---:|"]
        lines += [f"| {what} | {ns:.0f} | {ns / anchor:.1f} |" for what, ns in parts_of_a_step]
        full, with_obs, bare = (ns for _, ns in parts_of_a_step[:3])
        pgx = results.get((("connect_four", ""), "pgx"), {}).get(1024)
        goal = f" A step at 10x pgx's rate here would take {1e9 / pgx['rate'] / 10:.0f} ns." \
            if isinstance(pgx, dict) else ""
        lines += ["", f"Of the {full:.0f} ns a user's step takes, the observation (two int8 planes of the 42 cells, "
                  f"written through 3-D indices) is about {with_obs - bare:.0f}; the move, legal mask and "
                  f"four-in-a-row check on farl's array board {bare:.0f}, against {anchor:.0f} for the bitboard "
                  f"anchor; the rest ({full - with_obs:.0f}) is the batch's own work: the random actions' stream, "
                  "the reward and return arrays, the autoreset bookkeeping and the Python around the compiled "
                  f"call.{goal} The kernels are the games' one source of rules, shared with the AEC env and the "
                  "learners; they, not the batching, set this floor. `observations=False` (the `farl-no-obs` "
                  "rows) drops the observation for callers that do not read it."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated numbers of envs")
    ap.add_argument("--games", default="", help="comma-separated farl game names (default: all, Hex 11x11 too)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated, of {', '.join(BACKENDS)}")
    ap.add_argument("--max-python-envs", type=int, default=1024, help="largest batch of the Python-loop backends")
    ap.add_argument("--no-anatomy", action="store_true", help="skip the split of a Connect Four step's time")
    ap.add_argument("--out", default=str(ROOT / "docs/results/vector_speed.md"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = [b for b in args.backends.split(",") if b]
    unknown = sorted(set(backends) - set(BACKENDS))
    if unknown or any(n < 1 for n in sizes):
        ap.error(f"unknown backends {unknown}" if unknown else "sizes must be >= 1")
    games = set(args.games.split(",")) - {""}
    rows = [(n, p) for n, p in ROWS if not games or n in games]
    load_before = os.getloadavg()[0]
    results = measure(rows, sizes, backends, args.seconds, args.max_python_envs)
    parts_of_a_step = []
    if "farl" in backends and ("connect_four", {}) in rows and not args.no_anatomy:
        parts_of_a_step = anatomy(args.seconds)
        for what, ns in parts_of_a_step:
            print(f"{ns:8.0f} ns per env step: {what}", flush=True)
    command = "python benchmarks/vector_speed.py " + " ".join(sys.argv[1:] if argv is None else argv)
    text = page(results, rows, sizes, args, command.strip(), (load_before, os.getloadavg()[0]), parts_of_a_step)
    atomic_write_text(Path(args.out), text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
