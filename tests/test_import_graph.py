"""No import cycles between farl's modules.

A cycle (``a`` imports ``b`` and ``b``, at module level or inside a function, imports ``a``) makes the
result depend on which module is imported first, and hides a tangled responsibility.  The graph is read
from the source with :mod:`ast`, so it sees every import statement, also those inside functions that a
run of the test suite would never reach:

* ``import a.b`` is an edge to ``a.b``;
* ``from a.b import c`` is an edge to ``a.b.c`` when ``c`` is a submodule, else to ``a.b``;
* relative imports are resolved against the importing module (an ``__init__`` is its own package);
* a package's ``__init__`` importing its own submodules is an edge like any other;
* importing ``a.b.c`` from outside the package ``a.b`` is also an edge to ``a`` and to ``a.b``: Python runs
  those packages' ``__init__`` first, so whatever they import is imported too (a module inside ``a.b``
  adds no such edge: its package has run already);
* imports under ``if TYPE_CHECKING:`` are skipped, as they never run.

Only edges between modules of the scanned packages count.  Imports by a computed name
(``importlib.import_module(name)``) are invisible to the scan.
"""
from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("farl_envs", "farl_agents")


def module_files(root: Path, packages) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` file below the given top-level packages."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(node: ast.AST):
    """Every Import / ImportFrom in ``node`` and below it, leaving out the bodies of ``if TYPE_CHECKING:``."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        children = node.orelse
    else:
        children = ast.iter_child_nodes(node)
    for child in children:
        yield from _import_nodes(child)


def _known_prefix(name: str, modules) -> str | None:
    """``name`` itself when it is a scanned module, else its longest scanned parent, else None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def import_edges(module: str, path: Path, modules) -> dict[str, int]:
    """Modules (among ``modules``) that ``module`` imports -> line of the first such import."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    edges: dict[str, int] = {}

    def add(target: str | None, line: int) -> None:
        if target is None or target == module:
            return
        edges.setdefault(target, line)
        parts = target.split(".")
        for k in range(1, len(parts)):  # the packages whose __init__ runs on the way to the target
            package = ".".join(parts[:k])
            if package in modules and package != module and not module.startswith(package + "."):
                edges.setdefault(package, line)

    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known_prefix(alias.name, modules), node.lineno)
            continue
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            base_parts = package[: len(package) - (node.level - 1)]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            add(submodule if submodule in modules else _known_prefix(base, modules), node.lineno)
    return edges


def build_graph(root: Path, packages) -> tuple[dict[str, dict[str, int]], dict[str, Path]]:
    """The import graph (module -> {imported module: line}) and the module files it was read from."""
    files = module_files(root, packages)
    return {name: import_edges(name, path, files) for name, path in files.items()}, files


def _shortest_path(graph, start: str, goal: str) -> list[str] | None:
    previous = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = []
            while node is not None:
                path.append(node)
                node = previous[node]
            return path[::-1]
        for nxt in sorted(graph[node]):
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return None


def find_cycles(graph) -> list[list[str]]:
    """For every import edge that lies on a cycle, the shortest cycle through it; shortest first.

    Each cycle is a list of modules whose last entry repeats the first.  Cycles are deduplicated up to
    rotation, so two edges of the same cycle report it once.  Listing the shortest cycle of every edge
    (rather than every elementary cycle, whose number can explode) names every back import to remove.
    """
    seen = set()
    cycles = []
    for source in sorted(graph):
        for target in sorted(graph[source]):
            back = _shortest_path(graph, target, source)
            if back is None:
                continue
            ring = [source] + back[:-1]
            turn = ring.index(min(ring))
            key = tuple(ring[turn:] + ring[:turn])
            if key not in seen:
                seen.add(key)
                cycles.append(list(key) + [key[0]])
    return sorted(cycles, key=lambda c: (len(c), c))


def describe(cycle: list[str], graph, files, root: Path) -> str:
    """``a (a.py:12) -> b (b.py:7) -> a``: each hop with the file and line of its import."""
    hops = []
    for here, there in zip(cycle, cycle[1:]):
        where = files[here].relative_to(root)
        hops.append(f"{here} ({where}:{graph[here][there]})")
    return " -> ".join(hops + [cycle[-1]])


def test_no_import_cycles_in_farl():
    graph, files = build_graph(ROOT, PACKAGES)
    assert len(graph) > 50, "the scan found too few modules to be looking at farl"
    cycles = find_cycles(graph)
    report = "\n".join(f"{len(c) - 1}-cycle: {describe(c, graph, files, ROOT)}" for c in cycles)
    assert not cycles, f"{len(cycles)} import cycle(s), shortest first:\n{report}"


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_graph_builder_finds_cycles_in_a_synthetic_package(tmp_path):
    _write(tmp_path, "pkg/__init__.py", "from pkg.sub import thing\n")
    # absolute back-import of the package from one of the submodules its __init__ imports
    _write(tmp_path, "pkg/sub/__init__.py", "from .leaf import thing\n")
    _write(tmp_path, "pkg/sub/leaf.py", "def thing():\n    from pkg import other\n    return other\n")
    # a two-module cycle through a function-local, relative `from . import module`
    _write(tmp_path, "pkg/a.py", "import pkg.b\n")
    _write(tmp_path, "pkg/b.py", "def f():\n    from . import a\n    return a\n")
    # imports that never run or leave the package add no edge; the else branch of TYPE_CHECKING does
    _write(tmp_path, "pkg/c.py",
           "import typing\nimport os\nif typing.TYPE_CHECKING:\n    import pkg.d\nelse:\n    import pkg.e\n")
    _write(tmp_path, "pkg/e.py", "")
    _write(tmp_path, "pkg/d.py", "import pkg.c\n")
    # a cycle only through a package __init__: q imports a submodule of r, whose __init__ imports q
    _write(tmp_path, "pkg/q.py", "from pkg.r.inner import x\n")
    _write(tmp_path, "pkg/r/__init__.py", "import pkg.q\n")
    _write(tmp_path, "pkg/r/inner.py", "x = 1\n")

    graph, files = build_graph(tmp_path, ["pkg"])
    assert set(graph) == {"pkg", "pkg.sub", "pkg.sub.leaf", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.q",
                          "pkg.r", "pkg.r.inner"}
    assert graph["pkg.q"] == {"pkg.r.inner": 1, "pkg.r": 1}  # not pkg: q is inside it
    assert graph["pkg"] == {"pkg.sub": 1}
    assert graph["pkg.sub"] == {"pkg.sub.leaf": 1}
    assert graph["pkg.sub.leaf"] == {"pkg": 2}
    assert graph["pkg.b"] == {"pkg.a": 2}
    assert graph["pkg.c"] == {"pkg.e": 6}
    assert graph["pkg.d"] == {"pkg.c": 1}

    cycles = find_cycles(graph)
    assert cycles == [["pkg.a", "pkg.b", "pkg.a"], ["pkg.q", "pkg.r", "pkg.q"],
                      ["pkg", "pkg.sub", "pkg.sub.leaf", "pkg"]]
    text = describe(cycles[0], graph, files, tmp_path)
    assert text == "pkg.a (pkg/a.py:1) -> pkg.b (pkg/b.py:2) -> pkg.a"


def test_learner_modules_depend_one_way():
    """The real graph: ``from package import submodule`` resolves to the submodule, and the learners'
    file format and presets sit below the agent and the config (agent -> agent_io, presets -> config)."""
    graph, _ = build_graph(ROOT, PACKAGES)
    agent = graph["farl_agents.learners.agent"]
    assert {"farl_agents.learners.td_farl", "farl_agents.learners.sarsa_farl", "farl_envs"} <= set(agent)
    assert "farl_agents.learners.agent_io" in agent
    assert "farl_agents.learners.agent" not in graph["farl_agents.learners.agent_io"]
    assert "farl_agents.learners.config" in graph["farl_agents.learners.presets"]
    # the config sits below the presets; it may use the package's generic settings helpers, nothing of the learners
    assert set(graph["farl_agents.learners.config"]) <= {"farl_agents.config_flags"}
    assert graph["farl_agents.config_flags"] == {}


def _imported_names(path: Path):
    """(line, dotted name) of every import statement in ``path``, external ones included (absolute only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif not node.level and node.module:
            yield node.lineno, node.module


def test_the_library_never_imports_the_studies():
    """``studies/`` (the code that reproduces the papers and writes docs/results) is built on the library, not part
    of it: no module of farl_envs or farl_agents imports it by name. The commands that run studies go through
    ``farl_agents.checkout``, which imports them by a computed name from a source checkout only."""
    found = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in module_files(ROOT, PACKAGES).values()
             for line, name in _imported_names(path) if name == "studies" or name.startswith("studies.")]
    assert not found, "\n".join(found)
    assert (ROOT / "studies" / "__init__.py").is_file(), "the studies moved: update this test"
    # the scan itself sees an import of the studies where there is one
    assert "studies.table1" in {n for _, n in _imported_names(ROOT / "tests" / "test_table1.py")}


RUNTIME_HOOKS_INTO_THE_AGENTS = {"farl_envs.gym_env": {"farl_agents.opponents"}}
"""The envs' only imports of farl_agents, each inside a function: the Gymnasium env's opponents may be named
(``opponent="mcts50"``), and the registry of those names lives with the agents. farl_envs is usable without
them, so the import runs only when a name is given."""


def test_the_envs_never_import_the_agents_at_module_level():
    """farl_envs sits below farl_agents: no module of it imports farl_agents when it is imported, and the only
    function-level imports are the runtime hooks listed above (a new one must be added there, on purpose)."""
    envs = {name: path for name, path in module_files(ROOT, PACKAGES).items() if name.split(".")[0] == "farl_envs"}
    assert len(envs) > 20, "the scan found too few modules to be looking at farl_envs"
    at_module_level, in_functions = [], {}
    for name, path in envs.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        top = {id(node) for node in _import_nodes(ast.Module(body=[n for n in tree.body
                                                                   if not isinstance(n, (ast.FunctionDef,
                                                                                         ast.AsyncFunctionDef,
                                                                                         ast.ClassDef))],
                                                             type_ignores=[]))}
        for node in _import_nodes(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if not node.level else [])
            for target in names:
                if target.split(".")[0] != "farl_agents":
                    continue
                if id(node) in top:
                    at_module_level.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
                else:
                    in_functions.setdefault(name, set()).add(target)
    assert not at_module_level, "\n".join(at_module_level)
    assert in_functions == RUNTIME_HOOKS_INTO_THE_AGENTS


LAYERS = (
    ("envs", ("farl_envs",)),
    ("bottom", ("farl_agents", "farl_agents.safety", "farl_agents.atomic", "farl_agents.safe_files",
                "farl_agents.config_flags", "farl_agents.compile_notice", "farl_agents.console", "farl_agents.plotting",
                "farl_agents.zoo", "farl_agents.ntuple")),
    ("backend", ("farl_agents.backend",)),
    ("harness", ("farl_agents.players", "farl_agents.openings", "farl_agents.eval_results")),
    ("agents", ("farl_agents.learners", "farl_agents.nemesh", "farl_agents.descent", "farl_agents.baselines",
                "farl_agents.alphazero",
                "farl_agents.opponents", "farl_agents.pretrained", "farl_agents.evaluate")),
    ("runs", ("farl_agents.runs", "farl_agents.families")),
    ("loading", ("farl_agents.loading", "farl_agents.checkout", "farl_agents.descent.run", "farl_agents.ladder")),
    ("commands", ("farl_agents.cli", "farl_agents.serve", "farl_agents.__main__", "farl_agents.baselines.cli",
                  "farl_agents.baselines.__main__")),
)
"""farl's layers, lowest first (docs/ARCHITECTURE.md draws them): a module belongs to the layer of its longest
listed prefix. Within a layer modules may import each other (the cycle test keeps that one-way); across layers
only downwards."""

KNOWN_UPWARD = {
    # the envs' one runtime hook: the Gymnasium env's opponent names (RUNTIME_HOOKS_INTO_THE_AGENTS)
    ("farl_envs.gym_env", "farl_agents"), ("farl_envs.gym_env", "farl_agents.opponents"),
}
"""Imports that run up the layers today, each with its reason; the list must shrink, never grow."""


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module``'s layer (its longest listed prefix), or None if it has none."""
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def test_nothing_imports_upward():
    """Every module has a layer, and every import (package ``__init__`` edges included) stays in its layer or goes
    down, but for the listed exceptions."""
    graph, files = build_graph(ROOT, PACKAGES)
    assert not [m for m in graph if layer_of(m) is None], "modules outside every layer: add them to LAYERS"
    upward = {(m, t) for m, edges in graph.items() for t in edges if layer_of(t) > layer_of(m)}
    new = "\n".join(f"{m} ({LAYERS[layer_of(m)][0]}, {files[m].relative_to(ROOT)}:{graph[m][t]}) imports {t} "
                    f"({LAYERS[layer_of(t)][0]})" for m, t in sorted(upward - KNOWN_UPWARD))
    assert not new, f"imports up the layers:\n{new}"
    assert not KNOWN_UPWARD - upward, f"gone, remove from KNOWN_UPWARD: {sorted(KNOWN_UPWARD - upward)}"
