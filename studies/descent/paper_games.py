"""The nine games of Cohen-Solal 2020's comparisons and its three experiments, as data.

:data:`GAMES` holds, per game, what the runner (:mod:`studies.descent.games_runner`)
needs and nothing it computes: the board (farl's scale, smaller than the
paper's where the game has a size parameter), the training budget of one run
(wall-clock seconds and search seconds per move), the final tournament's
match player (alpha-beta depth, random opening plies), the reference
opponents, and which reinforcement heuristics the paper's Table 4 measures on
the game. Any other registered two-player game without chance can be run
too (:func:`setup`: defaults and the heuristics that make sense for it).

:data:`EXPERIMENTS` are the paper's Tables 2-4 (Sec. 3.3, 4.2, 5.3) with their
variants (:data:`VARIANTS`: a variant is a set of
:class:`~farl_agents.descent.trainer.DescentConfig` overrides) and the
orderings the paper reports (:data:`CLAIMS`), which the report checks per game.

Table 4's "X" marks (heuristic of no interest) lost their columns in the
paper's text; the choices here follow its stated reasons: score only where
the game has one (Othello, Surakarta: piece difference, where presence
coincides with score and is left out; Amazons: the winner's territory),
presence only where pieces are captured and the count is not fixed by the
number of moves (Breakthrough, Lines of Action; in Clobber every move captures
one piece), mobility not in Hex and Outer-Open Gomoku (both players' move
counts are the empty cells, equal up to one).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import farl_envs
from farl_agents.descent.heuristics import make_heuristic


@dataclass(frozen=True)
class GameSetup:
    """One game of the comparisons: board, budget per run, tournament player, opponents, heuristics."""

    key: str
    """Label in the tables and the run folders."""
    game: str
    """farl registry name."""
    params: dict = field(default_factory=dict)
    """Game parameters (farl's scale)."""
    title: str = ""
    """Name in the report."""
    train_seconds: float = 20.0
    """Wall-clock training seconds per run (the paper: hours)."""
    move_seconds: float = 0.02
    """Search seconds per move while learning (the paper: seconds)."""
    depth: int = 2
    """Alpha-beta depth of the final all-play-all."""
    opening_plies: int = 2
    """Random plies before each tournament game (decisions: Amazons' turn is three)."""
    openings: int = 3
    """Random openings per pair and repetition in the tournament (x 2 seats)."""
    heuristics: tuple = ("depth-add", "depth-mul")
    """The reinforcement heuristics measured beside ``classic`` (Table 4)."""
    references: tuple = ("random", "mcts100")
    """Opponents the best f_θ is measured against (not part of the paper's tables)."""


GAMES = {s.key: s for s in (
    GameSetup("clobber", "clobber", {"rows": 5, "columns": 6}, "Clobber 5×6",
              heuristics=("depth-add", "depth-mul", "mobility")),
    GameSetup("hex6", "hex", {"size": 6}, "Hex 6×6"),
    GameSetup("santorini", "santorini", {}, "Santorini",
              heuristics=("depth-add", "depth-mul", "mobility"), depth=1),
    GameSetup("breakthrough6", "breakthrough", {"rows": 6, "columns": 6}, "Breakthrough 6×6",
              heuristics=("depth-add", "depth-mul", "mobility", "presence")),
    GameSetup("oogomoku9", "outer_open_gomoku", {"size": 9}, "Outer-Open Gomoku 9×9", depth=1),
    GameSetup("surakarta", "surakarta", {"no_capture_limit": 50}, "Surakarta",
              heuristics=("score", "depth-add", "depth-mul", "mobility"), depth=1),
    GameSetup("othello", "othello", {}, "Othello 8×8",
              heuristics=("score", "depth-add", "depth-mul", "mobility"), depth=1),
    GameSetup("loa", "lines_of_action", {"max_game_length": 200}, "Lines of Action",
              heuristics=("depth-add", "depth-mul", "mobility", "presence"), depth=1),
    GameSetup("amazons6", "amazons", {"board_size": 6}, "Amazons 6×6",
              heuristics=("score", "depth-add", "depth-mul", "mobility"), depth=1, opening_plies=3),
)}
"""The nine games, cheapest first (the order the runner takes them in)."""

VARIANTS = {
    "id-tree": dict(search="id", learning="tree"),
    "id-root": dict(search="id", learning="root"),
    "id-terminal": dict(search="id", learning="terminal"),
    "mcts-tree": dict(search="mcts", learning="tree"),
    "mcts-root": dict(search="mcts", learning="root"),
    "mcts-terminal": dict(search="mcts", learning="terminal"),
    "descent-tree": dict(search="descent", learning="tree"),
    "ubfm-tree": dict(search="ubfm", learning="tree"),
    "descent-score": dict(search="descent", learning="tree", heuristic="score"),
    "descent-depth-add": dict(search="descent", learning="tree", heuristic="depth-add"),
    "descent-depth-mul": dict(search="descent", learning="tree", heuristic="depth-mul"),
    "descent-mobility": dict(search="descent", learning="tree", heuristic="mobility"),
    "descent-presence": dict(search="descent", learning="tree", heuristic="presence"),
}
"""Every trained variant; ``descent-tree`` is also the heuristic experiment's ``classic``."""

EXPERIMENTS = {
    "data": ("Table 2 (Sec. 3.3): tree vs root vs terminal learning, with ID alpha-beta and MCTS",
             ["id-tree", "id-root", "id-terminal", "mcts-tree", "mcts-root", "mcts-terminal"]),
    "search": ("Table 3 (Sec. 4.2): the search used while learning",
               ["descent-tree", "ubfm-tree", "mcts-tree", "mcts-root", "id-tree", "id-root"]),
    "heuristic": ("Table 4 (Sec. 5.3): reinforcement heuristics, descent + tree learning",
                  ["descent-tree", "descent-score", "descent-depth-add", "descent-depth-mul", "descent-mobility",
                   "descent-presence"]),
}

CLAIMS = {
    "data": [("tree learning beats root and terminal learning (mean of the ID and MCTS win rates)",
              lambda w: _mean(w, "id-tree", "mcts-tree") > max(_mean(w, "id-root", "mcts-root"),
                                                               _mean(w, "id-terminal", "mcts-terminal")))],
    "search": [("descent has the best win rate",
                lambda w: w["descent-tree"] >= max(w.values())),
               ("descent and UBFM beat MCTS and ID (with tree learning)",
                lambda w: min(w["descent-tree"], w["ubfm-tree"]) > max(w["mcts-tree"], w["id-tree"]))],
    "heuristic": [("classic has the worst win rate",
                   lambda w: w["descent-tree"] <= min(w.values())),
                  ("the best heuristic is score where the game has one, else a depth heuristic",
                   lambda w: _best(w) == "descent-score" if "descent-score" in w
                   else _best(w) in ("descent-depth-add", "descent-depth-mul"))],
}
"""Per experiment: the paper's orderings (Sec. 3.3, 4.2, 5.3) in words, each with a test on one game's
mean win rates (``{variant: win %}``)."""


def _mean(w: dict, a: str, b: str) -> float:
    return (w[a] + w[b]) / 2


def _best(w: dict) -> str:
    return max(w, key=w.get)


def setup(key: str) -> GameSetup:
    """The setup of ``key``: a :data:`GAMES` key, or ``NAME`` / ``NAME:k=v,...`` of any registered
    two-player game without chance (default budget; heuristics: the depth ones, plus mobility, score
    and presence where :func:`~farl_agents.descent.heuristics.make_heuristic` accepts them)."""
    if key in GAMES:
        return GAMES[key]
    name, _, body = key.partition(":")
    params = {}
    for item in filter(None, body.split(",")):
        k, eq, v = item.partition("=")
        if not eq:
            raise ValueError(f"game parameter {item!r}: use key=value")
        params[k.strip()] = int(v) if v.strip().lstrip("-").isdigit() else v.strip()
    registered = [g.rpartition("_v")[0] for g in farl_envs.list_games()]
    if name not in registered:
        raise ValueError(f"unknown game {name!r}; use one of {', '.join(GAMES)} or a registered game "
                         f"({', '.join(registered)})")
    spec = farl_envs.game_spec(name, **params)
    if spec.n_players != 2 or spec.has_chance:
        raise ValueError(f"the descent comparisons need a two-player game without chance, not {name}")
    heuristics = []
    for h in ("score", "depth-add", "depth-mul", "mobility", "presence"):
        try:
            make_heuristic(h, spec)
        except ValueError:
            continue
        heuristics.append(h)
    return GameSetup(key, name, params, key, heuristics=tuple(heuristics))


def variants_of(exp: str, gs: GameSetup) -> list[str]:
    """The variants of experiment ``exp`` that apply to the game (Table 4: its heuristics only)."""
    names = EXPERIMENTS[exp][1]
    if exp != "heuristic":
        return list(names)
    return ["descent-tree"] + [n for n in names[1:] if VARIANTS[n]["heuristic"] in gs.heuristics]


def trained_variants(gs: GameSetup, experiments=None) -> list[str]:
    """Every variant the experiments need on the game, each once, in :data:`VARIANTS` order."""
    wanted = {v for e in (experiments or EXPERIMENTS) for v in variants_of(e, gs)}
    return [v for v in VARIANTS if v in wanted]
