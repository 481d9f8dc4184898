"""Trained SB3 networks as farl players, and as frozen self-play opponents.

* :class:`SB3Player` — the harness :class:`~farl_agents.players.Player`
  protocol for a MaskablePPO or masked-DQN model: it builds the mover's
  observation from the flat kernel state with the game's ``observe`` and
  ``legal_actions`` kernels (exactly what the Gymnasium wrapper shows the
  network in training) and plays the **masked greedy** action: the argmax
  of the policy logits (PPO) or q-values (DQN) over the legal actions. So a
  trained model plays in :func:`farl_agents.evaluate.evaluate` like any
  n-tuple agent.
* :class:`SnapshotOpponent` — a wrapper opponent (``fn(raw_aec_env) ->
  action``) that queries a **frozen copy** of the learner's policy; the
  :class:`SnapshotCallback` copies the learner's current weights into it
  every ``every`` steps (self-play against recent selves).
"""
from __future__ import annotations

import copy
import os

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.policies import ActorCriticPolicy, BasePolicy
from stable_baselines3.dqn.policies import DQNPolicy

import farl_envs
from farl_agents.baselines.envs import REWARD_SCALE, obs_dim, observe_planes, observe_state
from farl_agents.baselines.files import load_baseline
from farl_agents.opponents.value_protocol import legal_afterstates
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec


class FrozenPolicy:
    """A read-only copy of an SB3 policy's action head: ``scores(obs)`` gives q-values (DQN) or logits (PPO).

    For the usual MLP policies (flatten extractor, Linear/ReLU/Tanh layers)
    the weights are copied into numpy and the forward pass runs in numpy
    float32 — about 10x faster than a torch call for one observation, which
    matters for self-play opponents and evaluation. Other architectures keep
    a deep copy of the torch policy.
    """

    def __init__(self, policy):
        policy = _policy_of(policy)
        self.is_q = isinstance(policy, DQNPolicy)
        self.layers = _numpy_layers(policy)
        self.torch_policy = None
        if self.layers is None:
            self.torch_policy = copy.deepcopy(policy)
            self.torch_policy.set_training_mode(False)

    def scores(self, obs: np.ndarray) -> np.ndarray:
        """``float64[n_actions]`` for one network input (illegal actions not masked)."""
        if self.layers is None:
            return action_scores(self.torch_policy, obs)
        x = np.asarray(obs, dtype=np.float32).reshape(-1)  # the flatten extractor's order
        for w, b, act in self.layers:
            x = x @ w + b
            if act == "relu":
                np.maximum(x, 0.0, out=x)
            elif act == "tanh":
                np.tanh(x, out=x)
        return x.astype(np.float64)


def _numpy_layers(policy):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    from farl_agents.baselines.dqn import MaskedDQNPolicy

    if type(policy) not in (MaskedDQNPolicy, MaskableActorCriticPolicy):
        return None
    if isinstance(policy, MaskedDQNPolicy):
        if not isinstance(policy.q_net.features_extractor, FlattenExtractor):
            return None
        modules = list(policy.q_net.q_net)
    else:
        if not isinstance(policy.pi_features_extractor, FlattenExtractor):
            return None
        modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    layers = []
    for mod in modules:
        if isinstance(mod, nn.Linear):
            w = mod.weight.detach().cpu().numpy().T.astype(np.float32).copy()
            b = (mod.bias.detach().cpu().numpy().astype(np.float32).copy() if mod.bias is not None
                 else np.zeros(w.shape[1], np.float32))
            layers.append([w, b, None])
        elif isinstance(mod, (nn.ReLU, nn.Tanh)) and layers and layers[-1][2] is None:
            layers[-1][2] = "relu" if isinstance(mod, nn.ReLU) else "tanh"
        else:
            return None
    return [tuple(x) for x in layers]


def action_scores(policy, obs: np.ndarray) -> np.ndarray:
    """Per-action scores of a torch ``policy`` for one network input: q-values (DQN) or logits (PPO)."""
    with th.no_grad():
        t = th.as_tensor(obs[None], device=policy.device)
        if isinstance(policy, DQNPolicy):
            out = policy.q_net(t)
        else:
            out = policy.get_distribution(t).distribution.logits
    return out[0].cpu().numpy().astype(np.float64)


def greedy_action(frozen: FrozenPolicy, obs: np.ndarray, mask: np.ndarray) -> int:
    """The masked greedy action: argmax of the scores over the legal actions (first on ties)."""
    scores = frozen.scores(obs)
    scores[np.asarray(mask) == 0] = -np.inf
    return int(np.argmax(scores))


def sample_action(frozen: FrozenPolicy, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                  epsilon: float = 0.1) -> int:
    """A training-style action among the legal ones.

    PPO: drawn from the masked policy distribution. DQN: ε-greedy (uniform
    legal with probability ``epsilon``, else masked greedy).
    """
    legal = np.flatnonzero(mask)
    scores = frozen.scores(obs)
    if frozen.is_q:
        if rng.random() < epsilon:
            return int(legal[rng.integers(len(legal))])
        return int(legal[np.argmax(scores[legal])])
    z = scores[legal] - scores[legal].max()
    p = np.exp(z)
    return int(legal[rng.choice(len(legal), p=p / p.sum())])


def _policy_of(model):
    policy = model.policy if isinstance(model, BaseAlgorithm) else model
    if not isinstance(policy, BasePolicy):
        raise ValueError(f"expected a Stable-Baselines3 model or policy, got {model!r}")
    return policy


class SB3Player:
    """A trained SB3 model as a harness player.

    The model may be farl's (MaskablePPO or :class:`~farl_agents.baselines.dqn.MaskedDQN`
    on :func:`~farl_agents.baselines.envs.make_env`'s observation) or any SB3
    model with a discrete action space trained on a registered
    ``farl/<Game>-v0`` id as it is (observation: the mover's planes).

    Args:
        model: the model, its policy, or a path to a saved model (``.zip``,
            read with :func:`farl_agents.baselines.load_baseline`, which
            never unpickles).
        game: the game name or :class:`GameSpec` the model was trained on.
        name: display name (default ``"ppo"`` / ``"dqn"``).
        **game_params: the game's parameters when ``game`` is a name.

    The player plays the weights the model had when the player was made
    (copied, see :class:`FrozenPolicy`). ``act`` ignores ``rng``: the greedy
    choice is deterministic.
    """

    def __init__(self, model, game, name: str | None = None, **game_params):
        if isinstance(game, str):
            game = farl_envs.game_spec(game, **game_params)
        elif not isinstance(game, GameSpec):
            raise ValueError(f"game must be a game name or a GameSpec, got {game!r}")
        if isinstance(model, (str, bytes, os.PathLike)):
            model = load_baseline(os.fsdecode(model), game)
        self.model = model
        policy = _policy_of(model)
        self.observation_shape = policy.observation_space.shape
        self.n_actions = int(policy.action_space.n)
        self.game = game
        self.planes = self._check(game)
        self.frozen = FrozenPolicy(policy)
        self.name = name if name is not None else ("dqn" if self.frozen.is_q else "ppo")

    def _check(self, game: GameSpec) -> bool:
        """Which observation the model was trained on: ``False`` for farl's baseline encoding
        (:func:`~farl_agents.baselines.envs.encode`, planes + mask, flat), ``True`` for the registered
        ``farl/<Game>-v0`` env's own (the mover's int8 planes); ``ValueError`` for neither."""
        want = tuple(self.observation_shape)
        if self.n_actions == game.n_actions:
            if want == (obs_dim(game),):
                return False
            if want == tuple(game.obs_shape):
                return True
        raise ValueError(f"this model expects observations of shape {want} and {self.n_actions} actions; "
                         f"{game.id} {game.params} gives ({obs_dim(game)},) (farl's baseline encoding) or "
                         f"{tuple(game.obs_shape)} (its Gymnasium id) and {game.n_actions}")

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if game is not self.game and (game.id != self.game.id or game.params != self.game.params):
            self._check(game)
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        obs, mask = observe_state(game, state)
        if self.planes:
            obs = observe_planes(game, state)
        return greedy_action(self.frozen, obs, mask)

    def afterstate_values(self, game: GameSpec, state: np.ndarray) -> np.ndarray:
        """The search wrappers' value protocol (:mod:`farl_agents.opponents.value_protocol`), so
        ``agent:ppo.zip+mcts200`` works: ``float64[n_actions, n_players]``, NaN rows for illegal actions.

        For each legal action ``a`` of ``state`` the row is ``r(state, a)`` plus, unless the move ends the game,
        the network's value of the afterstate ``s_a`` for each player, read from the observation of ``s_a``
        from the view of the player to move next, ``n`` (what the network saw in training, where it always
        moved):

        * MaskablePPO: the value head, ``V(obs_n(s_a))``;
        * DQN: ``max`` of the Q-values of ``obs_n(s_a)`` over the legal actions of ``s_a``.

        That is ``n``'s value. In a two-player game (all zero-sum in farl) the other player gets its negative
        (``-V`` for the mover when the turn passes, which is the usual case). With one player (2048) it is the
        player's own value; with three or more each player ``i`` gets the value of ``obs_i(s_a)``, its own
        view of a position where it is not to move, which the network never saw (a rough estimate, like an
        n-tuple agent's ``V_i``). Values are divided by the training's reward scale
        (:data:`~farl_agents.baselines.envs.REWARD_SCALE`) back into the game's reward units.

        What the number approximates: the *discounted* (the model's gamma) return the network learned against
        its training opponents (random, a snapshot of itself, ...), not against best play; in games with
        chance the afterstate is observed before its chance event (the tile, the die), which training never
        showed. All observations of one call go through one batched forward of the network.
        """
        if game is not self.game and (game.id != self.game.id or game.params != self.game.params):
            raise ValueError(f"{self.name} plays {self.game.id} {self.game.params}, not {game.id} {game.params}")
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        policy = _policy_of(self.model)
        if not isinstance(policy, (MaskableActorCriticPolicy, ActorCriticPolicy, DQNPolicy)):
            raise ValueError(f"{self.name}: a {type(policy).__name__} has neither a value head nor Q-values that "
                             f"the search wrappers can read (MaskablePPO / PPO or DQN)")
        actions, afters, rewards, terminal = legal_afterstates(game, state)
        n_pl = game.n_players
        obs, rows, seats, masks = [], [], [], []
        for k in np.flatnonzero(~terminal):
            nxt = int(afters[k, TO_MOVE])
            for seat in ([nxt] if n_pl == 2 else range(n_pl)):
                o, mask = observe_state(game, afters[k], seat)
                obs.append(observe_planes(game, afters[k], seat) if self.planes else o)
                rows.append(k)
                seats.append(seat)
                masks.append(mask)
        future = np.zeros((len(actions), n_pl))
        if obs:
            with th.no_grad():
                t = policy.obs_to_tensor(np.stack(obs))[0]
                if isinstance(policy, DQNPolicy):
                    q = policy.q_net(t).cpu().numpy().astype(np.float64)
                    v = np.where(np.stack(masks) != 0, q, -np.inf).max(axis=1)
                else:
                    v = policy.predict_values(t).cpu().numpy().astype(np.float64).reshape(-1)
            v = v / REWARD_SCALE.get(game.name, 1.0)
            for k, seat, value in zip(rows, seats, v):
                future[k, seat] = value
                if n_pl == 2:
                    future[k, 1 - seat] = -value
        out = np.full((game.n_actions, n_pl), np.nan)
        out[actions] = rewards + future
        return out

    def __repr__(self) -> str:
        return f"SB3Player({self.name!r}, {self.game.id})"


class SnapshotOpponent:
    """Wrapper opponent that plays a frozen copy of a learner's policy (self-play).

    Until the first :meth:`refresh` it plays uniformly random legal moves.
    Moves are drawn as in training (:func:`sample_action`) unless
    ``deterministic``; the random numbers come from its own generator.

    Attributes:
        refreshes: how many times the weights were copied.
        refreshed_at: the learner's ``num_timesteps`` at the last copy.
    """

    def __init__(self, game: GameSpec, deterministic: bool = False, epsilon: float = 0.1, seed: int = 0):
        self.game = game
        self.deterministic = bool(deterministic)
        self.epsilon = float(epsilon)
        self.rng = np.random.default_rng(seed)
        self.frozen = None
        self.refreshes = 0
        self.refreshed_at = -1
        self.name = "snapshot"

    def refresh(self, model) -> None:
        """Copy ``model``'s current weights into the frozen policy."""
        self.frozen = FrozenPolicy(model)
        self.refreshes += 1
        self.refreshed_at = int(model.num_timesteps) if isinstance(model, BaseAlgorithm) else 0

    def __call__(self, aec) -> int:
        state = aec.state_array
        obs, mask = observe_state(aec.game, state)
        if self.frozen is None:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.integers(len(legal))])
        if self.deterministic:
            return greedy_action(self.frozen, obs, mask)
        return sample_action(self.frozen, obs, mask, self.rng, self.epsilon)

    def __repr__(self) -> str:
        return f"SnapshotOpponent(refreshes={self.refreshes}, at={self.refreshed_at})"


class SnapshotCallback(BaseCallback):
    """Refresh a :class:`SnapshotOpponent` from the learner at the start and every ``every`` steps."""

    def __init__(self, opponent: SnapshotOpponent, every: int = 10_000):
        super().__init__()
        if every < 1:
            raise ValueError(f"snapshot interval must be >= 1 step, got {every}")
        self.opponent = opponent
        self.every = int(every)
        self._last = 0

    def _on_training_start(self) -> None:
        self.opponent.refresh(self.model)
        self._last = self.model.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self.opponent.refresh(self.model)
            self._last = self.num_timesteps
        return True
