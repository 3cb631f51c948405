"""The commands ``train`` and ``evaluate``: a tagger file from annotated files, and its scores.

``train`` reads corpus files or project files (and unlabeled text), trains
a learner with its ``--set`` settings and writes one tagger file;
``evaluate`` tags the fully labeled sentences of a gold file and prints
token accuracy and span P/R/F1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tagtool.cli.inputs import (
    add_column_options,
    add_missing_columns_option,
    check_text_options,
    read_files,
    text_kwargs,
)
from tagtool.cli.knowledge import add_gazetteer_option, training_gazetteers
from tagtool.cli.progress import progress_bar, stop_on_sigint
from tagtool.cli.settings import add_learning_parser, configured_learner
from tagtool.cli.text import stored_representations
from tagtool.cli.vectors import add_train_vectors_options, training_vectors
from tagtool.errors import TagtoolError
from tagtool.store.outputs import check_not_input


def add_train_command(sub) -> None:
    """Add ``train`` to the subcommands ``sub``."""
    p = add_learning_parser(
        sub,
        "train",
        help="train a tagger on annotated files",
        description="Train a learner on DATA (full labels, candidate sets A|B and _ used as "
        "such) plus optional unlabeled text; write one tagger file. DATA may be a project "
        "file (.tagproj): its annotations as the app trains on them. Progress on stderr; "
        "Ctrl-C stops cleanly and writes nothing.",
    )
    p.add_argument("data", nargs="+", type=Path, metavar="DATA")
    p.add_argument(
        "--unlabeled",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="unlabeled text (any format; labels in it are ignored); repeatable",
    )
    p.add_argument(
        "--text",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="plain UTF-8 text whose words the word representations also learn from (with "
        "features.feature_set=...+dist); repeatable",
    )
    p.add_argument(
        "--warm-start",
        type=Path,
        metavar="MODEL",
        help="continue from a tagger file of the same learner (keeps its features)",
    )
    add_gazetteer_option(p)
    add_train_vectors_options(p)
    add_column_options(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="MODEL", help="tagger file to write")
    p.set_defaults(func=cmd_train)


def add_evaluate_command(sub) -> None:
    """Add ``evaluate`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "evaluate",
        help="score a tagger on a gold-labeled file",
        description="Tag the fully labeled sentences of GOLD and score token accuracy and "
        "span precision/recall/F1 (conlleval rules).",
    )
    p.add_argument("model", type=Path, metavar="MODEL")
    p.add_argument("gold", type=Path, metavar="GOLD")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_column_options(p)
    add_missing_columns_option(p)
    p.set_defaults(func=cmd_evaluate)


def cmd_train(args: argparse.Namespace) -> int:
    from tagtool.services.pipeline import train_tagger
    from tagtool.services.training_setup import check_feature_columns, feature_column_warnings
    from tagtool.tagger.model import load_tagger

    check_not_input(
        args.output,
        {
            "training data": args.data,
            "unlabeled data": args.unlabeled,
            "text": args.text,
            "warm-start tagger": args.warm_start,
        },
        "tagger file",
    )
    check_text_options(args, [*args.data, *args.unlabeled], args.format, text_files=args.text)
    cls, settings = configured_learner(args)
    gazetteers = _gazetteers(args, cls, settings)
    text = _representation_text(args, cls, settings)
    reps, project_text = stored_representations(args.data, _uses_representations(cls, settings) and not args.warm_start)
    if project_text:
        text = [*(text or ()), *project_text]
    for warning in feature_column_warnings(settings.features):
        print(f"warning: {warning}", file=sys.stderr)
    corpus = read_files(args.data, args, args.label_column)
    unlabeled = read_files(args.unlabeled, args, None) if args.unlabeled else None
    if not args.warm_start:
        check_feature_columns([*corpus, *(unlabeled or ())], settings.features)
    features, vectors = training_vectors(args, settings.features, [*corpus, *(unlabeled or ())], cls)
    warm = load_tagger(args.warm_start) if args.warm_start else None
    explicit_views = {k: v for k, v in settings.views.items() if k != "random_state"} or None
    views = None if warm is not None or not (cls.two_view or explicit_views) else settings.views
    with stop_on_sigint() as stop, progress_bar(f"training {cls.name}") as report:
        tagger = train_tagger(
            corpus,
            cls().set_params(**settings.params),
            features=features or None,
            views=views,
            unlabeled=unlabeled,
            warm_start=warm,
            progress=report,
            should_stop=stop,
            seed=args.seed,
            text=text,
            representations=reps,
            decode=settings.decode,
            gazetteers=gazetteers,
            vectors=vectors,
        )
    tagger.save(args.output)
    info = tagger.model.info
    kinds = ", ".join(f"{n} {k}" for k, n in info.get("sentences", {}).items())
    print(
        f"wrote {args.output}: {cls.name}, {len(tagger.labels)} labels, {tagger.model.n_features} features, "
        f"sentences {kinds}, trained in {info.get('train_seconds', 0.0):.2f} s"
    )
    for note in info.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    return 0


def _gazetteers(args: argparse.Namespace, cls, settings):
    """The dictionaries of ``--gazetteer`` and a training project; their ``gaz`` set added to ``settings``."""
    from tagtool.services.training_setup import TrainingSetupError, with_gazetteers

    if args.warm_start:
        if args.gazetteer:
            raise TrainingSetupError("--gazetteer adds features; a warm start keeps the previous tagger's")
        return None
    gazetteers = training_gazetteers(args, args.data)
    if gazetteers is not None:
        settings.features = with_gazetteers(cls, settings.features)
    return gazetteers


def _uses_representations(cls, settings) -> bool:
    from tagtool.core.features.wordreps import DIST_SETS
    from tagtool.services.training_setup import feature_settings

    sets = str(feature_settings(cls, settings.features).get("feature_set", "default")).split("+")
    return any(name in DIST_SETS for name in sets)


def _representation_text(args: argparse.Namespace, cls, settings) -> list[list[str]] | None:
    """The token lists of ``train --text`` files; an error if the features read no word representations."""
    if not args.text:
        return None
    from tagtool.services.represent import read_text_file
    from tagtool.services.training_setup import TrainingSetupError

    if args.warm_start or not _uses_representations(cls, settings):
        raise TrainingSetupError(
            "--text feeds the word representations, which only the dist feature sets read "
            "(--set features.feature_set=crfsuite+dist, without --warm-start)"
        )
    return [tokens for path in args.text for tokens in read_text_file(path, **text_kwargs(args))]


def cmd_evaluate(args: argparse.Namespace) -> int:
    from tagtool.core.metrics import evaluate, format_report
    from tagtool.tagger.model import load_tagger

    check_text_options(args, [args.gold], args.format)
    tagger = load_tagger(args.model)
    gold_corpus = read_files([args.gold], args, args.label_column)
    full = [s for s in gold_corpus if s.status == "full"]
    skipped = len(gold_corpus) - len(full)
    if not full:
        raise TagtoolError(f"{args.gold}: no fully labeled sentence to evaluate on")
    gold = [[next(iter(a)) for a in s.annotations] for s in full]
    for warning in tagger.check_input(full, str(args.gold), args.allow_missing_columns):
        print(f"warning: {warning}", file=sys.stderr)
    predicted = tagger.tag(full, allow_missing_columns=args.allow_missing_columns)
    scores = evaluate(gold, predicted, tagger.labels.union(gold_corpus.labels))
    if args.json:
        print(json.dumps({**scores.to_json(), "skipped_sentences": skipped, "learner": tagger.learner}))
    else:
        print(format_report(scores))
    if skipped:
        print(f"note: {skipped} sentences not fully labeled were skipped", file=sys.stderr)
    return 0
