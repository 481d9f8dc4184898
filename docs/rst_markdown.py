"""The reStructuredText of farl's docstrings, turned into the Markdown that mkdocs renders.

farl writes its docstrings in the small part of reStructuredText that reads well as plain text:
simple tables (columns between ``====`` rules), ``text::`` followed by an indented literal block,
``>>>`` examples, section titles underlined with ``---``, bullets, ````code```` and roles such as
``:class:`~farl_envs.core.spec.GameSpec```. Markdown has no simple tables, indents code by four
spaces and knows no roles, so the same text shown raw by mkdocstrings would be garbled.
:func:`rst_to_markdown` converts that subset; anything else passes through unchanged.

Two users: ``docs/gen_game_pages.py`` (a page per game from its module docstring) and mkdocstrings,
through the griffe extension :class:`RstToMarkdown` named in ``mkdocs.yml``.
"""
from __future__ import annotations

import re

#: a simple-table rule: runs of "=" separated by spaces
_TABLE_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")
#: a section title's underline (the title is the line before it)
_UNDERLINE = re.compile(r"^\s*([-=~^\"'`#*+])\1{2,}\s*$")
#: a role such as :class:`~a.b.C` or :func:`text <target>`
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`([^`]+)`")
_BULLET = re.compile(r"^\s*([*+-]|\d+\.)\s")
#: a Google-style section ("Args:"), whose indented entries griffe parses: kept as they are
_GOOGLE_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Raises|Yields|Attributes|Other Parameters):\s*$")


def _role_text(match: re.Match) -> str:
    """What a role shows: the target's last part for ``~target``, the text of ``text <target>``."""
    target = match.group(1)
    titled = re.match(r"^(.*?)\s*<[^>]+>$", target)
    if titled:
        target = titled.group(1)
    elif target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def _inline(text: str) -> str:
    """Roles and ``double-backtick`` literals as Markdown code spans; other text unchanged."""
    text = _ROLE.sub(_role_text, text)
    # ``x`` -> `x`, or ``x`` kept where x itself holds a backtick (Markdown's own double form)
    return re.sub(r"``(.+?)``", lambda m: f"``{m.group(1)}``" if "`" in m.group(1) else f"`{m.group(1)}`", text)


def _columns(rule: str) -> list[tuple[int, int]]:
    """Start and end index of each column of a simple-table rule."""
    return [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]


def _table(lines: list[str]) -> list[str]:
    """A reStructuredText simple table (its lines, rules included) as a Markdown table.

    A row starts where the first column has text; lines with an empty first column continue the
    row above. With three rules the part above the middle rule is the header.
    """
    cols = _columns(lines[0])
    rule_at = [i for i, line in enumerate(lines) if _TABLE_RULE.match(line)]
    header_rows: list[list[str]] = []
    body_rows: list[list[str]] = []
    target = body_rows
    for i, line in enumerate(lines):
        if i in rule_at:
            if len(rule_at) >= 3 and i == rule_at[1]:
                header_rows, body_rows = body_rows, []
                target = body_rows
            continue
        if not line.strip():
            continue
        cells = []
        for k, (start, _) in enumerate(cols):
            end = cols[k + 1][0] if k + 1 < len(cols) else len(line)
            cells.append(line[start:end].strip())
        if cells[0] or not target:
            target.append(cells)
        else:
            target[-1] = [f"{old} {new}".strip() for old, new in zip(target[-1], cells)]

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(_inline(c).replace("|", "\\|") for c in cells) + " |"

    header = header_rows[0] if header_rows else [""] * len(cols)
    return [row(header), "|" + "---|" * len(cols)] + [row(r) for r in body_rows]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def rst_to_markdown(text: str, heading_level: int = 2) -> str:
    """Convert farl's docstring reStructuredText to Markdown.

    ``heading_level`` is the Markdown level of the first kind of underlined title met; each new
    underline character found after it goes one level deeper (reStructuredText's rule).
    """
    lines = text.expandtabs(4).splitlines()
    out: list[str] = []
    underline_chars: list[str] = []
    in_list = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        # a simple table: from its first rule to its last
        if _TABLE_RULE.match(line):
            j = i + 1
            rules = 1
            while j < len(lines):
                if _TABLE_RULE.match(lines[j]):
                    rules += 1
                    # a table ends at a rule followed by a blank line or the end of the text
                    if j + 1 == len(lines) or not lines[j + 1].strip():
                        break
                j += 1
            out.extend(["", *_table(lines[i:j + 1]), ""])
            i = j + 1
            in_list = False
            continue
        # a section title: text, then an underline at least as long
        if (stripped and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1])
                and len(lines[i + 1].strip()) >= len(stripped) and not _BULLET.match(line)):
            char = lines[i + 1].strip()[0]
            if char not in underline_chars:
                underline_chars.append(char)
            level = min(heading_level + underline_chars.index(char), 6)
            # a title written over several lines: the lines of its paragraph above belong to it
            title = [_inline(stripped)]
            while out and out[-1] != "":
                title.insert(0, out.pop())
            out.extend(["", "#" * level + " " + " ".join(title), ""])
            i += 2
            in_list = False
            continue
        # a Google-style section: its indented entries keep their indentation (griffe reads it)
        if _GOOGLE_SECTION.match(line):
            base = _indent(line)
            out.extend(["", line])
            i += 1
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
                out.append(_inline(lines[i]))
                i += 1
            out.append("")
            in_list = False
            continue
        # a >>> example: the paragraph it starts, as Python code
        if stripped.startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i].strip())
                i += 1
            out.extend(["", "```python", *block, "```", ""])
            continue
        # "text::" and the indented literal block after it
        if stripped.endswith("::"):
            lead = stripped[:-2].rstrip()
            if lead:
                out.append(_inline(lead if stripped.endswith(" ::") else lead + ":"))
            base = _indent(line)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block_start = j
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
                j += 1
            while j > block_start and not lines[j - 1].strip():
                j -= 1
            block = lines[block_start:j]
            if block:
                cut = min(_indent(b) for b in block if b.strip())
                out.extend(["", "```text", *[b[cut:] for b in block], "```", ""])
            i = j
            continue
        # a definition-list item (a term, its definition indented below it): a bullet "term: definition"
        prev_blank = not out or out[-1] == "" or in_list
        if (stripped and prev_blank and not _BULLET.match(line) and i + 1 < len(lines)
                and lines[i + 1].strip() and _indent(lines[i + 1]) > _indent(line)):
            if out and out[-1] != "" and not in_list:
                out.append("")
            base = _indent(line)
            definition = []
            j = i + 1
            while j < len(lines) and lines[j].strip() and _indent(lines[j]) > base:
                definition.append(lines[j].strip())
                j += 1
            out.append(_inline(f"* {stripped}: " + " ".join(definition)))
            in_list = True
            i = j
            continue
        # everything else: a paragraph or bullet line, indentation dropped (Markdown would read
        # four spaces as code); continuation lines join the bullet above (lazy continuation)
        if not stripped:
            out.append("")
            in_list = False
        elif _BULLET.match(line):
            if not in_list and out and out[-1] != "":
                out.append("")
            out.append(_inline(stripped))
            in_list = True
        else:
            out.append(_inline(stripped))
        i += 1
    text_out = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text_out).strip() + "\n"


try:  # the griffe extension exists only where mkdocstrings (and so griffe) is installed
    import griffe
except ImportError:  # pragma: no cover - docs tooling absent; gen_game_pages.py needs only the function
    griffe = None

if griffe is not None:

    class RstToMarkdown(griffe.Extension):
        """Griffe extension: every docstring mkdocstrings loads goes through :func:`rst_to_markdown`."""

        def on_instance(self, *, obj, **kwargs) -> None:
            if obj.docstring is not None:
                obj.docstring.value = rst_to_markdown(obj.docstring.value, heading_level=3)
