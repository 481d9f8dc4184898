"""Crash-safe file writes: a temporary file in the same folder, fsync, then ``os.replace``.

A reader (or a run resumed after SIGKILL) sees either the old file or the new
one, never half of one.
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_file(path, mode: str = "w"):
    """Open a temporary file beside ``path``; on success it replaces ``path``, on error it is removed.

    The file gets the permissions of one made by ``open`` (0666 less the umask, usually 0644), not the
    owner-only 0600 of a temporary file: results, agents and shipped files stay readable as any other file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text: str) -> None:
    with atomic_file(path, "w") as fh:
        fh.write(text)


def atomic_write_json(path, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")
