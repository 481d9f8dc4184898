""":class:`AfterstateAdapter`: any copyable PettingZoo AEC env with farl's afterstate extension.

(Just over farl's usual 400 lines: it is one AEC wrapper class, which besides
forwarding the AEC API makes the copies of the env, predicts every candidate's
afterstate on them and checks each step against its prediction, so that a bad
adapter fails loudly.)

farl's learners (``NTupleAgent.train_aec``) need more from an env than the
AEC API gives: for every legal action, the position it leads to (as n-tuple
cells), the reward it earns and whether it ends the game — *without* playing
it. The adapter gets these by playing each action on a **copy** of the env.

How copies are made (exactly one of):

* ``clone=f``: ``f(env)`` returns a new env in the same position;
* ``restore=f, scratch=twin``: ``f(twin, env)`` puts ``twin`` (an env the
  adapter keeps and reuses) into ``env``'s position — no env is built per
  candidate; :func:`copy_attributes` writes such an ``f`` from a list of
  attribute names;
* ``scratch=twin`` alone, when the env has ``get_state()`` / ``set_state()``:
  ``twin.set_state(env.get_state())``.

``copy.deepcopy`` is *not* a copy of most PettingZoo envs: they derive from
``EzPickle``, whose pickling rebuilds the env from its constructor
arguments, so ``copy.deepcopy(env)`` is a fresh env that was never reset.
The adapter checks every copy against the env before stepping it and raises
:class:`AdapterMismatchError` instead of learning from empty boards.

Validation on use: every step of a legal action is compared with the
afterstate predicted for it on a copy (board, every agent's reward and the
end of the game); any difference raises :class:`AdapterMismatchError` naming
the adapter and the action. The adapter is meant for games whose steps have
no chance (the prediction of a step with chance is one random outcome).
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from farl_envs.core.aec import integral_action


class AdapterMismatchError(RuntimeError):
    """The adapter's copy of the env does not play the game the env plays (bad clone/restore or encode)."""


@dataclass(frozen=True)
class AdaptedGame:
    """What a learner needs to know about a game farl did not write: its sizes (and optionally a grid).

    ``NTupleAgent(adapter.game, config)`` builds its n-tuple network from
    these. Only the identity symmetry is known (an n-tuple net without
    symmetries); ``grid_shape`` (rows, cols of the n-tuple cells, row-major)
    lets random-walk n-tuple sets walk between neighbouring cells; without it
    every cell neighbours every other.
    """

    name: str
    n_players: int
    n_actions: int
    n_cells: int
    n_cell_values: int
    grid_shape: tuple = ()
    params: dict = field(default_factory=dict)
    p: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    hex_grid: bool = False
    cell_neighbours: Callable | None = None
    action_symmetries: Callable | None = None

    @property
    def id(self) -> str:
        return self.name

    def symmetries(self, p) -> np.ndarray:
        """The identity only: ``int32[1, n_cells]``."""
        return np.arange(self.n_cells, dtype=np.int32)[None, :]


class AdaptedAfterstate:
    """The result of one action, found by stepping a copy of the env: a plain value.

    Attributes:
        action: the action (the adapter's numbering).
        player: the agent that moved.
        board: the afterstate's n-tuple cells (``int32[n_cells]``).
        rewards: ``{agent: reward}`` the step gives every agent.
        terminal: True when the action ended the game (every agent terminated).
    """

    __slots__ = ("action", "player", "board", "rewards", "terminal")

    def __init__(self, action: int, player: str, board: np.ndarray, rewards: dict, terminal: bool):
        self.action = action
        self.player = player
        self.board = board
        self.rewards = rewards
        self.terminal = terminal

    def __repr__(self) -> str:
        return (f"AdaptedAfterstate(action={self.action}, player={self.player!r}, "
                f"rewards={self.rewards}, terminal={self.terminal})")


def copy_attributes(*names: str) -> Callable:
    """A ``restore(twin, env)`` function that deep-copies the named attributes of ``env`` onto ``twin``.

    Copies attribute values (a board list, dicts of rewards, an agent
    selector), never the env object itself, so ``EzPickle`` plays no part.
    Name every attribute a step reads or writes.
    """
    if not names:
        raise ValueError("copy_attributes needs the names of the attributes that make up a position")

    def restore(twin, env) -> None:
        for name in names:
            setattr(twin, name, copy.deepcopy(getattr(env, name)))

    restore.__qualname__ = f"copy_attributes{names}"
    return restore


def _game_over(env) -> bool:
    return bool(env.agents) and all(env.terminations.get(a, False) for a in env.agents)


class AfterstateAdapter(AECEnv):
    """A PettingZoo AEC env plus farl's afterstate extension, found by stepping copies of the env.

    Args:
        env: the AEC env to wrap (with its wrappers: the adapter steps it as
            given and copies ``env.unwrapped``).
        encode: ``encode(raw_env) -> ints[n_cells]``: the current position of
            an unwrapped env as n-tuple cells, each in ``0 .. n_cell_values-1``.
        n_cells, n_cell_values: the size of that encoding (give them, or ``game``).
        game: what the learner is told about the game (a farl ``GameSpec`` when
            the wrapped env plays a farl game, so the agent uses its
            symmetries and n-tuple sets); default an :class:`AdaptedGame`.
        clone, restore, scratch: how copies are made (module docstring).
        actions: ``actions[i]`` is the wrapped env's action for the adapter's
            action ``i`` (default: the same numbering). The adapter speaks its
            own numbering everywhere: ``step``, masks, ``afterstates()`` keys,
            in ascending order — so a learner sees the candidates in the order
            it would see them on the game it was written for.
        grid_shape: (rows, cols) of the cells, for an :class:`AdaptedGame`.
        name: names the adapter in errors (default: the env's metadata name).

    Observations are ``{"observation": <the env's own>, "action_mask": int8[n_actions]}``.
    """

    metadata = {"render_modes": [], "name": "afterstate_adapter", "is_parallelizable": False}

    def __init__(self, env, encode: Callable, n_cells: int | None = None, n_cell_values: int | None = None, *,
                 game=None, clone: Callable | None = None, restore: Callable | None = None, scratch=None,
                 actions: Sequence[int] | None = None, grid_shape: tuple = (), name: str | None = None):
        super().__init__()
        self.env = env
        raw = env.unwrapped
        self.name = name or raw.metadata.get("name", type(raw).__name__)
        self.metadata = {**self.metadata, "name": f"{self.name} (afterstate adapter)",
                         "render_modes": list(raw.metadata.get("render_modes", []))}
        self._twin = self._copier(raw, clone, restore, scratch)
        self.encode = encode
        self.possible_agents = list(raw.possible_agents)
        inner_n = int(raw.action_space(self.possible_agents[0]).n)
        self.actions = np.arange(inner_n) if actions is None else self._checked_actions(actions, inner_n)
        n_actions = len(self.actions)
        if game is None:
            if n_cells is None or n_cell_values is None:
                raise ValueError(f"{self.name}: give n_cells and n_cell_values (the size of encode's output), "
                                 f"or a game")
            game = AdaptedGame(self.name, len(self.possible_agents), n_actions, int(n_cells), int(n_cell_values),
                               tuple(grid_shape))
        elif n_cells is not None or n_cell_values is not None:
            raise ValueError(f"{self.name}: give either game or n_cells/n_cell_values, not both")
        if game.n_actions != n_actions or game.n_players != len(self.possible_agents):
            raise ValueError(f"{self.name}: game {game.id} has {game.n_actions} actions and {game.n_players} "
                             f"players; the adapter has {n_actions} and {len(self.possible_agents)}")
        self.game = game
        self.n_cells, self.n_cell_values = int(game.n_cells), int(game.n_cell_values)
        mask_space = spaces.Box(0, 1, (n_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": self._inner_obs_space(raw, a),
                                                   "action_mask": mask_space}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._position = 0          # counts resets and steps: afterstates are cached per position
        self._cache_position = -1
        self._cache: dict[int, AdaptedAfterstate] = {}

    # ------------------------------------------------------------------ setup
    def _copier(self, raw, clone, restore, scratch) -> Callable:
        """The function ``raw -> an env in raw's position that may be stepped`` (module docstring)."""
        hint = ("pass clone=f (f(env) -> a copy in the same position), restore=f with scratch=twin "
                "(f(twin, env) puts twin into env's position; see copy_attributes), or scratch=twin for an env "
                "with get_state()/set_state(); not copy.deepcopy: an EzPickle env deep-copies into a fresh env")
        if clone is not None:
            if restore is not None or scratch is not None:
                raise ValueError(f"{self.name}: give clone, or restore with scratch, not both; {hint}")
            return clone
        if restore is not None:
            if scratch is None:
                raise ValueError(f"{self.name}: restore needs a scratch env to restore into; {hint}")
            twin = scratch.unwrapped

            def restored(env):
                restore(twin, env)
                return twin
            return restored
        if scratch is not None:
            if not (callable(getattr(raw, "get_state", None)) and callable(getattr(scratch.unwrapped, "set_state",
                                                                                    None))):
                raise ValueError(f"{self.name}: scratch alone needs get_state()/set_state() on the envs; {hint}")
            twin = scratch.unwrapped

            def by_state(env):
                twin.set_state(env.get_state())
                return twin
            return by_state
        raise ValueError(f"{self.name}: the adapter needs a way to copy the env; {hint}")

    def _checked_actions(self, actions, inner_n: int) -> np.ndarray:
        arr = np.asarray(actions)
        if (arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer)
                or len(set(arr.tolist())) != arr.size or arr.min() < 0 or arr.max() >= inner_n):
            raise ValueError(f"{self.name}: actions must list distinct actions of the wrapped env (0..{inner_n - 1}),"
                             f" one per adapter action; got {actions!r}")
        return arr.astype(np.int64)

    @staticmethod
    def _inner_obs_space(raw, agent):
        space = raw.observation_space(agent)
        if isinstance(space, spaces.Dict) and "observation" in space.spaces:
            return space["observation"]
        return space

    # ------------------------------------------------------------ AEC API
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed, options=options)
        self._position += 1
        self._sync()

    def step(self, action):
        self._require_reset()
        raw = self.env.unwrapped
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self.env.step(None)
            self._position += 1
            self._sync()
            return
        a = integral_action(action)
        if a is None or not 0 <= a < len(self.actions):
            raise ValueError(f"{self.name}: illegal action {action!r}; legal actions: {self.legal_actions()}")
        legal = bool(self._mask(raw, agent)[a])
        expected = self._afterstate_of(raw, a) if legal else None
        self.env.step(int(self.actions[a]))
        self._position += 1
        self._sync()
        if expected is not None:
            self._check_step(raw, expected)
            self.infos[agent] = {**self.infos.get(agent, {}), "afterstate": expected}

    def observe(self, agent):
        self._require_reset()
        inner = self.env.observe(agent)
        obs = inner["observation"] if isinstance(inner, dict) and "observation" in inner else inner
        return {"observation": obs, "action_mask": self._mask(self.env.unwrapped, agent, inner)}

    def render(self):
        return self.env.render()

    def close(self):
        self.env.close()

    # -------------------------------------------------- afterstate extension
    def afterstate(self, action) -> AdaptedAfterstate:
        """The result of a legal ``action`` of the agent to move, found on a copy (the env is not stepped)."""
        self._require_reset()
        a = integral_action(action)
        raw = self.env.unwrapped
        if a is None or not 0 <= a < len(self.actions) or not self._mask(raw, raw.agent_selection)[a]:
            raise ValueError(f"{self.name}: illegal action {action!r}; legal actions: {self.legal_actions()}")
        return self._afterstate_of(raw, a)

    def afterstates(self) -> dict:
        """``{action: AdaptedAfterstate}`` for every legal action of the agent to move, in ascending order."""
        self._require_reset()
        raw = self.env.unwrapped
        out = {a: self._afterstate_of(raw, a) for a in self.legal_actions()}
        if out:
            self._check_env_untouched(raw)
        return out

    def board(self) -> np.ndarray:
        """The current position as n-tuple cells (``int32[n_cells]``)."""
        self._require_reset()
        return self._encoded(self.env.unwrapped)

    def legal_actions(self) -> list[int]:
        """The legal actions (adapter numbering) of the agent to move, ascending."""
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def action_mask(self) -> np.ndarray:
        """``int8`` mask of the agent to move's legal actions, in the adapter's numbering."""
        self._require_reset()
        raw = self.env.unwrapped
        if not raw.agents or _game_over(raw):
            return np.zeros(len(self.actions), dtype=np.int8)
        return self._mask(raw, raw.agent_selection)

    # ------------------------------------------------------------ helpers
    def _require_reset(self) -> None:
        if self._position == 0:
            raise RuntimeError(f"{self.name}: call reset() first")

    def _sync(self) -> None:
        """Mirror the wrapped env's turn bookkeeping (AEC's agent_iter and last() read it from here)."""
        raw = self.env.unwrapped
        self.agents = list(raw.agents)
        self.agent_selection = raw.agent_selection
        self.rewards = {a: float(r) for a, r in raw.rewards.items()}
        self._cumulative_rewards = {a: float(r) for a, r in raw._cumulative_rewards.items()}
        self.terminations = dict(raw.terminations)
        self.truncations = dict(raw.truncations)
        self.infos = {a: dict(i) for a, i in raw.infos.items()}

    def _mask(self, raw, agent, observation=None) -> np.ndarray:
        """The legal-action mask of ``agent`` in the adapter's numbering (from the observation or infos)."""
        if observation is None:
            observation = raw.observe(agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            inner = observation["action_mask"]
        elif "action_mask" in raw.infos.get(agent, {}):
            inner = raw.infos[agent]["action_mask"]
        else:
            raise ValueError(f"{self.name}: the env shows no action mask for {agent} (neither in its observation "
                             f"nor in infos[agent]['action_mask'])")
        return np.asarray(inner, dtype=np.int8)[self.actions]

    def _encoded(self, raw) -> np.ndarray:
        board = np.asarray(self.encode(raw))
        if board.shape != (self.n_cells,) or not np.issubdtype(board.dtype, np.integer):
            raise ValueError(f"{self.name}: encode must return {self.n_cells} integers, got an array of shape "
                             f"{board.shape} and dtype {board.dtype}")
        if board.size and (board.min() < 0 or board.max() >= self.n_cell_values):
            raise ValueError(f"{self.name}: encode returned cell values outside 0..{self.n_cell_values - 1}: "
                             f"{board.tolist()}")
        return board.astype(np.int32)

    def _afterstate_of(self, raw, a: int) -> AdaptedAfterstate:
        if self._cache_position != self._position:
            self._cache = {}
            self._cache_board = self._encoded(raw)
            self._cache_position = self._position
        if a in self._cache:
            return self._cache[a]
        twin = self._twin(raw)
        if twin is raw:
            raise AdapterMismatchError(f"{self.name}: clone returned the env itself; it must return a copy")
        if not np.array_equal(self._encoded(twin), self._cache_board) or twin.agent_selection != raw.agent_selection:
            self._check_env_untouched(raw)
            raise AdapterMismatchError(
                f"{self.name}: action {a}: the copy made to look ahead is not in the env's position "
                f"(copy: {self._encoded(twin).tolist()}, {twin.agent_selection} to move; env: "
                f"{self._cache_board.tolist()}, {raw.agent_selection} to move). copy.deepcopy of an EzPickle "
                f"env returns a fresh env: use clone/restore that copy the position")
        mover = raw.agent_selection
        twin.step(int(self.actions[a]))
        after = AdaptedAfterstate(a, mover, self._encoded(twin),
                                  {ag: float(twin.rewards.get(ag, 0.0)) for ag in self.possible_agents},
                                  _game_over(twin))
        self._cache[a] = after
        return after

    def _check_env_untouched(self, raw) -> None:
        if not np.array_equal(self._encoded(raw), self._cache_board):
            raise AdapterMismatchError(
                f"{self.name}: stepping a copy changed the env itself (the copy shares the env's board): "
                f"clone/restore must copy the position, not reference it")

    def _check_step(self, raw, expected: AdaptedAfterstate) -> None:
        """The step just played must reach the afterstate the copy predicted."""
        board = self._encoded(raw)
        rewards = {ag: float(raw.rewards.get(ag, 0.0)) for ag in self.possible_agents}
        terminal = _game_over(raw)
        problems = []
        if not np.array_equal(board, expected.board):
            problems.append(f"board {board.tolist()}, predicted {expected.board.tolist()}")
        if rewards != expected.rewards:
            problems.append(f"rewards {rewards}, predicted {expected.rewards}")
        if terminal != expected.terminal:
            problems.append(f"game over {terminal}, predicted {expected.terminal}")
        if problems:
            raise AdapterMismatchError(
                f"{self.name}: action {expected.action} (the env's {int(self.actions[expected.action])}) by "
                f"{expected.player} reached another position than its copy predicted: {'; '.join(problems)}. "
                f"The copy (clone/restore) or encode is wrong")
