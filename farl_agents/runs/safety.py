"""Crash safety of run folders: atomic copies, a writability check, Ctrl-C as a request to stop."""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path

from farl_agents.runs.spec import RunError


def publish_copy(src: Path, dst: Path) -> None:
    """Make ``dst`` a copy of ``src`` atomically (a hard link when the file system allows)."""
    tmp = dst.with_name("." + dst.name + ".tmp")
    if tmp.exists():
        tmp.unlink()
    try:
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def ensure_writable(folder: Path) -> Path:
    """Create ``folder`` (and parents) and check that files can be written there."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise RunError(f"cannot write to {folder} ({exc.strerror or exc}): choose another output folder") from None
    return folder


class StopRequest:
    """While active, the first Ctrl-C (or SIGTERM) only asks the run to stop at the next safe point.

    A second Ctrl-C raises ``KeyboardInterrupt`` at once. Outside the main
    thread (where handlers cannot be set) it does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, message=None):
        self.signum = None
        self.message = message
        self._old = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def _handle(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signum = signum
        if self.message:
            self.message("stopping at the next safe point to write a checkpoint (Ctrl-C again aborts)")

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        for s, old in self._old.items():
            signal.signal(s, old)
        return False


class RunLock:
    """``DIR/.lock`` while a process trains the run in ``DIR``: a second process is refused, not let redo the work.

    The file holds the owner's PID and host. A lock whose process is gone
    (on this host) is stale and taken over; one from another host is
    respected, since its process cannot be checked from here.
    """

    NAME = ".lock"

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self.held = False

    def _owner_alive(self) -> tuple[bool, str]:
        try:
            pid_text, _, host = self.path.read_text().strip().partition(" ")
            pid = int(pid_text)
        except (OSError, ValueError):
            return False, ""  # unreadable or half-written: treat as stale
        if host and host != os.uname().nodename:
            return True, f"PID {pid} on {host}"
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False, ""
        except PermissionError:
            pass  # alive, owned by someone else
        return True, f"PID {pid}"

    def acquire(self) -> None:
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                alive, who = self._owner_alive()
                if alive:
                    raise RunError(f"{self.path.parent} is being trained by another process ({who}); wait for it "
                                   f"or stop it (if it is gone for good, delete {self.path})") from None
                self.path.unlink(missing_ok=True)  # stale: its process is gone
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(f"{os.getpid()} {os.uname().nodename}\n")
            self.held = True
            return
        raise RunError(f"cannot take the lock {self.path}")  # pragma: no cover - a race lost twice

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False
