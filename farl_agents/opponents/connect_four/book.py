"""Builder of the opening book of the perfect Connect Four players.

The book file itself (path, format, loading) belongs to
:mod:`farl_agents.opponents.connect_four.solver`, which reads it; this
module builds, extends, merges and checks book files with that solver.

Why a book
----------
Exact scores of early positions are expensive: proving the exact distance to
the end takes minutes of search at ply 1-3, seconds at ply 6-8, and from ply
12 on usually tens of milliseconds.  The book stores exact scores of early
positions, computed once by the solver itself, so that players answer them
instantly (the search also stops at any book position it meets).

What is in it
-------------
A map *canonical position key -> exact score* (the score convention of
:mod:`~farl_agents.opponents.connect_four.solver`): the key is
``min(cur + mask, mirror(cur) + mirror(mask))``
(:func:`~farl_agents.opponents.connect_four.bitboard.canonical_key`) so a
position and its mirror image share one entry.  Stored as an ``.npz`` with
``keys`` (sorted ``uint64``) and ``scores`` (``int8``) plus metadata (see
``solver.save_book``).

Building every position up to ply k is far too slow here (there are 4,263
positions at ply 5 and 1.6 million at ply 10, each costing seconds to
minutes), so ``build_book`` stores the positions a perfect player actually
meets when it faces *any* opponent, ply by ply ("book nodes"):

* the perfect player moves first: the empty board, then after each of its
  best moves (all of them, since AB randomises among them) every reply of
  the opponent;
* the perfect player moves second: every first move of the opponent, then
  likewise.
* When a book node is lost, the perfect side is expanded by its
  loss-delaying moves only (AB-DL's choice; AB itself then plays at random
  and needs only the sign, which the book gives for the node itself) --
  except at plies up to ``lost_all_until``, where every move is followed:
  a random opponent often gives a lost AB the game back, and AB then needs
  exact answers again.

For every book node the book holds the node's score and the exact score of
each of its children (the full ``analyze`` of the node), so AB, AB-DL and
the opening rule of Thill et al. 2014 are all answered from the book there.
Positions outside the book are searched by the players (see
:mod:`~farl_agents.opponents.connect_four.players`).

The evaluation of Thill, Bagheri, Koch & Konen 2014 (farl's ``c4-seed002``
protocol) needs a second tree: there the perfect player moves
second and, for its first moves, picks at random among *every* move that
keeps at least a draw (or, when lost, delays the loss by >= 12 plies), not
only among the best ones.  ``expand="keep"`` grows the tree along that rule
(with ``start`` = one first move); without it a weak learner leads the
perfect player out of the book at ply 3-5, where every move costs seconds.

Building
--------
``python -m farl_agents.opponents.connect_four.book build --max-ply 9 --lost-all-until 1``
(or ``build_book(9, path, lost_all_until=1)``) rebuilds the packaged book;
``--resume`` extends an existing file, ``--time-budget`` stops cleanly
after the current node, ``--shard I/K`` splits the last ply between K
processes (each on its own copy of the book) and ``merge`` joins their
files; ``verify`` re-solves a random sample.  Each node finished is saved
within five minutes, so a build may be stopped at any time and resumed.
The opening rule's tree is added with one build per first move (5-7 are
mirror images of 3-1 and share their entries)::

    for o in 1 2 3 4; do
      python -m farl_agents.opponents.connect_four.book build --expand keep --start $o --max-ply 5 --resume
    done

The packaged book (``farl_agents/opponents/data/c4_book.npz``, 532 kB, 201,471 exact scores) is
complete through ply 9:

* plies 0-6: 733 nodes; ply 7: the perfect second player's 2,831 nodes;
  ply 8: the perfect first player's 1,898 nodes;
* ``--lost-all-until 1``: the second player, lost after the centre opening,
  followed with every move (17 more ply-3 nodes and their subtrees through
  ply 7; 6,323 nodes through ply 8 in all);
* ply 9: all 24,051 nodes of the perfect second player (two shards: 65 and
  90 minutes, then 53 and 42 more with the faster table of 2026-11-23);
* the opening rule's tree (``--expand keep``) through ply 5 below every first
  move (1,711 ply-5 nodes; ~65 minutes with ply 3, sharing two cores with
  other builds), and at ply 7 below the centre opening 4,575 of its 4,764
  nodes and below column 3 1,224 of 4,977 (budgeted runs, 34 minutes).

Times on a shared 2-core machine with a 1 GiB table: ~8 CPU minutes for
the empty board, 2-13 minutes per ply-1 node, then faster as the table
warmed (ply 2-4: seconds to minutes per node), hours for ply 5, 28 minutes
for the 273 ply-6 nodes, 1-5 s per ply-7 node, ~0.5 s per ply-8 node
(15 minutes), 27 minutes for the lost-node subtrees, ~0.6 s per ply-9
node (~0.35 s with the faster table).  Checked with a book-free solver:
``verify --min-ply 8 --sample 300 --seed 5`` (ply-8 entries, before ply 8
was expanded), ``--min-ply 9 --sample 100 --seed 7``, ``--min-ply 10
--sample 200`` with seeds 11, 13 and 17, and 8 new entries of each ply
3-10 after the opening rule's tree was added: no mismatch.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Optional

import numpy as np

from farl_agents.opponents.connect_four.bitboard import (
    COL_BITS,
    H1,
    N_CELLS,
    canonical_key,
    legal_columns,
    position_from_key,
    position_from_moves,
    possible_moves,
    win_spots,
)
from farl_agents.opponents.connect_four.solver import (
    DEFAULT_BOOK_PATH,
    Solver,
    load_book,
    loss_delay,
    save_book,
)


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------
def _children(cur: int, mask: int):
    """``(col, child_cur, child_mask, wins)`` for each legal column."""
    wins = win_spots(cur, mask) & possible_moves(mask)
    for c in legal_columns(mask):
        mv = possible_moves(mask) & (COL_BITS << (H1 * c))
        yield c, cur ^ mask, mask | mv, bool(wins & mv)


def build_book(max_ply: int, path=DEFAULT_BOOK_PATH, progress: bool = True,
               time_budget: Optional[float] = None, tt_entries: int = 1 << 27,
               start: Optional[str] = None, expand: str = "best",
               resume: bool = False, lost_all_until: int = -1,
               shard: tuple[int, int] = (0, 1)) -> dict:
    """Build the book of perfect-player nodes up to ``max_ply`` (see the
    module docstring) and save it to ``path``.

    ``expand`` says which moves of the perfect side lead to further nodes:
    ``"best"`` (AB / AB-DL: the best-scoring moves) or ``"keep"`` (the
    opening rule of Thill et al. 2014: every move scoring >= 0, or when there is none
    every move whose loss is >= 12 plies away, or else the longest-delaying
    ones); "keep" trees are several times larger.

    ``lost_all_until=k`` also expands lost book nodes with at most ``k``
    discs by *every* move, not only the loss-delaying ones: AB plays a
    random move when lost, and a random opponent often blunders the win
    back, after which AB needs exact answers again (``k=1`` covers the
    second player after the centre opening).

    ``resume=True`` first loads the book already at ``path``: its entries are
    not solved again, so a bigger ``max_ply`` or budget extends an earlier
    (possibly interrupted) build.

    ``shard=(i, k)`` splits the work of the last ply (``max_ply``) between
    ``k`` processes: this one solves only every k-th node of that ply,
    starting at the i-th (earlier plies are processed whole, so run the
    shards with ``resume=True`` on copies of a book already complete below
    ``max_ply``, each with its own ``path``); ``merge_books`` then joins the
    shard files.

    ``start`` (a move string) builds only the tree below that position, with
    its mover as the perfect side (handy for tests and for extending the book
    under one opening); by default both trees from the empty board are built.

    Nodes are processed ply by ply; the file is rewritten (atomically) after
    every complete ply and every five minutes within a ply, so an interrupted
    or killed build keeps nearly all of its work (``resume=True`` continues).  With
    ``time_budget`` (seconds) no new ply is started once the budget is spent.
    A ply cut short by the budget keeps its finished nodes (every entry is
    exact either way; ``complete_ply`` in the file records the last full ply).
    ``tt_entries`` sizes the solver's transposition table (int64 each; the
    default 2**27 is 1 GiB and lets the proofs of one node speed up the
    next).  Returns statistics.
    """
    solver = Solver(tt_entries=tt_entries, book=False)
    table: dict[int, int] = {}
    earlier_seconds = 0.0
    if resume and os.path.exists(path):
        keys, vals, _ = load_book(path)
        table.update(zip((int(k) for k in keys), (int(v) for v in vals)))
        with np.load(path) as z:
            if "build_seconds" in z.files:
                earlier_seconds = float(z["build_seconds"])
    t0 = time.time()
    # frontier: canonical key -> (cur, mask) of book nodes at the current ply
    if start is None:
        first = 0
        frontier = {0: {canonical_key(0, 0): (0, 0)}, 1: {}}
        for _col, cc, cm, _win in _children(0, 0):  # perfect player second
            frontier[1][canonical_key(cc, cm)] = (cc, cm)
    else:
        scur, smask, first = position_from_moves(start)
        frontier = {first: {canonical_key(scur, smask): (scur, smask)}}
    done_ply = -1
    if expand not in ("best", "keep"):
        raise ValueError(f"expand must be 'best' or 'keep', got {expand!r}")
    shard_i, shard_k = (int(x) for x in shard)
    if not 0 <= shard_i < shard_k:
        raise ValueError(f"shard must be (i, k) with 0 <= i < k, got {shard!r}")
    stats = {"nodes": 0, "entries": 0, "seconds": 0.0, "complete_ply": -1}
    last_save, save_every = time.time(), 300.0

    def save(max_ply_now: int) -> None:
        save_book(path, table, max_ply=max_ply_now, complete_ply=done_ply,
                  build_seconds=earlier_seconds + time.time() - t0, expand=expand,
                  shard=(shard_i, shard_k))
    for ply in range(first, max_ply + 1):
        if time_budget is not None and time.time() - t0 > time_budget:
            break
        nodes = frontier.pop(ply, {})
        nxt = frontier.setdefault(ply + 2, {})
        complete = True
        todo = sorted(nodes)
        if ply == max_ply:
            todo = todo[shard_i::shard_k]
        for i, key in enumerate(todo):
            if time_budget is not None and time.time() - t0 > time_budget:
                complete = False  # keep the finished nodes of this ply
                break
            cur, mask = nodes[key]
            if ply >= N_CELLS:
                continue
            scores = {}
            wins = set()
            children = {}
            for c, cc, cm, win in _children(cur, mask):
                children[c] = (cc, cm)
                if win:
                    scores[c] = (43 - ply) // 2
                    wins.add(c)
                    continue
                ck = canonical_key(cc, cm)
                if ck not in table:
                    table[ck] = solver.score(cc, cm, ply + 1)
                scores[c] = -table[ck]
            v = max(scores.values())
            table[key] = v
            stats["nodes"] += 1
            if ply + 2 <= max_ply:
                if expand == "keep":
                    played = [c for c in scores if scores[c] >= 0]
                    if not played:
                        played = [c for c in scores if loss_delay(scores[c], ply) >= 12]
                    if not played:
                        played = [c for c in scores if scores[c] == v]
                elif v < 0 and ply <= lost_all_until:
                    played = list(scores)
                else:
                    played = [c for c in scores if scores[c] == v]
                for c in played:
                    if c in wins:
                        continue  # the game ends there
                    ccur, cmask = children[c]
                    for _, gc, gm, rwin in _children(ccur, cmask):
                        if not rwin:
                            nxt[canonical_key(gc, gm)] = (gc, gm)
            if time.time() - last_save > save_every:  # an interrupted build keeps its finished nodes
                save(ply + 1)
                last_save = time.time()
            if progress:
                print(f"[c4-book] ply {ply}: node {i + 1}/{len(todo)} "
                      f"v={v:+d} entries={len(table)} "
                      f"{time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        if complete:
            done_ply = ply
        stats.update(entries=len(table), seconds=time.time() - t0, complete_ply=done_ply)
        save(ply + 1)
        if progress:
            print(f"[c4-book] ply {ply} {'complete' if complete else 'partial'}: "
                  f"{len(todo)} nodes, {len(table)} "
                  f"entries, {stats['seconds']:.0f}s, saved to {path}",
                  file=sys.stderr, flush=True)
    return stats


def merge_books(out, paths) -> dict:
    """Join book files (e.g. the shards of one build) into ``out``.

    Every entry is exact, so the union is a valid book; an entry stored with
    two different scores raises ``ValueError``.  ``complete_ply`` of the
    result is the deepest ply some input covers on its own, where the shards
    of one build count together: their last ply is covered when all of them
    are present and finished.
    """
    if not paths:
        raise ValueError("nothing to merge")
    table: dict[int, int] = {}
    max_ply, seconds, expand = -1, 0.0, "best"
    covered: list[int] = []
    groups: dict[int, dict[int, int]] = {}  # k -> {i: complete_ply}
    for p in paths:
        keys, vals, mp = load_book(p)
        for k, v in zip(keys.tolist(), vals.tolist()):
            if table.setdefault(k, v) != v:
                raise ValueError(f"{p}: position {k} scored {v}, elsewhere {table[k]}")
        max_ply = max(max_ply, mp)
        with np.load(p) as z:
            cp = int(z["complete_ply"]) if "complete_ply" in z.files else mp - 1
            i, k = (int(x) for x in z["shard"]) if "shard" in z.files else (0, 1)
            seconds = max(seconds, float(z["build_seconds"])) if "build_seconds" in z.files else seconds
            expand = str(z["expand"]) if "expand" in z.files else expand
        if k == 1:
            covered.append(cp)
        else:
            groups.setdefault(k, {})[i] = cp
    for k, got in groups.items():
        low = min(got.values())
        covered.append(low if len(got) == k else low - 1)
    complete = max(covered)
    save_book(out, table, max_ply=max_ply, complete_ply=complete, build_seconds=seconds,
              expand=expand)
    return {"entries": len(table), "max_ply": max_ply, "complete_ply": complete}


def verify_book(path=DEFAULT_BOOK_PATH, sample: int = 20, seed: int = 0,
                min_ply: int = 0, tt_entries: int = 1 << 24) -> dict:
    """Re-solve ``sample`` random entries with a fresh solver that does not
    use the book and compare.  Entries below ``min_ply`` are skipped (they
    can take minutes each).  Returns ``{"checked", "mismatches"}`` where
    ``mismatches`` lists ``(key, stored, recomputed)``."""
    keys, scores, _ = load_book(path)
    plies = np.array([bin(int(position_from_key(int(k))[1])).count("1") for k in keys])
    idx = np.flatnonzero(plies >= min_ply)
    rng = np.random.default_rng(seed)
    pick = rng.choice(idx, size=min(sample, idx.size), replace=False) if idx.size else idx
    solver = Solver(tt_entries=tt_entries, book=False)
    bad = []
    for i in pick:
        cur, mask, n = position_from_key(int(keys[i]))
        v = solver.score(cur, mask, n)
        if v != int(scores[i]):
            bad.append((int(keys[i]), int(scores[i]), v))
    return {"checked": int(len(pick)), "mismatches": bad}


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m farl_agents.opponents.connect_four.book",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the book")
    b.add_argument("--max-ply", type=int, default=4,
                   help="expand book nodes up to this many discs on the board (default 4)")
    b.add_argument("--path", default=DEFAULT_BOOK_PATH, help="book file (default: the packaged one)")
    b.add_argument("--time-budget", type=float, default=None,
                   help="seconds; stop cleanly after the node in progress (resume later with --resume)")
    b.add_argument("--tt-entries", type=int, default=1 << 27,
                   help="transposition-table entries, 8 bytes each (default 2**27: 1 GiB)")
    b.add_argument("--expand", choices=("best", "keep"), default="best",
                   help="best: the perfect side's best (or loss-delaying) moves, as AB and AB-DL play; "
                        "keep: every move the opening rule of Thill et al. 2014 may pick")
    b.add_argument("--lost-all-until", type=int, default=-1, metavar="K",
                   help="expand lost nodes with at most K discs by every move (AB's random move when "
                        "lost), not only the loss-delaying ones (default -1: never)")
    b.add_argument("--start", default=None, help="build below this move string only")
    b.add_argument("--resume", action="store_true", help="extend the book at --path")
    b.add_argument("--shard", default="0/1", metavar="I/K",
                   help="solve only every K-th node of the last ply, from the I-th (run K processes "
                        "on copies of the book, then merge them; default 0/1: all)")
    m = sub.add_parser("merge", help="join book files (e.g. the shards of one build)")
    m.add_argument("--out", required=True, help="merged book file")
    m.add_argument("inputs", nargs="+", help="book files to join")
    v = sub.add_parser("verify", help="re-solve a random sample of entries")
    v.add_argument("--path", default=DEFAULT_BOOK_PATH, help="book file (default: the packaged one)")
    v.add_argument("--sample", type=int, default=20, help="entries to re-solve (default 20)")
    v.add_argument("--min-ply", type=int, default=0, help="sample only positions with at least this many discs")
    v.add_argument("--seed", type=int, default=0, help="seed of the sample")
    a = ap.parse_args(argv)
    if a.cmd == "build":
        try:
            shard = tuple(int(x) for x in a.shard.split("/"))
            if len(shard) != 2:
                raise ValueError
        except ValueError:
            ap.error(f"--shard must look like I/K (e.g. 0/2), got {a.shard!r}")
        print(build_book(a.max_ply, a.path, True, a.time_budget, a.tt_entries,
                         a.start, a.expand, a.resume, a.lost_all_until, shard))
    elif a.cmd == "merge":
        print(merge_books(a.out, a.inputs))
    else:
        r = verify_book(a.path, a.sample, a.seed, a.min_ply)
        print(r)
        return 1 if r["mismatches"] else 0
    return 0


if __name__ == "__main__":
    sys.exit(_main())
