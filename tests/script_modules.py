"""Load a script of the repository that is not in a package (benchmarks/, docs/) as a module, for tests."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(folder: str, name: str):
    """ROOT/<folder>/<name>.py as a module named ``name``, registered in ``sys.modules``.

    Registered because numba's on-disk cache records the module of a compiled function and imports it by name when
    another process loads the cache: a module missing from ``sys.modules`` is recorded as ``<dynamic>``, and every
    later process (another pytest worker) then fails to load that cache entry."""
    spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
