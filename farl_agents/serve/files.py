"""The served folder: the agent files and run folders in it, read only through checked paths.

Every path a request names is relative to the folder ``farl serve`` was
started with (``root``). :func:`inside` refuses absolute paths, ``..``
parts, over-long paths and anything whose real location (symlinks followed)
is outside the root, so a page can neither read nor load a file elsewhere on
the machine. Agent files are loaded with the families' own loaders (the same
as ``farl eval`` / ``farl play``), which read ``.npz`` files without pickles.

The folder is the user's, but what is in it may come from anywhere (a
downloaded run, a half-written file, a FIFO someone left): one odd entry must
not break the listings for the others. So the listings

* never open anything but a regular file: every entry is looked at with
  ``stat`` before anything opens it, and FIFOs, devices and sockets are
  listed, never opened (opening a FIFO blocks until someone writes, opening
  a device may do anything); the JSON and CSV files the server reads itself
  are opened with ``O_NONBLOCK | O_NOFOLLOW`` and checked again with
  ``fstat`` (:func:`open_regular`),
* read of an agent file only its metadata, through the agent-file reader
  every family uses, and turn anything it raises into a reason,
* list whatever they cannot read (a corrupt deflate stream, metadata nested
  100,000 deep, a name that is not UTF-8, ...) under ``unreadable`` with a
  one-line reason, and carry on with the next entry.

:class:`SharedPlayers` keeps the agents loaded from files, so every session
against one file plays the same read-only weights (see its docstring).
"""
from __future__ import annotations

import copy
import json
import math
import os
import stat
import threading
from collections import OrderedDict
from pathlib import Path, PurePosixPath

import numpy as np

from farl_agents.serve.session import RequestError

MAX_DEPTH = 4
"""How deep under the root the listings look for agents and runs."""
MAX_LISTED = 500
MAX_UNREADABLE = 100
"""At most this many unreadable entries are reported per listing (the rest are skipped silently)."""
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", "checkpoints"}
EVAL_FILES = ("final_eval.json", "eval.json", "result.json")
"""Evaluation results a run folder may hold (farl train / farl reproduce), shown in the runs view."""
MAX_PATH_BYTES = 1024
"""Longest path a request may name (bytes, UTF-8); longer ones are refused before the file system sees them."""
MAX_NAME_BYTES = 255
"""Longest single file or folder name (the usual file-system limit)."""
MAX_JSON_BYTES = 4 << 20
"""Largest ``run.json`` / evaluation file the server reads."""
MAX_CURVE_BYTES = 64 << 20
"""Largest ``curve.csv`` the runs view plots."""
SHARED_FILES = 16
"""How many loaded agent files :class:`SharedPlayers` keeps."""


class UnreadableFile(ValueError):
    """A file in the served folder the server will not use: not a regular file, too large, corrupt."""


# ------------------------------------------------------------------ paths
def inside(root: Path, rel: str) -> Path:
    """The real path of ``rel`` under ``root``; RequestError (400/403) if it leaves the root or is malformed."""
    if not isinstance(rel, str) or not rel.strip():
        raise RequestError("path must be a non-empty relative path inside the served folder")
    if "\\" in rel or "\x00" in rel:
        raise RequestError(f"path {_short(rel)!r} has forbidden characters", 403)
    try:
        size = len(rel.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        raise RequestError(f"path {_short(rel)!r} is not valid text") from None
    pure = PurePosixPath(rel)
    if size > MAX_PATH_BYTES or any(len(p.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for p in pure.parts):
        raise RequestError(f"path {_short(rel)!r} is too long (at most {MAX_PATH_BYTES} bytes, "
                           f"{MAX_NAME_BYTES} per name)")
    if pure.is_absolute() or rel.startswith("~"):
        raise RequestError(f"path {_short(rel)!r} is absolute: give a path relative to the served folder", 403)
    if ".." in pure.parts:
        raise RequestError(f"path {_short(rel)!r} contains '..': only files inside the served folder are served",
                           403)
    try:
        real_root = root.resolve()
        path = (real_root / pure).resolve()
    except (OSError, RuntimeError):  # a name the file system refuses, a symlink loop
        raise RequestError(f"path {_short(rel)!r} cannot be looked up in the served folder") from None
    if path != real_root and real_root not in path.parents:
        raise RequestError(f"path {_short(rel)!r} leads outside the served folder (a symlink?)", 403)
    return path


def _short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters for a message (a 5,000-character path is not worth echoing)."""
    return text if len(text) <= limit else text[:limit] + "..."


def shown_name(name: str) -> str:
    """A file name as text the page can show: bytes that are not UTF-8 written as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def is_text(name: str) -> bool:
    """The name is valid UTF-8 (a name that is not cannot be sent to the page and chosen back)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ------------------------------------------------------------------ reading regular files only
def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return what
    return "not a regular file"


def regular_stat(path: Path, follow_symlinks: bool = True) -> os.stat_result:
    """``os.stat`` of ``path`` (symlinks followed by default: ``inside`` resolved them); UnreadableFile unless it
    is a regular file."""
    try:
        st = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError as exc:
        raise UnreadableFile(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(f"is {_kind(st.st_mode)}, not a regular file")
    return st


def open_regular(path: Path, limit: int):
    """``path`` opened for binary reading, if it is a regular file of at most ``limit`` bytes.

    The file is looked at with ``lstat`` before it is opened, so a FIFO or a
    device is never opened (opening a FIFO blocks, opening a device may do
    anything); the open itself does not follow symlinks and does not block,
    and ``fstat`` checks the same again on what was opened.
    """
    regular_stat(path, follow_symlinks=False)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise UnreadableFile(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnreadableFile(f"is {_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        os.close(fd)
        raise UnreadableFile(f"is {st.st_size:,} bytes, more than the {limit:,} the server reads")
    return os.fdopen(fd, "rb")


def read_small(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    with open_regular(path, limit) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew since fstat
        raise UnreadableFile(f"is more than the {limit:,} bytes the server reads")
    return data


def _finite(x):
    """JSON-ready copy of ``x``: NaN and infinities become None (JSON has no such numbers)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def parse_json(data: bytes):
    """Decoded JSON of a file (NaN / Infinity read as None); UnreadableFile for anything else."""
    try:
        return _finite(json.loads(data.decode("utf-8")))
    except UnicodeDecodeError:
        raise UnreadableFile("is not UTF-8 text") from None
    except RecursionError:
        raise UnreadableFile("is nested too deeply") from None
    except ValueError as exc:
        raise UnreadableFile(f"is not valid JSON ({exc})") from None


def read_json(path: Path, limit: int = MAX_JSON_BYTES):
    return parse_json(read_small(path, limit))


# ------------------------------------------------------------------ agent files
def _scalars(params) -> bool:
    return isinstance(params, dict) and all(isinstance(k, str) and isinstance(v, (int, float, str, bool))
                                            for k, v in params.items())


def agent_entry(root: Path, path: Path, rel: str) -> dict | None:
    """What the page lists of one ``.npz`` file: ``{path, game, params, format}``; None for an ``.npz`` that is
    not an agent file (no metadata, or metadata without a game); UnreadableFile for one that cannot be read.

    The metadata is read by the agent-file reader every family uses (it reads no arrays); whatever it raises
    for a damaged file becomes the file's one-line reason.
    """
    from farl_agents.learners.agent_io import read_npz_with_meta

    regular_stat(path)  # never hand a FIFO or a device to the reader
    try:
        _, meta = read_npz_with_meta(path)
    except KeyError:  # an .npz without a meta member: some other program's arrays
        return None
    except RecursionError:
        raise UnreadableFile("has metadata nested too deeply") from None
    except MemoryError:
        raise UnreadableFile("declares arrays larger than this machine's memory") from None
    except Exception as exc:  # the reader's errors (ValueError, OSError, zip and zlib errors, ...): one line
        reason = " ".join(scrub(str(exc), str(root.resolve())).split())
        raise UnreadableFile(f"is not a readable agent file ({type(exc).__name__}: {_short(reason, 160)})") \
            from None
    if not isinstance(meta, dict) or "game" not in meta:
        return None
    game, params, fmt = meta.get("game"), meta.get("game_params") or {}, meta.get("format")
    if not isinstance(game, str) or not _scalars(params) or not (fmt is None or isinstance(fmt, str)):
        raise UnreadableFile("has metadata whose game, game_params or format is malformed")
    return {"path": rel, "game": game, "params": params, "format": fmt}


# ------------------------------------------------------------------ walking the folder
class Listing:
    """Entries found by one listing, and the ones that could not be read (each with a one-line reason)."""

    def __init__(self):
        self.found: list[dict] = []
        self.unreadable: list[dict] = []

    def bad(self, rel: str, reason: str) -> None:
        if len(self.unreadable) < MAX_UNREADABLE:
            self.unreadable.append({"path": rel, "error": f"{rel} {reason}"})

    @property
    def full(self) -> bool:
        return len(self.found) >= MAX_LISTED


def _walk(root: Path, listing: Listing):
    """Folders under ``root`` (depth-limited, symlinked folders not followed), as (dir, files).

    Folders that cannot be read, or whose names are not UTF-8, go to ``listing.unreadable`` and are not
    entered; the file names yielded are all UTF-8.
    """
    real_root = root.resolve()

    def onerror(exc: OSError):
        where = Path(exc.filename) if exc.filename else real_root
        listing.bad(_rel(root, where), f"cannot be read ({exc.strerror or type(exc).__name__})")

    for dirpath, dirnames, filenames in os.walk(real_root, onerror=onerror):
        d = Path(dirpath)
        depth = len(d.relative_to(real_root).parts)
        keep = []
        for n in sorted(dirnames):
            if n in SKIP_DIRS or n.startswith(".") or depth >= MAX_DEPTH or (d / n).is_symlink():
                continue
            if not is_text(n):
                listing.bad(_rel(root, d / n), "has a name that is not UTF-8 text: rename it to use it")
                continue
            keep.append(n)
        dirnames[:] = keep
        yield d, sorted(filenames)


def _rel(root: Path, path: Path) -> str:
    return shown_name(path.relative_to(root.resolve()).as_posix() or ".")


def list_agents(root: Path) -> dict:
    """Run folders with an ``agent.npz`` and loose farl agent files (``.npz``) under ``root``.

    ``{"agents": [{path, game, params, format}], "unreadable": [{path, error}]}``.
    """
    listing = Listing()
    for d, names in _walk(root, listing):
        for f in names:
            if not f.endswith(".npz") or (d / f).is_symlink():
                continue
            path = d / f
            if not is_text(f):
                listing.bad(_rel(root, path), "has a name that is not UTF-8 text: rename it to use it")
                continue
            is_run = f == "agent.npz" and (d / "run.json").exists()
            rel = _rel(root, d) if is_run else _rel(root, path)
            try:
                entry = agent_entry(root, path, rel)
            except UnreadableFile as exc:
                listing.bad(_rel(root, path), str(exc))
                continue
            except Exception as exc:  # the last resort: one file never breaks the listing
                listing.bad(_rel(root, path), f"cannot be read ({type(exc).__name__})")
                continue
            if entry is not None:
                listing.found.append(entry)
                if listing.full:
                    break
        if listing.full:
            break
    return {"agents": listing.found, "unreadable": listing.unreadable}


def list_runs(root: Path) -> dict:
    """Folders under ``root`` holding a ``curve.csv`` (runs of ``farl train`` and ``farl reproduce``).

    ``{"runs": [{path, game}], "unreadable": [{path, error}]}``; a run whose ``run.json`` cannot be read is
    listed without its game, a ``curve.csv`` that is not a regular file makes the folder unreadable.
    """
    listing = Listing()
    for d, names in _walk(root, listing):
        if "curve.csv" not in names or (d / "curve.csv").is_symlink():
            continue
        try:
            regular_stat(d / "curve.csv")
        except UnreadableFile as exc:
            listing.bad(_rel(root, d), f"has a curve.csv that {exc}")
            continue
        game = None
        if "run.json" in names:
            try:
                record = read_json(d / "run.json")
                game = record.get("game") if isinstance(record, dict) else None
                game = game if isinstance(game, str) else None
            except UnreadableFile as exc:
                listing.bad(_rel(root, d / "run.json"), str(exc))
            except Exception as exc:  # the last resort
                listing.bad(_rel(root, d / "run.json"), f"cannot be read ({type(exc).__name__})")
        listing.found.append({"path": _rel(root, d), "game": game})
        if listing.full:
            break
    return {"runs": listing.found, "unreadable": listing.unreadable}


def run_data(root: Path, rel: str) -> dict:
    """A run folder's learning curve (``curve.csv`` rows) and evaluation results (the JSON files it has)."""
    from farl_agents.runs.curve import read_curve

    d = inside(root, rel)
    if not d.is_dir() or not (d / "curve.csv").exists():
        raise RequestError(f"{_short(rel)!r} is not a run folder (no curve.csv) inside the served folder", 404)
    try:
        with open_regular(d / "curve.csv", MAX_CURVE_BYTES):
            pass  # a regular file of a size worth plotting; read_curve reads it by name
        rows = read_curve(d / "curve.csv")
    except UnreadableFile as exc:
        raise RequestError(f"{rel}/curve.csv {exc}", 422) from None
    except (ValueError, OSError) as exc:
        raise RequestError(f"{rel}/curve.csv is not a curve file ({type(exc).__name__})", 422) from None
    evals = {}
    for name in EVAL_FILES:
        f = d / name
        if f.exists() or f.is_symlink():
            try:
                evals[name] = read_json(f)
            except UnreadableFile as exc:
                evals[name] = {"error": f"{name} {exc}"}
    return {"path": rel, "rows": _finite(rows), "evaluations": evals}


# ------------------------------------------------------------------ loading agents
def agent_path(root: Path, rel: str) -> Path:
    """The agent file ``rel`` names under ``root`` (a run folder means its ``agent.npz`` / ``agent.zip``),
    checked to be a regular file: the loaders open what they are given, and a FIFO or a device must never be
    opened."""
    path = inside(root, rel)
    if path.is_dir():
        for name in ("agent.npz", "agent.zip"):  # SB3 baselines save .zip models
            if (path / name).exists() or (path / name).is_symlink():
                path = path / name
                break
        else:
            what = "a run folder without agent.npz yet" if (path / "run.json").exists() else "a folder, not a run"
            raise RequestError(f"{_short(rel)} is {what}: choose a run folder of `farl train` or an agent file")
    elif not path.exists() and not path.is_symlink():
        raise RequestError(f"no agent file or run folder {_short(rel)!r} in the served folder", 404)
    try:
        regular_stat(path)
    except UnreadableFile as exc:
        raise RequestError(f"{_short(rel)} {exc}") from None
    return path


def load_agent(root: Path, rel: str, game, shared: SharedPlayers | None = None):
    """The harness player of an agent file or run folder under ``root``, checked to play ``game``.

    Errors are RequestErrors (400) with one line naming the file relative to the served folder: the
    loaders' own messages (``ValueError``, ``OSError``, zip errors), and as a last resort the type of anything
    else a damaged file makes a loader raise. With ``shared``, sessions against one file share its loaded
    weights (see :class:`SharedPlayers`).
    """
    path = agent_path(root, rel)
    secret = str(root.resolve())

    def load():
        from farl_agents.loading import load_player

        try:
            player, spec = load_player(str(path), game)
        except (ValueError, OSError) as exc:
            message = " ".join(str(exc).replace(secret + "/", "").split())
            if path.name not in message:
                message = f"{rel}: {message}"
            raise RequestError(scrub(message, secret)) from None
        except Exception as exc:  # the last resort: whatever a damaged file makes a loader raise
            raise RequestError(f"{_short(rel)} could not be loaded ({type(exc).__name__})") from None
        if spec.name != game.name:
            raise RequestError(f"{rel} plays {spec.name}, not {game.name}")
        return player

    if shared is None:
        return load()
    return shared.get(path, game, load)


def scrub(message: str, secret: str) -> str:
    """``message`` without the served folder's absolute path ``secret`` (it is nobody's business on the page)."""
    return message.replace(secret, "<served folder>") if secret and secret != "/" else message


# ------------------------------------------------------------------ shared players
class SharedPlayers:
    """Agents loaded from files, shared by every session that plays the same file.

    A session against an agent file used to load its own copy: 35 MB for the
    pretrained Connect Four agent, ~7 GB at the 200-session cap. Here each
    file is loaded once per (real path, modification time, size, game): a file
    written again is loaded again. At most :data:`SHARED_FILES` files are kept
    (least recently used first out; sessions still holding a player keep it).

    What is shared is read-only: the weight arrays are marked unwriteable, so a
    bug that tried to train a served agent fails loudly instead of changing
    every session's opponent. Each session gets a light copy of the player
    (:func:`session_copy`) with its own scratch buffers and search state; the
    weights stay shared. Players of a kind not known here are loaded per
    session, as before.
    """

    def __init__(self, capacity: int = SHARED_FILES):
        self.capacity = capacity
        self._players: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._loading = threading.Lock()

    def __len__(self) -> int:
        return len(self._players)

    def get(self, path: Path, game, load):
        """A session's player for the agent file ``path`` playing ``game``; ``load()`` reads the file."""
        st = os.stat(path)
        key = (str(path), st.st_mtime_ns, st.st_size, game.name, json.dumps(game.params, sort_keys=True))
        with self._loading:  # one file is read once even when two sessions ask for it at the same time
            with self._lock:
                player = self._players.get(key)
                if player is not None:
                    self._players.move_to_end(key)
            if player is None:
                player = load()
                if not freeze(player):
                    return player
                with self._lock:
                    self._players[key] = player
                    while len(self._players) > self.capacity:
                        self._players.popitem(last=False)
        return session_copy(player)

    def pretrained(self, game):
        """The pretrained agent for ``game`` (shared like an agent file); RequestError if there is none."""
        from farl_agents import pretrained

        name = game.name
        if name not in pretrained.available():
            raise RequestError(f"no pretrained agent for {name}; the games with one: "
                               f"{', '.join(pretrained.available())}")

        def load():
            agent = pretrained.load(name)
            if agent.game.params != game.params:
                raise RequestError(f"the pretrained {name} agent plays {agent.game.params}, not {game.params}")
            return agent
        return self.get(Path(pretrained.agent_path(name)).resolve(), game, load)


def _read_only(arrays) -> None:
    for a in arrays:
        if isinstance(a, np.ndarray) and a.size:
            a.flags.writeable = False


def freeze(player) -> bool:
    """Mark the weights of a player about to be shared read-only; False for a kind that is not shared."""
    from farl_agents.descent.agent import DescentAgent
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.nemesh.agent import NemeshAgent

    if isinstance(player, NTupleAgent):
        _read_only(player.net)
        _read_only(player.traces)
        return True
    if isinstance(player, NemeshAgent):
        _read_only([player.weights])
        return True
    if isinstance(player, DescentAgent):
        return True  # its evaluation is shared as it is; the search engine is built per session
    # an SB3 model plays a frozen copy of its policy and keeps nothing between moves (no torch import here)
    return (type(player).__module__, type(player).__name__) == ("farl_agents.baselines.players", "SB3Player")


def session_copy(player):
    """A session's own player on top of a shared one: the shared weights, fresh scratch and search state.

    * n-tuple agents: the network (weights, TCL tables, index tables) is shared;
      the candidate buffers ``act`` fills, the board scratch and the random
      generators are the session's.
    * Nemesh: the two weight vectors are shared; the search buffers are built
      for the session on first use.
    * descent: the evaluation f_θ is shared; the search tree and the plan of a
      multi-action turn are the session's (``with_search``).
    * SB3 players keep nothing between moves: a shallow copy.
    """
    from farl_agents.descent.agent import DescentAgent
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.nemesh.agent import NemeshAgent

    if isinstance(player, NTupleAgent):
        mine = copy.copy(player)
        mine.memory = type(player.memory)(*(a.copy() for a in player.memory))
        mine._board = player._board.copy()
        mine.agent_rng = player.agent_rng.copy()
        mine.env_rng = player.env_rng.copy()
        return mine
    if isinstance(player, NemeshAgent):
        mine = copy.copy(player)
        mine._scratch = None
        mine.rng = player.rng.copy()
        return mine
    if isinstance(player, DescentAgent):
        return player.with_search(player.search, iterations=player.iterations, seconds=player.seconds,
                                  depth=player.depth, name=player.name)
    return copy.copy(player)

