"""EinStein würfelt nicht! (Ingo Althöfer's dice game) for 2, 3 and 4 players as numba kernels.

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of the rules for 2, 3 and 4 players, with OpenSpiel's and GBG's start
positions, two die rules and three n-tuple cell codings, and this docstring,
which describes all of them, is the game's documentation page.)

==================  ===========================================================
players             2 (as OpenSpiel's ``einstein_wurfelt_nicht``), 3 or 4 (as
                    GBG's ``games/EWN``, Konen's General Board Game playing)
parameters          ``players=2`` (2, 3 or 4); ``size`` of the square board:
                    5 for 2 players, 6 for 3 players, 4 or 6 (default 6) for 4
                    players; ``cell_coding=0`` (0 to 3, the n-tuple cell
                    values below); ``die_rule="official"`` (or ``"gbg"``,
                    see the rules)
cubes, die          every player has ``K`` cubes numbered 1..K and the die has
                    ``K`` faces: K = 6, except K = 3 on the 4x4 board
actions             ``((cell * 3 * n_players) + direction) * 2 + capture``
                    (+1 pass action for 3 players), see "Actions"
rewards             +1 for every player of the winning side, -1 for the others,
                    at the last move (2 players: zero-sum)
chance              the die roll of the player to move, drawn after each move;
                    ``infos[agent]["chance"] == {"roll": r}``
observation         ``int8[size, size, n_players + 1]``
n-tuple board       ``size * size`` cells, see "n-tuple cells"
symmetries          2 players: the mirror in the main diagonal; 3 and 4
                    players: the identity only
==================  ===========================================================

Rules common to all player counts
---------------------------------
Each player owns ``K`` cubes showing 1..K. The player to move rolls the die
and must move the cube showing the rolled number; when that cube is gone
(captured), the player chooses between the cube with the nearest *higher*
number and the one with the nearest *lower* number (when only one of them
exists, that one must move). The chosen cube steps one square in one of its
player's three forward directions (straight towards the goal corner along
either edge direction, or diagonally). A cube landing on an occupied square
captures (removes) the cube there, **whichever player owns it** (own cubes
too). The die rule by default (``die_rule="official"``) is the published
one, as OpenSpiel implements it. GBG's ``Player.selectToken`` differs: it
offers only the *nearer* of the two cubes when their distances to the roll
differ (cubes 1 and 6 left, roll 2: GBG moves the 1, the published rule lets
the player choose). ``die_rule="gbg"`` selects GBG's rule, for comparisons
with GBG; farl's 3- and 4-player games keep the published rule by default
so that every player count plays by the same rule.

Two players (OpenSpiel ``einstein_wurfelt_nicht``, checked against pyspiel
2.0.2 move by move in ``tests/test_einstein_wurfelt_nicht_rules.py``)
------------------------------------------------------------------------------
5x5 board, 6 cubes each. ``player_0`` (OpenSpiel's black) starts on the
six squares with ``row + col <= 2`` and moves down, right or diagonally
down-right towards the corner (4, 4); ``player_1`` (white) starts on the
squares with ``row + col >= 6`` and moves up, left or up-left towards
(0, 0). A player wins by moving a cube onto the goal corner or by capturing
the opponent's last cube. **``player_1`` moves first**, as in OpenSpiel
(its first die roll is for white).

Start position: OpenSpiel draws the placement by two chance events, one
permutation of the cubes 1..6 for black and then one for white (each of the
720 permutations equally likely, the permutation with lexicographic rank
``k`` for outcome ``k``, laid on the start squares in row-major order). farl
draws both in ``initial_state`` from its ``rng`` in the same order (black's
rank, white's rank, each ``rng_below(rng, 720)``), then white's first roll
``rng_below(rng, 6) + 1``; :func:`start_position` builds the position of
given ranks and roll, so a test can feed OpenSpiel's outcomes in.

Three players (GBG, ``ConfigEWN.NUM_PLAYERS = 3``, starting position
``StartingPositions.S6P3``)
---------------------------------------------------------------------------
6x6 board, 6 cubes each, ``player_0`` moves first. ``player_0`` starts in
the top-left corner and moves down/right/down-right, ``player_1`` in the
bottom-right corner moving up/left/up-left, ``player_2`` in the bottom-left
corner moving up/up-right/right. It is a team game: ``player_0`` and
``player_1`` against ``player_2``. The game ends when ``player_2`` moves a
cube onto the top-right corner (``player_2`` wins) or when a player has no
cubes left (that player's side loses). The corners of ``player_0`` and ``player_1`` end nothing (GBG's
``gameOverThreePlayer``): a cube that reaches its far corner can never move
again, and when the die leaves a player no move at all, that player must
take the **pass** action (GBG's action -1), the only legal action then.

Four players (GBG, ``StartingPositions.S4P4`` on 4x4 with 3 cubes and a
3-sided die, ``S6P4`` on 6x6 with 6 cubes)
--------------------------------------------------------------------------
``player_0`` top-left (moves down/right/down-right, goal bottom-right),
``player_1`` bottom-right (up/left/up-left, goal top-left), ``player_2``
bottom-left (up/up-right/right, goal top-right), ``player_3`` top-right
(left/down/down-left, goal bottom-left); ``player_0`` moves first. Teams:
``player_0`` + ``player_2`` against ``player_1`` + ``player_3``. After each
move the players are examined in seat order 0, 1, 2, 3 (GBG's
``gameOverFourPlayer``): the first one found with a cube on its goal corner
makes its team win, the first one found without cubes makes its team lose.
The order matters in one case only: a cube that reaches its goal corner by
capturing the last cube of a team mate with a lower seat loses the game for
that team (GBG's behaviour, kept).

Every player always has a move in the 2- and 4-player games (a cube off its
goal corner can always step forward), so only the 3-player game has a pass.
No game can go on for ever: every move brings a cube closer to its far
corner (in the 3-player game passes do not, but ``player_2``, who never has
to pass, moves every third ply), which bounds a game by
``n_players * (K * 2 * (size - 1) + 1)`` plies (``max_plies``).

Actions
-------
``a = ((cell * D + direction) * 2 + capture``, ``cell = size * row + col``,
``D = 3 * n_players``; ``capture`` is 1 exactly when the destination is
occupied (its value is implied by the position, but OpenSpiel numbers the
actions this way, so farl does too). Player ``k``'s directions are
``3k, 3k + 1, 3k + 2`` in this table of ``(drow, dcol)``::

    player_0: (1, 1) (1, 0) (0, 1)        down-right, down, right
    player_1: (-1, 0) (-1, -1) (0, -1)    up, up-left, left
    player_2: (-1, 0) (-1, 1) (0, 1)      up, up-right, right
    player_3: (0, -1) (1, 0) (1, -1)      left, down, down-left

With two players this is OpenSpiel's numbering exactly (300 actions, e.g.
white's cube on (2, 4) moving up = ``((14 * 6) + 3) * 2 + 0 = 174``). The
3-player game adds a pass action, the last one (``n_actions - 1``).

Chance
------
``afterstate`` makes the move and hands the turn on with no roll (``roll = 0``);
``chance(p, s, rng)`` then rolls for the player to move
(``rng_below(rng, K) + 1``), writes it into the state and returns the outcome
code ``roll - 1`` (OpenSpiel's chance action); ``chance_info(code)`` is
``{"roll": code + 1}``. :func:`apply_roll` sets a given roll (for searches
over the outcomes and for tests), :func:`chance_outcomes` lists them, and
:func:`chance_outcome_count` / :func:`apply_chance_outcome` enumerate them
in compiled code.

Observation (``int8[size, size, n_players + 1]``, as seen from ``seat``)
------------------------------------------------------------------------
plane ``j < n_players``: the numbers (1..K) of the cubes of player
``(seat + j) % n_players`` (the observer's own cubes in plane 0), 0 elsewhere;
plane ``n_players``: the current roll on every square (0 in a terminal
position). ``obs_high = K``.

n-tuple cells (``board``; ``size * size`` cells, row-major)
----------------------------------------------------------
0 is an empty square; a cube of player ``k`` showing ``v`` is

* ``cell_coding=0``: ``1 + k`` (P = n_players + 1) -- colours only;
* ``cell_coding=1``: ``1 + 3k + g`` with ``g`` the number in three groups,
  (1, 2) -> 0, (3, 4) -> 1, (5, 6) -> 2 for 6 cubes, ``v - 1`` for 3 cubes
  (P = 3 * n_players + 1; GBG's ``CELL_CODING = 1``);
* ``cell_coding=2``: ``1 + K * k + (v - 1)`` (P = K * n_players + 1);
* ``cell_coding=3``: ``1 + 3k + min(f, 3) - 1`` with ``f`` the number of die
  faces on which the roll lets its player choose the cube (its own number
  and the missing numbers it stands next to under the die rule, as in the
  race below):
  what a number is worth depends on which of its player's cubes are left,
  and this coding tells the tuples (P = 3 * n_players + 1).

GBG numbers the same classes with "empty" last; farl puts it first, like
every farl game. The die is not part of the n-tuple board: afterstates (the
positions a value function rates) have no roll yet.

Symmetries
----------
2 players: the identity and the mirror in the main diagonal
``(row, col) -> (col, row)``, which keeps both goal corners and maps each
player's start squares and forward directions onto themselves (down <->
right, up <-> left, the diagonal stays); actions map cell and direction
(``1 <-> 2``, ``3 <-> 5``) and keep the capture bit. The start distribution
is mirror-symmetric too (every permutation is equally likely). For 3 and 4
players that mirror swaps the roles of ``player_2`` and ``player_3``
(3 players: turns ``player_2`` into a fourth player), so only the identity
is offered.

State (``int32``)
-----------------
``[to_move, terminal, ply, roll, cells...]``: the common header, the roll of
the player to move (1..K; 0 after a move before the die is rolled and in
terminal positions), then ``size * size`` cells (0 empty, else
``1 + K * player + (number - 1)``). ``ply`` counts moves (passes included),
not die rolls; the player to move is ``(first + ply) % n_players`` with
``first`` = 1 for two players (OpenSpiel), else 0.

What ``validate`` checks: header, roll range (0 exactly when terminal),
cell codes, every (player, number) at most once, the player to move against
the ply count, captures not more than moves, the terminal flag against the
end conditions (and that a goal corner was reached by the last mover);
for 3 and 4 players, whose start is fixed, also that every cube stands
where its player's forward steps can take it from its start square in at
most as many moves as that player has made. The layout constants, start
positions and drawing are in :mod:`farl_envs.games._einstein_wurfelt_nicht_board`.

Leaf evaluation of the depth-limited searches (``heuristic``, in
:mod:`farl_envs.games._einstein_wurfelt_nicht_values`; see also
:mod:`farl_envs.games._heuristics`). **2 players: the race.** A cube ``c``
that is ``d_c`` moves from its goal corner and may move on ``f_c`` of the K
die faces (its own number, plus the missing numbers for which it is the
nearest cube above or below under the game's die rule) brings a cube home in
about ``d_c K / f_c`` of its player's turns; a player's cubes race in
parallel, so its *race time* is ``T = 1 / sum_c f_c / (K d_c)`` turns
(:func:`race_turns`). The player to move is half a turn ahead, and a player's
value is ``0.45 tanh(0.6 (T_other - T_own))``. Captures enter through the
race: a lost cube's faces pass to its neighbours by number. Expectimax three
plies deep on this value wins 55.5 % of 400 games against MCTS1000, on the
side value below (used for 2 players too until 2026-11-29) 35 % of 40
(``docs/results/nplayer_learning.md``, section 9). **3 and 4 players**, by side (3: ``player_0`` + ``player_1``
against ``player_2``; 4: 0 + 2 against 1 + 3): the *threat* of the side's
best cube (1 - its distance in moves to its goal corner / (size - 1); 0 for a
side without goal corner, the 3-player pair) and the cube share of its
weakest member (cubes left / K; a side loses when one member has none). A
player's value is his side's advantage, at most 0.45:
``0.25 (threat - other threat) + 0.2 (cubes - other cubes)``.

Version history: v0, first release; ``cell_coding=3`` added on 2026-11-30
(the rules and the other codings unchanged).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import PLY, TERMINAL, TO_MOVE, GameSpec, check_header, check_int_param
from farl_envs.games import _einstein_wurfelt_nicht_board as layout
from farl_envs.games._einstein_wurfelt_nicht_board import (  # the layout is part of this module's interface
    CELLS,
    DIRS,
    OPENSPIEL_PERMUTATIONS,
    P_CODING,
    P_CUBES,
    P_DIE_RULE,
    P_FIRST,
    P_PASS,
    P_PLAYERS,
    P_SIZE,
    P_START,
    P_TARGET,
    ROLL,
    place_two_player,
    start_position,  # noqa: F401
    team,
)
from farl_envs.games._einstein_wurfelt_nicht_values import die_faces, heuristic  # the race's faces; leaf value

#: board sizes allowed per player count, the first being the default
SIZES = {2: (5,), 3: (6,), 4: (6, 4)}
CELL_CODINGS = (0, 1, 2, 3)
DIE_RULES = ("official", "gbg")


# ------------------------------------------------------------------ kernels
@njit(cache=True)
def initial_state(p, rng):
    """The start position with the first player's roll (2 players: random placement, see the docstring)."""
    n = p[P_SIZE]
    s = np.zeros(CELLS + n * n, dtype=np.int32)
    if p[P_PLAYERS] == 2:
        black = rng_below(rng, OPENSPIEL_PERMUTATIONS)
        white = rng_below(rng, OPENSPIEL_PERMUTATIONS)
        place_two_player(s, black, white)
    else:
        for i in range(n * n):
            s[CELLS + i] = p[P_START + i]
    s[TO_MOVE] = p[P_FIRST]
    s[ROLL] = rng_below(rng, p[P_CUBES]) + 1
    return s


@njit(cache=True)
def _movable(p, s):
    """Cells of the cubes the roll lets the player to move choose from (-1 for none), as a pair."""
    k_cubes = p[P_CUBES]
    mover = s[TO_MOVE]
    roll = s[ROLL]
    low_v, low_c, high_v, high_c = 0, -1, k_cubes + 1, -1
    lo_code = 1 + k_cubes * mover
    n2 = p[P_SIZE] * p[P_SIZE]
    for i in range(n2):
        v = s[CELLS + i] - lo_code + 1  # the cube's number if it is the mover's
        if 1 <= v <= k_cubes:
            if v == roll:
                return i, -1
            if v < roll and v > low_v:
                low_v, low_c = v, i
            elif v > roll and v < high_v:
                high_v, high_c = v, i
    if p[P_DIE_RULE] == 1 and low_c >= 0 and high_c >= 0:  # GBG: only the nearer one unless equally near
        if roll - low_v < high_v - roll:
            high_c = -1
        elif high_v - roll < roll - low_v:
            low_c = -1
    return low_c, high_c


@njit(cache=True)
def _mark_moves(p, s, cell, mask):
    """Mark the moves of the cube on ``cell`` (``-1``: none) in ``mask``; return their number."""
    if cell < 0:
        return 0
    n = p[P_SIZE]
    d_count = 3 * p[P_PLAYERS]
    mover = s[TO_MOVE]
    r, c = cell // n, cell % n
    count = 0
    for k in range(3):
        d = 3 * mover + k
        r2, c2 = r + DIRS[d, 0], c + DIRS[d, 1]
        if 0 <= r2 < n and 0 <= c2 < n:
            capture = 1 if s[CELLS + r2 * n + c2] != 0 else 0
            mask[(cell * d_count + d) * 2 + capture] = 1
            count += 1
    return count


@njit(cache=True)
def legal_actions(p, s, mask):
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    a, b = _movable(p, s)
    count = _mark_moves(p, s, a, mask) + _mark_moves(p, s, b, mask)
    if count == 0 and p[P_PASS]:
        mask[mask.shape[0] - 1] = 1
        count = 1
    return count


@njit(cache=True)
def winning_team(p, s):
    """The side (0 or 1, see ``team``) that has won position ``s``, or -1 while nobody has.

    3 players (GBG ``gameOverThreePlayer``): ``player_2`` on its goal corner
    wins, else the first seat without cubes loses. 2 and 4 players (GBG
    ``gameOverTwoPlayer`` / ``gameOverFourPlayer``; for 2 players the same as
    OpenSpiel): seats in order, the first with a cube on its goal corner wins,
    the first without cubes loses.
    """
    n_players = p[P_PLAYERS]
    k_cubes = p[P_CUBES]
    n2 = p[P_SIZE] * p[P_SIZE]
    cnt0 = cnt1 = cnt2 = cnt3 = 0
    for i in range(n2):
        v = s[CELLS + i]
        if v != 0:
            q = (v - 1) // k_cubes
            if q == 0:
                cnt0 += 1
            elif q == 1:
                cnt1 += 1
            elif q == 2:
                cnt2 += 1
            else:
                cnt3 += 1
    if n_players == 3:
        t = p[P_TARGET + 2]
        v = s[CELLS + t]
        if v != 0 and (v - 1) // k_cubes == 2:
            return 1
    for q in range(n_players):
        t = p[P_TARGET + q]
        if t >= 0 and n_players != 3:
            v = s[CELLS + t]
            if v != 0 and (v - 1) // k_cubes == q:
                return team(n_players, q)
        cnt = cnt0 if q == 0 else cnt1 if q == 1 else cnt2 if q == 2 else cnt3
        if cnt == 0:
            return 1 - team(n_players, q)
    return -1


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    copy_state(s, out)
    n_players = p[P_PLAYERS]
    mover = s[TO_MOVE]
    rewards[:] = 0.0
    if not (p[P_PASS] and a == p[P_SIZE] * p[P_SIZE] * 6 * n_players):
        d_count = 3 * n_players
        cell = a // (2 * d_count)
        d = (a // 2) % d_count
        n = p[P_SIZE]
        dest = (cell // n + DIRS[d, 0]) * n + cell % n + DIRS[d, 1]
        out[CELLS + dest] = out[CELLS + cell]
        out[CELLS + cell] = 0
    out[ROLL] = 0
    out[PLY] = s[PLY] + 1
    out[TO_MOVE] = (mover + 1) % n_players
    won = winning_team(p, out)
    if won >= 0:
        out[TERMINAL] = 1
        for q in range(n_players):
            rewards[q] = 1.0 if team(n_players, q) == won else -1.0


@njit(cache=True)
def apply_roll(p, s, roll):
    """Give the player to move the die ``roll`` (1..K) in place; return the outcome code ``roll - 1``."""
    s[ROLL] = roll
    return roll - 1


@njit(cache=True)
def chance(p, s, rng):
    """Roll the die for the player to move (uniform 1..K); outcome code ``roll - 1``."""
    return apply_roll(p, s, rng_below(rng, p[P_CUBES]) + 1)


@njit(cache=True)
def chance_outcome_count(p, s):
    """The number of outcomes of the roll that follows the non-terminal afterstate ``s``: the ``K`` faces."""
    return p[P_CUBES]


@njit(cache=True)
def apply_chance_outcome(p, s, i):
    """Apply outcome ``i`` (``0 <= i < K``) in place: the roll ``i + 1``; return its probability ``1 / K``.

    With :func:`chance_outcome_count` the compiled form of :func:`chance_outcomes`, for searches that take the
    expectation over the die (:mod:`farl_agents.opponents.maxn`)."""
    apply_roll(p, s, i + 1)
    return 1.0 / p[P_CUBES]


@njit(cache=True)
def _cube_faces(p, s):
    """``faces[q, v]``: the number of die faces on which the roll lets player ``q`` choose its cube ``v`` (1..K),
    0 for a cube that is gone (``cell_coding=3``)."""
    k_cubes = p[P_CUBES]
    n_players = p[P_PLAYERS]
    present = np.zeros((n_players, k_cubes + 2), dtype=np.int64)
    for i in range(p[P_SIZE] * p[P_SIZE]):
        v = s[CELLS + i]
        if v != 0:
            present[(v - 1) // k_cubes, (v - 1) % k_cubes + 1] = 1
    faces = np.zeros((n_players, k_cubes + 2), dtype=np.int64)
    for q in range(n_players):
        die_faces(p, present[q], faces[q])
    return faces


@njit(cache=True)
def _board_by_faces(p, s, out):
    """``board`` for ``cell_coding=3``: each cube as its player and its die faces, 1, 2 or 3 and more."""
    k_cubes = p[P_CUBES]
    faces = _cube_faces(p, s)
    for i in range(p[P_SIZE] * p[P_SIZE]):
        v = s[CELLS + i]
        if v == 0:
            out[i] = 0
        else:
            q = (v - 1) // k_cubes
            out[i] = 1 + 3 * q + min(faces[q, (v - 1) % k_cubes + 1], 3) - 1


@njit(cache=True)
def board(p, s, out):
    k_cubes = p[P_CUBES]
    coding = p[P_CODING]
    if coding == 3:  # the only coding that reads the whole board per cube
        _board_by_faces(p, s, out)
        return
    for i in range(p[P_SIZE] * p[P_SIZE]):
        v = s[CELLS + i]
        if v == 0:
            out[i] = 0
        else:
            q = (v - 1) // k_cubes
            number = (v - 1) % k_cubes  # 0-based
            if coding == 0:
                out[i] = 1 + q
            elif coding == 1:
                out[i] = 1 + 3 * q + (number // 2 if k_cubes == 6 else number)
            else:
                out[i] = v


@njit(cache=True)
def observe(p, s, seat, out):
    n = p[P_SIZE]
    n_players = p[P_PLAYERS]
    k_cubes = p[P_CUBES]
    for r in range(n):
        for c in range(n):
            for j in range(n_players):
                out[r, c, j] = 0
            v = s[CELLS + r * n + c]
            if v != 0:
                q = (v - 1) // k_cubes
                out[r, c, (q - seat + n_players) % n_players] = (v - 1) % k_cubes + 1
            out[r, c, n_players] = s[ROLL]


# ------------------------------------------------------------ Python helpers
def chance_outcomes(p, s) -> list[tuple[int, float]]:
    """``[(roll, probability), ...]`` of the die the player to move of afterstate ``s`` rolls."""
    k = int(p[P_CUBES])
    return [(r, 1.0 / k) for r in range(1, k + 1)]


def chance_info(code: int) -> dict:
    """``infos[agent]["chance"]`` of outcome ``code``: the roll for the next player."""
    return {"roll": int(code) + 1}


def validate(p, s) -> str:
    n_players, n, k = int(p[P_PLAYERS]), int(p[P_SIZE]), int(p[P_CUBES])
    msg = check_header(s, n_players, CELLS + n * n)
    if msg:
        return msg
    roll, ply, terminal = int(s[ROLL]), int(s[PLY]), bool(s[TERMINAL])
    if terminal and roll != 0:
        return "a finished game has no die roll (roll must be 0)"
    if not terminal and not 1 <= roll <= k:
        return f"the roll must be in 1..{k} while the game goes on, got {roll}"
    cells = s[CELLS:].astype(np.int64)
    if np.any((cells < 0) | (cells > n_players * k)):
        return f"cells must be 0 (empty) or cube codes 1..{n_players * k}"
    codes = cells[cells > 0]
    if len(np.unique(codes)) != len(codes):
        return "a cube (player, number) stands on two squares"
    first = int(p[P_FIRST])
    if int(s[TO_MOVE]) != (first + ply) % n_players:
        return "player to move does not match the ply count"
    if n_players * k - len(codes) > ply:
        return f"{n_players * k - len(codes)} cubes captured in {ply} moves"
    if n_players > 2:
        start = p[P_START:P_START + n * n]
        for i, v in enumerate(cells):
            if v == 0:
                continue
            q = (int(v) - 1) // k
            moves_of_q = len([t for t in range(ply) if (first + t) % n_players == q])
            i0 = int(np.flatnonzero(start == v)[0])
            steps = layout.forward_steps(q, i0 // n, i0 % n, i // n, i % n)
            if steps < 0:
                return f"player_{q}'s cube {(int(v) - 1) % k + 1} cannot reach ({i // n}, {i % n}) moving forward"
            if steps > moves_of_q:
                return f"player_{q}'s cube {(int(v) - 1) % k + 1} needs {steps} moves, player_{q} made {moves_of_q}"
    won = int(winning_team(p, s))
    if terminal != (won >= 0):
        return "terminal flag must be set exactly when a goal corner is reached or a player has no cubes"
    if terminal:
        last = (int(s[TO_MOVE]) - 1) % n_players
        for q in range(n_players):
            t = int(p[P_TARGET + q])
            if t >= 0 and q != last and cells[t] != 0 and (int(cells[t]) - 1) // k == q:
                return f"player_{q} stands on its goal corner but did not make the last move"
    return ""


def make_spec(players: int = 2, size: int | None = None, cell_coding: int = 0,
              die_rule: str = "official") -> GameSpec:
    """EinStein würfelt nicht! for ``n_players`` (2: OpenSpiel's game; 3, 4: GBG's), see the module docstring."""
    n_players = check_int_param("players", players, 2, 4)
    allowed = SIZES[n_players]
    if size is None:
        size = allowed[0]
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or int(size) not in allowed:
        raise ValueError(f"size must be one of {sorted(allowed)} for {n_players} players, got {size!r}")
    size = int(size)
    if isinstance(cell_coding, bool) or not isinstance(cell_coding, (int, np.integer)) \
            or int(cell_coding) not in CELL_CODINGS:
        raise ValueError(f"cell_coding must be one of {CELL_CODINGS}, got {cell_coding!r}")
    cell_coding = int(cell_coding)
    if die_rule not in DIE_RULES:
        raise ValueError(f"die_rule must be one of {DIE_RULES}, got {die_rule!r}")
    k = 3 if size == 4 else 6
    has_pass = n_players == 3
    n2 = size * size
    if n_players == 2:
        targets = [n2 - 1, 0, -1, -1]
        start = np.zeros(n2, dtype=np.int64)
    elif n_players == 3:
        targets = [-1, -1, size - 1, -1]
        start = layout.gbg_start_cells(3, size, k)
    else:
        targets = [n2 - 1, 0, size - 1, n2 - size]
        start = layout.gbg_start_cells(4, size, k)
    header = [n_players, size, k, cell_coding, int(has_pass), 1 if n_players == 2 else 0, DIE_RULES.index(die_rule)]
    p = np.concatenate([np.array(header + targets, dtype=np.int64), start])
    d_count = 3 * n_players
    n_moves = n2 * d_count * 2
    names = tuple(layout.action_name(size, d_count, a) for a in range(n_moves)) + (("pass",) if has_pass else ())
    n_values = {0: n_players + 1, 1: 3 * n_players + 1, 2: k * n_players + 1, 3: 3 * n_players + 1}[cell_coding]
    return GameSpec(
        name="einstein_wurfelt_nicht", version=0,
        params={"players": n_players, "size": size, "cell_coding": cell_coding, "die_rule": die_rule}, p=p,
        n_players=n_players, n_actions=n_moves + int(has_pass), state_size=CELLS + n2,
        n_cells=n2, n_cell_values=n_values, obs_shape=(size, size, n_players + 1), obs_high=k,
        max_plies=n_players * (k * 2 * (size - 1) + 1), has_chance=True, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        chance=chance, board=board, observe=observe, validate=validate,
        render_text=layout.text, symmetries=layout.symmetries, action_symmetries=layout.action_symmetries,
        action_names=names, cell_colors=layout.colours(n_players, k), grid_shape=(size, size),
        chance_info=chance_info, paint=layout.paint,
        chance_outcome_count=chance_outcome_count, apply_chance_outcome=apply_chance_outcome, heuristic=heuristic,
    )
