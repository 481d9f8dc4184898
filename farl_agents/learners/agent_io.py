"""Agents as files: ``.npz`` of weight tables + JSON metadata, written atomically.

Layout (format ``farl-agent``, version 1):

=================  ===========================================================
``meta``           JSON (as a 0-d unicode array): format, version, farl
                   version, game name and parameters, learner config,
                   episodes done
``tuples``         the n-tuple set, ``int32[m, n]``
``weights``        dense ``float32`` tables, *or* ``weights_index`` (int64
                   flat positions) + ``weights_value`` (float32) when fewer
                   than a third of the entries are non-zero
``tcl_n/tcl_a``    TCL accumulators, stored the same way (only entries that
                   differ from their initial value)
``agent_rng`` ...  the random generators, so training resumes exactly
=================  ===========================================================

Loading uses ``allow_pickle=False`` (no code can run) and checks every
array's shape against the config before anything is used.
"""
from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_file

FORMAT = "farl-agent"
VERSION = 1


UNREADABLE = (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError)
"""What :func:`read_npz_with_meta` raises for a file that is not a readable ``.npz`` with ``meta``."""


def read_npz_with_meta(path) -> tuple[dict, object]:
    """Every array of a farl ``.npz`` file (``allow_pickle=False``) and its decoded ``meta`` JSON.

    The one reader of agent files for every learner family; the callers check
    the ``format`` and turn :data:`UNREADABLE` errors into their own messages.
    """
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return arrays, json.loads(str(arrays["meta"]))


class AgentFileError(ValueError):
    """The file is not a readable farl agent (corrupt, truncated, foreign or for another game)."""


def _put_table(arrays: dict, name: str, table: np.ndarray, base: float) -> None:
    flat = table.ravel()
    changed = np.flatnonzero(flat != np.float32(base))
    if changed.size * 3 < flat.size:
        arrays[name + "_index"] = changed.astype(np.int64)
        arrays[name + "_value"] = flat[changed]
    else:
        arrays[name] = table


def _get_table(data, name: str, shape: tuple, base: float) -> np.ndarray:
    if name in data:
        table = data[name]
        if table.shape != shape or table.dtype != np.float32:
            raise AgentFileError(f"{name} has shape {table.shape}/{table.dtype}, expected {shape}/float32")
        return table.copy()
    if name + "_index" not in data:
        raise AgentFileError(f"missing table {name}")
    index, values = data[name + "_index"], data[name + "_value"]
    size = int(np.prod(shape))
    if index.ndim != 1 or index.shape != values.shape or (index.size and (index.min() < 0 or index.max() >= size)):
        raise AgentFileError(f"{name}: bad sparse entries")
    table = np.full(size, base, dtype=np.float32)
    table[index] = values
    return table.reshape(shape)


def save_agent(agent, path: str | os.PathLike) -> Path:
    """Write ``agent`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    from farl_envs import __version__

    path = Path(path)
    meta = {
        "format": FORMAT, "version": VERSION, "farl_version": __version__,
        "game": agent.game.name, "game_params": agent.game.params,
        "n_cell_values": agent.game.n_cell_values,
        "config": agent.config.to_dict(), "episodes_done": agent.episodes_done,
    }
    arrays = {"meta": np.array(json.dumps(meta)), "tuples": agent.tuples,
              "agent_rng": agent.agent_rng, "env_rng": agent.env_rng}
    _put_table(arrays, "weights", agent.net.weights, 0.0)
    if agent.net.tcl_n.size:
        _put_table(arrays, "tcl_n", agent.net.tcl_n, agent.config.tcl_init)
        _put_table(arrays, "tcl_a", agent.net.tcl_a, agent.config.tcl_init)
    if agent.config.carry_traces:
        for field in agent.traces._fields:
            arrays["traces_" + field] = getattr(agent.traces, field)
    with atomic_file(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return path


def load_agent(path: str | os.PathLike, game: str | None = None):
    """Read an agent written by :func:`save_agent`; ``game`` (optional) must match the file's game.

    Raises :class:`AgentFileError` (a ``ValueError``) for anything that is not
    a valid farl agent file, ``FileNotFoundError`` if there is no file.
    """
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no agent file at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as exc:
        raise AgentFileError(f"{path} is not a farl agent file (unreadable: {exc})") from None
    try:
        meta = json.loads(str(arrays["meta"]))
    except (KeyError, json.JSONDecodeError):
        raise AgentFileError(f"{path} is not a farl agent file (no metadata)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise AgentFileError(f"{path} is not a farl agent file (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    if meta.get("version") != VERSION:
        raise AgentFileError(f"{path} has agent format version {meta.get('version')}, this farl reads {VERSION}")
    if game is not None and game.removesuffix("_v0") != meta["game"]:
        raise AgentFileError(f"{path} is a {meta['game']} agent, not {game}")
    try:
        config = LearnerConfig.from_dict(meta["config"])
        agent = NTupleAgent(meta["game"], config, tuples=arrays["tuples"], **meta["game_params"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AgentFileError(f"{path}: inconsistent agent description ({exc})") from None
    stored_p = meta.get("n_cell_values")
    if stored_p is not None and stored_p != agent.game.n_cell_values:
        raise AgentFileError(f"{path} was trained on a {stored_p}-valued {meta['game']} n-tuple board; this farl "
                             f"encodes that game with {agent.game.n_cell_values} values: train the agent again")
    net = agent.net
    try:
        net.weights[...] = _get_table(arrays, "weights", net.weights.shape, 0.0)
    except AgentFileError as exc:
        if stored_p is None:  # written before the files recorded P: the encoding may have changed since
            raise AgentFileError(f"{exc} (the file may come from a farl whose {meta['game']} n-tuple board had "
                                 f"other cell values: train the agent again)") from None
        raise
    if net.tcl_n.size:
        net.tcl_n[...] = _get_table(arrays, "tcl_n", net.tcl_n.shape, config.tcl_init)
        net.tcl_a[...] = _get_table(arrays, "tcl_a", net.tcl_a.shape, config.tcl_init)
    for name in ("agent_rng", "env_rng"):
        rng = arrays.get(name)
        if rng is None or rng.shape != (1,) or rng.dtype != np.uint64:
            raise AgentFileError(f"{path}: bad {name}")
        getattr(agent, name)[:] = rng
    if config.carry_traces:
        for field in agent.traces._fields:
            stored = arrays.get("traces_" + field)
            target = getattr(agent.traces, field)
            if stored is None or stored.shape != target.shape:
                raise AgentFileError(f"{path}: bad traces_{field}")
            target[...] = stored
    agent.episodes_done = int(meta.get("episodes_done", 0))
    return agent
