"""GRhino (Kriang Lerdsuwanakij; GPL), an Othello engine, over GTP: opponents ``grhino1`` ... ``grhino5``.

GRhino's GTP front end ``gtp-rhino`` (Debian/Ubuntu package ``grhino``, installed as ``/usr/games/gtp-rhino``)
plays at one of five AI levels, chosen on its command line (``gtp-rhino --level N``, ``-l N``; GTP has no
command for it). Its ``--help`` (version 0.16.1) lists the settings this player passes:

=================  =============================================================================
``--level N``      AI level 1..5 (GRhino's default 3, farl's ``grhino``); each level fixes the
                   mid-game search depth, the winning-move depth and the perfect end-game depth
``--book N``       opening book variation 0..5 (none .. very high); GRhino's default 2 (low),
                   left as is
``--rand N``       randomness 0..10 of its evaluation; GRhino's default 0: a deterministic player,
                   so evaluations against it vary through their start positions (random openings)
=================  =============================================================================

Protocol facts (checked on 0.16.1 with ``showboard``, and pinned by tests/test_gtp_engines.py):

* vertices are a file letter and a rank number, rank 1 at the top, the same as farl's cell names:
  ``d3`` is farl's action ``8 * 2 + 3 = 19``; it starts with white on d4 and e5, as farl does; replies
  are upper case (``= D3``);
* ``boardsize 8`` only (other sizes: ``? unacceptable size``); colour ``b`` moves first (farl's seat 0);
* there is no pass move: ``play b pass`` is a syntax error, and a side without a move is skipped by the
  engine itself, so farl's pass action (64) is never sent (and never asked for: a forced pass is
  answered without the engine);
* ``grhino-setup_board <64 cells a1..h8: X black, O white, - empty> <X|O to move>`` sets up a
  position, which is how a game from a random opening starts;
* it writes no files unless asked to (``--log``).
"""
from __future__ import annotations

import numpy as np

from farl_agents.opponents.gtp import GTPClient, GTPPlayer, find_binary
from farl_envs.core.spec import HEADER, TO_MOVE, GameSpec

#: GRhino's AI levels, and the level of the plain name ``grhino`` (the engine's own default)
LEVELS = (1, 5)
DEFAULT_LEVEL = 3
BINARY_NAMES = ("gtp-rhino",)
ENV_VAR = "FARL_GRHINO"
PASS = 64
INSTALL_HINT = ("GRhino's GTP engine gtp-rhino was not found (looked at $FARL_GRHINO, PATH and /usr/games). "
                "Install it with `sudo apt-get install grhino` (Debian, Ubuntu), or point FARL_GRHINO at a "
                "gtp-rhino binary built from GRhino's source (docs/engines.md).")
_FILES = "abcdefgh"


def find_grhino(binary: str | None = None) -> str | None:
    """Path of ``gtp-rhino``: ``binary``, ``$FARL_GRHINO``, PATH or /usr/games; None if absent."""
    return find_binary(BINARY_NAMES, binary, ENV_VAR)


def othello_vertex(action: int) -> str:
    """farl's Othello cell -> GTP vertex: ``19`` -> ``"d3"`` (file letter, rank from 1)."""
    if not 0 <= int(action) < 64:
        raise ValueError(f"not an Othello cell: {action!r}")
    return _FILES[action % 8] + str(action // 8 + 1)


def othello_action(vertex: str) -> int:
    """GTP vertex -> farl's Othello cell: ``"D3"`` -> ``19``; ``ValueError`` for anything else."""
    v = vertex.strip().lower()
    if len(v) != 2 or v[0] not in _FILES or v[1] not in "12345678":
        raise ValueError(f"not an Othello vertex: {vertex!r}")
    return 8 * (int(v[1]) - 1) + _FILES.index(v[0])


class GRhinoPlayer(GTPPlayer):
    """GRhino at one of its levels 1..5 (default 3), for farl's ``othello`` (8x8).

    Args:
        level: GRhino's AI level (``--level``).
        binary: path or name of ``gtp-rhino`` (else ``$FARL_GRHINO``, PATH, /usr/games).
        randomness: GRhino's ``--rand`` 0..10 (default 0, deterministic).
        move_timeout: seconds for one move (level 5 searches its end games perfectly: seconds per move).
        name: the name in results (default ``grhino<level>``).

    Raises ``RuntimeError`` naming the install command when the binary is missing.
    """

    game_names = ("othello",)
    pass_action = PASS
    pass_vertex = None  # GRhino skips a side without a move by itself
    swap = False
    engine = "GRhino"

    def __init__(self, level: int = DEFAULT_LEVEL, binary: str | None = None, randomness: int = 0,
                 move_timeout: float = 300.0, name: str | None = None):
        for what, value, (lo, hi) in (("level", level, LEVELS), ("randomness", randomness, (0, 10))):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
                raise ValueError(f"GRhino {what} must be an integer {lo}..{hi}, got {value!r}")
        path = find_grhino(binary)
        if path is None:
            raise RuntimeError(INSTALL_HINT if binary is None else
                               f"GRhino binary {binary!r} not found or not executable. " + INSTALL_HINT)
        self.level = int(level)
        self.randomness = int(randomness)
        client = GTPClient([path, f"--level={self.level}", f"--rand={self.randomness}"], timeout=30.0)
        super().__init__(client, name if name is not None else f"grhino{self.level}", move_timeout)

    def check_game(self, game: GameSpec) -> None:
        super().check_game(game)  # othello is always 8x8 in farl

    def new_game_commands(self, game: GameSpec) -> list[str]:
        return ["boardsize 8", "clear_board"]

    def setup_commands(self, game: GameSpec, state: np.ndarray) -> list[str]:
        cells = "".join("-XO"[int(v)] for v in state[HEADER:HEADER + 64])
        return [f"grhino-setup_board {cells} {'XO'[int(state[TO_MOVE])]}"]

    def action_to_vertex(self, game: GameSpec, action: int) -> str:
        return othello_vertex(action)

    def vertex_to_action(self, game: GameSpec, vertex: str) -> int:
        return othello_action(vertex)
