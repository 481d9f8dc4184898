"""The README and the tutorial are tests: every shell command and Python block in them runs.

Each document's fenced ```bash and ```python blocks run in order, in one
temporary folder per document (so a later command finds the run folder an
earlier one trained), with copies of the repository's ``README.md``,
``Makefile``, ``docs/``, ``examples/`` and ``benchmarks/`` there. A bash
block's commands are its lines (``\\`` continues a line; ``#`` starts a
comment); ``make run`` runs the ``run`` recipe of the Makefile with this
Python's ``farl``. Every command gets ``quit`` on standard input (for
``farl play``) and must exit with 0; a Python block must not raise.
``make test`` is not run (it is the suite this test belongs to).

Commands run as written except for their budgets, which :data:`SHRINK`
makes tiny (a README command that trains for an hour is tested for seconds):
the test checks that every command works, not what it measures.

A line ``<!-- readme-test: needs EXTRA -->`` just before a block skips it,
with the reason, when the optional extra is not installed (``baselines``:
Stable-Baselines3 + torch; ``ray``; ``edax``); ``<!-- readme-test: skip
REASON -->`` never runs it (``make test`` is this very test suite).
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/tutorial.md", "docs/learners.md", "docs/reproducing.md", "docs/ecosystem.md",
             "docs/pretrained.md", "docs/speed.md")
COPIED = ("README.md", "Makefile", "docs", "examples", "benchmarks")
SHRINK = (
    (r"--episodes[ =]\S+", "--episodes 300"),
    (r"--eval-every[ =]\S+", "--eval-every 100"),
    (r"--eval-games[ =]\S+", "--eval-games 2"),
    (r"--games[ =]\d+", "--games 2"),
    (r"--runs[ =]\d+", "--runs 1"),
    (r"--jobs[ =]\d+", "--jobs 1"),
    (r"--minutes[ =]\S+", "--minutes 0.02"),
    (r"--fraction[ =]\S+", "--fraction 0.2"),
    (r"--preset report", "--preset quick --fraction 0.2"),
    (r"--budget-steps[ =]\S+", "--budget-steps 1500"),
    (r"--budget-minutes[ =]\S+", "--budget-minutes 0.05"),
    (r"--eval-points[ =]\S+", "--eval-points 2"),
    (r"--final-games[ =]\S+", "--final-games 2"),
    (r"--timesteps[ =]\S+", "--timesteps 1500"),
)
"""(pattern, replacement) applied to every shell command; ``--budget quick|paper`` becomes ``--budget smoke``
except in ``--table-only`` commands, which only read runs."""
EXTRAS = {
    "baselines": lambda: all(importlib.util.find_spec(m) for m in ("stable_baselines3", "sb3_contrib", "torch")),
    "ray": lambda: importlib.util.find_spec("ray") is not None,
    "edax": lambda: shutil.which("edax") is not None or bool(os.environ.get("FARL_EDAX")),
}
COMMAND_TIMEOUT = 600


@dataclass
class Block:
    document: str
    line: int
    language: str
    text: str
    needs: str | None = None
    skip: str | None = None

    @property
    def name(self) -> str:
        return f"{self.document}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The ```bash and ```python blocks of a markdown file, with their readme-test markers."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(bash|sh|python)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        document = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
        block = Block(document, start + 1,
                      "python" if m.group(1) == "python" else "bash", "\n".join(lines[start + 1:j]))
        marker = lines[start - 1].strip() if start > 0 else ""
        mm = re.match(r"<!-- readme-test: (needs|skip) (.+?) -->", marker)
        if mm:
            setattr(block, mm.group(1), mm.group(2).strip())
        out.append(block)
        i = j + 1
    return out


def commands_of(text: str) -> list[str]:
    """The commands of a bash block: continued lines joined, comments and blank lines dropped."""
    joined, current = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        joined.append(current + line)
        current = ""
    commands = []
    for line in joined:
        words = shlex.split(line, comments=True)
        if words:
            commands.append(shlex.join(words))
    return commands


def shrink(command: str) -> str:
    """``command`` with a tiny budget (:data:`SHRINK`)."""
    for pattern, replacement in SHRINK:
        command = re.sub(pattern, replacement, command)
    if "--table-only" not in command:
        command = re.sub(r"--budget[ =](quick|paper)", "--budget smoke", command)
    return command


def make_recipe(target: str) -> list[str]:
    """The commands of a Makefile target, run with this interpreter's environment instead of ./.venv."""
    text = (ROOT / "Makefile").read_text()
    m = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n?)+)", text, re.M)
    assert m, f"Makefile has no {target} target"
    bindir = str(Path(sys.executable).parent)
    return [line.strip().lstrip("@").replace("$(VENV)/bin/", bindir + "/").replace("$(PY)", sys.executable)
            .replace("$(VENV)", ".venv")
            for line in m.group(1).splitlines() if line.strip() and not line.strip().startswith("#")]


def expand(command: str) -> list[str]:
    if command == "make test":  # the suite this test belongs to
        return []
    if command == "make run":
        return [shrink(c) for c in make_recipe("run")]
    return [shrink(command)]


def all_blocks() -> list[Block]:
    return [b for doc in DOCUMENTS if (ROOT / doc).exists() for b in blocks_of(ROOT / doc)]


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory):
    """One working folder per document, holding copies of the files its commands read."""
    made = {}

    def get(document: str) -> Path:
        if document not in made:
            folder = tmp_path_factory.mktemp(document.replace("/", "-").replace(".", "-"))
            for name in COPIED:
                src = ROOT / name
                if src.is_dir():
                    shutil.copytree(src, folder / name, ignore=shutil.ignore_patterns("*.npz", "__pycache__"))
                else:
                    shutil.copy(src, folder / name)
            made[document] = folder
        return made[document]

    return get


def run_shell(command: str, cwd: Path) -> None:
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
               PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    proc = subprocess.run(command, shell=True, cwd=cwd, env=env, input="quit\n", capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT)
    assert proc.returncode == 0, (f"`{command}` exited with {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}"
                                  f"\n--- stderr\n{proc.stderr[-3000:]}")


BLOCKS = blocks_of(ROOT / "README.md")
"""The README's blocks; the tutorial's run in tests/test_tutorial.py (a file of its own, so that a parallel
run gives the two documents, each a few minutes of commands in order, to two workers)."""


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(block: Block, workdirs, monkeypatch):
    run_block(block, workdirs, monkeypatch)


def run_block(block: Block, workdirs, monkeypatch) -> None:
    """Run ``block`` in its document's working folder: skipped for its marker or a missing extra."""
    if block.skip:
        pytest.skip(block.skip)
    if block.needs:
        have = EXTRAS.get(block.needs)
        assert have is not None, f"{block.name}: unknown extra {block.needs!r}; known: {', '.join(EXTRAS)}"
        if not have():
            pytest.skip(f"needs the optional extra {block.needs!r}")
    cwd = workdirs(block.document)
    if block.language == "bash":
        commands = commands_of(block.text)
        assert commands, f"{block.name}: an empty bash block"
        for command in commands:
            for c in expand(command):
                run_shell(c, cwd)
    else:
        monkeypatch.chdir(cwd)
        exec(compile(block.text, block.name, "exec"), {"__name__": "__readme__"})


def test_the_extractor_finds_blocks_markers_and_commands(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("text\n```bash\nfarl train x --episodes 200000 \\\n  --out r   # a comment\n\n# only a comment\n"
                   "farl eval r\n```\n<!-- readme-test: needs baselines -->\n```python\nprint(1)\n```\n"
                   "<!-- readme-test: skip the suite itself -->\n```bash\nmake test\n```\n")
    a, b, c = blocks_of(doc)
    assert (a.language, a.line, a.needs, a.skip) == ("bash", 2, None, None)
    assert commands_of(a.text) == ["farl train x --episodes 200000 --out r", "farl eval r"]
    assert [shrink(x) for x in commands_of(a.text)][0] == "farl train x --episodes 300 --out r"
    assert (b.language, b.needs) == ("python", "baselines") and c.skip == "the suite itself"
    assert shrink("farl reproduce table1 --budget paper --table-only") == \
        "farl reproduce table1 --budget paper --table-only"
    assert expand("make run")[0].endswith("--budget smoke --runs 1 --out runs/quickstart")


def test_every_document_has_blocks_and_every_marker_is_known():
    blocks = all_blocks()
    for doc in DOCUMENTS:
        assert any(b.document == doc for b in blocks), f"{doc} has no runnable block"
    for b in blocks:
        assert b.needs is None or b.needs in EXTRAS, b.name
