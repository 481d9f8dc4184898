"""Training with a teacher: a reference player in the seats the TD learner does not play.

Pure self-play shows a learner only what its own play produces. In 3-player Yavalath that is too little: the
TD-FARL agents learn to block every line, so their greedy self-play fills the board without a winner, and no
player in it ever sets Yavalath's trap (a threat whose forced block completes the blocker's own three); the
players they meet at test time set it at once (``docs/results/nplayer_learning.md``, section 7). With a
*teacher* (``LearnerConfig.teacher``, an opponent name such as ``maxn1``), each training episode has one
learning seat (rotating with the episode number) and every other seat is the teacher with probability
``LearnerConfig.teacher_share``, else a learning seat too (self-play). On the player-centred chain only
learning seats learn: a teacher's move adds its rewards to every player's running total, and a game a teacher
ends gives the learning seats their final adaptation (FARL part 1) as any other end does. The learning seats
move and learn exactly as in the compiled self-play (:mod:`farl_agents.learners.td_farl`, whose steps this loop
calls from Python), so without teacher seats an episode is a self-play one.

On the per-ply chain (``td_chain="ply"``) a teacher's move is a ply like any other: its afterstate enters the
chain, learns from the next ply and teaches the ply before, so the teacher's seat's tables learn too (that chain
has no learning seat; the teacher only chooses the moves of its seats). TD only (SARSA/Q would need the
teacher's moves in their chains), and not with ``learn_start``. The loop runs in Python around the compiled
steps; the teacher's own cost per move (Max-N1: ~0.2 ms on Yavalath; MCTS1000: ~40 ms) sets the speed.
"""
from __future__ import annotations

import numpy as np

from farl_agents.learners import kernels as K
from farl_agents.learners.td_farl import (
    after_move,
    choose_move,
    fill_candidates,
    final_adaptation,
    random_opening,
    start_episode,
)
from farl_agents.ntuple.network import board_indices
from farl_envs.core.rng import rng_uniform
from farl_envs.core.spec import TERMINAL, TO_MOVE


def check_teacher(config, game) -> None:
    """``ValueError`` when ``config.teacher`` cannot train on ``game``: it needs two or more players (the
    learner's own settings are checked by ``LearnerConfig``; the name by the run stack, which makes the player:
    the opponents build on the learners, so this package does not import them)."""
    if config.teacher and game.n_players < 2:
        raise ValueError(f"a teacher plays the other seats; {game.id} has one player")


def compile_steps(agent, teacher) -> None:
    """Compile the steps :func:`train_with_teacher` calls (or load them from numba's cache) and the teacher's
    move, without changing a weight or drawing from the agent's generators: a run calls this before its clock
    starts, as it compiles the self-play loop."""
    g, mem, prm = agent.game, agent.memory, agent.params
    s = np.array(g.initial_state(g.p, agent.env_rng.copy()), dtype=np.int32)
    teacher.act(g, s.copy(), agent.agent_rng.copy())
    start_episode(mem, agent.traces, True)  # True: the eligibility traces are left as they are (carry_traces)
    n = fill_candidates(agent.kernels, agent.potential, g.p, s, agent.net, prm, mem)
    choose_move(agent.net, prm, mem, int(s[TO_MOVE]), n, 0.0, agent.agent_rng.copy())
    mem.rewards[:] = 0.0
    after_move(agent.net, agent.traces, prm, mem, int(s[TO_MOVE]), mem.cand_idx[0], mem.rewards, False, False, 0.0,
               False, np.nan, 0.0)  # train=False: nothing learnt
    final_adaptation(agent.net, agent.traces, prm._replace(farl=False, farl_terminal=False), mem, 0, mem.state_idx,
                     0.0)  # both parts off: nothing adapted
    start_episode(mem, agent.traces, True)


def _teacher_move(agent, teacher, s: np.ndarray, alpha: float) -> None:
    """The teacher's move in ``s`` (in place): every player's running total gets its rewards; a move that ends
    the game gives the learning seats their final adaptation (part 1; the teacher's own afterstate is not
    learnt)."""
    g, mem, prm = agent.game, agent.memory, agent.params
    mover = int(s[TO_MOVE])
    a = int(teacher.act(g, s.copy(), agent.agent_rng))
    g.afterstate(g.p, s, a, s, mem.rewards)
    potential = 0.0
    if prm.shaping != 0.0:
        potential = K.potential(agent.potential, g.p, s, mem.potential_out, mover)
    if prm.ply_chain:  # the teacher's afterstate is a ply of the chain (mem.cand_idx[0]: scratch)
        n_cells = mem.board.shape[0] // 2
        g.board(g.p, s, mem.board[:n_cells])
        board_indices(agent.net, mem.board[:n_cells], mem.cand_idx[0])
        after_move(agent.net, agent.traces, prm, mem, mover, mem.cand_idx[0], mem.rewards, bool(s[TERMINAL]),
                   False, alpha, True, np.nan, potential)
        return
    mem.cum[:] += mem.rewards * prm.reward_scale
    if s[TERMINAL]:
        final_adaptation(agent.net, agent.traces, prm._replace(farl_terminal=False), mem, mover, mem.state_idx,
                         alpha)


def _learner_move(agent, s: np.ndarray, alpha: float, epsilon: float) -> None:
    """A learning seat's ε-greedy move in ``s`` (in place) and its TD update, as in the compiled self-play."""
    g, mem, prm = agent.game, agent.memory, agent.params
    n = fill_candidates(agent.kernels, agent.potential, g.p, s, agent.net, prm, mem)
    player = int(s[TO_MOVE])
    k, was_random = choose_move(agent.net, prm, mem, player, n, epsilon, agent.agent_rng)
    g.afterstate(g.p, s, int(mem.cand_action[k]), s, mem.rewards)
    if prm.shaping != 0.0:
        K.potential(agent.potential, g.p, s, mem.potential_out, player)
    after_move(agent.net, agent.traces, prm, mem, player, mem.cand_idx[k], mem.rewards, bool(s[TERMINAL]),
               was_random, alpha, True, np.nan, mem.cand_potential[k])


def train_with_teacher(agent, teacher, alphas: np.ndarray, epsilons: np.ndarray, results: np.ndarray) -> None:
    """``len(alphas)`` episodes (episode k with ``alphas[k]``, ``epsilons[k]``), the first being the agent's
    ``episodes_done``-th; ``results[k]`` gets each player's final reward and the episode's plies, as the compiled
    self-play's. Draws from the agent's own generators only, so a resumed run continues exactly."""
    g, cfg, mem, prm = agent.game, agent.config, agent.memory, agent.params
    n = g.n_players
    for e in range(len(alphas)):
        learner_seat = (agent.episodes_done + e) % n
        teaching = [seat != learner_seat and rng_uniform(agent.agent_rng) < cfg.teacher_share for seat in range(n)]
        s = np.array(g.initial_state(g.p, agent.env_rng), dtype=np.int32)
        if cfg.random_start_prob > 0.0 and rng_uniform(agent.agent_rng) < cfg.random_start_prob:
            random_opening(agent.kernels, g.p, s, cfg.random_start_plies, mem.mask, mem.rewards, agent.agent_rng,
                           agent.env_rng)
        start_episode(mem, agent.traces, bool(cfg.carry_traces))
        plies = 0
        while not s[TERMINAL] and (prm.episode_plies == 0 or plies < prm.episode_plies):
            if teaching[int(s[TO_MOVE])]:
                _teacher_move(agent, teacher, s, float(alphas[e]))
            else:
                _learner_move(agent, s, float(alphas[e]), float(epsilons[e]))
            if g.has_chance and not s[TERMINAL]:
                g.chance(g.p, s, agent.env_rng)
            plies += 1
        results[e, :n] = mem.cum / prm.reward_scale
        results[e, n] = plies
