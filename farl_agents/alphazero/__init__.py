"""AlphaZero as a learner family of ``farl train --algo alphazero`` (docs/alphazero.md).

=====================  ==============================================================================
``config.py``          AlphaZeroConfig, the run's settings (every field a ``farl train`` flag)
``search.py``          batched PUCT in numba: one tree per game, every tree's leaf in one network call;
                       Dirichlet root noise; value vectors (one per player) backed up
``network.py``         the policy/value nets (residual CNN for grid observations, MLP otherwise; torch)
``symmetry.py``        the game's declared symmetries as observation/action permutations, where they apply
``selfplay.py``        SelfPlay: self-play on farl_envs.vector, replay buffer, training, checkpoint state
``agent.py``           AlphaZeroAgent (the harness player) and the ``farl-alphazero-agent`` file format
``family.py``          the family's hooks (Trainer, FLAGS, config_from_flags' parts, load_player)
=====================  ==============================================================================

torch (the optional ``baselines`` extra) is imported only by training and by loading a network: importing
this package, ``config``, ``search``, ``symmetry`` or ``family`` does not.
"""
