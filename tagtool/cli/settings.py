"""The learner options of ``train``, ``experiment`` and ``simulate``: the learner and its ``--set`` settings.

``--learner NAME``, ``--set KEY=VALUE`` (learner parameters and the
``features.``, ``views.`` and ``decode.`` settings) and ``--seed``, their
help text, and the learner class with its settings parsed and checked
before any data are read.
"""

from __future__ import annotations

import argparse

#: The epilog of the learning commands: what ``--set`` takes.
SETTINGS_HELP = """\
settings (--set KEY=VALUE, repeatable):
  NAME=VALUE             a parameter of the learner (learner.NAME also works),
                         e.g. --set epochs=20 --set averaged=false
  features.NAME=VALUE    a feature-extractor setting: feature_set (default |
                         crfsuite | crfsuite+default, a stack of both),
                         window, min_count, hashing, n_hash,
                         pos_column, columns (comma-separated)
  views.kind=KIND        view split of two-view learners: random (default),
                         odd-even, token-surface, spelling-context,
                         feature-sets (one view per set of a stack)
  views.seed=N           seed of the random split (default: --seed)
  decode.bio_constraint=false
                         BIO label sets: also output I-X after O or another
                         type (by default I-X only follows B-X or I-X; off
                         by default for IOB1 data); kept in the tagger file
  Values take the type of the setting's default (true/false for booleans,
  none for settings that default to none). Each learner's own feature
  defaults apply first; an unknown key lists the known ones.
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


def add_learning_parser(sub, name: str, *, help: str, description: str) -> argparse.ArgumentParser:
    """The subcommand ``name`` of a command that trains: the learner options, :data:`SETTINGS_HELP` below."""
    parser = sub.add_parser(name, help=help, description=description, epilog=SETTINGS_HELP,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_learner_options(parser)
    return parser


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--learner``, ``--set`` and ``--seed`` (their settings: :data:`SETTINGS_HELP`)."""
    from tagtool.learn import DEFAULT_LEARNER, REGISTRY  # the registry's names: no learner is imported

    parser.add_argument("--learner", default=DEFAULT_LEARNER, metavar="NAME",
                        help=f"learner: {', '.join(REGISTRY)} (those installed; default {DEFAULT_LEARNER}, "
                        "the best across the development suite)")
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="KEY=VALUE",
                        help="learner, feature or view setting (see below)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def configured_learner(args: argparse.Namespace, seeded: bool = True):
    """The learner class and its parsed ``--set`` settings.

    With ``seeded``, ``--seed`` becomes the learner's seed parameter
    (``seed_param``) and the view split's seed unless ``--set`` gave them;
    the experiment derives its own per repeat instead.  The values are
    checked here, before any data are read (``InvalidParameterError``).
    """
    from tagtool.learn import get_learner
    from tagtool.services.settings import parse_settings

    cls = get_learner(args.learner)
    settings = parse_settings(cls, args.settings)
    if seeded:
        settings.views.setdefault("seed", args.seed)
        if cls.seed_param is not None:
            settings.params.setdefault(cls.seed_param, args.seed)
    cls().set_params(**settings.params)  # validates before any data is read
    return cls, settings
