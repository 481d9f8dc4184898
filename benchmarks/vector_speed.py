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
  (categorical over the mask) in the same jitted call, XLA on one thread (:data:`PGX_XLA_FLAGS`); compile time
  beside (Connect Four, Othello, Hex 11x11, TicTacToe, 2048);
* ``openspiel``: OpenSpiel's ``vector_env.SyncVectorEnv`` of ``rl_environment.Environment`` s (a Python loop over
  the envs, as OpenSpiel ships it) with random legal actions;
* ``openspiel-loop``: plain pyspiel states in a Python loop (``legal_actions`` / ``apply_action``), OpenSpiel
  without its RL environment layer;
* ``pettingzoo``: PettingZoo's classic ``connect_four_v3`` / ``tictactoe_v3`` AEC envs, one Python loop over
  ``num_envs`` of them (``last`` / ``step`` / ``reset`` at the end). SuperSuit's vector wrappers
  (``pettingzoo_env_to_vec_env_v1``) take *parallel* envs, and the classic games are AEC envs with
  ``is_parallelizable=False``, so no SuperSuit vectorisation applies to them; whether SuperSuit is installed is
  noted on the page;
* ``anchors`` (Connect Four, Othello, Hex 11x11): a hand-written numba random-playout loop per game, no
  observation, no mask array (Connect Four: two 49-bit boards and column heights; Othello: two 64-bit boards,
  shift-and-mask move generation; Hex: a list of the empty cells and a union-find of the groups): plies per CPU
  second, the ceiling of a random ply on this machine. It does not depend on ``num_envs``.

Then, unless ``--no-anatomy``, each of these three games' step at 1,024 envs split into its parts (the game's
kernels in a bare loop with and without the observation; Hex also without its connection search) beside the
anchor.

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
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE
from farl_envs.games import hex as hex_rules

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
PGX_XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
"""XLA on one thread for the pgx rows (unless ``XLA_FLAGS`` is set). With its default thread pool, pgx's
Connect Four steps per CPU second at 1,024 envs ranged from 0.86-0.93 M (quiet machine, load 0.2-1.2) to 1.5 M
(load 5) in this script's runs: idle pool workers spin, and their spinning is CPU time of the process, more of it
the more cores are free. One thread has no idle workers: a per-core figure that does not depend on the load."""


def pgx_case(game_id: str, n: int, seconds: float) -> dict:
    os.environ.setdefault("XLA_FLAGS", PGX_XLA_FLAGS)  # read when jax first starts its CPU backend
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


@njit(cache=True)
def _othello_shift(x, d):
    """The bits of ``x`` moved one square in direction ``d`` (0-7: E, W, N, S, NE, NW, SE, SW; bit = 8 row + col),
    with the squares that would wrap around an edge dropped."""
    not_a = np.uint64(0xFEFEFEFEFEFEFEFE)  # no stone may arrive on column 0 from the east-going shifts
    not_h = np.uint64(0x7F7F7F7F7F7F7F7F)
    if d == 0:
        return (x << np.uint64(1)) & not_a
    if d == 1:
        return (x >> np.uint64(1)) & not_h
    if d == 2:
        return x << np.uint64(8)
    if d == 3:
        return x >> np.uint64(8)
    if d == 4:
        return (x << np.uint64(9)) & not_a
    if d == 5:
        return (x << np.uint64(7)) & not_h
    if d == 6:
        return (x >> np.uint64(7)) & not_a
    return (x >> np.uint64(9)) & not_h


@njit(cache=True)
def othello_bitboard_plies(n_plies, seed):
    """Random Othello games on two 64-bit boards until ``n_plies`` moves are played (passes not counted); returns
    the moves played. Legal moves by the shift-and-mask flood in each of the 8 directions, flips by walking from
    the placed disc; a player without a move passes, two passes end the game. Random numbers: xorshift64."""
    x = np.uint64(seed) | np.uint64(1)
    one = np.uint64(1)
    plies = 0
    while plies < n_plies:
        own = (one << np.uint64(28)) | (one << np.uint64(35))  # the mover's discs (black: d5, e4)
        other = (one << np.uint64(27)) | (one << np.uint64(36))
        passes = 0
        while passes < 2:
            empty = ~(own | other)
            moves = np.uint64(0)
            for d in range(8):
                t = _othello_shift(own, d) & other
                for _ in range(5):
                    t |= _othello_shift(t, d) & other
                moves |= _othello_shift(t, d) & empty
            if moves == 0:
                passes += 1
                own, other = other, own
                continue
            passes = 0
            k = 0
            m = moves
            while m != 0:
                m &= m - one
                k += 1
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            pick = np.int64(x % np.uint64(k))
            m = moves
            for _ in range(pick):
                m &= m - one
            move = m & (~m + one)  # the lowest remaining move
            flips = np.uint64(0)
            for d in range(8):
                line = np.uint64(0)
                y = _othello_shift(move, d)
                while y != 0 and (y & other) != 0:
                    line |= y
                    y = _othello_shift(y, d)
                if (y & own) != 0:
                    flips |= line
            own |= move | flips
            other &= ~flips
            own, other = other, own
            plies += 1
    return plies


@njit(cache=True)
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]  # path halving
        i = parent[i]
    return i


@njit(cache=True)
def hex_union_find_plies(n_plies, seed, size):
    """Random Hex games on a ``size`` x ``size`` board until ``n_plies`` stones are placed; returns them. The empty
    cells sit in one array (a move swaps its cell out, no mask); each placed stone joins its same-coloured
    neighbours' groups and its goal edges (four extra nodes) in a union-find with path halving, and a player wins
    when its two edges share a root. Random numbers: xorshift64."""
    x = np.uint64(seed) | np.uint64(1)
    cells = size * size
    board = np.zeros(cells, dtype=np.int64)
    parent = np.zeros(cells + 4, dtype=np.int64)
    empty = np.zeros(cells, dtype=np.int64)
    dr = np.array([0, 0, -1, 1, -1, 1])
    dc = np.array([-1, 1, 0, 0, 1, -1])
    plies = 0
    while plies < n_plies:
        for i in range(cells + 4):
            parent[i] = i
        for i in range(cells):
            board[i] = 0
            empty[i] = i
        left = cells
        mover = 0
        while left > 0:
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            j = np.int64(x % np.uint64(left))
            a = empty[j]
            left -= 1
            empty[j] = empty[left]
            board[a] = mover + 1
            plies += 1
            r, c = a // size, a % size
            line = r if mover == 0 else c  # player_0 joins top and bottom, player_1 left and right
            if line == 0:
                parent[_root(parent, a)] = _root(parent, cells + 2 * mover)
            if line == size - 1:
                parent[_root(parent, a)] = _root(parent, cells + 2 * mover + 1)
            for d in range(6):
                nr, nc = r + dr[d], c + dc[d]
                if 0 <= nr < size and 0 <= nc < size and board[nr * size + nc] == mover + 1:
                    parent[_root(parent, nr * size + nc)] = _root(parent, a)
            if _root(parent, cells + 2 * mover) == _root(parent, cells + 2 * mover + 1):
                break
            mover = 1 - mover
    return plies


ANCHORS = {("connect_four", ""): (connect_four_bitboard_plies, ()),
           ("othello", ""): (othello_bitboard_plies, ()),
           ("hex", "size=11"): (hex_union_find_plies, (11,))}
"""The hand-written playout loop of each game that has one: the ceiling of a random self-play ply there."""


def anchors_case(key, seconds: float) -> dict:
    loop, extra = ANCHORS[key]
    loop(100, 1, *extra)  # compile (or load from the cache)
    chunk = [10_000]

    def go():
        loop(chunk[0], 7, *extra)

    rate = timed_rate(go, chunk[0], min(seconds, 0.2))
    chunk[0] = max(10_000, int(rate * 0.05))
    return {"rate": timed_rate(go, chunk[0], seconds)}


# ---------------------------------------------------------------------------------------------------- anatomy
@njit(cache=True, inline="always")
def _xorshift(x):
    """The next word of a xorshift64 generator."""
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    return x


@njit(cache=True, inline="always")
def _kth_legal(mask, k):
    """The ``k``-th (0-based) legal action of ``mask``."""
    for j in range(mask.shape[0]):
        if mask[j] != 0:
            if k == 0:
                return j
            k -= 1
    return 0


@njit
def kernel_plies(legal_actions, afterstate, observe, n_actions, states, start, p, rounds, seed, observe_too, obs,
                 obs_flat):
    """``rounds`` random plies in every game of ``states`` through a game's own kernels (passed in: its
    ``legal_actions`` mask, ``afterstate`` with its end-of-game check, ``observe``), restarting a game when it
    ends: the vector step's work without its streams, reward arrays, Python, and (unless ``observe_too``) the
    observation."""
    mask = np.zeros(n_actions, dtype=np.int8)
    rewards = np.zeros(2)
    x = np.uint64(seed) | np.uint64(1)
    for _ in range(rounds):
        for i in range(states.shape[0]):
            s = states[i]
            if s[TERMINAL] != 0:  # a new game
                s[:] = start
            n = legal_actions(p, s, mask)
            x = _xorshift(x)
            a = _kth_legal(mask, np.int64(x % np.uint64(n)))
            afterstate(p, s, a, s, rewards)
            if observe_too:
                obs_flat[i, :] = 0
                observe(p, s, s[TO_MOVE], obs[i])
    return rounds * states.shape[0]


@njit
def hex_plies_without_search(states, start, p, rounds, seed):
    """Hex's part of :func:`kernel_plies` without the connection search: the legal mask, the random pick, the
    stone written and the mover switched, the game restarted once the board is full."""
    n_actions = p[0] * p[0]
    mask = np.zeros(n_actions, dtype=np.int8)
    x = np.uint64(seed) | np.uint64(1)
    for _ in range(rounds):
        for i in range(states.shape[0]):
            s = states[i]
            if s[TERMINAL] != 0 or s[PLY] >= n_actions:
                s[:] = start
            n = hex_rules.legal_actions(p, s, mask)
            x = _xorshift(x)
            a = _kth_legal(mask, np.int64(x % np.uint64(n)))
            s[HEADER + a] = s[TO_MOVE] + 1
            s[TO_MOVE] = 1 - s[TO_MOVE]
            s[PLY] += 1
    return rounds * states.shape[0]


ANATOMY = (("connect_four", {}), ("othello", {}), ("hex", {"size": 11}))
"""The games whose step :func:`anatomy` splits (the three with a pgx and an anchor figure)."""


def anatomy(name: str, params: dict, seconds: float, n: int = 1024) -> list:
    """Where a step of ``name`` at ``n`` envs goes: CPU ns per env step of the whole ``step`` (with the random
    actions), of the game's kernels in a bare loop (with and without the observation), for Hex of the same loop
    without its connection search, and of the hand-written anchor."""
    v = fv.make(name, n, seed=0, copy=False, **params)
    v.reset()
    v.step(v.random_actions())
    full = 1e9 / timed_rate(lambda: v.step(v.random_actions()), n, seconds)
    g = v.game
    states = v.kernel_states()
    start = g.initial_state(g.p, np.zeros(1, dtype=np.uint64))
    obs = np.zeros((n,) + v.obs_shape, dtype=np.int8)

    def plies(observe_too, rounds=8):
        return kernel_plies(g.legal_actions, g.afterstate, g.observe, g.n_actions, states, start, g.p, rounds, 3,
                            observe_too, obs, obs.reshape(n, -1))

    plies(True, 1)
    plies(False, 1)
    rows = [("`step(random_actions())`: what a user calls", full),
            ("the game's kernels in a bare loop: legal mask, random pick, afterstate, observation",
             1e9 / timed_rate(lambda: plies(True), 8 * n, seconds)),
            ("the same without the observation", 1e9 / timed_rate(lambda: plies(False), 8 * n, seconds))]
    if name == "hex":
        hex_plies_without_search(states, start, g.p, 1, 3)
        rows.append(("the same without the connection search (mask, pick, stone placed)",
                     1e9 / timed_rate(lambda: hex_plies_without_search(states, start, g.p, 8, 3), 8 * n, seconds)))
    rows.append((ANCHOR_NAMES[name], 1e9 / anchors_case((name, label(params)), seconds)["rate"]))
    return rows


ANCHOR_NAMES = {"connect_four": "the bitboard anchor (two 49-bit boards, no mask or observation arrays)",
                "othello": "the bitboard anchor (two 64-bit boards, shift-and-mask move generation)",
                "hex": "the union-find anchor (a list of empty cells, groups joined as stones are placed)"}


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
                if key in ANCHORS:
                    cells = dict.fromkeys(sizes, anchors_case(key, seconds))
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
    for (name, params), parts in parts_of_a_step:
        key = (name, label(params))
        anchor = parts[-1][1]
        title = name + (f" {key[1]}" if key[1] else "")
        lines += ["", f"## Where a step goes: {title}, 1,024 envs", "",
                  "CPU nanoseconds per env step, measured in the same run (`anatomy()` in the script):", "",
                  "| what runs | ns per env step | x the anchor |", "|---|---:|---:|"]
        lines += [f"| {what} | {ns:.0f} | {ns / anchor:.1f} |" for what, ns in parts]
        full, with_obs, bare = (ns for _, ns in parts[:3])
        pgx = results.get((key, "pgx"), {}).get(1024)
        goal = f" A step at 10x pgx's rate would take {1e9 / pgx['rate'] / 10:.0f} ns." if isinstance(pgx, dict) \
            else ""
        batch_ns = full - with_obs
        own = f"{batch_ns:.0f}" if batch_ns > 0.05 * full else "too little to tell from the noise of this run"
        text = (f"Of the {full:.0f} ns a user's step takes, the observation is about {with_obs - bare:.0f}, the "
                f"game's kernels (move, legal mask, end-of-game check on farl's array board) {bare:.0f} against "
                f"{anchor:.0f} for the anchor, and the batch's own work (the random actions' stream, the reward and "
                f"return arrays, the autoreset bookkeeping, the Python around the compiled call) {own}.{goal}")
        if name == "hex":
            search = bare - parts[3][1]
            text += (f" Hex's afterstate searches the placed stone's whole group for a connection between its two "
                     f"edges at every move once a player has `size` stones: {search:.0f} ns of the {bare:.0f}, "
                     "where the anchor's union-find joins a stone to its neighbours' groups in a few steps. A "
                     "union-find in the game's state would remove most of it, at the price of a state that is "
                     "no longer the board alone (every hand-built position would need its groups rebuilt).")
        lines += ["", text]
    if parts_of_a_step:
        lines += ["", "The kernels are the games' one source of rules, shared with the AEC env, the learners and "
                  "the searches; they, not the batching, set the floor of a step. `observations=False` (the "
                  "`farl-no-obs` rows) drops the observation for callers that do not read it."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated numbers of envs")
    ap.add_argument("--games", default="", help="comma-separated farl game names (default: all, Hex 11x11 too)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated, of {', '.join(BACKENDS)}")
    ap.add_argument("--max-python-envs", type=int, default=1024, help="largest batch of the Python-loop backends")
    ap.add_argument("--no-anatomy", action="store_true",
                    help="skip the split of a step's time (Connect Four, Othello, Hex 11x11)")
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
    if "farl" in backends and not args.no_anatomy:
        for name, params in ANATOMY:
            if (name, params) in rows:
                parts = anatomy(name, params, args.seconds)
                parts_of_a_step.append(((name, params), parts))
                for what, ns in parts:
                    print(f"{name:12s} {ns:8.0f} ns per env step: {what}", flush=True)
    command = "python benchmarks/vector_speed.py " + " ".join(sys.argv[1:] if argv is None else argv)
    text = page(results, rows, sizes, args, command.strip(), (load_before, os.getloadavg()[0]), parts_of_a_step)
    atomic_write_text(Path(args.out), text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
