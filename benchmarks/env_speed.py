"""How fast are the farl environments?  Run:  python benchmarks/env_speed.py [--seconds S]

Measures, in one run and on one core:
1. random-play AEC steps/s of every farl env (``farl_envs.make``, i.e. with
   its default wrapper) and of PettingZoo's ``connect_four_v3`` and
   ``tictactoe_v3`` (with theirs), all driven by the same loop;
2. compiled random playouts (plies/s) on the farl kernels;
3. OpenSpiel random playouts of the same games through ``pyspiel`` when it is
   installed (``pip install open-spiel``).
Prints a table and writes ``docs/results/env_speed.md``.
"""
from __future__ import annotations

import argparse
import functools
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_envs.core.playout import playouts
from farl_envs.core.rng import make_rng

ROOT = Path(__file__).resolve().parents[1]

# farl name -> (PettingZoo classic module or None, OpenSpiel game string or None)
REFERENCES = {
    "connect_four": ("pettingzoo.classic.connect_four_v3", "connect_four"),
    "tictactoe": ("pettingzoo.classic.tictactoe_v3", "tic_tac_toe"),
    "hex": (None, "hex(board_size=6)"),
    "othello": (None, "othello"),
    "game2048": (None, "2048"),
    "nim": (None, None),
    "nim3p": (None, None),
}


def aec_steps_per_second(make_env, seconds: float) -> float:
    """Random play through the AEC loop (``last`` + ``step``) for about ``seconds``."""
    import random

    rnd = random.Random(0)
    env = make_env()
    steps, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rnd.random() * legal.shape[0])])
                steps += 1
            env.step(action)
    return steps / (time.perf_counter() - start)


def compiled_plies_per_second(name: str, seconds: float) -> float:
    game = farl_envs.game_spec(name)
    rng = make_rng(0)
    playouts(game, 10, rng)  # compile
    games, plies = 100, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += playouts(game, games, rng)
        games = min(games * 2, 200_000)
    return plies / (time.perf_counter() - start)


def openspiel_plies_per_second(game_string: str, seconds: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    import random

    rnd = random.Random(0)
    game = pyspiel.load_game(game_string)
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rnd.choices(outcomes, probs)[0])
            else:
                state.apply_action(rnd.choice(state.legal_actions()))
                plies += 1
    return plies / (time.perf_counter() - start)


def fmt(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.1f} k"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--out", default=str(ROOT / "docs/results/env_speed.md"))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = []
    for name in [g[:-3] for g in farl_envs.list_games()]:
        pz_module, os_string = REFERENCES.get(name, (None, None))  # games without a reference implementation
        farl_aec = aec_steps_per_second(functools.partial(farl_envs.make, name), args.seconds)
        pz_aec = None
        if pz_module:
            import importlib
            pz = importlib.import_module(pz_module)
            pz_aec = aec_steps_per_second(pz.env, args.seconds)
        compiled = compiled_plies_per_second(name, args.seconds)
        spiel = openspiel_plies_per_second(os_string, args.seconds) if os_string else None
        row = (name, farl_aec, pz_aec, compiled, spiel)
        rows.append(row)
        print(f"{name:13s} farl AEC {fmt(farl_aec):>9s}/s  PettingZoo AEC {fmt(pz_aec):>9s}/s  "
              f"farl compiled {fmt(compiled):>9s}/s  OpenSpiel {fmt(spiel):>9s}/s", flush=True)
    lines = [
        "# Environment speed",
        "",
        "Made by `python benchmarks/env_speed.py"
        + (f" --seconds {args.seconds:g}" if args.seconds != 2.0 else "") + "` "
        f"on {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}. One core; each figure is random play for ~{args.seconds:g} s.",
        "",
        "| game | farl AEC steps/s | PettingZoo AEC steps/s | farl ÷ PettingZoo | farl compiled plies/s "
        "| OpenSpiel (pyspiel) plies/s | compiled ÷ OpenSpiel |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, fa, pa, co, sp in rows:
        ratio_pz = f"{fa / pa:.1f}×" if pa else "—"
        ratio_os = f"{co / sp:.0f}×" if sp else "—"
        lines.append(f"| {name} | {fmt(fa)} | {fmt(pa)} | {ratio_pz} | {fmt(co)} | {fmt(sp)} | {ratio_os} |")
    lines += [
        "",
        "AEC steps/s: `env.last()` + `env.step()` with a uniformly random legal action taken from the",
        "observation's action mask, through `farl_envs.make(name)` (order-enforcing wrapper, afterstate",
        "recorded in `infos` every step) and PettingZoo's `env()` (its three default wrappers).",
        "Compiled plies/s: `farl_envs.core.playout.random_playouts`, the kernels called from one numba loop.",
        "OpenSpiel: `state.apply_action(random.choice(state.legal_actions()))` in a Python loop over pyspiel's",
        "C++ states.",
    ]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
