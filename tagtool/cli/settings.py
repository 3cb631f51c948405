"""The learner options of ``train``, ``experiment`` and ``simulate``: the learner and its ``--set`` settings.

``--learner NAME``, ``--set KEY=VALUE`` (learner parameters and the
``features.``, ``views.`` and ``decode.`` settings) and ``--seed``, their
help text generated from the settings tables, the learner class with its
settings parsed and checked before any data are read, and ``tagtool
settings``, which lists the tables.
"""

from __future__ import annotations

import argparse

#: Stands for the generated settings epilog (:func:`tagtool.services.settings_reference.settings_epilog`),
#: which reads the learners' tables: building the parser imports no learner, ``--help`` does.
_SETTINGS_EPILOG = "(the settings, generated from their tables)"

#: The rest of the epilog of the learning commands: which extra columns are features.
COLUMNS_HELP = """\
extra columns as features:
  The extra columns of column files (col1, col2 ... by position; the label
  column is never one) are inputs: every one becomes a feature by default
  (crfsuite: the first one is its POS). CoNLL-U fields other than FORM
  (lemma, upos, xpos, feats, head, deprel, deps, misc) are gold annotations:
  none is a feature unless named, e.g. --set features.columns=xpos (a
  warning says the accuracy then overstates raw text). A named column the
  training data lacks is an error listing its columns. The tagger records
  the columns it read: tagging a file without them is an error unless
  tag/evaluate get --allow-missing-columns (a warning with the expected loss).
"""


class _SettingsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Puts the settings generated from their tables where the epilog says :data:`_SETTINGS_EPILOG`."""

    def add_text(self, text: str | None) -> None:
        if text == _SETTINGS_EPILOG:
            from tagtool.services.settings_reference import settings_epilog

            text = settings_epilog() + COLUMNS_HELP
        super().add_text(text)


def add_learning_parser(sub, name: str, *, help: str, description: str) -> argparse.ArgumentParser:
    """The subcommand ``name`` of a command that trains: the learner options, and the settings as its epilog."""
    parser = sub.add_parser(
        name, help=help, description=description, epilog=_SETTINGS_EPILOG, formatter_class=_SettingsHelpFormatter
    )
    _add_learner_options(parser)
    return parser


def add_settings_command(sub) -> None:
    """``tagtool settings [LEARNER] [--markdown]``: every setting's name, type, default, range and help."""
    parser = sub.add_parser(
        "settings",
        help="list the learners' parameters and the feature, view and decoding settings",
        description="List every setting --set takes, from the tables that declare them: name, type, "
        "default, range or choices, and a line of help.",
    )
    parser.add_argument("learner", nargs="?", metavar="LEARNER", help="only this learner (default: all)")
    parser.add_argument("--markdown", action="store_true", help="the settings reference page (docs/settings.md)")
    parser.set_defaults(func=_run_settings)


def _run_settings(args: argparse.Namespace) -> int:
    from tagtool.services.settings_reference import settings_markdown, settings_text

    print(settings_markdown() if args.markdown else settings_text(args.learner), end="")
    return 0


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--learner``, ``--set`` and ``--seed`` (their settings: the generated epilog)."""
    from tagtool.learn import DEFAULT_LEARNER, REGISTRY  # the registry's names: no learner is imported

    parser.add_argument(
        "--learner",
        default=DEFAULT_LEARNER,
        metavar="NAME",
        help=f"learner: {', '.join(REGISTRY)} (those installed; default {DEFAULT_LEARNER}, "
        "the best across the development suite)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        dest="settings",
        metavar="KEY=VALUE",
        help="learner, feature or view setting (see below)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def configured_learner(args: argparse.Namespace, seeded: bool = True):
    """The learner class and its parsed ``--set`` settings.

    With ``seeded``, ``--seed`` becomes the learner's and the view split's
    ``random_state`` unless ``--set`` gave them; the experiment derives its
    own per repeat instead.  The values are checked here by their tables,
    before any data are read (:class:`~tagtool.core.params.SettingError`).
    """
    from tagtool.core.params import RANDOM_STATE
    from tagtool.learn import get_learner
    from tagtool.services.settings import parse_settings

    cls = get_learner(args.learner)
    settings = parse_settings(cls, args.settings)
    if seeded:
        settings.views.setdefault(RANDOM_STATE, args.seed)
        if RANDOM_STATE in cls.params:
            settings.params.setdefault(RANDOM_STATE, args.seed)
    cls().set_params(**settings.params)  # what goes together (peer_margin needs the Hamming loss ...)
    return cls, settings
