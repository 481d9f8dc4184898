"""Every settings dataclass refuses values of the wrong type through the Python API, naming the field.

The command line converts text to the field's type (``config_flags.ConfigFlags``); these are the checks a
Python caller meets: ``LearnerConfig(episodes=1.5)`` must not train 1.5 episodes, ``episodes=True`` not one.
"""
import dataclasses
import math

import numpy as np
import pytest

from farl_agents.baselines.family import BaselineConfig
from farl_agents.descent.trainer import DescentConfig, DescentTrainer
from farl_agents.learners import LearnerConfig
from farl_agents.nemesh.agent import NemeshSettings
from farl_agents.nemesh.family import NemeshConfig

NAN, INF = math.nan, math.inf

BAD = [
    (LearnerConfig, "episodes", 1.5, TypeError), (LearnerConfig, "episodes", True, TypeError),
    (LearnerConfig, "episodes", "100", TypeError), (LearnerConfig, "episodes", 2**63, ValueError),
    (LearnerConfig, "seed", 2.0, TypeError), (LearnerConfig, "ntuple_count", None, TypeError),
    (LearnerConfig, "random_start_plies", False, TypeError),
    (LearnerConfig, "alpha", NAN, ValueError), (LearnerConfig, "alpha", INF, ValueError),
    (LearnerConfig, "alpha", True, TypeError), (LearnerConfig, "alpha", "0.1", TypeError),
    (LearnerConfig, "gamma", NAN, ValueError), (LearnerConfig, "lam", NAN, ValueError),
    (LearnerConfig, "epsilon_final", NAN, ValueError), (LearnerConfig, "tcl_beta", -INF, ValueError),
    (LearnerConfig, "reward_scale", NAN, ValueError), (LearnerConfig, "farl", 1, TypeError),
    (LearnerConfig, "use_symmetry", "yes", TypeError), (LearnerConfig, "algo", None, TypeError),
    (LearnerConfig, "ntuple_cells", "0,1,2", TypeError),
    (NemeshConfig, "fraction", NAN, ValueError), (NemeshConfig, "seed", True, TypeError),
    (NemeshConfig, "depth", 3.0, TypeError), (NemeshConfig, "gamma", "0.8", TypeError),
    (NemeshSettings, "alpha0", True, TypeError), (NemeshSettings, "gamma", NAN, ValueError),
    (NemeshSettings, "seed", 1.0, TypeError),
    (DescentConfig, "memory_size", 1.5, TypeError), (DescentConfig, "minutes", INF, ValueError),
    (DescentConfig, "minutes", NAN, ValueError), (DescentConfig, "completion", 0, TypeError),
    (DescentConfig, "game_params", [], TypeError), (DescentConfig, "seed", True, TypeError),
    (DescentConfig, "move_seconds", NAN, ValueError),
    (BaselineConfig, "timesteps", 1.5, TypeError), (BaselineConfig, "n_envs", True, TypeError),
    (BaselineConfig, "snapshot_every", 1e4, TypeError),
]


@pytest.mark.parametrize("cls,field,value,error", BAD, ids=[f"{c.__name__}.{f}={v!r}" for c, f, v, _ in BAD])
def test_a_value_of_the_wrong_type_is_refused_naming_the_field(cls, field, value, error):
    with pytest.raises(error, match=rf"{cls.__name__}\.{field} "):
        cls(**{field: value})


@pytest.mark.parametrize("cls,field,value", [
    (LearnerConfig, "seed", -1), (LearnerConfig, "tcl_init", 0.0), (NemeshConfig, "depth", 0),
    (NemeshConfig, "seed", -2), (DescentConfig, "sampling_rate", 0.0), (DescentConfig, "memory_size", 0),
    (DescentConfig, "move_iterations", -5), (DescentConfig, "seed", -1),
])
def test_values_out_of_range_are_refused(cls, field, value):
    with pytest.raises(ValueError, match=field):
        cls(**{field: value})


def test_numpy_scalars_are_accepted_and_stored_as_python_values():
    cfg = LearnerConfig(episodes=np.int64(5), alpha=np.float32(0.5), farl=np.bool_(False), alpha_final=1)
    assert (type(cfg.episodes), type(cfg.alpha), type(cfg.farl), type(cfg.alpha_final)) == (int, float, bool, float)
    assert cfg.episodes == 5 and cfg.alpha == 0.5 and cfg.farl is False and cfg.alpha_final == 1.0
    assert LearnerConfig.from_dict(LearnerConfig.from_dict(cfg.to_dict()).to_dict()) == cfg  # JSON-ready


@pytest.mark.parametrize("cells,error", [(((0, 1.5),), TypeError), (((0, True),), TypeError),
                                         (((0, -1),), ValueError), (((),), ValueError), ((5,), ValueError)])
def test_explicit_ntuple_cells_must_be_integers(cells, error):
    with pytest.raises(error, match=r"ntuple_cells\[0\]"):
        LearnerConfig(ntuples="explicit", ntuple_cells=cells)
    assert LearnerConfig(ntuples="explicit", ntuple_cells=[[np.int32(2), 0]]).ntuple_cells == ((2, 0),)


def test_replace_is_checked_too():
    with pytest.raises(TypeError, match="LearnerConfig.episodes"):
        LearnerConfig().replace(episodes=10.0)
    with pytest.raises(TypeError, match="DescentConfig.alpha"):
        dataclasses.replace(DescentConfig(), alpha="0.2")


def test_descent_replay_memory_is_checked_before_allocating(monkeypatch):
    monkeypatch.setenv("FARL_MAX_MEMORY", "1M")
    with pytest.raises(ValueError, match="replay memory .* the limit is 1.0 MiB"):
        DescentTrainer(DescentConfig(game="tictactoe", memory_size=200_000))  # 200,000 x 17 bytes


def test_explicit_ntuples_of_different_lengths_are_refused_by_name():
    from farl_agents.learners import NTupleAgent

    cfg = LearnerConfig(ntuples="explicit", ntuple_cells=((0, 1, 2), (3, 4)))
    with pytest.raises(ValueError, match=r"equally long; got lengths \[2, 3\]"):
        NTupleAgent("tictactoe", cfg)
