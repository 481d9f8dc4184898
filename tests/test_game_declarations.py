"""A game declares everything about itself once: its spec and its registry line, read by the rest of farl.

The registry makes each game's versioned env module; the spec's optional fields (leaf evaluation, chance
outcomes, fixed n-tuple set, evaluation starts, browser view, pieces and score) are what the agents read,
never a table of game names; games without chance or with their cells as the n-tuple board take the
spec's default kernels instead of a copy of their own.
"""
from __future__ import annotations

import ast
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import farl_envs
from farl_agents.runs.evaluation import START_STATE_NAMES, start_states
from farl_envs.core.kernels import compiled_name
from farl_envs.core.spec import no_chance, no_chance_outcome_count, stored_cells

ROOT = Path(__file__).resolve().parent.parent
NAMES = list(farl_envs.GAMES)
SPECS = {name: farl_envs.game_spec(name) for name in NAMES}


# ------------------------------------------------------------------------------------------ the registry
def test_each_game_has_its_own_version_in_its_registry_line():
    for name, entry in farl_envs.GAMES.items():
        assert isinstance(entry.version, int) and entry.version >= 0
        assert SPECS[name].version == entry.version
        assert entry.gymnasium_id.endswith(f"-v{entry.version}")
    assert farl_envs.list_games() == [f"{name}_v{e.version}" for name, e in farl_envs.GAMES.items()]
    with pytest.raises(ValueError, match="known games"):
        farl_envs.make("tictactoe_v1")  # a version the registry does not have


def test_versioned_env_modules_are_made_from_the_registry_and_importable_in_a_fresh_process(tmp_path):
    from farl_envs import hex_v0

    assert not (ROOT / "farl_envs" / "hex_v0.py").exists()
    raw = hex_v0.raw_env(size=3)
    raw.reset(seed=1)
    raw.step(4)
    path = tmp_path / "env.pickle"
    path.write_bytes(pickle.dumps(raw))
    code = ("import pickle, sys; import farl_envs.tictactoe_v0 as t; raw = pickle.loads(open(sys.argv[1], 'rb')"
            ".read()); print(type(raw).__module__, raw.state_array[2], t.env.__module__)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["farl_envs.hex_v0", "1", "farl_envs.tictactoe_v0"]
    with pytest.raises(ImportError):
        import farl_envs.hex_v1  # noqa: F401


# ------------------------------------------------------------------------------------------ the defaults
def _stub_chance_kernels(path: Path) -> list[str]:
    """Functions named ``chance`` in a module whose body only returns -1 (the stub the spec's default replaced)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "chance":
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and ast.unparse(body[0].value) == "-1":
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_games_without_chance_take_the_default_kernel_and_define_no_stub():
    stubs = [hit for path in (ROOT / "farl_envs" / "games").glob("*.py") for hit in _stub_chance_kernels(path)]
    assert not stubs, f"chance stubs that GameSpec's default makes unneeded: {stubs}"
    for name, spec in SPECS.items():
        assert (spec.chance is no_chance) == (not spec.has_chance), name
    assert sum(spec.board is stored_cells for spec in SPECS.values()) >= 10


def test_the_default_board_is_the_cells_after_the_header():
    spec = SPECS["tictactoe"]
    s = spec.initial_state(spec.p, np.zeros(1, dtype=np.uint64))
    s[3:] = [1, 0, 2, 0, 1, 0, 0, 2, 0]
    out = np.full(spec.n_cells, -1, dtype=np.int32)
    spec.board(spec.p, s, out)
    assert out.tolist() == [1, 0, 2, 0, 1, 0, 0, 2, 0]


# ------------------------------------------------------------------------------------------ the declarations
@pytest.mark.parametrize("name", NAMES)
def test_declarations_are_well_formed(name):
    spec = SPECS[name]
    if spec.heuristic is not None:
        assert compiled_name(spec.heuristic), "a leaf evaluation is a module-level @njit function"
    if spec.has_chance:
        assert spec.chance_outcome_count is not no_chance_outcome_count, "a chance game enumerates its outcomes"
        assert compiled_name(spec.chance_outcome_count) and compiled_name(spec.apply_chance_outcome)
    for t in spec.fixed_ntuples:
        assert len(t) == len(spec.fixed_ntuples[0]) and all(0 <= c < spec.n_cells for c in t)
    assert spec.evaluation_starts in START_STATE_NAMES
    if spec.score is not None or spec.counts_pieces:
        assert spec.n_players == 2 and not spec.has_chance


@pytest.mark.parametrize("name", [n for n in NAMES if SPECS[n].hidden_information])
def test_the_searches_refuse_games_with_hidden_information(name):
    """Max-N, Paranoid, MCTS and the search wrappers read the full state, the others' cards included: on a game
    with hidden information (Kuhn poker) make_opponent refuses them with that reason; random plays."""
    from farl_agents.opponents import RandomPlayer, make_opponent

    for opponent in ("maxn", "maxn2", "paranoid", "mcts", "mcts100", "pretrained+mcts100", "pretrained+maxn2"):
        with pytest.raises(ValueError, match="hidden information"):
            make_opponent(opponent, name)
    assert isinstance(make_opponent("random", name), RandomPlayer)


def test_hidden_information_is_declared_by_the_card_games_only():
    assert [n for n in NAMES if SPECS[n].hidden_information] == ["kuhn_poker", "poker"]


def test_every_declared_view_is_a_drawing_of_the_browser_page():
    script = (ROOT / "farl_agents" / "serve" / "static" / "app.js").read_text(encoding="utf-8")
    block = re.search(r"const DRAW = \{(.*?)\};", script, re.S).group(1)
    drawings = set(re.findall(r"(\w+):", block))
    views = {spec.view for spec in SPECS.values()}
    assert views <= drawings
    assert {"generic", "tictactoe", "othello", "nim3p"} <= views


def test_what_the_agents_read_comes_from_the_spec():
    """Start sets, search hooks and fixed n-tuples are the game's, found through its spec only."""
    from farl_agents.ntuple.sets import fixed_set
    from farl_envs.core.hooks import has_heuristic

    ttt, othello = SPECS["tictactoe"], SPECS["othello"]
    assert len(start_states(ttt, "table1")) == 10  # the start and the 9 positions after one move
    assert start_states(othello, "table1") == "othello-4ply"
    assert start_states(SPECS["hex"], "table1") == "initial"
    assert {n for n, s in SPECS.items() if has_heuristic(s)} == {"sim", "yavalath", "chinese_checkers",
                                                                "einstein_wurfelt_nicht"}
    assert fixed_set(farl_envs.game_spec("connect_four")).shape == (70, 8)
    with pytest.raises(ValueError, match="needs cols=7"):
        fixed_set(farl_envs.game_spec("connect_four", cols=8))  # Thill et al.'s set is for 6x7 only
    with pytest.raises(ValueError, match="needs heaps=3"):
        fixed_set(farl_envs.game_spec("nim", heaps=4))
    with pytest.raises(ValueError, match="no fixed n-tuple set"):
        fixed_set(farl_envs.game_spec("hex"))


def test_no_game_name_table_is_left_in_the_agents():
    """The agents' former per-game tables are gone: nothing keyed by a game's name decides a game's facts."""
    for path, gone in (("farl_agents/runs/evaluation.py", "TABLE1_STARTS"),
                       ("farl_agents/serve/app.py", "GAME_SPECIFIC_VIEWS"),
                       ("farl_agents/ntuple/sets.py", "FIXED_SET_PARAMS"),
                       ("farl_agents/descent/heuristics.py", "_PIECE_GAMES"),
                       ("farl_envs/core/hooks.py", "getattr(module, \"chance_outcome_count\"")):
        assert gone not in (ROOT / path).read_text(encoding="utf-8"), (path, gone)
    assert not (ROOT / "farl_agents" / "opponents" / "heuristics.py").exists()


# ------------------------------------------------------------------------------------------ the README
def test_the_readme_games_table_is_written_from_the_registry():
    """README.md's block between the games markers is what docs/gen_game_pages.py writes: every registered game
    with its Gymnasium id (Lines of Action was missing from the hand-written table)."""
    from script_modules import load_script

    gen = load_script("docs", "gen_game_pages")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index(gen.README_START):text.index(gen.README_END) + len(gen.README_END)]
    assert block == gen.readme_block(gen.game_names())
    for name in farl_envs.list_games():
        assert f"[`{name}`](docs/games/" in block and f"`{farl_envs.gymnasium_id(name)}`" in block
    assert "`farl/LinesOfAction-v0`" in block


# ------------------------------------------------------------------------------------------ module sizes
def test_modules_stay_under_600_lines_and_say_why_over_400():
    """farl's module size rule for the environments: under ~400 lines, or a docstring that says why; never 600."""
    for path in sorted((ROOT / "farl_envs").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        assert lines < 600, f"{path.relative_to(ROOT)}: {lines} lines"
        if lines > 400 and path.parent.name == "games":
            assert "Longer than farl's usual 400 lines" in text, f"{path.relative_to(ROOT)}: {lines} lines"
