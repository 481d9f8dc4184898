"""farl_when: who gets the final reward, and the size of one final-adaptation step."""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import NTupleAgent, td_farl
from farl_agents.learners.presets import paper_config
from farl_agents.ntuple.network import board_indices
from farl_agents.ntuple.traces import clear_traces
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL
from studies.farl_when import farl_when


@pytest.mark.slow  # ~10 s: the FARL-when study's update check, trained per game
@pytest.mark.parametrize("game", ["nim3p", "connect_four"])  # TC-id and TC-EXP
def test_value_after_step_matches_a_real_update(game):
    agent = NTupleAgent(game, paper_config(game, seed=3, episodes=400))
    agent.train(200)
    g, rng = agent.game, make_rng(5)
    s = g.initial_state(g.p, rng)
    mask = np.zeros(g.n_actions, dtype=np.int8)
    rewards = np.zeros(g.n_players)
    for _ in range(3):
        g.legal_actions(g.p, s, mask)
        g.afterstate(g.p, s, rng_choice_mask(rng, mask), s, rewards)
        assert not s[TERMINAL]
    player, target = 1, -1.0
    before, predicted = farl_when.value_after_step(agent, s, player, target)
    assert before == pytest.approx(agent.afterstate_value(s, player))
    idx = np.empty(agent.net.sym_cells.shape[:2], dtype=np.int64)
    board = np.zeros(2 * g.n_cells, dtype=np.int32)[: g.n_cells]
    g.board(g.p, s, board)
    board_indices(agent.net, board, idx)
    clear_traces(agent.traces)
    td_farl.adapt_towards(agent.net, agent.traces, agent.params, player, idx, target,
                          float(agent.schedules(1)[0][0]))
    after = agent.afterstate_value(s, player)
    assert after != pytest.approx(before)
    assert predicted == pytest.approx(after, rel=1e-4, abs=1e-6)


def test_random_tictactoe_the_winner_moves_last():
    m = farl_when.measure(farl_envs.game_spec("tictactoe"), None, 200, 0.0, seed=1)
    assert m["last_mover_wins"] == 1.0 and m["last_mover_loses"] == 0.0
    assert m["losses_lost"] == 1.0 and m["wins_lost"] == 0.0
    assert 5 <= m["plies_mean"] <= 9


def test_trained_entry_reports_values(tmp_path):
    entry = farl_when.Entry("Nim 3x5", "nim", False, 300)
    r = farl_when.run_entry(entry, 20, seed=0)
    for name in ("farl", "nofarl"):
        m = r[name]
        assert m["games"] == 20 and sum(m["n_nonmover"].values()) > 0
        assert 0 <= m["move_farl1"] <= m["delta_farl1"] + 1e-9
    assert "| Nim 3x5 |" in farl_when.report([r])


def test_hide_own_loss_hides_only_the_movers_final_loss():
    raw = farl_envs.make_raw("othello")
    env = farl_when.HideOwnLoss(raw)
    rng = np.random.default_rng(0)
    hidden = shown = 0
    for g in range(12):
        env.reset(seed=g)
        for ag in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(np.asarray(obs["action_mask"])))))
            seen, real = env.rewards, raw.rewards
            for other in raw.possible_agents:
                if other == ag and raw.terminations.get(ag, False) and real[ag] < 0:
                    assert seen[ag] == 0.0
                    hidden += 1
                else:
                    assert seen.get(other, 0.0) == real.get(other, 0.0)
                    shown += real.get(other, 0.0) != 0
    assert hidden > 0 and shown > 0  # some movers lost, and the other rewards came through


def test_trained_agents_are_measured_from_their_files_or_run_folders(tmp_path, capsys):
    """``--agents``: a TicTacToe agent saved as a file and as a run folder's agent.npz gives the same
    measurement; in TicTacToe every loss lands on the winner's move, so all of them are lost without FARL."""
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", seed=1, episodes=300))
    agent.train(300)
    (tmp_path / "run").mkdir()
    agent.save(tmp_path / "run" / "agent.npz")
    agent.save(tmp_path / "a.npz")
    out = tmp_path / "m.json"
    farl_when.main(["--agents", str(tmp_path / "run"), str(tmp_path / "a.npz"), "--games", "60", "--epsilon",
                    "0.3", "--out", str(out)])
    import json

    folder, file = json.loads(out.read_text())
    assert folder["self_play"] == file["self_play"] and folder["farl"] and folder["episodes"] == 300
    assert folder["self_play"]["losses"] > 5 and folder["self_play"]["losses_lost"] == 1.0
    assert "| yes | player |" in capsys.readouterr().out


def test_more_agents_are_added_to_the_out_file_and_the_ones_in_it_are_kept(tmp_path):
    """A second ``--agents`` call with the same ``--out`` adds its agents; those measured before are kept as they
    are and not measured again."""
    import json

    for seed in (1, 2):
        agent = NTupleAgent("tictactoe", paper_config("tictactoe", seed=seed, episodes=50))
        agent.train(50)
        agent.save(tmp_path / f"a{seed}.npz")
    out = tmp_path / "m.json"
    farl_when.main(["--agents", str(tmp_path / "a1.npz"), "--games", "20", "--out", str(out)])
    first = json.loads(out.read_text())
    first[0]["marker"] = "kept"  # a measured-again entry would lose it
    out.write_text(json.dumps(first))
    farl_when.main(["--agents", str(tmp_path / "a1.npz"), str(tmp_path / "a2.npz"), "--games", "20", "--out",
                    str(out)])
    both = json.loads(out.read_text())
    assert [r["agent"] for r in both] == [str(tmp_path / "a1.npz"), str(tmp_path / "a2.npz")]
    assert both[0]["marker"] == "kept"
