"""Adapter to the external Othello engine Edax (Delorme, v4.4): Table 1's "Edax d1".

Edax runs as a child process and is driven through its interactive text
interface, the way GBG's ``games/Othello/Edax/Edax2.java`` drives it:
``mode 3`` (Edax never moves on its own), ``level <depth>``, then for every
move ``setboard <64 cells + side to move>`` and ``go``, answered by a line
``Edax plays <move>``. Cells are sent row by row from a1 (farl's cell 0) to
h8, ``X`` for black (``player_0``), ``O`` for white, ``-`` for empty; the
last character is the side to move. A forced pass is answered without
asking Edax.

Settings as GBG's ``Edax2`` uses them for the paper's "Edax d1": ``level 1``;
its ``move-time`` (10 s) never binds at depth 1; GBG's ``data/book.dat`` is
the 84-byte book Edax writes when it finds none (the initial position only),
so GBG plays without a book, and so does this adapter (``-book-usage off``,
with a private book file in a temporary working directory, so parallel
players never write next to the binary).

The child process runs on :class:`~farl_agents.opponents.gtp.EngineProcess`, the process layer of farl's
GTP engines (no shell, every read with a timeout, the engine's last stderr lines in errors, pickled
without the process). Edax also speaks GTP (its text interface switches to GTP at ``protocol_version``,
``src/edax.c``), but its GTP has no command that sets a position, while its own ``setboard`` sets any
position at once, so this adapter keeps no move history and replays nothing; a crashed Edax is started
once more for the same move.

Edax is not a Python package. Without the binary or its evaluation weights,
:class:`EdaxPlayer` raises a ``RuntimeError`` that says how to install them
(:data:`INSTALL_HINT`; docs/reproducing.md, "Othello against Edax").
"""
from __future__ import annotations

import os
import re
import sys
import tempfile

import numpy as np

from farl_agents.opponents.gtp import EngineProcess, find_binary
from farl_envs.core.spec import HEADER, TERMINAL, TO_MOVE, GameSpec

INSTALL_HINT = (
    "Edax is not installed. Build it from https://github.com/abulmo/edax-reversi "
    "(`cd src && make build CC=gcc ARCH=x86-64 OS=linux` gives bin/lEdax-x86-64), get its evaluation "
    "weights eval.dat (Edax's release eval.7z, or GBG's agents/Othello/Edax/data/eval.dat) into data/ "
    "beside the binary's folder or the binary, and point the environment variable FARL_EDAX at the binary "
    "(or put it on PATH as `edax`; `farl reproduce table1 --edax PATH`); FARL_EDAX_EVAL names another "
    "eval.dat."
)
_PLAYS = re.compile(r"[eE]dax plays ([A-Ha-h][1-8]|[Pp][Ss])")
PASS = 64


def find_edax(binary: str | None = None) -> str | None:
    """Path of the Edax binary: ``binary``, else ``$FARL_EDAX``, else ``edax`` on PATH; None if absent (an
    explicit path that names nothing is None too: :func:`~farl_agents.opponents.gtp.find_binary`)."""
    return find_binary(("edax",), binary, "FARL_EDAX", extra_dirs=())


def find_eval_file(binary: str, eval_file: str | None = None) -> str | None:
    """Edax's weights: ``eval_file``, ``$FARL_EDAX_EVAL``, or ``data/eval.dat`` in the binary's folder or its
    parent (Edax's own layout: ``bin/`` beside ``data/``); None if none exists."""
    here = os.path.dirname(os.path.realpath(binary))
    for cand in (eval_file, os.environ.get("FARL_EDAX_EVAL"), os.path.join(here, "data", "eval.dat"),
                 os.path.join(os.path.dirname(here), "data", "eval.dat")):
        if cand and os.path.isfile(cand):
            return os.path.abspath(cand)
    return None


def edax_board_string(state: np.ndarray) -> str:
    """The ``setboard`` argument of an Othello kernel state (64 cells a1..h8, then the side to move)."""
    cells = "".join("-XO"[int(v)] for v in state[HEADER:HEADER + 64])
    return cells + ("X" if int(state[TO_MOVE]) == 0 else "O")


def edax_move_to_action(move: str) -> int:
    """``"D3"`` -> ``8 * 2 + 3 = 19``; ``"PS"`` -> 64 (pass)."""
    move = move.strip().upper()
    if move == "PS":
        return PASS
    col, row = ord(move[0]) - ord("A"), int(move[1]) - 1
    if not (0 <= col < 8 and 0 <= row < 8):
        raise ValueError(f"not an Othello square: {move!r}")
    return 8 * row + col


class EdaxPlayer:
    """Edax at a fixed search depth (default 1, the paper's "Edax d1").

    Args:
        depth: Edax ``level`` (>= 0).
        binary: path or name of the Edax executable (else ``$FARL_EDAX`` or ``edax``).
        eval_file: Edax's weights ``eval.dat`` (else :func:`find_eval_file`).
        timeout: seconds to wait for a move before giving up.
    """

    def __init__(self, depth: int = 1, binary: str | None = None, eval_file: str | None = None,
                 timeout: float = 30.0, name: str | None = None):
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0:
            raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
        path = find_edax(binary)
        if path is None:
            raise RuntimeError(INSTALL_HINT)
        weights = find_eval_file(path, eval_file)
        if weights is None:
            raise RuntimeError(f"Edax's weights file eval.dat was not found for {path}. " + INSTALL_HINT)
        self.depth = int(depth)
        self.binary = path
        self.eval_file = weights
        self.timeout = float(timeout)
        self.name = name if name is not None else f"Edax-d{self.depth}"
        self._engine: EngineProcess | None = None
        self._dir = None

    def __repr__(self) -> str:
        return f"EdaxPlayer(depth={self.depth}, binary={self.binary!r})"

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_engine"] = None  # a process never pickles: the worker starts its own at its first move
        d["_dir"] = None
        return d

    @property
    def _proc(self):
        """The running Edax child process, or None."""
        return self._engine.proc if self._engine is not None else None

    def _start(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="farl-edax-")
        os.mkdir(os.path.join(self._dir.name, "data"))
        # -level at start too: without a book Edax makes one at its start level (default 21, slow)
        command = [self.binary, "-eval-file", self.eval_file, "-book-usage", "off",
                   "-book-file", os.path.join(self._dir.name, "data", "book.dat"), "-level", str(self.depth)]
        self._engine = EngineProcess(command, cwd=self._dir.name)
        self._engine.send("mode 3")
        self._engine.send(f"level {self.depth}")

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        if game.name != "othello":
            raise ValueError(f"EdaxPlayer plays Othello only, got {game.id}")
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        if mask[PASS]:
            return PASS
        # Edax holds no game between moves (each move sets its board), so a crash costs one restart, no replay
        for attempt in (0, 1):
            try:
                if self._engine is None or not self._engine.alive():
                    if self._engine is not None:
                        raise EOFError(f"{self.binary} exited")
                    self._start()
                return self._ask(state, mask)
            except TimeoutError:
                self.close()
                raise RuntimeError(f"Edax ({self.binary}) gave no move within {self.timeout:g} s") from None
            except EOFError:
                tail = self._engine.stderr_text() if self._engine is not None else ""
                self.close()
                if attempt:
                    raise RuntimeError(f"Edax ({self.binary}) exited unexpectedly twice in a row (is data/eval.dat "
                                       f"in its working directory?){tail}") from None
        raise AssertionError("unreachable")

    def _ask(self, state: np.ndarray, mask: np.ndarray) -> int:
        """Send the position and ``go``; the move of the reply line ``Edax plays <move>``."""
        self._engine.send("setboard " + edax_board_string(state))
        self._engine.send("go")
        while True:
            m = _PLAYS.search(self._engine.read_line(self.timeout))
            if m:
                a = edax_move_to_action(m.group(1))
                if not mask[a]:
                    raise RuntimeError(f"Edax played the illegal move {m.group(1)}")
                return a

    def close(self) -> None:
        """Stop the Edax process (``quit``, killed after 2 s; started again on the next move)."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close("quit", timeout=2.0)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __del__(self):
        try:
            if sys.is_finalizing():
                if self._engine is not None:
                    self._engine.proc.kill()
            else:
                self.close()
        except Exception:  # nothing left to report to
            pass
