"""External game engines as harness players: a child process speaking a line protocol, and GTP on top of it.

Three layers, each usable alone:

:class:`EngineProcess`
    one engine binary as a child process started from an argument list
    (never a shell), its stdout read line by line on a daemon thread into a
    queue, so every read has a timeout (a hung engine never blocks farl), and
    the last lines of its stderr kept for error messages. ``close()`` asks
    the engine to quit, then kills it after a grace period. Edax's own text
    protocol (:mod:`farl_agents.opponents.edax`) runs on this layer.
:class:`GTPClient`
    the Go Text Protocol (GTP 2, also spoken by Othello and Hex engines as
    "HTP"): ``command("genmove b")`` sends one numbered command and returns
    the text of its ``= ...`` reply (a ``? ...`` reply raises
    :class:`GTPError`). The client keeps the commands that set up the
    current game (``boardsize``, ``clear_board``, ``play``...); when the
    engine crashes or closes its output, it is started once more, the game
    is replayed, and the command is sent again; a second death, a missing
    binary or a timeout is a ``RuntimeError`` naming the binary.
:class:`GTPPlayer`
    the :class:`~farl_agents.players.Player` protocol over a client. The
    harness hands a player only the kernel state, never the history, so the
    player remembers the position the engine holds and, at every ``act``,
    finds the move(s) that lead from it to the new state by trying the
    legal actions (up to two plies: the opponent's move, and a pass where
    the game has one), sends them with ``play``, and asks ``genmove``. A
    state it cannot reach that way (a game from a random opening, or a new
    game) is set up with the engine's own setup command where it has one,
    else by ``clear_board`` and a replay from the start position, else a
    clear ``ValueError``. Each engine subclass declares what it supports
    (games, board sizes, pass, swap) and refuses the rest with a
    ``ValueError`` before anything is started.

Players pickle without their process (evaluation workers, Ray): the process
is started again, lazily, in the worker at its first move.

Engines and their installation: docs/engines.md.
"""
from __future__ import annotations

import collections
import os
import queue
import shutil
import subprocess
import sys
import threading
from typing import Sequence

import numpy as np

from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

#: folders searched after PATH: Debian installs game engines (gtp-rhino) in /usr/games, often not on PATH
EXTRA_BINARY_DIRS = ("/usr/games", "/usr/local/games")


def find_binary(names: Sequence[str], binary: str | None = None, env_var: str | None = None,
                extra_dirs: Sequence[str] = EXTRA_BINARY_DIRS) -> str | None:
    """Absolute path of an engine binary, or None: ``binary`` (a path or a name on PATH) if given, else the
    environment variable ``env_var`` if set, else the first of ``names`` on PATH or in ``extra_dirs``.

    An explicit ``binary`` or ``env_var`` that names nothing executable gives None (never a fallback to PATH:
    the user asked for that engine).
    """
    for explicit in (binary, os.environ.get(env_var) if env_var else None):
        if explicit:
            return _executable(explicit)
    search = os.pathsep.join([os.environ.get("PATH", ""), *extra_dirs])
    for name in names:
        path = shutil.which(name, path=search)
        if path:
            return os.path.abspath(path)
    return None


def _executable(cand: str) -> str | None:
    if os.sep in cand or (os.altsep and os.altsep in cand):
        return os.path.abspath(cand) if os.path.isfile(cand) and os.access(cand, os.X_OK) else None
    path = shutil.which(cand)
    return os.path.abspath(path) if path else None


class EngineProcess:
    """One engine as a child process: lines in, lines out, every read with a timeout.

    Args:
        argv: the binary (absolute path) and its arguments; run without a shell.
        cwd: working directory of the engine (engines that write files, e.g. logs, get a private one).
        stderr_lines: how many of the engine's last stderr lines to keep for error messages.
    """

    def __init__(self, argv: Sequence[str], cwd: str | None = None, stderr_lines: int = 20):
        self.argv = [str(a) for a in argv]
        self.binary = self.argv[0]
        self.stderr_tail: collections.deque = collections.deque(maxlen=stderr_lines)
        try:
            self.proc = subprocess.Popen(self.argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, bufsize=1, errors="replace")
        except OSError as e:
            raise RuntimeError(f"cannot start the engine {self.binary}: {e}") from None
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_tail), daemon=True).start()

    @staticmethod
    def _pump(stream, sink) -> None:
        """Copy ``stream`` line by line into ``sink`` (a queue gets None at the end of the stream)."""
        try:
            for line in stream:
                (sink.put if isinstance(sink, queue.Queue) else sink.append)(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        if isinstance(sink, queue.Queue):
            sink.put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: str) -> None:
        """Write one line; ``EOFError`` when the engine is gone (a broken pipe)."""
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise EOFError(f"{self.binary} closed its input") from None

    def read_line(self, timeout: float) -> str:
        """The next line of stdout; ``TimeoutError`` after ``timeout`` seconds, ``EOFError`` at its end."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{self.binary} wrote nothing within {timeout:g} s") from None
        if line is None:
            self.lines.put(None)  # stays at its end
            try:
                code = self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
            raise EOFError(f"{self.binary} closed its output" if code is None else
                           f"{self.binary} exited (code {code})")
        return line

    def stderr_text(self) -> str:
        """The engine's last stderr lines, as a suffix for error messages ('' if none)."""
        tail = [line for line in list(self.stderr_tail) if line.strip()][-5:]
        return ("; its last stderr lines: " + " | ".join(tail)) if tail else ""

    def close(self, quit_command: str | None = "quit", timeout: float = 2.0) -> None:
        """Send ``quit_command`` (if any), wait up to ``timeout`` seconds, then kill; idempotent."""
        if self.proc.poll() is None and quit_command:
            try:
                self.send(quit_command)
            except EOFError:
                pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout)
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        # stdout and stderr stay with their reader threads, which end at the streams' end (closing them
        # here would race with a thread blocked in a read)


class GTPError(RuntimeError):
    """The engine refused a command (a ``? ...`` reply); the message holds the command and the reply."""


class GTPClient:
    """A GTP engine: numbered commands, replies read up to their blank line, restart and replay on a crash.

    Args:
        argv: the binary (absolute path, see :func:`find_binary`) and its arguments.
        timeout: default seconds to wait for a reply; a command may give its own.
        setup: commands sent after every start, before the game (engine settings such as
            ``param_mohex max_games 1000``); a refusal is an error naming the command.
        cwd: the engine's working directory.
        quit_timeout: seconds ``close()`` waits after ``quit`` before it kills the engine.

    The game's commands (those sent with ``game=True``: ``boardsize``, ``clear_board``, ``play``, a
    setup command, and the ``genmove`` replies turned into ``play``) form the replay log: after a crash
    the client starts the engine again, sends ``setup`` and the log, then the command that failed. Only
    one restart per command: an engine that dies again raises ``RuntimeError``. A timeout kills the
    engine and raises at once (a slow engine would only time out again); the next command starts it anew
    and replays the log.
    """

    def __init__(self, argv: Sequence[str], timeout: float = 30.0, setup: Sequence[str] = (),
                 cwd: str | None = None, quit_timeout: float = 2.0):
        self.argv = [str(a) for a in argv]
        self.binary = self.argv[0]
        self.timeout = float(timeout)
        self.setup = list(setup)
        self.cwd = cwd
        self.quit_timeout = float(quit_timeout)
        self.log: list[str] = []
        self.restarts = 0
        self._engine: EngineProcess | None = None
        self._next_id = 1

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_engine"] = None  # a process never pickles; the worker starts its own at the first command
        return d

    def __repr__(self) -> str:
        return f"GTPClient({self.argv!r})"

    @property
    def running(self) -> bool:
        return self._engine is not None and self._engine.alive()

    # -- process --------------------------------------------------------------------------------------------
    def _start(self) -> None:
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            raise RuntimeError(f"the engine binary {self.binary} is missing or not executable")
        self._engine = EngineProcess(self.argv, cwd=self.cwd)
        try:
            for command in self.setup + self.log:
                self._exchange(command, self.timeout)
        except GTPError:
            self._kill()  # never keep an engine that missed a setting or part of the game
            raise

    def _kill(self) -> None:
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close(quit_command=None, timeout=self.quit_timeout)

    def close(self) -> None:
        """``quit`` the engine, killing it after ``quit_timeout`` seconds; the next command starts it again."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close("quit", self.quit_timeout)

    def __del__(self):
        try:
            if sys.is_finalizing():  # no waiting at interpreter shutdown: just end the child
                if self._engine is not None:
                    self._engine.proc.kill()
            else:
                self.close()
        except Exception:  # nothing left to report to
            pass

    # -- protocol -------------------------------------------------------------------------------------------
    def _exchange(self, command: str, timeout: float) -> str:
        """Send ``command`` with a fresh id and read its reply; the raw failures of the process propagate."""
        engine = self._engine
        cid = self._next_id
        self._next_id += 1
        engine.send(f"{cid} {command}")
        noise = []
        while True:
            line = engine.read_line(timeout)
            head = line[:1]
            if head in ("=", "?"):
                rest = line[1:]
                digits = len(rest) - len(rest.lstrip("0123456789"))
                if digits and int(rest[:digits]) != cid:  # the late reply of an earlier command
                    self._skip_reply(engine, timeout)
                    continue
                text = [rest[digits:].strip()]
                while True:
                    more = engine.read_line(timeout)
                    if not more.strip():
                        break
                    text.append(more)
                answer = "\n".join(text).strip()
                if head == "?":
                    raise GTPError(f"{self.binary} refused {command!r}: {answer or '(no reason given)'}")
                return answer
            if line.strip():
                noise.append(line)
                if len(noise) > 1000:
                    raise RuntimeError(f"{self.binary} answered {command!r} with lines that are not GTP replies "
                                       f"(no '=' or '?'), e.g. {noise[0]!r}")

    @staticmethod
    def _skip_reply(engine: EngineProcess, timeout: float) -> None:
        while engine.read_line(timeout).strip():
            pass

    def command(self, command: str, timeout: float | None = None, game: bool = False) -> str:
        """Send one command and return the text of its ``=`` reply (without ``=``).

        ``game=True`` adds the command to the replay log once the engine accepted it. Raises
        :class:`GTPError` for a ``?`` reply and ``RuntimeError`` for a missing binary, a timeout (the
        engine is killed) or a second death in a row.
        """
        wait = self.timeout if timeout is None else float(timeout)
        for attempt in (0, 1):
            try:
                if self._engine is None or not self._engine.alive():
                    if self._engine is not None:  # died since the last command: that counts as its crash
                        raise EOFError(f"{self.binary} exited (code {self._engine.proc.poll()})")
                    self._start()
                answer = self._exchange(command, wait)
            except TimeoutError:
                tail = self._engine.stderr_text() if self._engine else ""
                self._kill()
                raise RuntimeError(f"{self.binary} gave no reply to {command!r} within {wait:g} s "
                                   f"(the engine was stopped){tail}") from None
            except EOFError as e:
                tail = self._engine.stderr_text() if self._engine else ""
                self._kill()
                if attempt:
                    raise RuntimeError(f"{self.binary} died twice in a row (last: {e}, during {command!r}){tail}"
                                       ) from None
                self.restarts += 1
                continue
            if game:
                self.log.append(command)
            return answer
        raise AssertionError("unreachable")

    def new_game(self, commands: Sequence[str]) -> None:
        """Forget the current game and start one with ``commands`` (e.g. ``boardsize 8``, ``clear_board``)."""
        self.log = []
        for c in commands:
            self.command(c, game=True)


# ----------------------------------------------------------------------------------------------------------------
class GTPPlayer:
    """An engine over GTP as a harness player (base class; one subclass per engine).

    A subclass sets the class attributes and implements the vertex mapping:

    ``game_names``
        farl game names it plays; ``colours`` the GTP colour of each seat (``("b", "w")``: seat 0 black).
    ``pass_vertex``
        the vertex ``play`` takes for the game's pass action (``"pass"``), or None when the engine passes on
        its own (GRhino: the side without a move is skipped) and a pass is never sent.
    ``swap``
        whether it can play a swap rule (farl's games have none, so only what a game would need).

    and overrides :meth:`check_game` (board sizes, variants), :meth:`new_game_commands`,
    :meth:`action_to_vertex`, :meth:`vertex_to_action` and, where the engine can set up a position,
    :meth:`setup_commands`.

    Args:
        client: the engine's :class:`GTPClient`.
        name: the player's name in results.
        move_timeout: seconds for one ``genmove``.
    """

    game_names: tuple = ()
    colours: tuple = ("b", "w")
    pass_action: int | None = None
    pass_vertex: str | None = "pass"
    swap: bool = False
    engine: str = "the engine"

    def __init__(self, client: GTPClient, name: str, move_timeout: float = 60.0):
        self.client = client
        self.name = name
        self.move_timeout = float(move_timeout)
        self._known: np.ndarray | None = None  # the position the engine holds (a kernel state)
        self._game_id = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.client.binary!r})"

    # -- declarations a subclass overrides ------------------------------------------------------------------
    def check_game(self, game: GameSpec) -> None:
        """``ValueError`` unless the engine plays ``game`` (name, sizes, variants)."""
        if game.name not in self.game_names:
            raise ValueError(f"{self.name}: {self.engine} plays {' / '.join(self.game_names)} only, not {game.id}")
        if game.n_players != len(self.colours):
            raise ValueError(f"{self.name}: {self.engine} plays {len(self.colours)} players, {game.id} has "
                             f"{game.n_players}")

    def new_game_commands(self, game: GameSpec) -> list[str]:
        """The commands that start an empty game of ``game`` (``boardsize``, ``clear_board``)."""
        return ["clear_board"]

    def setup_commands(self, game: GameSpec, state: np.ndarray) -> list[str] | None:
        """Commands that put the engine in ``state`` without its history, or None if the engine has none."""
        return None

    def action_to_vertex(self, game: GameSpec, action: int) -> str:
        raise NotImplementedError

    def vertex_to_action(self, game: GameSpec, vertex: str) -> int:
        """The action of a ``genmove`` reply; ``ValueError`` when it names no move of ``game``."""
        raise NotImplementedError

    # -- the harness protocol -------------------------------------------------------------------------------
    def reset(self) -> None:
        """A new game: the next ``act`` syncs the engine from its state (the process keeps running)."""
        self._known = None

    def close(self) -> None:
        """Stop the engine process (it starts again at the next move)."""
        self.client.close()

    def follow(self, game: GameSpec, state: np.ndarray) -> None:
        """Bring the engine to ``state`` without asking it for a move (e.g. a finished game's last move, before
        asking the engine's ``final_score``)."""
        self.check_game(game)
        self._sync(game, np.asarray(state, dtype=np.int32))

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        self.check_game(game)
        if state.shape != (game.state_size,):
            raise ValueError(f"{self.name}: state must have shape ({game.state_size},), got {state.shape}")
        if state[TERMINAL]:
            raise ValueError(f"{game.id}: no move in a terminal position")
        state = np.asarray(state, dtype=np.int32)
        self._sync(game, state)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.legal_actions(game.p, state, mask)
        colour = self.colours[int(state[TO_MOVE])]
        if self.pass_action is not None and mask[self.pass_action] and mask.sum() == 1:
            self._play(game, state, self.pass_action)  # forced: no need to ask
            return self.pass_action
        reply = self.client.command(f"genmove {colour}", timeout=self.move_timeout)
        action = self.reply_to_action(game, state, mask, reply)
        self.client.log.append(f"play {colour} {self.action_to_vertex(game, action)}")
        self._advance(game, state, action)
        return action

    def reply_to_action(self, game: GameSpec, state: np.ndarray, mask: np.ndarray, reply: str) -> int:
        """The legal action of a ``genmove`` reply; ``RuntimeError`` for anything else (the engine's fault)."""
        try:
            action = self.vertex_to_action(game, reply.split()[0] if reply.split() else reply)
        except ValueError as e:
            raise RuntimeError(f"{self.name}: {self.client.binary} answered genmove with {reply!r}, not a move "
                               f"of {game.id} ({e})") from None
        if not mask[action]:
            raise RuntimeError(f"{self.name}: {self.client.binary} played {reply!r}, illegal in this {game.id} "
                               "position (engine and farl disagree about the position or the rules)")
        return action

    # -- keeping the engine's position in step with the harness's --------------------------------------------
    def _advance(self, game: GameSpec, state: np.ndarray, action: int) -> None:
        out = np.empty_like(state)
        game.afterstate(game.p, state, int(action), out, np.zeros(game.n_players))
        self._known = out

    def _play(self, game: GameSpec, state: np.ndarray, action: int) -> None:
        """Tell the engine about ``action`` played in ``state`` and follow it."""
        if action != self.pass_action or self.pass_vertex is not None:
            vertex = self.pass_vertex if action == self.pass_action else self.action_to_vertex(game, action)
            self.client.command(f"play {self.colours[int(state[TO_MOVE])]} {vertex}", game=True)
        self._advance(game, state, action)

    def _start_position(self, game: GameSpec) -> np.ndarray:
        if game.has_chance:
            raise ValueError(f"{self.name}: {game.id} has chance events, which {self.engine} cannot follow")
        return np.asarray(game.initial_state(game.p, make_rng(0)), dtype=np.int32)

    def _sync(self, game: GameSpec, state: np.ndarray) -> None:
        """Bring the engine to ``state``: from the position it holds, from the start, or by a setup command."""
        key = (game.id, tuple(sorted(game.params.items())))
        if self._game_id != key:
            self._known, self._game_id = None, key
        # (a stopped engine is no reason to start over: the client replays its log at the next command)
        if self._known is not None:
            path = _moves_between(game, self._known, state, plies=2)
            if path is not None:
                for s, a in path:
                    self._play(game, s, a)
                return
        # a new game (or one the engine cannot follow): from the start, else set up
        start = self._start_position(game)
        path = _moves_between(game, start, state, plies=2)
        if path is not None:
            self.client.new_game(self.new_game_commands(game))
            self._known = start
            for s, a in path:
                self._play(game, s, a)
            return
        setup = self.setup_commands(game, state)
        if setup is None:
            raise ValueError(f"{self.name}: cannot show {self.engine} this {game.id} position: it is more than "
                             "two plies from both the engine's position and the start, and the engine has no "
                             "setup command")
        self.client.new_game(self.new_game_commands(game) + setup)
        self._known = state.copy()


def _moves_between(game: GameSpec, a: np.ndarray, b: np.ndarray, plies: int) -> list | None:
    """``[(state, action), ...]``: the shortest line of at most ``plies`` legal moves from ``a`` to ``b``
    (``[]`` when equal), or None. Tries every legal action (two plies: at most n_actions² afterstates)."""
    if np.array_equal(a, b):
        return []
    if plies == 0 or a[TERMINAL]:
        return None
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, a, mask)
    rewards = np.zeros(game.n_players)
    children = []
    for action in np.flatnonzero(mask):
        out = np.empty_like(a)
        game.afterstate(game.p, a, int(action), out, rewards)
        if np.array_equal(out, b):
            return [(a, int(action))]
        children.append((int(action), out))
    if plies > 1:
        for action, child in children:
            rest = _moves_between(game, child, b, plies - 1)
            if rest:
                return [(a, action)] + rest
    return None
