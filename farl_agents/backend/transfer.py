"""Run folders as bytes: pack the files of a folder, ship them, write them back atomically.

A task that runs on another machine cannot write into the driver's run
folders. It works in a scratch folder on its own node instead, and the files
it made travel home as bytes: a :class:`FolderDelta` says which files are new
or changed (their bytes) and which are gone. :func:`apply_delta` writes a delta
into the driver's folder so that a reader (``farl reproduce``'s resume logic,
:meth:`farl_agents.runs.Run.open`, a table written meanwhile) never sees a
mixed state:

1. every ordinary file through a temporary name and ``os.replace``;
2. then the *marker* files, ``checkpoint.json`` before ``result.json``
   (:data:`MARKERS`): a marker only ever names files already in place;
3. deletions last (old ``checkpoints/agent-*`` files the new marker no longer
   names), so a crash in between leaves the previous checkpoint usable.

:func:`snapshot` reads a folder that a run may be writing at the same time
(the periodic checkpoint stream) and returns only a consistent state: the
marker and the files it names, read twice until the marker did not change.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from farl_agents.atomic import atomic_file

MARKERS = ("checkpoint.json", "result.json")
"""Files that declare the state of a run folder, written after everything else, in this order."""
SKIPPED = (".lock",)
"""Files never shipped: the training lock belongs to the process that holds it."""


def _skipped(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name in SKIPPED or (name.startswith(".") and name.endswith(".tmp")) or name.endswith(".tmp.png")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FolderDelta:
    """Changes to one run folder: ``files`` (relative path -> new bytes) and ``removed`` relative paths."""

    files: dict = field(default_factory=dict)
    removed: list = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.files or self.removed)

    @property
    def size(self) -> int:
        """Bytes carried."""
        return sum(len(b) for b in self.files.values())


def read_folder(folder) -> dict:
    """Every shipped file under ``folder`` (relative POSIX path -> bytes); empty when the folder is absent."""
    folder = Path(folder)
    out = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not _skipped(rel):
            try:
                out[rel] = path.read_bytes()
            except FileNotFoundError:  # removed while we listed (a run writing a new checkpoint)
                continue
    return out


def snapshot(folder, attempts: int = 5, wait: float = 0.2) -> dict | None:
    """A consistent copy of a folder a run may be writing: ``checkpoint.json`` and the files it names
    unchanged between two reads; None when that failed ``attempts`` times (try again later)."""
    folder = Path(folder)
    marker = folder / "checkpoint.json"
    for _ in range(attempts):
        try:
            before = marker.read_bytes() if marker.exists() else None
        except FileNotFoundError:
            before = None
        files = read_folder(folder)
        try:
            after = marker.read_bytes() if marker.exists() else None
        except FileNotFoundError:
            after = None
        if before == after and (before is None or files.get("checkpoint.json") == before):
            named = json.loads(before).get("files", []) if before is not None else []
            if all(n in files for n in named):
                return files
        time.sleep(wait)
    return None


def diff(old: dict, new: dict) -> FolderDelta:
    """What turns the files ``old`` into ``new`` (both relative path -> bytes)."""
    changed = {rel: data for rel, data in new.items() if old.get(rel) != data}
    return FolderDelta(changed, sorted(rel for rel in old if rel not in new))


def _target(folder: Path, rel: str) -> Path:
    """``folder/rel``, refusing paths that leave ``folder`` (a delta is data from another machine)."""
    if rel.startswith("/") or ".." in rel.split("/") or not rel:
        raise ValueError(f"refusing to write {rel!r}: shipped paths must stay inside the run folder")
    return folder / rel


def _write_atomic(path: Path, data: bytes) -> None:
    with atomic_file(path, "wb") as fh:
        fh.write(data)


def apply_delta(folder, delta: FolderDelta) -> None:
    """Write ``delta`` into ``folder``: ordinary files, then :data:`MARKERS` in order, deletions last."""
    folder = Path(folder)
    ordered = sorted(delta.files, key=lambda rel: (MARKERS.index(rel) + 1 if rel in MARKERS else 0, rel))
    for rel in ordered:
        _write_atomic(_target(folder, rel), delta.files[rel])
    for rel in sorted(delta.removed, key=lambda rel: rel not in MARKERS):  # markers first: none names a gone file
        _target(folder, rel).unlink(missing_ok=True)


def write_folder(folder, files: dict) -> None:
    """Fill the empty scratch ``folder`` with ``files`` (relative path -> bytes)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    apply_delta(folder, FolderDelta(dict(files), []))


def remove_tree(folder) -> None:
    shutil.rmtree(folder, ignore_errors=True)
