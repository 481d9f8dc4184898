"""``python -m farl_agents``: the ``farl`` command line (see :mod:`farl_agents.cli`)."""
import sys

from farl_agents.cli import main

if __name__ == "__main__":
    sys.exit(main())
