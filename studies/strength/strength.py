"""How strong the shipped agents play with a search around them at test time: ``docs/results/strength.md``.

Each row is one ``farl eval`` of a player (the pretrained agent, bare or wrapped: ``pretrained+mcts1000``,
``pretrained+paranoid2``, ``pretrained+expectimax2`` ...) against one opponent (farl's reference players,
the shipped agent itself, or an engine over GTP), from a stated start set, in every seat. The command of
every row is printed beside its figure on the page; this script only runs them and collects the results::

    python -m studies.strength.strength                      # every row whose engine is installed
    python -m studies.strength.strength --rows hex othello   # the rows of some games (or row ids)
    python -m studies.strength.strength --table-only --out docs/results

Resumable: a row whose ``ROW.json`` exists under ``--runs-dir`` (default ``runs/strength``) is skipped; each
finished row is written atomically as it ends. The Hex 7x7/9x9/11x11 agents (``TRAININGS``) are trained in
``runs/strength/hex<N>`` by ``farl train`` first (resumable too); their rows name that folder. Rows that need
an engine (GRhino, MoHex, Edax) that is not installed are listed on the page as not run, with the reason. The
page is ``OUT/strength.md`` (default ``runs/strength``; the shipped page: ``--out docs/results``).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from farl_agents import cli
from farl_agents.atomic import atomic_write_text
from studies.formatting import MISSING, pct

RUNS = Path("runs/strength")

TRAININGS = {
    # Hex beyond 6x6 has no shipped agent: TD-FARL with the paper's Hex settings and more, longer tuples
    # per board (GBG's random-walk rule), for MoHex 2.0 and MCTS to play against
    f"hex{n}": ["train", "hex", "--preset", "paper", "--param", f"size={n}", "--ntuple-count", str(count),
                "--ntuple-length", "6", "--episodes", str(episodes), "--seed", "0"]
    for n, count, episodes in ((7, 40, 1_000_000), (9, 60, 1_500_000), (11, 80, 1_500_000))
}
"""Agents the rows need that are not shipped, trained here by ``farl train`` into ``RUNS_DIR/<key>`` (resumable)."""


@dataclass(frozen=True)
class Row:
    """One evaluation: ``player`` against ``vs`` on ``game`` (``params`` as ``k=v``), ``games`` per seat."""

    id: str
    game: str
    player: str
    vs: str | None  # None: a one-player game (2048)
    starts: str = "initial"
    games: int | None = None
    params: tuple = ()
    engine: str | None = None  # the engine the row needs ("grhino", "mohex", "edax"), None for none
    note: str = ""
    seats: str | None = None  # the evaluated player's seats (farl eval --seats), default all
    trained: str | None = None  # a key of TRAININGS whose run folder the player names

    def argv(self, jobs: int = 1) -> list[str]:
        out = ["eval", self.player, "--game", self.game] + (["--vs", self.vs] if self.vs else [])
        out += ["--start-states", self.starts, "--seed", "0"]
        for p in self.params:
            out += ["--param", p]
        if self.games is not None:
            out += ["--games", str(self.games)]
        if self.seats is not None:
            out += ["--seats", self.seats]
        return out + (["--jobs", str(jobs)] if jobs > 1 else [])

    def command(self) -> str:
        return "farl " + " ".join(self.argv())


def _hex_sizes():
    rows = []
    for n in (7, 9, 11):
        run = f"{RUNS}/hex{n}"
        for player in (run, f"{run}+mcts1000"):
            short = player.replace(run, "agent").replace("+", "-")
            for vs in ("mcts10000", "mohex1000"):
                rows.append(Row(f"hex{n}-{short}-vs-{vs}", "hex", player, vs, "initial", 5 if vs == "mohex1000" else 20,
                                params=(f"size={n}",), engine="mohex" if vs.startswith("mohex") else None,
                                trained=f"hex{n}"))
    return rows


def _ladder(game, players, vs, starts, games, prefix, params=(), engine=None, note=""):
    return [Row(f"{prefix}-{p.replace('pretrained', 'agent').replace('+', '-')}-vs-{vs}", game, p, vs, starts, games,
                params, engine, note) for p in players]


HEX_PLAYERS = ("pretrained", "pretrained+mcts100", "pretrained+mcts1000", "pretrained+paranoid2")
C4_PLAYERS = ("pretrained", "pretrained+mcts100", "pretrained+mcts1000")
OTHELLO_PLAYERS = ("pretrained", "pretrained+mcts100", "pretrained+mcts400")

ROWS: list[Row] = [
    # Hex 6x6: Table 1's opponent, 50 games per seat from the empty board (Table 1's protocol)
    *_ladder("hex", HEX_PLAYERS, "mcts10000", "initial", 50, "hex"),
    # Othello: the wrapped agent against itself bare, and against Bench, from the paper's 244 four-ply openings
    Row("othello-agent-mcts400-vs-pretrained", "othello", "pretrained+mcts400", "pretrained", "othello-4ply"),
    Row("othello-agent-mcts100-vs-pretrained", "othello", "pretrained+mcts100", "pretrained", "othello-4ply"),
    Row("othello-agent-mcts200-vs-pretrained", "othello", "pretrained+mcts200", "pretrained", "othello-4ply"),
    Row("othello-agent-mcts1000-vs-pretrained", "othello", "pretrained+mcts1000", "pretrained", "othello-4ply"),
    Row("othello-agent-mcts400-vs-agent-mcts100", "othello", "pretrained+mcts400", "pretrained+mcts100",
        "othello-4ply"),
    *_ladder("othello", OTHELLO_PLAYERS, "bench", "othello-4ply", None, "othello"),
    # Othello against GRhino's five levels (GTP engine, Debian package grhino; deterministic, so the openings
    # vary the games): 10 games per seat from the first 10 of the 244 openings at levels 1-3; level 4 takes
    # about 13 s and level 5 about 2 minutes of GRhino's time per game here, so 4 and 2 games per seat
    *[r for level, n in ((1, 10), (2, 10), (3, 10), (4, 4), (5, 2))
      for r in _ladder("othello", ("pretrained", "pretrained+mcts400"), f"grhino{level}", "othello-4ply", n,
                       "othello", engine="grhino")],
    # Connect Four against the perfect player that delays losses, from every 1-ply opening, in both seats
    *_ladder("connect_four", C4_PLAYERS, "ab-dl", "all-1ply", None, "c4"),
    *_ladder("connect_four", C4_PLAYERS, "mcts1000", "all-1ply", 7, "c4"),
    # GBG's published wrapper result (agents/ConnectFour/csv/mCompete50-MWrap-vs-ABDL.csv): its Connect Four
    # TD agent wrapped with 0..1000 PUCT iterations against AB-DL, 50 games per run, 4 runs; the agent must move
    # first (its 0.92 win rate bare is impossible against perfect play as the second player)
    *[Row(f"gbg-c4-{p.replace('pretrained', 'agent').replace('+', '-')}-first-vs-ab-dl", "connect_four", p, "ab-dl",
          "initial", 50, seats="0") for p in ("pretrained", "pretrained+mcts100", "pretrained+mcts300",
                                              "pretrained+mcts1000")],
    # 2048: expectimax around the agent (depth 1 is the bare agent: its values are read before the tile)
    Row("2048-agent", "game2048", "pretrained", None, "initial", 100),
    Row("2048-agent-expectimax2", "game2048", "pretrained+expectimax2", None, "initial", 30),
    Row("2048-agent-expectimax3", "game2048", "pretrained+expectimax3", None, "initial", 10),
    # N-player games: the wrappers against the MCTS opponents of their Table 1 rows
    *_ladder("nim3p", ("pretrained", "pretrained+maxn3", "pretrained+mcts1000"), "mcts5000", "all-1ply", None,
             "nim3p"),
    *_ladder("sim", ("pretrained", "pretrained+paranoid2", "pretrained+mcts300"), "mcts500", "all-1ply", None,
             "sim3p", params=("players=3",)),
    *_ladder("yavalath", ("pretrained", "pretrained+paranoid2", "pretrained+mcts300"), "mcts300", "initial", 10,
             "yavalath3p", params=("players=3",)),
    *_ladder("einstein_wurfelt_nicht", ("pretrained", "pretrained+expectimax2", "pretrained+mcts300"), "mcts300",
             "initial", 20, "ewn3p", params=("players=3",)),
    # the paper-beyond games whose agents were weak against MCTS100 (issue 40)
    *_ladder("amazons", ("pretrained", "pretrained+mcts200"), "mcts100", "initial", 20, "amazons"),
    *_ladder("surakarta", ("pretrained", "pretrained+mcts200"), "mcts100", "initial", 20, "surakarta"),
    *_ladder("clobber", ("pretrained", "pretrained+mcts200"), "mcts100", "initial", 20, "clobber"),
    # Hex 7x7, 9x9, 11x11: TD-FARL agents trained here (TRAININGS), bare and wrapped, against MCTS10000 and
    # MoHex 2.0 (1,000 simulations per move; where a user built it: docs/engines.md); last, as training
    # them takes the longest
    *_hex_sizes(),
]


GBG_TITLE = "connect_four: GBG's MCTS-wrapper result, reproduced"
GBG_C4 = {"pretrained": 0.92, "pretrained+mcts100": 0.97, "pretrained+mcts300": 0.9975, "pretrained+mcts1000": 0.995}
"""GBG's win rates against AB-DL (``agents/ConnectFour/csv/mCompete50-MWrap-vs-ABDL.csv``, EPS = 1e-8 rows: the
mean of its 4 runs of 50 games; iterations 0, 100, 300, 1000; c_puct 1)."""
GBG_NOTE = ["GBG (the FARL authors' framework) publishes its Connect Four TD agent wrapped with PUCT against "
            "AB-DL, 50 games per run, 4 runs, c_puct 1, its recommended EPS = 1e-8 setting "
            "(`agents/ConnectFour/csv/mCompete50-MWrap-vs-ABDL.csv` in WolfgangKonen/GBG). The mean win rates: "
            + ", ".join(f"{k.replace('pretrained', 'agent')} {100 * v:.1f} %" for k, v in GBG_C4.items())
            + ". The csv does not name the seat; the agent must move first (0.92 bare would be impossible "
            "against perfect play moving second), so farl's rows put it in seat 0. farl's agent is its own "
            "pretrained Connect Four agent, not GBG's.", ""]


@dataclass(frozen=True)
class Ladder:
    """One ``farl ladder`` of a game: the shipped agent bare and wrapped beside reference opponents and engines."""

    game: str
    players: tuple
    games: int
    openings: str
    params: tuple = ()

    def argv(self, runs: Path = RUNS, jobs: int = 1) -> list[str]:
        out = ["ladder", self.game, "--players", ",".join(self.players), "--games", str(self.games),
               "--openings", self.openings, "--out", str(runs / f"ladder-{self.game}"), "--seed", "0"]
        for p in self.params:
            out += ["--param", p]
        return out + (["--jobs", str(jobs)] if jobs > 1 else [])

    def command(self) -> str:
        return "farl " + " ".join(self.argv())


LADDERS = [
    Ladder("connect_four", ("pretrained", "pretrained+mcts100", "pretrained+mcts1000", "mcts1000", "mcts10000",
                            "ab-dl"), 7, "all-1ply"),
    Ladder("othello", ("pretrained", "pretrained+mcts100", "pretrained+mcts400", "bench", "mcts1000", "grhino1",
                       "grhino3"), 6, "othello-4ply"),
    Ladder("hex", ("pretrained", "pretrained+mcts100", "pretrained+mcts1000", "mcts1000", "mcts10000"), 10,
           "initial", ("size=6",)),
    Ladder("nim3p", ("pretrained", "pretrained+maxn3", "maxn15", "mcts1000"), 3, "all-1ply", ("max_take=5",)),
]
"""The ladders on the page: every player of a game on one Elo scale (``random`` = 0, added by farl ladder)."""


def run_ladder(ladder: Ladder, runs: Path = RUNS, jobs: int = 1) -> dict:
    """Play (or resume) one ladder; returns its ``ladder.json``."""
    code = cli.main(ladder.argv(runs, jobs) + ["--quiet"])
    if code != 0:
        raise RuntimeError(f"ladder {ladder.game} stopped with exit code {code}: {ladder.command()}")
    return json.loads((runs / f"ladder-{ladder.game}" / "ladder.json").read_text())


def ladder_lines(ladder: Ladder, runs: Path) -> list[str]:
    path = runs / f"ladder-{ladder.game}" / "ladder.json"
    lines = ["", f"### {ladder.game} ladder", "", f"`{ladder.command()}`", ""]
    if not path.exists():
        missing = [e for e in ("grhino", "mohex", "edax") if any(p.startswith(e) for p in ladder.players)]
        why = "; ".join(filter(None, (engine_missing(e) for e in missing))) or "not run yet"
        return lines + [f"{MISSING} ({why})"]
    data = json.loads(path.read_text())
    lines += ["| player | Elo | ± s.e. | games |", "|---|---:|---:|---:|"]
    for p in data["players"]:
        lines.append(f"| {p['name']} | {p['elo']:+.0f} | {p['elo_se']:.0f} | {p['games']} |")
    return lines


def engine_missing(engine: str | None) -> str | None:
    """Why the row's engine cannot run here, or None."""
    if engine is None:
        return None
    from farl_agents.opponents import make_opponent

    name = {"grhino": "grhino1", "mohex": "mohex", "edax": "edax1"}[engine]
    game = {"grhino": "othello", "mohex": "hex", "edax": "othello"}[engine]
    try:
        player = make_opponent(name, game)
        close = getattr(player, "close", None)  # an engine player owns a process
        if callable(close):
            close()
    except (RuntimeError, ValueError) as exc:
        return str(exc).splitlines()[0]
    return None


def train(key: str, runs: Path = RUNS, trainings: dict | None = None) -> Path:
    """Train the agent ``trainings[key]`` (default :data:`TRAININGS`) in ``runs/key``, or resume it (a finished run
    resumes as a no-op)."""
    folder = runs / key
    if (folder / "run.json").exists():
        argv = ["train", "--resume", str(folder)]
    else:
        argv = (TRAININGS if trainings is None else trainings)[key] + ["--out", str(folder)]
    code = cli.main(argv + ["--quiet"])
    if code != 0:
        raise RuntimeError(f"training {key} stopped with exit code {code}; run again to resume")
    return folder


def run_row(row: Row, runs: Path = RUNS, jobs: int = 1, trainings: dict | None = None) -> dict:
    """Evaluate one row (cached in ``runs/ROW.json``); ``row.trained`` names its agent's key in ``trainings``
    (default :data:`TRAININGS`), trained first."""
    done = runs / f"{row.id}.json"
    if done.exists():
        return json.loads(done.read_text())
    if row.trained:
        train(row.trained, runs, trainings)
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli.main(row.argv(jobs) + ["--json"])
    if code != 0:
        raise RuntimeError(f"row {row.id} stopped with exit code {code}: {row.command()}")
    result = json.loads(out.getvalue())
    result["strength_row"] = {"id": row.id, "command": row.command(), "wall_seconds": time.perf_counter() - start}
    runs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(done, json.dumps(result, indent=1) + "\n")
    return result


def cell(result: dict | None) -> str:
    """The row's figure: win rate ± s.e. (two players), mean score ± s.e. (N players, 2048)."""
    if result is None:
        return MISSING
    m = result["matchups"][0]
    if result.get("metric") == "win_rate":
        return f"{pct(m['win_rate'], 1, m['win_rate_se'])} ({m['n_games']} games)"
    return f"{m['mean_score']:.3g} ± {m['score_se']:.2g} ({m['n_games']} games)"


def select(keys: list[str] | None) -> list[Row]:
    if not keys:
        return list(ROWS)
    rows = [r for r in ROWS if r.id in keys or r.id.split("-")[0] in keys or r.game in keys]
    unknown = [k for k in keys if not any(k in (r.id, r.id.split("-")[0], r.game) for r in ROWS)]
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; rows: {', '.join(r.id for r in ROWS)}")
    return rows


def _short_reason(text: str | None) -> str | None:
    """An engine's missing-binary message cut to its first sentence (the page links docs/engines.md)."""
    return None if text is None else text.split(". ")[0] + " (docs/engines.md)"


def _load(runs: Path, row_id: str) -> dict | None:
    path = runs / f"{row_id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _score(result: dict) -> float:
    m = result["matchups"][0]
    return m["win_rate"] if result.get("metric") == "win_rate" else m["mean_score"]


def in_short(runs: Path) -> list[str]:
    """The page's summary, read off the rows on disk: the issue's two targets, the highest GRhino level the
    wrapped Othello agent beats, and per game the bare agent beside its best wrapped version."""
    out = ["## In short", ""]
    targets = (("hex-agent-mcts1000-vs-mcts10000", "Hex 6x6, pretrained+mcts1000 against MCTS10000", 0.9),
               ("othello-agent-mcts400-vs-pretrained",
                "Othello, pretrained+mcts400 against the bare agent from the 244 openings", 0.7))
    for row_id, what, target in targets:
        r = _load(runs, row_id)
        if r is not None:
            met = "met" if _score(r) >= target else "not met"
            out.append(f"* {what}: {cell(r)}; target {pct(target, 0)}: {met}.")
    beaten = [lv for lv in range(1, 6) if (r := _load(runs, f"othello-agent-mcts400-vs-grhino{lv}")) is not None
              and _score(r) > 0.5]
    played = [lv for lv in range(1, 6) if _load(runs, f"othello-agent-mcts400-vs-grhino{lv}") is not None]
    if played:
        top = f"level {max(beaten)}" if beaten else "none"
        out.append(f"* Othello against GRhino (levels {min(played)}-{max(played)} played): the highest level "
                   f"pretrained+mcts400 scores above 50 % against is {top}.")
    by_group: dict[str, list[tuple[Row, dict]]] = {}
    for row in ROWS:
        r = _load(runs, row.id)
        if r is not None and not row.id.startswith("gbg-"):
            by_group.setdefault(f"{row.id.split('-')[0]} against {row.vs or 'itself alone'}", []).append((row, r))
    for group, rows in by_group.items():
        bare = [(row, r) for row, r in rows if "+" not in row.player]
        wrapped = [(row, r) for row, r in rows if "+" in row.player]
        if bare and wrapped:
            best_row, best = max(wrapped, key=lambda x: _score(x[1]))
            out.append(f"* {group}: bare {cell(bare[0][1])}; best wrapped {best_row.player.split('+')[-1]} "
                       f"{cell(best)}.")
    return out + ["", *READING, ""]


READING = [
    "What the rows show beside these lines (read them in the tables below):",
    "",
    "* Two-player games: a PUCT wrapper of a few hundred iterations lifts every shipped agent against the "
    "reference opponents it was measured with, most where the bare agent was weakest (Clobber, Surakarta).",
    "* Othello against the bare agent itself, the wrapper's score is not monotone in the iterations (compare the "
    "100, 200, 400 and 1000 rows, and 400 against 100 directly); against GRhino it adds nothing measurable at "
    "these game counts: the agent's values, not the search, limit it there.",
    "* Three-player games: the depth-limited Max-N / Paranoid wrappers need every player's value at the leaves, "
    "and the agent's other players' values come from tables learned on positions those players produced; on "
    "Nim3P they play worse than the bare agent. PUCT, which reads the mover's own value at each node, does "
    "better there. Yavalath's shipped agent, rebuilt on 2026-11-28 with a teacher in training "
    "(`yavalath3p_taught`), scores +0.37 against MCTS300 bare and +0.50 inside PUCT 300, while Paranoid2 around "
    "it scores less than the bare agent (−0.03): its other players' values are what a depth-limited search "
    "reads, and they are the weak part.",
    "* MoHex 2.0 beats the Hex agents trained here on every board it played, bare or wrapped.",
]
"""Observations the page states without figures (the figures are in its tables)."""


def write_page(runs: Path, out: Path) -> Path:
    lines = ["# Strength at test time: search wrappers around the shipped agents, and real engines", "",
             "Each figure is one `farl eval` (the command is beside it): the evaluated player in every seat "
             "against the opponent, from the stated start positions, evaluation seed 0. Two-player games: win "
             "rate (draw = half) ± s.e.; N-player games and 2048: mean score ± s.e. `pretrained+mcts<N>` is the "
             "PUCT wrapper (GBG's MCTS wrapper, Scheiermann & Konen 2022: the agent's values at the leaves, "
             "priors from their softmax, c_puct 1, N iterations per move), `+paranoid<D>` / `+maxn<D>` / "
             "`+expectimax<D>` a depth-D search with the agent's values at its leaves "
             "(`farl_agents/opponents/wrappers.py`).", "",
             "Made by `python -m studies.strength.strength --out docs/results` (resumable; rows of one game: "
             "`--rows hex`; the ladders: `--ladders`).", ""]
    lines += in_short(runs)
    game, heading = None, ""
    for row in ROWS:
        if row.game != game or row.id.startswith("gbg-") != heading.startswith("gbg"):
            game, heading = row.game, ("gbg" if row.id.startswith("gbg-") else row.game)
            title = GBG_TITLE if heading == "gbg" else game
            lines += ["", f"## {title}", ""] + (GBG_NOTE if heading == "gbg" else []) + [
                "| player | opponent | starts | result | command |", "|---|---|---|---|---|"]
        path = runs / f"{row.id}.json"
        result = json.loads(path.read_text()) if path.exists() else None
        why = "" if result is not None else (_short_reason(engine_missing(row.engine)) or "not run yet")
        shown = cell(result) if result is not None else f"{MISSING} ({why})"
        lines.append(f"| {row.player} | {row.vs or '(alone)'} | {row.starts} | {shown} | `{row.command()}` |")
    lines += ["", "## One Elo scale per game", "",
              "Every player of the game against every other in every seat, Bradley–Terry ratings with draws as "
              "half a win, `random` = 0, ± bootstrap s.e. (docs/ladder.md)."]
    for ladder in LADDERS:
        lines += ladder_lines(ladder, runs)
    out.mkdir(parents=True, exist_ok=True)
    page = out / "strength.md"
    atomic_write_text(page, "\n".join(lines) + "\n")
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", help="row ids, games or id prefixes (default all)")
    ap.add_argument("--runs-dir", type=Path, default=RUNS)
    ap.add_argument("--out", type=Path, default=RUNS, help="where strength.md goes (default runs/strength)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--table-only", action="store_true", help="write the page from the rows on disk")
    ap.add_argument("--ladders", nargs="*", default=None, metavar="GAME",
                    help="play the ladders of these games (no names: all) instead of the rows")
    args = ap.parse_args(argv)
    if args.ladders is not None and not args.table_only:
        for ladder in [x for x in LADDERS if not args.ladders or x.game in args.ladders]:
            missing = [e for e in ("grhino", "mohex", "edax") if any(p.startswith(e) for p in ladder.players)
                       and engine_missing(e)]
            if missing:
                print(f"skip the {ladder.game} ladder: {', '.join(missing)} not installed", file=sys.stderr)
                continue
            t = time.perf_counter()
            run_ladder(ladder, args.runs_dir, args.jobs)
            print(f"ladder {ladder.game} [{time.perf_counter() - t:.0f} s]", flush=True)
            write_page(args.runs_dir, args.out)
    elif not args.table_only:
        for row in select(args.rows):
            why = engine_missing(row.engine)
            if why:
                print(f"skip {row.id}: {why}", file=sys.stderr)
                continue
            t = time.perf_counter()
            result = run_row(row, args.runs_dir, args.jobs)
            print(f"{row.id}: {cell(result)} [{time.perf_counter() - t:.0f} s]", flush=True)
            write_page(args.runs_dir, args.out)
    print(write_page(args.runs_dir, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
