"""Hostile agent files: members far larger than the metadata needs, lying headers, damaged bytes, odd metadata.

Every one must end as one :class:`AgentFileError` naming the file (exit code 2 with one line in the ``farl``
command), found from the zip directory, the ``.npy`` headers and the metadata before anything large is
decompressed or allocated.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import numpy.lib.format as npy
import pytest

from farl_agents import cli
from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.agent_io import AgentFileError

GIB = 2**30


def add_member(path, name: str, shape: tuple, dtype: str = "<f4", data: bytes | None = None) -> None:
    """Append an ``.npy`` member to the archive at ``path``: zeros of ``shape`` streamed through the
    compressor (a real bomb: its size is honest and it inflates to all of it), or the bytes ``data`` after
    a header that may claim more than they hold."""
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open(name + ".npy", "w", force_zip64=True) as fh:
            npy.write_array_header_1_0(fh, {"descr": dtype, "fortran_order": False, "shape": shape})
            if data is not None:
                fh.write(data)
                return
            left = int(np.prod(shape)) * np.dtype(dtype).itemsize
            chunk = bytes(1 << 22)
            while left:
                fh.write(chunk[:min(left, len(chunk))])
                left -= min(left, len(chunk))


def rewrite(src, dst, change):
    """``dst``: the agent file ``src`` with its arrays and decoded metadata passed through ``change``."""
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    change(arrays, meta)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(dst, **arrays)
    return dst


@pytest.fixture(scope="module")
def agent_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("agent") / "agent.npz"
    NTupleAgent("tictactoe").save(path)
    return path


@pytest.fixture(scope="module")
def bomb(agent_file, tmp_path_factory):
    """The agent file with one more member: 1 GiB of zeros, a few MB on disk."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    path.write_bytes(agent_file.read_bytes())
    add_member(path, "junk", (GIB // 4,))
    assert path.stat().st_size < 8 * 2**20
    return path


MEASURE = textwrap.dedent("""
    import json, resource, sys, time
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.agent_io import AgentFileError
    from farl_agents.learners.agent_io import read_npz_with_meta
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    try:
        if sys.argv[2] == "load":
            NTupleAgent.load(sys.argv[1])
            outcome = "loaded"
        else:
            outcome = "metadata of " + read_npz_with_meta(sys.argv[1])[1]["game"]
    except AgentFileError as exc:
        outcome = "refused: " + str(exc)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"outcome": outcome, "seconds": seconds, "before_mb": before / 1024, "peak_mb": peak / 1024}))
""")


def measure(path, mode: str) -> dict:
    """What loading (``load``) or reading the metadata of (``meta``) ``path`` costs in a fresh process: outcome,
    seconds, peak resident memory before and after (MiB)."""
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path), mode], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_gigabyte_member_is_refused_in_seconds_and_little_memory(bomb):
    report = measure(bomb, "load")
    assert report["outcome"].startswith("refused") and "junk" in report["outcome"], report
    assert report["seconds"] < 2.0, report
    assert report["peak_mb"] - report["before_mb"] < 300, report


def test_reading_only_the_metadata_of_a_bomb_is_quick_and_small(bomb):
    """What `farl serve`'s agent list and `farl eval`'s family lookup read: the metadata, never the rest."""
    report = measure(bomb, "meta")
    assert report["outcome"] == "metadata of tictactoe", report
    assert report["seconds"] < 2.0 and report["peak_mb"] - report["before_mb"] < 300, report


def test_the_cli_refuses_the_bomb_with_one_line(bomb, capsys):
    assert cli.main(["eval", str(bomb), "--vs", "random", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "junk" in err and str(bomb) in err


def test_a_header_claiming_a_trillion_entries_is_refused(agent_file, tmp_path):
    bad = tmp_path / "trillion.npz"
    bad.write_bytes(agent_file.read_bytes())
    add_member(bad, "tuples_extra", (10**12,), data=bytes(64))
    with pytest.raises(AgentFileError, match="tuples_extra"):
        NTupleAgent.load(bad)


def test_a_known_member_larger_than_the_network_is_refused(agent_file, tmp_path):
    """A dense weight table of 1 GiB for TicTacToe's few hundred entries: the zip directory and the header
    agree, the metadata does not."""
    bad = rewrite(agent_file, tmp_path / "wide.npz", lambda a, m: (a.pop("weights_index"), a.pop("weights_value")))
    add_member(bad, "weights", (1, 2, GIB // 8))
    with pytest.raises(AgentFileError, match="weights"):
        NTupleAgent.load(bad)


def test_extra_members_are_refused(agent_file, tmp_path):
    bad = rewrite(agent_file, tmp_path / "extra.npz", lambda a, m: a.update(note=np.arange(3)))
    with pytest.raises(AgentFileError, match="note"):
        NTupleAgent.load(bad)


def test_pickled_object_members_are_refused(agent_file, tmp_path):
    with np.load(agent_file) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["tuples"] = np.array([[0, 1, 2], None], dtype=object)
    np.savez(tmp_path / "pickled.npz", **arrays)
    with pytest.raises(AgentFileError, match="tuples"):
        NTupleAgent.load(tmp_path / "pickled.npz")


def _data_spans(path):
    """``(start, end)`` of each member's compressed bytes in the archive."""
    spans = []
    raw = path.read_bytes()
    for info in zipfile.ZipFile(path).infolist():
        name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
        start = info.header_offset + 30 + name_len + extra_len
        spans.append((start, start + info.compress_size))
    return spans


def test_flipped_bytes_anywhere_in_the_data_give_the_one_error(agent_file, tmp_path):
    """Each member's compressed bytes, one at a time at a few places, flipped: the load fails with
    :class:`AgentFileError` (bad deflate data, bad CRC), or, when the flipped byte lies past the data (the
    end-of-stream code after the last byte the directory declares), gives back the very same agent."""
    raw = bytearray(agent_file.read_bytes())
    original = NTupleAgent.load(agent_file)
    refused = 0
    for start, end in _data_spans(agent_file):
        for at in sorted({start, start + 7, start + 40, (start + end) // 2, end - 2, end - 1}):
            if not start <= at < end:
                continue
            bad = tmp_path / f"flip{at}.npz"
            flipped = bytearray(raw)
            flipped[at] ^= 0xFF
            bad.write_bytes(bytes(flipped))
            try:
                agent = NTupleAgent.load(bad)
            except AgentFileError as exc:
                assert str(bad) in str(exc)
                refused += 1
                continue
            assert at == end - 1, f"byte {at - start} of a member flipped and the file still loads"
            assert np.array_equal(agent.net.weights, original.net.weights)
            assert np.array_equal(agent.tuples, original.tuples) and agent.config == original.config
    assert refused >= 20


def test_a_flipped_byte_is_one_line_and_exit_code_2_in_the_cli(agent_file, tmp_path, capsys):
    start, end = _data_spans(agent_file)[0]  # the metadata: read by every loader
    raw = bytearray(agent_file.read_bytes())
    raw[(start + end) // 2] ^= 0xFF
    bad = tmp_path / "flipped.npz"
    bad.write_bytes(bytes(raw))
    assert cli.main(["eval", str(bad), "--vs", "random", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err and "--debug" not in err


@pytest.mark.parametrize("what,change,words", [
    ("no game", lambda a, m: m.pop("game"), "game"),
    ("game not text", lambda a, m: m.update(game=["tictactoe"]), "game"),
    ("text n_cell_values", lambda a, m: m.update(n_cell_values="3"), "n_cell_values"),
    ("bool n_cell_values", lambda a, m: m.update(n_cell_values=True), "n_cell_values"),
    ("params not a table", lambda a, m: m.update(game_params=[1]), "game_params"),
    ("config not a table", lambda a, m: m.update(config="fast"), "config"),
])
def test_odd_metadata_is_named(agent_file, tmp_path, what, change, words):
    bad = rewrite(agent_file, tmp_path / "odd.npz", change)
    for game in (None, "tictactoe"):
        with pytest.raises(AgentFileError, match=words) as err:
            NTupleAgent.load(bad, game=game)
        assert "valued" not in str(err.value)  # not "trained on a 3-valued board ... encodes it with 3 values"


def test_very_deep_metadata_is_refused(agent_file, tmp_path):
    deep = "[" * 200_000 + "]" * 200_000
    bad = tmp_path / "deep.npz"
    with np.load(agent_file) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["meta"] = np.array(deep)
    np.savez_compressed(bad, **arrays)
    with pytest.raises(AgentFileError, match="deep"):
        NTupleAgent.load(bad)


def test_brackets_inside_metadata_text_are_not_nesting(agent_file, tmp_path):
    fine = rewrite(agent_file, tmp_path / "brackets.npz", lambda a, m: m.update(note="[{" * 5000 + '\\"]'))
    assert NTupleAgent.load(fine).episodes_done == 0


def test_nemesh_and_descent_files_go_through_the_same_checks(tmp_path):
    from farl_agents.descent.agent import read_agent_file, save_agent
    from farl_agents.descent.trainer import DescentConfig, DescentTrainer
    from farl_agents.nemesh import NemeshAgent

    nemesh = NemeshAgent(rows=6, cols=7).save(tmp_path / "nemesh.npz")
    trainer = DescentTrainer(DescentConfig(game="tictactoe", minutes=0.01, move_iterations=5))
    descent = tmp_path / "descent.npz"
    save_agent(descent, trainer.game, trainer.evaluation, trainer.config.heuristic, trainer.info())
    NemeshAgent.load(nemesh)
    read_agent_file(descent)
    for path, load in ((nemesh, NemeshAgent.load), (descent, read_agent_file)):
        extra = rewrite(path, tmp_path / ("extra-" + path.name), lambda a, m: a.update(note=np.arange(3)))
        with pytest.raises(AgentFileError, match="note"):
            load(extra)
        no_game = rewrite(path, tmp_path / ("nogame-" + path.name), lambda a, m: m.pop("game"))
        with pytest.raises(AgentFileError, match="game"):
            load(no_game)
        big = tmp_path / ("big-" + path.name)
        big.write_bytes(path.read_bytes())
        add_member(big, "weights_extra", (10**12,), data=bytes(64))
        with pytest.raises(AgentFileError, match="weights_extra"):
            load(big)



def test_the_conv_limits_are_the_shapes_of_the_net_that_is_built():
    """The descent reader bounds a conv f_θ's members by shapes worked out without torch: they must be the
    built net's, or good files would be refused (or oversized ones let through)."""
    pytest.importorskip("torch")
    import farl_envs
    from farl_agents.descent.evaluation_torch import ConvEvaluation, parameter_shapes

    game = farl_envs.game_spec("connect_four")
    net = ConvEvaluation(game, filters=5, hidden=7).net
    assert parameter_shapes(game, 5, 7) == {k: tuple(v.shape) for k, v in net.state_dict().items()}
    with pytest.raises(ValueError, match="limit"):
        parameter_shapes(game, 10**5, 10**5)


def test_an_npz_without_metadata_is_told_apart_from_a_damaged_agent(tmp_path):
    """Listing a folder skips other programs' ``.npz`` files (no metadata) but reports damaged agents; the
    error for the first is an AgentFileError that is also the KeyError the missing member used to be."""
    from farl_agents.learners.agent_io import read_npz_with_meta
    from farl_agents.safe_files import MissingMetadata

    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(MissingMetadata) as err:
        read_npz_with_meta(tmp_path / "other.npz")
    assert isinstance(err.value, KeyError) and isinstance(err.value, AgentFileError)
    assert str(err.value) == f"{tmp_path / 'other.npz'} is not a farl agent file (no metadata)"
