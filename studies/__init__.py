"""farl's studies: the code that reproduces the papers and writes ``docs/results``, built on farl's public API.

A study is not part of the library: this tree sits beside ``farl_envs`` and ``farl_agents`` in the source
checkout and is not installed with them (pyproject's ``packages.find`` names only those two). Each folder is
one study, with its command and its page (under ``docs/results`` unless said):

* ``table1/``: ``farl reproduce table1 --out docs/results``; ``table1*.md``, ``othello_farl_parts.md``
* ``traces/``: ``farl reproduce traces --out docs/results``; ``eligibility_traces.md``
* ``farl_when/``: ``python -m studies.farl_when.farl_when``; ``farl_when.md``
* ``hex_tuples/``: ``python -m studies.hex_tuples.hex_tuples --out docs/results``; ``hex_tuples.md``
* ``nemesh/``: ``python -m studies.nemesh.experiments --out docs/results/nemesh.md``; ``nemesh.md``,
  ``nemesh_full.md``
* ``descent/``: ``python -m studies.descent.experiments --publish``; ``descent*.md``
* ``compare/``: ``farl compare GAME``; ``compare_<game>.md``
* ``pretrained/``: ``farl pretrained build GAME``; the agents in ``farl_agents/pretrained`` and the table of
  ``docs/pretrained.md``
* ``serve_picture/``: ``python -m studies.serve_picture.browser docs/images/serve.png``; the picture of
  ``docs/serve.md``

Run them from the checkout's root (``python -m`` finds ``studies`` there). ``formatting.py`` holds the pages'
number formats, shared by the studies' report writers. ``farl reproduce``, ``farl compare`` and ``farl pretrained
build`` import the studies from the checkout next to the installed ``farl_agents``
(:mod:`farl_agents.checkout`); nothing in ``farl_envs`` or ``farl_agents`` imports this tree
(``tests/test_import_graph.py``). Output folders are arguments: a study writes into ``docs/results`` only when
told so (``--out docs/results``, or ``--publish``).
"""


def ship_to_ray(backend: str) -> None:
    """Let Ray's workers run the studies' task functions, although the studies are not installed there.

    Ray sends a function to a worker by its module name, and a worker has farl but not this tree (a cluster
    node, or a worker started in another folder). With ``backend == "ray"`` this registers the ``studies``
    package with Ray's cloudpickle to be pickled by value: each task carries the study's code, and what it
    calls in farl is imported by name on the worker as before. Nothing happens for the local backend, whose
    spawned workers inherit ``sys.path``.
    """
    if backend != "ray":
        return
    import sys

    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
