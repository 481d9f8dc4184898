"""The studies of a source checkout, for the commands that run them (``farl reproduce``, ``farl compare``,
``farl pretrained build``, the Table 1 rows of ``farl info``).

The code that reproduces the papers and writes ``docs/results`` is not part of the library: it lives in the
``studies/`` folder at the root of farl's source tree, beside ``farl_agents``, and is not installed with the
wheel. These commands find it next to the ``farl_agents`` that runs them (an editable install or a checkout on
``sys.path``) and import it from there; an installed wheel has no such folder, and the commands say so instead
of failing on an import. Nothing else in ``farl_agents`` imports ``studies`` (``tests/test_import_graph.py``).
A leaf: it imports nothing of farl, so every command module may use it without an import cycle.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

#: The root of the source checkout this ``farl_agents`` would belong to, and its studies folder.
CHECKOUT = Path(__file__).resolve().parents[1]
STUDIES = CHECKOUT / "studies"


class NoStudies(RuntimeError):
    """The running farl is an installed wheel: there are no studies to run (``farl`` prints it as one line and
    exits 2)."""


def available() -> bool:
    """Whether the studies of a source checkout sit next to this ``farl_agents``."""
    return (STUDIES / "__init__.py").is_file()


def import_study(module: str, command: str):
    """``studies.<module>``, imported from the checkout next to this ``farl_agents``.

    Raises :class:`NoStudies` naming ``command`` when there is no checkout, or when some other ``studies``
    package is imported already.
    """
    if not available():
        raise NoStudies(f"farl {command} runs the studies of a source checkout (the studies/ folder beside "
                        f"farl_agents: clone farl's source and `pip install -e .` there); this installed farl "
                        f"has none")
    loaded = sys.modules.get("studies")
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve().parent != STUDIES:
        raise NoStudies(f"farl {command}: another package named studies is imported ({loaded.__file__}), "
                        f"not the checkout's {STUDIES}")
    if str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
    return importlib.import_module(f"studies.{module}")
