"""Experiments: resumable training runs (:mod:`.run`) and the paper's Table 1 (:mod:`.table1`).

The command line (``farl train``, ``farl reproduce table1``) is a thin layer
over these two modules; both can be used from Python as well::

    from farl_agents.runs import Run, RunSpec
    run = Run.create("runs/ttt", RunSpec("tictactoe", {}, LearnerConfig.paper("tictactoe"),
                                         eval_vs=("maxn10",), eval_every=1000))
    run.train()               # Ctrl-C writes a checkpoint; Run.open("runs/ttt").train() continues
"""
