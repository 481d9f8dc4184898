"""One Elo scale per game: a resumable round robin of named players and its Bradley–Terry ratings.

``ladder(game, ["mcts100", "pretrained", "runs/x"], games=20, out_dir="runs/ladder-othello")`` plays every
pair of players against each other, in every seat, and rates all of them on one Elo scale with ``random`` at 0
(``farl ladder`` is the command line of this module; docs/ladder.md).

**Players** are names, whatever :func:`farl_agents.loading.load_player` accepts (opponent names such as
``random``, ``maxn3``, ``mcts100``, ``pretrained``, agent files, run folders); they are kept as given, as the
display names. ``random`` is always one of them: it is the anchor of the scale and is added when missing.
Players are rebuilt from their names inside the workers (names pickle, players need not), so on a Ray cluster
agent files must exist at the same path on every node.

**Matches.** One match per pair of players ``(a, b)`` (``a`` the first in sorted order), one backend task each
(:func:`farl_agents.backend.run_tasks`). A match plays ``games`` games in every *seating* of the pair:

* two-player games: ``a`` in seat 0 and ``b`` in seat 1, then the other way round (``2 * games`` games);
* games of ``n >= 3`` seats: one of the pair alone in one seat and the other in all ``n - 1`` other seats,
  for each seat and for both of the pair (``2 * n * games`` games); e.g. at a 3-seat table ``a`` sits alone
  in seat 0, 1 and 2 against two copies of ``b``, and ``b`` alone against two copies of ``a``. Seating the
  pair both ways keeps the match symmetric (equal players get equal ratings in expectation) and lets any
  number of players (two or more) form a ladder, as ``farl eval`` seats a player against copies of its
  opponent in N-player games.

Game ``g`` of every seating starts from the same opening: position ``g mod len(starts)`` of a listed start
set (``openings``: the start-set names of ``farl eval --start-states``, default ``table1``, the set the game
declares), or the same fresh random opening, drawn from ``(seed, pair, g)``. The players' and the chance
events' random numbers come from ``(seed, pair, seating, g)``, so a match's games do not depend on the other
players, on the order the matches run in, or on ``jobs``.

**Resume.** Every finished match is written atomically as its own JSON file under ``OUT/matches/``; a later
call with the same folder plays only the pairs without one (adding players to a ladder plays only their
pairs). ``OUT/ladder-settings.json`` holds the game, its parameters, ``games``, ``openings`` and ``seed``: a
call with other settings is refused rather than mixing games played differently. A listed subset of the
players rates only them (the other match files stay).

**Ratings** (:func:`fit_elo`, :func:`rate`): each game is read as *pairwise results* between the two players
of the match: a seat of ``a`` against a seat of ``b`` is a win for the one with the higher final reward, a
draw on equal rewards (two-player games: the usual win/draw/loss, one result per game; ``n`` seats: the
``n - 1`` pairs of the lone player with the copies of the other, copies among themselves not compared).
The Bradley–Terry model ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))`` is fitted by maximum likelihood
(Newton's method with step halving) with a draw counted as half a win for each side, on the Elo scale and
with ``random`` fixed at 0. A player who won or lost everything would have no finite maximum, so every
player but the anchor gets :data:`PRIOR_DRAWS` *virtual draw* against ``random`` (as BayesElo's prior of
virtual draws, here only with the anchor): it keeps every rating finite and moves a rating backed by
hundreds of games by a few Elo only. The ± is the standard error from a bootstrap over games:
:data:`BOOTSTRAP_RESAMPLES` resamples, each drawing every match's games with replacement and fitting again;
its random numbers come from the ladder's seed. A player whose results are all alike (all wins, say) gets an
error of 0, as every resample is the same: its rating is then the virtual draw's bound, not a measurement.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import multiprocessing
import re
import time
from pathlib import Path

import numpy as np

from farl_agents import loading
from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.backend import check_backend, check_jobs, run_tasks
from farl_agents.evaluate import play_game
from farl_agents.openings import random_opening, resolve_starts, seeded_rng
from farl_agents.runs.evaluation import start_states
from farl_envs.core.spec import GameSpec

ANCHOR = "random"
"""The player fixed at Elo 0 (always in the ladder)."""
PRIOR_DRAWS = 1.0
"""Virtual draws of every other player against the anchor: keeps ratings finite when a player won or lost
every game (a draw is half a win and half a loss)."""
BOOTSTRAP_RESAMPLES = 200
"""Bootstrap resamples (over each match's games) behind each rating's standard error."""
ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of Bradley–Terry log-strength: a 10x odds ratio is 400 Elo."""
FORMAT = "farl-ladder"
MATCH_FORMAT = "farl-ladder-match"
VERSION = 1
SETTINGS_FILE = "ladder-settings.json"
_ENV_STREAM, _PLAYER_STREAM, _OPENING_STREAM, _BOOTSTRAP_STREAM = 0, 1, 2, 3
_NEWTON_STEPS = 200
_GRADIENT_TOLERANCE = 1e-9

METHOD = ("Bradley-Terry maximum likelihood on pairwise results (a draw counts as half a win for each side), "
          "Elo scale (400 log10), random fixed at 0; {prior:g} virtual draw of every other player against random "
          "keeps ratings finite; +- = bootstrap standard error over games ({resamples} resamples, seed {seed}). "
          "{pairs}")
PAIRS_TWO = "Each game is one result between the two players."
PAIRS_MANY = ("{n}-player games: one of a pair alone in each seat against copies of the other, both ways; each game "
              "ranks the players by final reward and the lone player's pairs with the copies count as results.")


# ------------------------------------------------------------------ rating math
def _check_points(points) -> np.ndarray:
    w = np.array(points, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise ValueError(f"points must be a square matrix of at least 2 players, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("points must be finite and >= 0")
    np.fill_diagonal(w, 0.0)
    return w


def _strongly_connected(w: np.ndarray) -> bool:
    """Whether every player beat (took points from), through a chain, every other: the condition for the
    Bradley–Terry maximum likelihood to exist without a prior (Zermelo 1929; Ford 1957)."""
    edge = w > 0
    for graph in (edge, edge.T):
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(graph[i]):
                if int(j) not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        if len(seen) != len(w):
            return False
    return True


def _log_likelihood(w: np.ndarray, r: np.ndarray) -> float:
    d = r[:, None] - r[None, :]
    return float(-np.sum(w * np.logaddexp(0.0, -d)))


def fit_elo(points, anchor: int = 0, prior_draws: float = PRIOR_DRAWS) -> np.ndarray:
    """Bradley–Terry maximum-likelihood ratings on the Elo scale, ``anchor`` at 0.

    ``points[i][j]``: what player ``i`` scored against player ``j`` over their games (a win 1, a draw 1/2),
    so ``points[i][j] + points[j][i]`` is the number of their games; the model is
    ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))`` and a draw is half a win for each side. E.g. a player
    who scores 75 % against another is ``400 log10(3) = 190.8`` Elo above it. ``prior_draws`` virtual draws
    of every player against the anchor keep the ratings finite when someone won or lost everything; with 0,
    a ValueError says when no finite maximum exists. Newton's method with step halving (the log-likelihood is
    concave in the ratings).
    """
    w = _check_points(points)
    n = len(w)
    if not 0 <= anchor < n:
        raise ValueError(f"anchor must be a player index in 0..{n - 1}, got {anchor}")
    if not (math.isfinite(prior_draws) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws!r}")
    if prior_draws > 0:
        others = [i for i in range(n) if i != anchor]
        w[others, anchor] += prior_draws / 2
        w[anchor, others] += prior_draws / 2
    elif not _strongly_connected(w):
        raise ValueError("no finite ratings: some players won or lost all their games against the rest "
                         "(give prior_draws > 0)")
    games = w + w.T
    free = np.array([i for i in range(n) if i != anchor])
    r = np.zeros(n)
    value = _log_likelihood(w, r)
    for _ in range(_NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        gradient = (w - games * p).sum(axis=1)[free]
        if np.max(np.abs(gradient)) < _GRADIENT_TOLERANCE * max(1.0, games.sum()):
            break
        curvature = games * p * p.T  # the negative Hessian: Laplacian of these weights
        hessian = np.diag(curvature.sum(axis=1)) - curvature
        step = np.linalg.solve(hessian[np.ix_(free, free)], gradient)
        t = 1.0
        while True:
            trial = r.copy()
            trial[free] += t * step
            new = _log_likelihood(w, trial)
            if new >= value - 1e-12 or t < 1e-8:
                break
            t /= 2
        if new < value - 1e-12:  # no step improves: at the maximum as far as floating point can tell
            break
        r, value = trial, new
    if not np.all(np.isfinite(r)):
        raise ValueError("the ratings did not converge to finite values")
    return r * ELO_PER_NAT


def _points_matrix(n: int, pairs, draws=None) -> np.ndarray:
    w = np.zeros((n, n))
    for k, (i, j, points_i, comparisons) in enumerate(pairs):
        pts = points_i.sum() if draws is None else points_i[draws[k]].sum()
        total = comparisons.sum() if draws is None else comparisons[draws[k]].sum()
        w[i, j] += pts
        w[j, i] += total - pts
    return w


def rate(n_players: int, pairs, anchor: int = 0, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
         prior_draws: float = PRIOR_DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """``(elo, standard error)`` per player from matches' games, the error bootstrapped over games.

    ``pairs``: one entry per match, ``(i, j, points_i, comparisons)`` with one value per game: what player
    ``i`` scored against ``j`` in the game and how many pairwise results the game holds (1 in a two-player
    game). A resample draws each match's games with replacement (``resamples`` times, random numbers from
    ``seed``) and fits :func:`fit_elo` again; the anchor's error is 0.
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 2:
        raise ValueError(f"resamples must be an integer >= 2, got {resamples!r}")
    pairs = [(int(i), int(j), np.asarray(p, float), np.asarray(c, float)) for i, j, p, c in pairs]
    elo = fit_elo(_points_matrix(n_players, pairs), anchor, prior_draws)
    rng = np.random.default_rng([int(seed), _BOOTSTRAP_STREAM])
    samples = np.empty((resamples, n_players))
    for b in range(resamples):
        draws = [rng.integers(0, len(p), len(p)) for _, _, p, _ in pairs]
        samples[b] = fit_elo(_points_matrix(n_players, pairs, draws), anchor, prior_draws)
    return elo, samples.std(axis=0, ddof=1)


# ------------------------------------------------------------------ matches
def seatings(n_seats: int) -> list[tuple[int, ...]]:
    """The seatings of a pair at a table of ``n_seats``: per seat 0 (player ``a``) or 1 (``b``).

    Two seats: ``(0, 1)`` and ``(1, 0)``. More: one of the pair alone in each seat, the other everywhere
    else, for both of the pair (module docstring).
    """
    out = []
    for alone in (0, 1):
        for seat in range(n_seats):
            out.append(tuple(alone if i == seat else 1 - alone for i in range(n_seats)))
    return list(dict.fromkeys(out))


def pairwise(seating, rewards) -> tuple[float, int, int, int, int]:
    """``(points of a, results, wins, draws, losses of a)`` of one game: every seat of ``a`` against every
    seat of ``b``, the higher final reward winning, equal rewards a draw."""
    wins = draws = losses = 0
    for s, t in itertools.product(range(len(seating)), repeat=2):
        if seating[s] == 0 and seating[t] == 1:
            if rewards[s] > rewards[t]:
                wins += 1
            elif rewards[s] == rewards[t]:
                draws += 1
            else:
                losses += 1
    return wins + draws / 2, wins + draws + losses, wins, draws, losses


def _pair_key(a: str, b: str) -> list[int]:
    """Two 32-bit words naming the pair in the seeds (stable across runs and machines, unlike ``hash``)."""
    digest = hashlib.sha256(f"{a}\0{b}".encode()).digest()
    return [int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:8], "little")]


def match_file_name(a: str, b: str) -> str:
    """The match file of a pair: readable slugs of the names and a hash that keeps odd names apart."""
    def slug(name):
        return re.sub(r"[^A-Za-z0-9+.-]+", "_", name).strip("._")[:40] or "player"

    return f"{slug(a)}--{slug(b)}-{hashlib.sha256(f'{a}{chr(0)}{b}'.encode()).hexdigest()[:10]}.json"


def _game_ref(game: GameSpec):
    return (game.name, dict(game.params), game.p.tolist())


def _rebuild_game(ref) -> GameSpec:
    import farl_envs

    name, params, p = ref
    game = farl_envs.game_spec(name, **params)
    if game.p.tolist() != p:
        raise RuntimeError(f"worker rebuilt {name} with different parameters")
    return game


def play_match(task: dict) -> dict:
    """One match in a worker (a task of :func:`farl_agents.backend.run_tasks`): the pair's players rebuilt from
    their names, ``games`` games in every seating; a failure comes back as ``status`` ``failed``."""
    t0 = time.perf_counter()
    players = []
    try:
        game = _rebuild_game(task["game"])
        players.append(loading.load_player(task["a"], game)[0])
        players.append(loading.load_player(task["b"], game)[0])
        records = _play_seatings(game, players, task)
    except Exception as exc:  # noqa: BLE001 - reported per match; the finished matches are kept
        return {"index": task["index"], "a": task["a"], "b": task["b"], "status": "failed",
                "error": f"{type(exc).__name__}: {exc}"}
    finally:
        for player in players:
            _close(player)
    return {"index": task["index"], "a": task["a"], "b": task["b"], "status": "done", "records": records,
            "seconds": time.perf_counter() - t0}


def _close(player) -> None:
    """Let a player that holds a process (an engine) end it."""
    close = getattr(player, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):  # a played match is kept even if its engine ends badly
            close()


def _play_seatings(game: GameSpec, players: list, task: dict) -> list:
    """``[seating, start index (-1: a random opening), plies, rewards]`` of every game of a match."""
    _, starts = resolve_starts(game, start_states(game, task["openings"]))
    key = _pair_key(task["a"], task["b"])
    records = []
    for k, seating in enumerate(seatings(game.n_players)):
        for g in range(task["games"]):
            env_rng = seeded_rng(task["seed"], *key, k, g, _ENV_STREAM)
            player_rng = seeded_rng(task["seed"], *key, k, g, _PLAYER_STREAM)
            start = -1
            if isinstance(starts, tuple):  # ("random", plies): the same opening in every seating
                state = random_opening(game, starts[1], seeded_rng(task["seed"], *key, g, _OPENING_STREAM))
            elif isinstance(starts, str):  # a chance game's fresh start, the same in every seating
                state = game.initial_state(game.p, seeded_rng(task["seed"], *key, g, _OPENING_STREAM))
            else:
                start = g % len(starts)
                state = starts[start]
            rewards, plies = play_game(game, [players[x] for x in seating], state, env_rng, player_rng)
            records.append([k, start, int(plies), [float(x) for x in rewards]])
    return records


def _match_summary(match: dict, n_seats: int) -> dict:
    """Per game ``points``/``results`` arrays and the match's totals, from its file's records."""
    table = seatings(n_seats)
    points, results = [], []
    wins = draws = losses = 0
    for k, _start, _plies, rewards in match["records"]:
        p, c, w, d, lo = pairwise(table[k], rewards)
        points.append(p)
        results.append(c)
        wins, draws, losses = wins + w, draws + d, losses + lo
    return {"points": np.array(points), "results": np.array(results), "wins": wins, "draws": draws,
            "losses": losses, "games": len(match["records"])}


# ------------------------------------------------------------------ the ladder
def player_names(players) -> tuple[list[str], bool]:
    """``(names, anchor added)``: the names as given (a comma list or a list), ``random`` added when missing;
    ValueError for duplicates or fewer than one player besides ``random``."""
    if isinstance(players, str):
        players = players.split(",")
    names = [str(x).strip() for x in players if str(x).strip()]
    seen = set()
    for name in names:
        if name.lower() in seen:
            raise ValueError(f"player {name!r} is named twice")
        seen.add(name.lower())
    anchors = [x for x in names if x.lower() == ANCHOR]
    added = not anchors
    if added:
        names.append(ANCHOR)
    if len(names) < 2:
        raise ValueError("a ladder needs at least one player besides random: give two or more players")
    return names, added


def _settings(game: GameSpec, games: int, openings: str, seed: int) -> dict:
    return {"format": FORMAT, "version": VERSION, "game": game.name, "params": dict(game.params),
            "games": int(games), "openings": openings, "seed": int(seed)}


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not a readable JSON file: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def _same_settings(found: dict, want: dict, where: Path) -> None:
    differ = [k for k in want if found.get(k) != want[k]]
    if differ:
        said = ", ".join(f"{k} {found.get(k)!r} (now {want[k]!r})" for k in differ)
        raise ValueError(f"{where} belongs to a ladder with other settings: {said}; use another --out folder "
                         f"or the same settings")


def _existing_matches(out: Path, settings: dict, n_seats: int) -> dict:
    """The match files in ``out/matches`` by pair, each checked against ``settings`` and for its number of
    games."""
    found = {}
    want = settings["games"] * len(seatings(n_seats))
    for path in sorted((out / "matches").glob("*.json")):
        data = _read_json(path)
        if data.get("format") != MATCH_FORMAT:
            raise ValueError(f"{path} is not a ladder match file (format {data.get('format')!r})")
        _same_settings(data, {k: v for k, v in settings.items() if k not in ("format", "version")}, path)
        records = data.get("records")
        if not isinstance(records, list) or len(records) != want or not all(
                isinstance(r, list) and len(r) == 4 and isinstance(r[3], list) and len(r[3]) == n_seats
                for r in records):
            raise ValueError(f"{path} does not hold the {want} games of a match: delete it to play the match again")
        found[(data["a"], data["b"])] = data
    return found


def _game_of(game, params) -> GameSpec:
    if isinstance(game, GameSpec):
        if params:
            raise ValueError("params are for a game name; a GameSpec brings its own")
        return game
    if not isinstance(game, str):
        raise ValueError(f"game must be a game name or a GameSpec, got {game!r}")
    return loading.game_with_params(game, dict(params or {}))


def ladder(game, players, games: int, out_dir, *, params: dict | None = None, openings: str = "table1",
           seed: int = 0, jobs: int = 1, backend: str = "local", ray_address: str | None = None,
           resamples: int = BOOTSTRAP_RESAMPLES, progress: bool = False, command: str | None = None,
           log=print) -> dict:
    """Play the round robin of ``players`` on ``game`` into ``out_dir`` (resumable) and rate them.

    Args:
        game: a game name (with ``params``) or a :class:`GameSpec`; two or more players.
        players: names (a list or a comma list) as :func:`farl_agents.loading.load_player` takes them;
            ``random`` is added when missing (a note is logged).
        games: games per seating of each pair (two-player games: ``games`` in each seat; see the module
            docstring for more seats).
        out_dir: the ladder's folder: ``matches/`` (one file per pair), ``ladder.json``, ``ladder.md``,
            ``ladder.png``; finished matches found there are not played again.
        openings: a start-set name of ``farl eval --start-states`` (``table1``, ``initial``, ``all-1ply``,
            ``start+1ply``, ``othello-4ply``, ``othello-4ply-distinct``, ``random:K``).
        seed: the games' and the bootstrap's random numbers.
        jobs / backend / ray_address: where the matches run (:func:`farl_agents.backend.run_tasks`), one
            task per match.
        resamples: bootstrap resamples of the standard errors.
        command: the command line written into ``ladder.md`` (default: this call).

    Returns the content of ``ladder.json``. ValueError for bad input (unknown player, one player, games < 1,
    a folder of another ladder); RuntimeError when matches failed (the others are kept); KeyboardInterrupt
    when stopped (the finished matches are kept: call again to finish).
    """
    game = _game_of(game, params)
    if game.n_players < 2:
        raise ValueError(f"{game.id} is a one-player game: a ladder rates players against each other")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be an integer >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 2:
        raise ValueError(f"resamples must be an integer >= 2, got {resamples!r}")
    jobs = check_jobs(jobs, "jobs")
    check_backend(backend, ray_address)
    if not isinstance(openings, str):
        raise ValueError(f"openings must be a start-set name such as 'table1' or 'random:4', got {openings!r}")
    names, added = player_names(players)
    resolve_starts(game, start_states(game, openings))  # a bad start set fails here, not in every worker
    for name in names:  # an unknown name or a foreign agent fails here, before any game
        _close(loading.load_player(name, game)[0])
    if added:
        log(f"farl ladder: added {ANCHOR} as the anchor of the scale (Elo 0)")

    out = Path(out_dir)
    settings = _settings(game, int(games), openings, int(seed))
    if (out / SETTINGS_FILE).exists():
        _same_settings(_read_json(out / SETTINGS_FILE), settings, out / SETTINGS_FILE)
    matches = _existing_matches(out, settings, game.n_players)
    atomic_write_json(out / SETTINGS_FILE, settings)

    pairs = [tuple(sorted(p)) for p in itertools.combinations(names, 2)]
    todo = [p for p in pairs if p not in matches]
    if len(todo) < len(pairs):
        log(f"farl ladder: {len(pairs) - len(todo)} of {len(pairs)} matches already in {out / 'matches'}")
    _play_missing(game, todo, settings, matches, out, jobs, backend, ray_address, progress, log)

    result = _ratings(game, names, pairs, matches, settings, resamples)
    result["command"] = command or _python_call(game, names, games, out, openings, seed)
    atomic_write_json(out / "ladder.json", result)
    atomic_write_text(out / "ladder.md", ladder_markdown(result))
    plot_ladder(out / "ladder.png", result)
    return result


def _play_missing(game, todo, settings, matches, out, jobs, backend, ray_address, progress, log) -> None:
    """Play the pairs ``todo`` as backend tasks; each finished match is written (atomically) as it arrives."""
    if not todo:
        return
    tasks = [{"index": i, "game": _game_ref(game), "a": a, "b": b, "games": settings["games"],
              "openings": settings["openings"], "seed": settings["seed"]} for i, (a, b) in enumerate(todo)]
    failed = []

    def keep(r: dict) -> None:
        if r.get("status") != "done":
            if r.get("status") == "failed":
                failed.append(f"{r['a']} vs {r['b']}: {r.get('error')}")
            return
        match = {**{k: v for k, v in settings.items() if k not in ("format", "version")},
                 "format": MATCH_FORMAT, "version": VERSION, "a": r["a"], "b": r["b"],
                 "seatings": [list(s) for s in seatings(game.n_players)], "seconds": round(r["seconds"], 3),
                 "records": r["records"]}
        atomic_write_text(out / "matches" / match_file_name(r["a"], r["b"]),
                          json.dumps(match, separators=(",", ":")) + "\n")
        matches[(r["a"], r["b"])] = match

    fork = "fork" in multiprocessing.get_all_start_methods()
    log(f"farl ladder: playing {len(todo)} match(es) of {game.id}")
    run_tasks(play_match, tasks, backend=backend, jobs=jobs, ray_address=ray_address, progress=progress, log=log,
              desc="matches", describe=lambda r: f"{r['a']} vs {r['b']}: {r['status']}", folder_keys=(),
              start_method="fork" if fork else "spawn", on_result=keep)
    if failed:
        raise RuntimeError(f"{len(failed)} match(es) failed (the finished ones are kept in {out / 'matches'}): "
                           + "; ".join(failed))
    missing = [p for p in todo if p not in matches]
    if missing:
        log(f"farl ladder: stopped with {len(missing)} match(es) left; the same command again plays them")
        raise KeyboardInterrupt


def _ratings(game: GameSpec, names: list, pairs: list, matches: dict, settings: dict, resamples: int) -> dict:
    """The content of ``ladder.json``: ratings of ``names`` from the matches of ``pairs``."""
    index = {name: i for i, name in enumerate(names)}
    # in the order of the names, so the bootstrap's draws do not depend on the order the players were listed in
    summaries = {p: _match_summary(matches[p], game.n_players) for p in sorted(pairs)}
    anchor = next(i for i, x in enumerate(names) if x.lower() == ANCHOR)
    elo, se = rate(len(names), [(index[a], index[b], s["points"], s["results"]) for (a, b), s in summaries.items()],
                   anchor=anchor, resamples=resamples, seed=settings["seed"])
    played = {name: 0 for name in names}
    for (a, b), s in summaries.items():
        played[a] += s["games"]
        played[b] += s["games"]
    order = sorted(range(len(names)), key=lambda i: (-elo[i], names[i]))
    rows = [{"name": names[i], "elo": round(float(elo[i]), 1), "elo_se": round(float(se[i]), 1),
             "games": played[names[i]]} for i in order]
    match_rows = []
    for (a, b), s in summaries.items():
        results = s["wins"] + s["draws"] + s["losses"]
        match_rows.append({"a": a, "b": b, "wins": s["wins"], "draws": s["draws"], "losses": s["losses"],
                           "score": round((s["wins"] + s["draws"] / 2) / results, 4), "games": s["games"],
                           "results": results})
    n = game.n_players
    method = METHOD.format(prior=PRIOR_DRAWS, resamples=resamples, seed=settings["seed"],
                           pairs=PAIRS_TWO if n == 2 else PAIRS_MANY.format(n=n))
    return {"players": rows, "matches": match_rows, "game": game.name, "params": dict(game.params),
            "n_players": n, "games_per_seating": settings["games"], "openings": settings["openings"],
            "seed": settings["seed"], "anchor": names[anchor], "prior_draws": PRIOR_DRAWS, "resamples": resamples,
            "method": method}


def _python_call(game, names, games, out, openings, seed) -> str:
    return (f"ladder({game.name!r}, {names!r}, games={games}, out_dir={str(out)!r}, params={dict(game.params)!r}, "
            f"openings={openings!r}, seed={seed})")


# ------------------------------------------------------------------ reports
def ladder_markdown(result: dict) -> str:
    """``ladder.md``: the ratings, the matches (wins/draws/losses of the first-named player), the method and the
    command that made them."""
    params = ", ".join(f"{k}={v}" for k, v in result["params"].items())
    lines = [f"# Ladder: {result['game']}" + (f" ({params})" if params else ""), "",
             f"{result['games_per_seating']} games per seating of each pair, openings `{result['openings']}`, "
             f"seed {result['seed']}.", "",
             "| rank | player | Elo | ± s.e. | games |", "|---:|---|---:|---:|---:|"]
    for k, p in enumerate(result["players"], 1):
        lines.append(f"| {k} | `{p['name']}` | {p['elo']:+.1f} | {p['elo_se']:.1f} | {p['games']} |")
    what = "pairwise results" if result["n_players"] > 2 else "games"
    lines += ["", f"Matches (wins / draws / losses of the first player, over {what}):", "",
              "| player | opponent | W | D | L | score | games |", "|---|---|---:|---:|---:|---:|---:|"]
    for m in result["matches"]:
        lines.append(f"| `{m['a']}` | `{m['b']}` | {m['wins']} | {m['draws']} | {m['losses']} | "
                     f"{100 * m['score']:.1f} % | {m['games']} |")
    lines += ["", f"Method: {result['method']}", "", "Made by:", "", "```", result["command"], "```", ""]
    return "\n".join(lines)


def plot_ladder(path, result: dict) -> None:
    """``ladder.png``: one bar per player (Elo, ± one standard error), strongest first, through
    :func:`farl_agents.plotting.plot_panels`."""
    from farl_agents.plotting import Panel, Series, plot_panels

    players = result["players"]
    elo = np.array([p["elo"] for p in players])
    se = np.array([p["elo_se"] for p in players])
    labels = [p["name"] if len(p["name"]) <= 18 else "…" + p["name"][-17:] for p in players]
    series = Series(None, list(range(len(players))), elo, low=elo - se, high=elo + se, kind="bar")
    panel = Panel([series], title=f"{result['game']} ladder: Elo ± s.e. ({result['anchor']} = 0)",
                  ylabel="Elo", xticklabels=labels, legend=None)
    plot_panels(path, [panel], panel_size=(max(6.0, 1.3 * len(players)), 4.0))
