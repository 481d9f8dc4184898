"""N-player UCT Monte Carlo tree search: the "MCTS a" opponents of Table 1.

One search runs ``iterations`` times through four steps (Kocsis & Szepesvári
2006; Browne et al. 2012):

1. *selection*: from the root, while every legal action of the node has a
   child, go to the child maximising
   ``Q_m(c) + C * sqrt(ln N(node) / N(c))``, where ``m`` is the player to move
   at the node and ``Q_m(c)`` the mean return of player ``m`` over the
   iterations that passed through ``c``, mapped to [0, 1] (below);
2. *expansion*: add one child for a uniformly drawn untried legal action;
3. *simulation*: play uniformly random moves to the end
   (:func:`farl_envs.core.playout.random_playout`, the one random-playout
   loop of farl; it calls ``chance`` after every move, which for games
   without chance draws no random number);
4. *backpropagation*: every node on the path adds the **reward vector**
   collected from the move into it to the end of the game (the sum of the
   kernels' reward deltas), so each node's statistics are read from the
   perspective of the player who moved into it, and N players need nothing
   but the mover's component (this is the "max^n" flavour of UCT).

The move played is the most visited root action (ties drawn from ``rng``).

Value scale: returns are mapped to [0, 1] with the game's return bounds, so
the exploration constant ``C`` (default ``sqrt(2)``) means the same for every
game: ``(-1, 1)`` for the two-player games, ``(0, 1)`` for Nim3P. Games with
unbounded scores (2048) use the smallest and largest return seen so far in
the current search instead.

Chance events (2048) are handled by **sampling** ("open-loop" MCTS): a node
stands for the *sequence of actions* from the root, the position is rebuilt
on every descent by applying the actions and drawing a fresh random tile
after each one, and only the actions legal in the sampled position are
considered. For deterministic games this is ordinary UCT with the tree's
positions recomputed (cheaper than storing them).

All node arrays (``children[node, action]``, ``visits``, ``wsum[node,
player]``) are preallocated with ``iterations + 1`` rows: each iteration adds
at most one node. Their size (:meth:`MCTS.node_bytes`) is checked against the
memory limit of :mod:`farl_agents.ntuple.budget` before they are allocated,
and ``iterations`` is at most :data:`MAX_ITERATIONS`. The search is one ``@njit(cache=True)`` function over the
game's kernels, given as one :class:`~farl_envs.core.kernels.Kernels` value
whose numba type names them (plus a stamp of their sources): one compiled
specialisation per game, cached on disk, so a process that already compiled
it once for that game (and the same sources) loads it instead of compiling.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_agents.ntuple.budget import check_search_memory
from farl_agents.opponents.search_hooks import search_kernels
from farl_agents.players import check_search_state
from farl_envs.core.kernels import afterstate, chance, legal_actions
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

MAX_ITERATIONS = 10_000_000
"""Most iterations per move: far above Table 1's 10,000 (a move takes minutes at this budget), and small
enough that the node arrays of the small boards fit in memory; larger boards meet the memory check first."""


@njit(cache=True)
def uct_search(kernels, p, root, iterations, c_explore,
               lo, hi, adaptive, has_chance,
               children, visits, wsum, s, mask, rew, total, ret, path, step_rew, rng):
    """Run ``iterations`` UCT iterations from ``root``; return the number of nodes.

    ``kernels`` is the game's :func:`~farl_agents.opponents.search_hooks.search_kernels`.

    ``children`` (int32[cap, n_actions]), ``visits`` (float64[cap]) and ``wsum``
    (float64[cap, n_players]) are the tree (row 0 the root), ``cap >=
    iterations + 1``; ``s``, ``mask``, ``rew``, ``total``, ``ret`` are scratch;
    ``path`` (int64) and ``step_rew`` (float64[., n_players]) hold the nodes
    and rewards of one descent (length >= the longest game + 1). ``lo``/``hi``
    map returns to [0, 1]; with ``adaptive`` they track the observed range.
    """
    n_actions = children.shape[1]
    n_players = wsum.shape[1]
    cap = children.shape[0]
    children[0, :] = -1
    visits[0] = 0.0
    wsum[0, :] = 0.0
    n_nodes = 1
    for _ in range(iterations):
        for i in range(root.shape[0]):
            s[i] = root[i]
        node = 0
        depth = 0
        path[0] = 0
        total[:] = 0.0
        while s[TERMINAL] == 0:
            legal_actions(kernels, p, s, mask)
            untried = 0
            for a in range(n_actions):
                if mask[a] != 0 and children[node, a] < 0:
                    untried += 1
            if untried > 0 and n_nodes < cap:
                k = rng_below(rng, untried)
                act = -1
                for a in range(n_actions):
                    if mask[a] != 0 and children[node, a] < 0:
                        if k == 0:
                            act = a
                            break
                        k -= 1
                new = n_nodes
                n_nodes += 1
                children[node, act] = new
                children[new, :] = -1
                visits[new] = 0.0
                wsum[new, :] = 0.0
                afterstate(kernels, p, s, act, s, rew)
                if has_chance and s[TERMINAL] == 0:
                    chance(kernels, p, s, rng)
                for r in range(rew.shape[0]):  # a loop: a slice assignment costs seconds of compiling
                    step_rew[depth, r] = rew[r]
                depth += 1
                path[depth] = new
                random_playout(kernels, p, s, mask, rew, total, rng)
                break
            if untried > 0:  # tree full (cannot happen with cap >= iterations + 1): simulate here
                random_playout(kernels, p, s, mask, rew, total, rng)
                break
            # selection among the children of the legal actions
            mover = s[TO_MOVE]
            span = hi[mover] - lo[mover]
            if span <= 0.0:
                span = 1.0
            log_n = math.log(max(visits[node], 1.0))
            best_a = -1
            best_u = -np.inf
            for a in range(n_actions):
                if mask[a] != 0:
                    c = children[node, a]
                    n = visits[c]
                    if n <= 0.0:
                        u = np.inf
                    else:
                        q = (wsum[c, mover] / n - lo[mover]) / span
                        u = q + c_explore * math.sqrt(log_n / n)
                    if u > best_u:
                        best_u = u
                        best_a = a
            c = children[node, best_a]
            afterstate(kernels, p, s, best_a, s, rew)
            if has_chance and s[TERMINAL] == 0:
                chance(kernels, p, s, rng)
            for r in range(rew.shape[0]):
                step_rew[depth, r] = rew[r]
            depth += 1
            path[depth] = c
            node = c
        # backpropagation: node path[d] gets the rewards from its own move on
        for i in range(n_players):
            ret[i] = total[i]
        for d in range(depth, 0, -1):
            nd = path[d]
            visits[nd] += 1.0
            for i in range(n_players):
                ret[i] += step_rew[d - 1, i]
                wsum[nd, i] += ret[i]
        visits[0] += 1.0
        if adaptive:
            for i in range(n_players):
                if ret[i] < lo[i]:
                    lo[i] = ret[i]
                if ret[i] > hi[i]:
                    hi[i] = ret[i]
    return n_nodes


@njit(cache=True)
def _most_visited(children, visits, mask, rng):
    """Uniform choice among the legal root actions with the most visits."""
    top = -1.0
    for a in range(mask.shape[0]):
        if mask[a] and children[0, a] >= 0 and visits[children[0, a]] > top:
            top = visits[children[0, a]]
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] and (visits[children[0, a]] if children[0, a] >= 0 else -1.0) == top:
            count += 1
    k = rng_below(rng, count)
    for a in range(mask.shape[0]):
        if mask[a] and (visits[children[0, a]] if children[0, a] >= 0 else -1.0) == top:
            if k == 0:
                return a
            k -= 1
    return -1


def root_statistics(children: np.ndarray, visits: np.ndarray, wsum: np.ndarray):
    """``(visits, mean_returns)`` of every root action of a search tree in the node arrays of :func:`uct_search`
    (also the PUCT wrapper's): 0 visits and NaN returns for actions without a child."""
    ch = children[0]
    v = np.where(ch >= 0, visits[np.maximum(ch, 0)], 0.0)
    q = np.full((children.shape[1], wsum.shape[1]), np.nan)
    seen = v > 0
    q[seen] = wsum[ch[seen]] / v[seen, None]
    return v, q


class MCTS:
    """UCT player: ``MCTS(10000)`` is Table 1's "MCTS10000" (Hex), ``MCTS(5000)`` "MCTS5000" (Nim3P).

    Args:
        iterations: simulations per move (>= 1).
        c: exploration constant ``C`` on the [0, 1] value scale (default sqrt 2).
        value_range: ``(lo, hi)`` bounds of a player's return used to map
            values to [0, 1]; default the game's ``reward_range`` for games
            whose scores lie in [-1, 1], else adaptive (see module docstring).
        name: display name, default ``"MCTS<iterations>"``.
    """

    def __init__(self, iterations: int = 1000, c: float = math.sqrt(2.0),
                 value_range: tuple | None = None, name: str | None = None):
        if (isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer))
                or not 1 <= iterations <= MAX_ITERATIONS):
            raise ValueError(f"iterations must be an integer in 1..{MAX_ITERATIONS:,}, got {iterations!r}")
        if not isinstance(c, (int, float, np.floating)) or not math.isfinite(c) or c < 0:
            raise ValueError(f"c must be a finite number >= 0, got {c!r}")
        if value_range is not None:
            if len(value_range) != 2 or not float(value_range[0]) < float(value_range[1]):
                raise ValueError(f"value_range must be (lo, hi) with lo < hi, got {value_range!r}")
        self.iterations = int(iterations)
        self.c = float(c)
        self.value_range = None if value_range is None else (float(value_range[0]), float(value_range[1]))
        self.name = name if name is not None else f"MCTS{self.iterations}"
        self.last_nodes = 0
        self._key = None

    def __repr__(self) -> str:
        return f"MCTS(iterations={self.iterations}, c={self.c:.4g}, name={self.name!r})"

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_key"] = None
        d.pop("_bufs", None)
        return d

    def node_bytes(self, game: GameSpec) -> int:
        """Bytes of the node arrays on ``game``: ``iterations + 1`` rows of children (int32 per action),
        visits and the per-player value sums (float64)."""
        return (self.iterations + 1) * (4 * game.n_actions + 8 + 8 * game.n_players)

    def check_memory(self, game: GameSpec) -> int:
        """:meth:`node_bytes`; ``ValueError`` with the figure when it is over the memory limit."""
        return check_search_memory(self.name, game.id, self.iterations, game.n_actions, self.node_bytes(game))

    def _prepare(self, game: GameSpec) -> None:
        key = (game.id, tuple(int(x) for x in game.p))
        if self._key == key:
            return
        self.check_memory(game)
        cap, n_act, n_pl, ss = self.iterations + 1, game.n_actions, game.n_players, game.state_size
        longest = int(game.max_plies) + 2
        self._bufs = (np.full((cap, n_act), -1, dtype=np.int32), np.zeros(cap), np.zeros((cap, n_pl)),
                      np.zeros(ss, dtype=np.int32), np.zeros(n_act, dtype=np.int8), np.zeros(n_pl),
                      np.zeros(n_pl), np.zeros(n_pl), np.zeros(longest, dtype=np.int64),
                      np.zeros((longest, n_pl)))
        self._key = key

    def _bounds(self, game: GameSpec):
        n = game.n_players
        if self.value_range is not None:
            lo, hi = self.value_range
        else:
            lo, hi = (float(x) for x in game.reward_range)
            if not (-1.0 <= lo < hi <= 1.0):
                return np.full(n, np.inf), np.full(n, -np.inf), True
        return np.full(n, lo), np.full(n, hi), False

    def search(self, game: GameSpec, state: np.ndarray, rng: np.ndarray):
        """Run the search; return ``(visits, mean_returns)`` per root action (NaN/0 if unvisited)."""
        self._run(game, state, rng)
        return root_statistics(*self._bufs[:3])

    def _run(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> None:
        check_search_state(game, state)
        self._prepare(game)
        lo, hi, adaptive = self._bounds(game)
        b = self._bufs
        self.last_nodes = int(uct_search(search_kernels(game), game.p,
                                         np.ascontiguousarray(state, dtype=np.int32), self.iterations,
                                         self.c, lo, hi, adaptive, game.has_chance,
                                         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], rng))

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        self._run(game, state, rng)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        return int(_most_visited(self._bufs[0], self._bufs[1], mask, rng))

    score_kind = "share of the MCTS visits"
    """What :meth:`move_scores` gives (``farl serve`` shows it beside the scores)."""

    def move_scores(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> np.ndarray:
        """``float64[n_actions]``: each legal root action's share of the search's visits (they add up to 1;
        NaN for illegal actions). The move :meth:`act` plays is the one with the largest share (ties
        drawn), so this is the search's own ranking of the moves from one search with ``rng``."""
        visits, _ = self.search(game, state, rng)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        total = visits[mask != 0].sum()
        return np.where(mask != 0, visits / max(total, 1.0), np.nan)
