"""Gymnasium single-agent view of any farl game, for Stable-Baselines3 and friends.

The learner plays one seat; the other seats are played by opponent policies
inside ``step``. Every game has a registered id (``farl_envs.gymnasium_id(game)``;
``farl_envs/__init__.py`` registers them), e.g. ``farl/TicTacToe-v0``,
``farl/ConnectFour-v0``, ``farl/Hex-v0``, ``farl/2048-v0``, ``farl/Nim3P-v0``::

    import gymnasium, farl_envs
    env = gymnasium.make("farl/ConnectFour-v0", seat="alternate", cols=8)

* observation: the AEC observation planes of the learner's seat;
* ``action_masks()`` (what sb3-contrib's MaskablePPO asks for) and
  ``info["action_mask"]`` give the legal actions;
* reward: the learner's reward deltas summed over its own move and the
  opponents' replies;
* an **illegal action ends the episode as a loss** for the learner (reward =
  the game's lowest reward, ``info["illegal_action"] = True``), so checkers
  and untrained policies that send arbitrary actions run cleanly;
* a game ended by a move cap outside the rules (``GameSpec.truncated``:
  Chinese Checkers' ``max_moves``, Lines of Action's ``max_game_length``)
  returns ``terminated=False, truncated=True``; every other end is
  ``terminated=True``.

Opponents (``opponents=``), one for every other seat or a list with one per
other seat in seat order, each of them:

* ``None``: uniform random legal moves (the default);
* a harness player, anything with ``act(game, state, rng) -> action`` such
  as ``farl_agents.opponents.make_opponent("mcts50", "connect_four")`` or a
  trained ``NTupleAgent``: called with the kernel state (a copy) and a farl
  random generator drawn from the env's ``np_random`` at every ``reset`` (so
  ``reset(seed=...)`` repeats the players' games); its ``reset()``, if any,
  before every episode;
* an opponent name such as ``"mcts50"``, ``"maxn10"`` or ``"ab"``: built by
  ``farl_agents.opponents.make_opponent`` for this game (one per seat);
* a policy ``fn(raw_env) -> action``, called with the raw AEC env on its turn.

::

    from farl_agents.opponents import make_opponent
    env = gymnasium.make("farl/ConnectFour-v0", opponents=make_opponent("mcts50", "connect_four"))
    env = gymnasium.make("farl/Nim3P-v0", seat=0, opponents=["maxn15", None])
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces

import farl_envs
from farl_envs.core.aec import FarlAECEnv, integral_action
from farl_envs.core.render import ACCEPTED_RENDER_MODES, RENDER_MODES, HumanWindow, render_rgb
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, GameSpec

Policy = Callable[[FarlAECEnv], int]
"""An opponent policy: called with the raw AEC env when it is its turn, returns a legal action."""



class HarnessPlayer(Protocol):
    """A player of farl's evaluation harness (``farl_agents.players.Player``): what ``make_opponent`` returns."""

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int: ...


Opponent = Union[HarnessPlayer, str, Policy, None]
"""What ``opponents=`` takes for one seat: ``None`` (random), a harness player, an opponent name for
``make_opponent``, or a :data:`Policy`."""

SEAT_MODES = ("alternate", "random")


class SingleAgentEnv(gymnasium.Env):
    """One seat of a farl game as a Gymnasium environment.

    Args:
        game: game name, e.g. ``"connect_four"`` (see :func:`farl_envs.list_games`).
        seat: the learner's seat: an int, ``"alternate"`` (seat 0, 1, ...
            on successive episodes) or ``"random"``.
        opponents: one opponent for every other seat, or a sequence with one
            per other seat in seat order; each ``None`` (uniform random moves),
            a harness player (``act(game, state, rng)``), an opponent name
            (``make_opponent``'s) or a policy ``fn(raw_env)`` (see the module
            docstring). ``self.opponents`` lists them, names built.
        render_mode: as for the AEC env.
        **params: the game's parameters, e.g. ``cols=8``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, game: str, seat: int | str = 0, opponents: Opponent | Sequence[Opponent] = None,
                 render_mode: str | None = None, **params):
        if render_mode is not None and render_mode not in ACCEPTED_RENDER_MODES:
            raise ValueError(f"render_mode must be one of {list(ACCEPTED_RENDER_MODES)} or None, got {render_mode!r}")
        # the wrapper draws (once per step of the learner, opponents' moves included); the AEC env inside never does
        self.aec: FarlAECEnv = farl_envs.make_raw(game, **params)
        g = self.aec.game
        self.render_mode = render_mode
        self._window = HumanWindow(g.id, self.metadata["render_fps"]) if render_mode == "human" else None
        n = g.n_players
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1} or one of {SEAT_MODES}, got {seat!r}")
        self.seat_mode = seat
        self.opponents = _opponents(g, opponents)
        self._is_player = [_is_player(o) for o in self.opponents]
        self._player_rng = None  # the players' farl generator, made by reset()
        self.observation_space = spaces.Box(0, g.obs_high, g.obs_shape, dtype=np.int8)
        self.action_space = spaces.Discrete(g.n_actions)
        self.seat = 0 if isinstance(seat, str) else int(seat)
        self._episodes = 0
        self._loss_reward = float(g.reward_range[0])
        self._done = None  # None until the first reset()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset restarts everything, the seat cycle included
            self.action_space.seed(seed)
            self._episodes = 0
        n = self.aec.game.n_players
        if self.seat_mode == "alternate":
            self.seat = self._episodes % n
        elif self.seat_mode == "random":
            self.seat = int(self.np_random.integers(n))
        self._episodes += 1
        if any(self._is_player):  # their random numbers: a fresh farl generator from np_random (seeded above)
            self._player_rng = make_rng(int(self.np_random.integers(2**63)))
            for o in {id(o): o for o, p in zip(self.opponents, self._is_player) if p}.values():
                reset = getattr(o, "reset", None)
                if callable(reset):
                    reset()
        self.aec.reset(seed=None if seed is None else int(seed), options=options)
        self._done = False
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def _check_reset(self) -> None:
        if self._done is None:
            raise RuntimeError("call reset() first: the environment has no game yet")

    def step(self, action):
        self._check_reset()
        if self._done:
            raise RuntimeError("the episode is over: call reset() first")
        me = self.aec.possible_agents[self.seat]
        legal = self.aec.action_mask()
        a = integral_action(action)
        if a is None or not 0 <= a < legal.shape[0] or not legal[a]:
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self._loss_reward, True, False, info
        self.aec.step(a)
        reward = self.aec.rewards[me]
        reward += self._play_opponents()
        if self.render_mode == "human":  # Gymnasium's convention: a human window follows every step by itself
            self.render()
        truncated = self._done and bool(self.aec.truncations.get(me))  # a move cap, not a rule, ended the game
        return self._observation(), float(reward), self._done and not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False when the episode is over).

        Through Gymnasium's wrappers (``gymnasium.make`` adds them) reach it with
        ``env.get_wrapper_attr("action_masks")()``, as sb3-contrib does.
        """
        self._check_reset()
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.aec.action_mask().astype(bool)

    def render(self):
        """Render in this wrapper's ``render_mode`` (``None`` renders nothing)."""
        if self.render_mode is None:
            return None
        self._check_reset()
        game, state = self.aec.game, self.aec.state_array
        if self.render_mode == "rgb_array":
            return render_rgb(game, state)
        if self.render_mode == "human":
            self._window.show(render_rgb(game, state))
            return None
        return game.render_text(game.p, state)

    def close(self):
        if self._window is not None:
            self._window.close()

    # ---------------------------------------------------------------- helpers
    def _play_opponents(self) -> float:
        """Let the other seats move until it is the learner's turn; return the learner's reward meanwhile."""
        aec = self.aec
        me = aec.possible_agents[self.seat]
        total = 0.0
        while not self._learner_done() and aec.agent_selection != me:
            if aec.terminations[aec.agent_selection]:  # an opponent that dropped out takes its dead step
                aec.step(None)
                continue
            seat = aec.possible_agents.index(aec.agent_selection)
            k = seat if seat < self.seat else seat - 1
            policy = self.opponents[k]
            if policy is None:
                action = int(self.np_random.choice(np.flatnonzero(aec.action_mask())))
            elif self._is_player[k]:
                action = policy.act(aec.game, aec.get_state(), self._player_rng)
            else:
                action = policy(aec)
            aec.step(action)
            total += aec.rewards[me]
        self._done = self._learner_done()
        return total

    def _learner_done(self) -> bool:
        """The game is over, or the learner's seat dropped out of it (``GameSpec.eliminated``)."""
        return bool(self.aec.state_array[TERMINAL]) or self.aec.terminations[self.aec.possible_agents[self.seat]]

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self) -> dict:
        return {"action_mask": self.action_masks(), "seat": self.seat}


def _is_player(opponent) -> bool:
    """A harness player (``act(game, state, rng)``), as opposed to a policy ``fn(raw_env)`` or None."""
    return callable(getattr(opponent, "act", None))


def _opponents(game: GameSpec, opponents) -> list:
    """One opponent per other seat of ``game``: ``opponents`` checked, a single one repeated, names built."""
    n = game.n_players - 1
    forms = ("None, a harness player (act(game, state, rng)), an opponent name such as 'mcts50', "
             "a policy fn(raw_env)")
    if opponents is None or isinstance(opponents, str) or _is_player(opponents) or callable(opponents):
        given = [opponents] * n
    elif isinstance(opponents, (list, tuple)):
        given = list(opponents)
        if len(given) != n:
            raise ValueError(f"opponents: a list needs {n} opponents (one per other seat of {game.id}), "
                             f"got {len(given)}")
    else:
        raise ValueError(f"opponents must be one of: {forms}, or a list of {n}; got {opponents!r}")
    out = []
    for o in given:
        if isinstance(o, str):
            from farl_agents.opponents import make_opponent  # the opponents' registry lives with the agents

            o = make_opponent(o, game)
        elif not (o is None or _is_player(o) or callable(o)):
            raise ValueError(f"opponents must be one of: {forms}, or a list of {n}; got {o!r}")
        out.append(o)
    return out
