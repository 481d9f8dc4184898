"""What every ``farl`` command shares: one-line errors, the help format and quiet flag (from
:mod:`farl_agents.console`, which the baselines' commands use too), games and their parameters."""
from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from farl_agents import loading
from farl_agents.console import QUIET_FLAGS, HelpFormatter, add_quiet_flag  # noqa: F401 - the commands take them from here


class CliError(Exception):
    """A mistake in what was typed: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (raised as :class:`CliError`, printed by :func:`farl_agents.cli.main`)."""

    def error(self, message):
        raise CliError(f"{message}; see `{self.prog} --help`")


def key_values(items, what: str) -> list[tuple[str, str]]:
    """``[(key, value)]`` of repeated ``KEY=VALUE`` options (``-`` in keys read as ``_``)."""
    pairs = []
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"{what} takes key=value, got {item!r}")
        pairs.append((key.strip().replace("-", "_"), value.strip()))
    return pairs


def param_value(text: str):
    """A game parameter from text: true/false, an integer, else the text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def params_of(items) -> dict:
    """The game parameters of repeated ``--param KEY=VALUE`` options."""
    return {k: param_value(v) for k, v in key_values(items, "--param")}


def split(values) -> list[str]:
    """Comma lists and repeated options as one list."""
    out = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def command_line(argv) -> str:
    return "farl " + shlex.join(argv)


def game_name(name: str) -> str:
    """The short name of a game (``tictactoe_v0`` -> ``tictactoe``), or a CliError listing the games."""
    try:
        return loading.game_key(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def game_with_params(name: str, params: dict):
    """The GameSpec of ``name`` with ``params``, with a clear message for unknown or bad parameters."""
    try:
        return loading.game_with_params(name, params)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def read_config_file(path) -> tuple[dict, dict]:
    """``(settings fields, game params)`` from a TOML or JSON file (or a run's ``run.json``)."""
    path = Path(path)
    if not path.is_file():
        raise CliError(f"config file {path} not found")
    try:
        if path.suffix == ".toml":
            import tomllib
            data = tomllib.loads(path.read_text())
        elif path.suffix == ".json":
            data = json.loads(path.read_text())
        else:
            raise CliError(f"config file {path} must end in .toml or .json")
    except (ValueError, UnicodeDecodeError) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise CliError(f"{path} is not valid {path.suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise CliError(f"{path} must hold a table of settings")
    if isinstance(data.get("config"), dict):  # a run.json
        fields, params = dict(data["config"]), data.get("game_params", {})
    else:
        fields = dict(data)
        params = fields.pop("game_params", None) or fields.pop("params", None) or {}
    if not isinstance(params, dict):
        raise CliError(f"{path}: game_params must be a table of game parameters")
    return fields, dict(params)
