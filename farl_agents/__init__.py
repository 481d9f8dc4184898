"""farl_agents: n-tuple FARL learners, reference opponents and evaluation."""
from importlib.metadata import version as _installed_version

#: farl's version; pyproject.toml holds the only copy (farl is always installed, editable in development)
__version__ = _installed_version("farl-rl")
