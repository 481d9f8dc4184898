"""The descent agent: a harness player over the learned f_θ, and its file format.

A :class:`DescentAgent` plays with one of the searches of this package:

``ubfms``    UBFM with completion and the safe decision (Alg. 10-11; the seed's
             choice for playing after learning)
``ubfm``     UBFM with completion, best decision (Alg. 1 + 9)
``descent``  descent with completion (Alg. 9)
``id``       iterative-deepening alpha-beta with move ordering
``ab``       fixed-depth alpha-beta (the tournament's match player)

with a budget of ``iterations`` or ``seconds`` per move (``depth`` for
``ab``). The tree search keeps its table for the whole game (UBFMs counts
selections "since the beginning of the game"); ``reset()`` clears it.

In a game whose turn is several decisions (Amazons, see
:mod:`farl_agents.descent.expand`) the search chooses a whole turn once, at
its first decision, and ``act`` then plays the turn's remaining actions at the
next calls (each kept under the state it expects, so any other state, e.g. a
new game or a turn begun by someone else, searches afresh).

File (format ``farl-descent-agent``, version 1): ``.npz`` with ``meta`` (JSON:
format, version, game, heuristic, evaluation settings, training settings) and
the evaluation's arrays: for the n-tuple f_θ ``weights`` (``float32[1, 1, lut]``)
and ``tuples`` (``int32[m, n]``), for the conv net one ``conv/<layer>`` array
per parameter; written atomically, read through
:class:`~farl_agents.safe_files.NpzFile`: the metadata first, then only the
members that network has, none larger than it needs (:func:`member_limits`,
from the zip directory and the ``.npy`` headers, before anything is
decompressed), and every shape checked against the network the metadata
describes. Every problem is an :class:`~farl_agents.safe_files.AgentFileError`.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file
from farl_agents.descent.alphabeta import AlphaBeta
from farl_agents.descent.evaluation import evaluation_from_file
from farl_agents.descent.expand import TURN_DECISIONS, Expander
from farl_agents.descent.heuristics import make_heuristic
from farl_agents.descent.search import TreeSearch
from farl_agents.opponents.value_protocol import legal_afterstates
from farl_agents.safe_files import AgentFileError, Member, NpzFile

FORMAT = "farl-descent-agent"
VERSION = 1
PLAY_SEARCHES = ("ubfms", "ubfm", "descent", "id", "ab")


class DescentAgent:
    """A harness player (``act(game, state, rng)``) using f_θ with a chosen search."""

    def __init__(self, game, evaluation, heuristic, search: str = "ubfms", iterations: int | None = None,
                 seconds: float | None = None, depth: int = 2, name: str | None = None, info: dict | None = None):
        if search not in PLAY_SEARCHES:
            raise ValueError(f"search must be one of {', '.join(PLAY_SEARCHES)}, got {search!r}")
        if search in ("ubfms", "ubfm", "descent", "id") and iterations is None and seconds is None:
            iterations = 200 if search != "id" else None
            seconds = 0.1 if search == "id" else None
        self.game = game
        self.evaluation = evaluation
        self.heuristic = heuristic
        self.search = search
        self.iterations = iterations
        self.seconds = seconds
        self.depth = int(depth)
        self.info = dict(info or {})
        budget = f"d{depth}" if search == "ab" else (f"{iterations}it" if iterations else f"{seconds}s")
        self.name = name or f"descent-agent[{search} {budget}]"
        self._engine = None
        self._expander = None  # completes half-made turns for afterstate_values (Amazons)
        self._plan = {}  # expected state bytes -> the next action of the turn being played

    def _make_engine(self):
        if self.search in ("id", "ab"):
            return AlphaBeta(self.game, self.evaluation, self.heuristic)
        algorithm = "descent" if self.search == "descent" else "ubfm"
        decision = "safest" if self.search == "ubfms" else "best"
        return TreeSearch(self.game, self.evaluation, self.heuristic, algorithm, True, decision)

    def reset(self) -> None:
        self._plan = {}
        if self._engine is not None:
            self._engine.clear()

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_engine"] = None
        d["_expander"] = None
        d["_plan"] = {}
        return d

    def with_search(self, search: str, **budget) -> "DescentAgent":
        """The same f_θ with another search / budget (shares the evaluation)."""
        return DescentAgent(self.game, self.evaluation, self.heuristic, search, info=self.info,
                            name=budget.pop("name", None), **budget)

    def act(self, game, state, rng) -> int:
        if self._engine is None:
            self._engine = self._make_engine()
        eng = self._engine
        state = np.ascontiguousarray(state, dtype=np.int32)
        planned = self._plan.pop(state.tobytes(), None)
        if planned is not None:
            return planned
        if self.search == "ab":
            move = eng.search(state, depth=self.depth)[0]
        elif self.search == "id":
            move = eng.search(state, seconds=self.seconds if self.seconds else 0.1)[0]
        else:
            move = eng.act(state, self.iterations, self.seconds)
        actions = eng.expander.decode(move)
        self._plan = {}
        if len(actions) > 1:  # a whole turn: remember its later actions under the states they follow
            g = self.game
            s = state.copy()
            rewards = np.zeros(g.n_players)
            for a, nxt in zip(actions[:-1], actions[1:]):
                g.afterstate(g.p, s.copy(), a, s, rewards)
                self._plan[s.tobytes()] = nxt
        return actions[0]

    def afterstate_values(self, game, state) -> np.ndarray:
        """The search wrappers' value protocol (:mod:`farl_agents.opponents.value_protocol`), so
        ``agent:descent.npz+mcts200`` works: ``float64[n_actions, 2]``, NaN rows for illegal actions.

        For each legal action ``a`` of ``state`` the row is ``r(state, a)`` plus, unless the move ends the game,
        ``(R v, -R v)`` with ``v = f_θ(afterstate) / scale``: f_θ is the first player's value of the position
        (all searches of this family read it so), in units of the training heuristic bounded by its ``scale``,
        so ``v`` lies in [-1, 1]; ``R`` is the largest reward the game gives (1 in every two-player game of
        farl), and the second player's value is the negative (descent plays two-player zero-sum games only).
        With the ``classic`` heuristic f_θ estimates the result w itself, so the row is the expected return;
        the other heuristics rank positions by the result and more (``depth-add``: quicker wins, ``score``: the
        final disc difference), so their ``v`` is a proxy of the return on the same scale, not the return.

        In a game whose turn is several decisions (Amazons) an afterstate in the middle of the mover's turn is
        a position f_θ never learnt; it is valued by the mover's best completion of the turn instead (the
        completed turns valued by f_θ, or by their result when they end the game). All the positions of one
        call are valued by one batched f_θ call.
        """
        if game.name != self.game.name or dict(game.params) != dict(self.game.params):
            raise ValueError(f"{self.name} plays {self.game.name} {self.game.params}, not {game.name} {game.params}")
        if state[1]:
            raise ValueError("no legal move: the game is over")
        mover = int(state[0])
        actions, afters, rewards, terminal = legal_afterstates(game, state)
        reach = max(abs(float(x)) for x in game.reward_range)
        turns = TURN_DECISIONS.get(game.name, 1) > 1
        rows, owner, known = [], [], []  # the positions to value, the action each belongs to, results known
        for k in np.flatnonzero(~terminal):
            if turns and int(afters[k, 0]) == mover:  # a half-made turn: its completions
                if self._expander is None:
                    self._expander = Expander(self.game)
                _, _, turn_boards, turn_end, result, _ = self._expander(afters[k])
                rows.extend(turn_boards)
                owner.extend([k] * len(turn_end))
                known.extend(np.where(turn_end != 0, result, np.nan))
            else:
                rows.append(self.game_board(afters[k]))
                owner.append(k)
                known.append(np.nan)
        v0 = np.zeros(len(actions))  # v of each action's afterstate, first player's view, in [-1, 1]
        if rows:
            known = np.array(known, dtype=np.float64)
            need = np.flatnonzero(np.isnan(known))
            if len(need):
                known[need] = self.evaluation.values(np.stack(rows)[need]) / self.evaluation.scale
            sign = 1.0 if mover == 0 else -1.0
            best = {}
            for j, k in enumerate(owner):  # the mover's best completion; one entry for an ordinary afterstate
                if k not in best or sign * known[j] > sign * best[k]:
                    best[k] = known[j]
            for k, v in best.items():
                v0[k] = v
        out = np.full((game.n_actions, 2), np.nan)
        out[actions, 0] = rewards[:, 0] + reach * v0
        out[actions, 1] = rewards[:, 1] - reach * v0
        return out

    def game_board(self, state) -> np.ndarray:
        """The n-tuple board of kernel ``state`` (what f_θ reads)."""
        out = np.zeros(self.game.n_cells, dtype=np.int32)
        self.game.board(self.game.p, state, out)
        return out

    def __repr__(self) -> str:
        return f"DescentAgent({self.name!r})"

    # ------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write the agent file atomically (see the module docstring)."""
        save_agent(path, self.game, self.evaluation, self.heuristic.name, self.info)


def save_agent(path, game, evaluation, heuristic_name: str, info: dict) -> None:
    """Write an agent file of ``evaluation`` (f_θ) for ``game`` atomically (see the module docstring)."""
    meta = {"format": FORMAT, "version": VERSION, "game": game.name, "game_params": game.params,
            "heuristic": heuristic_name,
            "evaluation": evaluation.meta(), "info": info}
    arrays = {"meta": np.array(json.dumps(meta)), **evaluation.arrays()}
    with atomic_file(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def read_agent_file(path, game=None):
    """``(meta, GameSpec, evaluation, heuristic, arrays)`` of an agent file; :class:`AgentFileError` (a
    ``ValueError``) if it is not one, or not one for ``game`` (a GameSpec) when given."""
    import farl_envs

    path = Path(path)
    if not path.is_file():
        raise AgentFileError(f"{path}: no such agent file")
    with NpzFile(path, "readable descent agent file") as f:
        meta = f.meta()
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else None
            raise AgentFileError(f"{path}: not a descent agent file (format {found!r})")
        if meta.get("version") != VERSION:
            raise AgentFileError(f"{path}: descent agent file version {meta.get('version')} is not supported "
                                 f"(want {VERSION})")
        for key, kind in (("game", str), ("game_params", dict), ("heuristic", str), ("evaluation", dict)):
            if not isinstance(meta.get(key), kind):
                raise AgentFileError(f"{path}: descent agent file field {key!r} is "
                                     f"{'missing' if key not in meta else repr(meta[key])}")
        try:
            spec = farl_envs.game_spec(meta["game"], **meta["game_params"])
            ev_meta = meta["evaluation"]
            heuristic = make_heuristic(meta["heuristic"], spec)
        except (KeyError, TypeError, ValueError) as exc:
            raise AgentFileError(f"{path}: descent agent file describes no agent ({exc})") from None
        if game is not None and (game.name != spec.name or dict(game.params) != dict(spec.params)):
            raise AgentFileError(f"{path}: agent is for {spec.name} {spec.params}, not {game.name} {game.params}")
        arrays = f.arrays(member_limits(path, spec, ev_meta, f.members))
    try:
        ev = evaluation_from_file(spec, ev_meta, arrays)
    except (KeyError, TypeError, ValueError) as exc:
        raise AgentFileError(f"{path}: {exc}") from None
    return meta, spec, ev, heuristic, arrays


def member_limits(path: Path, game, ev_meta: dict, members: dict[str, Member]) -> dict[str, int]:
    """The members a descent agent file of f_θ ``ev_meta`` on ``game`` may hold and the most bytes each may take.

    n-tuple f_θ: ``tuples`` (its shape read from its ``.npy`` header) and one
    ``float32`` table of ``m x P**n`` entries, refused over the memory limit.
    Conv f_θ: one ``conv/<layer>`` member per parameter of the net its
    settings describe, counted without building it.
    """
    from farl_agents.ntuple.budget import check_network_memory

    limits = {"meta": members["meta"].nbytes}
    kind = ev_meta.get("kind")
    if kind == "ntuple":
        tuples = members.get("tuples")
        if tuples is None or len(tuples.shape) != 2 or tuples.dtype.kind != "i":
            raise AgentFileError(f"{path}: n-tuple array has a bad shape or cells")
        m, n = tuples.shape
        if n > game.n_cells:
            raise AgentFileError(f"{path}: n-tuples of {n} cells on a board of {game.n_cells}")
        try:
            check_network_memory(m, n, game.n_cell_values, 1, 1, False, what="this agent's f_θ")
        except ValueError as exc:
            raise AgentFileError(f"{path}: {exc}") from None
        return {**limits, "tuples": tuples.nbytes, "weights": 4 * m * game.n_cell_values ** n}
    if kind == "conv":
        from farl_agents.descent.evaluation_torch import parameter_shapes

        try:
            shapes = parameter_shapes(game, int(ev_meta["filters"]), int(ev_meta["hidden"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise AgentFileError(f"{path}: conv f_θ settings describe no network ({exc})") from None
        return {**limits, **{f"conv/{k}": 8 * int(np.prod(s)) for k, s in shapes.items()}}
    raise AgentFileError(f"{path}: evaluation kind {kind!r} is not supported")


def load_agent(path, game=None, search: str = "ubfms", **budget) -> DescentAgent:
    """A :class:`DescentAgent` from an agent file (default search UBFMs, 200 iterations per move)."""
    meta, spec, ev, heuristic, _ = read_agent_file(path, game)
    return DescentAgent(spec, ev, heuristic, search, info=meta.get("info", {}),
                        name=budget.pop("name", None) or f"descent:{Path(path).stem}", **budget)
