"""The contract between a game's rules (its *kernel*) and everything else.

Every game in :mod:`farl_envs.games` is one module of small ``@njit``
functions over a flat ``int32`` state array plus one :class:`GameSpec` that
bundles them with the game's sizes. The AEC environment, the Gymnasium
wrappers, the compiled training loops and the opponents all call these same
functions, so each rule is written exactly once.

State layout (all games)::

    state[0]  player to move (0-based seat)
    state[1]  1 once the game is over, else 0
    state[2]  plies played so far
    state[3:] game-specific (board cells, heights, heaps ...)

Kernel functions (``p`` is the game's ``int64`` parameter vector, ``s`` a
state; none of them allocates except ``initial_state``; copy a state with
:func:`farl_envs.core.kernel_utils.copy_state`, never ``out[:] = s``, which
makes numba allocate when ``out`` is ``s``):

``initial_state(p, rng) -> int32[state_size]``
    the start position; ``rng`` (see :mod:`farl_envs.core.rng`) is used only
    by games whose start is random (2048's two tiles).
``legal_actions(p, s, mask) -> int``
    fills ``mask`` (``int8[n_actions]``) with 1 for legal actions, returns
    their count (0 when the game is over).
``afterstate(p, s, a, out, rewards)``
    the deterministic result of the legal action ``a``: writes the next
    state (before any chance event) into ``out`` and the reward *delta*
    of every player into ``rewards`` (``float64[n_players]``). ``out`` may be
    the same array as ``s`` (in-place play); ``s`` is otherwise untouched.
``chance(p, s, rng) -> int``
    applies the random part of a step in place and returns an outcome code
    (-1 for games without chance). 2048: ``code = 2 * cell + (tile == 4)``.
    It is called only on non-terminal afterstates and may itself end the game
    (2048 is lost only once the new tile leaves no move, so a 2048
    afterstate is never terminal). Default: :func:`no_chance`.
``board(p, s, out)``
    the cells in n-tuple encoding into ``out`` (``int32[n_cells]``). Default:
    :func:`stored_cells`, the cells as stored right after the header. In a
    game with hidden information (``hidden_information``): only what the
    player who made the last move may see.
``observe(p, s, seat, out)``
    the observation planes as ``seat`` sees them, into ``out`` (``int8``,
    shape ``obs_shape``); with hidden information, only what ``seat`` may see.

Python-level helpers (not compiled, called rarely): ``validate(p, s) -> str``
(empty when ``s`` is a legal position, else the reason), ``render_text(p, s)``
``symmetries(p)`` (an ``int32[n_sym, n_cells]`` array of cell
permutations; ``board[perm]`` is the board seen in that symmetry, and row 0 is
the identity) and ``action_symmetries(p)`` (the matching action maps).

Besides its rules a game declares here, once, what farl's agents need to
know about it (all optional): a leaf evaluation and the enumeration of its
chance outcomes for depth-limited searches, a fixed n-tuple set, the start
positions of its evaluations, the drawing of ``farl serve``'s page, and the
facts the descent learners' terminal evaluations read (pieces, score).
Agents read them from the spec, never from a table of game names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit

TO_MOVE = 0
TERMINAL = 1
PLY = 2
HEADER = 3


# ------------------------------------------------------------------------------------------------------------------
# The kernels a game gets when it declares none: most games have no chance event and store their n-tuple board
# right after the header. Module-level ``@njit(cache=True)`` functions like every kernel, so the compiled loops name
# and cache them as they do a game's own (``farl_envs.core.spec:no_chance``, see :mod:`farl_envs.core.kernels`).
@njit(cache=True)
def no_chance(p, s, rng):
    """A game without chance events: nothing happens after a move; the outcome code is -1."""
    return -1


@njit(cache=True)
def stored_cells(p, s, out):
    """The n-tuple board as stored right after the header: ``out[i] = s[HEADER + i]`` for every cell of ``out``."""
    for i in range(out.shape[0]):
        out[i] = s[HEADER + i]


@njit(cache=True)
def no_chance_outcome_count(p, s):
    """A game without chance events has no outcome to enumerate after a move."""
    return 0


@njit(cache=True)
def no_chance_outcome(p, s, i):
    """Never called (a game without chance has no outcome to apply); there so that every game has the function."""
    return 0.0


@dataclass(frozen=True, kw_only=True)
class GameSpec:
    """An immutable description of one game with fixed parameters.

    Built by each game module's ``make_spec(**params)``; holds the sizes the
    rest of farl needs, the kernel functions (see the module docstring) and
    what the game declares for farl's agents (the fields after ``truncated``).
    """

    name: str
    """Short name without version, e.g. ``"connect_four"``."""
    version: int
    params: dict
    """The constructor parameters as given (after defaults), JSON-friendly."""
    p: np.ndarray
    """The same parameters as the ``int64`` vector the kernels take."""
    n_players: int
    n_actions: int
    state_size: int
    n_cells: int
    """Length of the n-tuple board (``board`` kernel)."""
    n_cell_values: int
    """Number of distinct cell values P of the n-tuple encoding."""
    obs_shape: tuple
    obs_high: int
    """Largest value an observation entry can take (lowest is 0)."""
    max_plies: int
    """An upper bound on the length of a game (for buffers)."""
    reward_range: tuple
    initial_state: Callable
    legal_actions: Callable
    afterstate: Callable
    observe: Callable
    validate: Callable
    render_text: Callable
    symmetries: Callable
    has_chance: bool = False
    """True when ``chance`` draws something after a move (2048's tile, a die)."""
    hidden_information: bool = False
    """True when a player may not see the whole state (Kuhn poker: the others' cards). The state still holds
    everything (``get_state``, ``validate``, searches read it); ``observe(p, s, seat, out)`` shows only what
    ``seat`` may see, and the ``board`` kernel only what the player who made the last move may see (the
    learners value an afterstate for that player). The perfect-information searches (Max-N, Paranoid, MCTS,
    the search wrappers) would read the hidden part and refuse such a game."""
    move_rewards_public: bool = False
    """With ``hidden_information``: True when no move's reward depends on what its mover cannot see, so a learner
    that chooses by a move's reward plus the value of its afterstate's ``board`` (the mover's view) sees nothing
    hidden: farl's TD learners may train the game. GBG's Poker is such a game (chips change hands at a fold,
    which both players see, or at a forced showdown step that has no alternative); Kuhn poker is not (a call that
    ends the hand is rewarded by both cards)."""
    rewards_are_amounts: bool = False
    """True when a reward is an amount won or lost (chips in Kuhn poker and Poker) rather than a game's result: a
    small win and a large loss are not one win and one loss, so evaluations headline the mean reward per game,
    not the win rate, for two players too (:attr:`headline_win_rate`)."""
    chance: Callable = no_chance
    """The ``chance`` kernel; games without chance keep :func:`no_chance`."""
    board: Callable = stored_cells
    """The ``board`` kernel; games whose n-tuple board is the cells stored right after the header keep
    :func:`stored_cells`."""
    action_symmetries: Callable | None = None
    """``action_symmetries(p) -> int32[n_sym, n_actions]``: row k maps each
    action to the equivalent action on the board seen in symmetry k (rows in
    the order of ``symmetries``). Needed by learners with one output per
    action (SARSA, Q)."""
    action_names: tuple = field(default=())
    """Human-readable action names for CLIs (index = action)."""
    cell_colors: tuple = field(default=())
    """RGB colour per n-tuple cell value, used by ``rgb_array`` rendering."""
    grid_shape: tuple = field(default=())
    """(rows, cols) of the drawn board; empty for games without a grid."""
    hex_grid: bool = False
    """Draw rows shifted by half a cell each (Hex's rhombus)."""
    cell_neighbours: Callable | None = None
    """``cell_neighbours(p) -> list[list[int]]``: the neighbours of each n-tuple
    cell, the graph random-walk n-tuples walk on (Sim: edges sharing a node;
    a star board: adjacent holes). ``None``: derived from ``grid_shape`` (8
    neighbours, or 6 with ``hex_grid``), or every cell when there is no grid."""
    chance_info: Callable | None = None
    """``chance_info(code) -> object``: what ``infos[agent]["chance"]`` shows
    for an outcome code of ``chance`` (2048: ``(cell, tile)``; a dice game:
    the roll). ``None``: the code itself."""
    eliminated: Callable | None = None
    """Only for games where a player can drop out while the others play on
    (3-player Sim and Yavalath): ``eliminated(p, s) -> tuple[int, ...]``, the
    seats that are out in position ``s`` (Python-level, called once per step).
    The kernels never give the turn to a seat that is out, and give it no
    reward delta after the move that put it out (its final reward is the sum
    of its deltas up to then). The AEC env marks such an agent terminated as
    soon as it drops out: it gets one dead step (``step(None)``) and then
    leaves ``agents``, as PettingZoo does for eliminated agents. ``None``:
    nobody drops out before the game ends."""
    paint: Callable | None = None
    """Optional ``paint(p, s) -> int[rows, cols]`` of colour indices for
    ``rgb_array`` rendering; by default the n-tuple board is drawn."""
    truncated: Callable | None = None
    """Only for games with a move cap outside their rules (Chinese Checkers'
    ``max_moves``, Lines of Action's ``max_game_length``): ``truncated(p, s) ->
    bool``, True when the terminal position ``s`` was ended by the cap rather
    than by a rule (Python-level, called once when a game ends). The kernels
    end a capped game like any other (terminal flag, the rewards of a draw), so
    compiled loops and searches are unaffected; the AEC env reports it as
    ``truncations`` and the Gymnasium wrapper as ``truncated=True`` (Gymnasium's
    convention for limits outside the task). ``None``: every end is a rule's, a
    termination (draws the rules define included)."""

    # ---- what the game declares for farl's agents (farl_agents reads these; none is needed to play) ----
    heuristic: Callable | None = None
    """Leaf evaluation of the depth-limited searches (Max-N, Paranoid): ``heuristic(p, s, out)``, a
    module-level ``@njit`` function writing into ``out`` (``float64[n_players]``) each player's expected
    *future* reward in the non-terminal position ``s``, strictly inside (-0.5, 0.5) so that a reward the
    search sees outweighs it, 0 for a player who is out (:mod:`farl_envs.games._heuristics`). ``None``:
    the searches take 0 for every player."""
    chance_outcome_count: Callable = no_chance_outcome_count
    """``chance_outcome_count(p, s) -> int`` (``@njit``): the number of outcomes of the chance event that
    follows the non-terminal afterstate ``s``, for searches that take the expectation over them. Games with
    chance declare it with :attr:`apply_chance_outcome`; a game with chance that keeps the default cannot
    be searched by Max-N or Paranoid."""
    apply_chance_outcome: Callable = no_chance_outcome
    """``apply_chance_outcome(p, s, i) -> float`` (``@njit``): applies the ``i``-th outcome of that event
    to ``s`` in place and returns its probability (the enumerated twin of the ``chance`` kernel's draw)."""
    fixed_ntuples: tuple = ()
    """A fixed n-tuple set for this board (tuples of n-tuple cells), the set an n-tuple learner's
    ``ntuples="fixed"`` takes: for farl's games, Konen & Bagheri 2020's sets (Appendix A.6, from GBG;
    :mod:`farl_envs.games._fixed_ntuples`) where the game has one at these parameters. ``()``: none
    (learners draw random walks or points)."""
    evaluation_starts: str = "initial"
    """The start positions of the game's standard evaluation (an evaluation's ``"table1"`` start set):
    ``"initial"``; ``"start+1ply"``, the start and every position after one move (GBG's "different
    starts" of TicTacToe and Nim); or ``"othello-4ply"``, Othello's 244 distinct 4-ply openings."""
    view: str = "generic"
    """How ``farl serve``'s page draws the game: ``"generic"``, the page's cell board (the game's
    ``grid_shape``, pieces from the n-tuple board, each move clicked as the cells it changes, read from
    ``afterstate``; games whose board or moves need more are described in :mod:`farl_agents.serve.views`),
    or the name of one of the page's own drawings (``"tictactoe"``, ``"connect_four"``, ``"hex"``,
    ``"othello"``, ``"nim"``, ``"nim3p"``, ``"game2048"``)."""
    counts_pieces: bool = False
    """Board cells 1 and 2 are ``player_0``'s and ``player_1``'s pieces and the descent learners may
    compare their counts on a final board (Cohen-Solal 2020's *presence* heuristic). False for games whose
    cells mean something else (Santorini's heights) or where farl follows the paper in leaving presence out
    (Outer-Open Gomoku, Amazons: no piece is ever taken)."""
    score: Callable | None = None
    """``score(p, s) -> float``: the game's own score of the finished position ``s``, ``player_0``'s view
    (Othello: discs, Surakarta: pieces, each player_0's minus player_1's), for Cohen-Solal 2020's *score*
    heuristic. ``None``: the game has no score."""

    start_params: tuple = ()
    """Parameters that change only how a game starts (``initial_state``), never the positions, moves, rewards
    or ends: an agent trained under other values plays this game unchanged (the cube's scramble depths
    ``scramble_min`` / ``scramble_max``). See :meth:`same_rules`."""

    @property
    def headline_win_rate(self) -> bool:
        """Whether an evaluation's headline is the win rate (draws ½): two-player games whose rewards are results.
        The others (N players, puzzles, games for chips) headline the mean reward per game."""
        return self.n_players == 2 and not self.rewards_are_amounts

    @property
    def id(self) -> str:
        return f"{self.name}_v{self.version}"

    def same_rules(self, other: "GameSpec") -> bool:
        """Whether ``other`` is this game under the same rules: the same name and version and the same
        parameters but for :attr:`start_params` (so an agent of one plays the other)."""
        if self.id != other.id:
            return False
        keep = set(self.params) | set(other.params)
        keep -= set(self.start_params) & set(other.start_params)
        return all(self.params.get(k) == other.params.get(k) for k in keep)

    def agents(self) -> list[str]:
        return [f"player_{i}" for i in range(self.n_players)]


def check_int_param(name: str, value, low: int, high: int) -> int:
    """Return ``value`` as int, or raise ``ValueError`` naming the allowed range."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return int(value)


def check_header(s: np.ndarray, spec_n_players: int, state_size: int) -> str:
    """Common checks of a state's shape and header; empty string when fine."""
    if not isinstance(s, np.ndarray) or s.ndim != 1:
        return "state must be a 1-D numpy array"
    if s.shape[0] != state_size:
        return f"state must have length {state_size}, got {s.shape[0]}"
    if not 0 <= s[TO_MOVE] < spec_n_players:
        return f"player to move must be in 0..{spec_n_players - 1}, got {s[TO_MOVE]}"
    if s[TERMINAL] not in (0, 1):
        return f"terminal flag must be 0 or 1, got {s[TERMINAL]}"
    if s[PLY] < 0:
        return f"ply count must be >= 0, got {s[PLY]}"
    return ""
