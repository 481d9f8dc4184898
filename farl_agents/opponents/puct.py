"""PUCT search around a trained agent: GBG's MCTS wrapper (Scheiermann & Konen 2022), compiled.

Scheiermann & Konen 2022 ("AlphaZero-inspired game learning: faster training by using MCTS only at test
time") wrap a trained n-tuple TD agent in an AlphaZero-style tree search *at test time only*: no rollouts,
the agent's own values evaluate the leaves and its move preferences are the search's priors. This module is
farl's version of that wrapper, written from the published description and GBG's documented settings
(``MCTSWrapperAgent``; facts only).

One iteration descends from the root to a position not yet expanded, expands it, and backs its value up:

1. *selection*: at an expanded position with player ``m`` to move, take the legal action maximising
   ``Q_m(a) + c_puct * P(a) * sqrt(N + 1e-8) / (1 + N(a))``, where ``N(a)`` is the action's visit count,
   ``N`` their sum, ``Q_m(a)`` the mean return of ``m`` through the action (0 while unvisited, so the first
   visit goes to the action with the largest prior, as in GBG's recommended setting) and ``P(a)`` its
   prior;
2. *expansion*: at a new position ``s`` with mover ``m``, every legal action ``a`` is valued as the agent
   values it: ``q(a) = r(s, a) + V(s_a)`` (the move's reward vector plus the agent's value vector of the
   afterstate, :mod:`~.leaf_values`; 0 after the game's end). The priors are the softmax of ``q_m(a) /
   temperature`` over the legal actions, and the position's value is ``q`` of the agent's own choice
   ``argmax_a q_m(a)`` (GBG's approximator returns the same pair: the best afterstate value and the softmax
   of all of them); a terminal position is worth the zero vector;
3. *backup*: every position on the path adds the **vector** of rewards from its own move on plus the leaf
   value to its statistics, so each player reads his own component (two players: the usual negamax; three
   or more: the max-n backup of multi-player MCTS, which GBG's wrapper lacks).

The move played is the most visited root action (ties drawn from the harness's ``rng``).

Settings: ``c_puct = 1`` and ``temperature = 1`` are GBG's defaults (``ParWrapper``: PUCT 1, priors by
softmax). Returns and values are used on a scale where the game's reward range is [-1, 1] (farl's win/loss
games already are; others are mapped linearly from the smallest and largest return the search has seen,
as :mod:`~.mcts` does), so ``c_puct`` means the same everywhere.

Chance (2048, EinStein würfelt nicht!) is handled in one of two ways:

* ``chance_nodes=False`` (GBG's wrapper, and :mod:`~.mcts`): *open loop*. A tree node is a sequence of
  actions; the position is rebuilt on every descent with fresh chance draws, so below the root a node's
  statistics mix positions with different draws, and an action legal in the sampled position but not when
  the node was expanded gets the uniform prior.
* ``chance_nodes=True``: *closed loop*. The node an action leads to is a chance node; each outcome drawn
  there (the code the game's ``chance`` kernel returns: the die's face, the new tile and its cell) gets a
  child of its own, a position in its own right with its own priors and statistics. Outcomes are still
  sampled with their probabilities, so a chance node's mean is an estimate of the expectation over them.
  Selection reads the chance node's mean (the action's value averaged over the draws) and the outcome
  node's visit count (how often that position was searched).

The tree lives in preallocated arrays (``iterations + 1`` nodes: an iteration adds at most one; with chance
nodes ``2 * iterations + 1``: a chance node and an outcome), checked against farl's memory limit. The three
steps are compiled functions over the game's kernels (:func:`descend`: selection, chance and the new nodes;
:func:`set_priors`: the expansion formula given the agent's ``q``; :func:`backup`), and two loops drive them:

* a TD n-tuple agent: :func:`puct_search`, one ``@njit(cache=True)`` loop with the agent's network inside
  (:mod:`~.leaf_values`), no Python per node;
* an agent whose values live in Python or torch (Nemesh, descent's f_θ, the SB3 baselines: the protocol of
  :mod:`~.value_protocol`): :meth:`PUCT._python_search`, the same loop in Python that asks the agent for the
  ``q`` of a new position's moves, one call per expanded position (batched over the moves by the agent).

Both loops run the same compiled steps, so for the same values they build the same tree
(``tests/test_search_wrappers_families.py`` checks identical visit counts).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_agents.ntuple.budget import check_search_memory
from farl_agents.opponents.leaf_sources import search_leaf
from farl_agents.opponents.leaf_values import NTupleLeaf, final_value, leaf_value
from farl_agents.opponents.mcts import MAX_ITERATIONS, _most_visited, root_statistics
from farl_agents.opponents.search_hooks import search_kernels
from farl_agents.opponents.value_protocol import checked_values
from farl_agents.players import check_search_state
from farl_envs.core.hooks import hooks_of
from farl_envs.core.kernels import afterstate, chance, legal_actions
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

DEFAULT_C_PUCT = 1.0
"""GBG's default PUCT constant for its MCTS wrapper (``ParWrapper``), on the [-1, 1] value scale."""
DEFAULT_TEMPERATURE = 1.0
"""Priors are ``softmax(q / temperature)`` of the agent's action values on the [-1, 1] scale (GBG: 1)."""
_EPS = 1e-8


_AT_END, _NEW, _FULL = 0, 1, 2
"""How a descent (:func:`descend`) stopped: at the end of the game, at a position not yet expanded, or at a
position whose new child found the tree full (cannot happen with ``cap >= iterations + 1``, ``2 * iterations +
1`` with chance nodes; valued as a leaf)."""


@njit(cache=True)
def new_tree(children, visits, wsum, expanded, links):
    """Reset the tree to its root (row 0, not expanded, no outcome children); return the number of nodes, 1."""
    children[0, :] = -1
    visits[0] = 0.0
    wsum[0, :] = 0.0
    expanded[0] = 0
    links[0, :] = -1
    return 1


@njit(cache=True)
def _new_node(node, children, visits, wsum, expanded, links):
    """Clear row ``node`` of the tree for a new node: no children, no visits, not expanded."""
    children[node, :] = -1
    visits[node] = 0.0
    wsum[node, :] = 0.0
    expanded[node] = 0
    links[node, :] = -1


@njit(cache=True)
def descend(kernels, p, root, c_puct, mid, half, adaptive, has_chance, chance_nodes, children, visits, wsum, prior,
            expanded, links, n_nodes, s, mask, rew, path, opath, step_rew, lo, hi, rng):
    """Step 1, *selection*: descend from ``root`` by the PUCT rule to the first position not yet expanded.

    Adds the new nodes it steps into to the tree (``n_nodes`` of them so far); writes the position reached into
    ``s``, the nodes the moves led to into ``path[0..depth]`` and the moves' reward vectors into
    ``step_rew[0..depth-1]``; samples chance events on the way. Open loop, the node a move leads to is the
    next position's node; with ``chance_nodes`` it is a chance node, and the outcome drawn there leads on to
    its child for that outcome code (``links[.]``: first outcome child, next sibling, the code), written into
    ``opath[depth]`` (-1 where no outcome node was passed). Returns ``(node, depth, n_nodes, status)``:
    ``status`` is ``_AT_END`` (``s`` is terminal), ``_NEW`` (``node`` is to be expanded at ``s``) or ``_FULL``.
    """
    n_actions = children.shape[1]
    n_players = wsum.shape[1]
    cap = children.shape[0]
    for i in range(root.shape[0]):
        s[i] = root[i]
    node = 0
    depth = 0
    path[0] = 0
    while True:
        if s[TERMINAL] != 0:
            return node, depth, n_nodes, _AT_END
        if expanded[node] == 0:
            return node, depth, n_nodes, _NEW
        if adaptive:
            mid = 0.5 * (lo[0] + hi[0])
            half = 0.5 * (hi[0] - lo[0])
            if half <= 0.0:
                half = 1.0
        mover = s[TO_MOVE]
        legal_actions(kernels, p, s, mask)
        n_legal = 0
        for a in range(n_actions):
            if mask[a] != 0:
                n_legal += 1
        root_n = math.sqrt(max(visits[node] - 1.0, 0.0) + _EPS)
        best_a = -1
        best_u = -np.inf
        for a in range(n_actions):
            if mask[a] == 0:
                continue
            c = children[node, a]
            pr = prior[node, a]
            if pr < 0.0:  # legal here but not in the position the node was expanded in (chance)
                pr = 1.0 / n_legal
            if c >= 0 and visits[c] > 0.0:
                q = (wsum[c, mover] / visits[c] - mid) / half
                u = q + c_puct * pr * root_n / (1.0 + visits[c])
            else:
                u = c_puct * pr * root_n
            if u > best_u:
                best_u = u
                best_a = a
        c = children[node, best_a]
        if n_nodes + (2 if chance_nodes else 1) > cap and (c < 0 or chance_nodes):
            return node, depth, n_nodes, _FULL
        if c < 0:
            c = n_nodes
            n_nodes += 1
            children[node, best_a] = c
            _new_node(c, children, visits, wsum, expanded, links)
        afterstate(kernels, p, s, best_a, s, rew)
        nxt = c
        outcome = -1
        if has_chance and s[TERMINAL] == 0:
            code = chance(kernels, p, s, rng)
            if chance_nodes:
                outcome = links[c, 0]
                while outcome >= 0 and links[outcome, 2] != code:
                    outcome = links[outcome, 1]
                if outcome < 0:
                    outcome = n_nodes
                    n_nodes += 1
                    _new_node(outcome, children, visits, wsum, expanded, links)
                    links[outcome, 1] = links[c, 0]
                    links[outcome, 2] = code
                    links[c, 0] = outcome
                nxt = outcome
        for r in range(n_players):
            step_rew[depth, r] = rew[r]
        depth += 1
        path[depth] = c
        opath[depth] = outcome
        node = nxt


@njit(cache=True)
def _agent_q(kernels, hooks, leaf, p, s, mask, after, rew, vec, qv):
    """``qv[a] = r(s, a) + V(s_a)`` for the legal actions of ``s`` (their flags into ``mask``), with the
    compiled leaf evaluation :func:`~.leaf_values.leaf_value` (0 after the game's end)."""
    mover = s[TO_MOVE]
    legal_actions(kernels, p, s, mask)
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        afterstate(kernels, p, s, a, after, rew)
        if after[TERMINAL] != 0:
            final_value(leaf, p, after, vec)  # zero but for an agent trained with shaping
        else:
            leaf_value(leaf, kernels, hooks, p, after, mover, vec)
        for i in range(vec.shape[0]):
            qv[a, i] = rew[i] + vec[i]


@njit(cache=True)
def set_priors(s, node, prior, mask, qv, est, mid, half, temperature, adaptive, lo, hi):
    """Step 2, *expansion*, given the agent's ``qv[a]`` of the legal actions (``mask``) of ``s``: the priors
    ``prior[node] = softmax(q_m / temperature)`` on the [-1, 1] scale (-1 for illegal actions) and the
    position's value vector ``est = qv[argmax_a q_m(a)]``, ``m`` the mover (first best on ties); with
    ``adaptive`` the values widen the observed range ``lo[0]``/``hi[0]`` first."""
    n_actions = mask.shape[0]
    mover = s[TO_MOVE]
    best_a = -1
    for a in range(n_actions):
        prior[node, a] = -1.0
        if mask[a] == 0:
            continue
        if adaptive:
            for i in range(qv.shape[1]):
                if qv[a, i] < lo[0]:
                    lo[0] = qv[a, i]
                if qv[a, i] > hi[0]:
                    hi[0] = qv[a, i]
        if best_a < 0 or qv[a, mover] > qv[best_a, mover]:
            best_a = a
    if adaptive:
        mid = 0.5 * (lo[0] + hi[0])
        half = 0.5 * (hi[0] - lo[0])
        if half <= 0.0:
            half = 1.0
    top = (qv[best_a, mover] - mid) / half / temperature
    total = 0.0
    for a in range(n_actions):
        if mask[a] != 0:
            w = math.exp((qv[a, mover] - mid) / half / temperature - top)
            prior[node, a] = w
            total += w
    for a in range(n_actions):
        if mask[a] != 0:
            prior[node, a] /= total
    for i in range(est.shape[0]):
        est[i] = qv[best_a, i]


@njit(cache=True)
def set_priors_from_values(s, node, prior, mask, qv, est, mid, half, temperature, adaptive, lo, hi):
    """:func:`set_priors` with ``qv`` from the Python value protocol: the legal actions are its rows that are
    not NaN (:func:`~.value_protocol.checked_values` has checked them against the game)."""
    for a in range(mask.shape[0]):
        mask[a] = 0 if math.isnan(qv[a, 0]) else 1
    set_priors(s, node, prior, mask, qv, est, mid, half, temperature, adaptive, lo, hi)


@njit(cache=True)
def backup(path, opath, depth, step_rew, est, ret, visits, wsum, adaptive, lo, hi):
    """Step 3, *backup*: every node on ``path[1..depth]`` adds the return vector from its move on (the rewards
    after it plus the leaf's ``est``) to its statistics, and every outcome node on ``opath`` counts the visit,
    as does the root; with ``adaptive`` the return widens the observed range."""
    n_players = wsum.shape[1]
    for i in range(n_players):
        ret[i] = est[i]
    for d in range(depth, 0, -1):
        nd = path[d]
        visits[nd] += 1.0
        if opath[d] >= 0:
            visits[opath[d]] += 1.0
        for i in range(n_players):
            ret[i] += step_rew[d - 1, i]
            wsum[nd, i] += ret[i]
    visits[0] += 1.0
    if adaptive:
        for i in range(n_players):
            if ret[i] < lo[0]:
                lo[0] = ret[i]
            if ret[i] > hi[0]:
                hi[0] = ret[i]


@njit(cache=True)
def puct_search(kernels, hooks, leaf, p, root, iterations, c_puct, temperature, mid, half, adaptive,
                has_chance, chance_nodes, children, visits, wsum, prior, expanded, links, s, mask, after, rew,
                vec, qv, est, ret, path, opath, step_rew, lo, hi, rng):
    """Run ``iterations`` PUCT iterations from ``root`` with the compiled leaf evaluation ``leaf``; return the
    number of tree nodes. (:meth:`PUCT._python_search` is the same loop with the Python value protocol.)

    ``children`` (int32[cap, n_actions]), ``visits`` (float64[cap]), ``wsum`` (float64[cap, n_players]),
    ``prior`` (float64[cap, n_actions]), ``expanded`` (uint8[cap]) and ``links`` (int64[cap, 3]: a chance
    node's first outcome child, an outcome node's next sibling and its outcome code) are the tree, row 0 the
    root, ``cap >= iterations + 1`` (``2 * iterations + 1`` with ``chance_nodes``). ``mid``/``half`` map
    returns to [-1, 1] (``(x - mid) / half``); with ``adaptive`` they follow the observed range kept in
    ``lo[0]``/``hi[0]``. The other arrays are scratch: ``path``, ``opath`` (int64) and ``step_rew``
    (float64[., n_players]) need the longest game + 1 rows.
    """
    n_nodes = new_tree(children, visits, wsum, expanded, links)
    for _ in range(iterations):
        node, depth, n_nodes, status = descend(kernels, p, root, c_puct, mid, half, adaptive, has_chance,
                                               chance_nodes, children, visits, wsum, prior, expanded, links,
                                               n_nodes, s, mask, rew, path, opath, step_rew, lo, hi, rng)
        if status == _AT_END:
            final_value(leaf, p, s, est)  # zero but for an agent trained with shaping
        else:
            _agent_q(kernels, hooks, leaf, p, s, mask, after, rew, vec, qv)
            set_priors(s, node, prior, mask, qv, est, mid, half, temperature, adaptive, lo, hi)
            if status == _NEW:
                expanded[node] = 1
        backup(path, opath, depth, step_rew, est, ret, visits, wsum, adaptive, lo, hi)
    return n_nodes


class PUCT:
    """PUCT search with a trained agent's values and priors (GBG's MCTS wrapper); see the module docstring.

    Args:
        agent: a trained n-tuple TD agent (:class:`~farl_agents.learners.agent.NTupleAgent`) of the game
            (compiled search), or a player of the value protocol
            (:class:`~farl_agents.opponents.value_protocol.AfterstateValues`: Nemesh, descent, SB3; the search
            calls it once per expanded position).
        iterations: expansions per move (1..:data:`~.mcts.MAX_ITERATIONS`).
        c_puct: the exploration constant on the [-1, 1] value scale (GBG: 1).
        temperature: of the priors' softmax (GBG: 1); lower trusts the agent's ranking more.
        name: display name, default ``"<agent>+mcts<iterations>"`` (``+chance<iterations>`` with chance nodes).
        chance_nodes: on a game with chance, a child per drawn outcome (closed loop) instead of GBG's open loop
            (the module docstring); no effect on games without chance.
    """

    score_kind = "share of the search's visits"
    """What :meth:`move_scores` gives (``farl serve`` shows it beside the scores)."""

    def __init__(self, agent, iterations: int = 100, c_puct: float = DEFAULT_C_PUCT,
                 temperature: float = DEFAULT_TEMPERATURE, name: str | None = None, chance_nodes: bool = False):
        if (isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer))
                or not 1 <= iterations <= MAX_ITERATIONS):
            raise ValueError(f"iterations must be an integer in 1..{MAX_ITERATIONS:,}, got {iterations!r}")
        for what, x, low in (("c_puct", c_puct, 0.0), ("temperature", temperature, 1e-6)):
            if isinstance(x, bool) or not isinstance(x, (int, float, np.floating)) or not math.isfinite(x) \
                    or x < low:
                raise ValueError(f"{what} must be a finite number >= {low:g}, got {x!r}")
        if not isinstance(chance_nodes, (bool, np.bool_)):
            raise ValueError(f"chance_nodes must be True or False, got {chance_nodes!r}")
        self.agent = agent
        self.chance_nodes = bool(chance_nodes)
        self.iterations = int(iterations)
        self.c_puct = float(c_puct)
        self.temperature = float(temperature)
        kind = "chance" if self.chance_nodes else "mcts"
        self.name = name if name is not None else f"{agent.name}+{kind}{self.iterations}"
        self.last_nodes = 0
        self._key = None

    def __repr__(self) -> str:
        return (f"PUCT(agent={self.agent.name!r}, iterations={self.iterations}, c_puct={self.c_puct:g}, "
                f"temperature={self.temperature:g}, chance_nodes={self.chance_nodes}, name={self.name!r})")

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_key"] = None
        for k in ("_bufs", "_kernels", "_hooks", "_leaf"):
            d.pop(k, None)
        return d

    def reset(self) -> None:
        """Nothing to do: every move builds a new tree."""

    def _capacity(self, game: GameSpec) -> int:
        """Rows of the tree: ``iterations + 1``, twice the iterations + 1 with chance nodes on a chance game."""
        return (2 if self._closed(game) else 1) * self.iterations + 1

    def _closed(self, game: GameSpec) -> bool:
        return self.chance_nodes and game.has_chance

    def node_bytes(self, game: GameSpec) -> int:
        """Bytes of the tree on ``game``: per row, children (int32) and priors (float64) per action, visits,
        the expanded flag, the outcome links and the per-player value sums."""
        return self._capacity(game) * (12 * game.n_actions + 33 + 8 * game.n_players)

    def check_memory(self, game: GameSpec) -> int:
        """:meth:`node_bytes`; ``ValueError`` with the figure when it is over the memory limit."""
        return check_search_memory(self.name, game.id, self.iterations, game.n_actions, self.node_bytes(game))

    def _prepare(self, game: GameSpec) -> None:
        key = (game.id, tuple(int(x) for x in game.p))
        if self._key == key:
            return
        self.check_memory(game)
        source = search_leaf(self.agent, game)
        self._leaf = source if isinstance(source, NTupleLeaf) else None  # None: the Python value protocol
        self._hooks = hooks_of(game, False)
        self._kernels = search_kernels(game)
        cap, n_act, n_pl, ss = self._capacity(game), game.n_actions, game.n_players, game.state_size
        longest = int(game.max_plies) + 2
        self._bufs = (np.full((cap, n_act), -1, dtype=np.int32), np.zeros(cap), np.zeros((cap, n_pl)),
                      np.zeros((cap, n_act)), np.zeros(cap, dtype=np.uint8), np.full((cap, 3), -1, dtype=np.int64),
                      np.zeros(ss, dtype=np.int32), np.zeros(n_act, dtype=np.int8), np.zeros(ss, dtype=np.int32),
                      np.zeros(n_pl), np.zeros(n_pl), np.zeros((n_act, n_pl)), np.zeros(n_pl), np.zeros(n_pl),
                      np.zeros(longest, dtype=np.int64), np.full(longest, -1, dtype=np.int64),
                      np.zeros((longest, n_pl)))
        self._key = key

    def _run(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> None:
        check_search_state(game, state)
        self._prepare(game)
        lo_r, hi_r = (float(x) for x in game.reward_range)
        adaptive = not (-1.0 <= lo_r < hi_r <= 1.0)
        mid, half = (0.0, 1.0) if adaptive else (0.5 * (lo_r + hi_r), 0.5 * (hi_r - lo_r))
        lo, hi = np.array([np.inf]), np.array([-np.inf])
        root = np.ascontiguousarray(state, dtype=np.int32)
        if self._leaf is None:
            self.last_nodes = self._python_search(game, root, mid, half, adaptive, lo, hi, rng)
            return
        self.last_nodes = int(puct_search(self._kernels, self._hooks, self._leaf, game.p, root, self.iterations,
                                          self.c_puct, self.temperature, mid, half, adaptive, game.has_chance,
                                          self._closed(game), *self._bufs, lo, hi, rng))

    def _python_search(self, game: GameSpec, root, mid, half, adaptive, lo, hi, rng) -> int:
        """:func:`puct_search`'s loop with the agent's Python value protocol
        (:class:`~.value_protocol.AfterstateValues`) at the new positions: the same compiled selection,
        expansion formula and backup, one Python call of the agent per expanded position."""
        (children, visits, wsum, prior, expanded, links, s, mask, _after, rew, _vec, qv, est, ret, path, opath,
         step_rew) = self._bufs
        n_nodes = new_tree(children, visits, wsum, expanded, links)
        for _ in range(self.iterations):
            node, depth, n_nodes, status = descend(self._kernels, game.p, root, self.c_puct, mid, half, adaptive,
                                                   game.has_chance, self._closed(game), children, visits, wsum,
                                                   prior, expanded, links, n_nodes, s, mask, rew, path, opath,
                                                   step_rew, lo, hi, rng)
            if status == _AT_END:
                est[:] = 0.0
            else:
                qv[:] = checked_values(self.agent, game, s.copy())  # a copy: the agent may keep what it is given
                set_priors_from_values(s, node, prior, mask, qv, est, mid, half, self.temperature, adaptive, lo,
                                       hi)
                if status == _NEW:
                    expanded[node] = 1
            backup(path, opath, depth, step_rew, est, ret, visits, wsum, adaptive, lo, hi)
        return int(n_nodes)

    def search(self, game: GameSpec, state: np.ndarray, rng: np.ndarray):
        """Run the search; return ``(visits, mean_returns)`` per root action (0 / NaN if unvisited)."""
        self._run(game, state, rng)
        return root_statistics(*self._bufs[:3])

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        self._run(game, state, rng)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        if self.iterations == 1:  # the root's expansion only: the agent's own choice (largest prior)
            return int(np.argmax(np.where(mask != 0, self._bufs[3][0], -np.inf)))
        return int(_most_visited(self._bufs[0], self._bufs[1], mask, rng))

    def move_scores(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> np.ndarray:
        """``float64[n_actions]``: each legal root action's share of the search's visits (NaN if illegal)."""
        visits, _ = self.search(game, state, rng)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        total = visits[mask != 0].sum()
        return np.where(mask != 0, visits / max(total, 1.0), np.nan)
