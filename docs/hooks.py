"""mkdocs hooks: the references a page asks for are generated from the code at build time.

A page asks with an HTML comment on a line of its own::

    <!-- generated: cli -->                                   every subcommand's usage and options (the parsers)
    <!-- generated: keys -->                                  the key table the app uses (tagtool.gui.keys)
    <!-- generated: settings -->                              what --set takes (see settings_reference)
    <!-- generated: formats -->                               the file formats (tagtool.store.format_catalog)
    <!-- generated: learners -->                              the learners and what they learn from (tagtool.learn)
    <!-- generated: table benchmarks/results/X.md 2 -->       the second Markdown table of a results file
    <!-- generated: section benchmarks/results/X.md Title --> a results file's section under "## Title"

Nothing of these is copied by hand into docs/, so the site cannot drift from
the code or from the measurements (``tests/test_docs_build.py`` builds it with
``--strict``).
"""

from __future__ import annotations

import argparse
import html
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- generated: (\w+)(?: (\S+))?(?: (.+?))? -->$", re.M)
_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def on_config(config):
    """Put the design page in the navigation, beside Development, once ``docs/design.md`` exists."""
    nav = config["nav"]
    if (Path(config["docs_dir"]) / "design.md").is_file() and "design.md" not in repr(nav):
        at = next((i for i, item in enumerate(nav) if isinstance(item, dict) and "Development" in item), len(nav))
        nav.insert(at + 1, {"Design": "design.md"})
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace each ``<!-- generated: ... -->`` line by what it names."""
    return MARKER.sub(lambda m: _generate(m.group(1), m.group(2), m.group(3), page.file.src_uri), markdown)


def _generate(kind: str, path: str | None, arg: str | None, page: str) -> str:
    if kind == "cli":
        return cli_reference()
    if kind == "keys":
        return keys_reference()
    if kind == "settings":
        return settings_reference()
    if kind == "formats":
        return formats_reference()
    if kind == "learners":
        return learners_reference()
    if kind == "table" and path and arg:
        return results_table(path, int(arg))
    if kind == "section" and path and arg:
        return results_section(path, arg)
    raise ValueError(f"{page}: unknown generated block {kind!r}")


def _text(text: str) -> str:
    """Plain text for a Markdown table cell or paragraph (nothing in it read as markup)."""
    return _SPECIAL.sub(r"\\\1", html.escape(" ".join(text.split()), quote=False))


# ---------------------------------------------------------------------------
# the command line


def _subcommands(parser: argparse.ArgumentParser) -> tuple[argparse._SubParsersAction, dict[str, str]]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action, {choice.dest: choice.help or "" for choice in action._choices_actions}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    lines = []
    for group in parser._action_groups:
        rows = [
            a
            for a in group._group_actions
            if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
        ]
        if not rows:
            continue
        lines += ["", f"**{_text(group.title or '')}**", "", "| option | what it does |", "| --- | --- |"]
        for action in rows:
            invocation = formatter._format_action_invocation(action)
            text = action.help or ""
            if "%(default)" in text:
                text = text % {"default": action.default}
            lines.append(f"| `{invocation}` | {_text(text)} |")
    return lines


def cli_reference() -> str:
    """Every subcommand of ``tagtool``: its one line, description, usage, options and epilog, from the parsers."""
    from tagtool.cli.parser import build_parser

    parser = build_parser()
    sub, helps = _subcommands(parser)
    lines = ["## tagtool", "", _text(parser.description or ""), "", "```text", parser.format_usage().strip(), "```"]
    lines += _options(parser)
    for name, command in sub.choices.items():
        lines += ["", f"## tagtool {name}", "", f"*{_text(helps.get(name, ''))}*", ""]
        if command.description:
            lines += [_text(command.description), ""]
        lines += ["```text", command.format_usage().strip(), "```"]
        lines += _options(command)
        if command.epilog:
            lines += ["", "```text", command.epilog.rstrip(), "```"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# keys


def keys_reference() -> str:
    """The app's key table (:mod:`tagtool.gui.keys`), grouped as Help › Keyboard shortcuts groups it."""
    from tagtool.gui import keys

    lines = []
    for section, rows in keys.sections().items():
        lines += ["", f"## {section}", "", "| keys | what they do |", "| --- | --- |"]
        lines += [f"| {_text(row.label)} | {_text(row.what)} |" for row in rows]
    lines += ["", "## Label keys", "", _text(f"Label keys are {keys.KEY_SCHEME}"), "", _text(keys.SPAN_NOTE)]
    lines += ["", "## Mouse", "", "| gesture | what it does |", "| --- | --- |"]
    lines += [f"| {_text(gesture)} | {_text(what)} |" for gesture, what in keys.MOUSE]
    lines += ["", "## Ways of working", "", _text(keys.MODES_NOTE)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# formats


def formats_reference() -> str:
    """The file formats: what is read and written, from the format catalog (:mod:`tagtool.store.format_catalog`)."""
    from tagtool.store.format_catalog import CATALOG

    lines = [
        "| `--format` | what it is | extensions | read | export (app: File › Export) | `tagtool tag` writes it |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for f in CATALOG.values():
        extensions = " ".join(f"`{e}`" for e in (*f.extensions, *f.shown)) or "–"
        lines.append(
            f"| `{f.name}` | {_text(f.description)} | {extensions} | {'yes' if f.readable else 'no'} | "
            f"{_text(f.export_label or 'no')} | {'yes' if f.tagged_output else 'no'} |"
        )
    return "\n".join(lines) + "\n\n*From `tagtool/store/format_catalog.py`.*\n"


# ---------------------------------------------------------------------------
# learners


def learners_reference() -> str:
    """Each learner's name, what it is, the sentences it learns from and what it offers, from its class."""
    from tagtool.learn import DEFAULT_LEARNER, available_learners

    kinds = {"full": "full", "partial": "partial", "none": "unlabeled"}
    lines = [
        "| `--learner` | what it is | learns from | two views | candidate confidences | default features |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, cls in available_learners().items():
        uses = ", ".join(kinds[k] for k in ("full", "partial", "none") if k in getattr(cls, "uses", ()))
        features = ", ".join(f"`{k}={v}`" for k, v in getattr(cls, "default_features", {}).items()) or "–"
        shown = f"`{name}` (default)" if name == DEFAULT_LEARNER else f"`{name}`"
        lines.append(
            f"| {shown} | {_text(getattr(cls, 'description', '') or '')} | {uses} | "
            f"{'yes' if cls.two_view else 'no'} | {'yes' if cls.gives_confidences else 'no'} | {features} |"
        )
    return "\n".join(lines) + "\n\n*From the learner classes (`tagtool/learn/`).*\n"


# ---------------------------------------------------------------------------
# settings


def settings_reference() -> str:
    """What ``--set`` takes: the declared settings tables (:mod:`tagtool.core.params`) as Markdown."""
    from tagtool.services.settings_reference import settings_markdown

    return settings_markdown()


# ---------------------------------------------------------------------------
# benchmark results


def _results(path: str) -> list[str]:
    file = (ROOT / path).resolve()
    if not file.is_relative_to(ROOT / "benchmarks" / "results"):
        raise ValueError(f"{path}: only benchmarks/results/ is included")
    text = file.read_text(encoding="utf-8")
    # Links inside a results file point beside it, not into the site: keep their text and target as text.
    text = re.sub(r"!?\[([^\]]*)\]\((?!https?:)([^)]*)\)", r"\1 (`\2`)", text)
    return text.splitlines()


def results_table(path: str, number: int) -> str:
    """The ``number``-th (1-based) Markdown table of a results file, with where it comes from."""
    tables, current = [], []
    for line in _results(path) + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if not 1 <= number <= len(tables):
        raise ValueError(f"{path} has {len(tables)} tables, not {number}")
    return "\n".join(tables[number - 1]) + f"\n\n*From `{path}`.*\n"


def results_section(path: str, title: str) -> str:
    """The section of a results file under the heading ``title`` (up to the next heading of its level or above)."""
    lines = _results(path)
    start = next(
        (i for i, line in enumerate(lines) if line.lstrip("#").strip() == title and line.startswith("#")), None
    )
    if start is None:
        raise ValueError(f"{path}: no heading {title!r}")
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level
        ),
        len(lines),
    )
    body = [line.replace("#" * level, "###", 1) if line.startswith("#") else line for line in lines[start + 1 : end]]
    return "\n".join(body).strip() + f"\n\n*From `{path}`, section “{title}”.*\n"
