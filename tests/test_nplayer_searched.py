"""studies/nplayer/searched.py: its rows name the rerun's agents with their search, and its table pools them."""
import json
from pathlib import Path

from studies.nplayer import searched


def _result(score: float, seats: tuple) -> dict:
    return {"matchups": [{"mean_score": score, "score_se": 0.1,
                          "per_seat": [{"seat": i, "mean_score": x} for i, x in enumerate(seats)]}]}


def test_rows_name_the_agent_folder_and_its_wrapper():
    row = searched.agent_row(Path("agents"), "farl", 3, "expectimax2")
    assert row.player == "agents/farl-seed3+expectimax2"
    assert row.vs == "mcts1000" and row.games == searched.GAMES_PER_SEAT
    assert "--param" in row.argv() and "players=3" in row.argv()
    assert searched.agent_row(Path("agents"), "nofarl", 0, "").player == "agents/nofarl-seed0"


def test_the_table_gives_mean_and_standard_error_over_the_agents(tmp_path):
    agents = Path("agents")
    scores = [-0.1, -0.3, 0.1, -0.2, 0.0]
    for seed, score in zip(searched.SEEDS, scores):
        row = searched.agent_row(agents, "farl", seed, "mcts300")
        (tmp_path / f"{row.id}.json").write_text(json.dumps(_result(score, (-0.5, -0.5, 1.0 + score))))
    lines = searched.table(tmp_path, agents, wrappers=("mcts300",))
    farl = next(line for line in lines if "| FARL |" in line)
    # mean -0.1, sample s.d. 0.158, s.e. 0.0707
    assert "-0.100 ± 0.071" in farl
    assert "-0.50 / -0.50 / +0.90" in farl
    nofarl = next(line for line in lines if "| no-FARL |" in line)
    assert "to run" in nofarl


def test_the_per_ply_column_reads_the_per_ply_rows_agents():
    row = searched.agent_row(Path("runs/x/ewn3p_large"), "ply", 2, "mcts300")
    assert row.player == "runs/x/ewn3p_large-ply/nofarl-seed2+mcts300"
    assert row.id != searched.agent_row(Path("runs/x/ewn3p_large"), "nofarl", 2, "mcts300").id


def test_the_table_shows_the_plain_mcts_control_when_measured(tmp_path):
    agents = Path("agents")
    for seed, score in ((0, -0.1), (1, -0.3)):
        row = searched.agent_row(agents, "farl", seed, "mcts3000")
        (tmp_path / f"{row.id}.json").write_text(json.dumps(_result(score, (score, score, score))))
    (tmp_path / f"{searched.CONTROL.id}.json").write_text(json.dumps(_result(-0.2, (-0.5, -0.4, 0.3))))
    lines = searched.table(tmp_path, agents)
    farl = next(line for line in lines if line.startswith("| PUCT, 3,000 iterations | FARL |"))
    assert "-0.200 ± 0.100" in farl and "-0.10, -0.30" in farl  # two agents: s.d. 0.141, s.e. 0.1
    control = [line for line in lines if line.startswith("| MCTS3000 itself (40 games per seat)")]
    assert control and "-0.200 ± 0.100" in control[0] and "-0.50 / -0.40 / +0.30" in control[0]
    assert not any(line.startswith("| MCTS1000 itself") for line in lines)  # not measured here
