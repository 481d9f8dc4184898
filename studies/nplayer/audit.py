"""How the N-player agents lose, and whether their n-tuples can see the patterns that decide the games.

Two measurements for ``docs/results/nplayer_learning.md``:

* :func:`outcomes`: the evaluated player in every seat against copies of an opponent; each game's result for the
  player is put in one class by *when* its reward arrived: a win on its own move or on someone else's, out
  (or lost) on its own move — *forced* when every legal move there gave it a negative reward (Yavalath's
  forced block onto a three, Sim's last edges), *chosen* otherwise — a loss on someone else's move, or a draw.
  Only the first non-zero reward of the player counts (an out player keeps his -1).
* :func:`value_spread`: the quantiles of the agent's values of every legal move's afterstate, from the mover's
  seat, along random games: how far its value function tells one move from another (a learner whose values sit in a
  narrow band plays its moves almost alike, whatever it learned).
* :func:`value_truth`: the agent's values of every candidate move beside their *true* values under the agent's
  own ε-greedy self-play (Monte-Carlo rollouts from each afterstate, the agent in every seat): whether a narrow
  spread of values is the learner's failure to fit (the true values spread, the learned ones do not) or a fact of
  the self-play it learns from (the true values are as flat).
* :func:`selfplay_outcomes`: how the agent's own self-play games end, greedy and ε-greedy: their length, the
  share with a winner, the result vectors. What the learner is shown is what its self-play produces.
* :func:`coverage`: the share of a game's deciding patterns (Yavalath's straight lines of 3 and of 4 cells,
  Sim's triangles of 3 edges) that lie wholly inside at least one n-tuple, in any of the symmetric images the
  agent evaluates: a tuple that holds a whole pattern can value it exactly; patterns split over tuples are seen
  only as sums of parts.

    python -m studies.nplayer.audit runs/nplayer/yav3-preset --vs mcts1000 --games 10
    python -m studies.nplayer.audit mcts1000 --game yavalath --param players=3 --games 10
    python -m studies.nplayer.audit runs/gbg_agents/yavalath.farl.npz --coverage-only
    python -m studies.nplayer.audit runs/nplayer/yav3-preset runs/nplayer/yav3-nofarl --values
    python -m studies.nplayer.audit runs/nplayer/yav3-preset/agent.npz --truth --positions 40 --rollouts 20
    python -m studies.nplayer.audit runs/nplayer/yav3-preset/agent.npz --selfplay --games 200
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

import farl_envs
from farl_agents.learners import NTupleAgent
from farl_agents.loading import load_player
from farl_agents.opponents import make_opponent
from farl_agents.players import reset_player
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE

CLASSES = ("win on own move", "win on another's move", "out on own move, forced", "out on own move, chosen",
           "loss on another's move", "draw")


def _all_moves_lose(game, s, seat, scratch, rewards, mask) -> bool:
    game.legal_actions(game.p, s, mask)
    for a in np.flatnonzero(mask):
        game.afterstate(game.p, s, int(a), scratch, rewards)
        if rewards[seat] >= 0:
            return False
    return True


def classify_game(game, players, seat: int, env_rng, player_rng) -> str:
    """Play one game from the initial position (``players[i]`` in seat i); the class of seat ``seat``'s result."""
    n = game.n_players
    s = np.array(game.initial_state(game.p, env_rng), dtype=np.int32)
    rewards, probe = np.zeros(n), np.zeros(n)
    scratch = np.zeros_like(s)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    for p in {id(x): x for x in players}.values():
        reset_player(p)
    while not s[TERMINAL]:
        mover = int(s[TO_MOVE])
        forced = mover == seat and _all_moves_lose(game, s, seat, scratch, probe, mask)
        a = players[mover].act(game, s.copy(), player_rng)
        game.afterstate(game.p, s, int(a), s, rewards)
        if rewards[seat] != 0:
            own = mover == seat
            if rewards[seat] > 0:
                return CLASSES[0] if own else CLASSES[1]
            if own:
                return CLASSES[2] if forced else CLASSES[3]
            return CLASSES[4]
        if game.has_chance and not s[TERMINAL]:
            game.chance(game.p, s, env_rng)
    return CLASSES[5]


def outcomes(game, player, opponent, games: int, seed: int = 0) -> dict[int, Counter]:
    """``{seat: Counter of classes}`` over ``games`` games per seat of ``player`` against copies of ``opponent``."""
    env_rng, player_rng = make_rng(seed), make_rng(seed + 1)
    out = {}
    for seat in range(game.n_players):
        seats = [opponent] * game.n_players
        seats[seat] = player
        out[seat] = Counter(classify_game(game, seats, seat, env_rng, player_rng) for _ in range(games))
    return out


def patterns(game) -> dict[str, list[tuple]]:
    """The deciding patterns of a game as cell sets: Yavalath's lines of 3 and 4, Sim's triangles; {} for others."""
    name = game.id.split("_v")[0]
    if name == "yavalath":
        from farl_envs.games.yavalath import neighbour_table

        size = next(k for k in range(2, 20) if 3 * k * (k - 1) + 1 == game.n_cells)
        nb = neighbour_table(size)
        out = {}
        for length in (3, 4):
            lines = set()
            for c in range(nb.shape[0]):
                for d in range(3):
                    cells, x = [c], c
                    for _ in range(length - 1):
                        x = int(nb[x, d])
                        if x < 0:
                            break
                        cells.append(x)
                    if len(cells) == length:
                        lines.add(tuple(sorted(cells)))
            out[f"straight lines of {length}"] = sorted(lines)
        return out
    if name == "sim":
        from farl_envs.games.sim import edge_list

        nodes = next(k for k in range(3, 30) if k * (k - 1) // 2 == game.n_cells)
        edges = {e: k for k, e in enumerate(edge_list(nodes))}
        tri = [tuple(sorted((edges[(i, j)], edges[(j, k)], edges[(i, k)])))
               for i in range(nodes) for j in range(i + 1, nodes) for k in range(j + 1, nodes)]
        return {"triangles": tri}
    return {}


def coverage(tuples: np.ndarray, symmetries: np.ndarray, cells: list[tuple]) -> float:
    """Share of the patterns ``cells`` (cell sets) inside at least one tuple, in some symmetric image.

    ``symmetries[j][c]`` is the cell that cell ``c`` becomes in image j (the identity included).
    """
    sets = [set(int(c) for c in t if c >= 0) for t in tuples]
    seen = 0
    for pattern in cells:
        images = [{int(sym[c]) for c in pattern} for sym in symmetries]
        seen += any(img <= s for img in images for s in sets)
    return seen / len(cells) if cells else float("nan")


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def value_spread(agent: NTupleAgent, game, games: int = 30, seed: int = 0) -> np.ndarray:
    """The :data:`QUANTILES` of ``agent``'s values V(s'|mover) of the afterstates s' of every legal move that does
    not end the game, over ``games`` games of uniformly random moves (seed ``seed``)."""
    rng = np.random.default_rng(seed)
    mask, rewards, values = np.zeros(game.n_actions, np.int8), np.zeros(game.n_players), []
    for g in range(games):
        s = np.array(game.initial_state(game.p, make_rng(seed + g)))
        while not s[TERMINAL]:
            game.legal_actions(game.p, s, mask)
            mover = int(s[TO_MOVE])
            for a in np.flatnonzero(mask):
                after = s.copy()
                game.afterstate(game.p, s, a, after, rewards)
                if not after[TERMINAL]:
                    values.append(agent.afterstate_value(after, mover))
            game.afterstate(game.p, s, int(rng.choice(np.flatnonzero(mask))), s, rewards)
            if not s[TERMINAL]:
                game.chance(game.p, s, make_rng(int(rng.integers(1 << 62))))
    return np.quantile(np.asarray(values), QUANTILES)


def selfplay_move(agent: NTupleAgent, game, s: np.ndarray, epsilon: float, rng, mask, rewards) -> None:
    """One ply of the agent's ε-greedy self-play in ``s`` (in place; the step's rewards in ``rewards``): a uniformly
    random legal move with probability ``epsilon``, else the agent's greedy one; then any chance event."""
    if rng.random() < epsilon:
        game.legal_actions(game.p, s, mask)
        a = int(rng.choice(np.flatnonzero(mask)))
    else:
        a = agent.act(game, s.copy(), make_rng(int(rng.integers(1 << 62))))
    game.afterstate(game.p, s, a, s, rewards)
    if game.has_chance and not s[TERMINAL]:
        game.chance(game.p, s, make_rng(int(rng.integers(1 << 62))))


def _rollout(agent: NTupleAgent, game, s: np.ndarray, seat: int, epsilon: float, rng, mask, rewards) -> float:
    """``seat``'s reward from ``s`` (a position to be moved from, chance already resolved) to the game's end, the
    agent moving in every seat, uniformly at random with probability ``epsilon``."""
    total = 0.0
    s = s.copy()
    while not s[TERMINAL]:
        selfplay_move(agent, game, s, epsilon, rng, mask, rewards)
        total += rewards[seat]
    return total


def selfplay_outcomes(agent: NTupleAgent, game, games: int = 200, epsilon: float = 0.0, seed: int = 0) -> dict:
    """``games`` games of the agent against itself in every seat, a uniformly random move with probability
    ``epsilon``: the mean length in plies, the share of games with a winner (some player's total > 0) and the
    count of each result vector (sorted, so seats are pooled)."""
    rng = np.random.default_rng(seed)
    mask, rewards = np.zeros(game.n_actions, np.int8), np.zeros(game.n_players)
    plies, results = [], Counter()
    for k in range(games):
        s = np.array(game.initial_state(game.p, make_rng(seed + k + 1)), dtype=np.int32)
        total, t = np.zeros(game.n_players), 0
        while not s[TERMINAL]:
            selfplay_move(agent, game, s, epsilon, rng, mask, rewards)
            total += rewards
            t += 1
        plies.append(t)
        results[tuple(float(x) for x in sorted(np.round(total, 3)))] += 1
    return {"plies": float(np.mean(plies)), "winner": sum(n for r, n in results.items() if max(r) > 0) / games,
            "results": dict(results.most_common())}


def value_truth(agent: NTupleAgent, game, positions: int = 40, rollouts: int = 20, epsilon: float = 0.1,
                seed: int = 0) -> dict:
    """The agent's value V(s'|mover) of each quiet candidate move (one that neither ends the game nor gives anyone a
    reward: only the tables tell those apart) beside its Monte-Carlo value under the agent's own ε-greedy
    self-play: the mover's mean reward over ``rollouts`` continuations from s' (chance drawn anew in each).

    The positions are one per self-play game (ε-greedy, the same policy), at a uniformly drawn ply, keeping those
    with at least two quiet candidates. Returned: per position the standard deviation of the learned values and of
    the true ones over its candidates, the correlation between the two (Pearson, over candidates), and the mean of
    learned minus true; every figure is a mean over positions with its standard error. The true spread and the
    correlation are corrected for the rollouts' sampling noise (its variance, estimated from the rollouts, is taken
    off the spread of the means; the correlation is divided by the attenuation it causes), so they can be noisy
    with few rollouts; a position whose corrected true spread is 0 gives no correlation.
    """
    rng = np.random.default_rng(seed)
    mask, rewards = np.zeros(game.n_actions, np.int8), np.zeros(game.n_players)
    rows = []
    while len(rows) < positions:
        s = np.array(game.initial_state(game.p, make_rng(int(rng.integers(1 << 62)))), dtype=np.int32)
        trail = []
        while not s[TERMINAL]:
            trail.append(s.copy())
            selfplay_move(agent, game, s, epsilon, rng, mask, rewards)
        s = trail[int(rng.integers(len(trail)))]
        game.legal_actions(game.p, s, mask)
        moves = np.flatnonzero(mask)
        mover = int(s[TO_MOVE])
        learned, true, noise = [], [], []
        for a in moves:
            after = s.copy()
            game.afterstate(game.p, s, int(a), after, rewards)
            if after[TERMINAL] or rewards.any():
                continue  # a move with a reward of its own is valued by that reward, not by the tables
            learned.append(agent.afterstate_value(after, mover))
            results = []
            for _ in range(rollouts):
                x = after.copy()
                if game.has_chance:
                    game.chance(game.p, x, make_rng(int(rng.integers(1 << 62))))
                results.append(_rollout(agent, game, x, mover, epsilon, rng, mask, rewards))
            true.append(np.mean(results))
            noise.append(np.var(results, ddof=1) / rollouts)
        if len(learned) < 2:
            continue
        learned, true = np.asarray(learned), np.asarray(true)
        # the Monte-Carlo means carry sampling noise: their spread over the candidates, less the noise's share,
        # estimates the spread of the exact values; the correlation is corrected for the same attenuation
        between = np.var(true, ddof=1)
        exact = max(between - float(np.mean(noise)), 0.0)
        corr = float("nan")
        if learned.std() > 0 and exact > 0:
            corr = float(np.corrcoef(learned, true)[0, 1]) * np.sqrt(between / exact)
        rows.append((learned.std(ddof=1), np.sqrt(exact), corr, float((learned - true).mean())))
    out = {}
    for k, name in enumerate(("learned spread", "true spread", "correlation", "bias")):
        col = np.array([r[k] for r in rows])
        col = col[~np.isnan(col)]
        out[name] = (float(col.mean()), float(col.std(ddof=1) / np.sqrt(len(col))) if len(col) > 1 else 0.0)
    out["positions"] = len(rows)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("agents", nargs="+", help="agent files or run folders (or opponent names with --game)")
    ap.add_argument("--vs", default="mcts1000")
    ap.add_argument("--games", type=int, default=6, help="games per seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--coverage-only", action="store_true", help="print the pattern coverage without playing")
    ap.add_argument("--values", action="store_true",
                    help="print the quantiles of the agents' afterstate values along random games, without playing")
    ap.add_argument("--truth", action="store_true",
                    help="print the agents' move scores beside their Monte-Carlo values under their own self-play")
    ap.add_argument("--selfplay", action="store_true",
                    help="print how the agents' own self-play games end, greedy and with --epsilon random moves")
    ap.add_argument("--positions", type=int, default=40, help="--truth: positions sampled")
    ap.add_argument("--rollouts", type=int, default=20, help="--truth: continuations per candidate move")
    ap.add_argument("--epsilon", type=float, default=0.1, help="--truth: random-move rate of the self-play")
    ap.add_argument("--game", help="the game of opponent names among the agents (agent files bring their own)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a parameter of --game")
    args = ap.parse_args(argv)
    named = None
    if args.game:
        named = farl_envs.game_spec(args.game, **{k: int(v) if v.isdigit() else v
                                                  for k, v in (p.split("=", 1) for p in args.param)})
    if args.selfplay:
        print("| agent | random moves | mean plies | games with a winner | results (sorted rewards: games) |")
        print("|---|---:|---:|---:|---|")
        for text in args.agents:
            agent = NTupleAgent.load(text)
            for eps in dict.fromkeys((0.0, args.epsilon)):
                row = selfplay_outcomes(agent, agent.game, args.games, eps, args.seed)
                res = "; ".join(f"({', '.join(f'{x:+g}' for x in r)}): {n}" for r, n in row["results"].items())
                print(f"| {text} | {100 * eps:.0f} % | {row['plies']:.1f} | {100 * row['winner']:.0f} % | {res} |",
                      flush=True)
        return
    if args.truth:
        names = ("learned spread", "true spread", "correlation", "bias")
        print("| agent | positions | " + " | ".join(names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for text in args.agents:
            agent = NTupleAgent.load(text)
            row = value_truth(agent, agent.game, args.positions, args.rollouts, args.epsilon, args.seed)
            print(f"| {text} | {row['positions']} | " + " | ".join(f"{row[k][0]:+.3f} ± {row[k][1]:.3f}"
                                                                    for k in names) + " |", flush=True)
        return
    if args.values:
        print("| agent | " + " | ".join(f"{100 * q:.0f} %" for q in QUANTILES) + " |")
        print("|---|" + "---:|" * len(QUANTILES))
        for text in args.agents:
            agent = NTupleAgent.load(text)
            row = value_spread(agent, agent.game, args.games * agent.game.n_players, args.seed)
            print(f"| {text} | " + " | ".join(f"{v:+.2f}" for v in row) + " |", flush=True)
        return
    print("| agent | " + " | ".join(CLASSES) + " | pattern coverage |")
    print("|---|" + "---|" * (len(CLASSES) + 1))
    for text in args.agents:
        player, game = load_player(text, named)
        counts = {} if args.coverage_only else outcomes(game, player, make_opponent(args.vs, game), args.games,
                                                        args.seed)
        total = sum(counts.values(), Counter())
        n = sum(total.values())
        cov = ""
        if isinstance(player, NTupleAgent):  # other families have no tuples
            tuples = player.tuples
            syms = np.asarray(game.symmetries(game.p)) if player.config.use_symmetry else \
                np.arange(game.n_cells)[None, :]
            cov = "; ".join(f"{k} {100 * coverage(tuples, syms, v):.0f} %" for k, v in patterns(game).items())
        print(f"| {text} | " + " | ".join(f"{total[c]}/{n}" for c in CLASSES) + f" | {cov} |", flush=True)


if __name__ == "__main__":
    main()
