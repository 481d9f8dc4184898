"""AlphaZero's training loop: batched self-play with PUCT, a replay buffer, policy and value updates (torch).

One *self-play step* moves every game of a batch of ``games`` envs (:func:`farl_envs.vector.make`) once:

1. a search tree per game from its position, ``simulations`` PUCT simulation steps over all trees, each
   step's leaves evaluated in one network call (:func:`~.search.run_search`), Dirichlet noise
   ``Dir(alpha)`` mixed into the root priors with weight ``noise_weight``;
2. the move: for the first ``temperature_plies`` plies of a game drawn in proportion to the root visits
   (temperature 1), then the most visited (temperature → 0);
3. each position is kept with its visit distribution π (the policy target) until its game ends; then its
   value target is the return vector of the rest of the game, mover-relative (``z[k]``: seat ``(m + k) %
   n_players``) on the [-1, 1] scale, and it enters the replay buffer (the newest ``replay_size`` kept);
4. ``replay_ratio`` training positions per new position are drawn from the buffer in batches of
   ``batch_size``, each with a random one of the game's symmetries where they apply
   (:mod:`~.symmetry`); the loss is the policy cross-entropy ``-Σ π log p`` (softmax over the legal actions)
   plus the value mean squared error, minimised by Adam with weight decay (Silver et al. 2018's loss, the
   value a vector as Petosa & Balch 2019's).

:meth:`SelfPlay.state_arrays` / :meth:`SelfPlay.restore` hold what a checkpoint needs: the optimizer's
moments, the counters, the numpy and torch generators and the replay buffer. The games under way at a
checkpoint are not saved: a resumed run starts new ones (the env seed moves on with the games played), so a
resumed run is a consistent run, not a bit-identical one (the budget is time anyway).
"""
from __future__ import annotations

import time

import numpy as np

import farl_envs
import farl_envs.vector
from farl_agents.alphazero.network import Evaluator, build_net
from farl_agents.alphazero.search import Trees, dirichlet_noise, root_visits, run_search, search_kernels, value_scale
from farl_agents.alphazero.symmetry import Augmenter, observation_symmetries
from farl_agents.ntuple.budget import human, memory_limit
from farl_envs.core.spec import PLY, TERMINAL

MAX_CREDIT = 16
"""Network updates owed by self-play that may pile up before the buffer holds a batch (then paid at once)."""


class SelfPlay:
    """The learner of an AlphaZero run: network, optimizer, self-play games, replay buffer (module docstring)."""

    def __init__(self, config, game):
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.config = c = config
        self.game = game
        torch.manual_seed(c.seed)
        self.net = build_net(game, c.network, c.filters, c.blocks, c.hidden)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=c.learning_rate, weight_decay=c.weight_decay)
        self.rng = np.random.default_rng(c.seed)
        self.evaluate = Evaluator(self.net)
        self.kernels = search_kernels(game)
        self.mid, self.half = value_scale(game)
        sym = observation_symmetries(game) if c.symmetries else None
        self.augment = Augmenter(game, sym) if sym is not None else None
        self.alpha = c.alpha(game)
        self.sampled_plies = c.sampled_plies(game)
        a, n = game.n_actions, game.n_players
        cap = c.replay_size
        need = Trees.bytes_for(game, c.games, c.simulations + 1) + cap * (int(np.prod(game.obs_shape)) + 5 * a + 4 * n)
        if need > memory_limit():
            raise ValueError(f"{c.games} search trees of {c.simulations + 1} nodes and a replay buffer of {cap:,} "
                             f"positions on {game.id} need {human(need)}; the limit is {human(memory_limit())}")
        self.trees = Trees(game, c.games, c.simulations + 1)
        self.buf_obs = np.zeros((cap,) + tuple(game.obs_shape), dtype=np.int8)
        self.buf_pi = np.zeros((cap, a), dtype=np.float32)
        self.buf_mask = np.zeros((cap, a), dtype=np.bool_)
        self.buf_z = np.zeros((cap, n), dtype=np.float32)
        self.buf_size = 0
        self.buf_next = 0
        self.games_played = 0
        self.positions = 0
        self.updates = 0
        self.elapsed = 0.0
        self.credit = 0.0
        self.last_loss = (float("nan"), float("nan"))
        self.envs = None

    # ------------------------------------------------------------ self-play
    def _start_games(self) -> None:
        g, c = self.game, self.config
        seed = (c.seed * 1_000_003 + self.games_played) % 2**63
        self.envs = farl_envs.vector.make(g.name, c.games, seed=seed, copy=False, **g.params)
        obs, info = self.envs.reset()
        self.obs, self.masks = obs, info["action_mask"]
        self.returns = np.zeros((c.games, g.n_players))
        self.records: list[list] = [[] for _ in range(c.games)]
        words = np.random.default_rng([c.seed, self.games_played]).integers(1, 2**63, size=c.games)
        self.env_rngs = words.astype(np.uint64).reshape(c.games, 1)  # the searches' chance draws

    def step(self) -> tuple[int, float, float]:
        """One self-play move in every game, then the network updates it pays for; returns (games finished,
        sum of player 0's returns in them, sum of their plies)."""
        if self.envs is None:
            self._start_games()
        g, c, t = self.game, self.config, self.trees
        roots = self.envs.kernel_states()
        active = roots[:, TERMINAL] == 0
        noise = dirichlet_noise(self.rng, self.masks, self.alpha) if c.noise_weight > 0 else None
        run_search(t, g, self.kernels, roots, active, c.simulations, self.evaluate, c.c_puct, noise, c.noise_weight,
                   self.env_rngs)
        counts = np.zeros((c.games, g.n_actions))
        root_visits(t.children, t.visits, active, counts)
        counts *= self.masks
        total = counts.sum(axis=1, keepdims=True)
        pi = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
        actions = np.zeros(c.games, dtype=np.int64)
        for i in np.flatnonzero(active):
            if roots[i, PLY] < self.sampled_plies:
                actions[i] = self.rng.choice(g.n_actions, p=pi[i])
            else:
                best = np.flatnonzero(counts[i] == counts[i].max())
                actions[i] = best[0] if len(best) == 1 else self.rng.choice(best)
            self.records[i].append((self.obs[i].copy(), pi[i].astype(np.float32), self.masks[i].copy(),
                                    int(roots[i, 0]), self.returns[i].copy()))
        self.obs, rewards, terminated, truncated, info = self.envs.step(actions)
        self.masks = info["action_mask"]
        self.returns += rewards
        finished, reward0, plies = 0, 0.0, 0.0
        for i in np.flatnonzero(terminated | truncated):
            self._store(self.records[i], self.returns[i])
            finished += 1
            reward0 += float(self.returns[i, 0])
            plies += len(self.records[i])
            self.records[i] = []
            self.returns[i] = 0.0
        self.games_played += finished
        new = int(active.sum())
        self.positions += new
        self.credit = min(self.credit + new * c.replay_ratio / c.batch_size, float(MAX_CREDIT) + 1.0)
        while self.credit >= 1.0 and self.buf_size >= min(c.batch_size, c.replay_size):
            self.update()
            self.credit -= 1.0
        return finished, reward0, plies

    def _store(self, records: list, final: np.ndarray) -> None:
        n = self.game.n_players
        for obs, pi, mask, mover, before in records:
            future = (final - before - self.mid) / self.half
            k = self.buf_next
            self.buf_obs[k], self.buf_pi[k], self.buf_mask[k] = obs, pi, mask
            self.buf_z[k] = np.clip(np.roll(future, -mover)[:n], -1.0, 1.0)
            self.buf_next = (k + 1) % self.config.replay_size
            self.buf_size = min(self.buf_size + 1, self.config.replay_size)

    def update(self) -> None:
        """One Adam step on a batch drawn from the replay buffer (module docstring, step 4)."""
        torch, c = self.torch, self.config
        idx = self.rng.integers(0, self.buf_size, size=min(c.batch_size, self.buf_size))
        obs, pi, mask = self.buf_obs[idx], self.buf_pi[idx], self.buf_mask[idx]
        if self.augment is not None:
            obs, pi, mask = self.augment(obs, pi, mask, self.rng)
        x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
        logits, values = self.net(x)
        logits = logits.masked_fill(~torch.from_numpy(np.ascontiguousarray(mask)), -1e9)
        policy_loss = -(torch.from_numpy(np.ascontiguousarray(pi)) * torch.log_softmax(logits, dim=1)).sum(1).mean()
        value_loss = torch.mean((values - torch.from_numpy(self.buf_z[idx])) ** 2)
        loss = policy_loss + value_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.updates += 1
        self.last_loss = (float(policy_loss.detach()), float(value_loss.detach()))

    def run(self, seconds: float) -> tuple[int, float, float]:
        """Self-play steps until ``seconds`` have passed (at least one step; wall-clock, or CPU time of the
        process with ``cpu_clock``); adds them to ``elapsed``."""
        clock = time.process_time if self.config.cpu_clock else time.perf_counter
        start = clock()
        games, reward0, plies = 0, 0.0, 0.0
        while True:
            f, r, p = self.step()
            games, reward0, plies = games + f, reward0 + r, plies + p
            if clock() - start >= seconds:
                break
        self.elapsed += clock() - start
        return games, reward0, plies

    def compile(self) -> None:
        """Compile the search loops and the batched env's for this game (or load them from numba's cache),
        touching no weight and no generator: a throw-away env stepped once, two simulations on a throw-away
        tree with a constant evaluator."""
        g = self.game
        trees = Trees(g, 1, 2)
        root = np.zeros((1, g.state_size), dtype=np.int32)
        root[0] = g.initial_state(g.p, np.array([1], dtype=np.uint64))
        out = np.zeros((1, g.n_actions))

        def zeros(obs, masks):
            return np.zeros((len(obs), g.n_actions), np.float32), np.zeros((len(obs), g.n_players), np.float32)

        envs = farl_envs.vector.make(g.name, 1, seed=0, copy=False, **g.params)  # the batched env's loops
        envs.reset()
        envs.step(envs.random_actions())
        active = np.ones(1, dtype=np.bool_)
        run_search(trees, g, self.kernels, root, active, 2, zeros, 1.0, np.zeros((1, g.n_actions)), 0.25,
                   np.array([[1]], dtype=np.uint64))
        root_visits(trees.children, trees.visits, active, out)

    # ------------------------------------------------------------ checkpoints
    def state_arrays(self) -> tuple[dict, dict]:
        """``(meta, arrays)`` of the training state besides the weights: counters and the numpy generator in
        ``meta`` (JSON), Adam's moments, torch's generator and the replay buffer as arrays."""
        meta = {"games": self.games_played, "positions": self.positions, "updates": self.updates,
                "elapsed": self.elapsed, "credit": self.credit, "buf_size": self.buf_size, "buf_next": self.buf_next,
                "np_rng": _jsonable(self.rng.bit_generator.state)}
        arrays = {"torch_rng": self.torch.get_rng_state().numpy().copy()}
        steps = []
        for i, p in enumerate(self.net.parameters()):
            st = self.optimizer.state.get(p, {})
            if "exp_avg" in st:
                arrays[f"adam/{i}/exp_avg"] = st["exp_avg"].detach().numpy().copy()
                arrays[f"adam/{i}/exp_avg_sq"] = st["exp_avg_sq"].detach().numpy().copy()
                steps.append(float(st["step"]))
            else:
                steps.append(None)
        meta["adam_steps"] = steps
        n = self.buf_size
        arrays.update(replay_obs=self.buf_obs[:n], replay_pi=self.buf_pi[:n], replay_mask=self.buf_mask[:n],
                      replay_z=self.buf_z[:n])
        return meta, arrays

    def state_limits(self, n_params: int) -> dict[str, int]:
        """The members a state file may hold and the most bytes each may take."""
        g, cap = self.game, self.config.replay_size
        limits = {"meta": 4 * 2**20, "torch_rng": 1 << 16, "replay_obs": cap * int(np.prod(g.obs_shape)),
                  "replay_pi": 4 * cap * g.n_actions, "replay_mask": cap * g.n_actions,
                  "replay_z": 4 * cap * g.n_players}
        for i, p in enumerate(self.net.parameters()):
            limits[f"adam/{i}/exp_avg"] = limits[f"adam/{i}/exp_avg_sq"] = 4 * p.numel()
        return limits

    def restore(self, meta: dict, arrays: dict) -> None:
        """Set the training state from :meth:`state_arrays`' output (checked; ``ValueError`` if it does not fit)."""
        torch = self.torch
        n = int(meta["buf_size"])
        if not 0 <= n <= self.config.replay_size or not 0 <= int(meta["buf_next"]) < self.config.replay_size:
            raise ValueError("replay buffer counters out of range")
        for name, buf in (("replay_obs", self.buf_obs), ("replay_pi", self.buf_pi), ("replay_mask", self.buf_mask),
                          ("replay_z", self.buf_z)):
            a = arrays[name]
            if a.shape != (n,) + buf.shape[1:]:
                raise ValueError(f"{name} has shape {a.shape}, not {(n,) + buf.shape[1:]}")
            buf[:n] = a
        params = list(self.net.parameters())
        steps = meta["adam_steps"]
        if not isinstance(steps, list) or len(steps) != len(params):
            raise ValueError("Adam's state does not fit the network")
        for i, (p, step) in enumerate(zip(params, steps)):
            if step is None:
                continue
            m, v = arrays[f"adam/{i}/exp_avg"], arrays[f"adam/{i}/exp_avg_sq"]
            if tuple(m.shape) != tuple(p.shape) or tuple(v.shape) != tuple(p.shape):
                raise ValueError(f"Adam's moments of parameter {i} do not fit the network")
            self.optimizer.state[p] = {"step": torch.tensor(float(step)),
                                       "exp_avg": torch.from_numpy(np.asarray(m, np.float32).copy()),
                                       "exp_avg_sq": torch.from_numpy(np.asarray(v, np.float32).copy())}
        torch.set_rng_state(torch.from_numpy(np.asarray(arrays["torch_rng"], dtype=np.uint8).copy()))
        self.rng.bit_generator.state = meta["np_rng"]
        self.buf_size, self.buf_next = n, int(meta["buf_next"])
        self.games_played, self.positions = int(meta["games"]), int(meta["positions"])
        self.updates, self.elapsed, self.credit = int(meta["updates"]), float(meta["elapsed"]), float(meta["credit"])
        self.envs = None


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, np.integer):
        return int(x)
    return x
