"""Write the docs site's page of every registered game, its picture, the games index, the site's games menu
and the README's games table, all from farl_envs' registry.

Each page is the game module's docstring (``farl_envs/games/<game>.py``: rules, action numbering,
observation, rewards, n-tuple cells), converted to Markdown, under a table of the sizes of the
default game and what it declares for the agents, and a section on what its afterstate is
(deterministic, or before a chance event). The pictures: the game in ``farl serve`` (``<game>.png``,
a screenshot drawn by ``python -m studies.serve_picture.browser docs/images/serve.png``, which this script
does not draw) and the initial position drawn by ``render_mode="rgb_array"`` (``<game>-rgb_array.png``).
The README's block between ``<!-- games:start -->`` and
``<!-- games:end -->`` is one row per game (versioned name, default parameters, players, actions,
Gymnasium id).

Run from the repository root after adding a game or editing a game's docstring:

    python docs/gen_game_pages.py            # pages, images, docs/games/index.md, mkdocs.yml's nav, README.md's table
    python docs/gen_game_pages.py --check    # exit 1 when a committed page is stale (no images drawn)

``tests/test_docs_site.py`` runs the check, so a stale page or README table fails the test suite.
"""
from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

import farl_envs

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = DOCS / "games"
IMAGES = DOCS / "images" / "games"
MKDOCS = ROOT / "mkdocs.yml"
NAV_START = "  # games:start (written by docs/gen_game_pages.py)"
NAV_END = "  # games:end"
README = ROOT / "README.md"
README_START = "<!-- games:start -->"
README_END = "<!-- games:end -->"

sys.path.insert(0, str(DOCS))
from rst_markdown import rst_to_markdown  # noqa: E402  (docs/ is not a package)

#: seed of the reset whose position is drawn (2048 and EinStein würfelt nicht! start at random)
PICTURE_SEED = 0
#: opening of a note for maintainers right under a game module's first line: why the module is over farl's
#: usual 400 lines. It is about the code, not the game, so the page leaves that paragraph out.
SIZE_NOTE = "(Longer than farl's usual 400 lines"


def game_names() -> list[str]:
    """Short names (``"tictactoe"``) of the registered games, alphabetically."""
    return sorted(farl_envs.GAMES)


def versioned(name: str) -> str:
    """The game's id with its own version from the registry, e.g. ``"tictactoe_v0"``."""
    return f"{name}_v{farl_envs.GAMES[name].version}"


def rules_module(name: str):
    """The game's module, whose docstring is its page (``farl_envs.games.<module>``).

    Found from the function that builds the game's spec, since games may share one (Nim and Nim3P:
    ``farl_envs.games.nim``) and a game's kernels may live in a private module beside it (Blackjack's).
    """
    return inspect.getmodule(farl_envs.make_spec_function(name))


def summary_line(name: str) -> str:
    """One sentence on the game: its rules module's first line, or, where a module holds several games (Nim and
    Nim3P), the first line of the function that builds this game's spec."""
    doc = rules_module(name).__doc__
    if rules_module(name).__name__.rsplit(".", 1)[-1] != name:
        doc = farl_envs.make_spec_function(name).__doc__
    return rst_to_markdown(inspect.cleandoc(doc or "").partition("\n")[0]).strip()


def declarations(spec) -> list[tuple[str, str]]:
    """What the game declares for the agents (GameSpec's optional fields), as rows of the page's table."""
    ntuples = f"{len(spec.fixed_ntuples)} × {len(spec.fixed_ntuples[0])}" if spec.fixed_ntuples else "none"
    return [
        ("fixed n-tuple set", ntuples),
        ("leaf evaluation of the searches", "yes" if spec.heuristic is not None else "none (0)"),
        ("evaluation start positions", f"`{spec.evaluation_starts}`"),
    ]


def _afterstate_section(spec) -> str:
    """What ``afterstate(action)`` means for this game: the whole step, or the step before its chance event
    (and, with hidden information, which view of it the n-tuple board is)."""
    if spec.hidden_information:
        return (
            "This game has **hidden information**. `env.unwrapped.afterstate(action)` is exactly the position "
            "that `env.step(action)` produces, computed without stepping; its `state` is the full state (every "
            "card, as `get_state()`), but its `board` (the n-tuple cells the learners rate) holds only what the "
            "player who moved may see: the hidden part of the game is, from the mover's view, a chance outcome "
            "drawn before the move. `observe(agent)` shows each agent its own view only. The "
            "perfect-information searches (Max-N, Paranoid, MCTS, the search wrappers) refuse the game."
        )
    if spec.has_chance:
        return (
            "This game has **chance events**. `env.unwrapped.afterstate(action)` is the position right "
            "after the move and *before* the random event that `step` applies next; the event's outcome "
            "is in `infos[agent][\"chance\"]` after the step. The n-tuple learners rate afterstates, so "
            "their values average over the outcomes. `afterstates()` gives every legal action's "
            "afterstate (board as n-tuple cells, rewards of the move, terminal flag)."
        )
    return (
        "Moves are deterministic: `env.unwrapped.afterstate(action)` is exactly the position that "
        "`env.step(action)` produces, with the rewards that step gives every agent and whether it ends "
        "the game, computed without stepping. `afterstates()` gives it for every legal action; after a "
        "step, `infos[agent][\"afterstate\"]` holds the afterstate of `agent`'s move."
    )


def rules_text(module) -> str:
    """The module docstring after its first line, without the maintainers' note on its length (:data:`SIZE_NOTE`)."""
    body = inspect.cleandoc(module.__doc__ or "").partition("\n")[2].lstrip("\n")
    if body.startswith(SIZE_NOTE):
        body = body.partition("\n\n")[2]
    return body


VIEW_CAPTION = ("a few moves into a game against random moves (or the shipped agent, its value of each move "
                "on the board), a piece picked where a move takes several clicks. Drawn by "
                "`python -m studies.serve_picture.browser docs/images/serve.png`.")
RGB_SUFFIX = "-rgb_array"
"""The rgb_array picture is ``<game>-rgb_array.png``; ``<game>.png`` is the page's screenshot of farl serve."""
_EMPTY_HEADER = re.compile(r"^\|(?:\s*\|)+\s*$")


def named_headers(markdown: str) -> str:
    """The docstrings' tables without a header (an empty first row on the page) get one: item, description."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines[:-1]):
        if _EMPTY_HEADER.match(line) and lines[i + 1].startswith("|---"):
            n = line.count("|") - 1
            lines[i] = "| " + " | ".join(["item", "description"][:n] + [""] * max(0, n - 2)) + " |"
    return "\n".join(lines)


def page(name: str) -> str:
    """The Markdown page of game ``name``, from its module docstring and its default spec."""
    module = rules_module(name)
    body = rules_text(module)
    spec = farl_envs.game_spec(name)
    env_id = versioned(name)
    params = ", ".join(f"{k}={v!r}" for k, v in spec.params.items()) or "none"
    facts = [
        ("create", f'`farl_envs.make("{name}")` (module `farl_envs.{env_id}`)'),
        ("Gymnasium id", f"`{farl_envs.gymnasium_id(name)}`"),
        ("default parameters", f"`{params}`" if spec.params else "none"),
        ("players", str(spec.n_players)),
        ("actions", str(spec.n_actions)),
        ("observation shape", f"`{tuple(spec.obs_shape)}`"),
        ("n-tuple cells / values P", f"{spec.n_cells} / {spec.n_cell_values}"),
        ("chance", "yes" if spec.has_chance else "no"),
        *([("hidden information", "yes (`observe` and the n-tuple board show a player's own view)")]
          if spec.hidden_information else []),
        *declarations(spec),
    ]
    lines = [
        f"# {env_id}",
        "",
        summary_line(name),
        "",
        f"![{env_id} in farl serve](../images/games/{name}.png){{ width=\"480\" }}",
        "",
        f"*Playing {env_id} in [`farl serve`](../serve.md): {VIEW_CAPTION}*",
        "",
        f"![The initial position of {env_id}](../images/games/{name}{RGB_SUFFIX}.png){{ width=\"240\" }}",
        "",
        "*The initial position as `render_mode=\"rgb_array\"` draws it.*",
        "",
        "| property | value |",
        "|---|---|",
        *[f"| {key} | {value} |" for key, value in facts],
        "",
        "## Afterstates",
        "",
        _afterstate_section(spec),
        "",
        "## Rules and interface",
        "",
        f"From the docstring of `{module.__name__}`.",
        "",
        named_headers(rst_to_markdown(body, heading_level=3).strip()),
        "",
    ]
    return "\n".join(lines)


def index_page(names: list[str]) -> str:
    """``docs/games/index.md``: one row per game."""
    rows = []
    for name in names:
        spec = farl_envs.game_spec(name)
        rows.append(f"| [`{versioned(name)}`]({name}.md) | {spec.n_players} | {spec.n_actions} | "
                    f"{summary_line(name)} |")
    return "\n".join([
        "# Games",
        "",
        "Every game is a PettingZoo AEC env with farl's afterstate extension (`farl_envs.make(name)`) and a",
        "Gymnasium single-agent env. Each page below is made from the game module's docstring by",
        "`docs/gen_game_pages.py`; the player and action counts are those of the default parameters.",
        "",
        "| game | players | actions | |",
        "|---|---|---|---|",
        *rows,
        "",
    ])


def nav_block(names: list[str]) -> str:
    """The games part of mkdocs.yml's ``nav``, between its marker comments."""
    entries = [f"      - {versioned(name)}: games/{name}.md" for name in names]
    return "\n".join([NAV_START, "  - Games:", "      - games/index.md", *entries, NAV_END])


def mkdocs_with_nav(names: list[str]) -> str:
    text = MKDOCS.read_text()
    pattern = re.compile(re.escape(NAV_START) + r".*?" + re.escape(NAV_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{MKDOCS} has no games block between {NAV_START.strip()!r} and {NAV_END.strip()!r}")
    return pattern.sub(lambda _: nav_block(names), text)


def readme_block(names: list[str]) -> str:
    """The README's games table between its markers: one row per registered game, with its Gymnasium id."""
    rows = []
    for name in names:
        spec = farl_envs.game_spec(name)
        params = ", ".join(f"{k}={v!r}" for k, v in spec.params.items())
        game = f"[`{versioned(name)}`](docs/games/{name}.md)" + (f" (`{params}`)" if params else "")
        rows.append(f"| {game} | {spec.n_players} | {spec.n_actions} | `{farl_envs.gymnasium_id(name)}` | "
                    f"{summary_line(name)} |")
    return "\n".join([
        README_START,
        "| game (default parameters) | players | actions | Gymnasium id | |",
        "|---|---|---|---|---|",
        *rows,
        README_END,
    ])


def readme_with_games(names: list[str]) -> str:
    """README.md with its games block written again (the rest of the file as it is)."""
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_START) + r".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{README} has no games block between {README_START!r} and {README_END!r}")
    return pattern.sub(lambda _: readme_block(names), text)


def expected_files(names: list[str]) -> dict[Path, str]:
    """Every text file the generator writes, with its content."""
    files = {PAGES / f"{name}.md": page(name) for name in names}
    files[PAGES / "index.md"] = index_page(names)
    files[MKDOCS] = mkdocs_with_nav(names)
    files[README] = readme_with_games(names)
    return files


def draw(name: str, path: Path) -> None:
    """Save the initial position of ``name`` (default parameters) as drawn by ``render_mode="rgb_array"``."""
    import matplotlib.pyplot as plt

    env = farl_envs.make(name, render_mode="rgb_array")
    env.reset(seed=PICTURE_SEED)
    plt.imsave(path, env.render())


def leftovers(names: list[str]) -> list[Path]:
    """Pages and pictures of games that are no longer registered."""
    pages = [p for p in PAGES.glob("*.md") if p.stem != "index" and p.stem not in names]
    return pages + [p for p in IMAGES.glob("*.png") if p.stem.removesuffix(RGB_SUFFIX) not in names]


def stale(names: list[str]) -> list[str]:
    """Files that are missing, differ from what the generator writes (images: only missing) or left over."""
    out = [str(p.relative_to(ROOT)) for p, text in expected_files(names).items()
           if not p.exists() or p.read_text() != text]
    out += [f"docs/images/games/{n}{RGB_SUFFIX}.png" for n in names if not (IMAGES / f"{n}{RGB_SUFFIX}.png").exists()]
    out += [f"docs/images/games/{n}.png (python -m studies.serve_picture.browser docs/images/serve.png)"
            for n in names if not (IMAGES / f"{n}.png").exists()]
    out += [str(p.relative_to(ROOT)) + " (no such game)" for p in leftovers(names)]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    parser.add_argument("--no-images", action="store_true", help="write the pages but draw no pictures")
    args = parser.parse_args(argv)
    names = game_names()
    if args.check:
        bad = stale(names)
        for path in bad:
            print(f"stale: {path}")
        if bad:
            print("run: python docs/gen_game_pages.py")
        return 1 if bad else 0
    PAGES.mkdir(parents=True, exist_ok=True)
    IMAGES.mkdir(parents=True, exist_ok=True)
    for path, text in expected_files(names).items():
        path.write_text(text)
    for path in leftovers(names):
        path.unlink()
    if not args.no_images:
        for name in names:
            draw(name, IMAGES / f"{name}{RGB_SUFFIX}.png")
    print(f"wrote {len(names)} game pages" + ("" if args.no_images else " and pictures"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
