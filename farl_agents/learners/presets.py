"""Named learner settings: Konen & Bagheri 2020, Appendix A.6, per game, the Table I rows of
Thill, Bagheri, Koch & Konen 2014 for Connect Four, and GBG's Rubik's cube runs (Konen 2023).

Where the paper is silent, the values follow the runs stored with GBG (the
authors' Java code); ``docs/notes/learner_spec.md`` §13 gives the evidence
for each choice. These are the papers' choices of learner settings, so they
live here, one row per game keyed by its registry name; what belongs to a
game itself (its fixed n-tuple set, the start positions of its evaluation)
is declared on its spec.
"""
from __future__ import annotations

from farl_agents.learners.config import LearnerConfig

#: The paper's rows, one per game (by its registry name): ``(game parameters, learner settings)``. The fixed
#: n-tuple sets are the games' own (``GameSpec.fixed_ntuples``); Nim's row is "take any number from one heap".
_PAPER = {
    # 2048: ε=0, α=1, λ=0, no output sigmoid, symmetry, afterstates, fixed 4 6-tuples, TC-id;
    # GBG scales scores by 1/3,932,156
    "game2048": ({}, dict(epsilon=0.0, alpha=1.0, tanh_output=False, ntuples="fixed", tcl="id",
                          reward_scale=1 / 3_932_156, episodes=200_000)),
    # TicTacToe: ε 0.1→0, α 1.0→0.5, λ=0, one 9-tuple, no TCL; GBG's runs learn from random moves
    "tictactoe": ({}, dict(epsilon=0.1, epsilon_final=0.0, alpha=1.0, alpha_final=0.5, ntuples="fixed",
                           learn_from_random_moves=True, episodes=30_000)),
    # Connect Four 6x7: ε 0.1→0, α=3.7, λ=0, fixed 70 8-tuples, TC-EXP β=2.7; GBG's runs learn from random moves
    "connect_four": ({"rows": 6, "cols": 7},
                     dict(epsilon=0.1, epsilon_final=0.0, alpha=3.7, ntuples="fixed", tcl="exp",
                          learn_from_random_moves=True, episodes=5_000_000)),
    # Hex 6x6: ε=0.2, α 1.0→0.5, λ=0, 25 random 6-tuples, TC-id, choose-start-01, learn from random moves
    "hex": ({"size": 6},
            dict(epsilon=0.2, alpha=1.0, alpha_final=0.5, ntuples="random-walk", ntuple_count=25, ntuple_length=6,
                 tcl="id", random_start_prob=0.5, random_start_plies=1, learn_from_random_moves=True,
                 episodes=300_000)),
    # Othello: ε=0.2, α=0.2, λ=0.5, horizon cut 0.01, ET, fixed 50 6-tuples, TC-EXP β=2.7,
    # choose-start-01 (4 plies, 70 %)
    "othello": ({}, dict(epsilon=0.2, alpha=0.2, lam=0.5, horizon_cut=0.01, trace_mode="et", ntuples="fixed",
                         tcl="exp", random_start_prob=0.7, random_start_plies=4, episodes=250_000)),
    # Nim 3x5: ε=0.1 (GBG: →0), α=0.5, λ=0.5, horizon cut 0.1, ET, one 3-tuple, TC-id, learn from random moves
    "nim": ({"heaps": 3, "heap_size": 5, "max_take": 5},
            dict(epsilon=0.1, epsilon_final=0.0, alpha=0.5, lam=0.5, horizon_cut=0.1, trace_mode="et",
                 ntuples="fixed", tcl="id", use_symmetry=False, learn_from_random_moves=True, episodes=20_000)),
    # Nim3P 3x5: ε=0.15, α=0.2, λ=0.5, horizon cut 0.01, RESET, two 3-tuples, TC-id, choose-start-01
    "nim3p": ({"heaps": 3, "heap_size": 5, "max_take": 5, "extra_rule": True},
              dict(epsilon=0.15, alpha=0.2, lam=0.5, horizon_cut=0.01, trace_mode="res", ntuples="fixed", tcl="id",
                   use_symmetry=False, random_start_prob=0.5, random_start_plies=1, episodes=300_000)),
}

#: Thill, Bagheri, Koch & Konen 2014, Table I (Connect Four). Its α is per weight; farl scales every update by
#: 1/(m·N_S), so α here = α_Thill · m · 2 (70 or 150 tuples, mirror symmetry). Their traces are not
#: truncated; a horizon cut of 0.001 keeps every term above 0.1 %.
#:
#: λ: their TD(λ) runs one chain through every position of a game, both players' (one value function, the
#: sign alternating), so a trace decays by λ per *ply*. farl's learners are player-centred (Konen & Bagheri
#: 2020): each player's chain holds only its own afterstates, one entry every two plies, so the same decay
#: over the game is λ² per entry (:func:`player_centred_lambda`). Taken literally (λ per entry), their
#: λ = 0.8 decays like 0.89 per ply, the range where their Fig. 8 shows learning break down (λ >= 0.9), and
#: our first runs did the same (docs/results/eligibility_traces.md). With ``td_chain="ply"`` (their chain
#: itself) λ is theirs, per ply.
THILL2014_PLAYERS = 2
#:
#: Reset traces (``res``, ``rr``): their Alg. 1 empties its one trace vector at a random move. farl keeps one
#: list per player and, for these rows, empties only the random mover's (``reset_all_players=False``): to the
#: other player the random move is part of what its own move led to, not its exploration. Emptying every
#: player's list makes TCL[rr]'s shared weights drift (largest weight 11.9 after 200,000 games, against 2.7
#: with the mover's list only and 1.4 with replacing traces alone; docs/results/eligibility_traces.md).
THILL2014_RESET_MODES = ("res", "rr")


def player_centred_lambda(lam_per_ply: float, players: int = THILL2014_PLAYERS) -> float:
    """The decay per entry of one player's chain that equals ``lam_per_ply`` per ply: λ^players."""
    return round(lam_per_ply ** players, 12)


def per_ply_lambda(lam_per_entry: float, players: int = THILL2014_PLAYERS) -> float:
    """The decay per ply that equals ``lam_per_entry`` per entry of one player's chain: the inverse of
    :func:`player_centred_lambda`."""
    return round(lam_per_entry ** (1.0 / players), 12)


_THILL2014 = {
    "tdl-et": dict(alpha=0.004 * 140, alpha_final=0.002 * 140, lam=0.5, trace_mode="et", tcl="none"),
    "tdl-rr": dict(alpha=0.004 * 140, alpha_final=0.002 * 140, lam=0.8, trace_mode="rr", tcl="none"),
    "tcl-std": dict(alpha=0.05 * 140, lam=0.0, tcl="exp"),
    "tcl-et": dict(alpha=0.05 * 140, lam=0.5, trace_mode="et", tcl="exp"),
    "tcl-res": dict(alpha=0.05 * 140, lam=0.6, trace_mode="res", tcl="exp"),
    "tcl-rep": dict(alpha=0.05 * 140, lam=0.6, trace_mode="rep", tcl="exp"),
    "tcl-rr": dict(alpha=0.05 * 140, lam=0.8, trace_mode="rr", tcl="exp"),
    "tcl-m-et": dict(alpha=0.02 * 300, lam=0.5, trace_mode="et", tcl="exp", ntuples="random-walk", ntuple_count=150,
                     ntuple_length=8),
    "tcl-m-rr": dict(alpha=0.02 * 300, lam=0.8, trace_mode="rr", tcl="exp", ntuples="random-walk", ntuple_count=150,
                     ntuple_length=8),
}
"""The rows of Table I with the paper's λ (per ply); :func:`paper_config` converts it per entry."""


def paper_config(game: str, algo: str = "td", farl: bool = True, **overrides) -> LearnerConfig:
    """Konen & Bagheri 2020's Appendix A.6 settings for ``game`` (``farl=False`` gives Table 1's no-FARL column).

    ``game`` is a farl game name, or the name of a Table I row of Thill, Bagheri, Koch & Konen 2014, such as
    ``"tcl-rr"`` (Connect Four 7×6).
    """
    key = game[:-3] if game.endswith("_v0") else game
    if key in _THILL2014:
        base = dict(epsilon=0.1, ntuples="fixed", horizon_cut=0.001, tcl_beta=2.7, learn_from_random_moves=False,
                    episodes=2_000_000)
        base.update(_THILL2014[key])
        if overrides.get("td_chain", "player") == "player":  # the per-ply chain takes the paper's λ as it is
            base["lam"] = player_centred_lambda(base["lam"])
        if base.get("trace_mode") in THILL2014_RESET_MODES:
            base["reset_all_players"] = False
    elif key in _PAPER:
        base = dict(_PAPER[key][1])
    else:
        raise ValueError(f"no paper preset for {game!r}; known: {', '.join(preset_names())}")
    base.update(algo=algo, farl=farl, farl_terminal=farl)
    base.update(overrides)
    return LearnerConfig(**base)


def preset_names() -> list[str]:
    return list(_PAPER) + list(_THILL2014)


def paper_game_params(game: str) -> dict:
    """The game parameters of ``game``'s Table 1 row (Thill et al. 2014's rows: Connect Four 7×6); {} without a row."""
    key = game[:-3] if game.endswith("_v0") else game
    if key in _THILL2014:
        return dict(_PAPER["connect_four"][0])
    return dict(_PAPER[key][0]) if key in _PAPER else {}


# ----------------------------------------------------------------------------------------------------
# N-player presets: beyond the paper
# ----------------------------------------------------------------------------------------------------
#: The common TD-FARL template of the N-player presets: the paper's settings for Nim3P, its one 3-player game
#: (ε=0.15, λ=0.5, horizon cut 0.01, RESET traces, TC-id, choose-start-01 with one random ply), with the step
#: size of its random-walk game Hex (α 1.0 -> 0.5), since these games, like Hex, use many random-walk tuples.
_NPLAYER_BASE = dict(epsilon=0.15, alpha=1.0, alpha_final=0.5, lam=0.5, horizon_cut=0.01, trace_mode="res",
                     tcl="id", ntuples="random-walk", random_start_prob=0.5, random_start_plies=1)

#: The N-player Table 1 rows (GitHub issue 19), a 3-player variant of each game: ``(game, game parameters,
#: settings added to the template)``. Sim is played on K6 rather than GBG's K12 default: 15 edges instead of 66,
#: so a run of minutes can learn it and Max-N can search it exactly; Chinese Checkers keeps OpenSpiel's rules and
#: its 1,000-turn limit.
_NPLAYER = {
    # Sim K6, 3 players: 15 edge cells (4 values); 20 walks of 5 edges over edges that share a node;
    # the 12 polygon symmetries
    "sim3p": ("sim", {"players": 3, "nodes": 6}, dict(ntuple_count=20, ntuple_length=5, episodes=100_000)),
    # Sim K12, 3 players (GBG's board): 66 edge cells, the same tuples; progress shaping w=1 on the game's
    # heuristic (a player's "dead" edges, those it can no longer colour without a triangle, against the others'),
    # without which the K6 preset on K12 scores -0.87 against two MCTS1000 (docs/results/nplayer_learning.md)
    "sim12_3p": ("sim", {"players": 3, "nodes": 12},
                 dict(ntuple_count=20, ntuple_length=5, shaping=1.0, episodes=100_000)),
    # Yavalath, 61 cells, 3 players: 30 walks of 6 hexagonal neighbours (4^6 weights each), 12 symmetries
    "yavalath3p": ("yavalath", {"players": 3, "size": 5}, dict(ntuple_count=30, ntuple_length=6, episodes=100_000)),
    # The same with progress shaping w=1 on Yavalath's heuristic and a teacher (LearnerConfig.teacher): Max-N1, one
    # ply on that heuristic, in both seats the learner does not play. Self-play never shows the 3-player learners
    # Yavalath's trap, Max-N1 sets it; with it the agent scores above MCTS1000 and above Max-N1 alone, where every
    # self-play setting stays at or below them (docs/results/nplayer_learning.md, section 7)
    "yavalath3p_taught": ("yavalath", {"players": 3, "size": 5},
                          dict(ntuple_count=30, ntuple_length=6, shaping=1.0, teacher="maxn1", episodes=100_000)),
    # Chinese Checkers, 121 holes, 3 players, OpenSpiel's 1,000-turn limit: 40 walks of 6 holes; no symmetry keeps
    # the three camps. Progress shaping w=10 on the game's heuristic (LearnerConfig.shaping): without it no
    # self-play game ends inside the move limit, every reward is 0 and nothing is learned. The heuristic's
    # walled-in term keeps spoilers an exit: with it the agent wins 99.8 % against two random players and beats
    # Paranoid1, without it 92-95 % and it loses to Paranoid1; under a 300-turn limit (the preset until
    # 2026-11-29) waiting for a spoiler to leave does not fit (docs/results/nplayer_learning.md, section 5)
    "chinese_checkers3p": ("chinese_checkers", {"players": 3, "max_moves": 1000},
                           dict(ntuple_count=40, ntuple_length=6, use_symmetry=False, shaping=10.0, episodes=100_000)),
    # EWN 6x6, 3 players: cell coding 1 (colour and cube group, 10 values), so 30 walks of 4 squares (10^4
    # weights each); no symmetry keeps the three corners
    "ewn3p": ("einstein_wurfelt_nicht", {"players": 3, "size": 6, "cell_coding": 1},
              dict(ntuple_count=30, ntuple_length=4, use_symmetry=False, episodes=200_000)),
    # The same game with a larger learner: 60 walks of 6 squares, GBG's schedule (its Yavalath agent's: alpha
    # 1.0 -> 0.2, epsilon 0.3 -> 0.005 linear, lambda 0, no TCL, no random start), 1M episodes. It scores -0.21
    # against two MCTS1000 where the preset scores -0.57 (MCTS1000 itself: -0.09), and without FARL -0.71
    # (docs/results/nplayer_learning.md, section 8)
    "ewn3p_large": ("einstein_wurfelt_nicht", {"players": 3, "size": 6, "cell_coding": 1},
                    dict(ntuple_count=60, ntuple_length=6, use_symmetry=False, alpha=1.0, alpha_final=0.2,
                         epsilon=0.3, epsilon_final=0.005, lam=0.0, tcl="none", random_start_prob=0.0,
                         episodes=1_000_000)),
}


def nplayer_names() -> list[str]:
    """The N-player presets (beyond the paper): one per N-player Table 1 row."""
    return list(_NPLAYER)


def nplayer_config(name: str, algo: str = "td", farl: bool = True, **overrides) -> LearnerConfig:
    """TD-FARL settings for an N-player row such as ``"sim3p"`` (``farl=False``: the no-FARL column).

    Not from Konen & Bagheri 2020 (its only 3-player game is Nim3P): the template ``_NPLAYER_BASE``
    carries its Nim3P settings over, each preset adds a random-walk n-tuple set sized for its board. A preset's
    progress shaping and teacher are TD's (``LearnerConfig.shaping``, ``teacher``): SARSA and Q get the preset
    without them.
    """
    base = {**_NPLAYER_BASE, **_entry(_NPLAYER, "N-player", name)[2], "algo": algo, "farl": farl,
            "farl_terminal": farl}
    if algo != "td":
        base.pop("shaping", None)
        base.pop("teacher", None)
    base.update(overrides)
    return LearnerConfig(**base)


def nplayer_game(name: str) -> tuple[str, dict]:
    """``(game name, game parameters)`` of the N-player preset ``name``."""
    game, params, _ = _entry(_NPLAYER, "N-player", name)
    return game, dict(params)


def _entry(presets: dict, kind: str, name: str) -> tuple:
    """``presets[name]``, or a ``ValueError`` naming the ``kind`` of preset and the known ones."""
    if name not in presets:
        raise ValueError(f"no {kind} preset {name!r}; known: {', '.join(presets)}")
    return presets[name]


# ----------------------------------------------------------------------------------------------------
# The Rubik's cube: Konen 2023's agents, as GBG's result sheets state their settings
# ----------------------------------------------------------------------------------------------------
#: GBG's published cube runs (Konen 2023; ``agents/RubiksCube/2x2x2_STICKER2_{AT,QT}`` in GBG, its sheets'
#: settings): ``(game, game parameters, learner settings)``. ``TDNTuple4Agt`` on the STICKER2 board, 60 random
#: 7-tuples, α = 0.25 constant, ε = 0, λ = 0, no output sigmoid, no temporal coherence, training scrambles 1..pMax
#: twists, training episodes cut after ET twists (``episode_plies``: a time limit of training, the last transition
#: keeps its bootstrapped target), 3,000,000 episodes. GBG's symmetries are off in these runs; farl's cube
#: declares the identity only. docs/results/rubiks_cube.md measures both beside GBG's figures.
_CUBE_BASE = dict(alpha=0.25, alpha_final=0.25, epsilon=0.0, lam=0.0, tanh_output=False, ntuples="random-walk",
                  ntuple_count=60, ntuple_length=7, tcl="none", episodes=3_000_000)
_CUBE = {
    # 2x2x2, half-turn metric: scrambles 1..13, episodes cut after 16 twists ("p13-ET16")
    "cube2_htm": ("rubiks_cube", {"size": 2, "metric": "half", "scramble_max": 13}, dict(episode_plies=16)),
    # 2x2x2, quarter-turn metric: scrambles 1..16, episodes cut after 20 twists ("p16-ET20")
    "cube2_qtm": ("rubiks_cube", {"size": 2, "metric": "quarter", "scramble_max": 16}, dict(episode_plies=20)),
}


def cube_names() -> list[str]:
    """The Rubik's cube presets (GBG's published 2x2x2 runs, Konen 2023)."""
    return list(_CUBE)


def cube_config(name: str, algo: str = "td", farl: bool = True, **overrides) -> LearnerConfig:
    """The learner settings of the cube preset ``name`` (``"cube2_htm"``, ``"cube2_qtm"``)."""
    base = {**_CUBE_BASE, **_entry(_CUBE, "cube", name)[2], "algo": algo, "farl": farl, "farl_terminal": farl}
    base.update(overrides)
    return LearnerConfig(**base)


def cube_game(name: str) -> tuple[str, dict]:
    """``(game name, game parameters)`` of the cube preset ``name``."""
    game, params, _ = _entry(_CUBE, "cube", name)
    return game, dict(params)


MAX_TUPLE_ENTRIES = 1 << 16
"""The weights one n-tuple may have in the settings of games without a preset (the descent paper's games)."""


def fitting_tuple_length(n_cell_values: int, entries: int = MAX_TUPLE_ENTRIES) -> int:
    """The longest n-tuple (at most 6 cells) whose table over ``n_cell_values`` cell values has at most
    ``entries`` weights: 6 for up to 6 values, 4 for Santorini's 13 (6-tuples would be 4.8 million each)."""
    return max(n for n in range(1, 7) if n_cell_values ** n <= entries)
