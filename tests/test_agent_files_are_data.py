"""Agent files are data, never code: crafted Stable-Baselines3 zips through `farl eval`, `farl play` and `farl serve`.

Each crafted file carries a payload that creates a marker file if it is ever
unpickled. SB3's own ``load`` runs the payload of the first kind (cloudpickle
in the zip's ``data`` entry); farl's loader must never run any of them: it
ignores ``data``'s pickles, reads weights with ``torch.load(weights_only=True)``
and refuses members that are not SB3's. A file that would need unpickling is
refused with one line naming it and exit code 2.
"""
from __future__ import annotations

import base64
import io
import json
import shutil
import warnings
import zipfile

import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from farl_agents.baselines.files import SETTINGS, load_baseline  # noqa: E402
from farl_agents.cli import main  # noqa: E402
from farl_agents.learners.agent_io import AgentFileError  # noqa: E402


class Payload:
    """Unpickling this writes ``marker``: the proof that a file's pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def pickled_payload(marker) -> bytes:
    import cloudpickle

    return cloudpickle.dumps(Payload(marker))


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """A real `farl train --algo maskable-ppo` run folder on TicTacToe (one rollout)."""
    out = tmp_path_factory.mktemp("sb3") / "ppo"
    assert main(["train", "tictactoe", "--algo", "maskable-ppo", "--timesteps", "256", "--eval-every", "256",
                 "--eval-vs", "random", "--eval-games", "2", "--quiet", "--out", str(out)]) == 0
    assert (out / "agent.zip").is_file()
    return out


def rewrite(zip_path, replace: dict | None = None, add: dict | None = None, drop=()) -> None:
    """Rewrite a zip with some members replaced, added or dropped."""
    with zipfile.ZipFile(zip_path) as z:
        members = {n: z.read(n) for n in z.namelist() if n not in drop}
    members.update(replace or {})
    members.update(add or {})
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def serialized_data(zip_path, marker) -> bytes:
    """SB3's ``data`` entry with every ``:serialized:`` value swapped for the payload (as a crafted file would)."""
    with zipfile.ZipFile(zip_path) as z:
        data = json.loads(z.read("data"))
    blob = base64.b64encode(pickled_payload(marker)).decode()
    swapped = 0
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = blob
            swapped += 1
    assert swapped >= 3  # policy_class, the spaces, the schedules: SB3 unpickles each on load
    return json.dumps(data).encode()


def torch_payload(marker) -> bytes:
    buf = io.BytesIO()
    torch.save({"weights": Payload(marker)}, buf)
    return buf.getvalue()


def crafted(trained_run, tmp_path, kind: str):
    """A copy of the run folder whose agent.zip carries a payload of ``kind``; returns (folder, marker)."""
    folder = tmp_path / f"crafted-{kind}"
    shutil.copytree(trained_run, folder)
    marker = tmp_path / f"ran-{kind}"
    agent = folder / "agent.zip"
    if kind == "data":
        rewrite(agent, replace={"data": serialized_data(agent, marker)})
    elif kind == "weights":
        rewrite(agent, replace={"policy.pth": torch_payload(marker)})
    elif kind == "optimizer":
        rewrite(agent, replace={"policy.optimizer.pth": torch_payload(marker)})
    elif kind == "member":
        rewrite(agent, add={"replay_buffer.pkl": pickled_payload(marker)})
    elif kind == "legacy-data":  # a file of farl before farl.json: the game comes from run.json
        rewrite(agent, replace={"data": serialized_data(agent, marker)}, drop=(SETTINGS,))
    return folder, marker


REFUSED = ("weights", "member")
"""Payload kinds that make the file unusable: refused with one line. (The optimizer is read only to resume;
``data``'s pickles are never decoded, so those files play.)"""


def one_line_refusal(err: str, folder) -> None:
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert str(folder / "agent.zip") in lines[0] and "Traceback" not in err


@pytest.mark.parametrize("kind", ["data", "legacy-data", "weights", "member"])
def test_farl_eval_never_runs_a_payload(trained_run, tmp_path, capsys, kind):
    folder, marker = crafted(trained_run, tmp_path, kind)
    code = main(["eval", str(folder), "--vs", "random", "--games", "2"])
    out, err = capsys.readouterr()
    assert not marker.exists(), "the file's pickle ran"
    if kind in REFUSED:
        assert code == 2
        one_line_refusal(err, folder)
    else:
        assert code == 0 and "win rate" in out


@pytest.mark.parametrize("kind", ["data", "weights", "member"])
def test_farl_play_never_runs_a_payload(trained_run, tmp_path, capsys, monkeypatch, kind):
    folder, marker = crafted(trained_run, tmp_path, kind)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code = main(["play", "tictactoe", "--agent", str(folder), "--seat", "0"])
    _, err = capsys.readouterr()
    assert not marker.exists(), "the file's pickle ran"
    if kind in REFUSED:
        assert code == 2
        one_line_refusal(err, folder)
    else:
        assert code == 0, err


def test_resuming_never_runs_a_payload_in_the_optimizer_state(trained_run, tmp_path, capsys):
    folder, marker = crafted(trained_run, tmp_path, "optimizer")
    run = json.loads((folder / "checkpoint.json").read_text())
    for name in run["files"]:  # the checkpoint the resume reads, not only the published agent
        if name.endswith(".zip"):
            rewrite(folder / name, replace={"policy.optimizer.pth": torch_payload(marker)})
    (folder / "run.json").write_text((folder / "run.json").read_text().replace('"timesteps": 256',
                                                                               '"timesteps": 2304'))
    code = main(["train", "--resume", str(folder), "--quiet"])
    err = capsys.readouterr().err
    assert not marker.exists(), "the file's pickle ran"
    assert code == 2 and "policy.optimizer.pth" in err and "unpickling" in err


@pytest.mark.parametrize("kind", ["data", "weights", "member"])
def test_farl_serve_never_runs_a_payload(trained_run, tmp_path, kind):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from farl_agents.serve import create_app

    root = tmp_path / "served"
    root.mkdir()
    folder, marker = crafted(trained_run, tmp_path, kind)
    shutil.move(str(folder), root / "run")
    with TestClient(create_app(root, time_limit=30), base_url="http://127.0.0.1") as client:  # a loopback Host
        client.get("/api/agents")
        client.get("/api/runs")
        r = client.post("/api/new", json={"game": "tictactoe", "seats": ["human", "agent:run"]})
    assert not marker.exists(), "the file's pickle ran"
    if kind in REFUSED:
        assert r.status_code == 400 and "agent.zip" in r.json()["error"]
        assert str(root) not in r.json()["error"]  # the served folder's absolute path stays private
    else:
        assert r.status_code == 200, r.text


def test_farls_own_file_rebuilds_from_plain_json(trained_run):
    with zipfile.ZipFile(trained_run / "agent.zip") as z:
        settings = json.loads(z.read(SETTINGS))
    assert settings["algo"] == "maskable-ppo" and settings["game"] == "tictactoe"
    assert settings["hyperparams"]["policy_kwargs"] == {"net_arch": [128, 128]}
    assert settings["counters"]["num_timesteps"] >= 256
    model = load_baseline(trained_run)  # no game given: farl.json names it
    assert model.num_timesteps == settings["counters"]["num_timesteps"]


@pytest.mark.parametrize("change, message", [
    ({"add": {SETTINGS: b"[" * 30_000 + b"]" * 30_000}}, "not JSON"),
    ({"add": {SETTINGS: b'{"format": "farl-sb3", "version": 1, "algo": "a2c", "game": "tictactoe", '
                        b'"game_params": {}, "hyperparams": {}, "counters": {}}'}}, "unknown algorithm"),
    ({"drop": ("policy.pth",)}, "no policy.pth"),
])
def test_bad_files_are_one_agent_file_error(trained_run, tmp_path, change, message):
    folder = tmp_path / "bad"
    shutil.copytree(trained_run, folder)
    add = change.get("add", {})
    rewrite(folder / "agent.zip", replace=add, drop=change.get("drop", ()))
    with pytest.raises(AgentFileError, match=message):
        load_baseline(folder / "agent.zip")


def test_a_weights_member_larger_than_the_network_is_refused_before_reading(trained_run, tmp_path):
    folder = tmp_path / "big"
    shutil.copytree(trained_run, folder)
    big = io.BytesIO()
    torch.save({"x": torch.zeros(4_000_000)}, big)  # 16 MB of zeros: compresses to almost nothing
    rewrite(folder / "agent.zip", replace={"policy.pth": big.getvalue()})
    assert (folder / "agent.zip").stat().st_size < 1_000_000
    with pytest.raises(AgentFileError, match="declares"):
        load_baseline(folder / "agent.zip")


def test_an_agent_file_error_is_one_line_without_the_debug_hint(monkeypatch, capsys):
    from farl_agents.cli import info

    def refuse(args):
        raise AgentFileError("x.npz: member w declares 10 bytes, the table needs 4")

    monkeypatch.setattr(info, "run_command", refuse)
    assert main(["info"]) == 2
    assert capsys.readouterr().err == "farl: error: x.npz: member w declares 10 bytes, the table needs 4\n"


def test_a_deeply_nested_run_json_is_a_one_line_error(tmp_path, capsys):
    folder = tmp_path / "deep"
    folder.mkdir()
    (folder / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    for argv in (["train", "--resume", str(folder)], ["eval", str(folder), "--vs", "random"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("farl: error:") and len(err.strip().splitlines()) == 1 and "recursion" not in err.lower()
