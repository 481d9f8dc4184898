"""The served folder: the agent files and run folders in it, read only through checked paths.

Every path a request names is relative to the folder ``farl serve`` was
started with (``root``). :func:`inside` refuses absolute paths, ``..``
parts and anything whose real location (symlinks followed) is outside the
root, so a page can neither read nor load a file elsewhere on the machine.
Agent files are loaded with the families' own loaders (the same as
``farl eval`` / ``farl play``), which read ``.npz`` files without pickles.
"""
from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from farl_agents.serve.session import RequestError

MAX_DEPTH = 4
"""How deep under the root the listings look for agents and runs."""
MAX_LISTED = 500
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", "checkpoints"}
EVAL_FILES = ("final_eval.json", "eval.json", "result.json")
"""Evaluation results a run folder may hold (farl train / farl reproduce), shown in the runs view."""


def inside(root: Path, rel: str) -> Path:
    """The real path of ``rel`` under ``root``; RequestError (403) if it leaves the root or is malformed."""
    if not isinstance(rel, str) or not rel.strip():
        raise RequestError("path must be a non-empty relative path inside the served folder")
    if "\\" in rel or "\x00" in rel:
        raise RequestError(f"path {rel!r} has forbidden characters", 403)
    pure = PurePosixPath(rel)
    if pure.is_absolute() or rel.startswith("~"):
        raise RequestError(f"path {rel!r} is absolute: give a path relative to the served folder", 403)
    if ".." in pure.parts:
        raise RequestError(f"path {rel!r} contains '..': only files inside the served folder are served", 403)
    real_root = root.resolve()
    path = (real_root / pure).resolve()
    if path != real_root and real_root not in path.parents:
        raise RequestError(f"path {rel!r} leads outside the served folder (a symlink?)", 403)
    return path


def _walk(root: Path):
    """Folders under ``root`` (depth-limited, symlinked folders not followed), as (dir, files)."""
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(real_root):
        d = Path(dirpath)
        depth = len(d.relative_to(real_root).parts)
        dirnames[:] = sorted(n for n in dirnames if n not in SKIP_DIRS and not n.startswith(".")
                             and not (d / n).is_symlink() and depth < MAX_DEPTH)
        yield d, sorted(filenames)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix() or "."


def list_agents(root: Path) -> list[dict]:
    """Run folders with an ``agent.npz`` and loose farl agent files (``.npz``) under ``root``."""
    from farl_agents.learners.agent_io import UNREADABLE, read_npz_with_meta

    out = []
    for d, files in _walk(root):
        for f in files:
            if not f.endswith(".npz") or (d / f).is_symlink():
                continue
            try:
                _, meta = read_npz_with_meta(d / f)
            except UNREADABLE:
                continue
            if not isinstance(meta, dict) or "game" not in meta:
                continue
            rel = _rel(root, d) if f == "agent.npz" and (d / "run.json").exists() else _rel(root, d / f)
            out.append({"path": rel, "game": str(meta.get("game")), "params": meta.get("game_params") or {},
                        "format": meta.get("format")})
            if len(out) >= MAX_LISTED:
                return out
    return out


def list_runs(root: Path) -> list[dict]:
    """Folders under ``root`` holding a ``curve.csv`` (runs of ``farl train`` and ``farl reproduce``)."""
    out = []
    for d, files in _walk(root):
        if "curve.csv" in files and not (d / "curve.csv").is_symlink():
            game = None
            if (d / "run.json").is_file():
                try:
                    game = json.loads((d / "run.json").read_text()).get("game")
                except (ValueError, OSError, AttributeError):
                    game = None
            out.append({"path": _rel(root, d), "game": game})
            if len(out) >= MAX_LISTED:
                break
    return out


def run_data(root: Path, rel: str) -> dict:
    """A run folder's learning curve (``curve.csv`` rows) and evaluation results (the JSON files it has)."""
    from farl_agents.runs.curve import read_curve

    d = inside(root, rel)
    if not d.is_dir() or not (d / "curve.csv").is_file():
        raise RequestError(f"{rel!r} is not a run folder (no curve.csv) inside the served folder", 404)
    try:
        rows = read_curve(d / "curve.csv")
    except ValueError as exc:
        raise RequestError(f"{rel}/curve.csv is not a curve file: {exc}", 422) from None
    evals = {}
    for name in EVAL_FILES:
        f = d / name
        if f.is_file() and not f.is_symlink():
            try:
                evals[name] = json.loads(f.read_text())
            except (ValueError, OSError):
                evals[name] = {"error": f"{name} is not valid JSON"}
    return {"path": rel, "rows": rows, "evaluations": evals}


def load_agent(root: Path, rel: str, game):
    """The harness player of an agent file or run folder under ``root``, checked to play ``game``."""
    from farl_agents.cli.common import CliError
    from farl_agents.cli.players import agent_file, load_player

    path = inside(root, rel)
    if not path.exists():
        raise RequestError(f"no agent file or run folder {rel!r} in the served folder", 404)
    try:
        player, spec = load_player(str(agent_file(str(path))), game)
    except CliError as exc:
        raise RequestError(str(exc).replace(str(root.resolve()) + "/", "")) from None
    if spec.name != game.name:
        raise RequestError(f"{rel} plays {spec.name}, not {game.name}")
    return player
