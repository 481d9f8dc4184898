"""When final adaptation matters: who gets the final reward (``farl_when``), and the rule tested on the descent
paper's games, FARL vs no-FARL agents (``farl_effect``).

Commands: ``python -m studies.farl_when.farl_when``, ``python -m studies.farl_when.farl_effect``.
Page: ``docs/results/farl_when.md``.
"""
