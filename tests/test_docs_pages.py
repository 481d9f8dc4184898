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


@pytest.mark.slow  # ~70 worker-s of commands; the README's blocks run by default (tests/test_readme.py)
@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(block, workdirs, monkeypatch):  # noqa: F811
    readme.run_block(block, workdirs, monkeypatch)


def test_blocks_run_elsewhere_still_parse():
    """A block the page test skips because other tests run its commands smaller in-process (the deep-RL
    comparison: tests/test_baselines.py, tests/test_families.py) must still be a valid command line, flag for
    flag."""
    import shlex

    from farl_agents import cli

    skipped = [b for b in BLOCKS if b.skip and b.skip.startswith("run smaller in-process")]
    assert skipped
    for block in skipped:
        for command in readme.commands_of(block.text):
            argv = shlex.split(command)
            assert argv[0] == "farl", command
            cli.build_parser(argv[1:]).parse_args(argv[1:])  # SystemExit on a flag that no longer exists
