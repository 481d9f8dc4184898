"""A misspelt game parameter in the Python API names the game's parameters, as the CLI does."""
from __future__ import annotations

import pytest

import farl_envs


@pytest.mark.parametrize("name", farl_envs.list_games())
def test_an_unknown_parameter_names_the_games_parameters(name):
    spec = farl_envs.game_spec(name)
    with pytest.raises(TypeError) as exc:
        farl_envs.make(name, no_such_parameter=1)
    message = str(exc.value)
    assert "no_such_parameter" in message
    for param, default in spec.params.items():  # every parameter, with its default
        assert f"{param}={default!r}" in message, (param, message)


def test_the_nearest_parameter_is_suggested():
    with pytest.raises(TypeError, match=r"colls \(did you mean cols\?\).*rows=6, cols=7"):
        farl_envs.make("connect_four", colls=8)
    with pytest.raises(TypeError, match="did you mean size"):
        farl_envs.game_spec("hex", sise=5)
