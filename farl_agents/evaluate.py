"""One evaluation harness for every game: players against opponents in all seats.

``evaluate(game, players, opponents, ...)`` plays each evaluated player
against each opponent and returns an :class:`EvalResult`. It follows the
protocol of the paper's Table 1 (Konen & Bagheri 2020, see ``docs/notes/learner_spec.md``
section 14): **every seat** is played, i.e. for two players the evaluated
player moves first in half of the games and second in the other half; for
Nim3P it sits in each of the three seats (all cyclic seatings) with the
opponent filling the other two; for 2048 it plays alone.

Start positions (``start_states``):

* ``"initial"`` -- the game's start (2048, Kuhn poker's deal: a fresh random start per game);
* ``"all-1ply"`` -- every distinct position after one move (GBG's
  "different starts" draw from the start and these);
* ``"othello-4ply"`` -- the paper's Othello protocol: all 244 four-ply
  openings, found by enumeration (244 move sequences; only 236 of the
  positions differ, see :func:`othello_4ply_starts`);
  ``"othello-4ply-distinct"`` the 236 different positions;
* ``("random", k)`` -- a fresh uniformly random ``k``-ply opening per game;
* a list of kernel states.

``n_games`` is the number of games *per seat* of each matchup; the start
positions of a list are used in turn (game ``g`` of a seat starts from
position ``g mod len(list)``), so the default (one game per listed
position, 100 for ``"initial"`` and random openings) plays each position
once in every seat.

Reported: for two-player games the **win rate** (win 1, draw 1/2, loss 0)
and the mean score (mean final reward of the evaluated player, +1/0/-1);
for Nim3P and 2048 the **mean score**; each with its standard error
``std / sqrt(n)`` and a per-seat breakdown.

Reproducibility. Game ``g`` of seat ``seat`` against opponent ``j`` gets two
generators seeded from ``(seed, j, seat, g)``: one for the environment
(chance events, random starts) and one handed to the players' ``act``. The
games are therefore independent of the order in which they run, and
``jobs > 1`` (games cut into chunks run by
:func:`farl_agents.backend.run_tasks`: local worker processes, or Ray tasks
with ``backend="ray"``) gives exactly the results of ``jobs = 1`` as long as
the players draw their randomness from that generator. All evaluated players meet the same random numbers (common
random numbers make their comparison sharper), and a random opening depends
only on ``(seed, g)``, so it is played from every seat. Local workers are
forked from the calling process: search code compiled there is inherited, code
compiled first in a worker is compiled once per worker.

``protocol="c4-seed002"`` is the Connect Four test of Thill, Bagheri, Koch
& Konen 2014: the evaluated player always moves first against the perfect
player, 200 games, the perfect player choosing at random among its equally
good moves in its first 12 plies
(``farl_agents.opponents.connect_four_player("ab", game, random_plies=12)``).
"""
from __future__ import annotations

import multiprocessing
import time

import numpy as np

from farl_agents.backend import check_backend, check_jobs, run_tasks
from farl_agents.eval_results import EvalResult, Matchup, SeatStats, summarise
from farl_agents.openings import (
    random_opening,
    resolve_starts,
    seeded_rng,
)
from farl_agents.players import check_player, reset_player
from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec

PROTOCOLS = ("c4-seed002",)
_ENV_STREAM, _PLAYER_STREAM, _OPENING_STREAM = 0, 1, 2


# ------------------------------------------------------------ playing
def play_game(game: GameSpec, seat_players, state: np.ndarray, env_rng, player_rng) -> tuple:
    """Play one game from ``state`` (copied) with ``seat_players[i]`` in seat ``i``.

    Returns ``(rewards, plies)``: the summed reward of every seat and the
    number of moves. Raises ``ValueError`` when a player returns an illegal action.
    """
    n = game.n_players
    if len(seat_players) != n:
        raise ValueError(f"{game.id} needs {n} players, got {len(seat_players)}")
    s = np.array(state, dtype=np.int32, copy=True)
    total = np.zeros(n)
    rew = np.zeros(n)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    seen = set()
    for pl in seat_players:
        if id(pl) not in seen:
            seen.add(id(pl))
            reset_player(pl)
    plies = 0
    limit = int(game.max_plies) + 1
    while not s[TERMINAL]:
        mover = int(s[TO_MOVE])
        player = seat_players[mover]
        a = player.act(game, s.copy(), player_rng)
        game.legal_actions(game.p, s, mask)
        try:
            ok = int(a) == a and 0 <= int(a) < game.n_actions and mask[int(a)]
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{player.name} (seat {mover}) chose illegal action {a!r} in {game.id}; "
                             f"legal: {np.flatnonzero(mask).tolist()}")
        game.afterstate(game.p, s, int(a), s, rew)
        if game.has_chance and not s[TERMINAL]:
            game.chance(game.p, s, env_rng)
        total += rew
        plies += 1
        if plies > limit:
            raise RuntimeError(f"{game.id}: game longer than max_plies={game.max_plies}")
    return total, plies


def _run_tasks(game: GameSpec, matchups: list, starts, seed: int, tasks: list) -> list:
    """Play ``tasks`` = ``[(matchup, opp_index, seat, g), ...]``; one record per task."""
    out = []
    for mi, oj, seat, g in tasks:
        seat_players = matchups[mi]["seats"][seat]
        env_rng = seeded_rng(seed, oj, seat, g, _ENV_STREAM)
        player_rng = seeded_rng(seed, oj, seat, g, _PLAYER_STREAM)
        if isinstance(starts, tuple):  # ("random", k): one fresh opening per game index
            start_index = -1
            s = random_opening(game, starts[1], seeded_rng(seed, g, _OPENING_STREAM))
        elif isinstance(starts, str):  # fresh random start (2048)
            start_index = -1
            s = game.initial_state(game.p, env_rng)
        else:
            start_index = g % len(starts)
            s = starts[start_index]
        rewards, plies = play_game(game, seat_players, s, env_rng, player_rng)
        out.append({"seat": seat, "start": start_index, "score": float(rewards[seat]),
                    "rewards": [float(r) for r in rewards], "plies": int(plies)})
    return out


def _chunk(task: dict) -> dict:
    """One chunk of games in a worker (a task of :func:`farl_agents.backend.run_tasks`).

    A failing game comes back as the exception itself, raised again by the caller as a one-process
    evaluation would raise it.
    """
    try:
        game = _rebuild_game(task["game"])
        records = _run_tasks(game, task["matchups"], task["starts"], task["seed"], task["games"])
    except Exception as exc:  # noqa: BLE001 - handed back whole, see the docstring
        return {"index": task["index"], "status": "failed", "error": f"{type(exc).__name__}: {exc}", "exception": exc}
    return {"index": task["index"], "status": "done", "records": records}


def _game_ref(game: GameSpec):
    """What a worker process needs to rebuild ``game`` (registry name and params)."""
    return (game.name, dict(game.params), game.p.tolist())


def _run_chunks(game, matchups, starts, seed: int, tasks: list, jobs: int, backend: str, ray_address) -> list:
    """The records of ``tasks`` (in their order), played in ``4 * jobs`` chunks on the backend."""
    n_chunks = min(len(tasks), 4 * jobs)
    bounds = np.linspace(0, len(tasks), n_chunks + 1).astype(int)
    ref = _game_ref(game)
    chunks = [{"index": i, "game": ref, "matchups": matchups, "starts": starts, "seed": seed,
               "games": tasks[bounds[i]:bounds[i + 1]]} for i in range(n_chunks)]
    fork = "fork" in multiprocessing.get_all_start_methods()
    results = run_tasks(_chunk, chunks, backend=backend, jobs=jobs, ray_address=ray_address, progress=False,
                        folder_keys=(), start_method="fork" if fork else "spawn", stoppable=False)
    for r in results:
        if r["status"] != "done":
            raise r.get("exception") or RuntimeError(f"evaluation chunk {r['index']} failed: {r.get('error')}")
    if len(results) < n_chunks:
        raise KeyboardInterrupt
    return [rec for r in sorted(results, key=lambda r: r["index"]) for rec in r["records"]]


def _rebuild_game(ref) -> GameSpec:
    import farl_envs
    name, params, p = ref
    game = farl_envs.game_spec(name, **params)
    if game.p.tolist() != p:
        raise RuntimeError(f"worker rebuilt {name} with different parameters")
    return game


# ------------------------------------------------------------ the API
def _as_player(x, game, what):
    if isinstance(x, str):
        from farl_agents.opponents import make_opponent
        return make_opponent(x, game)
    check_player(x, what)
    return x


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, list):
        return x
    return [x]


def evaluate(game, players, opponents=None, n_games: int | None = None, start_states="initial",
             seed: int = 0, jobs: int = 1, seats=None, protocol: str | None = None,
             keep_games: bool = True, backend: str = "local", ray_address: str | None = None) -> EvalResult:
    """Play every evaluated player against every opponent in every seat.

    Args:
        game: a game name (``"othello"``) or a :class:`GameSpec`.
        players: the evaluated player, or a list of them (objects following
            :class:`~farl_agents.players.Player`, or opponent names such as
            ``"mcts100"``).
        opponents: an opponent or a list of them (players or names, see
            :func:`farl_agents.opponents.make_opponent`); one matchup each. In
            games with three players one opponent fills both other seats; a
            *tuple* of ``n_players - 1`` players fills them in seat order.
            Ignored (may be None) for one-player games (2048).
        n_games: games per seat and matchup (default: one per listed start
            position, 100 for ``"initial"`` and random openings; 200 for the
            c4-seed002 protocol).
        start_states: ``"initial"``, ``"all-1ply"``, ``"othello-4ply"``,
            ``("random", k)`` or a list of states (see the module docstring).
        seed: makes the whole evaluation reproducible.
        jobs: parallel chunks of games (games are independent; same results as 1): ``4 * jobs`` chunks on
            at most ``jobs`` local worker processes (never more than the CPUs or the chunks), or Ray tasks.
        backend / ray_address: where the chunks run, as in :func:`farl_agents.backend.run_tasks`
            (``"ray"``: a private Ray instance, or the cluster at ``ray_address``; players must pickle).
        seats: the seats the evaluated player takes (default all).
        protocol: None or ``"c4-seed002"``.
        keep_games: store the per-game records in the result.
    """
    game = _normalise_game(game, players, opponents, seed)
    jobs = check_jobs(jobs, "jobs")
    check_backend(backend, ray_address)
    if protocol is not None:
        seats, n_games, opponents = _c4_protocol(game, protocol, seats, n_games, start_states, opponents)
    seats, evaluated, opp_fills = _players_and_seats(game, players, opponents, seats)
    desc, starts = resolve_starts(game, start_states)
    n_starts = len(starts) if isinstance(starts, list) else 0
    n_games = _games_per_seat(n_games, starts, desc, n_starts)
    matchups, tasks = _matchups(game, evaluated, opp_fills, seats, n_games)
    records, seconds = _play(game, matchups, starts, int(seed), tasks, jobs, backend, ray_address)
    return _summary(game, matchups, tasks, records, seats, keep_games, start_states=desc, n_starts=n_starts,
                    seed=int(seed), protocol=protocol, seconds=seconds)


# ------------------------------------------------------------ evaluate's steps: normalise, matchups, play, summarise
def _normalise_game(game, players, opponents, seed) -> GameSpec:
    """``game`` as a GameSpec (a name takes an evaluated agent's own parameters), every player and opponent
    checked to be made for it, and the seed checked."""
    if isinstance(game, str):
        import farl_envs
        # a trained agent knows its game's parameters (e.g. Nim's max_take): use them
        own = [getattr(x, "game", None) for x in _as_list(players)]
        own = [g for g in own if isinstance(g, GameSpec) and g.name == game.removesuffix("_v0")]
        game = own[0] if own else farl_envs.game_spec(game)
    elif not isinstance(game, GameSpec):
        raise ValueError(f"game must be a game name or a GameSpec, got {game!r}")
    for x in _as_list(players) + _as_list(opponents):
        other = getattr(x, "game", None)
        if isinstance(other, GameSpec) and (other.name != game.name or other.params != game.params):
            raise ValueError(f"{getattr(x, 'name', x)} was made for {other.id} {other.params}, "
                             f"not for {game.id} {game.params}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    return game


def _c4_protocol(game: GameSpec, protocol: str, seats, n_games, start_states, opponents) -> tuple:
    """``(seats, n_games, opponents)`` of the c4-seed002 protocol (module docstring), checked against what the
    caller asked for: seat 0, 200 games by default, the initial position, the perfect player by default."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; known: {PROTOCOLS}")
    if game.name != "connect_four" or game.params.get("rows", 6) != 6 or game.params.get("cols", 7) != 7:
        raise ValueError(f"protocol 'c4-seed002' is for Connect Four 6x7, not {game.id} {game.params}")
    if seats is not None and list(seats) != [0]:
        raise ValueError("protocol 'c4-seed002' fixes seats=[0] (the evaluated player moves first)")
    n_games = 200 if n_games is None else n_games
    if start_states != "initial":
        raise ValueError("protocol 'c4-seed002' starts from the initial position")
    if opponents is None:
        from farl_agents.opponents import connect_four_player
        opponents = connect_four_player("ab", game, random_plies=12)
    return [0], n_games, opponents


def _players_and_seats(game: GameSpec, players, opponents, seats) -> tuple:
    """``(seats, evaluated players, opponent fills)``: the seats checked (default all), names made into players,
    and per opponent the ``n_players - 1`` players who fill the other seats (none in a one-player game)."""
    n = game.n_players
    seats = list(range(n)) if seats is None else [int(x) for x in seats]
    if not seats or any(not 0 <= x < n for x in seats) or len(set(seats)) != len(seats):
        raise ValueError(f"seats must be distinct seats in 0..{n - 1}, got {seats}")
    evaluated = [_as_player(x, game, "player") for x in _as_list(players)]
    if not evaluated:
        raise ValueError("players is empty: give at least one player to evaluate")
    opp_entries = _as_list(opponents)
    if n == 1:
        opp_entries = [()]
    elif not opp_entries:
        raise ValueError(f"{game.id} has {n} players: give at least one opponent")
    opp_fills = []
    for o in opp_entries:
        if n == 1:
            opp_fills.append(())
        elif isinstance(o, tuple):
            if len(o) != n - 1:
                raise ValueError(f"a tuple of opponents must have {n - 1} players, got {len(o)}")
            opp_fills.append(tuple(_as_player(x, game, "opponent") for x in o))
        else:
            opp = _as_player(o, game, "opponent")
            opp_fills.append((opp,) * (n - 1))
    return seats, evaluated, opp_fills


def _games_per_seat(n_games, starts, desc: str, n_starts: int) -> int:
    """``n_games``, checked; by default one per listed start position, else 100."""
    if n_games is None:
        n_games = n_starts if isinstance(starts, list) and desc != "initial" else 100
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games must be an integer >= 1, got {n_games!r}")
    return n_games


def _matchups(game: GameSpec, evaluated: list, opp_fills: list, seats: list, n_games: int) -> tuple[list, list]:
    """``(matchups, tasks)``: one matchup per (evaluated player, opponent), with the players of every seat it
    takes, and the games to play as ``(matchup, opponent index, seat, game index)`` in that order."""
    n = game.n_players
    matchups, tasks = [], []
    for pl in evaluated:
        for oj, fill in enumerate(opp_fills):
            seat_lists = {}
            for seat in seats:
                others = iter(fill)
                seat_lists[seat] = [pl if i == seat else next(others) for i in range(n)]
            mi = len(matchups)
            opp_name = "+".join(dict.fromkeys(o.name for o in fill)) if fill else "-"
            matchups.append({"player": pl.name, "opponent": opp_name, "seats": seat_lists})
            for seat in seats:
                for g in range(int(n_games)):
                    tasks.append((mi, oj, seat, g))
    return matchups, tasks


def _play(game: GameSpec, matchups: list, starts, seed: int, tasks: list, jobs: int, backend: str,
          ray_address) -> tuple[list, float]:
    """``(records, seconds)``: every task's game record, in task order, here or in chunks on the backend."""
    t0 = time.perf_counter()
    if backend == "local" and (jobs == 1 or len(tasks) < 2):
        records = _run_tasks(game, matchups, starts, seed, tasks)
    else:
        records = _run_chunks(game, matchups, starts, seed, tasks, jobs, backend, ray_address)
    return records, time.perf_counter() - t0


def _summary(game: GameSpec, matchups: list, tasks: list, records: list, seats: list, keep_games: bool,
             **fields) -> EvalResult:
    """The :class:`EvalResult`: per matchup its overall and per-seat win rate (two players playing for a result)
    or mean score (N players, and games for chips: :attr:`GameSpec.headline_win_rate`)."""
    n = game.n_players
    two = game.headline_win_rate
    results = []
    for mi, m in enumerate(matchups):
        recs = [r for r, t in zip(records, tasks) if t[0] == mi]
        per_seat = [SeatStats(**summarise([r for r in recs if r["seat"] == seat], two, seat)) for seat in seats]
        results.append(Matchup(player=m["player"], opponent=m["opponent"], per_seat=per_seat,
                               games=recs if keep_games else [], **summarise(recs, two)))
    return EvalResult(game=game.id, params=dict(game.params), n_players=n,
                      metric="win_rate" if two else "mean_score", seats=seats, matchups=results, **fields)
