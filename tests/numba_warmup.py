"""Compile the self-play loops that many tests share into the numba cache, before the test workers start.

A parallel run (``pytest -n N``) starts N workers at once on an empty cache; every worker, and every ``farl``
command the README test runs, then compiles the loops it meets (~15-30 CPU s each) even when another process
is compiling the same one at that moment. ``tests/conftest.py`` runs this script in two processes first (one per
part, each loop in one of them), so the tests load the loops below from the cache instead. It changes no
result: a test that needs a loop not listed here compiles it, as before. The cache is the user's one, the
same as ``farl``'s and the library's (``farl_envs.numba_setup``): what ``make run`` compiled is not compiled
again here.

Each item prints a line when it starts and one when it ends (compiled, or loaded from the cache), flushed, so
that ``make test`` shows its progress from the start (conftest.py passes the lines on to pytest's terminal).

Run by hand: ``python tests/numba_warmup.py 0`` (and ``1``).
"""
from __future__ import annotations

import sys

LOOP, AEC = "loop", "aec"
"""What to compile for a (game, algorithm): the compiled self-play loop, the AEC path's steps."""

PARTS = (
    # TicTacToe TD with plain tables: the README's main job, the Ray test, the equivalence test, the CLI tests;
    # its AEC steps; Connect Four TD with TCL tables: the equivalence test and the docs' Connect Four commands.
    # (2048's TD loop: its equivalence case only, with `-m slow`.)
    (("tictactoe", "td", {LOOP, AEC}), ("connect_four", "td", {LOOP})),
    # Nim3P with TCL tables (the paper preset): TD and Q, compiled loop and AEC steps: the README's main job,
    # the resume, hand-episode and equivalence tests; TicTacToe SARSA's AEC step (plain tables). (The 2x2x2
    # cube's TD loop is compiled by two `-m slow` tests only since `farl train --stop-after 0` compiles nothing.)
    (("nim3p", "td", {LOOP, AEC}), ("nim3p", "q", {LOOP, AEC}), ("tictactoe", "sarsa", {AEC})),
)
"""Per part: (game, algorithm, what to compile)."""


OPPONENTS = {"tictactoe": ("maxn10",), "nim3p": ("maxn15", "mcts10")}
"""The searches the README's main job evaluates against (the search budget is not part of the compiled code)."""


def step(part: int, label: str, fn, *args, **kwargs) -> None:
    """Run ``fn(*args, **kwargs)`` (which compiles ``label``) between two flushed progress lines."""
    import time

    from farl_agents.compile_notice import CompileWatch

    print(f"[warm-up {part}] {label} ...", flush=True)
    t = time.perf_counter()
    with CompileWatch() as watch:
        fn(*args, **kwargs)
    how = f"compiled in {watch.seconds:.0f} s" if watch.compilations else "loaded from the cache"
    print(f"[warm-up {part}] {label}: {how} ({time.perf_counter() - t:.0f} s)", flush=True)


def warm(part: int) -> None:
    import farl_envs
    from farl_agents.evaluate import evaluate
    from farl_agents.learners import LearnerConfig, NTupleAgent, paper_config
    from farl_agents.learners.presets import preset_names

    for game, algo, what in PARTS[part]:
        if game in preset_names():
            config = paper_config(game, algo=algo, episodes=1)
        else:  # no paper preset (the cube): small tuples, the loop compiled is the same for any settings
            config = LearnerConfig(algo=algo, episodes=1, ntuple_count=3, ntuple_length=3)
        agent = NTupleAgent(game, config)
        if LOOP in what:
            step(part, f"{game} {algo} self-play loop", agent.compile)
        if AEC in what:
            step(part, f"{game} {algo} AEC steps", NTupleAgent(game, config).train_aec, farl_envs.make(game), 1)
        if algo == "td" and game in OPPONENTS:
            step(part, f"{game} evaluation against {', '.join(OPPONENTS[game])}", evaluate, game, [agent],
                 list(OPPONENTS[game]), n_games=1)
    if part == 0:  # Nemesh on Connect Four: the Nemesh tests and the tutorial's Nemesh commands
        import tempfile

        from farl_agents import cli

        with tempfile.TemporaryDirectory() as folder:
            step(part, "connect_four Nemesh", cli.main, ["train", "connect_four", "--algo", "nemesh", "--preset",
                                                         "quick", "--fraction", "0.01", "--out", folder + "/nemesh",
                                                         "--quiet"])


if __name__ == "__main__":
    warm(int(sys.argv[1]))
