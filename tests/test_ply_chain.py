"""The TD chain through every ply (``LearnerConfig.td_chain = "ply"``) against Alg. 1 of Thill, Bagheri, Koch &
Konen 2014, written here from the paper with dense vectors.

The reference keeps the paper's form: one value function U(s) = tanh(w_p · x(s)) seen from the first player's side,
with one weight vector per player (p: the player who made the position), one trace vector e over both players'
weights, and per ply t (s_t the afterstate of the previous ply, s_{t+1} this ply's)::

    δ = R(s_{t+1}) + U(s_{t+1}) - U(s_t)         (U = 0 for a final s_{t+1})
    RES and a random move:  e = 0
    unless a random move that does not end the game:  w += α/m · δ · e
    e = λ·e + ∇U(s_{t+1})  (REP: the entries active in s_{t+1} are replaced instead)

farl's learner keeps its values from each player's own side (V_p = ±U) in a ring buffer; both play the same
Connect Four 4×5 games from the same random numbers (farl's generator, called in the same order: a draw for
exploration, then a uniform move or a tie-break among equal best scores) and must end with the same values.
Two deliberate differences from the paper's letter, shared by both: the chain starts at the first afterstate (an
afterstate learner has no value for the empty board), and the traces are long enough never to be cut.
"""
from __future__ import annotations

import numpy as np
import pytest

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent
from farl_agents.ntuple.network import board_indices, value
from farl_envs.core.rng import make_rng, rng_argmax, rng_below, rng_uniform
from farl_envs.core.spec import TERMINAL, TO_MOVE

ROWS, COLS = 4, 5
TUPLES = ((15, 16, 17, 18), (10, 11, 12, 13), (15, 10, 5, 0), (17, 12, 7, 2), (16, 12, 8, 4), (18, 12, 6, 0))
ALPHA, LAM, EPSILON, EPISODES = 0.6, 0.5, 0.3, 60


def _config(mode: str, **changes) -> LearnerConfig:
    return LearnerConfig(td_chain="ply", alpha=ALPHA, lam=LAM, epsilon=EPSILON, trace_mode=mode, horizon_cut=1e-12,
                         ntuples="explicit", ntuple_cells=TUPLES, use_symmetry=False, tcl="none", episodes=EPISODES,
                         **changes)


class Reference:
    """Alg. 1 of Thill et al. 2014 with a dense trace vector (see the module docstring)."""

    def __init__(self, game, cfg: LearnerConfig):
        self.g, self.cfg = game, cfg
        self.keys: dict = {}                       # (tuple, its cells' values) -> weight slot
        self.w = np.zeros((2, 4096))
        self.e = np.zeros((2, 4096))
        self.rng = make_rng(cfg.seed)
        self.seen: list[tuple[int, np.ndarray]] = []   # (maker, afterstate), for the comparison

    def active(self, state) -> np.ndarray:
        board = np.zeros(self.g.n_cells, np.int32)
        self.g.board(self.g.p, state, board)
        return np.array([self.keys.setdefault((t, tuple(board[list(cells)])), len(self.keys))
                         for t, cells in enumerate(TUPLES)])

    def u(self, maker: int, state) -> float:
        return float(np.tanh(self.w[maker, self.active(state)].sum()))

    def episode(self) -> tuple[float, int]:
        g, cfg = self.g, self.cfg
        reset, replacing = cfg.trace_mode in ("res", "rr"), cfg.trace_mode in ("rep", "rr")
        step = cfg.alpha / len(TUPLES)
        s = g.initial_state(g.p, make_rng(0))
        self.e[:] = 0.0
        prev = None                                # (maker, afterstate) of the previous ply
        plies, rewards = 0, np.zeros(2)
        while not s[TERMINAL]:
            p = int(s[TO_MOVE])
            sign = 1.0 if p == 0 else -1.0
            mask = np.zeros(g.n_actions, np.int8)
            g.legal_actions(g.p, s, mask)
            moves = np.flatnonzero(mask)
            afters, yellow_rewards = [], []
            for a in moves:
                after, r = np.empty_like(s), np.zeros(2)
                g.afterstate(g.p, s, a, after, r)
                afters.append(after)
                yellow_rewards.append(r[0])
            explore = rng_uniform(self.rng) < cfg.epsilon
            if explore:
                k = rng_below(self.rng, len(moves))
            else:
                scores = np.array([sign * (yellow_rewards[i] if afters[i][TERMINAL] else self.u(p, afters[i]))
                                   for i in range(len(moves))])
                k = rng_argmax(scores, len(moves), self.rng)
            after, final = afters[k], bool(afters[k][TERMINAL])
            if prev is not None:
                delta = yellow_rewards[k] + (0.0 if final else self.u(p, after)) - self.u(*prev)
                if explore and reset:
                    self.e[:] = 0.0
                if not explore or final:
                    self.w += step * delta * self.e
            if not final:
                v = self.u(p, after)
                self.e *= cfg.lam
                hit = self.active(after)
                grad = 1.0 - v * v
                if replacing:
                    self.e[p, hit] = grad
                else:
                    np.add.at(self.e[p], hit, grad)
                self.seen.append((p, after.copy()))
            prev = (p, after)
            g.afterstate(g.p, s, int(moves[k]), s, rewards)
            plies += 1
        return float(rewards[0]), plies


@pytest.mark.parametrize("mode", ["et", "res", "rep", "rr"])
def test_per_ply_chain_matches_the_papers_algorithm(mode):
    cfg = _config(mode)
    game = farl_envs.game_spec("connect_four", rows=ROWS, cols=COLS)
    agent = NTupleAgent(game, cfg)
    ref = Reference(game, cfg)
    ours = agent.train(EPISODES)
    theirs = [ref.episode() for _ in range(EPISODES)]
    # the same games (first player's result and length), so the same moves were chosen
    assert [(float(r[0]), int(r[2])) for r in ours] == theirs
    assert len(ref.seen) > 500 and np.abs(ref.w).max() > 0.05
    for maker, after in ref.seen:
        sign = 1.0 if maker == 0 else -1.0
        assert agent.afterstate_value(after, maker) == pytest.approx(sign * ref.u(maker, after), abs=2e-5)


def test_per_ply_chain_differs_from_the_player_centred_one():
    """The option changes what is learned (a test that the reference comparison above could not pass by
    accident with the player-centred learner)."""
    game = farl_envs.game_spec("connect_four", rows=ROWS, cols=COLS)
    ply = NTupleAgent(game, _config("et"))
    player = NTupleAgent(game, _config("et").replace(td_chain="player"))
    ply.train(EPISODES)
    player.train(EPISODES)
    assert not np.allclose(ply.net.weights, player.net.weights)


# ---------------------------------------------------------------- three players
#: explicit tuples of the two 3-player games below: Nim3P's three heaps, Sim on K6's fifteen edges
NPLAYER_TUPLES = {"nim3p": ((0, 1), (1, 2), (0, 2), (2, 0)),
                  "sim": ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 0), (1, 5, 9, 13), (2, 6, 10, 14),
                          (3, 7, 11, 4))}


class ReferenceN:
    """The per-ply chain with N players, written from its definition with dense vectors: per ply (mover p makes
    s_{t+1}; s_t the previous ply's afterstate, made by q), for every player j::

        δ_j = r_j + w·(γ·Φ_j(s_{t+1}) − Φ_j(s_t)) + γ·V_{j|p}(s_{t+1}) − V_{j|q}(s_t)   (V = 0 for a final s_{t+1})
        unless a random move that does not end the game:  w_j += α/m · δ_j · e_j
        e_j = λ·e_j + ∇V_{j|p}(s_{t+1})

    V_{j|q}(s) = tanh(w_{j,q} · x(s)) is j's value of an afterstate q made: one weight vector per (valuer, maker)
    pair, one trace vector per valuer over all its makers' weights (w_j, e_j); r_j is j's reward of the ply; the
    mover p picks the move with the best r_p + γ·(V_{p|p}(x) + w·Φ_p(x)) (V = 0 for a final x)."""

    def __init__(self, game, cfg: LearnerConfig, potential):
        self.g, self.cfg, self.phi = game, cfg, potential
        self.tuples = cfg.ntuple_cells
        n = game.n_players
        self.keys: dict = {}
        self.w, self.e = np.zeros((n, n, 4096)), np.zeros((n, n, 4096))
        self.rng = make_rng(cfg.seed)
        self.seen: list[tuple[int, np.ndarray]] = []   # (maker, afterstate)

    def active(self, state) -> np.ndarray:
        board = np.zeros(self.g.n_cells, np.int32)
        self.g.board(self.g.p, state, board)
        return np.array([self.keys.setdefault((t, tuple(board[list(cells)])), len(self.keys))
                         for t, cells in enumerate(self.tuples)])

    def v(self, j: int, maker: int, state) -> float:
        return float(np.tanh(self.w[j, maker, self.active(state)].sum()))

    def episode(self) -> tuple[list[float], int]:
        g, cfg, n = self.g, self.cfg, self.g.n_players
        w_shape, gamma = cfg.shaping, cfg.gamma
        step = cfg.alpha / len(self.tuples)
        s = g.initial_state(g.p, make_rng(0))
        self.e[:] = 0.0
        prev = None                                # (maker, afterstate) of the previous ply
        plies, totals = 0, np.zeros(n)
        while not s[TERMINAL]:
            p = int(s[TO_MOVE])
            mask = np.zeros(g.n_actions, np.int8)
            g.legal_actions(g.p, s, mask)
            moves = np.flatnonzero(mask)
            afters, rewards = [], []
            for a in moves:
                after, r = np.empty_like(s), np.zeros(n)
                g.afterstate(g.p, s, a, after, r)
                afters.append(after)
                rewards.append(r)
            explore = rng_uniform(self.rng) < cfg.epsilon
            if explore:
                k = rng_below(self.rng, len(moves))
            else:
                scores = np.array([rewards[i][p] + gamma * ((0.0 if afters[i][TERMINAL] else self.v(p, p, afters[i]))
                                                            + w_shape * self.phi(afters[i])[p])
                                   for i in range(len(moves))])
                # equal sums of the same weights in another order differ here by ~1e-19; farl's tables (float32
                # weights summed in float64) tie them exactly, and a tie draws a random number: round them away
                k = rng_argmax(np.round(scores, 12), len(moves), self.rng)
            after, final = afters[k], bool(afters[k][TERMINAL])
            if prev is not None and (not explore or final):
                q, before = prev
                deltas = [rewards[k][j] + w_shape * (gamma * self.phi(after)[j] - self.phi(before)[j])
                          + gamma * (0.0 if final else self.v(j, p, after)) - self.v(j, q, before) for j in range(n)]
                for j in range(n):
                    self.w[j] += step * deltas[j] * self.e[j]
            for j in range(n):
                vj = self.v(j, p, after)
                self.e[j] *= cfg.lam
                np.add.at(self.e[j, p], self.active(after), 1.0 - vj * vj)
            self.seen.append((p, after.copy()))
            prev = (p, after)
            totals += rewards[k]
            s = after
            plies += 1
        return totals.tolist(), plies


@pytest.mark.parametrize("game, params, shaping, episodes", [
    ("nim3p", {}, 0.0, 150),                       # the game's paper rewards: 0, 1 and 0.2 at the end
    # a player who makes a triangle drops out; Φ: Sim's heuristic (-m slow: this shaped per-ply loop is compiled
    # for this test alone, ~40 CPU s on an empty cache)
    pytest.param("sim", {"players": 3, "nodes": 6}, 0.5, 40, marks=pytest.mark.slow),
])
def test_three_player_per_ply_chain_matches_its_definition(game, params, shaping, episodes):
    """farl's compiled loop against :class:`ReferenceN` on two 3-player games, without progress shaping and (Sim,
    with ``-m slow``) with it, γ < 1 so that a misplaced γ shows: the same games, then the same values of every
    afterstate seen."""
    from farl_agents.learners.kernels import potential

    spec = farl_envs.game_spec(game, **params)
    cfg = LearnerConfig(td_chain="ply", alpha=ALPHA, lam=LAM, epsilon=EPSILON, gamma=0.9, trace_mode="et",
                        horizon_cut=1e-12, ntuples="explicit", ntuple_cells=NPLAYER_TUPLES[game],
                        use_symmetry=False, tcl="none", episodes=episodes, shaping=shaping)
    agent = NTupleAgent(spec, cfg)
    out = np.zeros(3)

    def phi(state):
        potential(agent.potential, spec.p, state, out, 0)
        return out.copy()

    ref = ReferenceN(spec, cfg, phi if shaping else (lambda state: np.zeros(3)))
    ours = agent.train(episodes)
    theirs = [ref.episode() for _ in range(episodes)]
    assert [(list(map(float, r[:3])), int(r[3])) for r in ours] == theirs
    assert len({tuple(t) for t, _ in theirs}) > 1 and np.abs(ref.w).max() > 0.05
    assert agent.net.weights.shape[1] == 9   # a weight set per (valuer, maker) pair
    idx, board = np.zeros(agent.net.sym_cells.shape[:2], np.int64), np.zeros(spec.n_cells, np.int32)
    for maker, after in ref.seen[::7]:
        spec.board(spec.p, after, board)
        board_indices(agent.net, board, idx)
        for j in range(3):
            assert value(agent.net, 3 * j + maker, 0, idx, True) == pytest.approx(ref.v(j, maker, after), abs=2e-5)
        own = agent.afterstate_value(after, maker) - (shaping * phi(after)[maker] if shaping else 0.0)
        assert own == pytest.approx(ref.v(maker, maker, after), abs=2e-5)   # what the greedy choice reads


def test_per_ply_chain_needs_two_players_and_td():
    with pytest.raises(ValueError, match="one player"):
        NTupleAgent("game2048", LearnerConfig(td_chain="ply", ntuples="random-walk", ntuple_count=2, ntuple_length=2))
    with pytest.raises(ValueError, match="td_chain"):
        LearnerConfig(td_chain="ply", algo="sarsa")
    with pytest.raises(ValueError, match="td_chain must be one of"):
        LearnerConfig(td_chain="every-ply")


def test_a_three_player_per_ply_agent_saves_and_loads_its_pair_tables(tmp_path):
    """The N² weight sets go through the agent file and come back the same; the loaded agent trains on
    exactly as the one that stayed in memory."""
    cfg = LearnerConfig(td_chain="ply", lam=0.5, ntuples="explicit", ntuple_cells=NPLAYER_TUPLES["nim3p"],
                        use_symmetry=False, episodes=200)
    agent = NTupleAgent("nim3p", cfg)
    agent.train(100)
    assert agent.net.weights.shape[1] == 9 and np.count_nonzero(agent.net.weights[0, 1]) > 0  # V_{0|1} learnt
    loaded = NTupleAgent.load(agent.save(tmp_path / "a.npz"))
    assert np.array_equal(loaded.net.weights, agent.net.weights)
    assert np.array_equal(loaded.train(100), agent.train(100))
