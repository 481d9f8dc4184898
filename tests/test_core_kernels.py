"""The Kernels value (farl_envs/core/kernels.py): a stable numba type per game and sources, and a stamp that sees every
source a cached loop over the kernels compiles in (numba's own cache only watches the cached function's file)."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
import types as pytypes
from pathlib import Path

import numpy as np
import pytest
from numba import njit, typeof

import farl_envs
from farl_agents.opponents.search_hooks import SEARCH_LOOPS
from farl_envs.core.kernels import KernelsType, kernels_of, shared_sources
from farl_envs.core.playout import random_playout
from farl_envs.core.rng import make_rng, rng_choice_mask, rng_choice_mask_counted
from farl_envs.core.spec import TERMINAL

ROOT = Path(farl_envs.__file__).resolve().parents[1]


def test_the_numba_type_names_the_kernels_and_is_the_same_after_pickling():
    g = farl_envs.game_spec("tictactoe")
    k = kernels_of(g)
    assert kernels_of(g) is k
    t = typeof(k)
    assert isinstance(t, KernelsType)
    assert t.names[1] == "farl_envs.games.tictactoe:legal_actions"
    # another process rebuilds the value from names and stamp: its type (the key of numba's cache) must be equal
    again = pickle.loads(pickle.dumps(k))
    assert again == k and typeof(again) == t
    assert "0x" not in t.name  # no address of this process in the cache key
    assert typeof(kernels_of(farl_envs.game_spec("connect_four"))) != t


def test_other_loops_give_another_stamp_for_the_same_kernels():
    g = farl_envs.game_spec("tictactoe")
    learners = kernels_of(g, loops=("farl_agents/learners/td_farl.py",))
    assert learners.names == kernels_of(g).names
    assert learners.stamp != kernels_of(g).stamp
    assert typeof(learners) != typeof(kernels_of(g))


def test_kernels_that_are_not_module_level_functions_are_rejected():
    g = farl_envs.game_spec("tictactoe")
    inner = g.legal_actions.py_func

    @njit
    def legal_actions(p, s, mask):
        return inner(p, s, mask)

    with pytest.raises(ValueError, match="legal_actions kernel must be a module-level @njit function"):
        kernels_of(dataclasses.replace(g, legal_actions=legal_actions))
    with pytest.raises(ValueError, match="no source matches"):
        kernels_of(g, loops=("farl_agents/no_such_module.py",))
    with pytest.raises(ValueError, match="heuristic kernel must be a module-level @njit function"):
        kernels_of(dataclasses.replace(g, heuristic=lambda p, s, out: None))


def test_the_stamp_sees_the_modules_of_the_hooks_a_game_declares():
    """A game's leaf evaluation or chance enumeration may live outside its rules module: its file joins the stamp,
    so a search loop compiled with the old one is not reused (the type names only the five kernels)."""
    g = farl_envs.game_spec("tictactoe")
    with_hook = kernels_of(dataclasses.replace(g, heuristic=farl_envs.game_spec("yavalath").heuristic))
    assert with_hook.names == kernels_of(g).names
    assert with_hook.stamp != kernels_of(g).stamp


def test_farl_envs_names_no_file_of_farl_agents():
    """The layer below knows only its own sources: every loop module outside it is passed in (``loops``)."""
    import ast

    for path in sorted((ROOT / "farl_envs").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # prose may say it
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                assert "farl_agents" not in node.value, f"{path.relative_to(ROOT)}:{node.lineno} names farl_agents"


def _farl_files_used_by(module) -> set:
    """The source files of every farl module whose names ``module`` imports (compiled functions, classes, modules)."""
    files = set()
    for value in vars(module).values():
        if isinstance(value, pytypes.ModuleType):
            owner = value
        elif inspect.isfunction(value):
            continue  # a plain Python function (not numba's): compiled code cannot call it, nothing is compiled in
        else:
            owner = inspect.getmodule(getattr(value, "py_func", value))
        if owner is not None and owner.__name__.split(".")[0] in ("farl_envs", "farl_agents"):
            files.add(Path(owner.__file__).resolve())
    return files


def test_the_stamp_covers_every_farl_source_the_search_loops_and_the_games_compile_in():
    covered = set(shared_sources(SEARCH_LOOPS))
    loop_files = [ROOT / path for path in SEARCH_LOOPS]
    assert all(path in covered for path in loop_files)
    modules = [importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts)) for path in loop_files]
    modules += [importlib.import_module(f"farl_envs.games.{path.stem}")
                for path in (ROOT / "farl_envs" / "games").glob("*.py") if not path.stem.startswith("_")]
    for module in modules:
        own = Path(module.__file__).resolve()
        missing = _farl_files_used_by(module) - covered - {own}
        assert not missing, f"{module.__name__} compiles in {sorted(map(str, missing))}, which the stamp misses"


def test_the_learners_stamp_covers_every_farl_source_their_loops_compile_in():
    from farl_agents.learners import sarsa_farl, td_farl
    from farl_agents.learners.kernels import LEARNER_LOOPS
    from farl_agents.learners.kernels import kernels_of as learner_kernels_of

    covered = set(shared_sources(LEARNER_LOOPS))
    for module in (td_farl, sarsa_farl):
        missing = _farl_files_used_by(module) - covered
        assert not missing, f"{module.__name__} compiles in {sorted(map(str, missing))}, which the stamp misses"
    g = farl_envs.game_spec("tictactoe")
    assert learner_kernels_of(g) == kernels_of(g, LEARNER_LOOPS)
    assert learner_kernels_of(g).stamp != kernels_of(g).stamp  # the searches' loops are another family


def _python_playout(g, s, rng):
    """The random playout written again in plain Python over the game's kernels (same draws in the same order)."""
    mask = np.zeros(g.n_actions, dtype=np.int8)
    rewards = np.zeros(g.n_players)
    total = np.zeros(g.n_players)
    plies = 0
    while not s[TERMINAL]:
        g.legal_actions(g.p, s, mask)
        a = rng_choice_mask(rng, mask)
        g.afterstate(g.p, s, a, s, rewards)
        if not s[TERMINAL]:
            g.chance(g.p, s, rng)
        total += rewards
        plies += 1
    return plies, total


@pytest.mark.parametrize("name", ["tictactoe", "game2048"])
def test_the_compiled_playout_plays_what_a_python_loop_over_the_kernels_plays(name):
    g = farl_envs.game_spec(name)
    for seed in range(3):
        rng = make_rng(seed)
        start = g.initial_state(g.p, rng)
        s, rng_py = start.copy(), rng.copy()
        mask, rewards, total = np.zeros(g.n_actions, dtype=np.int8), np.zeros(g.n_players), np.zeros(g.n_players)
        plies = random_playout(kernels_of(g), g.p, s, mask, rewards, total, rng)
        s_py = start.copy()
        plies_py, total_py = _python_playout(g, s_py, rng_py)
        assert plies == plies_py > 0
        assert np.array_equal(s, s_py) and np.array_equal(rng, rng_py)
        assert np.array_equal(total, total_py)


@pytest.mark.parametrize("name", farl_envs.list_games())
def test_legal_actions_returns_the_number_of_legal_actions(name):
    """The playouts draw among ``legal_actions``' returned count without counting the mask again
    (``rng_choice_mask_counted``): the count must be the mask's, at every ply of random games."""
    g = farl_envs.game_spec(name)
    mask, rewards = np.zeros(g.n_actions, dtype=np.int8), np.zeros(g.n_players)
    rng = make_rng(11)
    for _ in range(3):
        s = g.initial_state(g.p, rng)
        for _ in range(400):
            n = g.legal_actions(g.p, s, mask)
            assert n == int(np.count_nonzero(mask))
            if s[TERMINAL]:
                assert n == 0
                break
            mirror = rng.copy()
            a = rng_choice_mask(rng, mask)
            assert rng_choice_mask_counted(mirror, mask, n) == a and np.array_equal(mirror, rng)
            g.afterstate(g.p, s, a, s, rewards)
            if not s[TERMINAL]:
                g.chance(g.p, s, rng)

