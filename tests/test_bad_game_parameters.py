"""A misspelt game parameter in the Python API names the game's parameters, as the CLI does."""
from __future__ import annotations

import pytest

import farl_envs


@pytest.mark.parametrize("name", farl_envs.list_games())
def test_an_unknown_parameter_names_the_games_parameters(name):
    spec = farl_envs.game_spec(name)
    # a make_spec(**params) says what it refuses itself (Santorini: "takes no parameters", a ValueError)
    with pytest.raises((TypeError, ValueError)) as exc:
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


def test_farl_train_help_names_grouped_presets_once():
    import re

    from farl_agents import cli

    parser = cli.build_parser(["train"])
    text = " ".join(parser._subparsers._group_actions[0].choices["train"].format_help().split())
    sentences = [s for s in re.split(r"(?<=[.;])\s+", text) if len(s) > 30]
    repeated = {s for s in sentences if sentences.count(s) > 1}
    assert not repeated, repeated  # was: "a row of Thill et al. 2014's Table I (Connect Four 7x6)" nine times
    assert "tdl-et, tdl-rr, tcl-std" in text
