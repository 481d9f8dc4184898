"""Every script in examples/ runs to its end with a tiny budget and prints what it promises.

Each runs in a fresh interpreter (as a user runs it) from the repository root. The examples that need an
optional extra (Stable-Baselines3, PettingZoo's classic games) are skipped without it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import farl_envs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_example(name: str, *args: str) -> str:
    """Run examples/<name> with ``args``; fail with its output unless it exits 0; return its stdout."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


def test_every_example_is_tested():
    tested = {"quickstart.py", "random_loop.py", "td_farl_aec.py", "three_player_experiment.py",
              "sb3_maskable_ppo.py", "train_on_pettingzoo_connect_four.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_random_loop_plays_every_registered_game():
    out = run_example("random_loop.py", "--games", "1")
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert sorted(rows) == sorted(farl_envs.list_games())
    # two-player zero-sum games: the returns of a finished random game are +1 / -1 or 0 / 0
    ttt = rows["tictactoe_v0"]
    assert ("player_0: +1.00  player_1: -1.00" in ttt or "player_0: -1.00  player_1: +1.00" in ttt
            or "player_0: +0.00  player_1: +0.00" in ttt)
    assert "player_2" in rows["nim3p_v0"]


def test_td_farl_through_the_aec_loop():
    out = run_example("td_farl_aec.py", "--episodes", "200", "--games", "2", "--opponents", "random")
    assert "200 self-play episodes" in out
    assert "td-farl vs random" in out
    assert "seat 1" in out


def test_three_player_experiment_evaluates_both_agents_in_every_seat():
    out = run_example("three_player_experiment.py", "--episodes", "300", "--games", "2", "--opponent", "random")
    for agent in ("td-farl vs", "td vs"):
        assert agent in out
    assert out.count("seat 2:") == 2


def test_quickstart():
    out = run_example("quickstart.py")
    assert "2048 merge reward" in out


def test_sb3_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    out = run_example("sb3_maskable_ppo.py", "--timesteps", "256", "--games", "2")
    assert "256 steps of MaskablePPO; against random play in 2 games:" in out


def test_train_on_pettingzoo_connect_four():
    pytest.importorskip("pygame")   # PettingZoo's classic games import it
    out = run_example("train_on_pettingzoo_connect_four.py", "--episodes", "5", "--games", "2")
    assert "5 self-play games on connect_four_v3" in out
