"""``python -m farl_agents.baselines baseline|compare ...``: the commands ``farl baseline`` / ``farl compare``."""
import sys

from farl_agents.baselines.cli import main

sys.exit(main())
