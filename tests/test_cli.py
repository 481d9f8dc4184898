"""The `farl` command line: train outputs, config flags and files, eval, play, info, errors."""
import argparse
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from farl_agents import cli, families
from farl_agents.cli import play
from farl_agents.cli.common import QUIET_FLAGS
from farl_agents.config_flags import field_docs
from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
from farl_agents.learners import family as ntuple_family
from farl_agents.opponents.connect_four import book as c4_book
from farl_agents.runs import read_curve


def farl(*args) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small TicTacToe run with evaluations against two opponents."""
    out = tmp_path_factory.mktemp("cli") / "ttt"
    code = farl("train", "tictactoe", "--algo", "td-farl", "--preset", "paper", "--episodes", 1500,
                "--eval-every", 500, "--eval-vs", "random,maxn10", "--eval-games", 3, "--seed", 3, "--out", out)
    assert code == 0
    return out


# ------------------------------------------------------------------ train
def test_train_writes_run_folder(trained, capsys):
    for name in ("agent.npz", "curve.csv", "curve.png", "run.json", "checkpoint.json", "eval.json"):
        assert (trained / name).is_file(), name
    info = json.loads((trained / "run.json").read_text())
    assert info["game"] == "tictactoe" and info["farl_version"] and info["command"].startswith("farl train")
    cfg = LearnerConfig.from_dict(info["config"])
    assert cfg == paper_config("tictactoe", episodes=1500, seed=3)
    assert info["eval_vs"] == ["random", "maxn10"]
    rows = read_curve(trained / "curve.csv")
    assert [r["episode"] for r in rows] == [0, 500, 1000, 1500]
    assert set(rows[0]) == {"episode", "env_steps", "train_seconds", "wall_seconds", "train_reward", "train_plies",
                            "score_random", "se_random", "score_maxn10", "se_maxn10"}
    assert rows[0]["train_reward"] is None and rows[-1]["train_plies"] > 4
    assert all(0 <= r["score_maxn10"] <= 0.5 for r in rows)
    agent = NTupleAgent.load(trained / "agent.npz")
    assert agent.episodes_done == 1500 and agent.config == cfg
    assert (trained / "curve.png").read_bytes()[:4] == b"\x89PNG"


def test_train_flags_config_files_and_precedence(tmp_path):
    toml = tmp_path / "cfg.toml"
    toml.write_text('alpha = 0.7\nlam = 0.5\nepsilon_final = "none"\ntrace_mode = "res"\n'
                    '[game_params]\nheap_size = 4\n')
    out = tmp_path / "run"
    code = farl("train", "nim", "--algo", "td", "--preset", "paper", "--config", toml, "--alpha", 0.9,
                "--no-use-symmetry", "--alpha-final", "none", "--set", "lam=0.25", "--param", "max_take=4",
                "--episodes", 10, "--stop-after", 0, "--quiet", "--out", out)
    assert code == 0
    info = json.loads((out / "run.json").read_text())
    c = info["config"]
    assert (c["algo"], c["farl"], c["farl_terminal"]) == ("td", False, False)  # --algo td: no FARL at all
    assert c["alpha"] == 0.9 and c["alpha_final"] is None  # flags beat the file
    assert c["lam"] == 0.25 and c["trace_mode"] == "res" and c["epsilon_final"] is None  # --set beats flags
    assert c["use_symmetry"] is False and c["tcl"] == "id"  # preset values kept where nothing overrides
    assert info["game_params"] == {"heaps": 3, "heap_size": 4, "max_take": 4}  # preset < file < --param
    # a run.json (or any JSON with the fields) is a config file too
    out2 = tmp_path / "run2"
    assert farl("train", "nim", "--config", out / "run.json", "--stop-after", 0, "--quiet", "--out", out2) == 0
    again = json.loads((out2 / "run.json").read_text())
    assert again["config"] == c and again["game_params"] == info["game_params"]


def test_every_config_field_has_a_flag_with_its_docstring():
    parser = cli.build_parser()
    train = parser._subparsers._group_actions[0].choices["train"]
    flags = {opt: a for a in train._actions for opt in a.option_strings}
    docs = field_docs(LearnerConfig)
    for name in LearnerConfig.__dataclass_fields__:
        assert docs[name], name
        if name in ntuple_family.FLAGS.skip:
            continue
        action = flags["--" + name.replace("_", "-")]
        assert docs[name][:30].replace("%", "%%") in action.help
    assert "--algo" in flags and "--no-use-symmetry" in flags


def test_train_thill2014_tcl_rr_preset(tmp_path):
    out = tmp_path / "c4"
    assert farl("train", "connect_four", "--preset", "tcl-rr", "--episodes", 5, "--stop-after", 0, "--quiet",
                "--out", out) == 0
    c = json.loads((out / "run.json").read_text())["config"]
    # Table I's lambda 0.8 per ply is 0.8 ** 2 per entry of a player-centred chain (presets.player_centred_lambda)
    assert c["trace_mode"] == "rr" and c["lam"] == 0.64 and c["tcl"] == "exp"


# ------------------------------------------------------------------ errors
BAD_INPUT = [
    (["train", "chess"], "unknown game 'chess'"),
    (["train", "tictactoe", "--algo", "tdx"], "unknown --algo 'tdx'"),
    (["train", "tictactoe", "--bogus"], "unrecognized arguments: --bogus"),
    (["train", "tictactoe", "--alpha", "abc"], "--alpha"),
    (["train", "tictactoe", "--trace-mode", "zig"], "expected one of et, res"),
    (["train", "tictactoe", "--set", "foo=1"], "unknown option 'foo'"),
    (["train", "tictactoe", "--set", "lam"], "--set takes key=value"),
    (["train", "tictactoe", "--lam", "1.5"], "lam"),
    (["train", "tictactoe", "--param", "cols=8"], "tictactoe has no parameter cols"),
    (["train", "connect_four", "--param", "cols=3"], "cols must be in 4..10"),
    (["train", "tictactoe", "--eval-vs", "nobody"], "unknown opponent 'nobody'"),
    (["train", "tictactoe", "--eval-vs", "bench"], "plays othello only"),
    (["train", "tictactoe", "--preset", "nonsense"], "invalid choice: 'nonsense'"),
    (["train", "othello", "--preset", "tcl-rr"], "Connect Four"),
    (["train"], "name the game"),
    (["train", "tictactoe", "--config", "missing.toml"], "not found"),
    (["eval", "nothere/agent.npz", "--vs", "random"], "no agent file"),
    (["eval", "maxn10", "--vs", "random"], "--game"),
    (["eval", "random", "--game", "tictactoe"], "--vs"),
    (["eval", "random", "--game", "tictactoe", "--vs", "whom"], "neither an agent file"),
    (["eval", "random", "--game", "tictactoe", "--vs", "random", "--start-states", "odd"], "unknown start"),
    (["play", "tictactoe", "--seat", "5"], "--seat"),
    (["play", "hex", "--agent", "bouton"], "plays nim only"),
    (["reproduce", "table1", "--rows", "chess"], "unknown Table 1 row"),
    (["reproduce", "everything"], "invalid choice"),
]


@pytest.mark.parametrize("argv,needle", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_exit_2(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("farl: error: "), err
    assert needle in lines[0] and "Traceback" not in err


def test_bad_files_and_folders(tmp_path, trained, capsys):
    cases = []
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("alpha = = 1\n")
    cases.append((["train", "tictactoe", "--config", bad_toml], "not valid TOML"))
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"alpha": 0.5, "alhpa": 0.1}))
    cases.append((["train", "tictactoe", "--config", unknown], "unknown option 'alhpa'"))
    wrong_type = tmp_path / "wrong.json"
    wrong_type.write_text(json.dumps({"episodes": "many"}))
    cases.append((["train", "tictactoe", "--config", wrong_type], "episodes"))
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.arange(3))
    cases.append((["eval", foreign, "--vs", "random"], "not a farl agent file"))
    cases.append((["eval", trained / "agent.npz", "--game", "nim", "--vs", "random"], "plays tictactoe, not nim"))
    cases.append((["eval", trained / "run.json", "--vs", "random"], "not a farl agent file"))
    cases.append((["train", "tictactoe", "--out", trained], "already holds a run"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases.append((["train", "tictactoe", "--out", blocker / "sub"], "cannot write to"))
    cases.append((["reproduce", "table1", "--rows", "tictactoe", "--out", blocker / "sub"], "cannot write to"))
    cases.append((["train", "--resume", tmp_path], "not a farl run folder"))
    for argv, needle in cases:
        assert cli.main([str(a) for a in argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("farl: error: ") and needle in err, (argv, err)
        assert "Traceback" not in err


def test_debug_shows_the_exception(capsys):
    with pytest.raises(cli.CliError, match="unknown game"):
        cli.main(["--debug", "train", "chess"])
    with pytest.raises(cli.CliError):
        cli.main(["train", "tictactoe", "--algo", "nope", "--debug"])


def test_help_and_version(capsys):
    for argv in (["--help"], ["train", "--help"], ["eval", "--help"], ["play", "--help"],
                 ["reproduce", "--help"], ["--version"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--alpha-final" in out and "--eval-vs" in out and "farl 0." in out
    assert cli.main([]) == 2  # no command: the help, exit 2


# ------------------------------------------------------------------ eval
def test_eval_agent_text_and_json(trained, capsys):
    assert farl("eval", trained / "agent.npz", "--vs", "maxn10", "--start-states", "start+1ply") == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "seat 0:" in out and "seat 1:" in out and "Max-N10" in out
    assert farl("eval", trained / "agent.npz", "--vs", "random", "--vs", "maxn10", "--games", 4, "--json",
                "--seed", 7) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["metric"] == "win_rate" and res["seed"] == 7 and len(res["matchups"]) == 2
    assert [m["n_games"] for m in res["matchups"]] == [8, 8]
    assert all(len(m["per_seat"]) == 2 and m["games"] == [] for m in res["matchups"])


def test_eval_opponents_and_agents_against_each_other(trained, capsys):
    assert farl("eval", "random", "--game", "tictactoe", "--vs", "maxn10", "--games", 3, "--json") == 0
    res = json.loads(capsys.readouterr().out)
    assert res["matchups"][0]["player"] == "random" and res["matchups"][0]["win_rate"] < 0.5
    assert farl("eval", trained / "agent.npz", "--vs", trained / "agent.npz", "--games", 2, "--json") == 0
    res = json.loads(capsys.readouterr().out)
    assert res["matchups"][0]["n_games"] == 4


# ------------------------------------------------------------------ play
def run_play(script: str, game="tictactoe", opponent="maxn10", seat=0, **params):
    import farl_envs
    from farl_agents.opponents import make_opponent

    g = farl_envs.game_spec(game, **params)
    out = io.StringIO()
    code = play.play_session(g, make_opponent(opponent, g), seat, io.StringIO(script), out)
    return code, out.getvalue()


def test_play_bad_input_undo_quit():
    code, text = run_play("zz\nb2\nundo\nundo\nhelp\nb2\na1\nquit\n")
    assert code == 0
    assert "'zz' is not a move of this game; legal: a1 b1 c1 a2 b2 c2 a3 b3 c3" in text
    assert text.count("you play b2") == 2 and "took back your last move" in text and "nothing to undo" in text
    assert "Max-N10 (player_1) plays" in text
    assert "Traceback" not in text


def test_play_to_the_end_against_perfect_play():
    # offer the cells in order (occupied ones are refused) until Max-N10 has finished the game
    moves = "\n".join(["0", "1", "2", "3", "4", "5", "6", "7", "8"] * 3)
    code, text = run_play(moves + "\nquit\n", opponent="maxn10")
    assert code == 0 and "game over" in text
    assert "you lose" in text or "draw" in text
    assert "is not legal here" in text  # some numbers name occupied cells


def test_play_through_main_with_scripted_stdin(monkeypatch, capsys, trained):
    monkeypatch.setattr(sys, "stdin", io.StringIO("b2\nundo\nquit\n"))
    assert farl("play", "tictactoe", "--agent", trained / "agent.npz", "--seat", 0) == 0
    out = capsys.readouterr().out
    assert "you play b2" in out and "td-farl (player_1) plays" in out and "took back" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # end of input: leave quietly
    assert farl("play", "nim3p", "--agent", "random", "--seat", 2) == 0
    assert "random (player_0) plays" in capsys.readouterr().out


def test_play_connect_four_letters_and_2048_alone():
    code, text = run_play("d\nd\nquit\n", game="connect_four", opponent="random", seat=1)
    assert code == 0 and "random (player_0) plays" in text and "you play d" in text
    code, text = run_play("up\nleft\ndown\nright\nquit\n", game="game2048", opponent="random")
    assert code == 0 and "you play" in text


# ------------------------------------------------------------------ info, plugins, entry points
def test_info_lists_games_opponents_presets(capsys):
    assert farl("info") == 0
    out = capsys.readouterr().out
    for word in ("connect_four", "rows=6 cols=7", "max_take=3", "Table 1: max_take=5", "maxn<depth>", "ab-dl",
                 "paper", "tcl-rr", "sarsa-farl", "nim3p"):
        assert word in out, word


def test_c4_book_is_wired(monkeypatch, capsys, tmp_path):
    book = c4_book
    seen = {}

    def fake_verify(path=None, sample=20, seed=0, min_ply=0, tt_entries=1):
        seen.update(path=path, sample=sample, seed=seed, min_ply=min_ply)
        return {"checked": sample, "mismatches": [] if seed == 0 else [(1, 2, 3)]}

    monkeypatch.setattr(book, "verify_book", fake_verify)
    assert farl("c4-book", "verify", "--path", "b.npz", "--sample", 3, "--min-ply", 8) == 0
    assert seen == {"path": "b.npz", "sample": 3, "seed": 0, "min_ply": 8}
    assert "checked 3 book entries: all exact" in capsys.readouterr().out
    assert farl("c4-book", "verify", "--seed", 1) == 1  # a wrong entry fails the check
    monkeypatch.undo()
    assert farl("c4-book", "verify", "--path", tmp_path / "none.npz") == 2
    err = capsys.readouterr().err
    assert err.startswith("farl: error: no opening book at") and err.count("\n") == 1


def test_every_family_command_is_registered(capsys):
    parser = cli.build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)
    assert {"train", "eval", "play", "reproduce", "info", "c4-book", "tournament", "baseline", "compare"} <= commands


def test_python_m_entry_point():
    proc = subprocess.run([sys.executable, "-m", "farl_agents", "train", "chess"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("farl: error: unknown game 'chess'")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv,needle", [
    (["train", "tictactoe", "--out", ""], "--out is empty"),
    (["train", "tictactoe", "--seed", "-1"], "argument --seed: a seed is an integer >= 0"),
    (["train", "tictactoe", "--algo", "descent", "--seed", "-3"], "argument --seed"),
    (["train", "tictactoe", "--episodes", "99999999999999999999999"], "too large"),
    (["train", "tictactoe", "--stop-after", "-3"], "--stop-after must be a finite number >= 0, got -3.0"),
    (["train", "tictactoe", "--stop-after", "nan"], "--stop-after must be a finite number >= 0, got nan"),
    (["train", "tictactoe", "--checkpoint-minutes", "-1"], "--checkpoint-minutes must be a finite number > 0"),
    (["train", "tictactoe", "--checkpoint-minutes", "nan"], "--checkpoint-minutes must be a finite number > 0"),
    (["train", "tictactoe", "--checkpoint-minutes", "inf"], "--checkpoint-minutes must be a finite number > 0"),
    (["train", "tictactoe", "--eval-seed", "-1"], "--eval-seed must be an integer >= 0"),
    (["pretrained", "build", "tictactoe", "--stop-after", "-3"], "--stop-after must be a finite number of episodes"),
    (["pretrained", "build", "tictactoe", "--stop-after", "nan"], "--stop-after must be a finite number of episodes"),
])
def test_meaningless_values_are_refused_with_the_flag_named(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("argv,needle", [
    (["train", "game2048", "--td-chain", "ply"], "bad ntuple settings: td_chain='ply' chains the plies of two or"),
    (["train", "nim3p", "--algo", "sarsa"], "bad ntuple settings: n-tuple length must be in 1..3 for nim3p_v0"),
    (["train", "tictactoe", "--ntuple-count", "100000", "--ntuple-length", "9"], "bad ntuple settings: this n-tuple "
                                                                                 "network needs 14.7 GiB"),
])
def test_settings_the_game_cannot_take_are_bad_settings_before_any_run_folder(argv, needle, capsys, tmp_path,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "--debug" not in err   # a mistake in what was typed, not a failure of farl
    assert not (tmp_path / "runs").exists()


def test_jobs_are_capped_at_the_cpus_and_absurd_values_refused(capsys, monkeypatch):
    import concurrent.futures

    from farl_agents.backend import jobs, local

    started = []
    real = concurrent.futures.ProcessPoolExecutor

    def counting(max_workers=None, **kw):
        started.append(max_workers)
        return real(max_workers=max_workers, **kw)

    monkeypatch.setattr(local.cf, "ProcessPoolExecutor", counting)
    monkeypatch.setattr(jobs, "cpus", lambda: 2)  # as on a machine with 2 CPUs
    assert cli.main(["eval", "random", "--game", "tictactoe", "--vs", "random", "--games", "2", "--jobs", "300"]) == 0
    assert started == [2]
    capsys.readouterr()
    for argv in (["eval", "random", "--game", "tictactoe", "--vs", "random"],
                 ["reproduce", "table1", "--rows", "tictactoe", "--budget", "smoke"],
                 ["pretrained", "build", "tictactoe"]):
        for bad in ("100000", "0"):
            assert cli.main(argv + ["--jobs", bad]) == 2
            err = capsys.readouterr().err
            assert f"--jobs must be an integer in 1..1024, got {bad}" in err and len(err.strip().splitlines()) == 1


def _progress_parsers(parser, path=()):
    """``(command path, parser)`` of every (sub)command below ``parser`` that has a no-progress-bar option."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _progress_parsers(sub, path + (name,))
        elif set(action.option_strings) & set(QUIET_FLAGS):
            yield path, action


@pytest.mark.parametrize("family", families.FAMILIES, ids=lambda f: f.name)
def test_every_command_takes_both_spellings_of_the_no_progress_flag(family):
    """One flag, two spellings: ``--quiet`` and ``--no-progress`` in every command with a progress bar."""
    argv = ["train", "tictactoe", "--algo", family.algos[0]]
    found = dict(_progress_parsers(cli.build_parser(argv)))
    assert set(found) == {("train",), ("reproduce",), ("tournament",), ("ladder",), ("pretrained", "build"),
                          ("baseline",)}
    for path, action in found.items():
        assert set(action.option_strings) == set(QUIET_FLAGS) and action.dest == "quiet", path
    positional = {"train": ["tictactoe", "--algo", family.algos[0]], "reproduce": ["table1"],
                  "tournament": ["hex"], "pretrained": ["build", "tictactoe"],
                  "ladder": ["tictactoe", "--players", "maxn1", "--games", "1", "--out", "ladder"],
                  "baseline": ["tictactoe", "--algo", "dqn"]}
    for command, rest in positional.items():
        for flag in QUIET_FLAGS:
            full = [command, *rest, flag]
            assert cli.build_parser(full).parse_args(full).quiet is True, full
        assert cli.build_parser([command, *rest]).parse_args([command, *rest]).quiet is False, command
