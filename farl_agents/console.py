"""What every command line built on farl shares, below the ``farl`` command itself: the help format and the
one "no progress bar" flag.

:mod:`farl_agents.cli` and the baselines' commands (:mod:`farl_agents.baselines.cli`, which the ``farl``
command registers) both use it; it imports nothing of farl, so neither has to import the other's package.
"""
from __future__ import annotations

import argparse


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where there is one worth showing."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


QUIET_FLAGS = ("--quiet", "--no-progress")
"""The two spellings of the one "no progress bar" flag every ``farl`` command with a progress bar takes."""


def add_quiet_flag(parser) -> None:
    """Add ``--quiet`` (alias ``--no-progress``) to ``parser``: no progress bar, read as ``args.quiet``.

    Every command with a progress bar adds it here, so both spellings work everywhere (``farl train``,
    ``reproduce``, ``tournament``, ``pretrained build``, ``baseline``).
    """
    parser.add_argument(*QUIET_FLAGS, dest="quiet", action="store_true", help="no progress bar")
