"""Merge independently trained n-tuple agents of one game into one agent: an ensemble as a single network.

Why: on EinStein würfelt nicht with 3 players the learner of ``nplayer_learning.md`` §8 ends 1.5 s.e. below
MCTS1000, and neither twice its tuples nor twice its episodes lifts it. Runs that differ only in their seed
(their random-walk tuples and their self-play games) make partly independent errors; averaging them is the
oldest way to cut such errors (bagging), and an n-tuple network allows it without any new machinery.

How: an n-tuple value is ``σ(Σ_i w_i[index_i(s)])``, a sum over tuples. K agents with the same game, player
sets and output squash become one agent whose tuples are all K agents' tuples, one after another, and whose
weights are theirs divided by K: its raw value is the mean of the K raw values, so it plays as the ensemble
that averages the agents' values before the squash. The merged file is an ordinary farl agent: ``farl eval``,
the search wrappers and the ladder take it as they take any agent.

Run::

    # merge agents or run folders that exist
    python -m studies.nplayer.ensemble runs/a runs/b runs/c --out runs/abc
    # train the members first: run LIKE's settings with other seeds, each in LIKE-seed<S> (LIKE itself for its
    # own seed); resumable, a finished member is not trained again
    python -m studies.nplayer.ensemble --like runs/nplayer/ewn3-gbg-60x6-1m --seeds 0-8 --out runs/nplayer/ewn3-ens9

The file ``<out>/agent.npz`` and a ``<out>/ensemble.json`` that names the members are written atomically.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from farl_agents.atomic import atomic_write_text
from farl_agents.learners.agent import NTupleAgent
from farl_agents.ntuple import network
from farl_agents.runs import Run, read_spec


def agent_file(path: str | Path) -> Path:
    """An agent file, or a run folder's ``agent.npz``."""
    path = Path(path)
    return path / "agent.npz" if path.is_dir() else path


def merge(agents: list[NTupleAgent]) -> NTupleAgent:
    """One agent that plays as the mean of ``agents``' raw values (see the module docstring).

    The merged agent is for play: settings that only steer learning (step sizes, TCL, teachers) are the first
    agent's, without TCL (its accumulators are not merged).

    Raises ``ValueError`` when the agents cannot be merged: other games or game parameters, other output squash,
    symmetries, TD chain or shaping weight, Q/SARSA networks (one output per action), or other weight-set counts."""
    if len(agents) < 2:
        raise ValueError("merge needs at least two agents")
    first = agents[0]
    for other in agents[1:]:
        if (other.game.name, other.game.params) != (first.game.name, first.game.params):
            raise ValueError(f"cannot merge agents of {first.game.name} {first.game.params} and "
                             f"{other.game.name} {other.game.params}")
        if other.config.tanh_output != first.config.tanh_output:
            raise ValueError("cannot merge agents with and without the output tanh")
        for setting in ("use_symmetry", "td_chain", "shaping", "algo"):
            if getattr(other.config, setting) != getattr(first.config, setting):
                raise ValueError(f"cannot merge agents whose {setting} differs: {getattr(first.config, setting)!r} "
                                 f"and {getattr(other.config, setting)!r}")
    for agent in agents:
        if agent.net.weights.shape[0] != 1:
            raise ValueError("merge takes TD agents (one output); SARSA/Q networks have one output per action")
        if agent.net.weights.shape[1] != first.net.weights.shape[1]:
            raise ValueError("cannot merge agents with different numbers of weight sets")
    if len({a.tuples.shape[1] for a in agents}) != 1:
        raise ValueError("merge takes agents whose tuples have one length")
    tuples = np.concatenate([a.tuples for a in agents])
    config = dataclasses.replace(first.config, ntuples="explicit", ntuple_cells=tuple(map(tuple, tuples.tolist())),
                                 ntuple_count=int(tuples.shape[0]), table_layout="paged", tcl="none")
    merged = NTupleAgent(first.game, config, tuples=tuples, layout="paged")
    total = network.lut_size(merged.net)
    shift = 0
    k = len(agents)
    for agent in agents:
        net = agent.net
        lut = network.lut_size(net)
        dense = network.as_dense(net, net.weights)  # float32[1, sets, lut]
        sets, keys = np.nonzero(dense[0])
        values = dense[0, sets, keys] / np.float32(k)
        network.store(merged.net, merged.net.weights, sets.astype(np.int64) * total + shift + keys, values)
        shift += lut
    merged.episodes_done = sum(a.episodes_done for a in agents)
    return merged


def seed_range(text: str) -> list[int]:
    """``"0-8"`` or ``"0,2,5"`` as a list of seeds."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-"))
            seeds = list(range(low, high + 1))
        else:
            seeds = [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"seeds must look like 0-8 or 0,2,5, got {text!r}") from None
    if len(seeds) < 2 or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must name two or more different seeds >= 0, got {text!r}")
    return seeds


def train_members(like: Path, seeds: list[int], progress: bool = False) -> list[Path]:
    """The run folders of ``like``'s settings with each of ``seeds``: ``like`` itself for its own seed, else
    ``<like>-seed<S>``; trained to the end where they are not (resumed from a checkpoint when there is one)."""
    spec = read_spec(like)
    folders = []
    for seed in seeds:
        if seed == spec.config.seed:
            folder, member = like, spec
        else:
            folder = like.parent / f"{like.name}-seed{seed}"
            member = dataclasses.replace(spec, config=dataclasses.replace(spec.config, seed=seed))
        run, _ = Run.open_or_create(folder, member, other_settings=f"settings other than {like}'s with seed {seed}")
        if not run.finished:
            print(f"training {folder} (seed {seed})", flush=True)
            if run.train(progress=progress) != "done":
                raise SystemExit(f"{folder}: training interrupted; run the command again to continue")
        folders.append(folder)
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("agents", nargs="*", help="agent files or run folders (two or more), or none with --like")
    parser.add_argument("--like", help="a run folder whose settings the members repeat with other seeds")
    parser.add_argument("--seeds", help="with --like: the members' seeds, e.g. 0-8")
    parser.add_argument("--out", required=True, help="folder for the merged agent.npz and ensemble.json")
    args = parser.parse_args(argv)
    if (args.like is None) == (not args.agents) or (args.like is None) != (args.seeds is None):
        parser.error("give two or more agents, or --like RUN with --seeds")
    if args.like is not None:
        try:
            seeds = seed_range(args.seeds)
        except ValueError as exc:
            parser.error(str(exc))
        paths = [agent_file(p) for p in train_members(Path(args.like), seeds)]
    else:
        paths = [agent_file(p) for p in args.agents]
    agents = [NTupleAgent.load(p, layout="paged") for p in paths]
    merged = merge(agents)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    merged.save(out / "agent.npz")
    atomic_write_text(out / "ensemble.json", json.dumps(
        {"members": [str(p) for p in paths], "tuples": int(merged.tuples.shape[0]),
         "episodes_done": merged.episodes_done}, indent=1) + "\n")
    print(f"{out / 'agent.npz'}: {len(agents)} agents, {merged.tuples.shape[0]} tuples")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
