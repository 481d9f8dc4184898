"""``NemeshAgent``: Shalita, Saranga & Haim 2013's linear-feature SARSA agent as a harness player, with its agent file.

>>> from farl_agents.nemesh import NemeshAgent, train_preset          # doctest: +SKIP
>>> agent = NemeshAgent(rows=6, cols=8, depth=3)
>>> train_preset(agent, "quick")                                    # compiled SARSA sessions
>>> agent.save("nemesh.npz"); NemeshAgent.load("nemesh.npz")

The agent plays with :func:`farl_agents.nemesh.search.choose_move` (forced
moves, then alpha-beta at ``depth`` plies with the weights of the seat it
sits in) and draws every random choice from the harness's ``rng``.

File layout (format ``farl-nemesh-agent``, version 1; written atomically, read
through :class:`~farl_agents.safe_files.NpzFile`: these three members and no
other, none larger than its layout, no pickled objects):

==============  ===============================================================
``meta``        JSON: format, version, farl version, game and parameters,
                settings (depth, alpha0, gamma, seed), ``games_done``,
                ``progress`` (the trainer's place in its curriculum), ``extra``
``weights``     ``float64[2, 36]``: player 1's weights, player 2's weights
``rng``         ``uint64[1]``: the training stream (exact resumption)
==============  ===============================================================
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_file
from farl_agents.config_flags import check_field_types
from farl_agents.nemesh.features import N_FEATURES, features
from farl_agents.nemesh.learner import ALPHA0, GAMMA, initial_weights
from farl_agents.nemesh.search import SearchScratch, choose_move
from farl_agents.safe_files import AgentFileError, NpzFile
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

FORMAT = "farl-nemesh-agent"
VERSION = 1
MAX_DEPTH = 8


class NemeshFileError(AgentFileError):
    """The file is not a readable Nemesh agent (corrupt, foreign, wrong shapes or another game); an
    :class:`~farl_agents.safe_files.AgentFileError` like every family's."""


LIMITS = {"weights": 2 * N_FEATURES * 8, "rng": 8}
"""The most bytes each array member of a Nemesh file may take (its layout's); ``meta`` is bounded by the reader."""


@dataclass(frozen=True)
class NemeshSettings:
    """The settings saved with a Nemesh agent."""

    depth: int = 3
    """Plies the alpha-beta search looks ahead when the agent plays (the report trains at 3, 4, 5)."""
    alpha0: float = ALPHA0
    """alpha0 of the learning rate alpha0 / (1 + T0 + turn)."""
    gamma: float = GAMMA
    """Discount rate (the report: 0.8)."""
    seed: int = 0
    """Seed of the training stream."""

    def __post_init__(self):
        check_field_types(self)  # TypeError / ValueError naming the field (alpha0=True, gamma=nan, ...)
        if isinstance(self.depth, bool) or not isinstance(self.depth, (int, np.integer)) \
                or not 1 <= self.depth <= MAX_DEPTH:
            raise ValueError(f"depth must be an integer in 1..{MAX_DEPTH}, got {self.depth!r}")
        if not (isinstance(self.alpha0, (int, float)) and 0 < self.alpha0 <= 10):
            raise ValueError(f"alpha0 must be a number in (0, 10], got {self.alpha0!r}")
        if not (isinstance(self.gamma, (int, float)) and 0 <= self.gamma <= 1):
            raise ValueError(f"gamma must be in [0, 1], got {self.gamma!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")


def connect_four(rows: int = 6, cols: int = 7) -> GameSpec:
    """The Connect Four spec (``ValueError`` naming the allowed range for bad sizes)."""
    return farl_envs.game_spec("connect_four", rows=rows, cols=cols)


class NemeshAgent:
    """Shalita, Saranga & Haim 2013's agent: two 36-weight linear evaluations (one per seat) and a depth-limited search.

    Args:
        rows, cols: the Connect Four board (4..10 each; the report plays 6x8).
        depth, alpha0, gamma, seed: see :class:`NemeshSettings`.
        weights: start from these ``float64[2, 36]`` weights instead of the
            report's signed initial weights.
    """

    def __init__(self, rows: int = 6, cols: int = 7, depth: int = 3, alpha0: float = ALPHA0,
                 gamma: float = GAMMA, seed: int = 0, weights=None):
        self.game = connect_four(rows, cols)
        self.settings = NemeshSettings(depth=depth, alpha0=float(alpha0), gamma=float(gamma), seed=seed)
        self.weights = initial_weights() if weights is None else np.array(weights, dtype=np.float64)
        if self.weights.shape != (2, N_FEATURES):
            raise ValueError(f"weights must have shape (2, {N_FEATURES}), got {self.weights.shape}")
        self.rng = make_rng(seed)
        self.games_done = 0
        self.progress: dict = {}
        self.extra: dict = {}
        self._scratch = None

    @property
    def depth(self) -> int:
        return self.settings.depth

    @property
    def name(self) -> str:
        """``nemesh-d<depth>`` unless a label was set (tables that show several Nemesh players)."""
        return self.__dict__.get("_label") or f"nemesh-d{self.depth}"

    @name.setter
    def name(self, label: str) -> None:
        self._label = str(label)

    def scratch(self, depth: int | None = None) -> SearchScratch:
        """Search buffers for ``depth`` plies (reused between moves)."""
        depth = self.depth if depth is None else depth
        if self._scratch is None or self._scratch.max_depth < depth:
            rows, cols = self.game.params["rows"], self.game.params["cols"]
            self._scratch = SearchScratch(rows, cols, max(depth, self.depth))
        return self._scratch

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_scratch"] = None  # rebuilt on demand; keeps pickles (worker processes) small
        return state

    # ------------------------------------------------------------ playing
    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        """The agent's move in ``state`` (harness protocol): forced moves, else the search's best."""
        if game.name != "connect_four" or game.params != self.game.params:
            raise ValueError(f"{self.name} plays connect_four {self.game.params}, not {game.name} {game.params}")
        if state[TERMINAL]:
            raise ValueError("no legal move: the game is over")
        seat = int(state[TO_MOVE])
        a, _ = choose_move(self.game.p, state, self.weights[seat], self.depth, 0.0, *self.scratch().arrays(), rng)
        return int(a)

    def afterstate_values(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """The search wrappers' value protocol (:mod:`farl_agents.opponents.value_protocol`), so
        ``agent:nemesh.npz+mcts200`` works: ``float64[n_actions, 2]``, NaN rows for illegal actions.

        For each legal column ``a`` of ``state`` (mover ``m``) the row is ``r(state, a)`` plus, unless the move
        ends the game, ``Q_m = w_m . phi(afterstate)`` for ``m`` and ``-Q_m`` for the opponent. ``Q_m`` is the
        value SARSA fitted to the mover's afterstates (the linear evaluation the alpha-beta search reads at
        its leaves, with the mover's seat weights): the *discounted* (gamma, 0.8 by default) return of ``m``
        in the game's reward units (+1 win, -1 loss), a linear estimate that is neither bounded to [-1, 1] nor
        the undiscounted return the search adds up; the opponent's entry is its negative because Connect Four
        is zero-sum. Features of all the afterstates are computed first, then one product with ``w_m``.
        """
        from farl_agents.opponents.value_protocol import legal_afterstates  # here: importing nemesh stays light

        if game.name != "connect_four" or game.params != self.game.params:
            raise ValueError(f"{self.name} plays connect_four {self.game.params}, not {game.name} {game.params}")
        if state[TERMINAL]:
            raise ValueError("no legal move: the game is over")
        mover = int(state[TO_MOVE])
        actions, afters, rewards, terminal = legal_afterstates(game, state)
        phi = np.zeros((len(actions), N_FEATURES))
        win = np.zeros((2, game.n_cells), dtype=np.int8)
        for k in np.flatnonzero(~terminal):
            features(game.p, afters[k], phi[k], win)
        q = np.where(terminal, 0.0, phi @ self.weights[mover])
        out = np.full((game.n_actions, 2), np.nan)
        out[actions, mover] = rewards[:, mover] + q
        out[actions, 1 - mover] = rewards[:, 1 - mover] - q
        return out

    # ------------------------------------------------------------ files
    def meta(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "farl_version": farl_envs.__version__,
                "game": self.game.name, "game_params": dict(self.game.params), "settings": asdict(self.settings),
                "games_done": int(self.games_done), "progress": self.progress, "extra": self.extra}

    def save(self, path) -> Path:
        """Write the agent to ``path`` (``.npz``) atomically."""
        path = Path(path)
        arrays = {"meta": np.array(json.dumps(self.meta())), "weights": self.weights, "rng": self.rng}
        with atomic_file(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        return path

    @staticmethod
    def load(path, game: GameSpec | None = None) -> "NemeshAgent":
        """Read a Nemesh agent file; ``game``, when given, must be the file's board.

        Raises :class:`NemeshFileError` (an ``AgentFileError``, a ``ValueError``)
        for anything that is not a valid Nemesh agent, ``FileNotFoundError``
        when there is no file.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no Nemesh agent file at {path}")
        try:
            with NpzFile(path, "Nemesh agent file") as f:
                meta = f.meta()
                if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                    found = meta.get("format") if isinstance(meta, dict) else None
                    raise f.error(f"is not a Nemesh agent file (format {found!r}, expected {FORMAT!r})")
                if meta.get("version") != VERSION:
                    raise f.error(f"has Nemesh format version {meta.get('version')}, this farl reads {VERSION}")
                if meta.get("game") != "connect_four":
                    raise f.error(f"is not a Nemesh agent file: field 'game' must be 'connect_four', "
                                  f"got {meta.get('game')!r}")
                arrays = f.arrays({"meta": f.members["meta"].nbytes, **LIMITS})
        except AgentFileError as exc:
            raise NemeshFileError(str(exc)) from None
        try:
            params = meta["game_params"]
            agent = NemeshAgent(rows=params["rows"], cols=params["cols"], **meta["settings"])
            agent.games_done = int(meta.get("games_done", 0))
            agent.progress = dict(meta.get("progress") or {})
            agent.extra = dict(meta.get("extra") or {})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise NemeshFileError(f"{path}: inconsistent Nemesh agent description ({exc})") from None
        if game is not None and (game.name != "connect_four" or game.params != agent.game.params):
            raise NemeshFileError(f"{path} plays connect_four {agent.game.params}, not {game.name} {game.params}")
        weights, rng = arrays.get("weights"), arrays.get("rng")
        if weights is None or weights.shape != (2, N_FEATURES) or weights.dtype != np.float64 \
                or not np.all(np.isfinite(weights)):
            raise NemeshFileError(f"{path}: weights must be finite float64 of shape (2, {N_FEATURES})")
        if rng is None or rng.shape != (1,) or rng.dtype != np.uint64:
            raise NemeshFileError(f"{path}: bad rng (expected uint64 of shape (1,))")
        agent.weights[...] = weights
        agent.rng[:] = rng
        return agent

    def __repr__(self) -> str:
        p = self.game.params
        return f"NemeshAgent({p['rows']}x{p['cols']}, depth={self.depth}, games_done={self.games_done})"


def load_nemesh(path, game: GameSpec | None = None) -> NemeshAgent:
    """Same as :meth:`NemeshAgent.load`."""
    return NemeshAgent.load(path, game)

