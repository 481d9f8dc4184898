"""Crash safety of run folders: atomic copies, a writability check, Ctrl-C as a request to stop, the run lock.

A bottom module: it imports nothing of farl, so the runs (:mod:`farl_agents.runs`) and the task runners
below them (:mod:`farl_agents.backend`) both use it without importing each other. :class:`RunError` lives
here for the same reason (the lock and the writability check raise it); :mod:`farl_agents.runs` re-exports it.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path


class RunError(ValueError):
    """A run folder that cannot be used (missing, foreign, inconsistent, not writable)."""


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


_parent_stop = None
"""In a worker process of :func:`~farl_agents.backend.local.run_local`: the parent's stop event."""


def follow_parent_stop(event) -> None:
    """Make every :class:`StopRequest` of this process count ``event`` being set as a stop request (a worker's
    parent was asked to stop: a ``kill`` of the parent reaches no worker by itself)."""
    global _parent_stop
    _parent_stop = event


class StopRequest:
    """While active, the first Ctrl-C (or SIGTERM) only asks the run to stop at the next safe point.

    A second Ctrl-C raises ``KeyboardInterrupt`` at once. Outside the main
    thread (where handlers cannot be set) it does nothing. In a worker of
    ``run_local`` the parent's stop is a request too (:func:`follow_parent_stop`).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, message=None):
        self.signum = None
        self.message = message
        self._old = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None or (_parent_stop is not None and _parent_stop.is_set())

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

    Holding the lock means holding an exclusive ``flock`` on that file, which
    the kernel gives to one process at a time and takes back when the process
    ends, however it ends. So two processes taking the lock at the same
    instant cannot both win, and a crashed owner's lock is free at once: no
    process ever judges another's lock file stale and deletes it, which is
    how two processes could once both hold it (the loser deleted the winner's
    file in the moment between its creation and its owner's PID being
    written).

    The owner writes its PID and host into the file, for the message the
    next process shows. A file naming a live process on this host that holds
    no ``flock`` (written by hand, or by a farl before this lock) and one
    naming another host (whose process cannot be checked from here, and whose
    ``flock`` a network file system may not show) are respected too. The
    owner deletes the file when it releases the lock; a process that opened
    the file just before finds, once it has the ``flock``, that the path no
    longer leads to the file it locked, and tries again.
    """

    NAME = ".lock"
    ATTEMPTS = 50
    """Times :meth:`acquire` retries when the file it locked was released and deleted meanwhile."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _owner(self, text: str) -> tuple[bool, str]:
        """Whether the owner named in a lock file's ``text`` may still be training (and who it is)."""
        pid_text, _, host = text.strip().partition(" ")
        try:
            pid = int(pid_text)
        except ValueError:
            return False, ""  # empty or half-written: its writer died before naming itself
        if host and host != os.uname().nodename:
            return True, f"PID {pid} on {host}"
        if pid == os.getpid() or pid <= 0:
            return False, ""
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False, ""
        except PermissionError:
            pass  # alive, owned by someone else
        return True, f"PID {pid}"

    def _refuse(self, who: str) -> RunError:
        return RunError(f"{self.path.parent} is being trained by another process ({who}); wait for it or stop it "
                        f"(if it is gone for good, delete {self.path})")

    def acquire(self) -> None:
        """Take the lock, or raise :class:`RunError` naming the process that holds it."""
        if self.held:
            return
        for _ in range(self.ATTEMPTS):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise self._refuse(_named_owner(_read_fd(fd))) from None
                except OSError as exc:
                    raise RunError(f"cannot lock {self.path} ({exc.strerror or exc}): the run folder must be on "
                                   f"a file system with file locks") from None
                try:
                    same = os.path.samestat(os.fstat(fd), os.stat(self.path))
                except FileNotFoundError:
                    same = False
                if not same:  # released and deleted between our open and our flock: lock the file there now
                    os.close(fd)
                    continue
                alive, who = self._owner(_read_fd(fd))
                if alive:
                    raise self._refuse(who)
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()} {os.uname().nodename}\n".encode(), 0)
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
            return
        raise RunError(f"cannot take the lock {self.path}: it was taken and released {self.ATTEMPTS} times while "
                       f"this process tried")  # pragma: no cover - a race lost again and again

    def release(self) -> None:
        """Delete the lock file and give up the lock (in this order: see the class docstring)."""
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False


def _named_owner(text: str) -> str:
    """Who a lock file's ``text`` names (``PID 123``, ``PID 123 on host``), for a refusal message."""
    pid, _, host = text.strip().partition(" ")
    if not pid.isdigit():
        return "its PID not written yet"
    return f"PID {pid}" + (f" on {host}" if host and host != os.uname().nodename else "")


def _read_fd(fd: int) -> str:
    """The first line's worth of an open lock file (its owner), as text."""
    return os.pread(fd, 256, 0).decode("utf-8", "replace")
