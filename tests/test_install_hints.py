"""What a user is told to install names pip and an extra that exists; Gymnasium ids need farl_envs imported.

* Every ``pip install`` in farl's messages and docstrings installs the published package
  (``pip install "farl-rl[EXTRA]"`` with an extra of pyproject.toml), never a source checkout
  (``pip install -e .``, ``".[EXTRA]"``).
* With an optional dependency missing, the error a user meets says that command (one subprocess that
  blocks the imports, so the test runs where the extras are installed too).
* ``gymnasium.make("farl/ConnectFour-v0")`` in a fresh interpreter that never imported farl_envs fails with
  Gymnasium's own error (Gymnasium has no entry-point plugin for environment ids), while the documented
  ``"farl_envs:farl/ConnectFour-v0"`` form imports the module and works.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_OPTIONAL = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
EXTRAS = set(re.findall(r"^([a-z0-9_-]+) = \[", _OPTIONAL, flags=re.M))  # read as text: tomllib needs 3.11
FARL_HINT = re.compile(r"""pip install (?:torch==[\w.]+ && pip install )?(["'])farl-rl\[([a-z0-9_-]+|\{\})\]\1""")
THIRD_PARTY = re.compile(r"""pip install (?:["']pettingzoo\[classic\]["']|shimmy open_spiel)""")


def _texts(path: Path):
    """The string constants of a module, f-strings included (a computed part reads ``{}``)."""
    nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    parts = {id(v) for node in nodes if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            yield node.value
        elif isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def test_every_install_hint_in_the_sources_names_pip_and_an_existing_extra():
    hints = []
    for package in ("farl_envs", "farl_agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for text in _texts(path):
                flat = " ".join(text.replace("``", "").split())
                for m in re.finditer(r"pip install", flat):
                    hints.append((path.relative_to(ROOT), flat[m.start():m.start() + 80]))
    assert len(hints) >= 8, hints  # serve, render, ray, baselines, descent's conv net, adapters, ...
    for where, hint in hints:
        if where == Path("farl_agents/checkout.py"):
            assert hint.startswith("pip install -e ."), hint  # the studies need a source checkout: it says how
            continue
        assert not re.match(r"pip install (-e|\.)", hint) and '".[' not in hint and "'.[" not in hint, (where, hint)
        farl = FARL_HINT.match(hint)
        if farl:
            assert farl.group(2) in EXTRAS | {"{}"}, (where, hint, sorted(EXTRAS))  # {}: named at run time
        else:
            assert THIRD_PARTY.match(hint), (where, hint)


TRIGGERS = r"""
import contextlib, io, json, sys
for name in ("pygame", "ray", "torch", "sb3_contrib", "stable_baselines3", "uvicorn", "starlette"):
    sys.modules[name] = None  # import fails as if the extra were not installed
out = {}
def catch(key, call):
    try:
        call()
        out[key] = None
    except Exception as exc:
        out[key] = f"{type(exc).__name__}: {exc}"

import farl_envs
def human():
    env = farl_envs.make("tictactoe", render_mode="human")
    env.reset(seed=0)
    env.render()
catch("render", human)
from farl_agents.backend.ray_cluster import import_ray
catch("ray", import_ray)
from farl_agents.baselines.family import need_sb3
catch("baselines", need_sb3)
from farl_agents.descent.evaluation_torch import ConvEvaluation
catch("descent conv", lambda: ConvEvaluation(farl_envs.game_spec("tictactoe")))
from farl_agents import cli
err = io.StringIO()
with contextlib.redirect_stderr(err):
    code = cli.main(["serve", "."])
out["serve"] = f"exit {code}: {err.getvalue().strip()}"
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def missing_extras():
    proc = subprocess.run([sys.executable, "-c", TRIGGERS], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("key,extra", [("render", "render"), ("ray", "ray"), ("baselines", "baselines"),
                                       ("descent conv", "baselines"), ("serve", "web")])
def test_a_missing_extra_is_met_with_its_pip_command(missing_extras, key, extra):
    message = missing_extras[key]
    assert message is not None, f"{key}: no error although its extra is missing"
    hint = FARL_HINT.search(message)
    assert hint and hint.group(2) == extra, message
    if key == "serve":
        assert message.startswith("exit 2: farl: error: ") and "\n" not in message


GYM_IDS = r"""
import json, sys
import gymnasium
out = {}
try:
    gymnasium.make("farl/ConnectFour-v0")
    out["plain"] = None
except Exception as exc:
    out["plain"] = f"{type(exc).__name__}: {exc}"
out["farl_envs imported before"] = "farl_envs" in sys.modules
env = gymnasium.make("farl_envs:farl/ConnectFour-v0")
obs, info = env.reset(seed=0)
out["prefixed"] = [list(obs.shape), str(type(env.unwrapped).__module__)]
print(json.dumps(out))
"""


def test_gymnasium_ids_need_the_module_prefix_in_a_fresh_interpreter():
    proc = subprocess.run([sys.executable, "-c", GYM_IDS], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["farl_envs imported before"] is False
    assert out["plain"] is not None and out["plain"].startswith("NamespaceNotFound"), out["plain"]
    assert "farl" in out["plain"]
    shape, module = out["prefixed"]
    assert shape == [6, 7, 2] and module.startswith("farl_envs"), out


DISTRIBUTION = "farl-rl"
"""farl's name on the package index (``farl`` there is an unrelated project)."""
ALLOWED = {DISTRIBUTION, ".", "torch", "shimmy", "pettingzoo", "open_spiel", "flax"}
"""What a ``pip install`` in farl's files may install first: farl by its own name (with extras), a checkout
(``.``, ``-e .``, ``".[dev]"``), the CPU torch pin, the adapters' third-party packages, and the optional
packages of OpenSpiel's own AlphaZero (studies/alphazero/openspiel_az.py)."""
PIP = re.compile(r"""pip install (?:-[qe] )*(["']?)([A-Za-z0-9_.\-]+)""")


def _installs():
    """(file, text, package) for every ``pip install`` in the repository's text files (old run archives aside)."""
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in listed.split():
        if (name.startswith("docs/results/archive/") or name == "tests/test_install_hints.py"
                or not re.search(r"(\.(py|md|toml|yml|txt)|Makefile|/run)$", name)):
            continue
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        for m in PIP.finditer(text):
            yield name, text[m.start():m.start() + 60].splitlines()[0], m.group(2).split("==")[0]


def test_every_install_hint_in_the_repository_names_farl_by_its_own_distribution():
    installs = list(_installs())
    for name, line, package in installs:
        assert package in ALLOWED, (name, line)  # e.g. `pip install farl` would install somebody else's project
    assert sum(package == DISTRIBUTION for *_, package in installs) >= 20  # README, docs, error messages


def test_the_distribution_is_named_farl_rl():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(rf'^name = "{DISTRIBUTION}"$', text, re.M)
    import importlib.metadata

    assert importlib.metadata.version(DISTRIBUTION)
