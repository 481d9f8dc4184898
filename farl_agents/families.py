"""The learner families farl trains, and where each one's parts live.

A family is a set of learners with their own settings and agent files:

==========  ======================================  ==============================================
family      ``farl train --algo``                   paper
==========  ======================================  ==============================================
ntuple      td-farl, td, sarsa-farl, sarsa,         Konen & Bagheri 2020 (FARL); Thill, Bagheri,
            q-farl, q                               Koch & Konen 2014 (Connect Four presets)
nemesh      nemesh                                  Shalita, Saranga & Haim 2013 (Agent Nemesh)
descent     descent                                 Cohen-Solal 2020 (descent, UBFM)
sb3         maskable-ppo, dqn                       the deep-RL baselines (Stable-Baselines3)
alphazero   alphazero                               Silver et al. 2018 (AlphaZero); Petosa & Balch
                                                    2019 (N players)
==========  ======================================  ==============================================

Each family has one *hooks* module with the same names in it:

``Trainer``
    the class a run trains (:class:`farl_agents.runs.trainer.Trainer`), with
    ``config_class`` (the family's frozen settings dataclass; every field
    becomes a ``farl train`` flag, see :mod:`farl_agents.config_flags`);
``FLAGS``
    the :class:`~farl_agents.config_flags.ConfigFlags` of that dataclass;
``config_from_flags(algo, game, fields, preset) -> (config, game_params)``
    the settings a ``farl train`` command line describes;
``load_player(path, game=None) -> (player, GameSpec)``
    one of its agent files as a harness player, for ``farl eval`` / ``farl play``.

The registry is explicit, and so is each family's import: ``hooks`` is a
function holding a plain ``import`` of the hooks module, which a reader (or a
static tool) follows from here to the family's code. The import runs when the
hooks are first needed, so ``farl info`` and ``farl --help`` do not import
every family's numba code (nor the baselines' torch); a family that fails to
import fails loudly.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType


def _ntuple_hooks() -> ModuleType:
    from farl_agents.learners import family

    return family


def _nemesh_hooks() -> ModuleType:
    from farl_agents.nemesh import family

    return family


def _descent_hooks() -> ModuleType:
    from farl_agents.descent import family

    return family


def _sb3_hooks() -> ModuleType:
    from farl_agents.baselines import family  # imports no torch: the hooks defer it to training and loading

    return family


def _alphazero_hooks() -> ModuleType:
    from farl_agents.alphazero import family  # imports no torch: training and loading do

    return family


@dataclass(frozen=True)
class Family:
    name: str
    algos: tuple
    """``farl train --algo`` names it trains."""
    hooks: Callable[[], ModuleType]
    """The family's hooks module (imported on the first call)."""
    formats: tuple
    """``format`` strings in the ``meta`` JSON of its agent files (``.npz``)."""
    info: str
    """One line for ``farl info``."""
    observations_only: bool = False
    """The family learns and plays from a seat's observation alone, so it may train a game with hidden
    information (``GameSpec.hidden_information``). The others read more than a seat may see: the n-tuple
    learners choose by a move's reward plus its afterstate's value, and a move that ends a card game is rewarded
    by the cards in every hand; the search-based families read the full state."""

    def trainer(self):
        """The family's :class:`~farl_agents.runs.trainer.Trainer` class."""
        return self.hooks().Trainer


FAMILIES = (
    Family("ntuple", ("td-farl", "td", "sarsa-farl", "sarsa", "q-farl", "q"), _ntuple_hooks, ("farl-agent",),
           "n-tuple TD / SARSA / Q-learning with or without final adaptation (Konen & Bagheri 2020)"),
    Family("nemesh", ("nemesh",), _nemesh_hooks, ("farl-nemesh-agent",),
           "Agent Nemesh (Shalita, Saranga & Haim 2013): linear-feature SARSA with alpha-beta look-ahead; "
           "Connect Four of any size"),
    Family("descent", ("descent",), _descent_hooks, ("farl-descent-agent",),
           "descent / UBFM / ID / MCTS self-play with tree, root or terminal learning (Cohen-Solal 2020)"),
    Family("sb3", ("maskable-ppo", "dqn"), _sb3_hooks, (),
           "deep-RL baselines: MaskablePPO and masked DQN (Stable-Baselines3; optional extra 'baselines'); "
           "agent files are SB3's .zip", observations_only=True),
    Family("alphazero", ("alphazero",), _alphazero_hooks, ("farl-alphazero-agent",),
           "AlphaZero: batched self-play with PUCT, a policy/value net, a value per player (Silver et al. 2018; "
           "Petosa & Balch 2019); torch via the optional extra 'baselines'"),
)


def get(name: str) -> Family:
    """The family called ``name``; ValueError listing the families otherwise."""
    for fam in FAMILIES:
        if fam.name == name:
            return fam
    raise ValueError(f"unknown learner family {name!r}; the families are {', '.join(f.name for f in FAMILIES)}")


def of_algo(algo: str) -> Family:
    """The family that trains ``--algo algo``."""
    for fam in FAMILIES:
        if algo in fam.algos:
            return fam
    raise ValueError(f"unknown --algo {algo!r}; the algorithms are {', '.join(all_algos())}")


def of_format(fmt: str | None) -> Family | None:
    """The family whose agent files carry ``format`` ``fmt``, or None."""
    for fam in FAMILIES:
        if fmt in fam.formats:
            return fam
    return None


def of_zip() -> Family:
    """The family whose agent files are SB3 ``.zip`` models (the others write ``.npz``)."""
    return get("sb3")


def all_algos() -> list[str]:
    return [a for fam in FAMILIES for a in fam.algos]
