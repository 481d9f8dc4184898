"""Tests of the perfect Connect Four solver and players.

Expected values come from outside the solver: published facts about the
game, positions reasoned out by hand (see the comments), and a plain
brute-force minimax written here.  Early positions (ply < ~6) take the
solver seconds to minutes; the facts about them are checked through the
packaged opening book (which holds every position a perfect player meets
through ply 9), and without the book only in tests marked ``slow``.
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import farl_envs
from farl_agents.opponents.connect_four import (
    ABDLPlayer,
    ABPlayer,
    SearchAborted,
    Solver,
    analyze,
    keep_draw_opening_choice,
    legal_columns,
    loss_delay,
    position_from_board,
    position_from_moves,
    position_from_state,
    solve,
)
from farl_agents.opponents.connect_four.bitboard import (
    canonical_key,
    column_mask,
    position_from_key,
    possible_moves,
    win_spots,
)
from farl_agents.opponents.connect_four.book import build_book, merge_books, verify_book
from farl_agents.opponents.connect_four.search import NEAR_END_BUCKETS, NEAR_END_PLY
from farl_agents.opponents.connect_four.solver import DEFAULT_BOOK_PATH, load_book, save_book
from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, TO_MOVE
from farl_envs.games.connect_four import _fours as kernel_fours

# A complete drawn game (found by random play; every position in it is
# unfinished, checked by ``test_draw_game_is_legal``).  Final board, row 0 at
# the top (X = first player):
#   XXOXOOO
#   OXXOXXX
#   XOOXOXO
#   OXXOOXO
#   XOXXXOX
#   OOXOOXO
DRAWN_GAME = "666165577462463234152541333211132724554777"


@pytest.fixture(scope="module")
def solver():
    """A solver without the book (so results are searched)."""
    return Solver(tt_entries=1 << 22, book=False)


@pytest.fixture(scope="module")
def book_solver():
    """A solver with the packaged book."""
    s = Solver(tt_entries=1 << 22)
    assert s.book_size > 0, DEFAULT_BOOK_PATH
    return s


def _book_only(s: Solver, fn):
    """Run ``fn`` with a small node budget: book positions answer at once;
    a position missing from the book fails at once instead of searching for
    minutes."""
    s.set_budget(200_000)
    try:
        return fn()
    except SearchAborted:
        pytest.fail("position not in the packaged book")
    finally:
        s.set_budget(None)


def board_from_moves(moves: str) -> np.ndarray:
    """farl board (row 0 at the top, 1 = first player, 2 = second)."""
    b = np.zeros((6, 7), dtype=np.int64)
    heights = [0] * 7
    for i, ch in enumerate(moves):
        c = int(ch) - 1
        b[5 - heights[c], c] = 1 + i % 2
        heights[c] += 1
    return b


# --------------------------------------------------------------------------
# Brute force (no pruning, no table): the reference for late positions
# --------------------------------------------------------------------------
@njit
def _four(x):
    for s in (1, 7, 6, 8):
        y = x & (x >> s)
        if y & (y >> (2 * s)):
            return True
    return False


@njit
def _brute(cur, mask, n):
    """Plain minimax in the same score convention: a win by the mover's next
    disc with n discs played is worth (43 - n) // 2 (22 minus the mover's
    disc count after it), a full board 0."""
    if n == 42:
        return 0
    best = -100
    for c in range(7):
        mv = (mask + (1 << (7 * c))) & (63 << (7 * c))
        if mv:
            if _four(cur | mv):
                return (43 - n) // 2
            v = -_brute(cur ^ mask, mask | mv, n + 1)
            if v > best:
                best = v
    return best


def _random_position(rng, min_n, max_n):
    """Random unfinished position (by random play) with min_n..max_n discs."""
    while True:
        target = int(rng.integers(min_n, max_n + 1))
        moves = ""
        cur = mask = n = 0
        while n < target:
            c = int(rng.choice(legal_columns(mask)))
            mv = (mask + (1 << 7 * c)) & (127 << 7 * c)
            if _four(cur | mv):
                break
            cur, mask, n = cur ^ mask, mask | mv, n + 1
            moves += str(c + 1)
        if n == target:
            return moves, (cur, mask, n)


def test_agrees_with_brute_force(solver):
    rng = np.random.default_rng(2024)
    for _ in range(150):
        moves, (cur, mask, n) = _random_position(rng, 30, 41)  # <= 12 empty
        expected = _brute(cur, mask, n)
        assert solve(moves, solver) == expected, moves
        scores = analyze(moves, solver)
        for c in range(7):
            mv = (mask + (1 << 7 * c)) & (63 << 7 * c)
            if not mv:
                assert scores[c] is None
            elif _four(cur | mv):
                assert scores[c] == (43 - n) // 2, (moves, c)
            else:
                assert scores[c] == -_brute(cur ^ mask, mask | mv, n + 1), (moves, c)


# --------------------------------------------------------------------------
# Hand-checked positions
# --------------------------------------------------------------------------
def test_immediate_win_112233(solver):
    # X holds columns 1-3 of the bottom row, O sits on top of them; X (to
    # move, 3 discs) completes the row in column 4 with its 4th disc:
    # 22 - 4 = 18.  No faster win exists (four discs are needed).
    assert solve("112233", solver) == 18
    pos = position_from_moves("112233")
    assert solver.move_at_least(*pos, 3, 18)
    # (a full ``analyze`` would also solve the slower alternatives exactly)


def test_open_three_4455(solver):
    # X: bottom of columns 4, 5; O on top of both.  X plays 3 (or 6): an
    # open bottom-row three with both ends (2 and 6, or 3 and 7) playable;
    # O has only 2 discs, cannot win and can block one end: X wins with its
    # 4th disc -> 18.
    assert solve("4455", solver) == 18
    pos = position_from_moves("4455")
    assert solver.best_moves(*pos) == (18, [2, 5])


def test_double_threat_against_mover(solver):
    # After 44553, X has the open three 3-4-5 on the bottom row; O (to move,
    # 2 discs, no threat of its own) blocks one end, X wins at the other
    # with its 4th disc: O's score is -(22 - 4) = -18 whatever it plays.
    assert solve("44553", solver) == -18
    assert analyze("44553", solver) == [-18] * 7


def test_last_cells_draw(solver):
    # DRAWN_GAME minus its last move: only the top cell of column 7 is
    # empty; O fills it.  Row 0 reads X X O X O O _ : O's disc makes only
    # three (columns 5-7) after X in column 4; below it in column 7 is X;
    # the diagonal down-left starts with X.  So the game is a draw: 0.
    assert solve(DRAWN_GAME[:41], solver) == 0
    # One more step back: X must play column 7 (second cell from the top):
    # row 1 reads O X X O X X _ -> X gets 5-6-7 after O in 4, no four;
    # below is O; diagonals: up-left O, down-left X then O.  Then O fills the
    # last cell as above.  Draw.
    assert solve(DRAWN_GAME[:40], solver) == 0


def test_win_scores_follow_disc_count(solver):
    # Vertical threat: X has three in column 1 and it is X's turn, with 3
    # discs: an immediate win with the 4th disc, 18 ...
    assert solve("121212", solver) == 18
    # ... and the same for O: after 2121217 (X: three in column 2 and one in
    # column 7; O: three in column 1), O is to move with 3 discs and wins in
    # column 1 with its 4th: 18.
    assert solve("2121217", solver) == 18


def test_draw_game_is_legal():
    cur = mask = 0
    for i, ch in enumerate(DRAWN_GAME):
        c = int(ch) - 1
        mv = (mask + (1 << 7 * c)) & (63 << 7 * c)
        assert mv and not _four(cur | mv), i
        cur, mask = cur ^ mask, mask | mv


# --------------------------------------------------------------------------
# Facts about the opening (via the book, or slow)
# --------------------------------------------------------------------------
def test_empty_board_via_book(book_solver):
    # The first player wins, with its 21st (last) disc: score +1.
    assert _book_only(book_solver, lambda: solve("", book_solver)) == 1


def test_first_moves_via_book(book_solver):
    # Only the centre wins; published values of the 7 first moves (Allis 1988,
    # Pons' solver): edges lose fastest, columns 3 and 5 draw.
    scores = _book_only(book_solver, lambda: analyze("", book_solver))
    assert [c for c, v in enumerate(scores) if v > 0] == [3]
    assert scores == [-2, -1, 0, 1, 0, -1, -2]
    # after the centre move the second player loses (to the 21st disc)
    assert _book_only(book_solver, lambda: solve("4", book_solver)) == -1


@pytest.mark.slow
def test_first_moves_without_book():
    s = Solver(tt_entries=1 << 26, book=False)
    assert solve("4", s) == -1  # minutes of search
    assert solve("3", s) == 0
    assert solve("", s) == 1


# --------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------
@pytest.mark.parametrize("moves", ["0", "8", "4a", "4 4", "9"])
def test_bad_digits(moves):
    with pytest.raises(ValueError, match="column digit"):
        solve(moves)


def test_full_column():
    # column 1 alternates X O X O X O (no four), the 7th disc does not fit
    with pytest.raises(ValueError, match="full"):
        solve("1111111")


def test_game_over():
    with pytest.raises(ValueError, match="over"):
        solve("1212121")  # X's 4th disc in column 1 wins
    with pytest.raises(ValueError, match="wins the game"):
        solve("12121213")  # a move after that win
    with pytest.raises(ValueError, match="full"):
        solve(DRAWN_GAME)  # 42 discs: board full
    with pytest.raises(ValueError):
        analyze("1212121")


# --------------------------------------------------------------------------
# Boards
# --------------------------------------------------------------------------
def state_from_moves(moves: str) -> np.ndarray:
    """Kernel state of Connect Four 6x7 after the 1-based column digits ``moves``."""
    game = farl_envs.game_spec("connect_four")
    s = game.initial_state(game.p, make_rng(0))
    rewards = np.zeros(2)
    for ch in moves:
        game.afterstate(game.p, s, int(ch) - 1, s, rewards)
    return s


def test_board_and_state_conversions_match_moves():
    rng = np.random.default_rng(5)
    for _ in range(50):
        moves, pos = _random_position(rng, 0, 30)
        board = board_from_moves(moves)
        assert position_from_board(board, len(moves) % 2) == pos
        assert position_from_state(state_from_moves(moves)) == pos


def test_board_conversion_errors():
    # the checks are the game kernel's ``validate``; its reasons are passed on
    b = board_from_moves("4453")
    with pytest.raises(ValueError, match="player to move does not match"):
        position_from_board(b, 1)
    bad = b.copy()
    bad[5, 0] = bad[5, 1] = 1  # two extra X discs
    with pytest.raises(ValueError, match="player_0 has 4 discs and player_1 2"):
        position_from_board(bad, 0)
    bad = b.copy()
    bad[0, 6] = 1
    bad[0, 5] = 2  # floating discs at the top
    with pytest.raises(ValueError, match="floating disc"):
        position_from_board(bad, 0)
    with pytest.raises(ValueError, match="already over: a player has four in a row"):
        position_from_board(board_from_moves("1212121"), 1)
    with pytest.raises(ValueError, match="already over: the board is full"):
        position_from_board(board_from_moves(DRAWN_GAME), 0)
    with pytest.raises(ValueError, match="shape"):
        position_from_board(np.zeros((7, 6), dtype=int), 0)
    bad = b.copy()
    bad[5, 1] = 3
    with pytest.raises(ValueError, match="cells must be 0 \\(empty\\), 1"):
        position_from_board(bad, 0)
    with pytest.raises(ValueError, match="integers"):
        position_from_board(b.astype(float), 0)


def test_state_conversion_errors():
    with pytest.raises(ValueError, match="already over: a player has four in a row"):
        position_from_state(state_from_moves("1212121"))
    s = state_from_moves("4453")
    s[TO_MOVE] = 1
    with pytest.raises(ValueError, match="not a Connect Four 6x7 position: player to move"):
        position_from_state(s)
    with pytest.raises(ValueError, match="state must have length"):
        position_from_state(np.zeros(10, dtype=np.int32))


# --------------------------------------------------------------------------
# The solver's bitboard rules against the game kernel
# --------------------------------------------------------------------------
def test_bitboard_rules_agree_with_the_game_kernel():
    # The solver's own "legal move", "four in a row" and "game over"
    # (``possible_moves``, ``win_spots``) must match the kernel's
    # ``legal_actions`` and ``afterstate`` at every move of many random games.
    game = farl_envs.game_spec("connect_four")
    rng = make_rng(2025)
    legal = np.zeros(game.n_actions, dtype=np.int8)
    rewards = np.zeros(2)
    ends = {"win": 0, "draw": 0}
    for g in range(1500):
        s = game.initial_state(game.p, rng)
        cur = mask = n = 0
        while True:
            game.legal_actions(game.p, s, legal)
            assert legal_columns(mask) == np.flatnonzero(legal).tolist()
            if g < 100:  # the conversion is slower (it runs ``validate``): fewer games
                assert position_from_state(s) == (cur, mask, n)
            a = int(rng_choice_mask(rng, legal))
            mover = int(s[TO_MOVE])
            mv = possible_moves(mask) & column_mask(a)
            wins = bool(win_spots(cur, mask) & mv)
            game.afterstate(game.p, s, a, s, rewards)
            cur, mask, n = cur ^ mask, mask | mv, n + 1
            assert rewards[mover] == (1.0 if wins else 0.0), (g, n)
            assert bool(s[TERMINAL]) == (wins or n == 42), (g, n)
            if s[TERMINAL]:
                ends["win" if wins else "draw"] += 1
                break
    assert ends["win"] > 1000 and ends["draw"] > 0, ends


def test_win_spots_agree_with_the_kernel_on_every_empty_cell():
    # ``win_spots`` also marks cells that are not yet playable (the search
    # uses them for threats): a disc of the mover on any marked empty cell
    # makes four in a row by the kernel module's whole-board check (the one
    # its ``validate`` uses), and on no unmarked cell.
    rng = np.random.default_rng(17)
    for _ in range(200):
        moves, (cur, mask, n) = _random_position(rng, 6, 36)
        spots = win_spots(cur, mask)
        board = board_from_moves(moves)
        mark = 1 + n % 2
        for c in range(7):
            for h in range(6):
                bit = 1 << (7 * c + h)
                if mask & bit:
                    assert not spots & bit
                    continue
                g = board.copy()
                g[5 - h, c] = mark
                assert bool(spots & bit) == kernel_fours(g, mark), (moves, c, h)


# --------------------------------------------------------------------------
# Solver internals
# --------------------------------------------------------------------------
def test_queries_are_consistent(solver):
    rng = np.random.default_rng(11)
    for _ in range(25):
        moves, (cur, mask, n) = _random_position(rng, 16, 34)
        scores = solver.move_scores(cur, mask, n)
        v = max(s for s in scores if s is not None)
        assert solver.score(cur, mask, n) == v
        assert solver.at_least(cur, mask, n, v) and not solver.at_least(cur, mask, n, v + 1)
        bv, cols = solver.best_moves(cur, mask, n)
        assert bv == v and cols == [c for c in range(7) if scores[c] == v]
        for c in legal_columns(mask):
            assert solver.move_at_least(cur, mask, n, c, scores[c])
            assert not solver.move_at_least(cur, mask, n, c, scores[c] + 1)


def test_table_keeps_near_end_positions_in_its_small_region():
    # Every stored entry must sit in the region its disc count selects: the
    # first NEAR_END_BUCKETS buckets for positions with >= NEAR_END_PLY
    # discs, the big region after them for all others.
    s = Solver(tt_entries=1 << 16, book=False)
    s.score(*position_from_moves("4444433322"))  # ply 10: reaches both regions
    used = np.flatnonzero(s.tt != -1)
    plies = (s.tt[used] >> 7) & 63
    split = 2 * NEAR_END_BUCKETS
    assert used.size > 1000 and (used < split).any() and (used >= split).any()
    assert np.array_equal(used < split, plies >= NEAR_END_PLY)


def test_horizon_scores_nonzero_values_are_exact(solver):
    rng = np.random.default_rng(12)
    private = Solver(tt_entries=1 << 18, book=False)
    for _ in range(20):
        moves, (cur, mask, n) = _random_position(rng, 14, 30)
        exact = solver.move_scores(cur, mask, n)
        approx = private.horizon_scores(cur, mask, n, max_nodes=20_000)
        for c in range(7):
            assert (exact[c] is None) == (approx[c] is None)
            if approx[c]:
                assert approx[c] == exact[c], (moves, c)


def test_budget_abort_keeps_results_exact(solver):
    s = Solver(tt_entries=1 << 18, book=False)
    pos = position_from_moves("4444443")
    s.set_budget(1000)
    with pytest.raises(SearchAborted):
        s.score(*pos)
    s.set_budget(None)
    later = position_from_moves("44444432222255")  # still exact afterwards
    assert s.score(*later) == solver.score(*later)


def test_loss_delay_arithmetic():
    # n = 16 (first player to move, loses): score -6 means the opponent
    # (second player) wins with its 22 - 6 = 16th disc, i.e. disc 32 on the
    # board: 32 - 16 = 16 plies from now.
    assert loss_delay(-6, 16) == 16
    # n = 17 (second player to move): opponent = first player, score -18:
    # it wins with its 4th disc = 7th disc on the board ... impossible so
    # early in practice, but the arithmetic: 7 - 17 < 0; with score -1 it
    # wins with its 21st disc = disc 41: 41 - 17 = 24 plies.
    assert loss_delay(-1, 17) == 24


# --------------------------------------------------------------------------
# Players
# --------------------------------------------------------------------------
class RandomPlayer:
    name = "random"

    def choose(self, board, player, rng):
        return int(rng.choice(np.flatnonzero(board[0] == 0)))


def play(first, second, rng, moves=""):
    """Play to the end from ``moves``; returns (winner or -1, move string)."""
    board = board_from_moves(moves)
    players = (first, second)
    n = len(moves)
    cur, mask, _ = position_from_moves(moves)
    while True:
        p = n % 2
        c = players[p].choose(board.copy(), p, rng)
        assert board[0, c] == 0
        row = 5 - int(np.count_nonzero(board[:, c]))
        board[row, c] = p + 1
        mv = (mask + (1 << 7 * c)) & (63 << 7 * c)
        moves += str(c + 1)
        if _four(cur | mv):
            return p, moves
        cur, mask, n = cur ^ mask, mask | mv, n + 1
        if n == 42:
            return -1, moves


def test_first_player_never_loses_to_random():
    rng = np.random.default_rng(0)
    ab = ABPlayer()
    for _ in range(4):
        winner, moves = play(ab, RandomPlayer(), rng)
        assert winner == 0, moves


def test_first_player_beats_itself(solver):
    # Positions with >= 12 discs that are won for the first player, who is to
    # move: AB against AB must convert every one (the empty board is checked
    # in the slow test below: early exact moves take seconds).
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 3:
        moves, (cur, mask, n) = _random_position(rng, 12, 18)
        if n % 2 or solver.score(cur, mask, n) <= 0:
            continue
        winner, end = play(ABPlayer(solver), ABPlayer(solver), rng, moves)
        assert winner == 0, end
        checked += 1


def _end_ply(n: int, v: int) -> int:
    """Disc count at the end when the mover at ply n has score v != 0 and
    the winner wins as fast as possible against the longest resistance."""
    mover_first = n % 2 == 0
    k = 22 - abs(v)  # the winner's disc count after its winning disc
    winner_first = mover_first if v > 0 else not mover_first
    return 2 * k - 1 if winner_first else 2 * k


def test_perfect_play_ends_when_predicted(solver):
    # Winner AB (fastest win) against AB-DL (longest resistance): the game
    # must end exactly at the disc predicted by the score; a drawn position
    # must stay drawn between two AB players.
    rng = np.random.default_rng(7)
    done = {"win": 0, "draw": 0}
    while done["win"] < 3 or done["draw"] < 1:
        moves, (cur, mask, n) = _random_position(rng, 14, 22)
        v = solver.score(cur, mask, n)
        if v == 0 and done["draw"] < 1:
            winner, end = play(ABPlayer(solver), ABPlayer(solver), rng, moves)
            assert winner == -1, end
            done["draw"] += 1
        elif v != 0 and done["win"] < 3:
            ab, dl = ABPlayer(solver), ABDLPlayer(solver)
            pair = (ab, dl) if (v > 0) == (n % 2 == 0) else (dl, ab)
            winner, end = play(*pair, rng, moves)
            expected_winner = n % 2 if v > 0 else 1 - n % 2
            assert winner == expected_winner, end
            assert len(end) == _end_ply(n, v), (moves, v, end)
            done["win"] += 1


@pytest.mark.slow
def test_perfect_play_from_the_empty_board():
    # Known solution of Connect Four: the first player wins with its 21st disc.
    # AB (fastest win) against AB-DL (longest resistance) must therefore end
    # every game at ply 41 with a first-player win, which checks every move of
    # both players; and AB must also win against AB, whose lost side plays at
    # random (positions off the perfect line).
    rng = np.random.default_rng(11)
    shared = Solver()
    for _ in range(2):
        winner, end = play(ABPlayer(shared), ABDLPlayer(shared), rng)
        assert winner == 0 and len(end) == 41, end
    for _ in range(2):
        winner, end = play(ABPlayer(shared), ABPlayer(shared), rng)
        assert winner == 0, end


def test_ab_and_abdl_when_lost(solver):
    # First player to move and lost; column 3 delays the loss longest (-6),
    # the others lose faster.
    moves = "2213627621232556"
    scores = analyze(moves, solver)
    legal = [c for c in range(7) if scores[c] is not None]
    best = max(scores[c] for c in legal)
    assert best < 0
    longest = {c for c in legal if scores[c] == best}
    assert longest != set(legal)
    board = board_from_moves(moves)
    dl, ab = ABDLPlayer(solver), ABPlayer(solver)
    rng = np.random.default_rng(3)
    dl_moves = {dl.choose(board, 0, rng) for _ in range(30)}
    ab_moves = [ab.choose(board, 0, rng) for _ in range(60)]
    assert dl_moves <= longest
    assert set(ab_moves) <= set(legal)
    assert any(c not in longest for c in ab_moves)  # AB does not delay
    assert len(set(ab_moves)) >= 4  # uniform over 6 columns


def test_ab_randomises_among_best_moves(solver):
    # 4455: columns 3 and 6 both win with the 4th disc (open three)
    board = board_from_moves("4455")
    rng = np.random.default_rng(4)
    picks = {ABPlayer(solver).choose(board, 0, rng) for _ in range(40)}
    assert picks == {2, 5}


def test_players_depend_only_on_position_and_rng():
    # bounded (early) moves use a private, cleared table: the same rng seed
    # gives the same move whatever was searched before
    board = board_from_moves("4433")
    ab = ABPlayer()
    first = ab.choose(board, 0, np.random.default_rng(9))
    ab.choose(board_from_moves("4433256"), 1, np.random.default_rng(1))
    assert ab.choose(board, 0, np.random.default_rng(9)) == first
    assert ABPlayer().choose(board, 0, np.random.default_rng(9)) == first


def test_keep_draw_opening_choice(solver):
    rng = np.random.default_rng(8)
    # a drawn or won position: only moves keeping >= 0, and all of them
    for _ in range(20):
        moves, (cur, mask, n) = _random_position(rng, 14, 24)
        scores = solver.move_scores(cur, mask, n)
        if max(s for s in scores if s is not None) >= 0:
            break
    keep = {c for c in range(7) if scores[c] is not None and scores[c] >= 0}
    picks = {keep_draw_opening_choice(cur, mask, n, rng, solver) for _ in range(60)}
    assert picks == keep
    # a lost position: moves whose loss is >= min_delay plies away
    cur, mask, n = position_from_moves("2213627621232556")
    scores = solver.move_scores(cur, mask, n)
    legal = [c for c in range(7) if scores[c] is not None]
    delays = {c: loss_delay(scores[c], n) for c in legal}
    for min_delay in sorted(set(delays.values())):
        ok = {c for c in legal if delays[c] >= min_delay}
        picks = {keep_draw_opening_choice(cur, mask, n, rng, solver, min_delay=min_delay)
                 for _ in range(40)}
        assert picks == ok
    # nothing delays long enough: the longest-delaying moves
    top = max(delays.values())
    picks = {keep_draw_opening_choice(cur, mask, n, rng, solver, min_delay=top + 1)
             for _ in range(20)}
    assert picks == {c for c in legal if delays[c] == top}


def test_opening_plies_option_uses_the_keep_draw_rule(solver):
    # with opening_plies the player follows the opening rule before that ply
    moves = "2213627621232556"  # lost for the mover: moves with delay >= 12
    cur, mask, n = position_from_moves(moves)
    scores = solver.move_scores(cur, mask, n)
    ok = {c for c in range(7) if scores[c] is not None and loss_delay(scores[c], n) >= 12}
    p = ABPlayer(solver, opening_plies=20)
    rng = np.random.default_rng(2)
    picks = {p.choose(board_from_moves(moves), 0, rng) for _ in range(40)}
    assert picks == ok


def test_a_position_met_again_is_answered_without_the_solver(solver):
    """The player remembers a position's exact candidate columns: the second time it draws from the same set
    with the same random numbers, so it plays the same column, and asks the solver nothing."""
    moves = "2213627621232556"
    board = board_from_moves(moves)
    p = ABPlayer(solver, opening_plies=20)
    first = [p.choose(board, 0, np.random.default_rng(seed)) for seed in range(12)]

    class NoSolver:
        def __getattr__(self, name):
            raise AssertionError(f"solver.{name} called for a remembered position")

    p._solver = NoSolver()
    assert [p.choose(board, 0, np.random.default_rng(seed)) for seed in range(12)] == first
    fresh = ABPlayer(solver, opening_plies=20)
    assert [fresh.choose(board, 0, np.random.default_rng(seed)) for seed in range(12)] == first


# --------------------------------------------------------------------------
# Book
# --------------------------------------------------------------------------
def test_build_and_verify_small_book(tmp_path, solver):
    path = tmp_path / "book.npz"
    start, _ = _random_position(np.random.default_rng(10), 22, 22)
    stats = build_book(26, path, progress=False, tt_entries=1 << 20, start=start)
    assert stats["complete_ply"] == 26 and stats["entries"] > 0
    keys, vals, max_ply = load_book(path)
    assert np.all(np.diff(keys) > 0) and max_ply == 27
    assert verify_book(path, sample=20)["mismatches"] == []
    booked = Solver(tt_entries=1 << 18, book=path)
    for k in keys[:: max(1, len(keys) // 30)]:
        cur, mask, n = position_from_key(int(k))
        assert booked.score(cur, mask, n) == solver.score(cur, mask, n)


def test_position_from_key_roundtrip():
    rng = np.random.default_rng(6)
    for _ in range(50):
        moves, (cur, mask, n) = _random_position(rng, 0, 40)
        assert position_from_key(cur + mask) == (cur, mask, n)


@pytest.mark.slow
def test_packaged_book_sample():
    r = verify_book(sample=4, min_ply=4)  # ~45 s
    assert r["mismatches"] == []


def _book_nodes(path, start, solver):
    """Positions two plies below ``start`` whose every child has a book entry
    (i.e. the build expanded them as book nodes)."""
    keys = {int(k) for k in load_book(path)[0]}
    cur, mask, n = position_from_moves(start)
    found = set()
    for c in legal_columns(mask):
        for r in legal_columns(mask | (((mask + (1 << 7 * c)) & (127 << 7 * c)))):
            moves = start + str(c + 1) + str(r + 1)
            try:
                gc, gm, gn = position_from_moves(moves)
            except ValueError:  # the game ended on the way
                continue
            kids = [position_from_moves(moves + str(k + 1)) for k in legal_columns(gm)
                    if not (win_spots(gc, gm) & possible_moves(gm) & column_mask(k))]
            if kids and all(canonical_key(kc, km) in keys for kc, km, _ in kids):
                found.add(c)
    return found


def test_lost_all_until_expands_every_move_of_a_lost_node(tmp_path, solver):
    # a lost position where the moves lose at different distances: the
    # default build follows only the loss-delaying moves, lost_all_until every one
    rng = np.random.default_rng(3)
    while True:
        start, (cur, mask, n) = _random_position(rng, 24, 24)
        scores = [s for s in solver.move_scores(cur, mask, n) if s is not None]
        if max(scores) < 0 and len(set(scores)) > 1 and not any(s >= (43 - n) // 2 for s in scores):
            break
    delaying = {c for c, s in enumerate(solver.move_scores(cur, mask, n)) if s == max(scores)}
    plain, every = tmp_path / "plain.npz", tmp_path / "every.npz"
    build_book(n + 2, plain, progress=False, tt_entries=1 << 20, start=start)
    build_book(n + 2, every, progress=False, tt_entries=1 << 20, start=start, lost_all_until=n)
    legal = set(legal_columns(mask))
    assert _book_nodes(plain, start, solver) <= delaying < legal
    assert _book_nodes(every, start, solver) == legal


def test_keep_expansion_follows_every_move_the_opening_rule_may_pick(tmp_path, solver):
    # 20 discs, the mover wins: three columns keep at least a draw, one is best
    start = "13777173161171473335"
    cur, mask, n = position_from_moves(start)
    scores = solver.move_scores(cur, mask, n)
    keep = {c for c, s in enumerate(scores) if s is not None and s >= 0}
    best = {c for c, s in enumerate(scores) if s == max(x for x in scores if x is not None)}
    assert best < keep
    for expand, moves in (("best", best), ("keep", keep)):
        path = tmp_path / f"{expand}.npz"
        build_book(n + 2, path, progress=False, tt_entries=1 << 20, start=start, expand=expand)
        assert _book_nodes(path, start, solver) == moves


def test_sharded_build_merges_into_the_whole_book(tmp_path):
    start, _ = _random_position(np.random.default_rng(10), 22, 22)
    whole = tmp_path / "whole.npz"
    build_book(26, whole, progress=False, tt_entries=1 << 20, start=start)
    parts = [tmp_path / f"part{i}.npz" for i in range(3)]
    sizes = []
    for i, part in enumerate(parts):
        build_book(26, part, progress=False, tt_entries=1 << 20, start=start, shard=(i, 3))
        sizes.append(len(load_book(part)[0]))
    merged = tmp_path / "merged.npz"
    whole_keys, whole_vals, _ = load_book(whole)
    assert max(sizes) < len(whole_keys)  # each shard solved only part of the last ply
    # two of three shards: the last ply is not complete
    assert merge_books(merged, parts[:2])["complete_ply"] == 25
    stats = merge_books(merged, parts)
    keys, vals, max_ply = load_book(merged)
    assert np.array_equal(keys, whole_keys) and np.array_equal(vals, whole_vals)
    assert stats == {"entries": len(whole_keys), "max_ply": 27, "complete_ply": 26}
    # a position stored with two different scores is refused
    save_book(tmp_path / "bad.npz", {int(keys[0]): int(vals[0]) + 1}, max_ply=27)
    with pytest.raises(ValueError, match="scored"):
        merge_books(tmp_path / "m2.npz", [merged, tmp_path / "bad.npz"])
    with pytest.raises(ValueError, match="shard"):
        build_book(26, tmp_path / "x.npz", progress=False, start=start, shard=(3, 3))
