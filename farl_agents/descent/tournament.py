"""Cohen-Solal 2020's comparison protocol (Sec. 3.2), scaled down: train variants, then an all-play-all.

Each variant (a :class:`~farl_agents.descent.trainer.DescentConfig`) is trained
for the same wall-clock budget; then every pair of final evaluation functions
meets with the same fixed-depth alpha-beta player (completion folded in, see
:mod:`farl_agents.descent.alphabeta`), in both seats. The paper plays one game
per seat and pair (its repetitions give the statistics); a deterministic
alpha-beta would repeat that game, so here each pair plays ``openings``
random openings of ``opening_plies`` plies in both seats (the harness's
``("random", k)`` starts: the same openings for every pair).

A variant's win percentage is its mean score over all its games (win 1,
draw ½, loss 0) with the standard error sd / √n.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.descent.agent import load_agent
from farl_agents.evaluate import evaluate

VARIANT_KEYS = {"search", "learning", "heuristic", "selection", "completion", "move_seconds", "move_iterations",
                "alpha", "evaluation"}


def parse_variant(text: str) -> tuple[str, dict]:
    """``"name:key=value,key=value"`` or ``"key=value,..."`` -> (name, DescentConfig overrides)."""
    name, _, body = text.rpartition(":") if ":" in text else ("", "", text)
    over = {}
    for item in filter(None, body.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or key not in VARIANT_KEYS:
            raise ValueError(f"variant item {item!r}: use key=value with key in {', '.join(sorted(VARIANT_KEYS))}")
        value = value.strip()
        if key == "completion":
            over[key] = value.lower() in ("1", "true", "yes", "on")
        elif key in ("move_seconds", "alpha"):
            over[key] = float(value)
        elif key == "move_iterations":
            over[key] = int(value)
        else:
            over[key] = value
    if not name:
        name = "-".join(str(v) for v in over.values()) or "default"
    return name, over


def all_play_all(game, agent_files: dict, depth: int = 2, openings: int = 10, opening_plies: int = 2,
                 seed: int = 0) -> dict:
    """Every pair of agents, both seats, ``openings`` random openings; returns per-variant and pair results."""
    names = list(agent_files)
    players = {n: load_agent(agent_files[n], game, search="ab", depth=depth, name=n) for n in names}
    scores = {n: [] for n in names}
    pairs = {}
    for a, b in itertools.combinations(names, 2):
        res = evaluate(game, [players[a]], [players[b]], n_games=openings, start_states=("random", opening_plies),
                       seed=seed)
        per_game = [float(g["score"]) for g in res.matchups[0].games]
        wins_a = [(s + 1) / 2 for s in per_game]
        scores[a] += wins_a
        scores[b] += [1 - w for w in wins_a]
        pairs[f"{a} vs {b}"] = float(np.mean(wins_a))
    table = {}
    for n in names:
        x = np.array(scores[n])
        table[n] = {"win_pct": 100 * float(x.mean()) if len(x) else float("nan"),
                    "se_pct": 100 * float(x.std(ddof=0) / math.sqrt(len(x))) if len(x) else float("nan"),
                    "games": int(len(x))}
    return {"depth": depth, "openings": openings, "opening_plies": opening_plies, "seed": seed,
            "variants": table, "pairs": pairs}


def markdown(result: dict, title: str = "") -> str:
    lines = [f"### {title}" if title else "", "",
             f"all-play-all, alpha-beta depth {result['depth']}, {result['openings']} random "
             f"{result['opening_plies']}-ply openings x 2 seats per pair", "",
             "| variant | win % | s.e. | games |", "|---|---:|---:|---:|"]
    for n, r in sorted(result["variants"].items(), key=lambda kv: -kv[1]["win_pct"]):
        lines.append(f"| {n} | {r['win_pct']:.1f} | {r['se_pct']:.1f} | {r['games']} |")
    return "\n".join(lines) + "\n"


def write(result: dict, out, title: str = "") -> None:
    out = Path(out)
    atomic_write_json(out / "tournament.json", result)
    atomic_write_text(out / "tournament.md", markdown(result, title))
