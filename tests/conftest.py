import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".numba_cache"))

LONGEST_FIRST = (
    "test_readme.py",      # every README command, one after the other (minutes)
    "test_tutorial.py",    # the same for the tutorial
    "test_backend.py",     # a two-node Ray cluster
    "test_equivalence.py",  # compiles each game's loop and plays it through the AEC path too
    "test_baselines.py",
    "test_learners.py",
    "test_adapters.py",
    "test_cli.py",
    "test_examples.py",
    "test_serve_browser.py",
)
"""Test files that take longest, started first. The suite runs whole files per worker (pytest-xdist's
``loadfile``) in collection order; a long file collected last would run alone at the end while the other
workers idle."""


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(os.path.basename(str(item.fspath)), len(rank)))  # stable: order kept


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Before the workers of a parallel run start: compile the loops many tests share (tests/numba_warmup.py)."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers or config.option.collectonly:
        return  # a worker, a run without workers, or only collecting
    script = Path(__file__).with_name("numba_warmup.py")
    procs = [subprocess.Popen([sys.executable, str(script), str(part)], stdout=subprocess.PIPE,  # noqa: S603
                              stderr=subprocess.STDOUT, text=True) for part in (0, 1)]
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            pytest.exit(f"tests/numba_warmup.py {proc.args[-1]} failed:\n{out[-3000:]}", returncode=1)
