"""The rules of every farl game, one module each, as numba kernels (see :mod:`farl_envs.core.spec`)."""
