import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import farl_envs  # noqa: F401 - numba's cache is the user's one, farl's and the library's (farl_envs.numba_setup)

LONGEST_FIRST = (
    # measured in a cold run of the suite (CPU s of the file with its subprocesses, after the warm-up; "alone":
    # the file with -n 0 on an empty cache; 2026-11-27)
    "test_serve_browser.py",  # a browser, a `farl serve` process and a whole game of each game: ~3 min wall
    "test_vector_env.py",     # the batched loops of every game, replayed through the AEC env (~70 CPU s)
    "test_paged_tables.py",   # paged vs dense tables, per learner (~65)
    "test_search_wrappers.py",  # PUCT / Max-N / Paranoid with an agent's leaf, per game (~35; ~90 alone)
    "test_search_wrappers_families.py",  # the same around Nemesh, descent, SB3 (~35; ~85 alone)
    "test_equivalence.py",    # compiles each game's loop and plays it through the AEC path too (~55)
    "test_baselines.py",      # (~50)
    "test_descent_games.py",  # (~40)
    "test_ply_chain.py",      # (~35)
    "test_shaping.py",        # Chinese Checkers learning with shaping, capped games through both drivers (~45)
    "test_expected_targets.py",  # EWN's loop with expected targets, compiled and through the AEC path (~60)
    "test_examples.py",       # (~30)
    "test_readme.py",         # every README command (~25)
    "test_families.py",       # (~25)
    "test_backend.py",        # a two-node Ray cluster: little CPU, long waits
    "test_learners.py",
    "test_adapters.py",
    "test_cli.py",
)
"""Test files that take longest, started first (longest first). The suite runs whole files per worker
(pytest-xdist's ``loadfile``) in collection order; a long file collected last would run alone at the end while
the other workers idle (test_vector_env.py, alphabetically near the end, did: ~70 CPU s of one worker at the end
of a cold run). The figures are a cold run's on a shared 2-core machine: re-measure when a file grows."""


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(os.path.basename(str(item.fspath)), len(rank)))  # stable: order kept


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Before the workers of a parallel run start: compile the loops many tests share (tests/numba_warmup.py),
    showing each item's progress lines as they come (on an empty cache this takes minutes)."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers or config.option.collectonly:
        return  # a worker, a run without workers, or only collecting
    reporter = config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line)
            reporter.flush()
        else:
            print(line, file=sys.stderr, flush=True)

    say(f"compiling the loops many tests share, in 2 processes (tests/numba_warmup.py; numba cache "
        f"{os.environ.get('NUMBA_CACHE_DIR')}) ...")
    script = Path(__file__).with_name("numba_warmup.py")
    procs = [subprocess.Popen([sys.executable, str(script), str(part)], stdout=subprocess.PIPE,  # noqa: S603
                              stderr=subprocess.STDOUT, text=True, bufsize=1) for part in (0, 1)]
    precollect = _start_precollect()
    lines = queue.Queue()

    def read(part: int, proc) -> None:
        for line in proc.stdout:
            lines.put((part, line.rstrip("\n")))
        lines.put((part, None))

    for part, proc in enumerate(procs):
        threading.Thread(target=read, args=(part, proc), daemon=True).start()
    output = {0: [], 1: []}
    running = len(procs)
    while running:
        part, line = lines.get()
        if line is None:
            running -= 1
        else:
            output[part].append(line)
            if line.startswith("[warm-up"):
                say(line)
    for part, proc in enumerate(procs):
        if proc.wait() != 0:
            pytest.exit(f"tests/numba_warmup.py {part} failed:\n" + "\n".join(output[part])[-3000:], returncode=1)
    precollect.wait()  # its result does not matter: a worker that finds no cached module rewrites it itself


def _start_precollect() -> subprocess.Popen:
    """Collect the suite once, in one process beside the warm-up, with bytecode writing on.

    pytest rewrites every test module's asserts when it imports it and keeps the result as a ``.pyc`` in
    ``tests/__pycache__``, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on some CI machines). Then, and on any
    fresh clone, each worker rewrites and compiles all ~130 test modules itself: about 30 s of CPU per worker
    before its first test, against 5 s with the cached files (a collection measured at 36 s without them, 4.6 s
    with them). This process writes those files (and the bytecode of farl's own modules) while the warm-up
    compiles, so the workers only read them. Nothing else changes: the workers import the same modules."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    return subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",  # noqa: S603
                             "-p", "no:cacheprovider", str(Path(__file__).parent)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
