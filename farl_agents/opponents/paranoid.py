"""Paranoid search (Sturtevant & Korf 2000): one player against the coalition of all the others.

Max-N (:mod:`~farl_agents.opponents.maxn`) lets every player maximise his
own reward, which for three or more players allows almost no pruning, so it
reaches only a few plies on Sim K12, Yavalath or Chinese Checkers.
Sturtevant & Korf (2000, "On pruning techniques for multi-player games",
AAAI) propose the *paranoid* assumption instead: the searching player (the
one to move at the root) assumes that all other players have formed a
coalition to minimise *his* value. The N-player game becomes a two-player
zero-sum game between him and the coalition, and alpha-beta applies: with a
good move order it searches about ``b^(d (N-1)/N)`` nodes instead of
Max-N's ``b^d``, so it looks deeper in the same time.

The value of a position is a single number, the searching player's reward
from the root onwards (the sum of his reward deltas) plus, where the depth
limit cuts the game off, his component of the game's leaf evaluation
(``GameSpec.heuristic``; 0 for games without one). A node
where he moves maximises, a node where anyone else moves minimises (a
3-player Chinese Checkers hop chain keeps the mover, so consecutive max or
min nodes are normal). The player drops nothing for seats that are out: the
kernels never give them the turn.

**Chance** (EinStein würfelt nicht!'s die, 2048's tile): the afterstate of a
move is a chance node worth the expectation of its outcomes (expectiminimax,
Michie 1966), enumerated as in Max-N
(:mod:`farl_envs.core.hooks`). The children of a chance node
are searched with a full window (no pruning across it; the bounds of
Ballard 1983 (Star1) are not used), so pruning happens between chance layers only.

**What it is good for.** The value is a *lower bound* on what the searching
player can secure against any behaviour of the others (within the depth): a
value of +1 (a win worth 1, as in Sim and Yavalath) means a forced win
whatever the others do, and the search finds it where Max-N, which assumes
the others play for themselves, may not. The price is pessimism: opponents
rarely coordinate, so in open positions Paranoid can be too cautious
(Sturtevant 2002 compares both).

Details:

* depth in moves, as Max-N; a chance node is not a ply;
* move order: at nodes two or more moves above the depth limit, the moves
  are sorted by the searching player's immediate value (reward delta plus
  his leaf evaluation of the afterstate), best first at max nodes and worst
  first at min nodes; stable, so equal moves keep their index order;
* root: every action is searched with the window ``(best so far - 2e-9,
  +inf)``: the actions within ``1e-9`` of the best get exact values and the
  player draws uniformly among them (from the harness's ``rng``), the others
  get an upper bound below the best;
* no transposition table (a position's paranoid value depends on who
  searches it and a bound table would need the window too);
* one iterative ``@njit(cache=True)`` function over the game's kernels and
  search hooks, compiled once per game and cached on disk, as Max-N.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.opponents.leaf_sources import agent_leaf
from farl_agents.opponents.leaf_values import final_value, leaf_value
from farl_agents.opponents.maxn import TIE_EPS, _pick_best
from farl_agents.opponents.search_hooks import search_kernels
from farl_agents.players import check_search_state
from farl_envs.core.hooks import apply_chance_outcome, chance_outcome_count, hooks_of
from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.kernels import afterstate, legal_actions
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

DECISION, CHANCE = 0, 1
MAX_DEPTH = 100


@njit(cache=True)
def _order_moves(kernels, hooks, leaf, p, k, me, S, M, order, nmov, key, rew_tmp, hv, do_sort):
    """The legal actions of level ``k`` into ``order[k]`` (sorted best-first for the mover if ``do_sort``).

    Returns the number of afterstates generated for the sort."""
    n = 0
    for a in range(M.shape[1]):
        if M[k, a]:
            order[k, n] = a
            n += 1
    nmov[k] = n
    if not do_sort or n < 2:
        return 0
    maximise = S[k, TO_MOVE] == me
    for j in range(n):
        afterstate(kernels, p, S[k], order[k, j], S[k + 1], rew_tmp)
        v = rew_tmp[me]
        if S[k + 1, TERMINAL] == 0:
            leaf_value(leaf, kernels, hooks, p, S[k + 1], S[k, TO_MOVE], hv)
        else:
            final_value(leaf, p, S[k + 1], hv)  # zero but for an agent trained with shaping
        v += hv[me]
        key[k, j] = v if maximise else -v
    for j in range(1, n):  # stable insertion sort, descending key
        a = order[k, j]
        v = key[k, j]
        i = j - 1
        while i >= 0 and key[k, i] < v:
            order[k, i + 1] = order[k, i]
            key[k, i + 1] = key[k, i]
            i -= 1
        order[k, i + 1] = a
        key[k, i + 1] = v
    return n


@njit(cache=True)
def _fold(k, v, me, S, kind, prob, val, alpha, beta, idx, nmov, order, root_vals):
    """Fold the value ``v`` of the current child into level ``k`` (alpha-beta; a chance level sums)."""
    if kind[k] == CHANCE:
        val[k] += prob[k] * v
        return
    if k == 0:
        root_vals[order[0, idx[0] - 1]] = v
    if S[k, TO_MOVE] == me:
        if v > val[k]:
            val[k] = v
        if val[k] > alpha[k]:
            alpha[k] = val[k]
        if k > 0 and val[k] >= beta[k]:
            idx[k] = nmov[k]  # cut-off: the coalition will not allow this line
    else:
        if v < val[k]:
            val[k] = v
        if val[k] < beta[k]:
            beta[k] = val[k]
        if val[k] <= alpha[k]:
            idx[k] = nmov[k]  # cut-off: the searching player has a better line elsewhere


@njit(cache=True)
def _open_decision(kernels, hooks, leaf, p, k, me, rem, lo, hi, S, M, kind, dleft, idx, val, alpha, beta,
                   order, nmov, key, rew_tmp, hv):
    kind[k] = DECISION
    dleft[k] = rem
    idx[k] = 0
    alpha[k] = lo
    beta[k] = hi
    val[k] = -np.inf if S[k, TO_MOVE] == me else np.inf
    legal_actions(kernels, p, S[k], M[k])
    return _order_moves(kernels, hooks, leaf, p, k, me, S, M, order, nmov, key, rew_tmp, hv, rem >= 2)


@njit(cache=True)
def paranoid_search(kernels, hooks, leaf, p, root, depth,
                    S, M, order, nmov, key, idx, alpha, beta, val, kind, dleft, nout, prob, rew, rew_tmp, hv,
                    root_vals):
    """Paranoid values (for the player to move at ``root``) of the root actions, ``depth`` moves deep.

    ``kernels``/``hooks``: :func:`~.search_hooks.search_kernels` / :func:`~farl_envs.core.hooks.hooks_of` of the game;
    ``leaf``: the leaf evaluation of :mod:`~.leaf_values` (``None``: the game's heuristic).
    ``root_vals[a]`` receives the value of each legal action ``a`` (exact within ``TIE_EPS`` of the best,
    else an upper bound below it); ``val[0]`` the root's value. Level buffers: ``depth + 1`` rows without
    chance, ``2 * depth + 1`` with; ``S`` one more. Returns the number of positions generated (those of the
    move ordering included).
    """
    me = root[TO_MOVE]
    for i in range(root.shape[0]):
        S[0, i] = root[i]
    nodes = 1 + _open_decision(kernels, hooks, leaf, p, 0, me, depth, -np.inf, np.inf, S, M, kind, dleft, idx, val,
                               alpha, beta, order, nmov, key, rew_tmp, hv)
    k = 0
    while True:
        if kind[k] == DECISION:
            if idx[k] < nmov[k]:
                a = order[k, idx[k]]
                idx[k] += 1
                afterstate(kernels, p, S[k], a, S[k + 1], rew[k])
                nodes += 1
                r = rew[k, me]
                rem = dleft[k] - 1
                if S[k + 1, TERMINAL] != 0:
                    final_value(leaf, p, S[k + 1], hv)  # zero but for an agent trained with shaping
                    _fold(k, r + hv[me], me, S, kind, prob, val, alpha, beta, idx, nmov, order, root_vals)
                elif rem <= 0:
                    leaf_value(leaf, kernels, hooks, p, S[k + 1], S[k, TO_MOVE], hv)
                    _fold(k, r + hv[me], me, S, kind, prob, val, alpha, beta, idx, nmov, order, root_vals)
                else:
                    count = chance_outcome_count(hooks, p, S[k + 1])
                    k += 1
                    if count > 0:
                        kind[k] = CHANCE
                        dleft[k] = rem
                        idx[k] = 0
                        nout[k] = count
                        val[k] = 0.0
                    else:
                        lo = alpha[k - 1] - 2 * TIE_EPS if k == 1 else alpha[k - 1]
                        nodes += _open_decision(kernels, hooks, leaf, p, k, me, rem, lo - r, beta[k - 1] - r, S, M,
                                                kind, dleft, idx, val, alpha, beta, order, nmov, key, rew_tmp, hv)
                continue
            if k == 0:
                break
        else:
            i = idx[k]
            if i < nout[k]:
                idx[k] = i + 1
                copy_state(S[k], S[k + 1])
                prob[k] = apply_chance_outcome(hooks, p, S[k + 1], i)
                nodes += 1
                if S[k + 1, TERMINAL] != 0:  # a chance event may end the game (2048): nothing more to gain
                    continue
                k += 1
                nodes += _open_decision(kernels, hooks, leaf, p, k, me, dleft[k - 1], -np.inf, np.inf, S, M, kind,
                                        dleft, idx, val, alpha, beta, order, nmov, key, rew_tmp, hv)
                continue
        # level k is complete: hand its value to level k - 1
        v = val[k]
        k -= 1
        if kind[k] == DECISION:
            v += rew[k, me]
        _fold(k, v, me, S, kind, prob, val, alpha, beta, idx, nmov, order, root_vals)
    return nodes


class Paranoid:
    """Paranoid alpha-beta player (Sturtevant & Korf 2000): ``Paranoid(6)`` searches 6 moves deep.

    Args:
        depth: search depth in moves (1..100); non-terminal leaves at the limit are valued by the
            game's heuristic (``GameSpec.heuristic``), 0 without one.
        heuristic: ``False``: value cut-off leaves 0 even where the game has a heuristic.
        name: display name, default ``"Paranoid<depth>"``.
        agent: value cut-off positions (and order the moves) with this trained n-tuple agent's afterstate values
            (:mod:`~.leaf_values`): the Paranoid wrapper around the agent.
    """

    def __init__(self, depth: int = 6, heuristic: bool = True, name: str | None = None, agent=None):
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
        if not isinstance(heuristic, bool):
            raise ValueError(f"heuristic must be True or False, got {heuristic!r}")
        self.depth = int(depth)
        self.heuristic = heuristic
        self.agent = agent
        self.name = name if name is not None else f"Paranoid{self.depth}"
        self.last_nodes = 0
        self._key = None

    def __repr__(self) -> str:
        inner = "" if self.agent is None else f", agent={self.agent.name!r}"
        return f"Paranoid(depth={self.depth}, heuristic={self.heuristic}{inner}, name={self.name!r})"

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_key"] = None
        for k in ("_bufs", "_kernels", "_hooks", "_leaf"):
            d.pop(k, None)
        return d

    def reset(self) -> None:
        """Nothing to do: the search keeps no state between moves."""

    def _prepare(self, game: GameSpec) -> None:
        key = (game.id, tuple(int(x) for x in game.p))
        if self._key == key:
            return
        self._hooks = hooks_of(game, self.heuristic)
        self._leaf = None if self.agent is None else agent_leaf(self.agent, game)
        self._kernels = search_kernels(game)
        ss, n_pl, n_act = game.state_size, game.n_players, game.n_actions
        L = (2 * self.depth + 1) if game.has_chance else self.depth + 1
        self._bufs = (np.zeros((L + 1, ss), dtype=np.int32), np.zeros((L, n_act), dtype=np.int8),
                      np.zeros((L, n_act), dtype=np.int64), np.zeros(L, dtype=np.int64), np.zeros((L, n_act)),
                      np.zeros(L, dtype=np.int64), np.zeros(L), np.zeros(L), np.zeros(L),
                      np.zeros(L, dtype=np.int8), np.zeros(L, dtype=np.int64), np.zeros(L, dtype=np.int64),
                      np.zeros(L), np.zeros((L, n_pl)), np.zeros(n_pl), np.zeros(n_pl))
        self._root_vals = np.zeros((n_act, n_pl))
        self._key = key

    def _search(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        check_search_state(game, state)
        self._prepare(game)
        vals = np.full(game.n_actions, np.nan)
        self.last_nodes = int(paranoid_search(self._kernels, self._hooks, self._leaf, game.p,
                                              np.ascontiguousarray(state, dtype=np.int32), self.depth,
                                              *self._bufs, vals))
        return vals

    def action_values(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """``float64[n_actions]``: each legal action's paranoid value for the player to move (NaN if illegal);
        exact for the actions within ``1e-9`` of the best, an upper bound below the best for the others."""
        return self._search(game, state)

    def value(self, game: GameSpec, state: np.ndarray) -> float:
        """The paranoid value of ``state`` for the player to move."""
        self._search(game, state)
        return float(self._bufs[8][0])

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        vals = self._search(game, state)
        mask = ~np.isnan(vals)
        self._root_vals[:, 0] = np.where(mask, vals, -np.inf)
        return int(_pick_best(self._root_vals, mask.astype(np.int8), 0, rng))
