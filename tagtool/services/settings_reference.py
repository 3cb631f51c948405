"""The settings reference, generated from the declared tables: ``tagtool settings``, ``--help``, ``docs/settings.md``.

Every listing here reads the tables of :mod:`tagtool.core.params` (the
learners' ``params``, the feature extractor's, the views' and decoding's),
so what a user reads is what the parser accepts.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from tagtool.core.params import ParamTable
from tagtool.learn import available_learners, get_learner
from tagtool.services.settings import SHARED_TABLES
from tagtool.services.training_setup import feature_settings

_HEADER = ("name", "type", "default", "range or choices", "help")
_GROUP_TITLES = {
    "features": "Feature extractor (features.NAME)",
    "views": "View split of two-view learners (views.NAME)",
    "decode": "Decoding (decode.NAME)",
}
_EPILOG_WIDTH = 78
#: What the value text means, for every table.
VALUES_NOTE = (
    "Values: true/false (also yes/no, on/off, 1/0) for booleans, none where a setting is optional, "
    "comma-separated lists. An old name (epochs, seed, max_iterations ...) is still read as its new "
    "one, with a deprecation warning."
)


def _shared_tables() -> dict[str, ParamTable]:
    return SHARED_TABLES


def _learner_rows(name: str) -> list[tuple[str, str, str, str, str]]:
    return get_learner(name).params.rows()


def _feature_rows(learner: str | None) -> list[tuple[str, str, str, str, str]]:
    defaults = feature_settings(get_learner(learner)) if learner else {}
    return SHARED_TABLES["features"].rows(defaults)


def format_table(rows: Sequence[Sequence[str]], header: Sequence[str] = _HEADER) -> str:
    """Rows as aligned plain-text columns (the last column is not padded)."""
    rows = [tuple(header), *[tuple(r) for r in rows]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(r, widths)), r[-1]]).rstrip() for r in rows]
    return "\n".join(lines)


def settings_text(learner: str | None = None) -> str:
    """``tagtool settings [LEARNER]``: one table per learner (or the one named), then features, views, decoding."""
    names = [get_learner(learner).name] if learner else list(available_learners())
    parts = []
    for name in names:
        cls = get_learner(name)
        parts.append(f"{name}: {cls.description} (--set NAME=VALUE)\n{format_table(_learner_rows(name))}")
    for group, table in _shared_tables().items():
        rows = _feature_rows(learner) if group == "features" else table.rows()
        title = _GROUP_TITLES[group] + (f", with {learner}'s defaults" if group == "features" and learner else "")
        parts.append(f"{title}\n{format_table(rows)}")
    return "\n\n".join([*parts, VALUES_NOTE]) + "\n"


def _markdown_table(rows: Sequence[Sequence[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for name, kind, default, allowed, help_text in rows:
        lines.append(f"| `{cell(name)}` | {cell(kind)} | `{cell(default)}` | {cell(allowed)} | {cell(help_text)} |")
    return "\n".join(lines)


def settings_markdown() -> str:
    """The settings reference page (``docs/settings.md``), generated from the tables."""
    parts = [
        "# Settings",
        "",
        "Generated from the declared settings tables (`tagtool settings --markdown`); "
        "`tagtool settings LEARNER` prints the same in the terminal. Set them with "
        "`--set NAME=VALUE` (a learner parameter) or `--set GROUP.NAME=VALUE` (`features`, `views`, "
        "`decode`) on `tagtool train`, `simulate` and `experiment`, or in the app's learner panel. "
        "A bad value stops the command before any data are read, with one line naming the setting.",
        "",
        VALUES_NOTE,
        "",
        "Every learner uses the same names for the same things: `max_iter` for passes over the data "
        "(the outer loop), `random_state` for the seed, `tol` for a relative stopping tolerance, "
        "`n_jobs` for threads. Names taken from a paper (`C`, `c1`, `c2`, `gamma`, `c_u`) keep the "
        "paper's symbol, since they are different quantities.",
    ]
    for name, cls in available_learners().items():
        parts += ["", f"## {name}", "", cls.description + ".", "", _markdown_table(_learner_rows(name))]
    for group, table in _shared_tables().items():
        parts += ["", f"## {_GROUP_TITLES[group]}", "", _markdown_table(table.rows())]
        if group == "features":
            own = {n: c.default_features for n, c in available_learners().items() if c.default_features}
            if own:
                parts += [
                    "",
                    "Learners with their own feature defaults (applied before yours): "
                    + "; ".join(f"{n}: " + ", ".join(f"`{k}={v}`" for k, v in d.items()) for n, d in own.items())
                    + ".",
                ]
    return "\n".join(parts) + "\n"


def settings_epilog() -> str:
    """The ``--help`` epilog of the commands that train: the groups of ``--set`` and every setting's name."""

    def wrapped(text: str, indent: int) -> list[str]:
        return textwrap.wrap(text, _EPILOG_WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + 4))

    lines = [
        "settings (--set KEY=VALUE, repeatable; their types, defaults and ranges:",
        "tagtool settings [LEARNER]):",
        "  NAME=VALUE  a parameter of the learner (learner.NAME also works):",
    ]
    for name, cls in available_learners().items():
        lines += wrapped(f"{name}: {', '.join(cls.params.names())}", 4)
    for group, table in _shared_tables().items():
        lines.append(f"  {group}.NAME=VALUE  {_GROUP_TITLES[group].split(' (')[0].lower()}:")
        for name, kind, default, allowed, help_text in table.rows():
            allowed = f"; {allowed}" if allowed else ""
            lines += wrapped(f"{name} ({kind}, default {default}{allowed}): {help_text}", 4)
    lines += wrapped(VALUES_NOTE, 2)
    return "\n".join(lines) + "\n"
