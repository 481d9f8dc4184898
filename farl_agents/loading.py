"""Who plays: a game with its parameters, and an agent file, a run folder, ``pretrained`` or an opponent name
as a harness player.

The library layer under every front end that lets a user name a player: ``farl eval`` / ``farl play``
(:mod:`farl_agents.cli.players` turns these errors into one-line command errors), ``farl serve``'s seats
(:mod:`farl_agents.serve.files`) and scripts. Mistakes raise ``ValueError`` (an unreadable agent file:
:class:`~farl_agents.safe_files.AgentFileError`, a ``ValueError`` too) with a message that says what to give.

A path wins over an opponent name: text naming an existing file or folder,
or looking like a path (``/``, ``.npz``), is an agent; a run folder means its
``agent.npz``. When text is both an existing path and an opponent name, the
path is used and a note says so. ``agent:PATH`` names an agent file or run
folder explicitly (as ``farl serve``'s seats do).

A search wrapper around an agent is named ``<inner>+mcts<N>``, ``+maxn<D>``,
``+paranoid<D>`` or ``+expectimax<D>`` (:mod:`farl_agents.opponents.wrappers`),
where ``<inner>`` is any of the above that has afterstate values:
``pretrained+mcts1000``, ``agent:runs/c4/agent.npz+maxn3``,
``runs/hex+mcts400``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import farl_envs
from farl_agents import families
from farl_agents.learners.agent_io import UNREADABLE, read_npz_with_meta


def game_key(name: str) -> str:
    """The short name of a game (``tictactoe_v0`` -> ``tictactoe``); ValueError listing the games."""
    key = name[:-3] if name.endswith("_v0") else name
    if key + "_v0" not in farl_envs.list_games():
        raise ValueError(f"unknown game {name!r}; the games are {', '.join(g[:-3] for g in farl_envs.list_games())}")
    return key


def check_param_names(key: str, params: dict) -> None:
    """ValueError naming the game's parameters (and their defaults) if ``params`` has a name the game ``key``
    does not take."""
    known = farl_envs.game_spec(key).params
    unknown = sorted(set(params) - set(known))
    if unknown:
        have = ", ".join(f"{k} (default {v})" for k, v in known.items()) or "none"
        raise ValueError(f"{key} has no parameter {', '.join(unknown)}; its parameters: {have}")


def game_with_params(name: str, params: dict):
    """The GameSpec of ``name`` with ``params``; ValueError naming the game's parameters for unknown or bad ones."""
    key = game_key(name)
    check_param_names(key, params)
    try:
        return farl_envs.game_spec(key, **params)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"bad parameters for {key}: {exc}") from None


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
        raise ValueError(f"{text} is {what}: give a run folder of `farl train` or an agent file")
    if not path.is_file():
        raise ValueError(f"no agent file or run folder at {text}: give the folder (or agent.npz) of a `farl train` "
                         f"run")
    return path


def is_pretrained(text: str) -> bool:
    """``text`` names the pretrained agent (``pretrained``, any case)."""
    return text.strip().lower() == "pretrained"


def pretrained_player(game: str) -> tuple:
    """``(agent, game spec)`` of the pretrained agent for ``game``; ValueError naming the games that have one."""
    from farl_agents import pretrained  # here, as the opponents below: `farl --help` need not import them

    agent = pretrained.load(game_key(game))
    return agent, agent.game


def family_of(path: Path) -> families.Family:
    """The learner family whose agent file ``path`` is (from its suffix, else the ``format`` in its metadata)."""
    if path.suffix == ".zip":
        return families.of_zip()
    try:
        _, meta = read_npz_with_meta(path)
    except UNREADABLE:
        raise ValueError(f"{path} is not a farl agent file (not a readable .npz with farl metadata)") from None
    fmt = meta.get("format") if isinstance(meta, dict) else None
    family = families.of_format(fmt)
    if family is None:
        raise ValueError(f"{path} is not a farl agent file (format {fmt!r})")
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


AGENT_PREFIX = "agent:"
"""``agent:PATH``: the agent file or run folder at PATH, never an opponent name."""


def load_player(text: str, game=None):
    """``(player, game spec)`` for an agent file, a run folder, ``agent:PATH``, an opponent name (then ``game`` is
    needed) or a search wrapper around one of them (``pretrained+mcts1000``).

    An agent must play ``game`` (same name and parameters) when one is given.
    """
    from farl_agents.opponents import make_opponent
    from farl_agents.opponents.wrappers import split_wrapped, wrap

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"name a player: an agent file, a run folder, agent:PATH, pretrained or an opponent name, "
                         f"got {text!r}")
    wrapped = None if Path(text).exists() else split_wrapped(text)
    if wrapped is not None:
        inner, spec = load_player(wrapped.inner, game)
        return wrap(inner, wrapped, spec, display=text.strip()), spec
    if text.startswith(AGENT_PREFIX):
        text = text[len(AGENT_PREFIX):]
        if not text:
            raise ValueError("agent: must be followed by the path of an agent file or run folder")
        path = agent_file(text)
        return family_of(path).hooks().load_player(path, game)
    if is_path(text):
        _note_if_also_opponent(text)
        path = agent_file(text)
        return family_of(path).hooks().load_player(path, game)
    if game is None:
        raise ValueError(f"{text!r} is an opponent name: say which game with --game (or give an agent file "
                         f"or run folder)")
    try:
        return make_opponent(text, game), game
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{text!r} is neither an agent file, a run folder nor a usable opponent: {exc}") from None
