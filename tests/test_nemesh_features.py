"""Nemesh's 36 features on hand-drawn boards; every expected count was counted by hand.

Boards are drawn top row first ('.' empty, 'X' player 1, 'O' player 2) and
turned into Connect Four kernel states (heights from the drawing); the
drawings need not be reachable games. The reasoning behind each count is in
the comment above it (cells are (row, col), row 0 at the top).
"""
import numpy as np
import pytest

import farl_envs
from farl_agents.nemesh.features import FEATURE_NAMES, N_PER_PLAYER, state_features
from farl_envs.core.spec import HEADER, PLY, TO_MOVE

F = {name: i for i, name in enumerate(FEATURE_NAMES)}


def board(*rows_text):
    """(GameSpec, kernel state) for a drawing whose rows are given top first."""
    rows, cols = len(rows_text), len(rows_text[0])
    game = farl_envs.game_spec("connect_four", rows=rows, cols=cols)
    s = np.zeros(game.state_size, dtype=np.int32)
    grid = np.array([[".XO".index(ch) for ch in line] for line in rows_text], dtype=np.int32)
    s[HEADER + cols:] = grid.ravel()
    s[HEADER:HEADER + cols] = (grid != 0).sum(axis=0)
    s[PLY] = int((grid != 0).sum())
    s[TO_MOVE] = s[PLY] % 2
    return game, s


def counts(drawing, player):
    """The 18 counts of ``player`` (1 = X, 2 = O) as a name -> count dict."""
    game, s = board(*drawing)
    f = state_features(game, s)
    own = f[(player - 1) * N_PER_PLAYER: player * N_PER_PLAYER]
    return {name: int(own[i]) for i, name in enumerate(FEATURE_NAMES)}


def only(**nonzero):
    """A full 18-count dict: the given counts, zeros elsewhere."""
    out = {name: 0 for name in FEATURE_NAMES}
    out.update(nonzero)
    return out


# Bottom row .XXX.OO: X's three (5,1)-(5,3) has both ends (5,0) and (5,4) empty and playable now
# -> TwoSideThreeInARow 1. Windows [0-3] ".XXX" and [1-4] "XXX." -> AllRowThrees 2 (open three twice).
# Win cells (5,0), (5,4) -> PotentialFour 2, both landing cells -> OneMoveToWin 2. O: nothing (its
# windows all hold an X, or are empty).
OPEN_THREE = (".......", ".......", ".......", ".......", ".......", ".XXX.OO")


def test_open_three_in_a_row():
    assert counts(OPEN_THREE, 1) == only(TwoSideThreeInARow=1, AllRowThrees=2, OneMoveToWin=2, PotentialFour=2)
    assert counts(OPEN_THREE, 2) == only()


def test_state_vector_is_player_1_then_player_2():
    game, s = board(*OPEN_THREE)
    f = state_features(game, s)
    assert f.shape == (36,)
    assert f[F["TwoSideThreeInARow"]] == 1 and f[18 + F["TwoSideThreeInARow"]] == 0


# Row 4 XXX. on row 5 OOXO: X's run (4,0)-(4,2) starts at the edge; its right end (4,3) lies on O's
# (5,3), so it is playable now -> OneSideThreeInARow 1; window [0-3] -> AllRowThrees 1 (no hole);
# [1-4] "XX.." has (4,4) one cell up (depth 1), so it is no TwoInARow. Win cell (4,3) is column 3's
# landing cell -> OneMoveToWin 1, PotentialFour 1.
def test_one_side_three_in_a_row():
    drawing = (".......", ".......", ".......", ".......", "XXX....", "OOXO...")
    assert counts(drawing, 1) == only(OneSideThreeInARow=1, AllRowThrees=1, OneMoveToWin=1, PotentialFour=1)


# Row 4 XXX. with (5,3) empty: the missing cell (4,3) needs one disc below it first. The run's only
# end is (4,3), not playable now -> neither TwoSide nor OneSide. AllRowThrees 1, ThreeInARowHole1 1,
# win cell (4,3) -> PotentialFour 1; column 3 lands on (5,3), not a win cell, but (4,3) above is ->
# OneMoveToWinHole 1. For O, playing column 3 lets X win on top -> O's ProhibitedMoves 1.
HOLE1 = (".......", ".......", ".......", ".......", "XXX....", "OOX.O..")


def test_three_in_a_row_with_a_hole_of_one():
    assert counts(HOLE1, 1) == only(AllRowThrees=1, ThreeInARowHole1=1, PotentialFour=1, OneMoveToWinHole=1)
    assert counts(HOLE1, 2)["ProhibitedMoves"] == 1


# Row 3 XXX. over empty column 3: (3,3) has two empty cells below -> ThreeInARowHole2 1. O's row 4
# OOO. misses (4,3), one cell up -> O's AllRowThrees 1, ThreeInARowHole1 1, and its win cell (4,3)
# sits right above column 3's landing cell (5,3): X playing column 3 lets O win ->
# X's ProhibitedMoves 1. Both have a win cell higher up in column 3 -> OneMoveToWinHole 1 each.
HOLE2 = (".......", ".......", ".......", "XXX....", "OOO....", "XOX....")


def test_three_in_a_row_with_a_hole_of_two_and_a_prohibited_move():
    x, o = counts(HOLE2, 1), counts(HOLE2, 2)
    assert (x["AllRowThrees"], x["ThreeInARowHole1"], x["ThreeInARowHole2"]) == (1, 0, 1)
    assert (x["ProhibitedMoves"], x["OneMoveToWinHole"], x["PotentialFour"], x["OneMoveToWin"]) == (1, 1, 1, 0)
    assert (o["AllRowThrees"], o["ThreeInARowHole1"], o["ThreeInARowHole2"]) == (1, 1, 0)
    assert (o["OneMoveToWinHole"], o["PotentialFour"], o["ProhibitedMoves"]) == (1, 1, 0)
    assert o["TwoSideThreeInARow"] == o["OneSideThreeInARow"] == 0  # (4,3) is not playable now


# Bottom row .XX....: windows [0-3] ".XX." and [1-4] "XX.." hold two X and two cells playable now
# -> TwoInARow 2 (decision: windows, so one pair may count more than once); [2-5] has one X.
def test_two_in_a_row():
    drawing = (".......", ".......", ".......", ".......", ".......", ".XX....")
    assert counts(drawing, 1) == only(TwoInARow=2)
    assert counts(drawing, 2) == only()


# Column 0 holds X X X from the bottom, room above -> ThreeInACol 1; the vertical window gives win
# cell (2,0), column 0's landing cell -> OneMoveToWin 1, PotentialFour 1. O's two discs in column 1
# count nothing (no column feature for two).
def test_three_in_a_column():
    drawing = (".......", ".......", ".......", "X......", "XO.....", "XO.....")
    assert counts(drawing, 1) == only(ThreeInACol=1, OneMoveToWin=1, PotentialFour=1)
    assert counts(drawing, 2) == only()


# 4x4 board, column 0 = O X X X from the bottom: the column is full -> no room, ThreeInACol 0.
def test_three_in_a_full_column_does_not_count():
    drawing = ("X...", "X...", "X...", "O...")
    assert counts(drawing, 1)["ThreeInACol"] == 0


# X's diagonal (3,2) (4,1) (5,0) runs down to the left edge; its upper end (2,3) is playable now
# (column 3 holds three discs) -> OneSideThreeInADiagonal 1, AllDiagonalThrees 1 (window (2,3)..(5,0)),
# win cell (2,3) -> OneMoveToWin 1, PotentialFour 1. O: bottom run (5,1)-(5,3) is blocked by X at
# (5,0), open at (5,4) -> OneSideThreeInARow 1, AllRowThrees 1; window [2-5] "OO.." -> TwoInARow 1;
# diagonal (3,3) (4,2) (5,1) misses (2,4), three cells up -> AllDiagonalThrees 1 but no side count
# and no hole count. O's win cells (5,4) and (2,4) -> PotentialFour 2, OneMoveToWin 1 (column 4).
DIAG_ONE_SIDE = (".......", ".......", ".......", "..XO...", ".XOX...", "XOOO...")


def test_one_side_three_in_a_diagonal():
    x, o = counts(DIAG_ONE_SIDE, 1), counts(DIAG_ONE_SIDE, 2)
    assert x == only(OneSideThreeInADiagonal=1, AllDiagonalThrees=1, OneMoveToWin=1, PotentialFour=1)
    assert (o["OneSideThreeInARow"], o["AllRowThrees"], o["TwoInARow"]) == (1, 1, 1)
    assert (o["AllDiagonalThrees"], o["OneSideThreeInADiagonal"], o["TwoSideThreeInADiagonal"]) == (1, 0, 0)
    assert (o["ThreeInADiagonalHole1"], o["ThreeInADiagonalHole2"]) == (0, 0)
    assert (o["PotentialFour"], o["OneMoveToWin"], o["OneMoveToWinHole"]) == (2, 1, 0)


# X's diagonal (2,1) (3,2) (4,3): both ends (1,0) (column 0 holds four) and (5,4) (empty column) are
# playable now -> TwoSideThreeInADiagonal 1, AllDiagonalThrees 2, win cells (1,0) and (5,4), both
# landing cells -> OneMoveToWin 2, PotentialFour 2. X's other pair (2,1) (3,0) has its window's
# empty cells deep -> TwoInADiagonal 0.
def test_two_side_three_in_a_diagonal():
    drawing = (".......", ".......", "OX.....", "XOX....", "OOOX...", "OXOO...")
    x = counts(drawing, 1)
    assert (x["TwoSideThreeInADiagonal"], x["OneSideThreeInADiagonal"], x["AllDiagonalThrees"]) == (1, 0, 2)
    assert (x["OneMoveToWin"], x["PotentialFour"], x["TwoInADiagonal"]) == (2, 2, 0)


# X at (5,0) and (4,1); the window (2,3) (3,2) (4,1) (5,0) has its two empty cells both playable now
# (column 3 holds three discs, column 2 two) -> TwoInADiagonal 1, and X has nothing else.
def test_two_in_a_diagonal():
    drawing = (".......", ".......", ".......", "...O...", ".XOX...", "XOXO...")
    assert counts(drawing, 1) == only(TwoInADiagonal=1)


# X's diagonal (3,2) (4,3) (5,4) misses (2,1); column 1 holds two discs, so (2,1) is one cell up
# -> AllDiagonalThrees 1, ThreeInADiagonalHole1 1, no side count; column 1 -> OneMoveToWinHole 1;
# O playing column 1 gives X the win -> O's ProhibitedMoves 1. Without O's (4,1) the cell is two up
# -> ThreeInADiagonalHole2 1 and O's column-1 move no longer lets X win at once.
def test_three_in_a_diagonal_with_holes():
    hole1 = (".......", ".......", ".......", "..X....", ".OOX...", ".XOOX..")
    x = counts(hole1, 1)
    assert (x["AllDiagonalThrees"], x["ThreeInADiagonalHole1"], x["ThreeInADiagonalHole2"]) == (1, 1, 0)
    assert (x["OneSideThreeInADiagonal"], x["TwoSideThreeInADiagonal"], x["OneMoveToWinHole"]) == (0, 0, 1)
    assert counts(hole1, 2)["ProhibitedMoves"] == 1
    hole2 = (".......", ".......", ".......", "..X....", "..OX...", ".XOOX..")
    x = counts(hole2, 1)
    assert (x["AllDiagonalThrees"], x["ThreeInADiagonalHole1"], x["ThreeInADiagonalHole2"]) == (1, 0, 1)
    assert counts(hole2, 2)["ProhibitedMoves"] == 0


# Rows 4 and 5 both XXX.: win cells (4,3) and (5,3) one above the other -> WinColumns 1; (5,3) is the
# landing cell -> OneMoveToWin 1 (so no OneMoveToWinHole); bottom run open at (5,3) -> OneSide 1; the
# row-4 three's end (4,3) is one up -> Hole1 1; AllRowThrees 2; bottom window [1-4] "XX.." -> TwoInARow 1.
# O (no discs) is prohibited from column 3: X would win at (4,3) on top.
def test_win_column():
    drawing = (".......", ".......", ".......", ".......", "XXX....", "XXX....")
    assert counts(drawing, 1) == only(OneSideThreeInARow=1, AllRowThrees=2, ThreeInARowHole1=1, TwoInARow=1,
                                      OneMoveToWin=1, PotentialFour=2, WinColumns=1)
    assert counts(drawing, 2) == only(ProhibitedMoves=1)


# X wins at (5,3) while O's win cell (4,3) is right above it: column 3 is X's winning move, so it is
# not prohibited for X (decision); O's column 3 lands on (5,3), not its win cell -> O's
# OneMoveToWinHole 1 and O's ProhibitedMoves 0 (the cell above is O's own win cell, not X's).
def test_a_winning_column_is_never_prohibited():
    drawing = (".......", ".......", ".......", ".......", "OOO....", "XXX....")
    x, o = counts(drawing, 1), counts(drawing, 2)
    assert (x["ProhibitedMoves"], x["OneMoveToWin"]) == (0, 1)
    assert (o["ProhibitedMoves"], o["OneMoveToWinHole"], o["OneMoveToWin"]) == (0, 1, 0)


# 4x10 board, bottom row XXX.XXX...: windows XXX., XX.X, X.XX, .XXX (all missing (3,3)) and XXX. (missing
# (3,7)) -> AllRowThrees 5; the run (3,0)-(3,2) is open only at (3,3) -> OneSide 1; the run
# (3,4)-(3,6) is open at (3,3) and (3,7) -> TwoSide 1; window [5-8] "XX.." -> TwoInARow 1; win cells
# (3,3) and (3,7), both landing cells -> OneMoveToWin 2, PotentialFour 2.
def test_a_wide_board():
    drawing = ("..........", "..........", "..........", "XXX.XXX...")
    assert counts(drawing, 1) == only(TwoSideThreeInARow=1, OneSideThreeInARow=1, AllRowThrees=5, TwoInARow=1,
                                      OneMoveToWin=2, PotentialFour=2)


def test_empty_boards_of_every_size_have_no_features():
    for rows in (4, 6, 10):
        for cols in (4, 8, 10):
            game = farl_envs.game_spec("connect_four", rows=rows, cols=cols)
            assert not state_features(game, game.initial_state(game.p, None)).any()


def test_bad_input_is_a_value_error():
    game = farl_envs.game_spec("connect_four")
    with pytest.raises(ValueError, match="length"):
        state_features(game, np.zeros(5, dtype=np.int32))
    with pytest.raises(ValueError, match="connect_four"):
        state_features(farl_envs.game_spec("tictactoe"), np.zeros(12, dtype=np.int32))
