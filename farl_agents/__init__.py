"""farl_agents: n-tuple FARL learners, reference opponents and evaluation."""
from importlib.metadata import version as _installed_version

import farl_envs  # noqa: F401 - first: it points numba at the user's cache folder (farl_envs.numba_setup)

#: farl's version; pyproject.toml holds the only copy (farl is always installed, editable in development)
__version__ = _installed_version("farl-rl")
