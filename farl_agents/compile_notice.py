"""Say when numba compiles, and count how long it took, so that compiling is never taken for training.

A farl loop is compiled by numba the first time a process calls it for a game (15-60 CPU seconds
on an empty cache, docs/results/cold_start.md) and loaded from the on-disk cache afterwards (a
fraction of a second; :mod:`farl_envs.numba_setup` names the folder). Without a word, the first
``farl train`` sat at 0 % for a minute and counted that minute as training time.

:class:`CompileWatch` listens to numba's ``numba:compile`` events, which numba sends only when it
really compiles (a load from the cache sends none). While active it

* lets numba's inliner copy its IR the cheaper way (:func:`farl_envs.numba_setup.fast_inline_copies`);
* adds up the seconds of the outermost compilations (:attr:`CompileWatch.seconds`), so a caller
  can take them out of its training time;
* on the first compilation shows ``compiling the TicTacToe TD-FARL loop (once; cached for next
  time)``: with a spinner and the seconds so far on a terminal, as one line elsewhere (or through
  a progress bar's ``write``), and nothing when asked for silence; at the end it says how long
  compiling took.

>>> with CompileWatch("the TicTacToe TD-FARL loop") as watch:   # doctest: +SKIP
...     agent.train(0)
>>> watch.seconds                                                # doctest: +SKIP
"""
from __future__ import annotations

import sys
import threading
import time

from numba.core import event

from farl_envs.numba_setup import fast_inline_copies

SHOW_MODES = ("auto", "spinner", "line", "none")
"""How a watch shows itself: ``auto`` (a spinner on a terminal, else one line), ``spinner``, ``line``,
``none`` (only counts)."""
FRAMES = "|/-\\"
SPIN_SECONDS = 0.25


def game_title(game: str) -> str:
    """A game's name as people write it (``"TicTacToe"``, ``"ConnectFour"``, ``"Nim3P"``): its Gymnasium id's."""
    import farl_envs

    try:
        return farl_envs.gymnasium_id(game).split("/", 1)[1].rsplit("-v", 1)[0]
    except ValueError:
        return game


class Notice:
    """A line on stderr for something that takes a while: with a spinner and the seconds so far on a terminal,
    else (or with ``write``, e.g. a progress bar's) one line; then a closing line. Used by
    :class:`CompileWatch` and, with a text of its own, by :func:`notice`."""

    def __init__(self, text: str, show: str = "auto", write=None, stream=None):
        if show not in SHOW_MODES:
            raise ValueError(f"show must be one of {', '.join(SHOW_MODES)}, got {show!r}")
        self.text = text
        self._write = write
        self._stream = stream if stream is not None else sys.stderr
        if show == "auto":
            tty = getattr(self._stream, "isatty", lambda: False)()
            show = "spinner" if write is None and tty else "line"
        self.mode = "line" if show == "spinner" and write is not None else show
        self.started = None
        self.closing = None
        """The closing line (None: none shown); :meth:`done` sets it."""
        self._stop = threading.Event()
        self._spinner = None

    def say(self, text: str) -> None:
        if self.mode == "none":
            return
        if self._write is not None:
            self._write(text)
        else:
            print(text, file=self._stream, flush=True)

    def start(self) -> None:
        self.started = time.perf_counter()
        if self.mode == "line":
            self.say(self.text + " ...")
        elif self.mode == "spinner":
            self._spinner = threading.Thread(target=self._spin, name="farl-notice", daemon=True)
            self._spinner.start()

    def _spin(self) -> None:
        i = 0
        while not self._stop.is_set():
            elapsed = time.perf_counter() - self.started
            self._stream.write(f"\r{FRAMES[i % len(FRAMES)]} {self.text} {elapsed:.0f} s\x1b[K")
            self._stream.flush()
            i += 1
            self._stop.wait(SPIN_SECONDS)

    def done(self, closing: str | None) -> None:
        """The line to show when the notice ends (None: nothing)."""
        self.closing = closing

    @property
    def seconds(self) -> float:
        """Wall seconds since :meth:`start`."""
        return 0.0 if self.started is None else time.perf_counter() - self.started

    def stop(self) -> None:
        if self.started is None:
            return
        self._stop.set()
        if self._spinner is not None:
            self._spinner.join()
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._spinner = None
        if self.closing:
            self.say(self.closing)

    def __enter__(self) -> "Notice":
        self.start()
        return self

    def __exit__(self, *exc) -> bool:
        if exc[0] is not None and self.closing is None:
            self.closing = f"stopped after {self.seconds:.0f} s"
        self.stop()
        return False


def notice(text: str, show: str = "auto", write=None, stream=None) -> Notice:
    """A :class:`Notice` shown at once (``with notice(...) as shown: ...; shown.done("...")``)."""
    return Notice(text, show, write, stream)


class CompileWatch(event.Listener):
    """A context manager that counts numba's compile seconds and announces the first compilation.

    Args:
        what: what is being compiled, for the notice (``"the TicTacToe TD-FARL loop"``); None shows nothing.
        show: one of :data:`SHOW_MODES`.
        write: prints one line (e.g. a tqdm bar's ``write``); the default writes to ``stream``. Given, a
            spinner is never drawn (it would fight the bar for the line).
        stream: where the notice goes (default: ``sys.stderr`` at the time of entering).
        when_done: called with the watch when it ends (e.g. to book its :attr:`seconds`).
    """

    def __init__(self, what: str | None = None, show: str = "auto", write=None, stream=None, when_done=None):
        if show not in SHOW_MODES:
            raise ValueError(f"show must be one of {', '.join(SHOW_MODES)}, got {show!r}")
        self.what = what
        self.show = "none" if what is None else show
        self._write = write
        self._stream = stream
        self._when_done = when_done
        self.seconds = 0.0
        """Seconds spent in numba's outermost compilations while the watch was active."""
        self.compilations = 0
        """How many outermost compilations there were (0: everything came from the cache or was loaded)."""
        self._depth = 0
        self._started = None
        self._notice = None

    # ------------------------------------------------------------ numba's events
    def on_start(self, ev) -> None:
        self._depth += 1
        if self._depth == 1:
            self._started = time.perf_counter()
            if self._notice is None:
                self._notice = Notice(f"compiling {self.what} (once; cached for next time)", self.show,
                                      self._write, self._stream)
                self._notice.start()

    def on_end(self, ev) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._started is not None:
            self.seconds += time.perf_counter() - self._started
            self.compilations += 1
            self._started = None

    # ------------------------------------------------------------ context
    def __enter__(self) -> "CompileWatch":
        if self._stream is None:
            self._stream = sys.stderr
        self._copies = fast_inline_copies()
        self._copies.__enter__()
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc) -> bool:
        event.unregister("numba:compile", self)
        self._copies.__exit__(*exc)
        if self._depth and self._started is not None:  # interrupted inside a compilation
            self.seconds += time.perf_counter() - self._started
            self._depth, self._started = 0, None
        if self._notice is not None:
            if exc[0] is not None:
                self._notice.done(f"compiling {self.what} stopped after {self._notice.seconds:.0f} s")
            else:
                self._notice.done(f"compiled {self.what} in {self.seconds:.0f} s (cached for next time)")
            self._notice.stop()
        if self._when_done is not None:
            self._when_done(self)
        return False
