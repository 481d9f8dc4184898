"""When does final adaptation (FARL) matter? Who gets the final reward, measured per game.

Konen & Bagheri 2020 found FARL decisive for TicTacToe, Nim, Nim3P, Connect Four and Hex and neutral for
Othello, and left open why (their question (b)). Without FARL, player p's last afterstate ``s_last[p]`` is
adapted only when p moves again (``learners/td_farl.py``), so a final reward that arrives after p's last
move reaches p's table only through final adaptation part 1. This module measures, per game, from
self-play games of random players and of briefly trained TD agents (one with FARL, one without):

* who made the last move and the game's length (and its parity);
* whether the sign of a seat's final reward is tied to making the last move: for each seat, the share of
  its losses and of its wins that arrive *after* its last move (lost without FARL);
* with a trained agent: the value V_p(s_last[p]) of the seats that did not move last, split by their final
  reward, i.e. what part 1 would correct, and the part-1 delta (final reward − V) beside the size of the
  seat's last ordinary TD error; part 2's delta, the value of the mover's terminal afterstate (part 2 pulls
  it to 0); and how far one final adaptation step actually moves each of these values
  (:func:`value_after_step`: the agent's α at the end of training, its TCL factors and tanh slope, without
  the eligibility traces of earlier afterstates).

It reuses :mod:`studies.table1.final_rewards`' definition of a lost reward (the reward a seat
collects after its last move), with agents instead of random players only. Run::

    python -m studies.farl_when.farl_when --games 400 --out runs/farl_when.json

and ``--report docs/results/farl_when_tables.md`` writes the tables quoted in ``docs/results/farl_when.md``.
``--agents FILE ...`` measures agents trained elsewhere instead (an agent file, or a run folder holding
``agent.npz``, such as the N-player Table 1 runs): each one's ε-greedy self-play, with the same columns.
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

import numpy as np

import farl_envs
from farl_agents.atomic import atomic_write_text
from farl_agents.learners import NTupleAgent
from farl_agents.learners.presets import nplayer_config, nplayer_game, paper_config, paper_game_params
from farl_agents.loading import agent_file
from farl_agents.ntuple.network import board_indices, slots_of
from farl_envs.core.rng import make_rng, rng_choice_mask, rng_uniform
from farl_envs.core.spec import TERMINAL, TO_MOVE
from studies.formatting import pct


@dataclass(frozen=True)
class Entry:
    """One game of the measurement: its label, preset (paper or N-player) and the training budget used."""

    label: str
    preset: str
    nplayer: bool
    episodes: int   # training episodes of each agent (a fraction of the preset's budget for the slow games)


#: Table 1's two-player and Nim3P rows (Konen & Bagheri 2020 presets) and the N-player rows (issue 19)
ENTRIES = (
    Entry("TicTacToe", "tictactoe", False, 30_000),
    Entry("Nim 3x5", "nim", False, 20_000),
    Entry("Connect Four 7x6", "connect_four", False, 200_000),
    Entry("Hex 6x6", "hex", False, 100_000),
    Entry("Othello 8x8", "othello", False, 20_000),
    Entry("Nim3P 3x5", "nim3p", False, 300_000),
    Entry("Sim K6, 3 players", "sim3p", True, 50_000),
    Entry("Yavalath 5, 3 players", "yavalath3p", True, 20_000),
    Entry("EWN 6x6, 3 players", "ewn3p", True, 50_000),
)

#: The games of Cohen-Solal 2020's descent paper that farl added later (issue 20): they have no n-tuple preset,
#: so only random self-play is measured (``--random-only``), at the envs' default sizes
RANDOM_ONLY = (
    ("Breakthrough 8x8", "breakthrough"),
    ("Clobber 5x6", "clobber"),
    ("Amazons 10x10", "amazons"),
    ("Lines of Action 8x8", "lines_of_action"),
    ("Outer-Open Gomoku 15x15", "outer_open_gomoku"),
    ("Santorini", "santorini"),
    ("Surakarta", "surakarta"),
)


def make_agent(entry: Entry, farl: bool, seed: int) -> NTupleAgent:
    """A fresh agent of ``entry``'s preset (``farl`` switches both parts), budget = ``entry.episodes``."""
    if entry.nplayer:
        game, params = nplayer_game(entry.preset)
        cfg = nplayer_config(entry.preset, farl=farl, seed=seed, episodes=entry.episodes)
    else:
        game, params = entry.preset, paper_game_params(entry.preset)
        cfg = paper_config(entry.preset, farl=farl, seed=seed, episodes=entry.episodes)
    return NTupleAgent(farl_envs.game_spec(game, **params), cfg)


def value_after_step(agent: NTupleAgent, state: np.ndarray, player: int, target: float) -> tuple[float, float]:
    """``(V before, V after)`` of one TD step of V_player(state) towards ``target``, without changing the net.

    The step of ``ntuple.network.apply_change``: every (symmetric board, tuple) entry moves once by
    α/(m·N_S) · δ · σ'(ν) · TCL factor; ν then sums every occurrence (duplicates included).
    """
    net, prm, g = agent.net, agent.params, agent.game
    idx = np.empty(net.sym_cells.shape[:2], dtype=np.int64)
    board = np.zeros(2 * g.n_cells, dtype=np.int32)[: g.n_cells]
    g.board(g.p, state, board)
    board_indices(net, board, idx)
    nu = float(net.weights[0, player, slots_of(net, idx)].sum())
    v = float(np.tanh(nu)) if prm.tanh_output else nu
    change = (target - v) * ((1.0 - v * v) if prm.tanh_output else 1.0)
    alpha = float(agent.schedules(1)[0][0])
    step = alpha / idx.size
    moved = {}
    for i in range(idx.shape[1]):
        for j in range(idx.shape[0]):
            k = int(idx[j, i])
            if k in moved:
                continue
            factor = 1.0
            if net.tcl_n.shape[0] > 0:
                at = int(slots_of(net, k))
                ratio = abs(float(net.tcl_n[0, player, at])) / float(net.tcl_a[0, player, at])
                factor = np.exp(prm.tcl_beta * (ratio - 1.0)) if prm.tcl_exp else ratio
            moved[k] = step * change * factor
    nu_after = nu + sum(moved[int(k)] for k in idx.ravel())
    return v, float(np.tanh(nu_after)) if prm.tanh_output else nu_after


def play_game(game, agent: NTupleAgent | None, epsilon: float, rng) -> dict:
    """One self-play game; ``agent`` None plays uniformly at random, else ε-greedy with ``agent``'s values.

    Returns the last mover, the plies, each seat's final reward and the reward it got after its last move,
    and (with an agent) each seat's V_p(s_last), its last ordinary TD error and V_mover(terminal afterstate).
    """
    n = game.n_players
    s = game.initial_state(game.p, rng)
    after = s.copy()
    mask = np.zeros(game.n_actions, dtype=np.int8)
    step = np.zeros(n)
    total, at_last = np.zeros(n), np.zeros(n)
    v_last, td_last = np.full(n, np.nan), np.full(n, np.nan)
    has_last = np.zeros(n, dtype=bool)
    last_after = np.zeros((n, s.shape[0]), dtype=s.dtype)
    mover, plies, v_terminal = -1, 0, np.nan
    gamma = agent.config.gamma if agent is not None else 1.0
    while s[TERMINAL] == 0:
        mover = int(s[TO_MOVE])
        game.legal_actions(game.p, s, mask)
        if agent is None or (epsilon > 0 and rng_uniform(rng) < epsilon):
            a = rng_choice_mask(rng, mask)
        else:
            a = agent.act(game, s, rng)
        game.afterstate(game.p, s, a, after, step)
        total += step
        terminal_after = after[TERMINAL] != 0
        s[:] = after
        if not terminal_after:
            game.chance(game.p, s, rng)
        plies += 1
        if agent is not None:
            v_after = agent.afterstate_value(after, mover)
            if has_last[mover]:
                r = total[mover] - at_last[mover]
                target = r + gamma * (0.0 if s[TERMINAL] else v_after)
                td_last[mover] = target - v_last[mover]
            v_last[mover] = v_after
            last_after[mover] = after
            if s[TERMINAL]:
                v_terminal = v_after
        has_last[mover] = True
        at_last[mover] = total[mover]
    moves = np.full(n + 1, np.nan)  # |ΔV| of part 1 for each non-mover, then of part 2 for the mover
    if agent is not None:
        scale = agent.config.reward_scale
        for p in range(n):
            if p != mover and has_last[p]:
                before, after_step = value_after_step(agent, last_after[p], p, (total[p] - at_last[p]) * scale)
                moves[p] = abs(after_step - before)
        before, after_step = value_after_step(agent, last_after[mover], mover, 0.0)
        moves[n] = abs(after_step - before)
    return {"mover": mover, "plies": plies, "reward": total.copy(), "after_last": total - at_last,
            "v_last": v_last, "td_last": td_last, "v_terminal": v_terminal, "moved": has_last, "moves": moves}


def measure(game, agent: NTupleAgent | None, n_games: int, epsilon: float, seed: int) -> dict:
    """Aggregate :func:`play_game` over ``n_games`` games (see the module docstring for the quantities)."""
    rng = make_rng(seed)
    n = game.n_players
    plies, ended_win, ended_loss, decided = [], 0, 0, 0
    lost = {"loss": [0, 0], "win": [0, 0]}  # [arrived after the seat's last move, all]
    seat_lost = {"loss": np.zeros((n, 2)), "win": np.zeros((n, 2))}  # the same per seat
    ended = np.zeros(n)
    v_nonmover = {"loss": [], "win": [], "draw": []}
    delta_f, td_abs, v_term, move1, move2 = [], [], [], [], []
    for _ in range(n_games):
        g = play_game(game, agent, epsilon, rng)
        plies.append(g["plies"])
        final, m = g["reward"], g["mover"]
        ended[m] += 1
        if np.any(final != 0):
            decided += 1
            ended_win += final[m] > 0
            ended_loss += final[m] < 0
        for p in range(n):
            if final[p] != 0:
                key = "win" if final[p] > 0 else "loss"
                lost[key][0] += g["after_last"][p] != 0
                lost[key][1] += 1
                seat_lost[key][p] += (g["after_last"][p] != 0, 1)
        if agent is None:
            continue
        v_term.append(abs(g["v_terminal"]))
        move1.extend(x for x in g["moves"][:n] if x == x)
        move2.append(g["moves"][n])
        scale = agent.config.reward_scale
        for p in range(n):
            if p == m or not g["moved"][p]:
                continue
            key = "win" if final[p] > 0 else "loss" if final[p] < 0 else "draw"
            v_nonmover[key].append(g["v_last"][p])
            delta_f.append(abs(g["after_last"][p] * scale - g["v_last"][p]))
        td_abs.extend(abs(x) for x in g["td_last"] if x == x)
    plies = np.asarray(plies)
    out = {
        "games": n_games, "plies_mean": float(plies.mean()), "plies_even": float(np.mean(plies % 2 == 0)),
        "decided": decided / n_games,
        "last_mover_wins": ended_win / max(decided, 1), "last_mover_loses": ended_loss / max(decided, 1),
        "losses_lost": lost["loss"][0] / max(lost["loss"][1], 1), "losses": lost["loss"][1],
        "wins_lost": lost["win"][0] / max(lost["win"][1], 1), "wins": lost["win"][1],
        "seat_ended": (ended / n_games).tolist(),
        "seat_losses_lost": [float(a / b) if b else None for a, b in seat_lost["loss"]],
        "seat_wins_lost": [float(a / b) if b else None for a, b in seat_lost["win"]],
    }
    if agent is not None:
        out.update({
            "v_nonmover": {k: (float(np.mean(v)) if v else None) for k, v in v_nonmover.items()},
            "n_nonmover": {k: len(v) for k, v in v_nonmover.items()},
            "delta_farl1": float(np.mean(delta_f)) if delta_f else 0.0,
            "td_last": float(np.mean(td_abs)) if td_abs else 0.0,
            "move_farl1": float(np.mean(move1)) if move1 else 0.0,
            "delta_farl2": float(np.mean(v_term)) if v_term else 0.0,
            "move_farl2": float(np.mean(move2)) if move2 else 0.0,
            "alpha": float(agent.schedules(1)[0][0]),
        })
    return out


def run_entry(entry: Entry, n_games: int, seed: int, epsilon: float | None = None) -> dict:
    """Random play, then a FARL and a no-FARL agent of ``entry`` trained and measured (ε-greedy self-play)."""
    a = make_agent(entry, True, seed)
    eps = a.config.epsilon if epsilon is None else epsilon
    res = {"label": entry.label, "preset": entry.preset, "episodes": entry.episodes, "epsilon": eps,
           "random": measure(a.game, None, n_games, 0.0, seed)}
    for name, farl in (("farl", True), ("nofarl", False)):
        agent = a if farl else make_agent(entry, False, seed)
        t0 = time.process_time()
        agent.train(entry.episodes)
        res[name] = measure(agent.game, agent, n_games, eps, seed)
        res[name]["train_cpu_s"] = round(time.process_time() - t0, 1)
    return res


class HideOwnLoss:
    """A farl AEC env as a learner sees it with the mover's own negative final reward hidden (reported as 0).

    Without FARL a seat then never learns a loss, as in Hex, where losses never arrive on the loser's own
    move: the intervention that tests whether Othello's two-sided signal is why it needs no FARL. Move
    choice is unchanged (the candidates' rewards come from ``afterstates()``, which is not touched).
    """

    def __init__(self, raw):
        self._raw = raw
        self._mover = None

    @property
    def unwrapped(self):
        return self

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def step(self, action):
        self._mover = self._raw.agent_selection
        self._raw.step(action)

    @property
    def rewards(self):
        r = dict(self._raw.rewards)
        if self._mover is not None and self._raw.terminations.get(self._mover, False) and r.get(self._mover, 0) < 0:
            r[self._mover] = 0.0
        return r


def one_sided_othello(hide: bool, episodes: int, seed: int, games: int) -> dict:
    """Train a no-FARL Othello agent (paper preset) through the AEC loop, with or without :class:`HideOwnLoss`,
    and score it against Bench from the first ``games`` 4-ply openings in both colours."""
    from farl_agents.runs.evaluation import evaluate_agent

    agent = NTupleAgent("othello", paper_config("othello", farl=False, seed=seed, episodes=episodes))
    raw = farl_envs.make_raw("othello")
    t0 = time.process_time()
    agent.train_aec(HideOwnLoss(raw) if hide else raw, episodes)
    res = evaluate_agent(agent, ["bench"], "othello-4ply", games, seed=seed)
    m = res.matchups[0]
    return {"hide_own_loss": hide, "episodes": episodes, "seed": seed, "score_bench": float(m.score),
            "se": float(m.win_rate_se), "games": int(m.n_games), "cpu_s": round(time.process_time() - t0, 1)}


def _seats(xs) -> str:
    return " / ".join(pct(x, 0) for x in xs)


def _num(x) -> str:
    return "–" if x is None else f"{x:+.2f}"


def report(results: list[dict]) -> str:
    """The Markdown tables of ``results`` (one :func:`run_entry` dict per game)."""
    lines = ["### Who gets the final reward (random self-play)", "",
             "| game | plies (mean) | even length | last mover wins | last mover loses | "
             "losses lost without FARL | wins lost without FARL | per seat: made the last move | "
             "per seat: losses lost | per seat: wins lost |", "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for r in results:
        m = r["random"]
        lines.append(f"| {r['label']} | {m['plies_mean']:.1f} | {pct(m['plies_even'], 0)} | "
                     f"{pct(m['last_mover_wins'], 0)} | {pct(m['last_mover_loses'], 0)} | "
                     f"{pct(m['losses_lost'], 0)} | {pct(m['wins_lost'], 0)} | {_seats(m['seat_ended'])} | "
                     f"{_seats(m['seat_losses_lost'])} | {_seats(m['seat_wins_lost'])} |")
    trained = [r for r in results if "farl" in r]
    for name, title in (("nofarl", "no-FARL agent"), ("farl", "FARL agent")):
        if not trained:
            break
        lines += ["", f"### Self-play of the {title} (ε-greedy with the preset's ε)", "",
                  "| game | episodes | plies | last mover wins | losses lost without FARL | per seat | "
                  "V(s_last) of a non-mover who lost | … who won | … drew | part-1 delta | part-1 step moves V by | "
                  "last TD error | part-2 delta | part-2 step moves V by |",
                  "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in trained:
            m = r[name]
            v = m["v_nonmover"]
            lines.append(f"| {r['label']} | {r['episodes']:,} | {m['plies_mean']:.1f} | "
                         f"{pct(m['last_mover_wins'], 0)} | {pct(m['losses_lost'], 0)} | "
                         f"{_seats(m['seat_losses_lost'])} | {_num(v['loss'])} | "
                         f"{_num(v['win'])} | {_num(v['draw'])} | {m['delta_farl1']:.2f} | "
                         f"{m['move_farl1']:.3f} | {m['td_last']:.2f} | {m['delta_farl2']:.2f} | "
                         f"{m['move_farl2']:.3f} |")
    return "\n".join(lines) + "\n"


def measure_agents(paths: list[str], n_games: int, seed: int, epsilon: float | None = None) -> list[dict]:
    """:func:`measure` on each trained agent's ε-greedy self-play (ε: its own final ε unless given)."""
    out = []
    for path in paths:
        agent = NTupleAgent.load(agent_file(path))
        eps = agent.schedules(1)[1][0] if epsilon is None else epsilon
        m = measure(agent.game, agent, n_games, float(eps), seed)
        out.append({"agent": str(path), "farl": bool(agent.config.farl), "td_chain": agent.config.td_chain,
                    "episodes": int(agent.episodes_done), "epsilon": float(eps), "self_play": m})
    return out


def report_agents(results: list[dict]) -> str:
    """The Markdown table of :func:`measure_agents`' results."""
    lines = ["# Who gets the final reward in trained agents' self-play", "",
             "Written by `python -m studies.farl_when.farl_when --agents ...` (the command is on the page that "
             "quotes this table).", "",
             "| agent | FARL | chain | plies | losses lost without FARL | per seat | "
             "V(s_last) of a non-mover who lost | … who won | … drew |", "|---|---|---|---:|---:|---|---:|---:|---:|"]
    for r in results:
        m = r["self_play"]
        v = m["v_nonmover"]
        lines.append(f"| `{r['agent']}` | {'yes' if r['farl'] else 'no'} | {r['td_chain']} | {m['plies_mean']:.1f} | "
                     f"{pct(m['losses_lost'], 0)} | {_seats(m['seat_losses_lost'])} | {_num(v['loss'])} | "
                     f"{_num(v['win'])} | {_num(v['draw'])} |")
    return "\n".join(lines) + "\n"


def _publish(args, results: list[dict], tables) -> None:
    """Write ``results`` to ``--out`` (JSON) and their tables (``tables(results)``) to ``--report``; print them."""
    if args.out:
        atomic_write_text(args.out, json.dumps(results, indent=1))
    text = tables(results)
    if args.report:
        atomic_write_text(args.report, text)
    print(text)


def _kept(out: str | None, key: str) -> dict:
    """The entries of the JSON file ``out`` by their ``key`` (none when there is no such file): what a rerun
    keeps and does not measure again."""
    if not out:
        return {}
    try:
        with open(out) as f:
            return {r[key]: r for r in json.load(f)}
    except FileNotFoundError:
        return {}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="self-play games per game and player kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="+", help="presets to measure (default: all of ENTRIES)")
    ap.add_argument("--episodes-scale", type=float, default=1.0, help="multiply every training budget")
    ap.add_argument("--out", help="JSON file; entries already in it are kept and skipped (resumable)")
    ap.add_argument("--report", help="write the Markdown tables of --out here")
    ap.add_argument("--one-sided", choices=("hide", "plain"), help="instead: train one no-FARL Othello agent, "
                    "hiding each mover's own final loss (hide) or not (plain), and score it against Bench")
    ap.add_argument("--episodes", type=int, default=12_000, help="--one-sided: training episodes")
    ap.add_argument("--random-only", action="store_true",
                    help="instead: random self-play only, on the descent paper's games (RANDOM_ONLY)")
    ap.add_argument("--agents", nargs="+", metavar="FILE",
                    help="instead: measure these trained agents (agent files or run folders) in their own "
                         "self-play; --out and --report take their results (agents already in --out are kept "
                         "and not measured again)")
    ap.add_argument("--epsilon", type=float, help="--agents: exploration of the self-play (default: each agent's "
                    "final ε)")
    args = ap.parse_args(argv)
    if args.agents:
        kept = _kept(args.out, "agent")
        todo = [p for p in args.agents if str(p) not in kept]
        _publish(args, list(kept.values()) + measure_agents(todo, args.games, args.seed, args.epsilon),
                 report_agents)
        return
    if args.one_sided:
        print(json.dumps(one_sided_othello(args.one_sided == "hide", args.episodes, args.seed, args.games)))
        return
    if args.random_only:
        _publish(args, [{"label": label, "preset": game,
                         "random": measure(farl_envs.game_spec(game), None, args.games, 0.0, args.seed)}
                        for label, game in RANDOM_ONLY], report)
        return
    known = {e.preset: e for e in ENTRIES}
    chosen = args.only or list(known)
    bad = [k for k in chosen if k not in known]
    if bad:
        raise SystemExit(f"unknown preset(s) {', '.join(bad)}; known: {', '.join(known)}")
    done = _kept(args.out, "preset")
    for key in chosen:
        if key in done:
            continue
        e = known[key]
        e = Entry(e.label, e.preset, e.nplayer, max(1, int(e.episodes * args.episodes_scale)))
        done[key] = run_entry(e, args.games, args.seed)
        print(json.dumps(done[key]), flush=True)
        if args.out:
            atomic_write_text(args.out, json.dumps([done[k] for k in known if k in done], indent=1))
    results = [done[k] for k in known if k in done]
    text = report(results)
    if args.report:
        atomic_write_text(args.report, text)
    print(text)


if __name__ == "__main__":
    main()
