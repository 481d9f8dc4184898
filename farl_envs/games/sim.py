"""Sim (2 or 3 players) as numba kernels: colour the edges of a complete graph, avoid a triangle of your own.

(Longer than farl's usual 400 lines: the kernels below are the one source of
truth of the rules for 2 and 3 players (with 3, a player who makes a triangle
drops out), and ``validate`` replays the turn order to check a board; this
docstring is the game's documentation page.)

==================  ===========================================================
players             2 (default) or 3 (``players=``); ``player_0`` moves first,
                    then ``player_1`` (then ``player_2``), skipping players who
                    are out
parameters          ``nodes``: the complete graph K_nodes, 4..20; default 6 with
                    2 players and 12 with 3 (the defaults of GBG's Sim,
                    ``ConfigSim``; 4..20 is the range GBG's launcher offers)
actions             ``nodes * (nodes - 1) / 2`` edges (i, j) with i < j in
                    lexicographic order: (0,1), (0,2), ..., (0,n-1), (1,2), ...
                    (GBG numbers its links the same way); an action colours
                    that edge in the mover's colour and is legal while the
                    edge is uncoloured. Names ``"0-1"``, ``"0-2"``, ...
rewards, 2 players  whoever completes a triangle of three edges in their own
                    colour loses: -1 for them, +1 for the other; when every
                    edge is coloured without such a triangle, 0 / 0 (possible
                    on K4 and K5, impossible from K6 on: Ramsey's R(3,3) = 6)
rewards, 3 players  GBG's rule without coalition: the first player to complete
                    a triangle of their own colour gets -1 and is out (skipped
                    in the turn order from then on; their edges stay); the two
                    others play on. When a second player completes a triangle
                    of their own colour they get -1 and the one left gets +1.
                    When every edge is coloured before that, the game is a
                    draw: 0 for everybody still in (the player who is out
                    keeps -1). A move that completes a triangle and colours
                    the last edge is a loss for the mover all the same (if
                    nobody was out before, the other two draw with 0)
observation         ``int8[nodes, nodes, planes]``, as ``seat`` sees it: one
                    symmetric adjacency plane per colour, the viewer's own
                    colour first, then the next players' in turn order
                    (``[i, j, k] = 1`` when edge (i, j) has the colour of seat
                    ``(seat + k) % players``; the diagonal is 0). With 3 players
                    three more planes follow, in the same seat order, each all
                    1 while that player is still in and all 0 once they are
                    out (2-player games end at the first triangle, so they
                    need no such flags)
n-tuple board       one cell per edge in action order, values 0 uncoloured,
                    1 + seat for a coloured edge (P = players + 1)
cell neighbours     edges that share a node (2 * (nodes - 2) each): the graph
                    random-walk n-tuples walk on
symmetries          every permutation of the nodes maps Sim positions onto
                    equivalent ones (nodes! of them, 720 on K6, far too many
                    for symmetric n-tuple sums); farl uses the subgroup of the
                    2 * nodes symmetries of a regular polygon whose corners
                    carry the node labels 0..nodes-1 in order (rotations
                    i -> i + k and reflections i -> k - i, modulo nodes):
                    12 on K6, 24 on K12
rendering           ``ansi``: the adjacency matrix with the owner's seat number
                    on each coloured edge (``.`` uncoloured) and a status line;
                    ``rgb_array``: the same matrix as squares coloured by owner
                    (red, blue, green for seats 0, 1, 2; grey diagonal)
==================  ===========================================================

Sim was invented by Gustavus Simmons (1969). With 2 players on K6 the second
player wins with perfect play (Mead, Rosa & Huang 1974);
``tests/test_sim_rules.py`` re-derives this by exhaustive search. The
2-player K6 game has 2,230,702 distinct positions including the start (a
count by these kernels), so Max-N with depth 15 (``"maxn15"``) plays it
perfectly.

The mover loses only through a triangle that contains the edge just
coloured, so the check after a move looks at the ``nodes - 2`` triangles
through that edge and nothing else (a player's earlier edges never formed a
triangle, or they would be out already).

State: the common header (:mod:`farl_envs.core.spec`), then one cell per
edge (0 uncoloured, 1 + seat of the owner), then one entry with the seats
that are out as bits (bit ``q`` set once seat ``q`` has completed a triangle
of their colour; in 2-player games only on the final position)::

    state[3 : 3 + n_edges]   edge colours
    state[3 + n_edges]       out bits

The player to move is always a player still in (after the last move of a
game it is the next one who would have moved). The ply count equals the
number of coloured edges.

The parameter vector ``p`` the kernels take holds, after ``nodes`` and
``players``, the edge tables: the two end nodes of every edge and the
``nodes x nodes`` matrix of edge indices, so a kernel never searches for an
edge.

Leaf evaluation of the depth-limited searches (``heuristic``, see
:mod:`farl_envs.games._heuristics`): a player's score is minus his *dead*
edges, the uncoloured edges he can no longer take because they would close
a path of two edges of his own colour (a triangle, hence his loss). Fewer
dead edges leave him more safe moves for the end of the game, where Sim is
decided. The value is ``0.5 tanh((others' mean dead edges - own) / 4)``, the
others' mean taken over the players still in.

Version history: v0, first release.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header, check_int_param
from farl_envs.games._heuristics import relative_to_others

MIN_NODES = 4
MAX_NODES = 20
DEFAULT_NODES = {2: 6, 3: 12}
SEAT_SYMBOLS = "012"

# layout of the parameter vector p
P_NODES, P_PLAYERS, P_EDGES, P_TABLES = 0, 1, 2, 3


def n_edges(nodes: int) -> int:
    """Edges of the complete graph K_nodes."""
    return nodes * (nodes - 1) // 2


def edge_list(nodes: int) -> list[tuple[int, int]]:
    """The edges (i, j), i < j, in action order."""
    return [(i, j) for i in range(nodes) for j in range(i + 1, nodes)]


# --------------------------------------------------------- parameter tables
@njit(cache=True, inline="always")
def _end_a(p, e):
    return p[P_TABLES + e]


@njit(cache=True, inline="always")
def _end_b(p, e):
    return p[P_TABLES + p[P_EDGES] + e]


@njit(cache=True, inline="always")
def _edge(p, i, j):
    """Index of the edge between nodes i and j (i != j, either order)."""
    return p[P_TABLES + 2 * p[P_EDGES] + i * p[P_NODES] + j]


# ------------------------------------------------------------------ kernels
@njit(cache=True)
def initial_state(p, rng):
    """No edge coloured, ``player_0`` to move; ``rng`` is unused."""
    return np.zeros(HEADER + p[P_EDGES] + 1, dtype=np.int32)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Mark the uncoloured edges in ``mask``; return their count (0 once the game is over)."""
    m = p[P_EDGES]
    if s[TERMINAL]:
        mask[:] = 0
        return 0
    count = 0
    for e in range(m):
        if s[HEADER + e] == 0:
            mask[e] = 1
            count += 1
        else:
            mask[e] = 0
    return count


@njit(cache=True)
def _closes_triangle(p, s, e, colour):
    """True when edge ``e`` and two more edges of ``colour`` through its ends form a triangle."""
    n = p[P_NODES]
    i, j = _end_a(p, e), _end_b(p, e)
    for k in range(n):
        if k != i and k != j and s[HEADER + _edge(p, i, k)] == colour and s[HEADER + _edge(p, j, k)] == colour:
            return True
    return False


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """Colour edge ``a`` for the mover; losses, the winner and the next player still in.

    Writes the next state into ``out`` (may be ``s``) and the reward deltas
    into ``rewards`` (``float64[players]``).
    """
    m, players = p[P_EDGES], p[P_PLAYERS]
    mover = s[TO_MOVE]
    copy_state(s, out)
    out[HEADER + a] = mover + 1
    ply = s[PLY] + 1
    out[PLY] = ply
    for q in range(players):
        rewards[q] = 0.0
    gone = s[HEADER + m]
    if _closes_triangle(p, out, a, mover + 1):
        rewards[mover] = -1.0
        gone |= 1 << mover
        out[HEADER + m] = gone
        left = 0
        last = -1
        for q in range(players):
            if not (gone >> q) & 1:
                left += 1
                last = q
        if left == 1:
            rewards[last] = 1.0
            out[TERMINAL] = 1
    if ply == m:
        out[TERMINAL] = 1
    nxt = (mover + 1) % players
    while (gone >> nxt) & 1:
        nxt = (nxt + 1) % players
    out[TO_MOVE] = nxt


@njit(cache=True)
def observe(p, s, seat, out):
    """``seat``'s planes into ``out`` (``int8[nodes, nodes, planes]``), see the module docstring."""
    m, players = p[P_EDGES], p[P_PLAYERS]
    out[:] = 0
    for e in range(m):
        c = s[HEADER + e]
        if c:
            k = (c - 1 - seat) % players
            i, j = _end_a(p, e), _end_b(p, e)
            out[i, j, k] = 1
            out[j, i, k] = 1
    if players > 2:
        gone = s[HEADER + m]
        for k in range(players):
            if not (gone >> ((seat + k) % players)) & 1:
                out[:, :, players + k] = 1


@njit(cache=True)
def heuristic(p, s, out):
    """The searches' leaf value: ``0.5 tanh((mean dead edges of the others in - own dead edges) / 4)``, 0 for a
    player who is out (see the module docstring)."""
    players, m, n = p[P_PLAYERS], p[P_EDGES], p[P_NODES]
    gone = s[HEADER + m]
    dead = np.zeros(players)
    alive = np.zeros(players, dtype=np.bool_)
    for q in range(players):
        alive[q] = not (gone >> q) & 1
    for e in range(m):
        if s[HEADER + e] != 0:
            continue
        i, j = _end_a(p, e), _end_b(p, e)
        seen = 0
        for k in range(n):
            if k != i and k != j:
                c = s[HEADER + _edge(p, i, k)]
                if c != 0 and c == s[HEADER + _edge(p, j, k)]:
                    seen |= 1 << (c - 1)
        for q in range(players):
            if (seen >> q) & 1:
                dead[q] += 1.0
    relative_to_others(-dead, alive, out)
    for q in range(players):
        out[q] = 0.5 * math.tanh(out[q] / 4.0)


# ------------------------------------------------------------ Python helpers
def _colour_triangles(p, cells: np.ndarray, colour: int) -> list[tuple[int, int, int]]:
    """The triangles (as three edge indices) whose edges all have ``colour``."""
    n = int(p[P_NODES])
    index = p[P_TABLES + 2 * int(p[P_EDGES]):].reshape(n, n)
    found = []
    for i in range(n):
        for j in range(i + 1, n):
            if cells[index[i, j]] != colour:
                continue
            for k in range(j + 1, n):
                if cells[index[i, k]] == colour and cells[index[j, k]] == colour:
                    found.append((int(index[i, j]), int(index[i, k]), int(index[j, k])))
    return found


def _turns(players: int, counts: list[int], gone: int, ply: int):
    """Replay the turn order for ``ply`` moves with these per-seat move counts.

    A seat that is out leaves right after its last move (``counts[q]``-th).
    Returns ``(reason, next_player, seats_out_before_the_last_move)``; the
    reason is "" when the counts fit the turn order.
    """
    done = [0] * players
    out = 0
    mover = 0
    out_before_last = 0
    for k in range(ply):
        done[mover] += 1
        if done[mover] > counts[mover]:
            return f"seat {mover} would have to move more often than its {counts[mover]} edges", -1, 0
        if k == ply - 1:
            out_before_last = out
        if (gone >> mover) & 1 and done[mover] == counts[mover]:
            out |= 1 << mover
        if bin(out).count("1") == players:
            return "every player is out", -1, 0
        mover = (mover + 1) % players
        while (out >> mover) & 1:
            mover = (mover + 1) % players
    if done != counts:
        return f"edge counts per seat {counts} do not fit the turn order (expected {done})", -1, 0
    return "", mover, out_before_last


def validate(p, s) -> str:
    """Empty string when ``s`` is a legal Sim position of the game ``p``, else the reason.

    Checks the layout, that the ply count equals the coloured edges, that the
    out bits are exactly the seats with a triangle of their colour, that each
    such seat's triangles share an edge (the move that put it out; before it
    they had none), that the edge counts fit the turn order (a seat that is
    out left after its last edge, the others went on in turn), the player to
    move, and that the game is over exactly when one player is left or every
    edge is coloured.
    """
    players, m = int(p[P_PLAYERS]), int(p[P_EDGES])
    msg = check_header(s, players, HEADER + m + 1)
    if msg:
        return msg
    cells, gone = s[HEADER:HEADER + m], int(s[HEADER + m])
    if np.any((cells < 0) | (cells > players)):
        return f"edge colours must be 0 (uncoloured) or 1..{players} (1 + seat)"
    if not 0 <= gone < (1 << players):
        return f"out bits must be in 0..{(1 << players) - 1}, got {gone}"
    coloured = int(np.count_nonzero(cells))
    if s[PLY] != coloured:
        return f"ply count {s[PLY]} does not match the {coloured} coloured edges"
    for q in range(players):
        triangles = _colour_triangles(p, cells, q + 1)
        if bool(triangles) != bool((gone >> q) & 1):
            return (f"seat {q} {'has' if triangles else 'has no'} triangle of its colour "
                    f"but is marked {'in' if triangles else 'out'}")
        if triangles and not set.intersection(*(set(t) for t in triangles)):
            return f"seat {q}'s triangles share no edge: the game would have ended for it earlier"
    counts = [int(np.count_nonzero(cells == q + 1)) for q in range(players)]
    reason, nxt, out_before_last = _turns(players, counts, gone, coloured)
    if reason:
        return reason
    if bin(out_before_last).count("1") >= players - 1:
        return "the game went on after it was decided"
    if s[TO_MOVE] != nxt:
        return f"player to move must be {nxt} (turn order, skipping players who are out), got {s[TO_MOVE]}"
    over = bin(gone).count("1") == players - 1 or coloured == m
    if bool(s[TERMINAL]) != over:
        return "terminal flag must be set exactly when one player is left or every edge is coloured"
    return ""


def render_text(p, s) -> str:
    """The adjacency matrix (``.`` uncoloured, the owner's seat number, ``\\`` on the diagonal) and a status line."""
    n, players, m = int(p[P_NODES]), int(p[P_PLAYERS]), int(p[P_EDGES])
    index = p[P_TABLES + 2 * m:].reshape(n, n)
    symbols = "." + SEAT_SYMBOLS[:players]
    width = len(str(n - 1))
    lines = [" " * (width + 1) + " ".join(f"{j:>{width}}" for j in range(n))]
    for i in range(n):
        row = [("\\" if i == j else symbols[int(s[HEADER + index[i, j]])]).rjust(width) for j in range(n)]
        lines.append(f"{i:>{width}} " + " ".join(row))
    gone = int(s[HEADER + m])
    out = [f"player_{q}" for q in range(players) if (gone >> q) & 1]
    status = "game over" if s[TERMINAL] else f"player_{int(s[TO_MOVE])} to move"
    lines.append(status + (f"; out: {', '.join(out)}" if out else ""))
    return "\n".join(lines)


def node_symmetries(nodes: int) -> np.ndarray:
    """``int32[2 * nodes, nodes]``: the polygon's rotations i -> i + k, then reflections i -> k - i (mod nodes)."""
    i = np.arange(nodes)
    rot = [(i + k) % nodes for k in range(nodes)]
    ref = [(k - i) % nodes for k in range(nodes)]
    return np.array(rot + ref, dtype=np.int32)


def symmetries(p) -> np.ndarray:
    """``int32[2 * nodes, n_edges]``: ``board[perm]`` is the board with its nodes relabelled by ``sigma``.

    The relabelled board gives edge (sigma(i), sigma(j)) the colour of edge
    (i, j); so its cell (a, b) shows the original cell (sigma^-1(a), sigma^-1(b)).
    Row 0 is the identity.
    """
    n = int(p[P_NODES])
    edges = edge_list(n)
    index = {e: k for k, e in enumerate(edges)}
    out = np.empty((2 * n, len(edges)), dtype=np.int32)
    for r, sigma in enumerate(node_symmetries(n)):
        inverse = np.argsort(sigma)
        for k, (a, b) in enumerate(edges):
            x, y = int(inverse[a]), int(inverse[b])
            out[r, k] = index[(min(x, y), max(x, y))]
    return out


def action_symmetries(p) -> np.ndarray:
    """``int32[2 * nodes, n_edges]``: colouring edge (i, j) maps to colouring (sigma(i), sigma(j))."""
    perms = symmetries(p)
    out = np.empty_like(perms)
    for r in range(perms.shape[0]):
        out[r, perms[r]] = np.arange(perms.shape[1], dtype=np.int32)
    return out


def cell_neighbours(p) -> list[list[int]]:
    """For each edge, the edges that share one of its two nodes."""
    edges = edge_list(int(p[P_NODES]))
    return [[k for k, f in enumerate(edges) if k != e and set(f) & set(edges[e])] for e in range(len(edges))]


def eliminated(p, s) -> tuple[int, ...]:
    """The seats that are out (have completed a triangle of their colour) in ``s``."""
    gone = int(s[HEADER + int(p[P_EDGES])])
    return tuple(q for q in range(int(p[P_PLAYERS])) if (gone >> q) & 1)


def _paint(p, s) -> np.ndarray:
    """The ``nodes x nodes`` adjacency matrix by owner: 0 uncoloured, 1 + seat, players + 1 on the diagonal."""
    n, players, m = int(p[P_NODES]), int(p[P_PLAYERS]), int(p[P_EDGES])
    index = p[P_TABLES + 2 * m:].reshape(n, n)
    cells = np.append(s[HEADER:HEADER + m], 0)
    grid = cells[np.where(index < 0, m, index)].astype(np.int32)
    np.fill_diagonal(grid, players + 1)
    return grid


def _parameter_vector(nodes: int, players: int) -> np.ndarray:
    edges = edge_list(nodes)
    index = np.full((nodes, nodes), -1, dtype=np.int64)
    for k, (i, j) in enumerate(edges):
        index[i, j] = index[j, i] = k
    ends = np.array(edges, dtype=np.int64).reshape(-1, 2)
    return np.concatenate([np.array([nodes, players, len(edges)], dtype=np.int64),
                           ends[:, 0], ends[:, 1], index.ravel()])


def make_spec(players: int = 2, nodes: int | None = None) -> GameSpec:
    """Sim for ``players`` (2 or 3) on the complete graph K_nodes (4..20; default 6 or 12 by players)."""
    players = check_int_param("players", players, 2, 3)
    nodes = DEFAULT_NODES[players] if nodes is None else check_int_param("nodes", nodes, MIN_NODES, MAX_NODES)
    m = n_edges(nodes)
    planes = players if players == 2 else 2 * players
    colours = ((225, 225, 225), (200, 40, 40), (40, 80, 200), (40, 160, 60))[:players + 1] + ((60, 60, 60),)
    return GameSpec(
        name="sim", version=0, params={"players": players, "nodes": nodes}, p=_parameter_vector(nodes, players),
        n_players=players, n_actions=m, state_size=HEADER + m + 1, n_cells=m, n_cell_values=players + 1,
        obs_shape=(nodes, nodes, planes), obs_high=1, max_plies=m, reward_range=(-1.0, 1.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        observe=observe, validate=validate,
        render_text=render_text, symmetries=symmetries, action_symmetries=action_symmetries,
        action_names=tuple(f"{i}-{j}" for i, j in edge_list(nodes)),
        cell_colors=colours, grid_shape=(nodes, nodes), cell_neighbours=cell_neighbours,
        eliminated=eliminated if players > 2 else None, paint=_paint, heuristic=heuristic,
    )
