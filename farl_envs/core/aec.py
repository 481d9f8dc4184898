"""One PettingZoo AEC environment class for every farl game.

:class:`FarlAECEnv` turns a :class:`~farl_envs.core.spec.GameSpec` into a
standard turn-based PettingZoo environment (``agent_iter`` / ``last`` /
``step``) and adds the **afterstate extension**:

* ``afterstate(action)`` — the deterministic result and reward tuple of a
  legal action, without stepping the environment;
* ``afterstates()`` — the same for every legal action;
* ``infos[agent]["afterstate"]``, the record of ``agent``'s last step (and, in
  games with chance, ``infos[agent]["chance"]``, the random event that followed:
  2048's ``(cell, tile)``, see ``GameSpec.chance_info``);
* ``get_state()`` / ``set_state(state)`` to read or start from any position;
* ``board()`` — the current position in n-tuple cells (for Q(s, a) learners).

Every agent's ``infos`` hold the same keys at every ``last()``, none of them
``None`` (libraries that stack infos into arrays, Tianshou's replay buffer,
turn a missing key into NaN and stop):

* ``"afterstate"``: an :class:`~farl_envs.core.afterstate.Afterstate`; before
  the agent's first move, and after an illegal move under ``"penalize"``, its
  ``action`` is -1 and it holds the position as it is (zero rewards before the
  first move; the ended game and its rewards after an illegal one);
* ``"illegal_move"``: True only after an illegal move under ``"penalize"``;
* ``"chance"`` (games with chance only): the event as ``chance_info`` shows it,
  or the same shape with -1 for every number when no event followed (before
  the agent's first move, or after a move that ended the game).

``state()`` is a global state for centralised learners (PettingZoo's
``state_space`` / ``state()``): ``player_0``'s observation planes, flattened,
then a one-hot of the seat to move.

A game that ends by a move cap outside its rules (``GameSpec.truncated``:
Chinese Checkers' ``max_moves``, Lines of Action's ``max_game_length``) ends
with every agent *truncated*, not terminated, as Gymnasium's convention has it;
every other end of a game is a termination.

Errors follow one policy everywhere: ``ValueError`` for a bad value (an
illegal action, an impossible position, a parameter out of range),
``TypeError`` for a value of the wrong type (``set_state(None)``), and
``RuntimeError("call reset() first ...")`` for any use before the first
``reset`` (or ``set_state``).

Turn bookkeeping, illegal moves, the action mask and players who drop out
of an N-player game while the others play on (``GameSpec.eliminated``: the
agent is terminated, gets its dead step and leaves ``agents``) are handled
here once, so a game module holds nothing but its rules.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from farl_envs.core.afterstate import Afterstate
from farl_envs.core.render import ACCEPTED_RENDER_MODES, RENDER_MODES, HumanWindow, render_rgb
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

ILLEGAL_ACTION_MODES = ("raise", "penalize")


def integral_action(action) -> int | None:
    """``action`` as an int when it is a whole number (int, numpy integer, integral float or 0-d array), else None.

    ``"3"``, ``1.5``, ``inf``, ``None``, booleans (Python's or numpy's, whose
    ``int()`` would be 0 or 1) and arrays of several numbers are not actions:
    the envs treat them as illegal moves, never as the nearest move.
    """
    if isinstance(action, (str, bytes, bool)) or action is None:
        return None
    dtype = getattr(action, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind == "b":  # np.True_, np.array(True)
        return None
    try:
        a = int(action)
    except (TypeError, ValueError, OverflowError):
        return None
    try:
        return a if a == action else None
    except (TypeError, ValueError):  # an array of several numbers
        return None


def _blank(value):
    """``value`` with -1 in place of every number, keeping its dicts, tuples and lists: a chance event's shape
    when no event happened."""
    if isinstance(value, dict):
        return {k: _blank(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_blank(v) for v in value)
    return -1


class FarlAECEnv(AECEnv):
    """A farl game as a PettingZoo AEC environment.

    Args:
        game: the game's spec (see each game module's ``make_spec``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text),
            ``"human"`` (a pygame window redrawn after each step; ``pip install
            "farl-rl[render]"``; advertised in ``metadata["render_modes"]`` only when
            pygame can be imported, so checkers that try every mode pass without it)
            or ``"rgb_array"``.
        illegal_action: ``"raise"`` (default) raises ``ValueError`` naming the
            legal actions and leaves the state untouched; ``"penalize"``
            follows the PettingZoo classic convention: the mover gets -1,
            everybody else 0, and the game ends.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "farl", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: GameSpec, render_mode: str | None = None, illegal_action: str = "raise"):
        super().__init__()
        if render_mode is not None and render_mode not in ACCEPTED_RENDER_MODES:
            raise ValueError(f"render_mode must be one of {list(ACCEPTED_RENDER_MODES)} or None, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.possible_agents = game.agents()
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, game.obs_high, game.obs_shape, dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (game.n_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.n_actions) for a in self.possible_agents}
        self._mask = np.zeros(game.n_actions, dtype=np.int8)
        self._no_mask = np.zeros(game.n_actions, dtype=np.int8)
        self._reward_buf = np.zeros(game.n_players, dtype=np.float64)
        self._rng = None
        self._state = None
        self._to_move, self._over = 0, False  # the position's mover and end, kept by _after_move
        self._window = HumanWindow(game.id, self.metadata["render_fps"]) if render_mode == "human" else None
        self._no_chance = None
        if game.has_chance:
            self._no_chance = _blank(game.chance_info(0) if game.chance_info is not None else 0)

    # ------------------------------------------------------------------ API
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def state_space(self) -> spaces.Box:
        """The space of :meth:`state`: ``int8[prod(obs_shape) + n_players]``."""
        game = self.game
        return spaces.Box(0, max(1, game.obs_high), (int(np.prod(game.obs_shape)) + game.n_players,), dtype=np.int8)

    def state(self) -> np.ndarray:
        """A global state of the game for centralised learners: ``player_0``'s observation planes, flattened,
        then a one-hot of the seat to move.

        The observation planes are the encoding the agents see; seen from one fixed
        seat and with the mover added they describe the position for everybody.
        """
        self._require_game()
        game = self.game
        planes = np.zeros(game.obs_shape, dtype=np.int8)
        game.observe(game.p, self._state, 0, planes)
        out = np.zeros(planes.size + game.n_players, dtype=np.int8)
        out[:planes.size] = planes.ravel()
        out[planes.size + self._to_move] = 1
        return out

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start a new game; ``options={"state": s}`` starts from position ``s``."""
        if seed is not None or self._rng is None:
            self._rng = make_rng(seed)
        if options and "state" in options:
            state = self._checked_state(options["state"])
        else:
            state = self.game.initial_state(self.game.p, self._rng)
        self._start_from(state)

    def step(self, action):
        self._require_game()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._legal_or_none(action)
        self._cumulative_rewards[agent] = 0
        if a is None:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action!r} for {agent}; legal actions: {self.legal_actions()}")
            self._penalize(agent)
            return
        game = self.game
        nxt = self._state.copy()  # played in place (a kernel's ``out`` may be its ``s``): cheaper than empty_like
        game.afterstate(game.p, nxt, a, nxt, self._reward_buf)
        every_seat = dict(zip(self.possible_agents, self._reward_buf.tolist()))
        if len(self.agents) == len(every_seat):  # nobody eliminated: the same agents in the same order
            self.rewards = every_seat.copy()
        else:
            self.rewards = {ag: every_seat[ag] for ag in self.agents}
        info = {"afterstate": self._record(a, agent, nxt.copy(), every_seat), "illegal_move": False}
        if game.has_chance:
            info["chance"] = self._no_chance
            if not nxt[TERMINAL]:
                code = int(game.chance(game.p, nxt, self._rng))
                if code >= 0:
                    info["chance"] = game.chance_info(code) if game.chance_info is not None else code
        self.infos[agent] = info
        self._state = nxt
        self._accumulate_rewards()
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        if self._state is None:
            self._require_game()
        seat = self._seat.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        game = self.game
        obs = np.zeros(game.obs_shape, dtype=np.int8)
        game.observe(game.p, self._state, seat, obs)
        # the mover's seat and the game's end as Python values (set by _after_move): no numpy scalars per call
        on_move = seat == self._to_move and not self._over and not self.terminations.get(agent)
        return {"observation": obs, "action_mask": (self._mask if on_move else self._no_mask).copy()}

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=... to the constructor")
            return None
        self._require_game()
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, self._state)
        if self.render_mode == "human":
            self._window.show(render_rgb(self.game, self._state))
            return None
        return self.game.render_text(self.game.p, self._state)

    def close(self):
        if self._window is not None:
            self._window.close()

    # ---------------------------------------------------- afterstate extension
    def afterstate(self, action) -> Afterstate:
        """The deterministic result of ``action`` for the agent to move, without stepping.

        Raises ``ValueError`` if the action is illegal or the game is over.
        """
        self._require_game()
        a = self._legal_or_none(action)
        if a is None:
            raise ValueError(f"illegal action {action!r}; legal actions: {self.legal_actions()}")
        return self._afterstate_of(a)

    def afterstates(self) -> dict:
        """``{action: Afterstate}`` for every legal action of the agent to move."""
        self._require_game()
        return {a: self._afterstate_of(a) for a in self._legal_list()}

    def board(self) -> np.ndarray:
        """The current position in n-tuple cell encoding (``int32[n_cells]``); learners of Q(s, a) read it."""
        self._require_game()
        out = np.empty(self.game.n_cells, dtype=np.int32)
        self.game.board(self.game.p, self._state, out)
        return out

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move (empty when the game is over)."""
        self._require_game()
        return self._legal_list()

    def action_mask(self) -> np.ndarray:
        """``int8`` mask of the legal actions of the agent to move."""
        self._require_game()
        return self._mask.copy()

    def get_state(self) -> np.ndarray:
        """A copy of the flat kernel state of the current position."""
        self._require_game()
        return self._state.copy()

    def set_state(self, state) -> None:
        """Continue from ``state`` (a legal position of this game) with fresh rewards.

        Raises ``ValueError`` with the reason when ``state`` is not a legal
        position. The random generator is kept.
        """
        if self._rng is None:
            self._rng = make_rng(None)
        self._start_from(self._checked_state(state))

    @property
    def state_array(self) -> np.ndarray:
        """The current kernel state (read-only view; do not modify)."""
        self._require_game()
        v = self._state.view()
        v.flags.writeable = False
        return v

    def last(self, observe: bool = True):
        if self._state is None:
            self._require_game()
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    # -------------------------------------------------------------- helpers
    def _require_game(self) -> None:
        if self._state is None:
            raise RuntimeError(f"{self.game.id}: call reset() first: the environment has no game yet")

    def _afterstate_of(self, a: int) -> Afterstate:
        game = self.game
        out = self._state.copy()
        rew = np.zeros(game.n_players, dtype=np.float64)
        game.afterstate(game.p, out, a, out, rew)
        agents = self.possible_agents
        return self._record(a, agents[int(self._state[TO_MOVE])], out,
                            {agents[i]: float(rew[i]) for i in range(game.n_players)})

    def _record(self, a: int, agent: str, state: np.ndarray, rewards: dict) -> Afterstate:
        board = np.empty(self.game.n_cells, dtype=np.int32)
        self.game.board(self.game.p, state, board)
        return Afterstate(a, agent, state, board, rewards)

    def _checked_state(self, state) -> np.ndarray:
        raw = np.asarray(state) if not isinstance(state, (str, bytes)) else None
        if raw is None or raw.dtype.kind not in "biuf":
            raise TypeError(f"{self.game.id}: a state is an array of integers, got {type(state).__name__}")
        if raw.size and (raw.min() < np.iinfo(np.int32).min or raw.max() > np.iinfo(np.int32).max):
            raise ValueError(f"{self.game.id}: state entries must fit in int32, got {raw.min()}..{raw.max()}")
        s = np.array(raw, dtype=np.int32, copy=True)
        if s.ndim != 1 or s.shape[0] != self.game.state_size:
            raise ValueError(f"{self.game.id}: a state is a 1-D array of length {self.game.state_size}, "
                             f"got shape {s.shape}")
        if not np.array_equal(s, np.asarray(state)):
            raise ValueError(f"{self.game.id}: state entries must be integers")
        reason = self.game.validate(self.game.p, s)
        if reason:
            raise ValueError(f"{self.game.id}: not a legal position: {reason}")
        return s

    def _start_from(self, state: np.ndarray) -> None:
        self._state = state
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info_without_move(a) for a in self.agents}
        self._after_move()

    def _info_without_move(self, agent: str, rewards: dict | None = None, illegal: bool = False) -> dict:
        """The infos of an agent whose last step was no move: before its first one (zero rewards), or an
        illegal move under ``"penalize"``; the record holds the position as it is, with action -1."""
        if rewards is None:
            rewards = dict.fromkeys(self.possible_agents, 0.0)
        info = {"afterstate": self._record(-1, agent, self._state.copy(), rewards), "illegal_move": illegal}
        if self.game.has_chance:
            info["chance"] = self._no_chance
        return info

    def _after_move(self) -> None:
        s = self._state
        self._to_move = int(s[TO_MOVE])
        self._over = bool(s[TERMINAL])
        self.agent_selection = self.possible_agents[self._to_move]
        self.game.legal_actions(self.game.p, s, self._mask)
        if self._over:
            if self.game.truncated is not None and self.game.truncated(self.game.p, s):
                self.truncations = {a: True for a in self.agents}  # a move cap outside the rules
            else:
                self.terminations = {a: True for a in self.agents}
        elif self.game.eliminated is not None:
            self._mark_eliminated()

    def _mark_eliminated(self) -> None:
        """Terminate the agents that just dropped out; each takes its dead step before play goes on."""
        out = [self.possible_agents[i] for i in self.game.eliminated(self.game.p, self._state)]
        newly = [a for a in out if a in self.terminations and not self.terminations[a]]
        for a in newly:
            self.terminations[a] = True
        if newly:
            self._deads_step_first()

    def _legal_list(self) -> list[int]:
        """The legal actions as Python ints, increasing. ``mask != 0`` first: numpy finds the nonzero entries of a
        bool array in one vectorised pass but calls a function per entry of an int8 one (Lines of Action's 8192
        entries: ~9 µs instead of ~1.5 µs)."""
        return np.flatnonzero(self._mask != 0).tolist()

    def _legal_or_none(self, action):
        if type(action) is int:  # the common case, without integral_action's checks (a per-step cost)
            return action if 0 <= action < self.game.n_actions and self._mask[action] else None
        a = integral_action(action)
        if a is None or not 0 <= a < self.game.n_actions or not self._mask[a]:
            return None
        return a

    def _penalize(self, agent: str) -> None:
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self._state = self._state.copy()
        self._state[TERMINAL] = 1
        every_seat = {a: (-1.0 if a == agent else 0.0) for a in self.possible_agents}
        self.infos[agent] = self._info_without_move(agent, every_seat, illegal=True)
        self._over = True
        self._mask[:] = 0
        self.terminations = {a: True for a in self.agents}
        self._accumulate_rewards()
