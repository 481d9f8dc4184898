"""Agents as files: ``.npz`` of weight tables + JSON metadata, written atomically.

Layout (format ``farl-agent``, version 1):

=================  ===========================================================
``meta``           JSON (as a 0-d unicode array): format, version, farl
                   version, game name and parameters, learner config,
                   episodes done
``tuples``         the n-tuple set, ``int32[m, n]``
``weights``        dense ``float32`` tables, *or* ``weights_index`` (int64
                   flat positions) + ``weights_value`` (float32) when fewer
                   than a third of the entries are non-zero (always for
                   a paged network: its entries, never a whole table),
                   *or* (shipped
                   agents, :func:`put_masked_table`) ``weights_mask`` (the
                   non-zero entries as bits, ``uint8``) and, one per marked
                   entry in table order, ``weights_values`` (``float16`` or
                   ``float32``) or ``weights_codes`` (``uint8``) into
                   ``weights_levels`` (``float32``, at most 256 values)
``tcl_n/tcl_a``    TCL accumulators, stored the same way (only entries that
                   differ from their initial value)
``agent_rng`` ...  the random generators, so training resumes exactly
=================  ===========================================================

Loading goes through :class:`farl_agents.safe_files.NpzFile`: the metadata
is read first, and every other member's size, from the zip directory and its
``.npy`` header, is checked against what the network the metadata describes
needs (:func:`member_limits`) before any of it is decompressed; members the
format does not have are refused, and so are pickled objects (no code can
run). Every array's shape is then checked against the config before anything
is used.

This module knows the file format only: it reads and writes plain dicts and
arrays.  :class:`~farl_agents.learners.agent.NTupleAgent` builds them in
``save`` and rebuilds itself from them in ``load``, so the dependency runs
one way (agent -> agent_io). The other learner families (Nemesh, descent)
read their files through the same :class:`~farl_agents.safe_files.NpzFile`
with their own limits; :func:`read_npz_with_meta` tells any family's file by
its metadata.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from farl_agents import __version__
from farl_agents.atomic import atomic_file
from farl_agents.safe_files import AgentFileError, LazyArrays, Member, NpzFile  # AgentFileError: re-exported

FORMAT = "farl-agent"
VERSION = 1


UNREADABLE = (AgentFileError, OSError)
"""What :func:`read_npz_with_meta` raises for a file that is not a readable ``.npz`` with ``meta``
(:class:`AgentFileError` is a ``ValueError``)."""


def read_npz_with_meta(path) -> tuple[LazyArrays, object]:
    """The arrays of a farl ``.npz`` file, read only when asked for, and its decoded ``meta`` JSON.

    For code that wants a file's metadata (which family, which game): it
    reads the zip directory, the ``.npy`` headers and the metadata, nothing
    else, so a file with a huge member costs no more than any other. Loaders
    read the arrays through :class:`~farl_agents.safe_files.NpzFile` with the
    limits their format sets. Raises :class:`AgentFileError` for anything
    that is not a readable ``.npz`` with ``meta``.
    """
    with NpzFile(path) as f:
        meta = f.meta()
        names = list(f.members)
    return LazyArrays(path, f.what, names), meta


def put_table(arrays: dict, name: str, table: np.ndarray, base: float) -> None:
    """Add ``table`` to ``arrays`` under ``name``: dense, or sparse when under a third differs from ``base``."""
    flat = table.ravel()
    changed = np.flatnonzero(flat != np.float32(base))
    if changed.size * 3 < flat.size:
        arrays[name + "_index"] = changed.astype(np.int64)
        arrays[name + "_value"] = flat[changed]
    else:
        arrays[name] = table


def put_entries(arrays: dict, name: str, positions: np.ndarray, values: np.ndarray, base: float) -> None:
    """Add a table given by some of its entries (flat ``positions`` in increasing order, float32 ``values``; every
    other entry is ``base``) to ``arrays`` under ``name``, sparse: the form :func:`put_table` writes for a table
    with few entries changed, without ever building the whole table."""
    values = np.asarray(values, dtype=np.float32)
    changed = values != np.float32(base)
    arrays[name + "_index"] = np.asarray(positions, dtype=np.int64)[changed]
    arrays[name + "_value"] = values[changed]


MAX_LEVELS = 256
"""The most distinct values a coded table (``NAME_mask`` + ``NAME_codes`` + ``NAME_levels``) can hold."""


def quantize(values: np.ndarray, n_levels: int = MAX_LEVELS, rounds: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, levels)`` with ``levels[codes]`` close to ``values``: ``n_levels`` ≤ 256 levels that keep the
    squared error small, each value coded by its nearest level.

    The levels start where a quantizer of least squared error puts them for many levels (Panter & Dite 1951:
    spaced as the cube root of the values' density, so crowded values get fine levels and the rare large ones
    still get some) and are then refined by ``rounds`` rounds of Lloyd's algorithm (each level moves to the
    mean of the values it codes); the smallest and the largest value keep exact levels. Lossy: a shipped agent
    is stored this way only when the evaluation shows the coded agent plays as well
    (the builder study of the source checkout, ``studies/pretrained/build.py``).
    """
    if not 2 <= n_levels <= MAX_LEVELS:
        raise ValueError(f"n_levels must be in 2..{MAX_LEVELS}, got {n_levels}")
    v = np.asarray(values, dtype=np.float32).ravel().astype(np.float64)
    distinct = np.unique(v)
    if distinct.size <= n_levels:  # nothing to merge: exact
        return np.searchsorted(distinct, v).astype(np.uint8), distinct.astype(np.float32)
    counts, edges = np.histogram(v, bins=1 << 16)
    share = np.cumsum(np.cbrt(counts))
    share /= share[-1]
    centres = (edges[:-1] + edges[1:]) / 2
    levels = np.unique(centres[np.searchsorted(share, (np.arange(n_levels) + 0.5) / n_levels)])
    for _ in range(rounds):
        codes = np.searchsorted((levels[1:] + levels[:-1]) / 2, v)
        members = np.bincount(codes, minlength=levels.size)
        sums = np.bincount(codes, weights=v, minlength=levels.size)
        levels = np.unique(np.where(members > 0, sums / np.maximum(members, 1), levels))
    levels[0], levels[-1] = distinct[0], distinct[-1]  # the extreme weights stay exact
    levels32 = np.unique(levels.astype(np.float32))
    codes = np.searchsorted((levels32[1:].astype(np.float64) + levels32[:-1]) / 2, v)
    return codes.astype(np.uint8), levels32


MASKED_FORMATS = ("levels", "float16", "float32")
"""How :func:`put_masked_table` stores the marked entries' values: ``levels`` one byte each (a code into at most
256 float32 values), ``float16`` two bytes, ``float32`` four."""


def put_masked_table(arrays: dict, name: str, table: np.ndarray, base: float, values: str) -> None:
    """Add ``table`` to ``arrays`` as a bit per entry (set where it differs from ``base``) and the values of the
    set entries in the format ``values`` (:data:`MASKED_FORMATS`). Exact: ``table`` must already be rounded to
    that format (``levels``: at most 256 distinct values, see :func:`quantize`; ``float16``: float16 numbers),
    else ValueError."""
    if values not in MASKED_FORMATS:
        raise ValueError(f"unknown format {values!r} for the values; use one of {', '.join(MASKED_FORMATS)}")
    flat = table.ravel()
    changed = flat != np.float32(base)
    kept = flat[changed]
    arrays[name + "_mask"] = np.packbits(changed)
    if values == "levels":
        levels = np.unique(kept)
        if levels.size > MAX_LEVELS:
            raise ValueError(f"{name}: {levels.size} distinct values, a coded table holds at most {MAX_LEVELS} "
                             f"(quantize the weights first)")
        arrays[name + "_codes"] = np.searchsorted(levels, kept).astype(np.uint8)
        arrays[name + "_levels"] = levels.astype(np.float32)
    else:
        stored = kept.astype(values)
        if not np.array_equal(stored.astype(np.float32), kept):
            raise ValueError(f"{name}: values that are not {values} numbers (round the weights first)")
        arrays[name + "_values"] = stored


def _masked_entries(arrays: dict, name: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The flat positions and values of a masked field's marked entries (see :func:`put_masked_table`), every
    part checked."""
    mask = arrays[name + "_mask"]
    if mask.dtype != np.uint8 or mask.shape != ((size + 7) // 8,):
        raise AgentFileError(f"field {name + '_mask'!r} must be {(size + 7) // 8} uint8 bytes (one bit per entry)")
    bits = np.unpackbits(mask)
    if bits[size:].any():
        raise AgentFileError(f"field {name + '_mask'!r} marks entries beyond the table's {size}")
    where = np.flatnonzero(bits[:size])
    del bits
    values = arrays.get(name + "_values")
    if values is not None:
        if values.dtype not in (np.float16, np.float32) or values.shape != where.shape:
            raise AgentFileError(f"field {name + '_values'!r} must hold one float16 or float32 per marked entry "
                                 f"({where.size})")
        return where, values.astype(np.float32)
    codes, levels = arrays.get(name + "_codes"), arrays.get(name + "_levels")
    for part, a in (("_codes", codes), ("_levels", levels)):
        if a is None:
            raise AgentFileError(f"field {name + part!r} is missing (or {name + '_values'!r})")
    if codes.dtype != np.uint8 or codes.shape != where.shape:
        raise AgentFileError(f"field {name + '_codes'!r} must hold one uint8 per marked entry ({where.size})")
    if levels.dtype != np.float32 or levels.ndim != 1 or levels.size > MAX_LEVELS:
        raise AgentFileError(f"field {name + '_levels'!r} must be at most {MAX_LEVELS} float32 values")
    if codes.size and int(codes.max()) >= levels.size:
        raise AgentFileError(f"field {name + '_codes'!r} refers to level {int(codes.max())} of {levels.size}")
    return where, levels[codes]


def get_table(arrays: dict, name: str, shape: tuple, base: float) -> np.ndarray:
    """The ``float32`` table ``name`` of shape ``shape`` stored by :func:`put_table`, checked entry by entry.

    Raises :class:`AgentFileError` naming the field for a missing part, a
    wrong shape or type, positions out of range, or a value that is not a
    finite number (a NaN weight would make the agent play at random).
    """
    positions, values = get_entries(arrays, name, shape)
    if positions is None:
        return values
    table = np.full(int(np.prod(shape)), base, dtype=np.float32)
    table[positions] = values
    return table.reshape(shape)


def get_entries(arrays: dict, name: str, shape: tuple) -> tuple[np.ndarray | None, np.ndarray]:
    """The table ``name`` as :func:`get_table` checks it, but as ``(positions, values)``: the flat positions of
    the entries the file lists and their values (sparse forms; every other entry holds the table's starting
    value), or ``(None, table)`` for a table stored whole. Lets a paged network load a sparse file without
    building a whole table."""
    size = int(np.prod(shape))
    if name in arrays:
        table = arrays[name]
        if table.shape != shape or table.dtype != np.float32:
            raise AgentFileError(f"field {name!r} has shape {table.shape}/{table.dtype}, expected {shape}/float32")
        _check_finite(name, table)
        return None, table.copy()
    if name + "_mask" in arrays:
        positions, values = _masked_entries(arrays, name, size)
    else:
        index, values = arrays.get(name + "_index"), arrays.get(name + "_value")
        if index is None and values is None:
            raise AgentFileError(f"missing field {name!r} (dense) or {name + '_index'!r} + {name + '_value'!r}")
        if index is None or values is None:
            raise AgentFileError(f"field {name + ('_value' if values is None else '_index')!r} is missing")
        if (index.ndim != 1 or index.dtype.kind not in "iu" or index.shape != values.shape
                or (index.size and (index.min() < 0 or index.max() >= size))):
            raise AgentFileError(f"field {name + '_index'!r}: positions must be integers in 0..{size - 1}, "
                                 f"one per value")
        if values.dtype != np.float32:
            raise AgentFileError(f"field {name + '_value'!r} must be float32, got {values.dtype}")
        positions, last = np.unique(index[::-1].astype(np.int64), return_index=True)  # a repeated position: last wins
        values = values[::-1][last]
    _check_finite(name, values)
    return positions, values


def _check_finite(name: str, values: np.ndarray) -> None:
    if not np.isfinite(values).all():
        raise AgentFileError(f"field {name!r} holds {int((~np.isfinite(values)).sum())} values that are not finite")


def write_agent_file(path: str | os.PathLike, meta: dict, arrays: dict) -> Path:
    """Write ``arrays`` and ``meta`` (stamped with format, version and farl version) to ``path`` atomically.

    The temporary file lives in the same folder and is renamed over ``path``
    only when complete, so a crash leaves the old file or the new one.
    """
    path = Path(path)
    stamped = {"format": FORMAT, "version": VERSION, "farl_version": __version__, **meta}
    with atomic_file(path, "wb") as fh:
        np.savez_compressed(fh, meta=np.array(json.dumps(stamped)), **arrays)
    return path


def read_agent_file(path: str | os.PathLike, game: str | None = None) -> tuple[dict, dict]:
    """The ``meta`` dict and the arrays of an agent file, after checking format, version, game and sizes.

    ``game`` (optional, with or without ``_v0``) must match the file's game.
    Raises :class:`AgentFileError` (a ``ValueError``) for anything that is not
    a farl agent file of this format version, or whose members are not those
    and no larger than those its metadata describes (:func:`member_limits`);
    ``FileNotFoundError`` if there is no file. The arrays themselves are
    checked by whoever rebuilds the agent from them (:func:`get_table` for the
    weight tables).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no agent file at {path}")
    with NpzFile(path) as f:
        meta = f.meta()
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else None
            raise AgentFileError(f"{path} is not a farl agent file (format {found!r})")
        if meta.get("version") != VERSION:
            raise AgentFileError(f"{path} has agent format version {meta.get('version')}, this farl reads {VERSION}")
        _check_description(path, meta)
        if game is not None and game.removesuffix("_v0") != meta["game"]:
            raise AgentFileError(f"{path} is a {meta['game']} agent, not {game}")
        arrays = f.arrays(member_limits(path, meta, f.members))
    return meta, arrays


def _check_description(path: Path, meta: dict) -> None:
    """The types of the metadata fields the sizes are worked out from, each named when wrong."""
    for key, kind, what in (("game", str, "a game's name"), ("game_params", dict, "a table of game parameters"),
                            ("config", dict, "a table of learner settings")):
        if key not in meta:
            raise AgentFileError(f"{path}: the metadata has no field {key!r}")
        if not isinstance(meta[key], kind):
            raise AgentFileError(f"{path}: field {key!r} must be {what}, got {meta[key]!r}")
    p = meta.get("n_cell_values")
    if p is not None and (isinstance(p, bool) or not isinstance(p, int) or p < 2):
        raise AgentFileError(f"{path}: field 'n_cell_values' must be a whole number >= 2 (the values of a board "
                             f"cell), got {p!r}")


def member_limits(path: Path, meta: dict, members: dict[str, Member]) -> dict[str, int]:
    """The members an agent file with this metadata may hold and the most bytes each may take.

    Worked out from the game and the learner settings in ``meta`` and the
    shape of the ``tuples`` member (its ``.npy`` header: nothing is
    decompressed): a table holds ``outputs x players x m x P**n`` entries
    (``m`` tuples of ``n`` cells over ``P`` cell values), never more than the
    memory limit allows (:func:`~farl_agents.ntuple.budget.check_network_memory`),
    and each stored form of a table is bounded by what that form of a full
    table takes. Raises :class:`AgentFileError` naming the field for settings
    that describe no network.
    """
    import farl_envs
    from farl_agents.learners.config import LearnerConfig
    from farl_agents.ntuple.budget import check_network_memory
    from farl_agents.ntuple.traces import Traces, horizon_entries

    try:
        spec = farl_envs.game_spec(meta["game"], **meta["game_params"])
        config = LearnerConfig.from_dict(meta["config"])
        horizon = horizon_entries(config.lam, config.horizon_cut)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AgentFileError(f"{path}: inconsistent agent description ({exc})") from None
    tuples = members.get("tuples")
    if tuples is None or len(tuples.shape) != 2 or tuples.dtype.kind not in "iu":
        found = "missing" if tuples is None else f"{tuples.dtype} array of shape {tuples.shape}"
        raise AgentFileError(f"{path}: field 'tuples' must be a 2-D integer array, found {found}")
    m, n = tuples.shape
    if n > spec.n_cells:
        raise AgentFileError(f"{path}: field 'tuples' holds tuples of {n} cells, more than the {spec.n_cells} "
                             f"cells of the board")
    values = max(meta.get("n_cell_values") or 0, spec.n_cell_values)  # an older encoding may have had more
    outputs = 1 if config.algo == "td" else spec.n_actions  # as NTupleAgent's network_outputs
    sets = config.weight_sets(spec.n_players)
    try:
        check_network_memory(m, n, values, sets, outputs, config.tcl != "none")
    except ValueError as exc:
        raise AgentFileError(f"{path}: {exc}") from None
    entries = outputs * sets * m * values ** n
    limits = {"meta": members["meta"].nbytes, "tuples": tuples.nbytes, "agent_rng": 8, "env_rng": 8}
    for table in ("weights", "tcl_n", "tcl_a") if config.tcl != "none" else ("weights",):
        limits.update({table: 4 * entries, table + "_index": 8 * entries, table + "_value": 4 * entries,
                       table + "_mask": (entries + 7) // 8, table + "_values": 4 * entries,
                       table + "_codes": entries, table + "_levels": 4 * MAX_LEVELS})
    if config.carry_traces:
        symmetries = len(spec.symmetries(spec.p)) if config.use_symmetry else 1
        limits.update({"traces_" + field: 8 * spec.n_players * horizon * symmetries * m for field in Traces._fields})
    return limits
