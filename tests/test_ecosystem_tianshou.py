"""Tianshou's multi-agent DQN-vs-random training loop on farl's TicTacToe (optional extra ``tianshou``).

Tianshou's collector stores every step's ``info`` in its replay buffer and refuses a buffer with NaNs,
which is what a key missing from some steps' infos becomes; farl's infos hold the same keys at every
``last()`` (``tests/test_ecosystem_aec.py``), so the loop runs. Tiny budget: this checks that the loop
works and learns something, not how well.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import farl_envs


@pytest.mark.slow  # ~10 s with Tianshou's and torch's imports (inside the test: a default run does not pay them)
def test_dqn_against_random_trains_on_farl_tictactoe():
    pytest.importorskip("tianshou")
    torch = pytest.importorskip("torch")
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    def _tictactoe() -> PettingZooEnv:
        return PettingZooEnv(farl_envs.make("tictactoe"))

    torch.manual_seed(0)
    np.random.seed(0)
    env = _tictactoe()
    planes = env.observation_space["observation"]
    q_net = Net(state_shape=planes.shape, action_shape=env.action_space.n, hidden_sizes=[32])
    start = [p.detach().clone() for p in q_net.parameters()]
    policy = DiscreteQLearningPolicy(model=q_net, action_space=env.action_space, observation_space=planes,
                                     eps_training=0.2, eps_inference=0.0)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=20)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn, MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)], env=env)
    training = Collector(algorithm, DummyVectorEnv([_tictactoe]), VectorReplayBuffer(1_000, 1),
                         exploration_noise=True)
    testing = Collector(algorithm, DummyVectorEnv([_tictactoe]), exploration_noise=True)
    training.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        training.collect(n_step=64)
        result = algorithm.run_training(OffPolicyTrainerParams(
            training_collector=training, test_collector=testing, max_epochs=2, epoch_num_steps=100,
            collection_step_num_env_steps=10, test_step_num_episodes=4, batch_size=16,
            update_step_num_gradient_steps_per_sample=0.1, verbose=False, show_progress=False))
    assert result.timing.total_time > 0 and result.update_step > 0
    # both players' rewards come back as a pair per step, each -1, 0 or +1 (TicTacToe's outcomes)
    rewards = training.buffer.rew[: len(training.buffer)]
    assert rewards.shape[1] == 2 and set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
    # every stored step carries farl's afterstate record: no step lacks the key
    stored = training.buffer.info[: len(training.buffer)]
    assert all(rec.player in ("player_0", "player_1") for rec in stored.afterstate)
    assert not bool(training.buffer.hasnull())
    assert any(not torch.equal(a, b) for a, b in zip(start, q_net.parameters()))
