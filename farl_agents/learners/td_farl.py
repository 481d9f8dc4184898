"""TD-FARL (Konen & Bagheri 2020, Alg. 2): player-centred TD learning on afterstates with final adaptation.

Each player p learns V_p on the afterstates *it* produced. At p's move the
last afterstate ``s_last[p]`` is adapted towards r + γ·V_p(s'), where s' is
p's new afterstate and r the reward p collected since ``s_last[p]``. When the
game ends, final adaptation (FARL) adapts

1. every other player's ``s_last`` towards its final reward (part 1), and
2. the mover's terminal afterstate towards 0 (part 2, footnote 7).

Progress shaping (``LearnerConfig.shaping`` = w, 0 = off), for games whose
self-play rarely reaches an end (Chinese Checkers): the reward between a
player's consecutive afterstates gets the term w·(γ·Φ_p(s') − Φ_p(s_last[p]))
of potential-based shaping (Ng, Harada & Russell 1999), Φ_p the game's
declared leaf evaluation (``GameSpec.heuristic``, inside (−0.5, 0.5);
Chinese Checkers: race progress against the others'). The potential of the
final position is the heuristic of that position too, not 0: final
adaptation's targets get w·(γ·Φ_n(final) − Φ_n(s_last[n])), the terminal
afterstate's table value still moves towards 0. So a player's shaped return
is its final reward plus w·Φ_p(final) (minus the constant w·Φ_p at its first
move): progress at the end counts beside the result, a reinforcement
heuristic in the sense of Cohen-Solal 2020. (With Φ = 0 at the end the
shaping would leave the game's values unchanged, and in Chinese Checkers'
self-play, where most games hit the move limit with a draw, the tables learned
to cancel the race again: docs/results/nplayer_learning.md, Chinese Checkers.)
The tables learn V_p − w·Φ_p, and the agent's value of an afterstate x is
their output plus w·Φ_p(x) (0 + w·Φ_p(x) for a final x), which the greedy
choice maximises: a fresh agent plays greedily on the heuristic.

``LearnerConfig.chance_target = "expected"`` (player-centred chain, games with chance) takes the roll out
of the TD target: when a chance event came just before p's move, the part of p's target that the event and p's
answer decide, r_move + γ·(V_p(s') + w·Φ_p(s')), is replaced by its expectation over the event's outcomes,
each outcome answered greedily (:func:`expected_greedy_score`; the outcomes are the game's declared
``chance_outcome_count`` / ``apply_chance_outcome``, as the expectimax searches use them). The update then
no longer depends on which face came up, the largest source of noise in a dice game's targets; the move
played is still the one the actual roll allows. Both drivers, on farl's own games (the outcomes are applied to
kernel states).

``LearnerConfig.td_chain = "ply"`` swaps the player-centred chain for one
through every ply. With two players it is Alg. 1 of Thill, Bagheri, Koch &
Konen 2014: each ply's afterstate moves towards the next ply's, seen from the
other side, and one eligibility list holds both players' states
(:func:`adapt_previous_ply`). With three or more players there is no "other
side" to negate; every player's values learn on every ply instead: V_j of the
previous ply's afterstate moves towards j's reward since then plus γ·V_j of
this ply's (:func:`adapt_previous_ply`, the chain's extension to N
players, vector-valued TD in the sense of Max-N). A board need not show who
made it (Nim's heaps, EWN's or Chinese Checkers' pieces do not), and j's value
of a position depends on who moves next, so these values are kept per pair:
V_{j|q} in its own weight set for each player j and each maker q (N² sets,
``TDParams.maker_tables``, :func:`table_of`); a mover's greedy choice reads
V_{i|i}, the set a player-centred learner has. The last ply of a game brings
every player's final reward to the afterstate before it, so final adaptation
has nothing left to do on either chain.

The algorithm is written once, as the ``@njit`` steps below (``choose_move``,
``after_move``, ``final_adaptation``). Two drivers feed them:

* :func:`self_play` — the whole episode loop compiled with numba, on the game
  kernels (millions of episodes); it is cached on disk per game (the kernels
  come as a :class:`~farl_envs.core.kernels.Kernels` value) and works
  on borrowed arrays, with every step inlined, so a ply pays no reference
  counting or call overhead (``docs/results/train_speed.md``);
* :func:`play_episode_aec` — a plain PettingZoo AEC loop that uses only the
  public afterstate extension (``afterstates()``, ``rewards``,
  ``terminations`` and ``truncations``), so it works with any env that offers it.

Both draw the same random numbers in the same order, so the same seed gives
the same weights (``tests/test_equivalence.py``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from farl_agents.learners import kernels as K
from farl_agents.ntuple.network import board_indices, board_indices_from, one_layout, value
from farl_agents.ntuple.traces import adapt, adapt_chain, clear_traces, cut_traces, push
from farl_envs.core import hooks as SH
from farl_envs.core.kernel_utils import borrowed, copy_state
from farl_envs.core.rng import rng_argmax, rng_below, rng_choice_mask, rng_uniform
from farl_envs.core.spec import TERMINAL, TO_MOVE


class TDParams(NamedTuple):
    """The scalar settings the compiled steps need (from :class:`LearnerConfig`)."""

    gamma: float
    lam: float
    trace_mode: int          # 0 et, 1 res, 2 rep, 3 rr
    learn_from_random: bool  # T_lrnRM
    tanh_output: bool
    tcl_exp: bool
    tcl_beta: float
    farl: bool               # final adaptation part 1
    farl_terminal: bool      # final adaptation part 2
    reward_scale: float
    reset_all: bool          # res / rr: a random move empties every player's traces (else the mover's)
    ply_chain: bool          # one TD chain through every ply (two players; Thill et al. 2014, Alg. 1)
    shaping: float = 0.0     # w of the progress shaping (0: off); see the module docstring
    episode_plies: int = 0   # training episodes stop after this many plies (0: at the game's end), bootstrapped
    learn_start: bool = False  # the start position is the last afterstate of the player before the first mover
    maker_tables: bool = False  # one weight set per (valuer, maker) pair: the per-ply chain with N > 2 players


class Memory(NamedTuple):
    """Per-episode bookkeeping of every player, plus scratch for the move candidates."""

    last_idx: np.ndarray      # int64[N, n_sym, m]  s_last[p] as table indices
    has_last: np.ndarray      # bool[N]
    last_cum: np.ndarray      # float64[N]  cumulative reward of p when s_last[p] was made
    cum: np.ndarray           # float64[N]  cumulative (scaled) reward so far
    state_idx: np.ndarray     # int64[n_sym, m]     the position before the move (scratch)
    cand_idx: np.ndarray      # int64[n_actions, n_sym, m]
    cand_reward: np.ndarray   # float64[n_actions]  the mover's reward for each candidate
    cand_terminal: np.ndarray  # bool[n_actions]
    cand_action: np.ndarray   # int64[n_actions]
    scores: np.ndarray        # float64[n_actions]
    cand_value: np.ndarray    # float64[n_actions]  V_p of each candidate, filled by a greedy choice
    state: np.ndarray         # int32[state_size]   the compiled loop's position
    after: np.ndarray         # int32[state_size]   scratch for a candidate afterstate
    board: np.ndarray         # int32[2 * n_cells]  scratch: the position's board, then a candidate's
    mask: np.ndarray          # int8[n_actions]     scratch: legal actions
    rewards: np.ndarray       # float64[N]          scratch: a step's reward deltas
    last_mover: np.ndarray    # int64[1]            who made the last afterstate (-1: nobody yet); per-ply chain
    last_potential: np.ndarray  # float64[N]        Φ_p(s_last[p]) (shaping)
    cand_potential: np.ndarray  # float64[n_actions]  Φ_mover of each candidate afterstate (shaping)
    potential_out: np.ndarray   # float64[N]        the heuristic vector of the last afterstate played (shaping)
    ply_cum: np.ndarray       # float64[N]  cumulative reward of every player when the last afterstate was made
    ply_potential: np.ndarray  # float64[N]  every player's Φ of the last afterstate (per-ply chain, shaping)
    pre_chance: np.ndarray    # int32[state_size]   the afterstate before the last chance event (expected targets)
    roll_state: np.ndarray    # int32[state_size]   scratch: one outcome of that event (expected targets)


def make_memory(n_players: int, n_actions: int, n_sym: int, m: int, n_cells: int, state_size: int) -> Memory:
    return Memory(np.zeros((n_players, n_sym, m), np.int64), np.zeros(n_players, np.bool_),
                  np.zeros(n_players), np.zeros(n_players), np.zeros((n_sym, m), np.int64),
                  np.zeros((n_actions, n_sym, m), np.int64),
                  np.zeros(n_actions), np.zeros(n_actions, np.bool_), np.zeros(n_actions, np.int64),
                  np.zeros(n_actions), np.zeros(n_actions), np.zeros(state_size, np.int32),
                  np.zeros(state_size, np.int32),
                  np.zeros(2 * n_cells, np.int32), np.zeros(n_actions, np.int8), np.zeros(n_players),
                  np.full(1, -1, np.int64), np.zeros(n_players), np.zeros(n_actions), np.zeros(n_players),
                  np.zeros(n_players), np.zeros(n_players), np.zeros(state_size, np.int32),
                  np.zeros(state_size, np.int32))


# ----------------------------------------------------------------------------
# The algorithm (shared by both drivers)
# ----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def start_episode(mem, traces, carry_traces):
    """Forget every s_last[p] and the rewards; empty the eligibility lists unless carried over."""
    mem.has_last[:] = False
    mem.cum[:] = 0.0
    mem.last_cum[:] = 0.0
    mem.last_mover[0] = -1
    mem.last_potential[:] = 0.0
    mem.ply_cum[:] = 0.0
    mem.ply_potential[:] = 0.0
    if not carry_traces:
        clear_traces(traces)


@njit(cache=True, inline="always")
def table_of(prm, n_players, valuer, maker):
    """The weight set holding ``valuer``'s value of an afterstate ``maker`` made: the valuer's own set, or with
    ``prm.maker_tables`` (the per-ply chain with three or more players) the set of that pair."""
    return valuer * n_players + maker if prm.maker_tables else valuer


@njit(cache=True, inline="always")
def choose_move(net, prm, mem, player, n_cand, epsilon, rng):
    """ε-greedy choice among the ``n_cand`` candidates in ``mem`` (Alg. 6).

    Greedy score of a candidate afterstate x: r + γ·V_p(x), with V = 0 when x
    ends the game; with shaping, plus w·Φ_p(x) (the agent's value, see the
    module docstring). Ties are broken uniformly at random. Returns
    ``(candidate, was_random)``. A greedy choice leaves each V_p(x) (the
    network's part) in ``mem.cand_value`` (the TD target of this move reuses it).
    """
    if epsilon > 0.0 and rng_uniform(rng) < epsilon:
        return rng_below(rng, n_cand), True
    greedy_scores(net, prm, mem, player, n_cand)
    return rng_argmax(mem.scores, n_cand, rng), False


@njit(cache=True, inline="always")
def greedy_scores(net, prm, mem, player, n_cand):
    """``mem.scores[k]`` = r + γ·(V_p(x) + w·Φ_p(x)) of each candidate x, V = 0 when x ends the game (the
    network's part V_p(x) to ``mem.cand_value[k]``); returns the highest score (−inf without candidates)."""
    own = table_of(prm, mem.cum.shape[0], player, player)
    best = -np.inf
    for k in range(n_cand):
        v = 0.0 if mem.cand_terminal[k] else value(net, own, 0, mem.cand_idx[k], prm.tanh_output)
        mem.cand_value[k] = v
        if prm.shaping != 0.0:
            v += prm.shaping * mem.cand_potential[k]
        mem.scores[k] = mem.cand_reward[k] + prm.gamma * v
        best = max(best, mem.scores[k])
    return best


@njit(cache=True)
def expected_greedy_score(kernels, hooks, pot, p, net, prm, mem):
    """The expectation, over the outcomes of the chance event that follows the afterstate ``mem.pre_chance``, of
    the best greedy score (:func:`greedy_scores`) of the player who moves after it: the part of that player's TD
    target that the event and its answer decide, under ``chance_target = "expected"`` (module docstring).

    An outcome that leaves no legal move counts 0. Uses ``mem.roll_state`` and the candidate arrays as scratch
    (so the caller fills the actual position's candidates afterwards)."""
    total = 0.0
    for i in range(SH.chance_outcome_count(hooks, p, mem.pre_chance)):
        copy_state(mem.pre_chance, mem.roll_state)
        prob = SH.apply_chance_outcome(hooks, p, mem.roll_state, i)
        n = fill_candidates(kernels, pot, p, mem.roll_state, net, prm, mem)
        if n > 0:
            total += prob * greedy_scores(net, prm, mem, mem.roll_state[TO_MOVE], n)
    return total


@njit(cache=True, inline="always")
def adapt_towards(net, traces, prm, player, idx, target, alpha):
    """One TD(λ)-with-horizon update of V_player(idx) towards ``target``."""
    v = value(net, player, 0, idx, prm.tanh_output)
    grad = 1.0 - v * v if prm.tanh_output else 1.0
    adapt(net, traces, player, 0, idx, target - v, grad, alpha, prm.lam, prm.trace_mode,
          prm.tcl_exp, prm.tcl_beta)


@njit(cache=True, inline="always")
def next_value(net, prm, table, after_idx, next_terminal, after_value):
    """The new afterstate's value in weight set ``table`` (a player's own, :func:`table_of`) for a TD target: 0
    when the game ends, ``after_value`` when the caller knows it (not NaN), else read from the tables."""
    if next_terminal:
        return 0.0
    if after_value == after_value:
        return after_value
    return value(net, table, 0, after_idx, prm.tanh_output)


@njit(cache=True, inline="always")
def after_move(net, traces, prm, mem, player, after_idx, step_rewards, next_terminal, was_random, alpha, train,
               after_value, after_potential, expected_score=np.nan):
    """Everything that follows ``player``'s move (Alg. 2, AdaptAgentV and FinalAdaptAgents).

    ``after_idx``: the move's afterstate s'; ``step_rewards``: the reward delta
    of every player for this step; ``next_terminal``: whether the next state
    s'' (after any chance event) ends the game; ``after_value``: V_player(s')
    when the caller knows it from the choice of the move (no weight has changed
    since), NaN to compute it here; ``after_potential``: Φ_player(s') (shaping;
    at the end of the game ``mem.potential_out`` holds every player's Φ of s'); ``expected_score``: under
    ``chance_target = "expected"`` the expectation of the move's part of the target over the chance event before
    it (:func:`expected_greedy_score`), NaN for the sampled target.
    """
    for i in range(mem.cum.shape[0]):
        mem.cum[i] += step_rewards[i] * prm.reward_scale
    if prm.ply_chain:
        if train:
            adapt_previous_ply(net, traces, prm, mem, player, after_idx, next_terminal, was_random, alpha,
                               after_value)
        mem.last_mover[0] = player
        for i in range(mem.cum.shape[0]):
            mem.ply_cum[i] = mem.cum[i]
            if prm.shaping != 0.0:  # every player's Φ of s' (the drivers fill potential_out after each move)
                mem.ply_potential[i] = mem.potential_out[i]
    elif train and mem.has_last[player]:
        r = mem.cum[player] - mem.last_cum[player]
        if expected_score == expected_score:  # the move's reward, value and potential, in expectation over the roll
            target = r - step_rewards[player] * prm.reward_scale + expected_score
            if prm.shaping != 0.0:
                target -= prm.shaping * mem.last_potential[player]
        else:
            v_next = next_value(net, prm, player, after_idx, next_terminal, after_value)
            if prm.shaping != 0.0:  # r + w·(γ·Φ(s') - Φ(s_last)), Φ of a final s' included
                r += prm.shaping * (prm.gamma * after_potential - mem.last_potential[player])
            target = r + prm.gamma * v_next
        if was_random and not prm.learn_from_random:
            if prm.trace_mode == 1 or prm.trace_mode == 3:  # res / rr: a random move cuts the traces
                cut_traces(traces, player, prm.reset_all)
        else:
            adapt_towards(net, traces, prm, player, mem.last_idx[player], target, alpha)
    copy_indices(after_idx, mem.last_idx[player])  # a loop: an array slice assignment costs seconds of compiling
    mem.has_last[player] = True
    mem.last_cum[player] = mem.cum[player]
    if prm.shaping != 0.0:
        mem.last_potential[player] = after_potential
    if train and next_terminal and not prm.ply_chain:
        final_adaptation(net, traces, prm, mem, player, after_idx, alpha)


@njit(cache=True, inline="always")
def adapt_previous_ply(net, traces, prm, mem, player, after_idx, next_terminal, was_random, alpha, after_value):
    """The TD chain through every ply: the previous ply's afterstate s learns from ``player``'s new one, s'.

    Two players (Thill, Bagheri, Koch & Konen 2014, Alg. 1, in player-centred terms): s, made by q (usually the
    opponent), moves towards q's reward since s plus s''s value seen from q's side (V_player(s'), negated when
    q is the opponent; 0 when the game ends). The error, taken from player 0's side, goes down the one list
    (list 0) of both players' recent states, each entry's σ' carrying the sign of its owner's side: this is
    Alg. 1's single value function U = ±V_p with its single trace vector.

    Three or more players (no "other side" to negate): every player j's value of s, V_{j|q}(s), moves towards
    j's reward since s plus γ·V_{j|player}(s') (one weight set per valuer and maker, :func:`table_of`); list j
    holds the chain's recent states with the set each one moves, so each player's error reaches back over every
    ply, whoever made it.

    With shaping each target gets w·(γ·Φ(s') − Φ(s)) of its player. After a random move the update is skipped
    (unless ``learn_from_random``): ``res`` / ``rr`` empty the lists, the others keep s in them (Alg. 1 adds
    every state to the trace), and a random move that ends the game still updates, as in Alg. 1. One loop
    serves both cases, so the compiled self-play inlines :func:`adapt_chain` once for this chain.
    """
    q = mem.last_mover[0]
    if q < 0:
        return
    resetting = prm.trace_mode == 1 or prm.trace_mode == 3
    skipped = was_random and not prm.learn_from_random and (resetting or not next_terminal)
    if skipped and resetting:
        clear_traces(traces)
        return
    n = mem.cum.shape[0]
    two = n == 2
    s_idx = mem.last_idx[q]
    for j in range(1 if two else n):
        valuer = q if two else j       # whose value of s moves (two players: q's, the other's is its negative)
        owner = table_of(prm, n, valuer, q)
        sign = -1.0 if two and q == 1 else 1.0
        v_own = value(net, owner, 0, s_idx, prm.tanh_output)
        grad = 1.0 - v_own * v_own if prm.tanh_output else 1.0
        if skipped:
            push(traces, j, owner, 0, s_idx, sign * grad)
            continue
        who = table_of(prm, n, player if two else j, player)  # the set that values s'
        known = after_value if who == table_of(prm, n, player, player) else np.nan
        v_next = next_value(net, prm, who, after_idx, next_terminal, known)
        if two and player != q:
            v_next = -v_next
        delta = mem.cum[valuer] - mem.ply_cum[valuer] + prm.gamma * v_next - v_own
        if prm.shaping != 0.0:
            delta += prm.shaping * (prm.gamma * mem.potential_out[valuer] - mem.ply_potential[valuer])
        adapt_chain(net, traces, j, owner, 0, s_idx, sign * delta, sign * grad, alpha, prm.lam, prm.trace_mode,
                    prm.tcl_exp, prm.tcl_beta)


@njit(cache=True, inline="always")
def final_adaptation(net, traces, prm, mem, mover, after_idx, alpha):
    """FARL: part 1 adapts the others' s_last towards their final reward, part 2 the terminal afterstate towards 0.

    With shaping the others' targets get their last shaping term, w·(γ·Φ_n(final) − Φ_n(s_last[n])), Φ_n(final)
    from ``mem.potential_out``; the terminal afterstate's target stays 0.

    Both parts go through one call of :func:`adapt_towards` (numba inlines a call site's whole body: one site
    instead of two keeps the compiled loop and its compile time smaller). Step ``n`` < N adapts player ``n``'s
    ``s_last`` (not the mover's), step N the mover's terminal afterstate.
    """
    n_players = mem.cum.shape[0]
    for n in range(n_players + 1):
        terminal_step = n == n_players
        if terminal_step:
            if not prm.farl_terminal:
                continue
            who, target = mover, 0.0
        else:
            if not (prm.farl and n != mover and mem.has_last[n]):
                continue
            who, target = n, mem.cum[n] - mem.last_cum[n]
            if prm.shaping != 0.0:
                target += prm.shaping * (prm.gamma * mem.potential_out[n] - mem.last_potential[n])
        adapt_towards(net, traces, prm, who, after_idx if terminal_step else mem.last_idx[who], target, alpha)


# ----------------------------------------------------------------------------
# Driver 1: the compiled self-play loop on the game kernels
# ----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def random_opening(kernels, p, s, plies, mask, rewards, agent_rng, env_rng):
    """choose-start-01: play ``plies`` uniformly random plies (no learning on them)."""
    for _ in range(plies):
        if s[TERMINAL]:
            return
        K.legal_actions(kernels, p, s, mask)
        K.afterstate(kernels, p, s, rng_choice_mask(agent_rng, mask), s, rewards)
        if s[TERMINAL] == 0:
            K.chance(kernels, p, s, env_rng)


@njit(cache=True, inline="always")
def fill_candidates(kernels, pot, p, s, net, prm, mem):
    """Afterstate indices, mover's reward and terminal flag of every legal action; returns their count.

    The indices of each afterstate are derived from those of ``s`` (only the
    tuples over changed cells are recomputed); ``mem``'s ``after``, ``board``,
    ``mask`` and ``rewards`` are the scratch. With shaping, Φ_mover of each
    candidate goes to ``mem.cand_potential`` (``pot``: the game's
    :class:`~farl_agents.learners.kernels.Potential`).
    """
    n_cells = mem.board.shape[0] // 2
    K.board(kernels, p, s, mem.board[:n_cells])
    board_indices(net, mem.board[:n_cells], mem.state_idx)
    return fill_candidates_known(kernels, pot, p, s, net, prm, mem)


@njit(cache=True, inline="always")
def fill_candidates_known(kernels, pot, p, s, net, prm, mem):
    """:func:`fill_candidates` when ``mem.board``'s first half and ``mem.state_idx`` already hold ``s``'s board and
    indices (the self-play loop carries them over from the chosen candidate when no chance event followed)."""
    player = s[TO_MOVE]
    K.legal_actions_inline(kernels, p, s, mem.mask)
    n_cells = mem.board.shape[0] // 2
    here, there = mem.board[:n_cells], mem.board[n_cells:]
    n = 0
    for a in range(mem.mask.shape[0]):
        if mem.mask[a]:
            K.afterstate_inline(kernels, p, s, a, mem.after, mem.rewards)
            K.board_inline(kernels, p, mem.after, there)
            board_indices_from(net, here, mem.state_idx, there, mem.cand_idx[n])
            mem.cand_reward[n] = mem.rewards[player] * prm.reward_scale
            mem.cand_terminal[n] = mem.after[TERMINAL] != 0
            mem.cand_action[n] = a
            if prm.shaping != 0.0:
                mem.cand_potential[n] = K.potential(pot, p, mem.after, mem.potential_out, player)
            n += 1
    return n


@njit(cache=True, inline="always")
def copy_indices(src, dst):
    """``dst[...] = src`` for two index tables of one shape, as a loop (see :func:`after_move`)."""
    for j in range(src.shape[0]):
        for i in range(src.shape[1]):
            dst[j, i] = src[j, i]


@njit(cache=True)
def self_play(kernels, pot, p, net, prm, mem, traces, alphas, epsilons, start_prob, start_plies, carry_traces,
              agent_rng, env_rng, results, hooks=None):
    """Train by self-play for ``len(alphas)`` episodes (episode k uses ``alphas[k]``, ``epsilons[k]``).

    ``kernels`` is the game's :func:`~farl_agents.learners.kernels.kernels_of`, ``pot`` its
    :func:`~farl_agents.learners.kernels.potential_of` (shaping's Φ, or none), ``hooks`` its
    :func:`~farl_envs.core.hooks.hooks_of` for ``chance_target = "expected"`` (None: sampled
    targets; numba then compiles no part of the expectation).
    ``results[k]`` receives episode k's final cumulative (unscaled) reward of
    every player followed by its number of plies.

    The loop itself is :func:`self_play_loop`, which sees the net through
    :func:`~farl_agents.ntuple.network.one_layout`: it is compiled once per game for nets with and without TCL,
    and only this small outer call once per table layout.
    """
    self_play_loop(kernels, pot, p, one_layout(net), prm, mem, traces, alphas, epsilons, start_prob, start_plies,
                   carry_traces, agent_rng, env_rng, results, hooks)


@njit(cache=True)
def self_play_loop(kernels, pot, p, net, prm, mem, traces, alphas, epsilons, start_prob, start_plies,
                   carry_traces, agent_rng, env_rng, results, hooks):
    """:func:`self_play`'s loop, for nets of one numba type (:func:`~farl_agents.ntuple.network.one_layout`)."""
    # every array argument is held by the caller until we return: borrow them (no reference counting)
    p, net, mem, traces = borrowed(p), borrowed(net), borrowed(mem), borrowed(traces)
    alphas, epsilons, results = borrowed(alphas), borrowed(epsilons), borrowed(results)
    agent_rng, env_rng = borrowed(agent_rng), borrowed(env_rng)
    n_players = mem.cum.shape[0]
    s = mem.state
    for e in range(alphas.shape[0]):
        copy_state(K.initial_state(kernels, p, env_rng), s)
        if start_prob > 0.0 and rng_uniform(agent_rng) < start_prob:
            random_opening(kernels, p, s, start_plies, mem.mask, mem.rewards, agent_rng, env_rng)
        start_episode(mem, traces, carry_traces)
        plies = 0
        known = False  # mem.board / mem.state_idx hold s (the chosen afterstate's, when no chance event followed)
        rolled = False  # a chance event followed the last move, from mem.pre_chance (expected targets)
        while s[TERMINAL] == 0 and (prm.episode_plies == 0 or plies < prm.episode_plies):
            player = s[TO_MOVE]
            expected = np.nan
            if hooks is not None:
                if rolled and mem.has_last[player]:  # before the candidates: it uses their arrays as scratch
                    expected = expected_greedy_score(kernels, hooks, pot, p, net, prm, mem)
            if not known:
                K.board_inline(kernels, p, s, mem.board[: mem.board.shape[0] // 2])
                board_indices(net, mem.board[: mem.board.shape[0] // 2], mem.state_idx)
            n = fill_candidates_known(kernels, pot, p, s, net, prm, mem)
            if plies == 0 and prm.learn_start and not prm.ply_chain:  # GBG: V(start) learns from the first move
                before = (player - 1 + n_players) % n_players
                copy_indices(mem.state_idx, mem.last_idx[before])
                mem.has_last[before] = True
            k, was_random = choose_move(net, prm, mem, player, n, epsilons[e], agent_rng)
            K.afterstate(kernels, p, s, mem.cand_action[k], s, mem.rewards)
            if prm.shaping != 0.0:  # every player's Φ of the afterstate played, for final adaptation
                K.potential(pot, p, s, mem.potential_out, player)
            known = True
            if s[TERMINAL] == 0:
                if hooks is not None:
                    copy_state(s, mem.pre_chance)
                known = K.chance_inline(kernels, p, s, env_rng) < 0  # -1: no chance event, s is the afterstate
            rolled = not known
            after_move(net, traces, prm, mem, player, mem.cand_idx[k], mem.rewards, s[TERMINAL] != 0, was_random,
                       alphas[e], True, np.nan if was_random else mem.cand_value[k], mem.cand_potential[k], expected)
            if known and s[TERMINAL] == 0:
                K.board_inline(kernels, p, s, mem.board[: mem.board.shape[0] // 2])
                copy_indices(mem.cand_idx[k], mem.state_idx)
            plies += 1
        for i in range(n_players):
            results[e, i] = mem.cum[i] / prm.reward_scale
        results[e, n_players] = plies


# ----------------------------------------------------------------------------
# Driver 2: the plain AEC loop, public afterstate extension only
# ----------------------------------------------------------------------------
def play_episode_aec(env, net, prm, mem, traces, alpha: float, epsilon: float, agent_rng,
                     start_prob: float = 0.0, start_plies: int = 0, carry_traces: bool = False,
                     train: bool = True, pot: K.Potential = K.NO_POTENTIAL, p=None, kernels=None,
                     hooks=None) -> dict:
    """Play one self-play episode through ``env``'s AEC loop, learning as :func:`self_play` does.

    ``env`` is reset by the caller. Uses only ``env.unwrapped.afterstates()``,
    the observations' action masks, ``rewards`` and ``terminations`` / ``truncations`` (a game stopped by a
    move cap is truncated; the compiled loop ends it on the kernel's terminal flag like any other end).
    With shaping (``prm.shaping`` not 0) Φ of each candidate comes from ``pot`` on the afterstate's kernel
    state (``Afterstate.state``) and the game's parameter vector ``p``: farl's own envs only. So do expected
    targets (``hooks``: the game's chance hooks, with its learner ``kernels``): the played afterstate's kernel
    state is the position before the chance event, whose outcomes :func:`expected_greedy_score` enumerates
    when the mover of the next turn has a last afterstate to adapt.
    Returns the final cumulative reward of every agent.
    """
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    if start_prob > 0.0 and rng_uniform(agent_rng) < start_prob:
        for _ in range(start_plies):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng_choice_mask(agent_rng, np.asarray(obs["action_mask"], dtype=np.int8))))
    start_episode(mem, traces, carry_traces)
    step_rewards = np.zeros(len(agents))
    totals = dict.fromkeys(agents, 0.0)
    plies = 0
    rolled = False  # a chance event followed the last afterstate played, held in mem.pre_chance (expected targets)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if prm.episode_plies and plies >= prm.episode_plies:  # a time limit of training: no final adaptation
            break
        plies += 1
        player = agents.index(agent)
        expected = np.nan
        if hooks is not None and rolled and mem.has_last[player]:
            expected = expected_greedy_score(kernels, hooks, pot, p, net, prm, mem)
        options = raw.afterstates()
        n = 0
        for a, after in options.items():
            board_indices(net, np.asarray(after.board, dtype=np.int32), mem.cand_idx[n])
            mem.cand_reward[n] = after.rewards[agent] * prm.reward_scale
            mem.cand_terminal[n] = after.terminal
            mem.cand_action[n] = a
            if prm.shaping != 0.0:
                mem.cand_potential[n] = K.potential(pot, p, after.state, mem.potential_out, player)
            n += 1
        k, was_random = choose_move(net, prm, mem, player, n, epsilon, agent_rng)
        played = options[int(mem.cand_action[k])]
        if prm.shaping != 0.0:  # every player's Φ of the afterstate played, for final adaptation
            K.potential(pot, p, played.state, mem.potential_out, player)
        env.step(int(mem.cand_action[k]))
        rolled = hooks is not None and not played.terminal and SH.chance_outcome_count(hooks, p, played.state) > 0
        if rolled:
            mem.pre_chance[:] = played.state
        for i, ag in enumerate(agents):
            step_rewards[i] = raw.rewards.get(ag, 0.0)
            totals[ag] += step_rewards[i]
        after_move(net, traces, prm, mem, player, mem.cand_idx[k], step_rewards,
                   bool(raw.terminations.get(agent, False) or raw.truncations.get(agent, False)), was_random,
                   alpha, train, np.nan, mem.cand_potential[k], expected)
    return totals
