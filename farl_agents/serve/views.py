"""What the page needs to draw a game and to let a person move on the board, computed from the game's own rules.

The page (``static/app.js``) keeps no rules. For every game it gets from here

* a **layout** (:func:`layout`): where each board cell sits (cell units, x right,
  y down), the cell shape (``square``, ``hex``, ``hole``, or ``graph``: Sim's
  edges between vertices on a circle) and decorations (Surakarta's circuits,
  Outer-Open Gomoku's outer band);
* the **pieces** of a position (:func:`pieces`): per cell the owner seat, the
  kind (``disc``, ``queen``, ``arrow``, ``worker``, ``cube``), a label (a
  cube's number) and a height (Santorini's levels, 4 = dome);
* the **clicks of each legal action** (:func:`action_paths`): the cells a
  person clicks in order (from, to, build ...), as one or more orders; an
  action without cells (a pass) becomes a button;
* the seats' colours, who is out (``GameSpec.eliminated``) and EinStein's die;
* in a game with hidden information (``GameSpec.hidden_information``: Kuhn poker, poker),
  what the person at the table may see (:func:`visible_seats`, :func:`private`):
  the page's text, n-tuple board, picture and pieces show the cards of the
  person's own seat only while the hand runs; every card once it is over (a
  showdown for all, a fold included: the page's choice); all of them when only
  agents play (a spectator); none when several people share the screen.

The clicks come from the game's kernel: a placement game's action is its
cell; a move game's action is played on a copy of the state with the game's
``afterstate`` and read back as the square its piece left and the square it
reached (the same diff for any new game, so it gets a clickable board
without code here); games whose action is not a move of one piece say so
below (Santorini's worker, move and build; Sim's edges).

Why here and not on :class:`~farl_envs.core.spec.GameSpec`: a layout, piece
kinds and click orders are a browser's business, and the spec's fields are
what the kernels and learners read; the decodings below are code (farl_envs
must not import the page's layer), and they read the games' own tables
(Santorini's ``NEIGHBOUR`` and ``PAIRS``, Sim's ``edge_list``, the star's and
the hexagon's coordinates), so no rule is written twice. The spec keeps its
``view`` name (the six games with their own drawings), and a game without an
entry here gets the default (its grid and the afterstate diff). Adding a
game's drawing touches this module only, never the app's routes or sessions.
"""
from __future__ import annotations

import math

import numpy as np

from farl_envs.core.spec import HEADER, TERMINAL, GameSpec

SEAT_COLOURS = ((200, 40, 40), (40, 80, 200), (230, 170, 30), (40, 160, 60), (150, 60, 190), (40, 190, 200))
"""A seat's colour where its pieces have no colour of their own (Sim's edges, the seat list)."""

DRAWN = ("tictactoe", "connect_four", "othello", "hex", "nim", "nim3p", "game2048")
"""Games the page draws with its own code (``GameSpec.view``); the rest use the cell board below."""


def _rgb(c) -> str:
    return f"rgb({int(c[0])},{int(c[1])},{int(c[2])})"


def board_cells(g: GameSpec, s: np.ndarray) -> np.ndarray:
    """The n-tuple board of ``s`` (``int32[n_cells]``)."""
    out = np.zeros(g.n_cells, dtype=np.int32)
    g.board(g.p, s, out)
    return out


def seat_colours(g: GameSpec) -> list[str]:
    """Each seat's colour on the page: the colour of its pieces (the game's ``cell_colors``), or of its marks."""
    own = {"othello": ["rgb(21,21,21)", "rgb(242,242,242)"], "connect_four": ["#d22", "#f0c020"]}
    if g.name in own:
        return own[g.name]
    if g.name == "santorini":
        from farl_envs.games.santorini import WORKER_BASE
        return [_rgb(g.cell_colors[WORKER_BASE[q]]) for q in range(2)]
    if g.name == "einstein_wurfelt_nicht":
        k = int(g.p[2])
        return [_rgb(g.cell_colors[1 + q * k]) for q in range(g.n_players)]
    if g.name == "chinese_checkers":
        return [_rgb(g.cell_colors[3 + q]) for q in range(g.n_players)]
    if g.name in DRAWN or g.name in ("sim", "poker") or len(g.cell_colors) <= g.n_players:
        return [_rgb(c) for c in SEAT_COLOURS[:g.n_players]]
    return [_rgb(g.cell_colors[1 + q]) for q in range(g.n_players)]


# ---------------------------------------------------------------------------------------------------- layout
def layout(g: GameSpec) -> dict | None:
    """Where the cells are drawn (see the module docstring); None for the games drawn by their own code."""
    if g.name in DRAWN:
        return None
    colours = [_rgb(c) for c in g.cell_colors]
    if g.name == "sim":
        from farl_envs.games.sim import edge_list
        n = int(g.params["nodes"])
        nodes = [[round(math.sin(2 * math.pi * i / n), 4), round(-math.cos(2 * math.pi * i / n), 4)]
                 for i in range(n)]
        return {"kind": "graph", "nodes": nodes, "edges": [list(e) for e in edge_list(n)], "node_base": g.n_cells,
                "cells": [[(nodes[i][0] + nodes[j][0]) / 2, (nodes[i][1] + nodes[j][1]) / 2]
                          for i, j in edge_list(n)], "colours": colours}
    if g.name == "yavalath":
        from farl_envs.games._yavalath_board import cell_coords
        cells = [[c + r / 2, r * math.sqrt(3) / 2] for r, c in cell_coords(int(g.params["size"]))]
        return {"kind": "hex", "cells": _shift(cells), "colours": colours}
    if g.name == "rubiks_cube":  # the stickers in the cube's net (U over L F R B over D); twists are buttons
        from farl_envs.games._rubiks_cube_board import net_cells
        return {"kind": "square", "cells": net_cells(int(g.params["size"])), "colours": colours}
    if g.name == "chinese_checkers":
        from farl_envs.games._chinese_checkers_board import COL, ROW
        cells = [[int(c) / 2, int(r) * math.sqrt(3) / 2] for r, c in zip(ROW, COL)]
        return {"kind": "hole", "cells": _shift(cells), "colours": colours}
    if g.name == "kuhn_poker":  # one row per seat: its card, its first and its second action; bets are buttons
        return {"kind": "square", "cells": [[c, q] for q in range(g.n_players) for c in range(3)],
                "colours": colours}
    if g.name == "poker":  # player_0's cards, stack and pot chips; the board; player_1's; every action a button
        return {"kind": "square", "cells": [[c, r] for r in range(3) for c in range(5)], "colours": colours}
    if g.name == "blackjack":  # a row for the dealer's cards and one per hand (a label, then the cards); buttons
        return {"kind": "square", "cells": [[c, r] for r in range(3) for c in range(BLACKJACK_COLUMNS)],
                "colours": colours}
    if len(g.grid_shape) != 2 or g.grid_shape[0] * g.grid_shape[1] != g.n_cells:
        return None  # nothing to place cells with: the page shows the game's text and move buttons
    rows, cols = g.grid_shape
    dy = math.sqrt(3) / 2 if g.hex_grid else 1
    flip = g.name == "lines_of_action"  # as the game draws itself (its paint): rank 8 at the top
    out = {"kind": "hex" if g.hex_grid else "square", "rows": rows, "cols": cols, "colours": colours,
           "cells": [[c + (r / 2 if g.hex_grid else 0), (rows - 1 - r if flip else r) * dy]
                     for r in range(rows) for c in range(cols)],
           "checker": g.name in ("breakthrough", "clobber", "lines_of_action", "amazons", "einstein_wurfelt_nicht"),
           "files": "abcdefghijklmnopqrstuvwxyz"[:cols]}
    if g.name == "outer_open_gomoku":
        out["stones"] = True  # stones on the intersections of a go board
        out["band"] = [2, rows - 3]  # the first stone goes outside the inner square of rows/cols 2..size-3
    if g.name == "surakarta":
        from farl_envs.games.surakarta import CIRCUITS, SIZE
        out["circuits"] = [[1, SIZE - 2], [2, SIZE - 3]]  # the lines (row = column index) of each circuit
        out["circuit_cells"] = CIRCUITS.tolist()
    return out


def _shift(cells: list) -> list:
    """Cells moved so the smallest x and y are 0."""
    x0 = min(c[0] for c in cells)
    y0 = min(c[1] for c in cells)
    return [[round(x - x0, 4), round(y - y0, 4)] for x, y in cells]


# ---------------------------------------------------------------------------------------------------- pieces
def pieces(g: GameSpec, s: np.ndarray, visible: tuple | None = None) -> list[dict] | None:
    """Per cell what stands on it (see the module docstring); None for the games drawn by their own code.
    ``visible``: the seats whose hidden cards are shown (None: all; :func:`visible_seats`)."""
    if g.name in DRAWN or layout(g) is None:
        return None
    if g.name == "kuhn_poker":  # a card face up ("?" when hidden from the viewer), then "pass" / "bet"
        grid = _kuhn_paint(g, s, visible)
        out = []
        for q in range(g.n_players):
            card = int(grid[q, 0])
            out.append({"owner": q, "kind": "cube", "label": "JQKA"[card - 3] if card else "?",
                        "fill": _rgb(g.cell_colors[card])})
            out += [{} if v == 0 else {"owner": q, "kind": "cube", "label": g.action_names[v - 1],
                                       "fill": _rgb(g.cell_colors[v])} for v in grid[q, 1:].tolist()]
        return out
    if g.name == "blackjack":
        return _blackjack_pieces(g, s)
    if g.name == "poker":
        return _poker_pieces(g, s, visible)
    b = board_cells(g, s)
    if g.name == "santorini":
        from farl_envs.games.santorini import DOME, WORKER_BASE
        out = []
        for v in b.tolist():
            if v <= DOME:
                out.append({"height": v})
            else:
                q = 0 if v < WORKER_BASE[1] else 1
                out.append({"height": v - WORKER_BASE[q], "owner": q, "kind": "worker"})
        return out
    if g.name == "einstein_wurfelt_nicht":
        k = int(g.p[2])
        n = int(g.params["size"])
        codes = np.asarray(g.paint(g.p, s)).reshape(n * n)
        return [{} if v == 0 else {"owner": (v - 1) // k, "kind": "cube", "label": str((v - 1) % k + 1),
                                   "fill": _rgb(g.cell_colors[v])} for v in codes.tolist()]
    if g.name == "rubiks_cube":  # each sticker in its face's colour (paint's index 1 + colour, on the net)
        from farl_envs.games._rubiks_cube_board import net_cells
        grid = g.paint(g.p, s)
        return [{"kind": "cube", "fill": _rgb(g.cell_colors[int(grid[y, x])])}
                for x, y in net_cells(int(g.params["size"]))]
    if g.name == "amazons":
        return [{} if v == 0 else ({"owner": v - 1, "kind": "queen"} if v in (1, 2)
                                   else ({"kind": "arrow"} if v == 3 else {"kind": "left"})) for v in b.tolist()]
    colours = g.cell_colors
    shift = 2 if g.name == "chinese_checkers" else 0  # its colours are those of its paint: pegs from 3 on
    return [{} if v == 0 else {"owner": v - 1, "kind": "disc",
                               "fill": _rgb(colours[v + shift]) if v + shift < len(colours) else None}
            for v in b.tolist()]


BLACKJACK_COLUMNS = 10
"""Blackjack's rows: a label and up to nine cards (a longer hand shows its first eight and "+k")."""


def _blackjack_pieces(g: GameSpec, s: np.ndarray) -> list[dict]:
    """Blackjack's table as text on tiles: "D" and the dealer's cards (a "?" for the face-down card while it is
    hidden), then each hand's total (or "bust") and its cards; the hand to play has a gold total."""
    from farl_envs.games import blackjack as bj
    rows = []
    dealer = [bj.CARD_NAMES[c] for c in bj.dealer_cards(s)]
    rows.append(("D", dealer + (["?"] if len(dealer) == 1 else []), (122, 31, 31)))
    for h in range(1 + int(s[bj.SPLIT_DONE])):
        playing = int(s[bj.PHASE]) == bj.ACT and int(s[bj.ACTIVE]) == h
        total = int(bj.hand_total(s, h))
        label = "bust" if total > 21 else str(total)
        fill = (200, 155, 30) if playing else (31, 90, 46)
        rows.append((label, [bj.CARD_NAMES[c] for c in bj.hand_cards(s, h)], fill))
    out: list[dict] = []
    for r in range(3):
        cells: list[dict] = [{} for _ in range(BLACKJACK_COLUMNS)]
        if r < len(rows):
            label, cards, fill = rows[r]
            if len(cards) > BLACKJACK_COLUMNS - 1:
                cards = cards[:BLACKJACK_COLUMNS - 2] + [f"+{len(cards) - BLACKJACK_COLUMNS + 2}"]
            cells[0] = {"kind": "cube", "label": label, "fill": _rgb(fill)}
            for k, c in enumerate(cards):
                cells[1 + k] = {"kind": "cube", "label": c, "fill": _rgb((244, 241, 232))}
        out += cells
    return out


CARD_BACK = (120, 120, 120)
"""The fill of a card hidden from the person at the table."""


def _poker_pieces(g: GameSpec, s: np.ndarray, visible: tuple | None) -> list[dict]:
    """Poker's table (three rows of five tiles): a seat's two hole cards (\"?\" when hidden from the viewer), its
    stack and its chips in the pot (\"+k\"); the board between the seats' rows. Cards are filled by suit."""
    from farl_envs.games import poker as pk
    out: list[dict] = []
    for seat in (0, None, 1):
        cells: list[dict] = [{} for _ in range(5)]
        cards = pk.board_cards(s) if seat is None else pk.hole_cards(s, seat)
        hidden = seat is not None and visible is not None and seat not in visible
        for k, c in enumerate(cards):
            cells[k] = {"kind": "cube", "label": "?" if hidden else pk.card_name(c),
                        "fill": _rgb(CARD_BACK if hidden else g.cell_colors[1 + (c & 3)])}
        if seat is not None:
            for k in range(2):
                cells[k]["owner"] = seat
            felt = _rgb(g.cell_colors[0])
            cells[3] = {"owner": seat, "kind": "cube", "label": str(int(s[pk.CHIPS + seat])), "fill": felt}
            cells[4] = {"owner": seat, "kind": "cube", "label": f"+{int(s[pk.CONTRIB + seat])}", "fill": felt}
        out += cells
    return out


# ---------------------------------------------------------------------------------------------------- clicks
def is_placement(g: GameSpec) -> bool:
    """Action ``a < n_cells`` puts something on board cell ``a`` (the games of one click per action)."""
    return g.n_actions in (g.n_cells, g.n_cells + 1) and g.name not in ("nim", "nim3p", "game2048")


def action_paths(g: GameSpec, s: np.ndarray, legal: list[int]) -> dict[int, list[list[int]]]:
    """For each legal action of ``s``: the orders in which a person may click its cells (``[]``: a button)."""
    if g.name in DRAWN or layout(g) is None:
        return {a: [] for a in legal}
    if g.name == "santorini":
        return {a: _santorini_paths(a) for a in legal}
    if g.name in ("rubiks_cube", "kuhn_poker", "blackjack", "poker"):  # a twist moves a layer, a bet no cell
        return {a: [] for a in legal}
    if g.name == "sim":  # an edge: click it, or its two vertices (cells n_cells + vertex) in either order
        from farl_envs.games.sim import edge_list
        m, ends = g.n_cells, edge_list(int(g.params["nodes"]))
        return {a: [[a], [m + ends[a][0], m + ends[a][1]], [m + ends[a][1], m + ends[a][0]]] for a in legal}
    if is_placement(g):
        return {a: ([[a]] if a < g.n_cells else []) for a in legal}
    before = _picture(g, s)
    after = np.empty_like(s)
    rewards = np.zeros(g.n_players)
    out = {}
    for a in legal:
        g.afterstate(g.p, s, a, after, rewards)
        out[a] = _move_of(before, _picture(g, after))
    return _unambiguous(out)


def _unambiguous(paths: dict) -> dict:
    """``paths`` with the orders that several actions share taken away (those actions become buttons), so a
    click sequence always names one move (no game of farl's has any)."""
    count: dict = {}
    for orders in paths.values():
        for order in orders:
            count[tuple(order)] = count.get(tuple(order), 0) + 1
    return {a: [o for o in orders if count[tuple(o)] == 1] for a, orders in paths.items()}


def _picture(g: GameSpec, s: np.ndarray) -> np.ndarray:
    """The cells as finely as the game tells them apart: its paint when that is one value per cell (EWN's cube
    numbers: a cube capturing one of its own side changes the cell), else the n-tuple board."""
    if g.paint is not None and g.name == "einstein_wurfelt_nicht":
        return np.asarray(g.paint(g.p, s)).reshape(-1)
    return board_cells(g, s)


def _move_of(before: np.ndarray, after: np.ndarray) -> list[list[int]]:
    """``[[from, to]]`` of a move of one piece (the cell it left empty, the cell it filled), ``[[cell]]`` of one
    new piece, else ``[]`` (a button)."""
    changed = np.flatnonzero(before != after)
    left = [int(c) for c in changed if after[c] == 0 and before[c] != 0]
    reached = [int(c) for c in changed if after[c] != 0]
    if len(left) == 1 and len(reached) == 1:
        return [[left[0], reached[0]]]
    if not left and len(reached) == 1:  # a stone put on (a game whose actions are not its cells)
        return [[reached[0]]]
    return []


def _santorini_paths(a: int) -> list[list[int]]:
    """Placement: the two cells in either order; a turn: worker, where it moves, where it builds (a winning
    move's build points back at the cell it left and builds nothing: it is the only action of its worker and
    destination, so the page plays it after two clicks)."""
    from farl_envs.games.santorini import NEIGHBOUR, PAIRS, PLACE
    if a >= PLACE:
        i, j = (int(x) for x in PAIRS[a - PLACE])
        return [[i, j], [j, i]]
    src, move_dir, build_dir = a // 64, (a // 8) % 8, a % 8
    dst = int(NEIGHBOUR[src, move_dir])
    return [[int(src), dst, int(NEIGHBOUR[dst, build_dir])]]


def move_cells(g: GameSpec, s: np.ndarray, a: int) -> list[int]:
    """The cells of action ``a`` in ``s`` (the first click order), for marking the last move."""
    paths = action_paths(g, s, [a]).get(a) or [[]]
    return paths[0]


def eliminated(g: GameSpec, s: np.ndarray) -> list[int]:
    """The seats that are out of the game in ``s``."""
    if g.eliminated is None:
        return []
    return [int(q) for q in g.eliminated(g.p, s)]


def roll(g: GameSpec, s: np.ndarray) -> int | None:
    """The die the player to move has rolled (EinStein würfelt nicht!), None in games without one."""
    if g.name != "einstein_wurfelt_nicht" or s[TERMINAL]:
        return None
    from farl_envs.games._einstein_wurfelt_nicht_board import ROLL
    return int(s[ROLL])


def describe(g: GameSpec, s: np.ndarray, legal: list[int], visible: tuple | None = None) -> dict:
    """The view's board part: layout, pieces, every legal action's click orders, seats' colours and who is out;
    ``visible`` as for :func:`pieces`."""
    paths = action_paths(g, s, legal)
    return {"layout": layout(g), "pieces": pieces(g, s, visible), "seat_colours": seat_colours(g),
            "out": eliminated(g, s), "paths": {str(a): p for a, p in paths.items()}}


# ---------------------------------------------------------------------------------------- hidden information
def visible_seats(g: GameSpec, s: np.ndarray, humans: list[int]) -> tuple | None:
    """The seats whose hidden information the page shows: None (everything) in a game without hidden
    information, once the game is over, or when no person plays (agents only: a spectator); else the seat of
    the one person at the table, or no seat when several people share the screen."""
    if not g.hidden_information or s[TERMINAL] or not humans:
        return None
    return (humans[0],) if len(humans) == 1 else ()


def _kuhn_paint(g: GameSpec, s: np.ndarray, visible: tuple | None) -> np.ndarray:
    """Kuhn poker's picture (one row per seat: card, first and second action) with the cards of the seats not
    in ``visible`` turned face down (0)."""
    grid = np.asarray(g.paint(g.p, s)).copy()
    if visible is not None:
        for q in range(g.n_players):
            if q not in visible:
                grid[q, 0] = 0
    return grid


def private(g: GameSpec, s: np.ndarray, visible: tuple | None) -> dict:
    """What replaces the page's full-state fields (``text``, ``board``, ``paint``) when the viewer may not see
    everything (``visible`` is not None; :func:`visible_seats`): the same fields with the hidden cards left out."""
    if visible is None or g.name == "blackjack":  # its text, board and picture never show the face-down card
        return {}
    if g.name == "poker":
        return _poker_private(g, s, visible)
    if g.name != "kuhn_poker":
        raise ValueError(f"{g.id} has hidden information and no private view in farl serve")
    from farl_envs.games.kuhn_poker import public_text, seat_text
    b = board_cells(g, s)
    last = int(s[HEADER + g.n_players])  # the last mover, whose card is the board's first cell
    if last not in visible:
        b[0] = 0
    text = seat_text(g.p, s, visible[0]) if len(visible) == 1 else public_text(g.p, s)
    return {"text": text, "board": b.tolist(), "paint": _kuhn_paint(g, s, visible).tolist()}


def _poker_private(g: GameSpec, s: np.ndarray, visible: tuple) -> dict:
    """Poker's text, n-tuple board and picture without the hole cards of the seats not in ``visible``."""
    from farl_envs.games import poker as pk
    b = board_cells(g, s)
    if int(s[pk.MOVER]) not in visible:
        b[0] = b[1] = 0  # the last mover's hole cards
    grid = np.asarray(g.paint(g.p, s)).copy()
    for seat, row in ((0, 0), (1, 2)):
        if seat not in visible:
            grid[row, :2] = 0
    text = pk.seat_text(g.p, s, visible[0]) if len(visible) == 1 else pk.public_text(g.p, s)
    return {"text": text, "board": b.tolist(), "paint": grid.tolist()}


__all__ = ["action_paths", "describe", "layout", "move_cells", "pieces", "private", "seat_colours", "visible_seats"]
