"""The tutorial (docs/tutorial.md) is a test too, run as tests/test_readme.py runs the README: every shell
command and Python block in order, in one folder, with tiny budgets. A file of its own so that a parallel run
gives the two documents to two workers."""
from __future__ import annotations

import pytest
import test_readme as readme
from test_readme import workdirs  # noqa: F401  (the fixture: one working folder per document)

BLOCKS = readme.blocks_of(readme.ROOT / "docs" / "tutorial.md")


@pytest.mark.slow  # ~70 worker-s of commands in order; the README's blocks run by default (tests/test_readme.py)
@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(block, workdirs, monkeypatch):  # noqa: F811
    readme.run_block(block, workdirs, monkeypatch)
