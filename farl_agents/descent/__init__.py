"""Descent, UBFM and tree learning (Cohen-Solal 2020, Cohen-Solal 2020): a third learner family.

Modules, each with one job:

``heuristics``  terminal evaluations f_t ("reinforcement heuristics", Sec. 5.1)
``evaluation``  the adaptive evaluation f_θ: an n-tuple network fitted by regression
``expand``      one compiled call that expands a state (children, terminal facts)
``search``      UBFM (Alg. 1), descent (Alg. 8), completion + resolution stop (Alg. 9),
                UBFMs safe decision (Alg. 10-11) over a transposition table
``alphabeta``   iterative-deepening / fixed-depth alpha-beta with move ordering
``selection``   ε-greedy, softmax, ordinal distribution (Alg. 12), completed selection
``learning``    tree / root / terminal learning data (Alg. 3-5), experience replay (Alg. 6)
``trainer``     the self-play learning loop with a wall-clock budget (Alg. 3-7)
``mcts_learn``  UCT with the learned evaluation as a learning search (the paper's MCTS comparisons)
``evaluation_torch``  the paper's convolutional f_θ (optional, torch)
``agent``       the harness player and its agent file (format ``farl-descent-agent``)
``family``      the family's hooks: ``farl train GAME --algo descent`` (run folders, curves and resume come
                from :mod:`farl_agents.runs`, as for every family)
``tournament``  the comparison protocol (Sec. 3.2): train variants, then an all-play-all (``farl tournament``)

The measurements of docs/results/descent.md and descent_games.md (the paper's Tables 2-4 on its nine games)
are a study built on these modules, in the source checkout's ``studies/descent/`` (not installed).
"""
