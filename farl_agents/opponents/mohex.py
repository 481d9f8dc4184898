"""MoHex 2.0 (Benzene project, Huang et al. 2013; LGPL-3), a Hex engine, over GTP: opponents ``mohex<games>``.

MoHex is not packaged: build it from https://github.com/cgao3/benzene-vanilla-cmake at commit
:data:`KNOWN_GOOD_COMMIT` (the current master segfaults on positions whose outcome is already decided,
which games against weak players reach all the time: the repository's issues #10 and #14; docs/engines.md
gives the commands) and point ``FARL_MOHEX`` at ``build/src/mohex/mohex``, or put it on PATH as ``mohex``.
The binary reads its pattern files from the source tree's ``share/`` (a path compiled in), so leave the
tree where it was built.

Facts from its source (``src/hex/HexColor.hpp``, ``ConstBoard.hpp``, ``HexHtpEngine.cpp``,
``MoHexEngine.cpp``, ``util/BenzeneProgram.cpp``), checked on finished games (tests/test_gtp_engines.py):

* black moves first (``FIRST_TO_PLAY``) and connects north to south (``VERTICAL_COLOR``): farl's
  ``player_0`` (X), who connects the top and bottom rows, is black; ``player_1`` is white;
* cells are a column letter and a row number from 1, row 1 on the north edge, each row shifted half a cell
  right of the one above (a1 touches b1 and a2, b1 touches a2): exactly farl's Hex cells and names
  (``cell = size * row + col`` is ``"abc..."[col] + str(row + 1)``);
* ``boardsize N N`` (N up to 13 in the default build, farl's largest Hex) starts a new game; ``play``
  places a stone of either colour on an empty cell, so a position is set up by playing its stones;
* swap is off unless ``param_game allow_swap 1``; farl's Hex has no swap rule, so this player keeps it
  off and never plays or answers a swap;
* ``final_score`` answers ``B+`` / ``W+`` once a side has connected;
* settings (``param_mohex``): ``max_games`` (simulations per move), ``max_time`` (seconds per move; the
  engine's default 10), ``num_threads`` (default 1), ``max_memory`` (bytes for the two search trees;
  default 1 GB); ``--seed`` on the command line fixes its random numbers, ``--use-logfile=0`` keeps it
  from writing ``default.log`` into its working directory, ``--quiet`` drops most of its stderr log.

What ``mohex<games>`` plays: ``max_games`` = the number (``mohex`` alone: :data:`DEFAULT_GAMES`), one
thread, ``max_time`` :data:`DEFAULT_MAX_TIME` seconds as a safety cap (a move normally stops at its
simulation count, which makes the strength independent of the machine), ``max_memory`` 250 MB. Besides
its search tree, one MoHex process holds about 0.8 GB (its pattern and virtual-connection tables).
"""
from __future__ import annotations

import numpy as np

from farl_agents.opponents.gtp import GTPClient, GTPPlayer, find_binary
from farl_envs.core.spec import HEADER, GameSpec

#: simulations (``max_games``) of the plain name ``mohex``, and the range of ``mohex<games>``
DEFAULT_GAMES = 10_000
GAMES_RANGE = (1, 10_000_000)
#: seconds per move at most (MoHex's ``max_time``); the simulation count normally ends the move first
DEFAULT_MAX_TIME = 60.0
MAX_MEMORY = 250_000_000
#: board sizes of MoHex's default build (``MAX_WIDTH`` 13) that farl's Hex has (2..13)
SIZES = (2, 13)
#: the commit of cgao3/benzene-vanilla-cmake that plays decided positions (its master crashes there)
KNOWN_GOOD_COMMIT = "f888938bc7ab051a04034a9e19a31399a31d2429"
BINARY_NAMES = ("mohex",)
ENV_VAR = "FARL_MOHEX"
INSTALL_HINT = ("MoHex was not found (looked at $FARL_MOHEX and PATH). Build MoHex 2.0 from "
                "https://github.com/cgao3/benzene-vanilla-cmake at commit f888938 (apt-get install cmake "
                "libboost-all-dev libdb-dev; git checkout f888938; mkdir build && cd build && cmake .. && make "
                "mohex) and set FARL_MOHEX to build/src/mohex/mohex (docs/engines.md).")
_LETTERS = "abcdefghijklm"


def find_mohex(binary: str | None = None) -> str | None:
    """Path of MoHex: ``binary``, ``$FARL_MOHEX`` or ``mohex`` on PATH; None if absent."""
    return find_binary(BINARY_NAMES, binary, ENV_VAR, extra_dirs=())


def check_size(game: GameSpec, who: str = "mohex") -> None:
    """``ValueError`` unless ``game`` (Hex) has a board size MoHex plays (:data:`SIZES`)."""
    size = int(game.params["size"])
    if not SIZES[0] <= size <= SIZES[1]:
        raise ValueError(f"{who}: MoHex plays Hex sizes {SIZES[0]}..{SIZES[1]}, not {size}x{size}")


def hex_vertex(size: int, cell: int) -> str:
    """farl's Hex cell -> HTP vertex: on 7x7, ``0`` -> ``"a1"``, ``8`` -> ``"b2"`` (column letter, row from 1)."""
    if not 0 <= int(cell) < size * size:
        raise ValueError(f"not a cell of the {size}x{size} board: {cell!r}")
    return _LETTERS[cell % size] + str(cell // size + 1)


def hex_cell(size: int, vertex: str) -> int:
    """HTP vertex -> farl's Hex cell; ``ValueError`` for anything else (``resign``, ``swap-pieces``, off-board)."""
    v = vertex.strip().lower()
    if len(v) < 2 or v[0] not in _LETTERS[:size] or not v[1:].isdigit() or not 1 <= int(v[1:]) <= size:
        raise ValueError(f"not a cell of the {size}x{size} board: {vertex!r}")
    return size * (int(v[1:]) - 1) + _LETTERS.index(v[0])


class MoHexPlayer(GTPPlayer):
    """MoHex 2.0 with a fixed number of simulations per move, for farl's ``hex`` (sizes 2..13, no swap).

    Args:
        games: simulations per move (MoHex's ``max_games``).
        max_time: seconds per move at most (MoHex's ``max_time``).
        threads: search threads (``num_threads``; 1 keeps results reproducible with ``seed``).
        seed: MoHex's random seed (``--seed``); None: MoHex seeds from the clock.
        binary: path or name of the binary (else ``$FARL_MOHEX``, then ``mohex`` on PATH).
        name: the name in results (default ``mohex<games>``).

    Raises ``RuntimeError`` naming the build steps when the binary is missing.
    """

    game_names = ("hex",)
    pass_action = None  # Hex has no pass
    swap = False
    engine = "MoHex"

    def __init__(self, games: int = DEFAULT_GAMES, max_time: float = DEFAULT_MAX_TIME, threads: int = 1,
                 seed: int | None = None, binary: str | None = None, name: str | None = None):
        lo, hi = GAMES_RANGE
        if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not lo <= games <= hi:
            raise ValueError(f"MoHex games (simulations per move) must be an integer {lo}..{hi:,}, got {games!r}")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 64:
            raise ValueError(f"MoHex threads must be an integer 1..64, got {threads!r}")
        if not (isinstance(max_time, (int, float)) and 0 < float(max_time) <= 86400):
            raise ValueError(f"MoHex max_time must be a number of seconds in (0, 86400], got {max_time!r}")
        path = find_mohex(binary)
        if path is None:
            raise RuntimeError(INSTALL_HINT if binary is None else
                               f"MoHex binary {binary!r} not found or not executable. " + INSTALL_HINT)
        self.n_games, self.max_time, self.threads, self.seed = int(games), float(max_time), int(threads), seed
        argv = [path, "--use-logfile=0", "--quiet"] + ([f"--seed={int(seed)}"] if seed is not None else [])
        setup = [f"param_mohex max_games {self.n_games}", f"param_mohex max_time {self.max_time:g}",
                 f"param_mohex num_threads {self.threads}", f"param_mohex max_memory {MAX_MEMORY}",
                 "param_mohex use_time_management 0", "param_game allow_swap 0"]
        # the first reply waits for MoHex's start (about a second: its pattern tables)
        client = GTPClient(argv, timeout=60.0, setup=setup)
        super().__init__(client, name if name is not None else f"mohex{self.n_games}",
                         move_timeout=self.max_time + 60.0)

    def check_game(self, game: GameSpec) -> None:
        super().check_game(game)
        check_size(game, self.name)

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        try:
            return super().act(game, state, rng)
        except RuntimeError as e:
            if "died twice" not in str(e):
                raise
            raise RuntimeError(f"{e}. The current master of benzene-vanilla-cmake crashes on positions whose "
                               f"outcome is decided (its issues #10, #14); {KNOWN_GOOD_COMMIT} plays them "
                               "(docs/engines.md)") from None

    def new_game_commands(self, game: GameSpec) -> list[str]:
        size = int(game.params["size"])
        return [f"boardsize {size} {size}"]

    def setup_commands(self, game: GameSpec, state: np.ndarray) -> list[str]:
        """A position as a game: its black and white stones played alternately (Hex never removes a stone,
        and a live position holds no connection, so every order of its stones is a legal game to it)."""
        size = int(game.params["size"])
        cells = np.asarray(state[HEADER:HEADER + size * size])
        black, white = np.flatnonzero(cells == 1).tolist(), np.flatnonzero(cells == 2).tolist()
        if not 0 <= len(black) - len(white) <= 1:
            raise ValueError(f"{self.name}: a Hex position with {len(black)} black and {len(white)} white stones "
                             "is no game with black first")
        moves = []
        for i, b in enumerate(black):
            moves.append(f"play b {hex_vertex(size, b)}")
            if i < len(white):
                moves.append(f"play w {hex_vertex(size, white[i])}")
        return moves

    def action_to_vertex(self, game: GameSpec, action: int) -> str:
        return hex_vertex(int(game.params["size"]), action)

    def vertex_to_action(self, game: GameSpec, vertex: str) -> int:
        return hex_cell(int(game.params["size"]), vertex)
