"""benchmarks/adapter_speed.py without asserting any speed: the page it writes, a missing package, bad flags."""
from __future__ import annotations

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def adapter_speed():
    return load_script("benchmarks", "adapter_speed")


def test_writes_one_row_per_env_with_ratios_to_farls_env(adapter_speed, tmp_path, monkeypatch):
    def missing():
        raise ModuleNotFoundError("No module named 'shimmy'", name="shimmy")

    envs = dict(adapter_speed.ENVS)
    envs["tictactoe"] = [envs["tictactoe"][0], ("somebody's env, adapted", missing), envs["tictactoe"][-1]]
    monkeypatch.setattr(adapter_speed, "ENVS", envs)
    out = tmp_path / "page.md"
    assert adapter_speed.main(["--seconds", "0.05", "--rounds", "1", "--games", "tictactoe", "--out", str(out)]) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| tictactoe |")]
    assert [r.split(" | ")[1] for r in rows] == ["farl's env", "somebody's env, adapted",
                                                 "compiled self-play (no AEC loop)"]
    assert rows[0].endswith("| 1.00 |")
    assert "not installed (shimmy)" in rows[1]
    compiled = float(rows[2].split(" | ")[3].rstrip(" |"))   # the ratio to farl's env, whatever its size
    assert compiled > 0


def test_refuses_unknown_games_and_empty_budgets(adapter_speed):
    with pytest.raises(SystemExit):
        adapter_speed.main(["--games", "chess"])
    with pytest.raises(SystemExit):
        adapter_speed.main(["--seconds", "0"])
