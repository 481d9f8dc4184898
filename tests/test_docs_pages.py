"""The docs pages that took over the README's longer sections are tests too, run as tests/test_readme.py runs
the README: every shell command and Python block of each page in order, in one folder per page, with tiny
budgets. A file of its own so that a parallel run gives the README, the tutorial and these pages to different
workers."""
from __future__ import annotations

import pytest
import test_readme as readme
from test_readme import workdirs  # noqa: F401  (the fixture: one working folder per document)

PAGES = ("docs/learners.md", "docs/reproducing.md", "docs/ecosystem.md", "docs/pretrained.md", "docs/speed.md")
BLOCKS = [block for page in PAGES for block in readme.blocks_of(readme.ROOT / page)]


def test_every_page_is_a_document_of_the_readme_test():
    assert set(PAGES) <= set(readme.DOCUMENTS)  # so its markers are checked there too


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(block, workdirs, monkeypatch):  # noqa: F811
    readme.run_block(block, workdirs, monkeypatch)
