"""Who plays, on the command line: :mod:`farl_agents.loading` with its mistakes as one-line command errors.

A path wins over an opponent name (see :mod:`farl_agents.loading`); ``main_player`` adds what only the
command line has: ``--game`` and ``--param`` confirming (or, for an opponent name, choosing) the game.
"""
from __future__ import annotations

from farl_agents import loading
from farl_agents.cli.common import CliError, game_name, game_with_params, params_of
from farl_agents.loading import is_path, is_pretrained

__all__ = ["is_path", "is_pretrained", "load_player", "main_player", "pretrained_player"]


def pretrained_player(game_arg: str) -> tuple:
    """``(agent, game spec)`` of the pretrained agent for ``game_arg``, with a CliError naming the games
    that have one."""
    try:
        return loading.pretrained_player(game_arg)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def load_player(text: str, game=None):
    """``(player, game spec)`` for an agent file, a run folder or an opponent name (then ``game`` is needed);
    :func:`farl_agents.loading.load_player` with a CliError for its mistakes."""
    try:
        return loading.load_player(text, game)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def main_player(text: str, game_arg: str | None, param_args) -> tuple:
    """``(player, game)`` for the first player named on the command line.

    An agent brings its own game and parameters (``--game``/``--param`` may
    only confirm them); an opponent name needs ``game_arg`` (the game's
    default parameters, changed by ``--param``).
    """
    from farl_agents.opponents.wrappers import split_wrapped, wrap  # here: `farl --help` need not import searches

    params = params_of(param_args)
    try:
        wrapped = None if is_path(text) else split_wrapped(text)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not is_path(text) and (is_pretrained(text) or (wrapped is not None and is_pretrained(wrapped.inner))):
        # the shipped agent (also inside a search: pretrained+mcts100) brings its game's parameters
        if not game_arg:
            raise CliError("'pretrained' names the agent shipped for a game: say which game")
        player, spec = pretrained_player(game_arg)
        if params:
            want = game_with_params(spec.name, {**spec.params, **params}).params
            if want != spec.params:
                raise CliError(f"the pretrained {spec.name} agent plays {spec.params}, not {want}; drop --param")
        if wrapped is not None:
            try:
                player = wrap(player, wrapped, spec, display=text.strip())
            except ValueError as exc:
                raise CliError(str(exc)) from None
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
