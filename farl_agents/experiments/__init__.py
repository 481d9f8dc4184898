"""Experiments: the paper's Table 1 (:mod:`.table1`: rows, runner, report), on the run stack of
:mod:`farl_agents.runs`.

``farl reproduce table1`` is a thin layer over :mod:`.table1`; a single run
can be made from Python as well::

    from farl_agents.learners import paper_config
    from farl_agents.runs import Run, RunSpec
    run = Run.create("runs/ttt", RunSpec("tictactoe", {}, paper_config("tictactoe"),
                                         eval_vs=("maxn10",), eval_every=1000))
    run.train()               # Ctrl-C writes a checkpoint; Run.open("runs/ttt").train() continues
"""
