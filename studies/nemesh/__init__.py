"""Agent Nemesh (Shalita, Saranga & Haim 2013) measured: a fiftieth of the report's curriculum against random, MCTS,
the perfect player and TD-FARL of equal wall-clock (``experiments``), and the whole curriculum on 6x8 against
TD-FARL at its own budget and at Nemesh's CPU time (``full_budget``).

Commands: ``python -m studies.nemesh.experiments --out docs/results/nemesh.md``,
``python -m studies.nemesh.full_budget --out docs/results/nemesh_full.md`` (resumable stages; without ``--out``
the pages go under ``runs/``). Pages: ``docs/results/nemesh.md``, ``docs/results/nemesh_full.md``.
"""
