import os

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".numba_cache"))

LONGEST_FIRST = (
    "test_readme.py",      # every README and tutorial command, one after the other (several minutes)
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
