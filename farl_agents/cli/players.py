"""Who plays: an agent file, a run folder, ``pretrained`` or an opponent name, as a harness player and its game.

A path wins over an opponent name: text naming an existing file or folder,
or looking like a path (``/``, ``.npz``), is an agent; a run folder means its
``agent.npz``. When text is both an existing path and an opponent name, the
path is used and a note says so.
"""
from __future__ import annotations

import sys
from pathlib import Path

from farl_agents import families
from farl_agents.cli.common import CliError, game_name, game_with_params, params_of
from farl_agents.learners.agent_io import UNREADABLE, read_npz_with_meta


def is_path(text: str) -> bool:
    return text.endswith(".npz") or "/" in text or Path(text).exists()


def agent_file(text: str) -> Path:
    """The agent file ``text`` names: the file itself, or ``agent.npz`` of a run folder."""
    path = Path(text)
    if path.is_dir():
        for name in ("agent.npz", "agent.zip"):  # SB3 baselines save .zip models
            if (path / name).is_file():
                return path / name
        what = "a run folder without agent.npz yet" if (path / "run.json").exists() else "a folder, not a run"
        raise CliError(f"{text} is {what}: give a run folder of `farl train` or an agent file")
    if not path.is_file():
        raise CliError(f"no agent file or run folder at {text}: give the folder (or agent.npz) of a `farl train` run")
    return path


def is_pretrained(text: str) -> bool:
    """``text`` names the pretrained agent (``pretrained``, any case)."""
    return text.strip().lower() == "pretrained"


def pretrained_player(game_arg: str) -> tuple:
    """``(agent, game spec)`` of the pretrained agent for ``game_arg``, with a CliError naming the games
    that have one."""
    from farl_agents.pretrained import load

    try:
        agent = load(game_name(game_arg))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return agent, agent.game


def _family_of(path: Path) -> families.Family:
    if path.suffix == ".zip":
        return families.of_zip()
    try:
        _, meta = read_npz_with_meta(path)
    except UNREADABLE:
        raise CliError(f"{path} is not a farl agent file (not a readable .npz with farl metadata)") from None
    fmt = meta.get("format") if isinstance(meta, dict) else None
    family = families.of_format(fmt)
    if family is None:
        raise CliError(f"{path} is not a farl agent file (format {fmt!r})")
    return family


def _note_if_also_opponent(text: str) -> None:
    from farl_agents.opponents import parse_opponent

    try:
        parse_opponent(text)  # the one parser of opponent names
    except ValueError:
        return
    if Path(text).exists():
        print(f"farl: note: {text!r} is both a path and an opponent name; using the path "
              f"(write the opponent without a folder of that name here to mean it)", file=sys.stderr)


def load_player(text: str, game=None):
    """``(player, game spec)`` for an agent file, a run folder or an opponent name (then ``game`` is needed).

    An agent must play ``game`` (same name and parameters) when one is given.
    """
    from farl_agents.opponents import make_opponent

    if is_path(text):
        _note_if_also_opponent(text)
        path = agent_file(text)
        try:
            return _family_of(path).hooks().load_player(path, game)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if game is None:
        raise CliError(f"{text!r} is an opponent name: say which game with --game (or give an agent file "
                       f"or run folder)")
    try:
        return make_opponent(text, game), game
    except (ValueError, RuntimeError) as exc:
        raise CliError(f"{text!r} is neither an agent file, a run folder nor a usable opponent: {exc}") from None


def main_player(text: str, game_arg: str | None, param_args) -> tuple:
    """``(player, game)`` for the first player named on the command line.

    An agent brings its own game and parameters (``--game``/``--param`` may
    only confirm them); an opponent name needs ``game_arg`` (the game's
    default parameters, changed by ``--param``).
    """
    params = params_of(param_args)
    if not is_path(text) and is_pretrained(text):  # the shipped agent brings its game's parameters
        if not game_arg:
            raise CliError("'pretrained' names the agent shipped for a game: say which game")
        player, spec = pretrained_player(game_arg)
        if params:
            want = game_with_params(spec.name, {**spec.params, **params}).params
            if want != spec.params:
                raise CliError(f"the pretrained {spec.name} agent plays {spec.params}, not {want}; drop --param")
        return player, spec
    if is_path(text):
        player, spec = load_player(text, None)
        if game_arg and game_name(game_arg) != spec.name:
            raise CliError(f"{text} plays {spec.name}, not {game_name(game_arg)}")
        if params:
            want = game_with_params(spec.name, {**spec.params, **params}).params
            if want != spec.params:
                raise CliError(f"{text} plays {spec.name} with {spec.params}, not {want}; drop --param")
        return player, spec
    if not game_arg:
        raise CliError(f"{text!r} is an opponent name: say which game with --game (or give an agent file "
                       f"or run folder)")
    return load_player(text, game_with_params(game_arg, params))
