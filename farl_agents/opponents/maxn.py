"""Max-N search (Luckhardt & Irani 1986; Korf 1991), with chance nodes: the "Max-N d" opponents of Table 1.

Max-N is minimax for N players. Every node carries a value *vector* with one
entry per player; the player to move picks the child whose vector is best in
his own entry. Here a vector is the sum of the reward deltas (the kernels'
``afterstate`` rewards) collected from the searched position onwards, plus
the game's leaf evaluation where the depth limit cuts the game off: a
terminal node is worth the zero vector and an inner node
``max_a [r(s, a) + V(s_a)]`` in the mover's component.

**Chance (expectimax-N).** In a game with chance events (EinStein würfelt
nicht!'s die, 2048's tile) the afterstate of a move is a *chance node*: its
value is the expectation ``sum_i P(i) V(s_a with outcome i)`` over every
outcome, enumerated by the compiled ``chance_outcome_count`` /
``apply_chance_outcome`` its spec declares (:mod:`farl_envs.core.hooks`; the
same outcomes and probabilities as its Python ``chance_outcomes``). This is
Michie's (1966) expectimax with Max-N's vectors at the decision nodes. A
chance node does not count as a ply of the depth.

Choices that make the search well defined and fast:

* **Depth limit** ``depth`` in moves (paper: Max-N10 for TicTacToe, Max-N15
  for Nim and Nim3P). A position reached by the ``depth``-th move that is
  not terminal is valued by the game's heuristic (``GameSpec.heuristic``:
  Sim, Yavalath, Chinese Checkers, EinStein würfelt nicht!, each described in
  its game module; strictly inside (-0.5, 0.5), so a win or
  loss the search sees outweighs it) and by the zero vector ("no reward
  known yet") in the other games or with ``heuristic=False``. In a game with
  chance the cut-off position is the afterstate, before its chance event.
  TicTacToe (9 plies), Nim 3x5 (at most 15 plies) and Sim K6 (15 plies) are
  searched to the end at depth 15, so there Max-N plays perfectly and the
  heuristic never matters.
* **Ties.** Inside the tree the *first* best action (lowest index) is kept,
  so the value of every position is a deterministic function of the position
  (this matters for N > 2, where equal moves for the mover can differ for
  the others). At the root the player draws uniformly among all actions
  whose value is within ``1e-9`` of the best, from the harness's ``rng``.
* **Transposition table.** A fixed-size, always-replace hash table of
  ``cache_size`` slots keyed by a 64-bit hash of the *whole* state; each
  slot stores the state itself, so a hit is verified exactly (no
  false hits). Only decision positions are stored (a 2048 afterstate and a
  position after a tile can be the same array). An entry remembers either
  the height of a fully searched subtree (valid at any remaining depth at
  least that high) or, if the depth limit cut it, the remaining depth it was
  searched with (valid only at exactly that depth). Hence a search with the
  table returns exactly what a search without it would, and the table can be
  kept across moves and games of the same game (it is rebuilt when the
  player meets another game).
* Iterative depth-first search over preallocated per-level buffers in one
  ``@njit(cache=True)`` function that takes the game's kernels and search
  hooks as two values whose numba types name them (one compiled
  specialisation per game, cached on disk, as in
  :mod:`farl_envs.core.playout`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.opponents.leaf_sources import agent_leaf
from farl_agents.opponents.leaf_values import final_value, leaf_value
from farl_agents.opponents.search_hooks import search_kernels
from farl_agents.players import check_search_state
from farl_envs.core.hooks import apply_chance_outcome, chance_outcome_count, has_heuristic, hooks_of
from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.kernels import afterstate, legal_actions
from farl_envs.core.rng import mix64, rng_below
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

TIE_EPS = 1e-9
DECISION, CHANCE = 0, 1
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_LOW32 = np.int64(0xFFFFFFFF)


@njit(cache=True)
def state_hash(s):
    """64-bit hash of an ``int32`` state (FNV-1a over the entries, then a SplitMix finaliser)."""
    h = _FNV_OFFSET
    for i in range(s.shape[0]):
        h = (h ^ np.uint64(np.int64(s[i]) & _LOW32)) * _FNV_PRIME
    return mix64(h)


@njit(cache=True)
def _lookup(s, rem, keys, tstates, theight, trem):
    """Slot of a usable table entry for ``s`` searched ``rem`` plies deep, else -1."""
    h = state_hash(s)
    slot = np.int64(h & np.uint64(keys.shape[0] - 1))
    if keys[slot] != h or theight[slot] == -2:
        return -1
    for i in range(s.shape[0]):
        if tstates[slot, i] != s[i]:
            return -1
    hgt = theight[slot]
    if hgt >= 0:
        return slot if rem >= hgt else -1
    return slot if trem[slot] == rem else -1


@njit(cache=True)
def _store(s, value, height, rem, keys, tstates, tvals, theight, trem):
    h = state_hash(s)
    slot = np.int64(h & np.uint64(keys.shape[0] - 1))
    keys[slot] = h
    for i in range(s.shape[0]):
        tstates[slot, i] = s[i]
    for i in range(value.shape[0]):
        tvals[slot, i] = value[i]
    theight[slot] = height
    trem[slot] = rem


@njit(cache=True)
def _fold(k, vec, child_height, kind, S, prob, best, bestset, height, root_vals, act):
    """Fold the value ``vec`` of the current child into level ``k``.

    A decision level keeps the first best vector for its mover (and records the
    root's action values); a chance level adds ``prob[k] * vec``. Heights:
    ``-1`` once anything below was cut off, else the decision plies to the
    deepest terminal (a decision level adds one, a chance level does not).
    """
    if kind[k] == CHANCE:
        for i in range(vec.shape[0]):
            best[k, i] += prob[k] * vec[i]
        if height[k] >= 0:
            if child_height < 0:
                height[k] = -1
            elif child_height > height[k]:
                height[k] = child_height
        return
    mover = S[k, TO_MOVE]
    if k == 0:
        for i in range(vec.shape[0]):
            root_vals[act[0], i] = vec[i]
    if not bestset[k] or vec[mover] > best[k, mover] + TIE_EPS:
        for i in range(vec.shape[0]):
            best[k, i] = vec[i]
        bestset[k] = True
    if height[k] >= 0:
        if child_height < 0:
            height[k] = -1
        elif child_height + 1 > height[k]:
            height[k] = child_height + 1


@njit(cache=True)
def _open(k, node_kind, rem, kind, dleft, nxt, bestset, height, best):
    kind[k] = node_kind
    dleft[k] = rem
    nxt[k] = 0
    bestset[k] = False
    height[k] = 0
    best[k, :] = 0.0


@njit(cache=True)
def maxn_search(kernels, hooks, leaf, p, root, depth,
                keys, tstates, tvals, theight, trem,
                S, M, nxt, act, best, bestset, height, rew, vec, kind, dleft, nout, prob, root_vals):
    """Expectimax-N values of every legal root action, ``depth`` moves deep.

    ``kernels`` is the game's :func:`~.search_hooks.search_kernels`, ``hooks``
    its :func:`~farl_envs.core.hooks.hooks_of` (heuristic, chance outcomes), ``leaf``
    the leaf evaluation of :mod:`~.leaf_values` (``None``: the heuristic).

    ``root_vals[a]`` receives the value vector of legal action ``a`` (other
    rows are left alone); ``best[0]`` the root's value. The level buffers
    have one row per level: ``depth + 1`` levels without chance, ``2 * depth
    + 1`` with (a chance level after every move); ``S`` one row more.
    ``keys``/``tstates``/``tvals``/``theight``/``trem`` are the transposition
    table of decision positions (``theight == -2`` marks an empty slot).
    Returns the number of positions generated.
    """
    n_actions = M.shape[1]
    for i in range(root.shape[0]):
        S[0, i] = root[i]
    _open(0, DECISION, depth, kind, dleft, nxt, bestset, height, best)
    legal_actions(kernels, p, S[0], M[0])
    nodes = 1
    k = 0
    while True:
        if kind[k] == DECISION:
            a = nxt[k]
            while a < n_actions and M[k, a] == 0:
                a += 1
            if a < n_actions:
                nxt[k] = a + 1
                act[k] = a
                afterstate(kernels, p, S[k], a, S[k + 1], rew[k])
                nodes += 1
                rem = dleft[k] - 1
                if S[k + 1, TERMINAL] != 0:
                    final_value(leaf, p, S[k + 1], vec)  # zero but for an agent trained with shaping
                    for i in range(vec.shape[0]):
                        vec[i] += rew[k, i]
                    _fold(k, vec, 0, kind, S, prob, best, bestset, height, root_vals, act)
                elif rem <= 0:
                    leaf_value(leaf, kernels, hooks, p, S[k + 1], S[k, TO_MOVE], vec)
                    for i in range(vec.shape[0]):
                        vec[i] += rew[k, i]
                    _fold(k, vec, -1, kind, S, prob, best, bestset, height, root_vals, act)
                else:
                    count = chance_outcome_count(hooks, p, S[k + 1])
                    if count > 0:
                        k += 1
                        _open(k, CHANCE, rem, kind, dleft, nxt, bestset, height, best)
                        nout[k] = count
                    else:
                        slot = _lookup(S[k + 1], rem, keys, tstates, theight, trem)
                        if slot >= 0:
                            for i in range(vec.shape[0]):
                                vec[i] = rew[k, i] + tvals[slot, i]
                            _fold(k, vec, theight[slot], kind, S, prob, best, bestset, height, root_vals, act)
                        else:
                            k += 1
                            _open(k, DECISION, rem, kind, dleft, nxt, bestset, height, best)
                            legal_actions(kernels, p, S[k], M[k])
                continue
            if k == 0:
                break
            _store(S[k], best[k], height[k], dleft[k], keys, tstates, tvals, theight, trem)
        else:
            i = nxt[k]
            if i < nout[k]:
                nxt[k] = i + 1
                copy_state(S[k], S[k + 1])
                prob[k] = apply_chance_outcome(hooks, p, S[k + 1], i)
                nodes += 1
                if S[k + 1, TERMINAL] != 0:  # a chance event may end the game (2048)
                    vec[:] = 0.0
                    _fold(k, vec, 0, kind, S, prob, best, bestset, height, root_vals, act)
                    continue
                slot = _lookup(S[k + 1], dleft[k], keys, tstates, theight, trem)
                if slot >= 0:
                    _fold(k, tvals[slot], theight[slot], kind, S, prob, best, bestset, height, root_vals, act)
                else:
                    k += 1
                    _open(k, DECISION, dleft[k - 1], kind, dleft, nxt, bestset, height, best)
                    legal_actions(kernels, p, S[k], M[k])
                continue
        # level k is complete: hand its value to level k - 1
        k -= 1
        if kind[k] == DECISION:
            for i in range(vec.shape[0]):
                vec[i] = rew[k, i] + best[k + 1, i]
        else:
            for i in range(vec.shape[0]):
                vec[i] = best[k + 1, i]
        _fold(k, vec, height[k + 1], kind, S, prob, best, bestset, height, root_vals, act)
    return nodes


@njit(cache=True)
def _pick_best(root_vals, mask, mover, rng):
    """Uniform choice among the legal actions within ``TIE_EPS`` of the best for ``mover``."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and root_vals[a, mover] > top:
            top = root_vals[a, mover]
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] and root_vals[a, mover] >= top - TIE_EPS:
            count += 1
    k = rng_below(rng, count)
    for a in range(mask.shape[0]):
        if mask[a] and root_vals[a, mover] >= top - TIE_EPS:
            if k == 0:
                return a
            k -= 1
    return -1


class MaxN:
    """Max-N player: ``MaxN(10)`` is the paper's "Max-N10", ``MaxN(15)`` "Max-N15".

    Args:
        depth: search depth in moves (>= 1); non-terminal leaves at the limit
            are valued by the game's heuristic (zero vector without one).
        cache_size: transposition-table slots, a power of two (>= 2). The
            table takes ``cache_size * (4 * state_size + 8 * n_players + 16)``
            bytes.
        heuristic: use the game's leaf evaluation
            (``GameSpec.heuristic``) at the depth limit;
            ``False``: the zero vector, as the paper's Max-N.
        agent: value the cut-off positions with this trained n-tuple agent's afterstate values instead
            (:mod:`~.leaf_values`): the Max-N / expectimax-N *wrapper* around the agent (GBG's
            ``MaxN2Wrapper`` / ``ExpectimaxNWrapper``). The table then belongs to this agent's values.
        name: display name, default ``"Max-N<depth>"``.
    """

    def __init__(self, depth: int = 15, cache_size: int = 1 << 16, heuristic: bool = True,
                 name: str | None = None, agent=None):
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
        if (isinstance(cache_size, bool) or not isinstance(cache_size, (int, np.integer))
                or cache_size < 2 or cache_size & (cache_size - 1)):
            raise ValueError(f"cache_size must be a power of two >= 2, got {cache_size!r}")
        if not isinstance(heuristic, bool):
            raise ValueError(f"heuristic must be True or False, got {heuristic!r}")
        self.depth = int(depth)
        self.cache_size = int(cache_size)
        self.heuristic = heuristic
        self.agent = agent
        self.name = name if name is not None else f"Max-N{self.depth}"
        self.last_nodes = 0
        self._key = None

    def __repr__(self) -> str:
        inner = "" if self.agent is None else f", agent={self.agent.name!r}"
        return (f"MaxN(depth={self.depth}, cache_size={self.cache_size}, heuristic={self.heuristic}{inner}, "
                f"name={self.name!r})")

    # numba arrays are rebuilt lazily after unpickling (worker processes)
    def __getstate__(self):
        d = dict(self.__dict__)
        d["_key"] = None
        for k in ("_table", "_bufs", "_kernels", "_hooks", "_leaf"):
            d.pop(k, None)
        return d

    def reset(self) -> None:
        """Nothing to do: table entries stay valid across games of the same game."""

    def clear_cache(self) -> None:
        self._key = None

    def evaluates(self, game: GameSpec) -> bool:
        """Are cut-off positions of ``game`` valued by a heuristic (else by the zero vector)?"""
        return self.heuristic and has_heuristic(game)

    def _prepare(self, game: GameSpec) -> None:
        key = (game.id, tuple(int(x) for x in game.p))
        if self._key == key:
            return
        self._hooks = hooks_of(game, self.heuristic)  # refuses a chance game it cannot enumerate
        self._leaf = None if self.agent is None else agent_leaf(self.agent, game)
        self._kernels = search_kernels(game)
        cap, ss, n_pl, n_act = self.cache_size, game.state_size, game.n_players, game.n_actions
        L = (2 * self.depth + 1) if game.has_chance else self.depth + 1
        self._table = (np.zeros(cap, dtype=np.uint64), np.zeros((cap, ss), dtype=np.int32),
                       np.zeros((cap, n_pl)), np.full(cap, -2, dtype=np.int32), np.zeros(cap, dtype=np.int32))
        self._bufs = (np.zeros((L + 1, ss), dtype=np.int32), np.zeros((L, n_act), dtype=np.int8),
                      np.zeros(L, dtype=np.int64), np.zeros(L, dtype=np.int64), np.zeros((L, n_pl)),
                      np.zeros(L, dtype=np.bool_), np.zeros(L, dtype=np.int32), np.zeros((L, n_pl)),
                      np.zeros(n_pl), np.zeros(L, dtype=np.int8), np.zeros(L, dtype=np.int64),
                      np.zeros(L, dtype=np.int64), np.zeros(L))
        self._root_vals = np.zeros((n_act, n_pl))
        self._key = key

    def _search(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        check_search_state(game, state)
        self._prepare(game)
        self._root_vals[:] = np.nan
        self.last_nodes = int(maxn_search(self._kernels, self._hooks, self._leaf, game.p,
                                          np.ascontiguousarray(state, dtype=np.int32), self.depth,
                                          *self._table, *self._bufs, self._root_vals))
        return self._bufs[1][0]

    def action_values(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """``float64[n_actions, n_players]``: the Max-N value vector of each action (NaN if illegal)."""
        self._search(game, state)
        return self._root_vals.copy()

    def value(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """The Max-N value vector of ``state`` (first best action on ties)."""
        self._search(game, state)
        return self._bufs[4][0].copy()

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        mask = self._search(game, state)
        return int(_pick_best(self._root_vals, mask, int(state[TO_MOVE]), rng))
