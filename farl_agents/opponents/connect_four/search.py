"""The compiled search of the Connect Four solver: negamax alpha-beta on
bitboards, its transposition table, the opening-book probe, and the
drivers that turn null-window searches into exact answers.

(Over 400 lines because it is one algorithm: the negamax, unrolled onto an
explicit stack, is 160 of them, and the table helpers and the drivers share
its argument list and entry layout.)

Scores follow the convention described in
:mod:`farl_agents.opponents.connect_four.solver` (positive: the mover wins,
faster wins score more).  Everything here is ``@njit``; the Python side
(:class:`~farl_agents.opponents.connect_four.solver.Solver`) owns the arrays
and passes them in.

Techniques
----------
* immediate wins are tested before searching; inside the search only
  *non-losing* moves are generated (a single forced block, none when the
  opponent has two immediate threats, never a cell directly below an
  opponent's winning cell);
* the score window is clamped by what is still achievable given the number of
  discs played (a win needs at least one more own disc, etc.);
* moves are ordered by the number of winning cells the move creates for the
  mover ("threat count"), ties broken centre-first;
* a transposition table in a preallocated ``int64`` array (two-slot buckets:
  one slot prefers positions nearer the root, the other always takes the
  newest entry); each entry packs the full key, the ply and one bound (upper
  bound after a fail-low, lower bound after a cut-off).  Entries are true
  bounds of the exact score, so the table is kept between searches.
  Positions near the end of the game (``NEAR_END_PLY``) get a small region
  of their own that stays in the CPU cache: memory latency, not the search
  itself, was what limited the node rate;
* enhanced transposition cut-off (children's table bounds are probed before
  searching them);
* ``exact_score`` finds the exact score by repeated null-window searches
  ``(med, med + 1)``, narrowing ``[lo, hi]`` around it, biased towards 0
  where the hard proofs are;
* an optional opening book (sorted canonical keys + exact scores, see
  :mod:`farl_agents.opponents.connect_four.book`) answers book positions at
  any node.

These are the standard techniques described by P. Pons's Connect Four solver
tutorial (http://blog.gamesolver.org); the code is written from scratch.

numba caches each compiled function next to its own module and does not
notice edits to the bitboard kernels it inlines from
:mod:`~farl_agents.opponents.connect_four.bitboard`: after changing those,
delete the numba cache.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_agents.opponents.connect_four.bitboard import (
    KEY_BITS,
    N_CELLS,
    WIDTH,
    canonical_key,
    column_mask,
    popcount,
    possible_moves,
    win_spots,
)

#: Column search order: centre first, then alternating outwards.
ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)

#: ``horizon`` value of a search without depth limit.
NO_HORIZON = 99


@njit(cache=True, inline="always")
def win_now_score(n):
    """Score of a win by the mover's next disc with ``n`` discs played."""
    return (43 - n) // 2


# --------------------------------------------------------------------------
# Transposition table and opening book
# --------------------------------------------------------------------------
# Buckets of two entries; bucket counts are prime so that ``key % count``
# depends on every column.
# Entry: key << 13 | ply << 7 | is_lower << 6 | (score + 32); -1 = empty.
#
# The table array has two regions.  Positions with at least
# ``NEAR_END_PLY`` discs live in the first ``NEAR_END_BUCKETS`` buckets
# (1 MiB: it stays in the CPU cache), all others in the rest (the big
# region, e.g. 128 MiB).  Most search nodes are near the end of the game,
# and with one big table nearly every probe was a cache miss, which bounded
# the search at ~5 M nodes/s; their subtrees are small, so losing some of
# their entries costs little.  With the split the search runs at 14-16 M
# nodes/s in ``benchmarks/opponents_speed.py`` (its "M nodes/s" notes),
# although more nodes are searched.
NEAR_END_PLY = 26
NEAR_END_BUCKETS = 65521  # prime


@njit(cache=True, inline="always")
def tt_slot(tt, key, n):
    """Index of the first entry of ``key``'s bucket (``n``: its disc count)."""
    if n >= NEAR_END_PLY:
        return (key % NEAR_END_BUCKETS) << 1
    nb = (tt.shape[0] >> 1) - NEAR_END_BUCKETS
    return (NEAR_END_BUCKETS + key % nb) << 1


@njit(cache=True, inline="always")
def tt_get(tt, key, n):
    i = tt_slot(tt, key, n)
    e = tt[i]
    if (e >> 13) == key:
        return e
    e = tt[i + 1]
    if (e >> 13) == key:
        return e
    return -1


@njit(cache=True, inline="always")
def tt_put(tt, key, n, lower, score, root_n):
    i = tt_slot(tt, key, n)
    e = (key << 13) | (n << 7) | (lower << 6) | (score + 32)
    d = tt[i]
    dn = (d >> 7) & 63
    if d == -1 or (d >> 13) == key or n <= dn or dn < root_n:
        tt[i] = e  # slot 0: keeps the entry nearest the root (biggest work)
    else:
        tt[i + 1] = e  # slot 1: always replaced


@njit(cache=True)
def book_get(bkeys, bvals, key):
    """Exact score stored for canonical ``key`` or -128 when absent."""
    i = np.searchsorted(bkeys, key)
    if i < bkeys.shape[0] and bkeys[i] == key:
        return np.int64(bvals[i])
    return -128


# --------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------
# Layout of one row of the per-ply search stack ``st`` (int64[44, 16]).
_S_CUR, _S_MASK, _S_ALPHA, _S_BETA, _S_NMOVES, _S_NEXT, _S_KEY = 8, 9, 10, 11, 12, 13, 14


@njit(cache=True)
def negamax(cur, mask, n, alpha, beta, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Alpha-beta value of a position whose mover cannot win at once.

    Fail-soft bounds: if the true score is <= alpha the result is an upper
    bound <= alpha; if >= beta a lower bound >= beta; otherwise exact.
    ``ctx[0]`` counts nodes, ``ctx[1]`` is the root ply (for TT aging);
    when ``ctx[2] > 0`` and the count passes it, ``ctx[3]`` is set to 1 and
    the search returns at once (result meaningless; every table entry
    already written is still a true bound).  ``horizon`` (``NO_HORIZON``: none) turns
    the search into a depth-limited one: positions with ``horizon`` discs
    that are not decided tactically score 0 -- only for the player's
    fallback, with a private table, since such values are not true bounds.

    The recursion is unrolled onto an explicit stack ``st`` (one row per
    ply: the ordered move list, the node's position, window, move count,
    next move index and key) because numba's on-disk cache cannot reload
    self-recursive functions reliably.
    """
    root = n
    root_n = ctx[1]
    state = 0  # 0: enter the node at ply n, 1: search its next move, 2: return r
    r = 0
    while True:
        if state == 0:
            ctx[0] += 1
            if ctx[2] > 0 and ctx[0] > ctx[2]:
                ctx[3] = 1
                return 0
            possible = possible_moves(mask)
            opp = cur ^ mask
            opp_win = win_spots(opp, mask)
            forced = possible & opp_win
            if forced:
                if forced & (forced - 1):  # two threats: cannot block both
                    r = -((42 - n) // 2)
                    state = 2
                    continue
                possible = forced
            possible &= ~(opp_win >> 1)  # never play under an opponent's threat
            if possible == 0:
                r = -((42 - n) // 2)
                state = 2
                continue
            if n >= N_CELLS - 2:
                r = 0
                state = 2
                continue
            lo = -((40 - n) // 2)  # the opponent cannot win with its next disc
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    r = alpha
                    state = 2
                    continue
            hi = (41 - n) // 2  # we cannot win with our next disc
            if beta > hi:
                beta = hi
                if alpha >= beta:
                    r = beta
                    state = 2
                    continue
            if n >= horizon:
                r = 0
                state = 2
                continue
            key = cur + mask
            e = tt_get(tt, key, n)
            if e != -1:
                b = (e & 63) - 32
                if (e >> 6) & 1:
                    if alpha < b:
                        alpha = b
                        if alpha >= beta:
                            r = alpha
                            state = 2
                            continue
                else:
                    if beta > b:
                        beta = b
                        if alpha >= beta:
                            r = beta
                            state = 2
                            continue
            if n <= bply:
                v = book_get(bkeys, bvals, canonical_key(cur, mask))
                if v != -128:
                    r = v
                    state = 2
                    continue
            row = st[n]
            m = 0
            cut = False
            for i in range(WIDTH):
                c = ORDER[i]
                mv = possible & column_mask(c)
                if mv:
                    if n < 34:  # enhanced transposition cut-off
                        ck = opp + (mask | mv)
                        ce = tt_get(tt, ck, n + 1)
                        if ce != -1 and ((ce >> 6) & 1) == 0:
                            s = 32 - (ce & 63)  # child <= u  =>  we >= -u
                            if s >= beta:
                                tt_put(tt, key, n, 1, s, root_n)
                                r = s
                                cut = True
                                break
                    sc = popcount(win_spots(cur | mv, mask | mv)) * 8 + (7 - i)
                    item = (sc << 52) | mv
                    j = m
                    while j > 0 and row[j - 1] < item:
                        row[j] = row[j - 1]
                        j -= 1
                    row[j] = item
                    m += 1
            if cut:
                state = 2
                continue
            row[_S_CUR] = cur
            row[_S_MASK] = mask
            row[_S_ALPHA] = alpha
            row[_S_BETA] = beta
            row[_S_NMOVES] = m
            row[_S_NEXT] = 0
            row[_S_KEY] = key
            state = 1
        if state == 1:
            row = st[n]
            j = row[_S_NEXT]
            if j < row[_S_NMOVES]:
                row[_S_NEXT] = j + 1
                mv = row[j] & KEY_BITS
                pcur = row[_S_CUR]
                pmask = row[_S_MASK]
                cur = pcur ^ pmask
                mask = pmask | mv
                alpha = -row[_S_BETA]
                beta = -row[_S_ALPHA]
                n += 1
                state = 0
                continue
            r = row[_S_ALPHA]
            tt_put(tt, row[_S_KEY], n, 0, r, root_n)
            state = 2
        # state == 2: hand r to the parent
        if n == root:
            return r
        n -= 1
        row = st[n]
        s = -r
        if s >= row[_S_BETA]:
            tt_put(tt, row[_S_KEY], n, 1, s, root_n)
            r = s
            continue  # the parent returns too
        if s > row[_S_ALPHA]:
            row[_S_ALPHA] = s
        state = 1


# The drivers below share the trailing arguments
#   horizon, tt, bkeys, bvals, bply, ctx, st
# of ``negamax``.  Each returns at once (meaningless value) when the node
# budget ran out (``ctx[3] == 1``); the Python side then raises.
@njit(cache=True)
def exact_score(cur, mask, n, lo, hi, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Exact score of a non-terminal position, known to lie in [lo, hi].

    Pass the widest bounds (e.g. -64, 64) when nothing is known.
    Null-window searches narrow the interval, each probe biased towards 0
    because proofs near 0 are the expensive ones.
    """
    if win_spots(cur, mask) & possible_moves(mask):
        return win_now_score(n)
    if n <= bply:
        v = book_get(bkeys, bvals, canonical_key(cur, mask))
        if v != -128:
            return v
    ctx[1] = n
    lo = max(lo, -((42 - n) // 2))
    hi = min(hi, (41 - n) // 2)
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = negamax(cur, mask, n, med, med + 1, horizon, tt, bkeys, bvals, bply, ctx, st)
        if ctx[3]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def at_least(cur, mask, n, t, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Whether the exact score of the position is >= t (one null window)."""
    if win_spots(cur, mask) & possible_moves(mask):
        return win_now_score(n) >= t
    if n <= bply:
        v = book_get(bkeys, bvals, canonical_key(cur, mask))
        if v != -128:
            return v >= t
    ctx[1] = n
    return negamax(cur, mask, n, t - 1, t, horizon, tt, bkeys, bvals, bply, ctx, st) >= t


@njit(cache=True)
def move_at_least(cur, mask, n, c, t, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Whether playing column ``c`` (legal) scores >= t for the mover."""
    mv = possible_moves(mask) & column_mask(c)
    if win_spots(cur, mask) & mv:
        return win_now_score(n) >= t
    # the child's score is <= -t  <=>  not (child >= 1 - t)
    return not at_least(cur ^ mask, mask | mv, n + 1, 1 - t, horizon, tt, bkeys, bvals, bply, ctx, st)


@njit(cache=True)
def move_scores(cur, mask, n, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Exact score of every column for the mover (-127 for a full column)."""
    out = np.full(WIDTH, -127, dtype=np.int64)
    possible = possible_moves(mask)
    wins = win_spots(cur, mask) & possible
    for i in range(WIDTH):
        c = ORDER[i]
        mv = possible & column_mask(c)
        if mv:
            if wins & mv:
                out[c] = win_now_score(n)
            else:
                out[c] = -exact_score(cur ^ mask, mask | mv, n + 1, -64, 64, horizon, tt, bkeys, bvals, bply,
                                      ctx, st)
                if ctx[3]:
                    return out
    return out


@njit(cache=True)
def best_moves(cur, mask, n, want_lost_set, horizon, tt, bkeys, bvals, bply, ctx, st):
    """Exact score ``v`` of the position and which columns achieve it.

    Returns ``(v, best)`` with ``best`` a bool[7].  When the position is lost
    and ``want_lost_set`` is False, ``v`` is only an upper bound (< 0) and
    ``best`` is all False: the caller then plays any legal move, so the
    expensive exact loss distance is never computed.
    """
    best = np.zeros(WIDTH, dtype=np.bool_)
    possible = possible_moves(mask)
    wins = win_spots(cur, mask) & possible
    if wins:
        for c in range(WIDTH):
            if wins & column_mask(c):
                best[c] = True
        return win_now_score(n), best
    if at_least(cur, mask, n, 0, horizon, tt, bkeys, bvals, bply, ctx, st):
        v = exact_score(cur, mask, n, 0, 64, horizon, tt, bkeys, bvals, bply, ctx, st)
    elif not want_lost_set:
        return -1, best
    else:
        v = exact_score(cur, mask, n, -64, -1, horizon, tt, bkeys, bvals, bply, ctx, st)
    if ctx[3]:
        return v, best
    for i in range(WIDTH):  # centre first: those children are best known
        c = ORDER[i]
        if possible & column_mask(c):
            best[c] = move_at_least(cur, mask, n, c, v, horizon, tt, bkeys, bvals, bply, ctx, st)
            if ctx[3]:
                return v, best
    return v, best


@njit(cache=True)
def static_order(cur, mask):
    """The search's move-ordering score of each legal column (-1 if full):
    8 * (winning cells the move creates) + centrality (6 = centre).  Used to
    break ties between moves a bounded search could not resolve."""
    out = np.full(WIDTH, -1, dtype=np.int64)
    possible = possible_moves(mask)
    for i in range(WIDTH):
        c = ORDER[i]
        mv = possible & column_mask(c)
        if mv:
            out[c] = popcount(win_spots(cur | mv, mask | mv)) * 8 + (6 - i)
    return out
