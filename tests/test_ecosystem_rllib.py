"""RLlib's PPO on farl's TicTacToe with ``illegal_action="penalize"``, as the README shows it (extra ``rllib``).

RLlib's default EnvRunner samples any action of the policy's distribution, legal or not; farl's AEC envs
raise on an illegal action by default, which stops the runner. The README's RLlib block builds the env
with ``illegal_action="penalize"`` (an illegal move loses and ends the game); this test runs that very
block, two PPO iterations with its tiny batch, on a private one-CPU Ray instance.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "docs" / "ecosystem.md"


def readme_rllib_block() -> str:
    """The README's Python block that trains PPO through RLlib."""
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.M | re.S)
    found = [b for b in blocks if "PPOConfig" in b and "illegal_action=\"penalize\"" in b]
    assert len(found) == 1, "the README has one RLlib block with illegal_action=\"penalize\""
    return found[0]


@pytest.mark.slow  # ~10 s with RLlib's imports (inside the test: a default run does not pay them)
def test_readme_rllib_ppo_trains_two_iterations_with_penalize():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib.algorithms.ppo", reason="RLlib's dependencies: pip install 'farl-rl[rllib]'")
    code = readme_rllib_block()
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        namespace: dict = {}
        exec(compile(code, f"{README}:rllib", "exec"), namespace)
    finally:
        ray.shutdown()
    result = namespace["result"]
    assert result["training_iteration"] == 2
    runners = result["env_runners"]
    assert runners["num_episodes"] > 0
    # a TicTacToe return is -1, 0 or +1 per player (an illegal move: -1 for the mover, 0 for the other)
    assert -1.0 <= runners["agent_episode_returns_mean"]["player_0"] <= 1.0
