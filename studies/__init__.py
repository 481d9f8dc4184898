"""farl's studies: the code that reproduces the papers and writes ``docs/results``, built on farl's public API.

A study is not part of the library: this tree sits beside ``farl_envs`` and ``farl_agents`` in the source
checkout and is not installed with them (pyproject's ``packages.find`` names only those two). Each folder is
one study, with its command and its results page:

========================  ===========================================  ==========================================
folder                    command (from the checkout's root)           page under ``docs/results``
========================  ===========================================  ==========================================
``table1/``               ``farl reproduce table1 --out docs/results``  ``table1*.md``, ``othello_farl_parts.md``
``traces/``               ``farl reproduce traces --out docs/results``  ``eligibility_traces.md``
``farl_when/``            ``python -m studies.farl_when.farl_when``     ``farl_when.md``
``hex_tuples/``           ``python -m studies.hex_tuples.hex_tuples``   ``hex_tuples.md``
``nemesh/``               ``python -m studies.nemesh.experiments``      ``nemesh.md``, ``nemesh_full.md``
========================  ===========================================  ==========================================

``formatting.py`` holds the pages' number formats, shared by the studies' report writers. ``farl reproduce``
imports the studies from the checkout next to the installed ``farl_agents``
(:mod:`farl_agents.cli.studies`); nothing in ``farl_envs`` or ``farl_agents`` imports this tree
(``tests/test_import_graph.py``). Output folders are arguments: a study writes into ``docs/results`` only when
told ``--out docs/results``.
"""
