"""The FARL-effect experiment on a tiny budget: both agents differ only in final adaptation, entries resume."""
import json

import pytest

from studies.farl_when import farl_effect


def test_agents_differ_only_in_final_adaptation():
    with_farl, without, params = farl_effect.agents_for("clobber", 3, episodes=10)
    assert with_farl.config.farl and with_farl.config.farl_terminal
    assert not without.config.farl and not without.config.farl_terminal
    assert with_farl.config.replace(farl=False, farl_terminal=False) == without.config
    assert with_farl.config.seed == 3 and with_farl.config.episodes == 10 and params == {"rows": 5, "columns": 6}


@pytest.mark.slow  # ~50 CPU s cold (Clobber's learner, MCTS and self-play loops, compiled for this test alone)
def test_tiny_run_measures_resumes_and_tabulates(tmp_path, capsys):
    out = tmp_path / "fe.json"
    argv = ["--games", "clobber", "--seeds", "1", "--episodes", "20", "--games-per-seat", "1", "--mcts", "5",
            "--out", str(out)]
    assert farl_effect.main(argv) == 0
    entry = json.loads(out.read_text())["entries"]["clobber/seed0"]
    assert entry["episodes"] == 20
    for key in ("farl_vs_nofarl", "farl_vs_random", "nofarl_vs_random", "farl_vs_mcts", "nofarl_vs_mcts"):
        assert entry[key]["games"] == 2 and 0.0 <= entry[key]["score"] <= 1.0 and len(entry[key]["per_seat"]) == 2
    for key in ("farl_selfplay", "nofarl_selfplay"):
        sp = entry[key]
        assert sp["games"] == 200 and 0.0 <= sp["losses_lost"] <= 1.0 and sp["plies_mean"] > 0
    # Clobber ends when the player to move has no move: every loss arrives after the loser's last move
    assert entry["nofarl_selfplay"]["losses_lost"] == 1.0 and entry["nofarl_selfplay"]["wins_lost"] == 0.0
    # an entry written before the self-play measurement gets it and keeps its matchups
    data = json.loads(out.read_text())
    old = {k: v for k, v in entry.items() if not k.endswith("_selfplay")}
    old["farl_vs_nofarl"] = {**old["farl_vs_nofarl"], "marker": 1}
    data["entries"]["clobber/seed0"] = old
    out.write_text(json.dumps(data))
    assert farl_effect.main(argv) == 0
    entry = json.loads(out.read_text())["entries"]["clobber/seed0"]
    assert entry["farl_vs_nofarl"]["marker"] == 1 and entry["nofarl_selfplay"]["losses_lost"] == 1.0
    # a second seed adds one entry and keeps the first unchanged
    assert farl_effect.main(argv[:3] + ["2"] + argv[4:]) == 0
    data = json.loads(out.read_text())
    assert sorted(data["entries"]) == ["clobber/seed0", "clobber/seed1"] and data["entries"]["clobber/seed0"] == entry
    capsys.readouterr()
    assert farl_effect.main(["--out", str(out), "--table"]) == 0
    printed = capsys.readouterr().out
    assert "| Clobber 5x6 | 2 |" in printed and "| Clobber 5x6 | no-FARL |" in printed


def test_unknown_game_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        farl_effect.main(["--games", "chess", "--out", str(tmp_path / "x.json")])
