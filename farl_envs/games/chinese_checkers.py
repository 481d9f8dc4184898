"""Chinese Checkers for 2, 3, 4 or 6 players, move for move the variant of OpenSpiel.

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of OpenSpiel's rules for 2, 3, 4 and 6 players, a turn split into single
hops with its visited holes, move limit and returns; this docstring, with the
board's numbering of holes and actions, is the game's documentation page.)

The variant is OpenSpiel's ``chinese_checkers`` (open_spiel/games/chinese_checkers,
added in 2026, shipped with ``open_spiel`` 2.0.2): its board, its numbering of
holes and actions, its split of a turn into single hops, its move limit and its
returns. Every rule below was read from that C++ source and is checked step by
step against ``pyspiel`` in ``tests/test_chinese_checkers_rules.py``.

==================  ============================================================
parameters          ``players=2`` (2, 3, 4 or 6), ``max_moves=1000``
                    (1..100000: the number of *turns*, summed over all
                    players, after which the game is a draw)
players             ``player_0`` moves first, then ``player_1`` ... in order
camps               each player starts with 10 pegs filling its home point of
                    the star and races them into the opposite point
actions             727: ``6 * hole + direction`` moves the peg on ``hole`` in
                    ``direction`` (a step to an empty neighbour, or a hop over
                    an occupied neighbour onto the empty hole behind it);
                    726 is *pass* (ends a hop chain, or a blocked turn)
rewards             at the end only: the first player whose 10 pegs fill its
                    target point gets ``n_players - 1``, every other player
                    ``-1`` (sum 0); a game stopped by the move limit gives 0
                    to everybody
observation         ``int8[(n_players + 3) * 121 + n_players]``, see below
n-tuple board       the 121 holes, 0 empty / ``k + 1`` a peg of ``player_k``
                    (P = n_players + 1); ``cell_neighbours`` gives each hole's
                    (up to) 6 adjacent holes
symmetries          2 players: the identity and the left-right mirror;
                    3, 4, 6 players: the identity only (see below)
==================  ============================================================

The board
---------
The 121 holes of the six-pointed star, in 17 rows. A hole is ``(row, col)`` in
*doubled* coordinates: neighbours in a row are two columns apart, and the
holes of a row sit half way between those of the next row. The star is the
union of two triangles of side 13: the one pointing up (rows 0..12,
``|col - 12| <= row``) and the one pointing down (rows 4..16,
``|col - 12| <= 16 - row``), with ``row + col`` even. Holes are numbered row by
row from the top, left to right (OpenSpiel's numbering)::

    row  0              0                    north point (triangle 0)
    row  1             1 2
    row  2            3 4 5
    row  3           6 7 8 9
    row  4  10 11 12 13 14 15 16 17 18 19 20 21 22
    ...         (rows 4..7: NW point on the left, NE point on the right)
    row  8          56 ... 64                the middle row, 9 holes
    ...         (rows 9..12: SW point on the left, SE point on the right)
    row 12  98 99 ...                  ... 110
    row 16             120                   south point (triangle 3)

The six points (camps) are the triangles 0 north, 1 north-east, 2 south-east,
3 south, 4 south-west, 5 north-west: the 10 holes at a tip of one big triangle
that the other big triangle leaves out. The 61 holes in both triangles form the
middle hexagon. Seats start in these points (OpenSpiel's slots):
2 players 0, 3; 3 players 0, 2, 4; 4 players 0, 1, 3, 4; 6 players all six,
``player_k`` in the k-th listed point. Everybody's target is the opposite
point, ``(home + 3) % 6``.

Directions ``d`` (and their steps in doubled coordinates): 0 up-left
(-1, -1), 1 up-right (-1, +1), 2 left (0, -2), 3 right (0, +2), 4 down-left
(+1, -1), 5 down-right (+1, +1).

A turn, one action at a time
----------------------------
* At the start of a turn the mover may take any of its pegs and either step
  to an empty adjacent hole, or hop over an adjacent peg (anyone's) onto the
  empty hole straight behind it. Action ``6 * hole + d`` is the step when the
  neighbour in ``d`` is empty and the hop otherwise, so one action never means
  both. No peg is ever captured.
* A step ends the turn. A hop starts a *chain*: the same player moves again,
  with the same peg only. Its legal actions are the further hops from the
  peg's hole onto holes not yet visited in this chain (the start hole counts
  as visited), plus pass. When no further hop exists the turn ends by itself
  right after the hop (no pass action is taken).
* A player with no step and no hop at the start of its turn has pass as its
  only action (the turn is used up).
* When a turn ends, the turn counter goes up by one, the next seat is to move,
  and only then is the player who just moved checked: if its 10 pegs fill its
  target point it wins and the game ends. (Pegs of other players left in a
  target point block it for good: OpenSpiel has no rule against spoiling.)
  A target filled in the middle of a chain wins only once the chain ends.
* When ``max_moves`` turns have been played without a winner the game is over
  and drawn (returns all 0). The winning turn may be the last allowed one.
  The move limit is a cap on the game's length, not a rule of its outcome: the
  AEC env ends such a game with every agent truncated (``truncations``, not
  ``terminations``) and the Gymnasium wrapper returns ``truncated=True``
  (``terminated=False``), Gymnasium's convention for limits outside the task
  (``truncated`` below; the kernels set the terminal flag as for a win, so the
  compiled loops treat both ends alike). A win is a termination.

Each action is one ply (``state[2]``), so a turn takes one ply for a step,
and ``k`` plies for a chain of ``k`` hops (``k + 1`` if it ends by pass).

State layout
------------
The common header (:mod:`farl_envs.core.spec`), then::

    state[3 : 124]    the 121 holes (0 empty, k + 1 a peg of player_k)
    state[124]        the hole of the peg in the middle of a hop chain, -1 when
                      no chain is going on
    state[125]        turns completed (the move limit counts these)
    state[126 : 130]  holes visited by the current chain, as bits: hole h is
                      bit h % 31 of word h // 31 (all 0 outside a chain)

The ply count ``state[2]`` counts actions, as OpenSpiel's history does.

Observation
-----------
For seat ``o`` a flat ``int8`` vector of length ``(n + 3) * 121 + n``
(``n = n_players``). Its first ``(n + 1) * 121 + n`` entries are exactly
OpenSpiel's ``ObservationTensor(o)``: for ``k = 0..n-1`` a plane of 121 holes
marking the pegs of player ``(o + k) % n`` (the observer first), a plane of
the empty holes, then a one-hot of the player to move counted from the
observer. Two planes follow that OpenSpiel's tensor leaves out, though the
legal moves depend on them: the hole of the peg in the middle of a hop chain,
and the holes the chain has visited.

Symmetries
----------
The star has the 12 symmetries of the regular hexagon. A symmetry usable by
the n-tuple learners must keep every player's role: it must map each seat's
home point onto itself (the target, the opposite point, then follows). With
2 players (points north and south) the left-right mirror does this and no
other non-identity symmetry does (the rotation by 180 degrees and the other
mirrors swap north and south or move them). With 3 players (north, south-east,
south-west) the only candidate fixing north is the left-right mirror, which
swaps the two southern points. With 4 players north and north-east are both
homes, and a symmetry of the hexagon fixing two adjacent corners is the
identity. With 6 players every point is a home, so again the identity only.
The mirror maps direction up-left to up-right, left to right, down-left to
down-right (and back); pass to pass.

Rendering
---------
``ansi`` draws the star as text in its doubled coordinates (``.`` an empty
hole, digits ``1..6`` the pegs of ``player_0..player_5``), then who is to move
and the chain in progress. ``rgb_array`` paints a 17 x 25 grid: grid cell
``(row, col)`` is the hole at those doubled coordinates, the grid cells
between holes are background; holes vacated by the current chain have their
own colour. ``GameSpec.grid_shape`` stays empty, because the n-tuple board of
121 holes is no rows x cols array. The star's tables and drawing are in
:mod:`farl_envs.games._chinese_checkers_board`.

Leaf evaluation of the depth-limited searches (``heuristic``, see
:mod:`farl_envs.games._heuristics`): a player's score is his race progress,
his pegs' summed distance (in moves on the hex grid) to the tip of his target
point (its hole farthest from the centre), scaled to 0 at the start position
and 1 with the target filled (the 10 holes nearest the tip are the point's),
less ``WALLED_IN_PENALTY`` (0.2) for each other player's peg in his target that
his pegs wall in (``walled_in_count``: it can neither step nor hop, and could
without his pegs). Such a spoiler blocks the point until he moves a peg of
his own back out of it: the term makes filling the point around a spoiler a
loss, so a player that follows the value keeps the spoiler an exit (a racer
without it wins 92 % of its games against two random players under 1,000
turns, with it all of them; ``docs/results/nplayer_learning.md``, section 5).
The value is ``0.45 (own progress - mean progress of the others)``, clipped to
+-0.49.

Version history: v0, first release; the walled-in term of the heuristic
added 2026-11-29 (the rules are unchanged, so the version is too).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header, check_int_param
from farl_envs.games._chinese_checkers_board import (  # the star's tables are part of this module's interface
    COL,  # noqa: F401
    HOP,
    MIRROR_DIRECTION,
    N_DIRECTIONS,
    N_HOLES,
    NEIGHBOUR,
    PEGS,
    POINTS,
    ROW,  # noqa: F401
    TIP_DISTANCE,
    longest_turn,
    mirror_holes,
    star_picture,
    star_text,
)
from farl_envs.games._heuristics import relative_to_others

PASS = N_HOLES * N_DIRECTIONS  # 726
N_ACTIONS = PASS + 1
PLAYER_COUNTS = (2, 3, 4, 6)
MAX_MOVES_LIMIT = 100_000
WALLED_IN_PENALTY = 0.2
"""The heuristic's loss of race progress per walled-in spoiler (0.2 and 1.0 measured alike for the racer; 0.05
less)."""
DIRECTION_NAMES = ("UL", "UR", "L", "R", "DL", "DR")
POINT_NAMES = ("north", "north-east", "south-east", "south", "south-west", "north-west")
# the points each seat starts in, by number of players (OpenSpiel's slots)
HOME_POINTS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}

# state layout after the header
CELLS = HEADER
HOP_FROM = HEADER + N_HOLES  # 124
TURNS = HOP_FROM + 1  # 125
VISITED = TURNS + 1  # 126
VISITED_WORDS = 4
BITS_PER_WORD = 31  # bit 31 left unused so every word stays a non-negative int32
STATE_SIZE = VISITED + VISITED_WORDS  # 130

# parameter vector: [n_players, max_moves, home point of seat 0 .. seat 5 (-1 unused)]
P_PLAYERS, P_MAX_MOVES, P_HOMES = 0, 1, 2


# ------------------------------------------------------------------ kernels
@njit(cache=True)
def initial_state(p, rng):
    """Every seat's 10 pegs in its home point, ``player_0`` to move; ``rng`` is unused."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    for k in range(p[P_PLAYERS]):
        home = p[P_HOMES + k]
        for i in range(PEGS):
            s[CELLS + POINTS[home, i]] = k + 1
    s[HOP_FROM] = -1
    return s


@njit(cache=True, inline="always")
def _visited(s, hole):
    return (s[VISITED + hole // BITS_PER_WORD] >> (hole % BITS_PER_WORD)) & 1


@njit(cache=True, inline="always")
def _mark_visited(s, hole):
    s[VISITED + hole // BITS_PER_WORD] |= 1 << (hole % BITS_PER_WORD)


@njit(cache=True, inline="always")
def _chain_hop_ok(s, hole, d):
    """May the chain go on from ``hole`` by hopping in direction ``d``?"""
    over = NEIGHBOUR[hole, d]
    if over < 0 or s[CELLS + over] == 0:
        return False
    land = HOP[hole, d]
    return land >= 0 and s[CELLS + land] == 0 and _visited(s, land) == 0


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the legal actions in ``mask`` (``int8[727]``); return their count (0 when over)."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    count = 0
    hole = s[HOP_FROM]
    if hole >= 0:  # in a chain: further hops of the same peg, or pass
        for d in range(N_DIRECTIONS):
            if _chain_hop_ok(s, hole, d):
                mask[N_DIRECTIONS * hole + d] = 1
                count += 1
        mask[PASS] = 1
        return count + 1
    own = s[TO_MOVE] + 1
    for h in range(N_HOLES):
        if s[CELLS + h] != own:
            continue
        for d in range(N_DIRECTIONS):
            nb = NEIGHBOUR[h, d]
            if nb < 0:
                continue
            if s[CELLS + nb] == 0:
                mask[N_DIRECTIONS * h + d] = 1
                count += 1
            else:
                land = HOP[h, d]
                if land >= 0 and s[CELLS + land] == 0:
                    mask[N_DIRECTIONS * h + d] = 1
                    count += 1
    if count == 0:
        mask[PASS] = 1
        count = 1
    return count


@njit(cache=True)
def _end_turn(p, out, mover, rewards):
    """Close ``mover``'s turn in ``out``: next seat, turn count, then the win and move-limit checks."""
    n = p[P_PLAYERS]
    out[HOP_FROM] = -1
    for w in range(VISITED_WORDS):
        out[VISITED + w] = 0
    out[TO_MOVE] = (mover + 1) % n
    out[TURNS] += 1
    target = (p[P_HOMES + mover] + 3) % 6
    won = True
    for i in range(PEGS):
        if out[CELLS + POINTS[target, i]] != mover + 1:
            won = False
            break
    if won:
        out[TERMINAL] = 1
        for k in range(n):
            rewards[k] = -1.0
        rewards[mover] = n - 1.0
    elif out[TURNS] >= p[P_MAX_MOVES]:
        out[TERMINAL] = 1


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Play the legal action ``a`` from ``s`` into ``out`` (may be ``s``); reward deltas into ``rewards``."""
    copy_state(s, out)
    for k in range(rewards.shape[0]):
        rewards[k] = 0.0
    mover = out[TO_MOVE]
    out[PLY] += 1
    if a == PASS:
        _end_turn(p, out, mover, rewards)
        return
    hole = a // N_DIRECTIONS
    d = a % N_DIRECTIONS
    nb = NEIGHBOUR[hole, d]
    starting = out[HOP_FROM] < 0
    if starting and out[CELLS + nb] == 0:  # a step
        out[CELLS + nb] = mover + 1
        out[CELLS + hole] = 0
        _end_turn(p, out, mover, rewards)
        return
    land = HOP[hole, d]
    out[CELLS + land] = mover + 1
    out[CELLS + hole] = 0
    if starting:
        _mark_visited(out, hole)
    _mark_visited(out, land)
    out[HOP_FROM] = land
    for e in range(N_DIRECTIONS):
        if _chain_hop_ok(out, land, e):
            return
    _end_turn(p, out, mover, rewards)


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s view into ``out`` (``int8[(n + 3) * 121 + n]``, layout in the module docstring)."""
    n = p[P_PLAYERS]
    out[:] = 0
    for h in range(N_HOLES):
        v = s[CELLS + h]
        if v == 0:
            out[n * N_HOLES + h] = 1
        else:
            out[((v - 1 - seat + n) % n) * N_HOLES + h] = 1
    extra = (n + 1) * N_HOLES
    out[extra + (s[TO_MOVE] - seat + n) % n] = 1
    extra += n
    if s[HOP_FROM] >= 0:
        out[extra + s[HOP_FROM]] = 1
        for h in range(N_HOLES):
            out[extra + N_HOLES + h] = _visited(s, h)


@njit(cache=True)
def race_progress(p, s, progress):
    """Each player's race progress into ``progress``: 0 at the start, 1 with the target point filled."""
    for q in range(p[P_PLAYERS]):
        home = p[P_HOMES + q]
        target = (home + 3) % 6
        start = 0
        best = 0
        for i in range(PEGS):
            start += TIP_DISTANCE[target, POINTS[home, i]]
            best += TIP_DISTANCE[target, POINTS[target, i]]
        now = 0
        for h in range(N_HOLES):
            if s[CELLS + h] == q + 1:
                now += TIP_DISTANCE[target, h]
        progress[q] = (start - now) / (start - best)


@njit(cache=True)
def walled_in_count(p, s, seat):
    """How many of the other players' pegs in ``seat``'s target point ``seat``'s pegs wall in: the peg can neither
    step nor hop, and could if ``seat``'s pegs were off the board (a peg blocked only by its owner's or a third
    player's pegs, as at the start of a 2-player game, does not count)."""
    target = (p[P_HOMES + seat] + 3) % 6
    own = seat + 1
    count = 0
    for i in range(PEGS):
        h = POINTS[target, i]
        peg = s[CELLS + h]
        if peg == 0 or peg == own:
            continue
        free, by_seat = False, False
        for d in range(N_DIRECTIONS):
            nb = NEIGHBOUR[h, d]
            if nb < 0:
                continue
            land = HOP[h, d]
            if s[CELLS + nb] == 0 or (land >= 0 and s[CELLS + land] == 0):
                free = True
                break
            if s[CELLS + nb] == own or (land >= 0 and s[CELLS + land] == own):
                by_seat = True
        if not free and by_seat:
            count += 1
    return count


@njit(cache=True)
def heuristic(p, s, out):
    """The searches' leaf value: ``0.45 (own progress - mean progress of the others)``, clipped to +-0.49, where
    a player's progress is his race progress less ``WALLED_IN_PENALTY`` per walled-in spoiler in his target."""
    players = p[P_PLAYERS]
    progress = np.zeros(players)
    alive = np.ones(players, dtype=np.bool_)
    race_progress(p, s, progress)
    for q in range(players):
        progress[q] -= WALLED_IN_PENALTY * walled_in_count(p, s, q)
    relative_to_others(progress, alive, out)
    for q in range(players):
        out[q] = min(0.49, max(-0.49, 0.45 * out[q]))


# ------------------------------------------------------------ Python helpers
def _n_players(p) -> int:
    return int(p[P_PLAYERS])


def _target_holes(p, seat: int) -> np.ndarray:
    return POINTS[(int(p[P_HOMES + seat]) + 3) % 6]


def _visited_holes(s) -> list[int]:
    return [h for h in range(N_HOLES) if (int(s[VISITED + h // BITS_PER_WORD]) >> (h % BITS_PER_WORD)) & 1]


def _has_finished(p, s, seat: int) -> bool:
    return bool(np.all(s[CELLS + _target_holes(p, seat)] == seat + 1))


def validate(p, s) -> str:
    """Empty string when ``s`` is a possible position of the game ``p``, else the reason.

    Checks the layout, 10 pegs per seat, the hop-chain fields (the chain's peg
    belongs to the mover, the visited holes it left are empty, a chain in
    progress can still go on, no visited bits outside a chain), the turn
    counter against the player to move and the ply count, and the end of the
    game: only the player who moved last may have filled its target, and the
    game is over exactly when it has or the move limit is reached.
    """
    n, max_moves = _n_players(p), int(p[P_MAX_MOVES])
    msg = check_header(s, n, STATE_SIZE)
    if msg:
        return msg
    holes = s[CELLS:CELLS + N_HOLES]
    if np.any((holes < 0) | (holes > n)):
        return f"holes must be 0 (empty) or 1..{n} (a peg of player_0..player_{n - 1})"
    for k in range(n):
        count = int(np.sum(holes == k + 1))
        if count != PEGS:
            return f"player_{k} has {count} pegs on the board, must have {PEGS}"
    words = s[VISITED:VISITED + VISITED_WORDS]
    if np.any(words < 0) or int(words[-1]) >> (N_HOLES - BITS_PER_WORD * (VISITED_WORDS - 1)):
        return "visited bits outside the 121 holes"
    turns, ply, mover, hop_from = int(s[TURNS]), int(s[PLY]), int(s[TO_MOVE]), int(s[HOP_FROM])
    if not 0 <= turns <= max_moves:
        return f"turn count must be in 0..{max_moves} (max_moves), got {turns}"
    if mover != turns % n:
        return f"player_{turns % n} must be to move after {turns} turns, not player_{mover}"
    visited = _visited_holes(s)
    if hop_from == -1:
        if visited:
            return "visited holes are marked but no hop chain is going on"
    else:
        if not 0 <= hop_from < N_HOLES:
            return f"the hop-chain hole must be -1 or 0..{N_HOLES - 1}, got {hop_from}"
        if s[TERMINAL]:
            return "a finished game has no hop chain going on"
        if holes[hop_from] != mover + 1:
            return f"the hop chain's peg on hole {hop_from} is not player_{mover}'s"
        if hop_from not in visited or len(visited) < 2:
            return "a hop chain has visited its start hole and the chain's peg's hole"
        if any(holes[h] != 0 for h in visited if h != hop_from):
            return "holes a hop chain has left must be empty"
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if legal_actions(p, s, mask) < 2:
            return "a hop chain that cannot go on has already ended"
    if ply < turns + (hop_from >= 0):
        return f"ply count {ply} is less than the {turns} turns played"
    last = (mover - 1) % n
    for k in range(n):
        if k != last and not (k == mover and hop_from >= 0) and _has_finished(p, s, k):
            return f"player_{k} filled its target but did not move last"
    won = turns > 0 and hop_from < 0 and _has_finished(p, s, last)
    if bool(s[TERMINAL]) != (won or turns >= max_moves):
        return "terminal flag must be set exactly when the last mover has filled its target or max_moves is reached"
    return ""


def truncated(p, s) -> bool:
    """True when the terminal position ``s`` was ended by the move limit (``max_moves``), not by a win: the
    player who moved last has not filled its target (the win is checked first, so a winning last turn is
    a win)."""
    if not s[TERMINAL]:
        return False
    last = (int(s[TO_MOVE]) - 1) % _n_players(p)
    return not _has_finished(p, s, last)


def render_text(p, s) -> str:
    """The star as text in doubled coordinates plus a status line (see the module docstring)."""
    n = _n_players(p)
    lines = star_text(s[CELLS:CELLS + N_HOLES])
    turns = int(s[TURNS])
    if s[TERMINAL]:
        last = (int(s[TO_MOVE]) - 1) % n
        if _has_finished(p, s, last):
            status = f"game over after {turns} turns: player_{last} ({last + 1}) wins"
        else:
            status = f"game over: draw, move limit of {int(p[P_MAX_MOVES])} turns reached"
    else:
        mover = int(s[TO_MOVE])
        status = f"turn {turns + 1}: player_{mover} ({mover + 1}) to move"
        if s[HOP_FROM] >= 0:
            status += f", hopping on from hole {int(s[HOP_FROM])} (visited {_visited_holes(s)})"
    return "\n".join(lines + [status])


def paint(p, s) -> np.ndarray:
    """Colour indices of the 17 x 25 drawing grid: 0 background, 1 empty hole, 2 hole left by the
    current hop chain, ``3 + k`` a peg of ``player_k``."""
    return star_picture(s[CELLS:CELLS + N_HOLES], _visited_holes(s))


def cell_neighbours(p) -> list[list[int]]:
    """The adjacent holes of each hole (2 to 6 of them), for random-walk n-tuples."""
    return [[int(x) for x in NEIGHBOUR[h] if x >= 0] for h in range(N_HOLES)]


def symmetries(p) -> np.ndarray:
    """``int32[k, 121]``: the identity, and for 2 players the left-right mirror (an involution, so the
    permutation ``board[perm]`` uses is the mirror itself)."""
    ident = np.arange(N_HOLES, dtype=np.int32)
    if _n_players(p) != 2:
        return ident[None, :]
    return np.stack([ident, mirror_holes()])


def action_symmetries(p) -> np.ndarray:
    """``int32[k, 727]``: the mirror moves hole ``h`` to its mirror image and swaps left and right in
    the direction; pass stays pass."""
    ident = np.arange(N_ACTIONS, dtype=np.int32)
    if _n_players(p) != 2:
        return ident[None, :]
    mirror = mirror_holes()
    moved = np.array([N_DIRECTIONS * mirror[h] + MIRROR_DIRECTION[d]
                      for h in range(N_HOLES) for d in range(N_DIRECTIONS)] + [PASS], dtype=np.int32)
    return np.stack([ident, moved])


def make_spec(players: int = 2, max_moves: int = 1000) -> GameSpec:
    """Chinese Checkers for ``players`` (2, 3, 4 or 6) with a draw after ``max_moves`` turns (1..100000)."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players not in PLAYER_COUNTS:
        raise ValueError(f"players must be one of {PLAYER_COUNTS}, got {players!r}")
    n_players = int(players)
    max_moves = check_int_param("max_moves", max_moves, 1, MAX_MOVES_LIMIT)
    homes = list(HOME_POINTS[n_players]) + [-1] * (6 - n_players)
    p = np.array([n_players, max_moves] + homes, dtype=np.int64)
    names = tuple(f"{h}{DIRECTION_NAMES[d]}" for h in range(N_HOLES) for d in range(N_DIRECTIONS)) + ("pass",)
    players = ((220, 50, 50), (40, 90, 220), (40, 170, 70), (230, 190, 40), (150, 60, 190), (40, 190, 200))
    return GameSpec(
        name="chinese_checkers", version=0, params={"players": n_players, "max_moves": max_moves}, p=p,
        n_players=n_players, n_actions=N_ACTIONS, state_size=STATE_SIZE, n_cells=N_HOLES,
        n_cell_values=n_players + 1, obs_shape=((n_players + 3) * N_HOLES + n_players,), obs_high=1,
        max_plies=max_moves * longest_turn(), reward_range=(-1.0, float(n_players - 1)),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=names,
        cell_colors=((40, 40, 40), (215, 215, 215), (170, 150, 120)) + players[:n_players],
        # no grid_shape: the 121 holes are not a rows x cols array (code that reshapes boards must not try);
        # paint draws them on the 17 x 25 grid of their doubled coordinates
        cell_neighbours=cell_neighbours, paint=paint, truncated=truncated, heuristic=heuristic,
    )
