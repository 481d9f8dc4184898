"""The Edax adapter's installation lookup and, where an Edax binary is installed, its protocol.

The protocol test does not need Edax's real weights: it writes an evaluation file of zeros with Edax's
header (Edax then plays by its move ordering alone), which checks the adapter end to end — the process
start with book off, setboard/go, parsing the reply, passes — but says nothing about Edax's strength.
"""
from __future__ import annotations

import os
import stat
import struct

import pytest

import farl_envs
from farl_agents.evaluate import evaluate
from farl_agents.opponents import EdaxPlayer, RandomPlayer
from farl_agents.opponents.edax import find_edax, find_eval_file

#: Edax 4.x eval.dat: header words "EDAX", "EVAL", version, release, build, a double date; then 61 plies of
#: 114,364 packed int16 weights (src/eval.c of Edax)
EDAX_PLIES, EDAX_PACKED_WEIGHTS = 61, 114_364


def write_zero_eval(path) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IIIIId", 0x45444158, 0x4556414C, 4, 4, 0, 0.0))
        f.write(bytes(2 * EDAX_PLIES * EDAX_PACKED_WEIGHTS))


def fake_binary(folder) -> str:
    path = os.path.join(folder, "edax")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def test_eval_file_is_found_in_edax_layout(tmp_path, monkeypatch):
    monkeypatch.delenv("FARL_EDAX_EVAL", raising=False)
    (tmp_path / "bin").mkdir()
    binary = fake_binary(tmp_path / "bin")
    assert find_eval_file(binary) is None
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "eval.dat").write_bytes(b"x")
    assert find_eval_file(binary) == str(tmp_path / "data" / "eval.dat")  # bin/ beside data/
    other = tmp_path / "w.dat"
    other.write_bytes(b"x")
    monkeypatch.setenv("FARL_EDAX_EVAL", str(other))
    assert find_eval_file(binary) == str(other)
    assert find_eval_file(binary, str(tmp_path / "data" / "eval.dat")) == str(tmp_path / "data" / "eval.dat")


def test_missing_weights_raise_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("FARL_EDAX_EVAL", raising=False)
    monkeypatch.setenv("FARL_EDAX", fake_binary(tmp_path))
    assert find_edax() == str(tmp_path / "edax")
    with pytest.raises(RuntimeError, match="eval.dat was not found"):
        EdaxPlayer(1)


@pytest.mark.skipif(find_edax() is None, reason="no Edax binary: see docs/reproducing.md, 'Othello against Edax'")
def test_edax_protocol_with_zero_weights(tmp_path):
    weights = tmp_path / "zero_eval.dat"
    write_zero_eval(weights)
    edax = EdaxPlayer(1, eval_file=str(weights))
    game = farl_envs.game_spec("othello")
    # every move Edax returns is checked against the legal moves; games run to their end (passes included)
    r = evaluate(game, edax, RandomPlayer(), start_states=("random", 4), n_games=3, seed=1)
    m = r.matchups[0]
    assert m.n_games == 6 and m.wins + m.draws + m.losses == 6
    edax.close()
    assert edax._proc is None


def test_table1_plays_edax_only_with_binary_and_weights(tmp_path, monkeypatch):
    from studies.table1.table1 import Opponent, available

    edax = Opponent("edax1", "Edax d1", optional=True)
    monkeypatch.delenv("FARL_EDAX_EVAL", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("FARL_EDAX", raising=False)
    assert not available(edax)
    monkeypatch.setenv("FARL_EDAX", fake_binary(tmp_path))
    assert not available(edax)  # a binary without eval.dat would fail the run at its end
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "eval.dat").write_bytes(b"x")
    assert available(edax)
