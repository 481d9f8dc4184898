"""Load a script of the repository that is not in a package (benchmarks/, docs/) as a module, for tests."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(folder: str, name: str):
    """ROOT/<folder>/<name>.py as a module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
