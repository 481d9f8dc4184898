"""Why the N-player learners do not learn, and which settings do: ``docs/results/nplayer_learning.md``.

Each *variant* is one ``farl train`` of TD-FARL on a 3-player (or 2-player) game: the N-player preset of
``farl_agents.learners.presets`` with some settings changed (``VARIANTS``). Each is then measured the way the
N-player learning issue asks: the agent in every seat against two MCTS1000 players, 20 games per seat from the
initial position, beside MCTS1000 itself and random in the same seats (``REFERENCES``). Every figure is one
``farl eval`` whose command the page prints beside it::

    python -m studies.nplayer.learning                        # every variant, then the page
    python -m studies.nplayer.learning --rows yav3-preset      # some (ids or a game's prefix: yav3, sim12, ewn3)
    python -m studies.nplayer.learning --table-only --out docs/results

Resumable as the strength study is (it runs the rows through :func:`studies.strength.strength.run_row`): a row
whose JSON exists under ``--runs-dir`` (default ``runs/nplayer``) is skipped, a training resumes from its
checkpoint. The audit tables (:mod:`studies.nplayer.audit`) are printed by ``python -m studies.nplayer.audit``.
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from farl_agents.atomic import atomic_write_text
from farl_agents.learners.presets import nplayer_config
from studies.strength.strength import Row, cell, run_row

RUNS = Path("runs/nplayer")
OPPONENT = "mcts1000"
GAMES_PER_SEAT = 20


@dataclass(frozen=True)
class Variant:
    """One training: the N-player preset ``preset`` on ``game`` / ``params`` with ``changes`` to its settings."""

    key: str
    preset: str
    game: str
    params: tuple
    changes: dict = field(default_factory=dict)
    why: str = ""

    def argv(self) -> list[str]:
        """``farl train`` arguments: every setting of the preset that differs from the class default, then the
        changes, as ``--set`` (so the run folder's ``run.json`` records exactly these settings)."""
        cfg = nplayer_config(self.preset, seed=0, **self.changes).to_dict()
        default = type(nplayer_config(self.preset)).__dataclass_fields__
        out = ["train", self.game]
        for p in self.params:
            out += ["--param", p]
        for key, value in cfg.items():
            if key in ("algo", "ntuple_cells") or value == default[key].default:
                continue
            text = "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
            out += ["--set", f"{key}={text}"]
        return out + ["--eval-every", str(cfg["episodes"])]

    def command(self) -> str:
        return "farl " + " ".join(self.argv())


#: GBG's settings of its 2-player Yavalath agent (``TDN3_100_7_1000k``, read from the file by studies/gbg_agents:
#: alpha 1.0 -> 0.2, epsilon 0.3 -> 0.005 linear, lambda 0, no TCL, no random start), minus its tuple set
GBG_SCHEDULE = {"alpha": 1.0, "alpha_final": 0.2, "epsilon": 0.3, "epsilon_final": 0.005, "lam": 0.0, "tcl": "none",
                "random_start_prob": 0.0}

VARIANTS = [
    # Yavalath, edge 5, 3 players: the preset (30 random walks of 6 cells, 100k episodes), without FARL, with
    # GBG's schedule (epsilon decaying to almost 0 instead of a constant 0.15), and with GBG's tuple-set size too
    # (100 tuples of 7 cells, as its Yavalath agent that wins every game against MCTS1000 in 2 players)
    Variant("yav3-preset", "yavalath3p", "yavalath", ("players=3",), why="the N-player Table 1 preset"),
    Variant("yav3-nofarl", "yavalath3p", "yavalath", ("players=3",), {"farl": False, "farl_terminal": False},
            "the preset without final adaptation"),
    Variant("yav3-gbgsched", "yavalath3p", "yavalath", ("players=3",), GBG_SCHEDULE,
            "the preset's tuples with GBG's Yavalath schedule"),
    Variant("yav3-gbg", "yavalath3p", "yavalath", ("players=3",),
            {**GBG_SCHEDULE, "ntuple_count": 100, "ntuple_length": 7, "episodes": 300_000},
            "GBG's Yavalath settings (100 x 7 tuples), 300k episodes"),
    Variant("yav3-shaped", "yavalath3p", "yavalath", ("players=3",), {"shaping": 1.0},
            "the preset with progress shaping (weight 1) on the game's heuristic"),
    Variant("yav3-shaped-untrained", "yavalath3p", "yavalath", ("players=3",), {"shaping": 1.0, "episodes": 1},
            "the shaped preset after one episode (its values are the weighted heuristic): the control of the "
            "searched shaped agent"),
    Variant("yav3-gbg-shaped", "yavalath3p", "yavalath", ("players=3",),
            {**GBG_SCHEDULE, "ntuple_count": 100, "ntuple_length": 7, "episodes": 300_000, "shaping": 1.0},
            "GBG's Yavalath settings with progress shaping (weight 1)"),
    Variant("yav3-gbg-nofarl", "yavalath3p", "yavalath", ("players=3",),
            {**GBG_SCHEDULE, "ntuple_count": 100, "ntuple_length": 7, "episodes": 300_000, "farl": False,
             "farl_terminal": False}, "the same without final adaptation"),
    # Yavalath with a teacher (LearnerConfig.teacher): Max-N1, one ply on the heuristic, which sets the trap the
    # self-play learners never meet (nplayer_learning.md, section 7), in the seats the learner does not play
    Variant("yav3-teacher-maxn1", "yavalath3p", "yavalath", ("players=3",), {"teacher": "maxn1"},
            "the preset, Max-N1 in both other seats"),
    Variant("yav3-teacher-maxn1-half", "yavalath3p", "yavalath", ("players=3",),
            {"teacher": "maxn1", "teacher_share": 0.5}, "the preset, each other seat Max-N1 half of the time"),
    Variant("yav3-shaped-teacher-maxn1", "yavalath3p", "yavalath", ("players=3",), {"shaping": 1.0,
            "teacher": "maxn1"}, "the shaped preset, Max-N1 in both other seats"),
    # EinStein wuerfelt nicht!: the 2-player 5x5 game (OpenSpiel's) and the 3-player preset, with GBG's schedule
    Variant("ewn2-gbgsched", "ewn3p", "einstein_wurfelt_nicht", ("players=2", "size=5", "cell_coding=1"),
            GBG_SCHEDULE, "the 3-player preset's tuples, GBG's schedule, on the 2-player 5x5 game"),
    Variant("ewn3-preset", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=1"),
            why="the N-player Table 1 preset"),
    Variant("ewn3-gbgsched", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=1"),
            GBG_SCHEDULE, "the preset with GBG's schedule"),
    Variant("ewn3-gbg-60x6-1m", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=1"),
            {**GBG_SCHEDULE, "ntuple_count": 60, "ntuple_length": 6, "episodes": 1_000_000},
            "GBG's schedule with twice the tuples, each longer (60 walks of 6 squares), 1M episodes"),
    Variant("ewn3-gbg-60x6-1m-nofarl", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=1"),
            {**GBG_SCHEDULE, "ntuple_count": 60, "ntuple_length": 6, "episodes": 1_000_000, "farl": False,
             "farl_terminal": False}, "the same without final adaptation"),
    # every cube's own number in the cells (cell coding 2: 19 values on 6x6 with 3 players, against 10 when the
    # numbers are put in three groups): which cube a roll moves depends on the exact numbers left; 80 walks of 4
    # squares (19^4 weights each), GBG's schedule, 1M episodes
    Variant("ewn3-coding2-80x4-1m", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=2"),
            {**GBG_SCHEDULE, "ntuple_count": 80, "ntuple_length": 4, "episodes": 1_000_000},
            "every cube's number in the cells (cell coding 2), 80 walks of 4 squares, GBG's schedule, 1M episodes"),
    Variant("ewn3-gbg-120x6-2m", "ewn3p", "einstein_wurfelt_nicht", ("players=3", "size=6", "cell_coding=1"),
            {**GBG_SCHEDULE, "ntuple_count": 120, "ntuple_length": 6, "episodes": 2_000_000},
            "GBG's schedule, twice the 60 x 6 learner's tuples and episodes (120 walks of 6 squares, 2M episodes)"),
    # Sim on K12 (GBG's 3-player board): the K6 preset's settings, then GBG's schedule with more tuples
    Variant("sim12-preset", "sim3p", "sim", ("players=3", "nodes=12"), why="the K6 preset on K12"),
    Variant("sim12-gbgsched", "sim3p", "sim", ("players=3", "nodes=12"),
            {**GBG_SCHEDULE, "ntuple_count": 60, "ntuple_length": 6, "episodes": 300_000},
            "GBG's schedule, 60 walks of 6 edges, 300k episodes"),
    Variant("sim12-shaped", "sim3p", "sim", ("players=3", "nodes=12"), {"shaping": 1.0},
            "the K6 preset on K12 with progress shaping (weight 1) on the game's heuristic"),
    Variant("sim12-shaped-teacher-maxn1", "sim3p", "sim", ("players=3", "nodes=12"), {"shaping": 1.0,
            "teacher": "maxn1"}, "the shaped K12 preset, Max-N1 (one ply on the heuristic) in both other seats"),
    Variant("sim12-shaped-untrained", "sim3p", "sim", ("players=3", "nodes=12"), {"shaping": 1.0, "episodes": 1},
            "the shaped preset on K12 after one episode: the control of the searched shaped agent"),
]
"""The trainings, in the order the study runs them."""

TRAININGS = {v.key: v.argv() for v in VARIANTS}


def _row(variant: Variant, wrapper: str = "") -> Row:
    """The evaluation row of a trained variant, searched at test time with ``wrapper`` (``maxn2``) if given."""
    name = f"{variant.key}+{wrapper}" if wrapper else variant.key
    return Row(f"{name}-vs-{OPPONENT}", variant.game, str(RUNS / name), OPPONENT, "initial", GAMES_PER_SEAT,
               variant.params, trained=variant.key)


#: every board (a variant key's prefix: yav3, ewn3, ...) once, with the game and parameters of its first variant:
#: MCTS1000, random and Max-N1 (one ply on the game's heuristic: what a shaped agent plays before it learns) in the
#: same seats and games. A later variant may change an observation-only parameter (EWN's cell coding): the players
#: of the references play the same game either way
def _boards() -> list[tuple[str, str, tuple]]:
    first: dict[str, tuple[str, str, tuple]] = {}
    for v in VARIANTS:
        prefix = v.key.split("-")[0]
        first.setdefault(prefix, (prefix, v.game, v.params))
    return list(first.values())


_BOARDS = _boards()
REFERENCES = [Row(f"{prefix}-{player}-vs-{OPPONENT}", game, player, OPPONENT, "initial", GAMES_PER_SEAT, params)
              for prefix, game, params in _BOARDS for player in (OPPONENT, "random", "maxn1")]
WRAPPED = (("yav3-shaped", "maxn2"), ("yav3-shaped", "mcts300"), ("yav3-shaped-untrained", "mcts300"),
           ("sim12-shaped", "maxn2"), ("sim12-shaped", "mcts300"), ("sim12-shaped-untrained", "mcts300"),
           ("ewn3-gbgsched", "expectimax2"), ("ewn2-gbgsched", "expectimax3"))
"""Trained variants searched at test time (``RUN+WRAPPER``, the strength issue's wrappers)."""


ROWS = REFERENCES + [_row(v) for v in VARIANTS] + [_row(next(v for v in VARIANTS if v.key == key), wrapper)
                                                    for key, wrapper in WRAPPED]


def select(keys: list[str] | None) -> list[Row]:
    """The rows ``keys`` name (row ids, variant keys or prefixes such as ``yav3``), in the order of ``keys``."""
    if not keys:
        return list(ROWS)
    rows = []
    for key in keys:
        matching = [r for r in ROWS if key in (r.id, r.id.split("-")[0], r.trained, _name(r))]
        if not matching:
            raise SystemExit(f"no rows match {key!r}; rows: {', '.join(r.id for r in ROWS)}")
        rows += [r for r in matching if r not in rows]
    return rows


def _name(row: Row) -> str:
    """A trained row's run folder name, with its wrapper (``yav3-shaped+maxn2``); a reference's player."""
    return Path(row.player).name if row.trained else row.player


def _load(runs: Path, row_id: str) -> dict | None:
    path = runs / f"{row_id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _per_seat(result: dict | None) -> str:
    if result is None:
        return ""
    return " / ".join(f"{s['mean_score']:+.2f}" for s in result["matchups"][0]["per_seat"])


def published_rows(page: Path) -> dict:
    """``{(board heading, player): table line}`` of the rows an earlier run of this study published on ``page``
    with a result (not "not run yet"): the page keeps them when their result files are no longer under ``--runs-dir``
    (run folders stay out of git; a fresh checkout or a new machine has none)."""
    rows, heading = {}, None
    if not page.exists():
        return rows
    for line in page.read_text().splitlines():
        if line.startswith("### "):
            heading = line
        elif heading and line.startswith("| ") and "not run yet" not in line and not line.startswith("| player"):
            rows[(heading, line.split(" | ")[0][2:])] = line
    return rows


def table(runs: Path, previous: dict | None = None) -> list[str]:
    """The results table: per board, the references, then each variant (with its training command). A row without a
    result file under ``runs`` keeps its line from ``previous`` (:func:`published_rows`) if it has one there."""
    lines, previous = [], previous or {}
    for prefix, game, params in _BOARDS:
        heading = f"### {game} ({', '.join(params)}) against two {OPPONENT}"
        lines += ["", heading, "", "| player | mean score ± s.e. | per seat | what | command |",
                  "|---|---|---|---|---|"]
        for row in [r for r in ROWS if r.id.startswith(prefix + "-")]:
            result = _load(runs, row.id)
            variant = next((v for v in VARIANTS if v.key == row.trained), None)
            what = variant.why if variant else "reference"
            name = _name(row)
            if result is None and (heading, name) in previous:
                lines.append(previous[(heading, name)])
                continue
            if "+" in name:
                what += f"; searched at test time ({name.split('+')[1]})"
            train_cmd = f" after `{variant.command()} --out {RUNS / variant.key}`" if variant else ""
            lines.append(f"| {name} | {cell(result) if result else '– (not run yet)'} | {_per_seat(result)} | "
                         f"{what} | `{row.command()}`{train_cmd} |")
    return lines


def write_results(runs: Path, out: Path) -> Path:
    """``OUT/nplayer_variants.md``: the table, for the page's results section."""
    lines = ["# N-player learning: the variants measured", "",
             f"Each agent in every seat against two {OPPONENT} players, {GAMES_PER_SEAT} games per seat from the "
             "initial position, evaluation seed 0; mean final reward ± s.e. Made by "
             "`python -m studies.nplayer.learning --out docs/results` (resumable).",
             *table(runs, published_rows(out / "nplayer_variants.md")), ""]
    out.mkdir(parents=True, exist_ok=True)
    page = out / "nplayer_variants.md"
    atomic_write_text(page, "\n".join(lines))
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", help="row ids, variant keys or prefixes (yav3, sim12, ewn3, ewn2)")
    ap.add_argument("--runs-dir", type=Path, default=RUNS)
    ap.add_argument("--out", type=Path, default=RUNS)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args(argv)
    if not args.table_only:
        for row in select(args.rows):
            t = time.perf_counter()
            result = run_row(row, args.runs_dir, args.jobs, TRAININGS)
            print(f"{row.id}: {cell(result)} [{time.perf_counter() - t:.0f} s]", flush=True)
            write_results(args.runs_dir, args.out)
    print(write_results(args.runs_dir, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
