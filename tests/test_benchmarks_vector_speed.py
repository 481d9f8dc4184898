"""benchmarks/vector_speed.py without asserting any speed: the page it writes and its flags."""
from __future__ import annotations

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def vector_speed():
    return load_script("benchmarks", "vector_speed")


def test_writes_a_row_per_backend_and_batch_size(vector_speed, tmp_path):
    out = tmp_path / "page.md"
    argv = ["--games", "tictactoe", "--sizes", "1,4", "--backends", "farl,farl-no-obs,openspiel-loop",
            "--seconds", "0.02", "--max-python-envs", "1", "--no-anatomy", "--out", str(out)]
    assert vector_speed.main(argv) == 0
    text = out.read_text()
    rows = {line.split(" | ")[1]: line for line in text.splitlines() if line.startswith("| tictactoe |")}
    assert set(rows) >= {"farl", "farl-no-obs"}
    assert "B |" in rows["farl"]  # memory per env, measured
    if "openspiel-loop" in rows:  # OpenSpiel installed: its Python loop stops at --max-python-envs
        assert "not run (Python loop; see 1)" in rows["openspiel-loop"]
    assert "python benchmarks/vector_speed.py --games tictactoe" in text


def test_unknown_backends_and_sizes_are_refused(vector_speed, tmp_path):
    for argv in (["--backends", "farl,gym"], ["--sizes", "0"]):
        with pytest.raises(SystemExit):
            vector_speed.main(argv + ["--out", str(tmp_path / "x.md")])
