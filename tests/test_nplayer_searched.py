"""studies.nplayer.searched's page: a column's mean over the finished agents, the references when measured."""
from __future__ import annotations

import json

from studies.nplayer import searched


def _result(score: float, seats: list[float]) -> dict:
    per_seat = [{"seat": i, "mean_score": x} for i, x in enumerate(seats)]
    return {"matchups": [{"mean_score": score, "score_se": 0.05, "per_seat": per_seat}]}


def test_table_averages_the_finished_agents_and_shows_the_measured_references(tmp_path):
    agents = tmp_path / "ewn3p_large"
    for seed, score in ((0, -0.1), (1, -0.3)):
        row = searched.agent_row(agents, "farl", seed, "mcts3000")
        (tmp_path / f"{row.id}.json").write_text(json.dumps(_result(score, [score, score, score])))
    (tmp_path / f"{searched.CONTROL.id}.json").write_text(json.dumps(_result(-0.2, [-0.5, -0.4, 0.3])))
    lines = searched.table(tmp_path, agents)
    row = next(line for line in lines if line.startswith("| PUCT, 3,000 iterations | FARL |"))
    assert "-0.200 ± 0.100" in row and "-0.10, -0.30" in row  # two agents: mean and s.e. (stdev 0.141 / sqrt 2)
    assert any(line.startswith("| PUCT, 3,000 iterations | no-FARL | to run |") for line in lines)
    control = [line for line in lines if line.startswith("| MCTS3000 itself (40 games per seat)")]
    assert control and "-0.200 ± 0.050" in control[0] and "-0.50 / -0.40 / +0.30" in control[0]
    assert not any(line.startswith("| MCTS1000 itself") for line in lines)  # not measured here
