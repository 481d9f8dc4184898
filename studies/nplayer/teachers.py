"""N-player TD-FARL trained with reference players in some seats: does a learner that meets traps learn to avoid them?

The audit of ``docs/results/nplayer_learning.md`` found that the 3-player Yavalath learners' greedy self-play fills
the board without anyone making four (every game 61 plies), so the only results their training sees come from
ε-random moves that put a player out. The players they meet later (MCTS1000, Max-N1) set Yavalath's trap — a
threat whose forced block completes the blocker's own three — and the agents walk into it, because no player in
their self-play ever set it. This study gives the learner such players to learn from: in each training episode
every seat but one learning seat (rotating) is a *teacher* (an opponent name, e.g. ``maxn1``) with probability
``--share``, else a learning seat too (self-play). Only learning seats learn; a teacher's move adds its rewards
to every player's running total, and a game a teacher ends gives the learning seats their final adaptation (FARL
part 1) as any other end does.

The learner is farl's N-player preset (``--preset``, changes with ``--set KEY=VALUE``); the trained agent is an
ordinary farl agent file, saved every ``--chunk`` episodes (the run resumes from it) and evaluated with
``farl eval`` against two MCTS1000 players, 20 games per seat, the issue's protocol.

    python -m studies.nplayer.teachers --preset yavalath3p --teacher maxn1 --episodes 100000 \\
        --out runs/nplayer/yav3-teach-maxn1
    farl eval runs/nplayer/yav3-teach-maxn1/agent.npz --vs mcts1000 --games 20 --start-states initial --seed 0 \\
        --json > runs/nplayer/yav3-teach-maxn1-vs-mcts1000.json
    python -m studies.nplayer.teachers --page docs/results/nplayer_learning.md yav3-teach-maxn1 ...
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_json, atomic_write_text
from farl_agents.learners import NTupleAgent
from farl_agents.learners import kernels as K
from farl_agents.learners.presets import nplayer_config, nplayer_game
from farl_agents.learners.td_farl import after_move, choose_move, fill_candidates, final_adaptation, start_episode
from farl_agents.opponents import make_opponent
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE


def teacher_move(agent: NTupleAgent, teacher, s: np.ndarray, rng, rewards: np.ndarray, alpha: float) -> None:
    """A teacher's move in ``s`` (in place): every player's running total gets its rewards; when the move ends
    the game, the learning seats' last afterstates move towards their final rewards (FARL part 1)."""
    g, mem, prm = agent.game, agent.memory, agent.params
    mover = int(s[TO_MOVE])
    a = int(teacher.act(g, s.copy(), rng))
    g.afterstate(g.p, s, a, s, rewards)
    mem.cum[:] += rewards * prm.reward_scale
    if prm.shaping != 0.0:
        K.potential(agent.potential, g.p, s, mem.potential_out, mover)
    if s[TERMINAL]:
        final_adaptation(agent.net, agent.traces, prm._replace(farl_terminal=False), mem, mover, mem.state_idx,
                         alpha)


def learner_move(agent: NTupleAgent, s: np.ndarray, rewards: np.ndarray, alpha: float, epsilon: float) -> None:
    """A learning seat's ε-greedy move in ``s`` (in place) with its TD update, as the compiled self-play does."""
    g, mem, prm = agent.game, agent.memory, agent.params
    n = fill_candidates(agent.kernels, agent.potential, g.p, s, agent.net, prm, mem)
    player = int(s[TO_MOVE])
    k, was_random = choose_move(agent.net, prm, mem, player, n, epsilon, agent.agent_rng)
    g.afterstate(g.p, s, int(mem.cand_action[k]), s, rewards)
    if prm.shaping != 0.0:
        K.potential(agent.potential, g.p, s, mem.potential_out, player)
    after_move(agent.net, agent.traces, prm, mem, player, mem.cand_idx[k], rewards, bool(s[TERMINAL]), was_random,
               alpha, True, np.nan, mem.cand_potential[k])


def episode(agent: NTupleAgent, teacher, share: float, alpha: float, epsilon: float, rng) -> np.ndarray:
    """One training episode; returns every player's final reward."""
    g = agent.game
    n = g.n_players
    learner_seat = agent.episodes_done % n
    teachers = [seat != learner_seat and rng.random() < share for seat in range(n)]
    s = np.array(g.initial_state(g.p, agent.env_rng), dtype=np.int32)
    start_episode(agent.memory, agent.traces, bool(agent.config.carry_traces))
    rewards, total = np.zeros(n), np.zeros(n)
    while not s[TERMINAL]:
        if teachers[int(s[TO_MOVE])]:
            teacher_move(agent, teacher, s, make_rng(int(rng.integers(1 << 62))), rewards, alpha)
        else:
            learner_move(agent, s, rewards, alpha, epsilon)
        total += rewards
        if g.has_chance and not s[TERMINAL]:
            g.chance(g.p, s, agent.env_rng)
    agent.episodes_done += 1
    return total


def train(out: Path, preset: str, teacher_name: str, episodes: int, share: float = 1.0, changes: dict | None = None,
          chunk: int = 2000, log=print) -> Path:
    """Train (or resume) the agent in ``out/agent.npz`` to ``episodes`` episodes; its settings in ``out/study.json``."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "agent.npz"
    game, params = nplayer_game(preset)
    settings = {"preset": preset, "teacher": teacher_name, "share": share, "changes": changes or {},
                "episodes": episodes}
    if path.exists():
        agent = NTupleAgent.load(path)
        saved = json.loads((out / "study.json").read_text())
        if {k: saved[k] for k in settings if k != "episodes"} != {k: settings[k] for k in settings if k != "episodes"}:
            raise ValueError(f"{out} holds a run with other settings: {saved}")
    else:
        agent = NTupleAgent(game, nplayer_config(preset, seed=0, episodes=episodes, **(changes or {})), **params)
    atomic_write_json(out / "study.json", settings)
    teacher = make_opponent(teacher_name, agent.game)
    while agent.episodes_done < episodes:
        n = min(chunk, episodes - agent.episodes_done)
        alphas, epsilons = agent.schedules(n)
        rng = np.random.default_rng(agent.episodes_done)
        t0, results = time.perf_counter(), []
        for e in range(n):
            results.append(episode(agent, teacher, share, float(alphas[e]), float(epsilons[e]), rng))
        agent.save(path)
        won = np.mean([r.max() > 0 for r in results])
        log(f"{out.name}: {agent.episodes_done} episodes ({n / (time.perf_counter() - t0):.0f}/s; a winner in "
            f"{100 * won:.0f} % of the last {n})")
    return path


#: rows beside the teachers' runs on the page: (label, the evaluation JSON's name under runs/nplayer)
REFERENCE_ROWS = (("MCTS1000 itself", "yav3-mcts1000-vs-mcts1000"), ("Max-N1, the teacher", "yav3-maxn1-vs-mcts1000"),
                  ("`yav3-preset`, self-play only", "yav3-preset-vs-mcts1000"),
                  ("`yav3-shaped`, self-play only", "yav3-shaped-vs-mcts1000"))


def page_block(runs: Path, names: list[str]) -> str:
    """The page's table: each finished teachers' run (its settings from ``study.json``, its score from
    ``NAME-vs-mcts1000.json`` written by ``farl eval --json``) below the reference rows that exist."""
    lines = ["| player | teacher, share | changes | episodes | mean score against two MCTS1000 | wins / draws / "
             "losses |", "|---|---|---|---:|---:|---|"]

    def row(label, result, teacher="–", changes="–", episodes="–"):
        m = result["matchups"][0]
        lines.append(f"| {label} | {teacher} | {changes} | {episodes} | {m['mean_score']:+.3f} ± "
                     f"{m['score_se']:.3f} | {m['wins']} / {m['draws']} / {m['losses']} |")

    for label, name in REFERENCE_ROWS:
        path = runs / f"{name}.json"
        if path.exists():
            row(label, json.loads(path.read_text()))
    for name in names:
        path, study = runs / f"{name}-vs-mcts1000.json", runs / name / "study.json"
        if not (path.exists() and study.exists()):
            continue
        st = json.loads(study.read_text())
        changes = ", ".join(f"{k}={v}" for k, v in st["changes"].items()) or "–"
        row(f"`{name}`", json.loads(path.read_text()), f"{st['teacher']}, {st['share']:g}", changes,
            f"{st['episodes']:,}")
    lines += ["", "Each run: `python -m studies.nplayer.teachers --preset " "yavalath3p --teacher T --share S "
              "--episodes E [--set KEY=VALUE] --out runs/nplayer/NAME`, then `farl eval runs/nplayer/NAME/agent.npz "
              "--vs mcts1000 --games 20 --start-states initial --seed 0 --json > runs/nplayer/NAME-vs-mcts1000.json`; "
              "the table: `python -m studies.nplayer.teachers --page docs/results/nplayer_learning.md " +
              " ".join(names) + "`."]
    return "\n".join(lines)


def write_page(page: Path, block: str) -> None:
    """Put ``block`` between the page's ``<!-- teachers:start -->`` and ``<!-- teachers:end -->`` markers."""
    text = page.read_text()
    start, end = "<!-- teachers:start -->", "<!-- teachers:end -->"
    if start not in text or end not in text:
        raise ValueError(f"{page} has no {start} ... {end} markers")
    head, rest = text.split(start, 1)
    atomic_write_text(page, head + start + "\n" + block + "\n" + end + rest.split(end, 1)[1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="yavalath3p", help="farl's N-player preset (farl_agents.learners.presets)")
    ap.add_argument("--teacher", default="maxn1", help="the opponent name that plays the teaching seats")
    ap.add_argument("--share", type=float, default=1.0, help="probability that a non-learning seat is a teacher")
    ap.add_argument("--episodes", type=int, default=30000)
    ap.add_argument("--chunk", type=int, default=2000, help="episodes between saves")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a change to the preset")
    ap.add_argument("--out", help="the run folder (agent.npz, study.json)")
    ap.add_argument("--page", help="write the teachers' table of the runs named after it into this page instead")
    ap.add_argument("runs", nargs="*", help="with --page: the run names under runs/nplayer")
    args = ap.parse_args(argv)
    if args.page:
        write_page(Path(args.page), page_block(Path("runs/nplayer"), args.runs))
        return
    if not args.out:
        ap.error("--out is required to train")
    if not 0.0 <= args.share <= 1.0:
        ap.error("--share must be in [0, 1]")
    changes = {}
    for item in args.set:
        key, _, text = item.partition("=")
        changes[key] = json.loads(text) if text not in ("true", "false") else text == "true"
    train(Path(args.out), args.preset, args.teacher, args.episodes, args.share, changes, args.chunk)


if __name__ == "__main__":
    main()
