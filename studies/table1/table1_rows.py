"""What Table 1 of Konen & Bagheri 2020 (FARL) is: its rows, the paper's figures, our budgets, file names.

Data only: the runner (:mod:`studies.table1.table1`) and the report
writer (:mod:`studies.table1.table1_report`) both read it, and it
imports neither. Every row is evaluated greedily as the paper does
(``docs/notes/learner_spec.md`` §14):

==========  ==========================================  ======================================
row         opponents                                   protocol
==========  ==========================================  ======================================
2048        --                                          mean score of greedy play
tictactoe   Max-N depth 10 (perfect)                    start + every 1-ply start, both seats
connect4    AB and AB-DL (perfect)                      initial position, both seats (as second
                                                        player the agent loses: 50 % is best)
hex         MCTS 10,000 iterations                      initial position, both seats
othello     Edax depth 1 (if installed), Bench, and     the 244 4-ply openings, both colours
            Bench as GBG plays it (``bench-gbg``)
nim         Max-N depth 15 (perfect)                    start + every 1-ply start, both seats
nim3p       Max-N depth 15, MCTS 5,000                  start + 1-ply starts, mean score over
                                                        the 3 seatings
==========  ==========================================  ======================================

**Where the files go.** ``OUT`` (``--out``) gets the tables, the curves and,
per run, ``OUT/<prefix>_runs/<row>/<farl|nofarl>-seed<k>/`` with the run's
settings, curve, checkpoint marker and results. The run folder that trains
(with the agent files) is the same folder, except when ``OUT`` is the
published results folder ``docs/results``: then runs train under ``runs/``
(not in git) in the same layout and copy those small files to ``OUT``
(see :func:`agents_root`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import farl_envs
from farl_agents.learners import paper_config, paper_game_params
from farl_agents.learners.presets import nplayer_config, nplayer_game, per_ply_lambda

#: What a reader of the paper-budget table must know about a row's runs (written under the table).
PAPER_ROW_NOTES = {
    "hex": "Hex 6x6: these runs grow their random-walk n-tuples as GBG does (a random cell of the tuple, then a "
           "free neighbour of it). The first runs picked from the tuple's whole free border, which makes stretched "
           "tuples, and scored 71.9 % ± 3.3 (FARL) and 0.2 % ± 0.2 (no-FARL) over 10 runs each; what they showed: "
           "[archive.md](archive.md). The evidence: `../notes/hex_gap_audit.md` and `hex_tuples.md`.",
}

#: Konen & Bagheri 2020, Table 1: (row, opponent) -> ((FARL mean, ± s.e.), (no-FARL mean, ± s.e.));
#: win rates as fractions.
PAPER_TABLE1 = {
    ("2048", "alone"): ((142_000, 1_000), (122_000, 900)),
    ("tictactoe", "maxn10"): ((0.49, 0.05), (0.18, 0.06)),
    ("connect4", "ab"): ((0.495, 0.005), (0.035, 0.001)),
    ("connect4", "ab-dl"): ((0.465, 0.005), (0.000, 0.001)),
    ("hex", "mcts10000"): ((0.81, 0.05), (0.000, 0.002)),
    ("othello", "edax1"): ((0.55, 0.01), (0.53, 0.01)),
    ("othello", "bench"): ((0.95, 0.003), (0.96, 0.002)),
    # the paper's Bench is GBG's, which bench-gbg reproduces (see farl_agents.opponents.bench)
    ("othello", "bench-gbg"): ((0.95, 0.003), (0.96, 0.002)),
    ("nim", "maxn15"): ((0.50, 0.01), (0.12, 0.06)),
    ("nim3p", "maxn15"): ((0.33, 0.03), (0.03, 0.01)),
    ("nim3p", "mcts5000"): ((0.78, 0.02), (0.09, 0.02)),
}
BUDGETS = ("paper", "quick", "smoke")

#: The shipped results pages (``farl reproduce ... --out docs/results``), kept in git.
RESULTS_DIR = Path("docs/results")
#: Where runs train (agent files, checkpoints) when ``OUT`` is :data:`RESULTS_DIR`; not in git.
AGENTS_DIR = Path("runs")
#: The files of a run folder that are copied to ``OUT`` when the run trains elsewhere: all but the agents.
#: ``result.json`` comes last, so a run whose copy was cut short does not look finished.
PUBLISHED_FILES = ("run.json", "checkpoint.json", "curve.csv", "curve.png", "eval.json", "final_eval.json",
                   "result.json")


@dataclass(frozen=True)
class Plan:
    """How much one run of a row does under a budget."""

    episodes: int
    eval_every: int
    """Episodes between curve points."""
    curve_games: int
    """Games per seat at each curve point (first opponent only)."""
    final_games: int
    """Games per seat and opponent in the final evaluation."""


#: The smoke budget (seconds, for tests): every row but 2048, and 2048 (whose episodes are long).
SMOKE = Plan(episodes=200, eval_every=100, curve_games=1, final_games=2)
SMOKE_2048 = Plan(episodes=20, eval_every=10, curve_games=1, final_games=2)


@dataclass(frozen=True)
class Opponent:
    name: str
    """:func:`~farl_agents.opponents.make_opponent` name (``"alone"``: 2048 plays by itself)."""
    label: str
    """As printed in Table 1."""
    optional: bool = False
    """Played only when available (Edax needs its binary)."""


@dataclass(frozen=True)
class Row:
    """One Table 1 row: its game, opponents, protocol and budgets."""

    key: str
    """Name on the command line (``--rows``)."""
    game: str
    title: str
    opponents: tuple
    starts: str
    """Start-state set of the evaluations (:func:`farl_agents.runs.start_states`)."""
    num_eval: int
    """The paper's evaluation interval (learner_spec §13): curve points of the paper budget."""
    final_games: int
    """Paper budget: games per seat and opponent in the final evaluation."""
    curve_games: int
    """Paper budget: games per seat at each curve point (first opponent only)."""
    quick: Plan
    """The quick budget (a run in minutes)."""
    group: str = "paper"
    """``paper`` (Table 1 of the paper), ``nplayer`` (the N-player rows beyond the paper, issue 19, and their
    per-ply column, :data:`NPLAYER_PLY_ROWS`) or ``ply`` (the paper's two-player rows with the per-ply TD chain,
    :data:`PLY_ROWS`): each group has its own table file and run folders (:func:`prefix`)."""
    smoke: Plan | None = None
    """The smoke budget, when the row needs a smaller one than :data:`SMOKE`."""

    @property
    def per_ply(self) -> bool:
        """Trained with the TD chain through every ply (a ``-ply`` row: it repeats the row without the suffix)."""
        return self.key.endswith(PLY)

    @property
    def paper_key(self) -> str:
        """The key of the row whose settings this row takes (a per-ply row: the row it repeats; a paper row: the
        row of the paper's figures)."""
        return self.key.removesuffix(PLY) if self.per_ply else self.key

    @property
    def game_params(self) -> dict:
        """The game parameters of the row's runs."""
        if self.group == "nplayer":
            return nplayer_game(self.paper_key)[1]
        return paper_game_params(self.game)

    def config(self, farl: bool, **overrides):
        """The learner settings of the row's FARL (``farl=True``) or no-FARL column.

        A per-ply row takes the settings of the row it repeats with ``td_chain="ply"``, its λ converted so that
        a trace decays as much per ply as that row's per entry of a player's chain (:func:`per_ply_lambda`: one
        entry of a player's chain every ``players`` plies).
        """
        base = nplayer_config(self.paper_key) if self.group == "nplayer" else paper_config(self.game)
        if self.per_ply:
            players = farl_envs.game_spec(self.game, **self.game_params).n_players
            overrides = {"td_chain": "ply", "lam": per_ply_lambda(base.lam, players), **overrides}
        if self.group == "nplayer":
            return nplayer_config(self.paper_key, farl=farl, **overrides)
        return paper_config(self.game, farl=farl, **overrides)

    @property
    def farl_cells(self) -> tuple:
        """The columns trained, as ``farl`` flags: FARL and no-FARL, except per ply, where final adaptation
        has no effect (``LearnerConfig.td_chain``: the chain's last update already does its work), so the
        one column trained is no-FARL."""
        return (False,) if self.per_ply else (True, False)

    @property
    def paper_figures(self) -> bool:
        """The paper has figures for this row's settings (the N-player and the per-ply rows have none)."""
        return self.group == "paper"

    @property
    def curve_opponent(self) -> Opponent:
        return next(o for o in self.opponents if not o.optional)

    @property
    def alone(self) -> bool:
        """A one-player row (2048): the agent plays by itself, no seats, no opponent."""
        return self.curve_opponent.name == "alone"

    @property
    def percent(self) -> bool:
        """Reported as a win rate in percent (else a mean score: 2048's game score, the 3-player scores)."""
        return self.game not in ("game2048", "nim3p") and self.group != "nplayer"

    @property
    def big(self) -> bool:
        """Scores in the hundreds of thousands (2048): printed without decimals."""
        return self.game == "game2048"


ROWS = {r.key: r for r in (
    Row("2048", "game2048", "2048", (Opponent("alone", "average score"),), "initial",
        5_000, 250, 10, quick=Plan(1_000, 200, 5, 20)),
    Row("tictactoe", "tictactoe", "TicTacToe", (Opponent("maxn10", "Max-N10"),), "start+1ply",
        1_000, 100, 10, quick=Plan(30_000, 3_000, 10, 20)),
    Row("connect4", "connect_four", "ConnectFour", (Opponent("ab", "AB"), Opponent("ab-dl", "AB-DL")), "initial",
        100_000, 50, 10, quick=Plan(10_000, 2_000, 4, 10)),
    Row("hex", "hex", "Hex 6x6", (Opponent("mcts10000", "MCTS10000"),), "initial",
        10_000, 50, 10, quick=Plan(10_000, 2_500, 2, 10)),
    Row("othello", "othello", "Othello", (Opponent("edax1", "Edax d1", optional=True), Opponent("bench", "Bench"),
                                          Opponent("bench-gbg", "Bench as in GBG")),
        "othello-4ply", 2_000, 244, 20, quick=Plan(2_000, 250, 10, 24)),
    Row("nim", "nim", "Nim 3x5", (Opponent("maxn15", "Max-N15"),), "start+1ply",
        1_000, 96, 16, quick=Plan(20_000, 2_000, 16, 32)),
    Row("nim3p", "nim3p", "Nim3P 3x5", (Opponent("maxn15", "Max-N15"), Opponent("mcts5000", "MCTS5000")),
        "start+1ply", 10_000, 48, 16, quick=Plan(50_000, 5_000, 16, 16)),
)}


#: The N-player rows (beyond the paper, GitHub issue 19): a 3-player variant of each new game, TD-FARL against
#: no-FARL with :func:`~farl_agents.learners.presets.nplayer_config`; mean score over every seating. Their
#: ``paper`` budget is a long run (the preset's episodes), not a figure of the paper.
#:
#: ==================  ===============================  ===================================================
#: row                 opponents                        protocol
#: ==================  ===============================  ===================================================
#: sim3p               MCTS 500                         Sim K6: start + 1-ply starts, every seat
#: sim12_3p            MCTS 1000                        Sim K12 (GBG's board, shaped preset): initial, every seat
#: yavalath3p          MCTS 300                         initial position, every seat
#: yavalath3p_taught   MCTS 1000                        shaped preset, Max-N1 teacher: initial, every seat
#: chinese_checkers3p  random, Paranoid 1               initial position, every seat (1,000-turn limit)
#: ewn3p               MCTS 300                         initial position (the die is random), every seat
#: ewn3p_large         MCTS 1000                        60 x 6 tuples, GBG's schedule, 1M episodes: initial
#: ==================  ===============================  ===================================================
#:
#: Max-N is not used: searched to the end it takes minutes per move already on Sim K6 with three players on
#: this machine, and cut off earlier it sees only the reward of the next few plies (no evaluation function).
#: MCTS budgets are small so that one final evaluation takes about a minute on a loaded 2-core machine.
NPLAYER_SMOKE = Plan(episodes=100, eval_every=50, curve_games=1, final_games=1)
NPLAYER_ROWS = {r.key: r for r in (
    Row("sim3p", "sim", "Sim K6, 3 players", (Opponent("mcts500", "MCTS500"),), "start+1ply",
        10_000, 16, 16, quick=Plan(10_000, 2_500, 16, 16), group="nplayer", smoke=NPLAYER_SMOKE),
    Row("sim12_3p", "sim", "Sim K12, 3 players", (Opponent("mcts1000", "MCTS1000"),), "initial",
        10_000, 20, 2, quick=Plan(10_000, 2_500, 2, 10), group="nplayer", smoke=NPLAYER_SMOKE),
    Row("yavalath3p", "yavalath", "Yavalath 5, 3 players", (Opponent("mcts300", "MCTS300"),), "initial",
        10_000, 20, 4, quick=Plan(5_000, 1_250, 2, 10), group="nplayer", smoke=NPLAYER_SMOKE),
    Row("yavalath3p_taught", "yavalath", "Yavalath 5, 3 players, taught", (Opponent("mcts1000", "MCTS1000"),),
        "initial", 10_000, 20, 2, quick=Plan(5_000, 1_250, 2, 10), group="nplayer", smoke=NPLAYER_SMOKE),
    Row("chinese_checkers3p", "chinese_checkers", "Chinese Checkers, 3 players",
        (Opponent("random", "random"), Opponent("paranoid1", "Paranoid1")),
        "initial", 2_000, 10, 2, quick=Plan(5_000, 1_000, 2, 10), group="nplayer", smoke=Plan(4, 2, 1, 1)),
    Row("ewn3p", "einstein_wurfelt_nicht", "EWN 6x6, 3 players (0+1 vs 2)", (Opponent("mcts300", "MCTS300"),),
        "initial", 20_000, 50, 10, quick=Plan(20_000, 5_000, 6, 20), group="nplayer", smoke=NPLAYER_SMOKE),
    Row("ewn3p_large", "einstein_wurfelt_nicht", "EWN 6x6, 3 players, larger learner",
        (Opponent("mcts1000", "MCTS1000"),), "initial", 100_000, 20, 2, quick=Plan(100_000, 25_000, 2, 10),
        group="nplayer", smoke=NPLAYER_SMOKE),
)}

#: The suffix of a per-ply row's key.
PLY = "-ply"
#: The paper's TD rows again, trained with the per-ply TD chain (``td_chain="ply"``): Thill, Bagheri, Koch &
#: Konen 2014's for the two-player rows (each ply's afterstate learns from the next ply's, seen from the other
#: side, so the last afterstate of the player who did not move last learns from the final ply), and on Nim3P
#: farl's extension to three players (every player's tables learn on every ply), without final adaptation,
#: which has no effect on that chain. Does a learner need FARL when its chain runs through every ply? Same
#: budgets, opponents and protocol as the row each repeats; the paper has no figures for them (its learners
#: are player-centred).
PLY_ROWS = {r.key + PLY: replace(r, key=r.key + PLY, title=f"{r.title} per ply", group="ply")
            for r in ROWS.values() if r.key in ("tictactoe", "connect4", "hex", "othello", "nim", "nim3p")}
#: The N-player rows of the rerun with learners that learn, trained with the per-ply TD chain (three players:
#: every player's tables learn on every ply, :mod:`farl_agents.learners.td_farl`), without final adaptation:
#: the N-player table's "per ply" column. Same settings (shaping and teacher included), budgets and protocol as
#: the row each repeats; λ per ply is the cube root of the row's λ per entry.
NPLAYER_PLY_ROWS = {r.key + PLY: replace(r, key=r.key + PLY, title=f"{r.title} per ply")
                    for r in NPLAYER_ROWS.values()
                    if r.key in ("sim12_3p", "yavalath3p_taught", "chinese_checkers3p", "ewn3p_large")}
GROUPS = ("paper", "nplayer", "ply")
_GROUP_ROWS = {"paper": ROWS, "nplayer": {**NPLAYER_ROWS, **NPLAYER_PLY_ROWS}, "ply": PLY_ROWS}


def _known() -> str:
    return ",".join(k for rows in _GROUP_ROWS.values() for k in rows)


def find_row(key: str) -> Row:
    """The row named ``key`` in any group."""
    row = next((rows[key] for rows in _GROUP_ROWS.values() if key in rows), None)
    if row is None:
        raise ValueError(f"unknown Table 1 row {key!r}; choose from {_known()}")
    return row


def check_budget(budget: str) -> None:
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; use one of {', '.join(BUDGETS)}")


def paper_episodes(row: Row) -> int:
    """Training episodes of one run in the paper (Appendix A.6); N-player rows: their preset's long run."""
    return row.config(True).episodes


def plan(row: Row, budget: str) -> Plan:
    """The episodes and evaluation sizes of one run of ``row`` under ``budget``."""
    check_budget(budget)
    if budget == "paper":
        return Plan(paper_episodes(row), row.num_eval, row.curve_games, row.final_games)
    if budget == "quick":
        return row.quick
    if row.smoke is not None:
        return row.smoke
    return SMOKE_2048 if row.key == "2048" else SMOKE


def parse_rows(text: str) -> list[Row]:
    """``"tictactoe,nim"`` -> rows, in the order given (``all``: every paper row; ``nplayer``: every N-player
    row, without their per-ply column, which is named row by row; ``ply``: every per-ply row of the paper's
    games)."""
    keys = [k.strip() for k in text.split(",") if k.strip()]
    if keys == ["all"]:
        return list(ROWS.values())
    if keys == ["nplayer"]:
        return list(NPLAYER_ROWS.values())
    if keys == ["ply"]:
        return list(PLY_ROWS.values())
    unknown = [k for k in keys if not any(k in rows for rows in _GROUP_ROWS.values())]
    if unknown or not keys:
        raise ValueError(f"unknown Table 1 row(s) {', '.join(unknown) or '(none given)'}; "
                         f"choose from {_known()}, all, nplayer or ply")
    return [find_row(k) for k in dict.fromkeys(keys)]


# ------------------------------------------------------------- file names
def prefix(budget: str, group: str = "paper") -> str:
    """File-name stem of a budget's outputs: ``table1`` for the paper budget, else ``table1_<budget>``;
    the N-player group: ``table1_nplayer_long`` for its ``paper`` budget (a long run, no paper figures; the
    name ``table1_nplayer.md`` is the discussion page), else ``table1_nplayer_<budget>``; the per-ply group:
    ``table1_ply`` for the paper budget, else ``table1_ply_<budget>``."""
    if group == "paper":
        return "table1" if budget == "paper" else f"table1_{budget}"
    if group == "ply":  # the paper's own budget: no "long"
        return "table1_ply" if budget == "paper" else f"table1_ply_{budget}"
    return f"table1_{group}_{'long' if budget == 'paper' else budget}"


def runs_dir(root, budget: str, row: Row) -> Path:
    """The folder holding one run folder per cell and seed of ``row``."""
    return Path(root) / f"{prefix(budget, row.group)}_runs" / row.key


def run_folder(root, budget: str, row: Row, farl: bool, seed: int) -> Path:
    return runs_dir(root, budget, row) / f"{'farl' if farl else 'nofarl'}-seed{seed}"


def agents_root(out, agents=None) -> Path:
    """Where the runs of ``OUT`` train (their folders hold the agent files).

    ``agents`` when given; else :data:`AGENTS_DIR` when ``out`` is the published
    results folder :data:`RESULTS_DIR` (seen from the current folder, as the
    command line's default ``--out`` is), so trained agents never land in
    ``docs/``; else ``out`` itself (one folder per run, as for ``--out runs/x``).
    """
    if agents is not None:
        return Path(agents)
    return AGENTS_DIR if Path(out).resolve() == RESULTS_DIR.resolve() else Path(out)
