"""Every learner family through the same run stack and the same CLI contract.

Each family (n-tuple, Nemesh, Descent) is trained with a tiny budget by
``farl train``, interrupted by Ctrl-C part-way, resumed with ``farl train
--resume``, then evaluated and played through its run folder; the folder
layout is the same for all. Run folders written by farl 0.1 (committed
under tests/data/runs_farl_0_1, made by the code before the run stacks were
merged) resume too.
"""
import importlib.util
import io
import json
import os
import shutil
import signal
from pathlib import Path

import numpy as np
import pytest

from farl_agents import cli, families
from farl_agents.cli import play
from farl_agents.learners import NTupleAgent
from farl_agents.nemesh.agent import NemeshAgent
from farl_agents.runs import Run, read_curve
from farl_agents.runs import run as run_module

LEGACY = Path(__file__).parent / "data" / "runs_farl_0_1"
LAYOUT = {"run.json", "checkpoint.json", "curve.csv", "curve.png", "eval.json", "checkpoints"}
"""Every run folder holds these, and its agent file (agent.npz; agent.zip for SB3 models)."""

# family -> (train argv after the game, game, opponent for eval); tiny budgets, a curve against random
FAMILY_RUNS = {
    "ntuple": (["tictactoe", "--algo", "td-farl", "--episodes", "600", "--eval-every", "200"], "random"),
    "nemesh": (["connect_four", "--algo", "nemesh", "--preset", "quick", "--fraction", "0.4",
                "--eval-every", "20"], "random"),
    "descent": (["tictactoe", "--algo", "descent", "--minutes", "0.03", "--move-iterations", "8",
                 "--eval-every", "0.6"], "random"),
    "sb3": (["tictactoe", "--algo", "maskable-ppo", "--timesteps", "8192", "--eval-every", "2048"], "random"),
    "alphazero": (["tictactoe", "--algo", "alphazero", "--minutes", "0.02", "--games", "16", "--simulations", "4",
                   "--play-simulations", "2", "--eval-every", "0.6"], "random"),
}
HAVE_SB3 = all(importlib.util.find_spec(m) for m in ("stable_baselines3", "sb3_contrib", "torch"))
HAVE_TORCH = importlib.util.find_spec("torch") is not None
COMMON_FLAGS = ("--out", "--resume", "--seed", "--quiet", "--stop-after", "--checkpoint-minutes", "--eval-every",
                "--eval-vs", "--eval-games", "--eval-starts", "--eval-seed", "--eval-jobs", "--param", "--config",
                "--set", "--preset")
"""The flags every family's ``farl train`` takes, with the same meaning."""


def test_every_family_is_in_the_registry_with_its_hooks():
    assert [f.name for f in families.FAMILIES] == list(FAMILY_RUNS)
    for fam in families.FAMILIES:
        hooks = fam.hooks()
        assert hooks.Trainer.family == fam.name
        assert hooks.Trainer.unit in ("episodes", "games", "seconds", "steps")
        assert set(hooks.FLAGS.flag_fields) <= set(hooks.Trainer.config_class.__dataclass_fields__)
        for algo in fam.algos:
            assert families.of_algo(algo) is fam
    with pytest.raises(ValueError, match="unknown --algo"):
        families.of_algo("nosuch")


@pytest.mark.parametrize("family", [f.name for f in families.FAMILIES])
def test_one_cli_contract_every_family_takes_the_common_flags_and_its_own(family):
    fam = families.get(family)
    hooks = fam.hooks()
    parser = cli.build_parser(["train", "--algo", fam.algos[0]])
    train = parser._subparsers._group_actions[0].choices["train"]
    flags = {opt for a in train._actions for opt in a.option_strings}
    missing = [f for f in COMMON_FLAGS if f not in flags]
    assert not missing, f"{family} lacks {missing}"
    assert hooks.BUDGET_FLAG in flags  # the budget, in the family's unit
    for field in hooks.FLAGS.flag_fields:
        assert "--" + field.replace("_", "-") in flags


SLOW_FAMILIES = {"sb3", "alphazero"}
"""Families whose cycle runs with ``-m slow`` (~8 s each of training; their own resume tests stay in the default
run: tests/test_baselines.py, tests/test_alphazero.py)."""


@pytest.mark.parametrize("family", [pytest.param(f, marks=[pytest.mark.slow] if f in SLOW_FAMILIES else [])
                                    for f in FAMILY_RUNS])
def test_train_interrupt_resume_eval_play(family, tmp_path, monkeypatch, capsys):
    if family in ("sb3", "alphazero") and not (HAVE_SB3 if family == "sb3" else HAVE_TORCH):
        pytest.skip("needs the optional extra 'baselines' (Stable-Baselines3, torch)")
    argv, opponent = FAMILY_RUNS[family]
    out = tmp_path / family
    common = ["--eval-vs", opponent, "--eval-games", "2", "--quiet", "--out", str(out)]
    chunks = []

    def ctrl_c_on_second_chunk(run):
        chunks.append(run.trainer.done)
        if len(chunks) == 2:
            signal.raise_signal(signal.SIGINT)

    real_train = run_module.Run.train
    monkeypatch.setattr(run_module.Run, "train",
                        lambda self, **kw: real_train(self, **{**kw, "on_chunk": ctrl_c_on_second_chunk,
                                                               "chunk_seconds": 0.2}))
    assert cli.main(["train", *argv, *common]) == 130
    assert "farl train --resume" in capsys.readouterr().out
    marker = json.loads((out / "checkpoint.json").read_text())
    assert not marker["finished"] and all((out / f).exists() for f in marker["files"])
    assert json.loads((out / "run.json").read_text())["family"] == family
    monkeypatch.setattr(run_module.Run, "train", real_train)

    assert cli.main(["train", "--resume", str(out), "--quiet"]) == 0
    run = Run.open(out)
    assert run.finished and LAYOUT <= {p.name for p in out.iterdir()} and run.agent_file.exists()
    rows = read_curve(out / "curve.csv")
    assert rows[0]["episode"] == 0 and rows[-1]["episode"] == run.trainer.episodes
    assert all(0 <= r[f"score_{opponent}"] <= 1 for r in rows)
    capsys.readouterr()

    assert cli.main(["eval", str(out), "--vs", opponent, "--games", "2"]) == 0
    assert "win rate" in capsys.readouterr().out
    args = cli.build_parser(["play"]).parse_args(["play", str(out), "--seat", "0"])
    opp, game = play.main_player(args.game, None, None)
    transcript = io.StringIO()
    assert play.play_session(game, opp, 0, io.StringIO("quit\n"), transcript) == 0
    assert "you play as player_0" in transcript.getvalue()


def test_resume_refuses_new_settings_for_every_family(tmp_path, capsys):
    out = tmp_path / "nm"
    assert cli.main(["train", "connect_four", "--algo", "nemesh", "--preset", "quick", "--fraction", "0.2",
                     "--quiet", "--out", str(out), "--stop-after", "10"]) == 0
    capsys.readouterr()
    assert cli.main(["train", "--resume", str(out), "--depth", "2"]) == 2
    err = capsys.readouterr().err
    assert "drop --depth" in err and len(err.strip().splitlines()) == 1


def _copy_legacy(tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(LEGACY / name, dst)
    return dst


def test_farl_0_1_ntuple_run_resumes_bit_identically(tmp_path):
    folder = _copy_legacy(tmp_path, "ntuple_nim")
    assert cli.main(["train", "--resume", str(folder), "--quiet"]) == 0
    spec = json.loads((folder / "run.json").read_text())
    fresh = tmp_path / "fresh"
    assert cli.main(["train", "nim", "--preset", "paper", "--episodes", "400", "--eval-vs", "random",
                     "--eval-every", "200", "--eval-games", "5", "--quiet", "--out", str(fresh)]) == 0
    a, b = NTupleAgent.load(folder / "agent.npz"), NTupleAgent.load(fresh / "agent.npz")
    assert a.episodes_done == b.episodes_done == 400 == spec["config"]["episodes"]
    assert np.array_equal(a.net.weights, b.net.weights)


def test_farl_0_1_nemesh_run_is_upgraded_and_resumes_bit_identically(tmp_path):
    folder = _copy_legacy(tmp_path, "nemesh_c4")
    assert json.loads((folder / "run.json").read_text())["algo"] == "nemesh"
    assert cli.main(["train", "--resume", str(folder), "--quiet"]) == 0
    record = json.loads((folder / "run.json").read_text())
    assert record["format"] == "farl-run" and record["family"] == "nemesh"
    assert (folder / "run-farl-0.1.json").exists() and not (folder / "checkpoint.npz").exists()
    fresh = tmp_path / "fresh"
    assert cli.main(["train", "connect_four", "--algo", "nemesh", "--preset", "quick", "--fraction", "0.5",
                     "--quiet", "--out", str(fresh)]) == 0
    a, b = NemeshAgent.load(folder / "agent.npz"), NemeshAgent.load(fresh / "agent.npz")
    assert a.games_done == b.games_done == 75
    assert np.array_equal(a.weights, b.weights)


@pytest.mark.slow  # ~11 s of descent training; the Nemesh legacy run's upgrade stays in the default run
def test_farl_0_1_descent_run_is_upgraded_with_its_curve(tmp_path):
    folder = _copy_legacy(tmp_path, "descent_ttt")
    old_rows = (folder / "curve.csv").read_text().splitlines()[1:]
    games_at_checkpoint = json.loads((folder / "run.json").read_text())["games"]
    assert cli.main(["train", "--resume", str(folder), "--quiet"]) == 0
    rows = read_curve(folder / "curve.csv")
    kept = [r for r in old_rows if int(r.split(",")[2]) <= games_at_checkpoint]
    assert [(r["episode"], r["score_random"]) for r in rows[:len(kept)]] == \
        [(int(r.split(",")[2]), float(r.split(",")[3])) for r in kept]
    run = Run.open(folder)
    assert run.finished and run.spec.family == "descent" and run.spec.eval_depth == 2


def test_agent_files_and_run_folders_name_players(tmp_path, capsys):
    (tmp_path / "random").mkdir()  # a folder named like an opponent: the path wins, with a note
    assert cli.main(["eval", str(tmp_path / "random"), "--vs", "random"]) == 2
    assert "is a folder, not a run" in capsys.readouterr().err
    foreign = tmp_path / "other.npz"
    np.savez(foreign, meta=np.array(json.dumps({"format": "something-else"})))
    assert cli.main(["eval", str(foreign), "--vs", "random"]) == 2
    assert "not a farl agent file" in capsys.readouterr().err
    assert families.of_format("farl-nemesh-agent").name == "nemesh"
    assert families.of_format("something-else") is None


def test_a_run_folder_named_without_a_slash_is_the_run(tmp_path, monkeypatch, capsys):
    """`farl train ... --out v_td` then `farl eval v_td`: the folder, not an opponent name."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "tictactoe", "--algo", "td-farl", "--preset", "paper", "--episodes", "50",
                     "--quiet", "--out", "v_td"]) == 0
    assert "farl eval v_td" in capsys.readouterr().out
    assert cli.main(["eval", "v_td", "--vs", "maxn10", "--games", "1"]) == 0
    assert "win rate" in capsys.readouterr().out
    assert cli.main(["eval", "random", "--game", "tictactoe", "--vs", "v_td", "--games", "1"]) == 0


def test_a_run_being_trained_by_another_process_is_refused(tmp_path, capsys):
    import subprocess
    import sys

    out = tmp_path / "run"
    args = ["train", "nim", "--preset", "paper", "--episodes", "40", "--quiet", "--out", str(out)]
    assert cli.main(args + ["--stop-after", "20"]) == 0
    assert not (out / ".lock").exists()  # released after training
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    writing = out / "checkpoints" / ".agent-000000000040.npz.x1y2.tmp"  # the other process's checkpoint, half written
    try:
        (out / ".lock").write_text(f"{other.pid} {os.uname().nodename}\n")
        writing.write_bytes(b"half")
        capsys.readouterr()
        assert cli.main(["train", "--resume", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"another process (PID {other.pid})" in err and len(err.strip().splitlines()) == 1
        assert writing.read_bytes() == b"half"  # the refused process left the owner's files alone
    finally:
        other.kill()
        other.wait()
    # the owner is gone: the lock is stale and the run goes on
    assert cli.main(["train", "--resume", str(out), "--quiet"]) == 0
    assert Run.open(out).finished and not (out / ".lock").exists()
    assert not writing.exists()  # ... and its stray temporary file was cleaned up under the lock
