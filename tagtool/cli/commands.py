"""The ``tagtool`` command line.

Every command calls the same core functions the desktop app calls; output
for people goes to stdout, progress and errors to stderr.  Errors are one
line and a non-zero exit status; Ctrl-C exits with status 130.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tagtool import __version__
from tagtool.services import strategies
from tagtool.cli.answers import add_annotator_import_options, attributed, import_answers
from tagtool.cli.inputs import (
    TOKENIZER_CHOICES,  # noqa: F401  (re-exported: tests and docs name it here)
    add_column_options,
    add_label_field_option,
    add_reader_options,
    add_span_options,
    read_files,
    reader_kwargs,
    report_reading,
    span_kwargs,
)
from tagtool.cli.agreement import add_agreement_command
from tagtool.cli.progress import EXIT_INTERRUPTED, interrupt_only_inside, progress_bar, stop_on_sigint
from tagtool.display import check_display
from tagtool.cli.text import add_text_commands, stored_representations
from tagtool.cli.team import add_team_commands
from tagtool.errors import Cancelled, TagtoolError
from tagtool.store import format_catalog
from tagtool.store.sample import ensure_sample_project
from tagtool.store.outputs import check_not_input

logger = logging.getLogger("tagtool")

EXIT_ERROR = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tagtool",
        description="Token annotation with full, partial and no labels. "
        "Without a command: open the built-in sample project.",
    )
    parser.add_argument("--version", action="version", version=f"tagtool {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("import", help="create a project from corpus files, or add files to one")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("-p", "--project", type=Path, required=True, help="project file (.tagproj)")
    p.add_argument("--labels", help="comma-separated label set (default: the labels in the files)")
    p.add_argument("--name", help="project name (new projects)")
    p.add_argument("--add-labels", action="store_true",
                   help="existing project: add the labels of the files that it does not have "
                   "(without it they are an error, so a typo cannot grow the label set)")
    add_reader_options(p)
    add_annotator_import_options(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export", help="write a project's tokens and annotations to a file (conllu and jsonl "
                                      "also carry review flags: tagtool:flag, tagtool:skipped)")
    p.add_argument("project", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--format", choices=["conll", "conllu", "text", "jsonl", "csv", "tsv", "labelstudio"],
                   help="default: from the extension; jsonl token records keep each annotator's labels "
                   "(\"annotators\"), labelstudio writes tasks with one annotation per annotator")
    p.add_argument("--spans", action="store_true", help="jsonl: span records (BIO, full labels only)")
    add_label_field_option(p, "that receives the labels (default: the one they were imported from)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("info", help="summarise a project: sizes, labels, annotation progress")
    p.add_argument("project", type=Path, nargs="?", help="project file (default: the sample project)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("gui", help="open the desktop app on a project (default: the sample project)")
    p.add_argument("project", type=Path, nargs="?", help="project file (.tagproj)")
    p.add_argument("--quit-after", type=int, metavar="MS",
                   help="smoke test of an installed or bundled build: close the window after MS "
                   "milliseconds of running; exit status 0 only if the project opened")
    p.set_defaults(func=cmd_gui)
    _add_learning_commands(sub)
    add_text_commands(sub)
    add_agreement_command(sub)
    add_team_commands(sub)
    return parser


def cmd_import(args: argparse.Namespace) -> int:
    from tagtool.core import Corpus, LabelSet
    from tagtool.core.labels import complete_scheme
    from tagtool.core.corpus import merge_corpora
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    check_not_input(args.project, {"corpus file": args.files}, "project")
    if args.as_annotator:
        return import_answers(args)
    labels = LabelSet(args.labels.split(",")) if args.labels else None
    corpus = merge_corpora(
        attributed(read_corpus(f, labels=labels, **reader_kwargs(args, f)), args, f) for f in args.files
    )
    report_reading(corpus)
    _warn_suspicious(corpus.labels)
    if args.project.exists():
        with Project.open(args.project) as project:
            added = _check_new_labels(project.labels, corpus.labels, args)
            ids = project.import_corpus(corpus, add_labels=bool(added))
        print(f"added {len(ids)} sentences ({corpus.n_tokens} tokens) to {args.project}")
        if added:
            print(f"added labels: {' '.join(added)}")
        return 0
    if labels is None:
        if not len(corpus.labels):
            # A new project needs a label set; this file gives none (unlabeled text).
            raise TagtoolError(f"{', '.join(map(str, args.files))}: holds no labels; "
                               "give the project's label set with --labels A,B,...")
        completed, added = complete_scheme(corpus.labels)
        corpus = Corpus(completed, corpus.documents)
        if added:
            print(f"completed the label scheme with: {' '.join(added)} (edit it with the app's Labels dialog)")
    with Project.create(args.project, corpus, name=args.name):
        pass
    print(f"created {args.project}: {len(corpus)} sentences, {corpus.n_tokens} tokens, "
          f"{len(corpus.labels)} labels: {' '.join(corpus.labels)}")
    return 0


def _warn_suspicious(labels) -> None:
    from tagtool.core.labels import suspicious_labels

    for name in suspicious_labels(labels):
        print(f"warning: label {name!r} looks like a candidate set with the wrong separator; "
              "candidate sets are written A|B", file=sys.stderr)


def _check_new_labels(project_labels, file_labels, args: argparse.Namespace) -> list[str]:
    """The files' labels the project lacks: refused unless ``--add-labels``."""
    new = [n for n in file_labels if n not in project_labels]
    if new and not args.add_labels:
        raise TagtoolError(
            f"{', '.join(map(str, args.files))}: labels that {args.project} does not have: {' '.join(new)}; "
            "check them for typos, or add them with --add-labels"
        )
    return new


def cmd_export(args: argparse.Namespace) -> int:
    from tagtool.store.formats import write_corpus
    from tagtool.store.formats.detect import EXTENSIONS
    from tagtool.store.project import Project

    check_not_input(args.output, {"project": args.project})
    with Project.open(args.project, readonly=True) as project:
        corpus = project.export_corpus()  # with the review flags, for formats that keep them
    options = {"spans": True} if args.spans else {}
    if args.spans:
        # Span records are JSON Lines whatever the output's name (-o -, out.txt).
        if (args.format or "jsonl") != "jsonl":
            raise TagtoolError(f"--spans writes JSON Lines; it cannot be used with --format {args.format}")
        args.format = "jsonl"
    if args.label_field is not None:
        if (args.format or EXTENSIONS.get(args.output.suffix.lower())) != "conllu":
            raise TagtoolError("--label-field needs CoNLL-U output (a .conllu file or --format conllu)")
        options["label_field"] = args.label_field
    write_corpus(corpus, args.output, format=args.format, **options)
    # With -o - the records are the standard output; the summary goes aside.
    print(f"wrote {len(corpus)} sentences to {args.output}", file=sys.stderr if str(args.output) == "-" else sys.stdout)
    return 0


def project_summary(project) -> dict:
    """Sizes, labels and annotation progress of an open project."""
    return {
        "project": str(project.path),
        "name": project.name,
        "schema_version": project.schema_version,
        "documents": len(project.documents()),
        "sentences": project.n_sentences,
        "tokens": project.n_tokens,
        "labels": list(project.labels.names),
        "sentence_status": project.status_counts(),
        "token_annotations": project.annotation_counts(),
        "review": _review_summary(project),
        "models": len(project.models()),
        "text_tokens": project.text_tokens(),
        "word_representations": _representations_summary(project),
    }


def _review_summary(project) -> dict[str, int]:
    """Sentences flagged for review and skipped in the app."""
    reviews = project.reviews().values()
    return {"flagged": sum(r.flagged for r in reviews), "skipped": sum(r.skipped for r in reviews)}


def _representations_summary(project) -> str:
    record = project.representations_record()
    if record is None:
        return "none"
    state = "out of date" if project.representations_stale() else "current"
    return f"{record.info.get('n_words', '?')} words from {record.text_tokens} tokens ({state})"


def cmd_info(args: argparse.Namespace) -> int:
    from tagtool.store.project import Project

    path = args.project or ensure_sample_project()
    with Project.open(path, readonly=True) as project:
        summary = project_summary(project)
    if args.json:
        print(json.dumps(summary))
        return 0
    for key, value in summary.items():
        if isinstance(value, list):
            value = " ".join(value)
        elif isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key:>20}: {value}")
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    """Open the desktop app (Qt is imported only here)."""
    path = args.project or ensure_sample_project()
    if not path.is_file():
        raise TagtoolError(f"{path}: no such project file")
    display = check_display()
    if not display.starts:
        raise TagtoolError(f"gui: no display ({display.reason}); run it in a desktop session, "
                           f"or look at the project with 'tagtool info {path}'")
    from tagtool.gui.app import run

    quit_after = getattr(args, "quit_after", None)
    if quit_after is None:
        return run(path)
    if quit_after < 0:
        raise TagtoolError(f"--quit-after {quit_after}: milliseconds must be 0 or more")
    status = run(path, quit_after_ms=quit_after)
    if status == 0:
        print(f"gui: opened {path} and closed it after {quit_after} ms")
    else:
        print(f"tagtool: error: gui: {path} did not open", file=sys.stderr)
    return status


def open_sample() -> int:
    """What ``tagtool`` with no command does: open the sample project in the
    window, or print its summary (``tagtool info``) where no window can show."""
    if check_display().shows:
        return cmd_gui(argparse.Namespace(project=None))
    path = ensure_sample_project()
    print(f"sample project: {path} (no display for the window; this is 'tagtool info')")
    return cmd_info(argparse.Namespace(project=path, json=False))

# ---------------------------------------------------------------------------
# learning commands: train, tag, evaluate, experiment

#: Output formats of ``tagtool tag`` (the format catalog's, which imports nothing).
TAG_FORMATS = format_catalog.TAG_FORMATS

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


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    from tagtool.learn import DEFAULT_LEARNER, REGISTRY  # the registry's names: no learner is imported

    parser.add_argument("--learner", default=DEFAULT_LEARNER, metavar="NAME",
                        help=f"learner: {', '.join(REGISTRY)} (those installed; default {DEFAULT_LEARNER}, "
                        "the best across the development suite)")
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="KEY=VALUE",
                        help="learner, feature or view setting (see below)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _add_missing_columns_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-missing-columns", action="store_true",
                        help="tag input lacking an extra column the tagger was trained with (e.g. POS): "
                        "a warning with the expected loss instead of an error")


def _add_learning_commands(sub) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("train", help="train a tagger on annotated files", epilog=SETTINGS_HELP,
                       formatter_class=formatter,
                       description="Train a learner on DATA (full labels, candidate sets A|B and _ used as "
                       "such) plus optional unlabeled text; write one tagger file. DATA may be a project "
                       "file (.tagproj): its annotations as the app trains on them. Progress on stderr; "
                       "Ctrl-C stops cleanly and writes nothing.")
    p.add_argument("data", nargs="+", type=Path, metavar="DATA")
    _add_learner_options(p)
    p.add_argument("--unlabeled", action="append", type=Path, default=[], metavar="FILE",
                   help="unlabeled text (any format; labels in it are ignored); repeatable")
    p.add_argument("--text", action="append", type=Path, default=[], metavar="FILE",
                   help="plain UTF-8 text whose words the word representations also learn from (with "
                   "features.feature_set=...+dist); repeatable")
    p.add_argument("--warm-start", type=Path, metavar="MODEL",
                   help="continue from a tagger file of the same learner (keeps its features)")
    add_column_options(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="MODEL", help="tagger file to write")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("tag", help="tag a file with a tagger",
                       description="Tag INPUT (streamed in batches, any format) and write the predictions "
                       "atomically to OUTPUT, or to stdout. Memory stays flat whatever the number of "
                       "sentences of a column, CoNLL-U, text or JSON Lines file (a CSV/TSV table or a JSON "
                       "array is loaded whole, a table up to 32 MiB); a line over 16 Mi characters, a "
                       "sentence over 100,000 tokens or a token over 4,096 characters stops with an error "
                       "naming its line. Progress on "
                       "stderr; Ctrl-C stops cleanly and writes nothing. --workers and --dask give the same "
                       "output as one process.")
    p.add_argument("model", type=Path, metavar="MODEL")
    p.add_argument("input", type=Path, metavar="INPUT")
    p.add_argument("-o", "--output", type=Path, metavar="OUTPUT", help="output file; - or none: standard output")
    p.add_argument("--format", choices=TAG_FORMATS,
                   help="output format (default: the input's own: CoNLL-U with the prediction in the label "
                   "field, JSONL span or token records as given, a column file in its own layout with the "
                   "prediction appended; conll for CSV/TSV); text writes token/LABEL")
    p.add_argument("--input-format", choices=["conll", "conllu", "text", "jsonl", "csv", "tsv"],
                   help="input format (default: from the extension and content)")
    p.add_argument("--token-column", type=int, default=0, metavar="N", help="0-based token column (default 0)")
    p.add_argument("--output-column", type=int, metavar="N",
                   help="column files: write the prediction into output column N (0-based), replacing "
                   "that input column (default: append a column)")
    # the old name, hidden: everywhere else --label-column names an input column
    p.add_argument("--label-column", type=int, dest="deprecated_label_column", help=argparse.SUPPRESS)
    add_label_field_option(p, "that receives the prediction")
    p.add_argument("--batch-size", type=_positive_int, default=2000, metavar="N",
                   help="sentences per batch (default 2000)")
    p.add_argument("--encoding", default="utf-8")
    add_span_options(p, annotators=False)
    _add_missing_columns_option(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive_int, default=1, metavar="N",
                       help="tagging processes on this machine (default 1)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="tag on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786); "
                       "needs tagtool[dask] here and tagtool on the workers")
    p.set_defaults(func=cmd_tag)

    p = sub.add_parser("evaluate", help="score a tagger on a gold-labeled file",
                       description="Tag the fully labeled sentences of GOLD and score token accuracy and "
                       "span precision/recall/F1 (conlleval rules).")
    p.add_argument("model", type=Path, metavar="MODEL")
    p.add_argument("gold", type=Path, metavar="GOLD")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_column_options(p)
    _add_missing_columns_option(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("experiment", help="the papers' resampling experiments", epilog=SETTINGS_HELP,
                       formatter_class=formatter,
                       description="Per repeat, draw labeled, unlabeled and holdout sentences without "
                       "replacement from the pool, train, and score the holdout (or --test). --labeled and "
                       "--unlabeled pair up element-wise (5,10,20 with 25,50,100: L=5 U=25, ...). Reports "
                       "mean ± standard error of token error (%) and span F1, and training seconds.")
    _add_learner_options(p)
    p.add_argument("--data", type=Path, required=True, metavar="FILE")
    p.add_argument("--test", type=Path, metavar="FILE", help="score this file instead of a drawn holdout")
    p.add_argument("--labeled", type=_int_list, default=[5, 10, 20], metavar="5,10,20")
    p.add_argument("--unlabeled", type=_int_list, default=[25, 50, 100], metavar="25,50,100",
                   help="unlabeled sizes, paired with --labeled (one value: for every L; 0: none)")
    p.add_argument("--holdout", type=int, default=300)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--min-length", type=int, default=10)
    p.add_argument("--max-length", type=int, default=40)
    p.add_argument("--pool", type=int, default=3100, help="first N sentences of the length range (default 3100)")
    p.add_argument("--partial-share", type=float, metavar="P",
                   help="WD-PSL protocol: share of training tokens keeping the gold label")
    p.add_argument("--candidates", type=int, metavar="K", help="WD-PSL protocol: candidates of the other tokens")
    p.add_argument("--fit-features", choices=["train", "pool"], default="train",
                   help="fit features per repeat on its training text (default) or once on the pool")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the results as JSON")
    add_column_options(p)
    p.set_defaults(func=cmd_experiment)
    _add_simulate_command(sub, formatter)


#: Strategies and modes of ``tagtool simulate``: the registry's (:mod:`tagtool.services.strategies`,
#: which imports neither numpy nor the learners, so building the parser stays light).
SIMULATE_STRATEGIES = strategies.names()
SIMULATE_MODES = strategies.MODES


#: ``tagtool.services.annotation_costs.MIN_TOKENS``, kept here so that building the parser does not import the
#: store (and numpy); a test checks they agree.
COSTS_MIN_TOKENS = 20


def _add_simulate_command(sub, formatter) -> None:
    p = sub.add_parser(
        "simulate", help="measure annotation cost against F1 with a simulated annotator", epilog=SETTINGS_HELP,
        formatter_class=formatter,
        description="An oracle annotator labels DATA in the order --strategy picks (the app's queue), "
        "whole sentences (--mode full), only the tokens the model is unsure of (tokens), or also candidate "
        "sets {gold, strongest wrong} where the model is torn between the two (partial), or reviews whole "
        "sentences with the model's suggestions, correcting the wrong ones and accepting the rest (review, the "
        "app's Enter; a corrected token costs --cost-full, an accepted one --cost-accept). The learner "
        "retrains (warm start) after every step; the test F1 is recorded against the cost spent. Prints "
        "the curve and the cost at which it reaches 95 percent of the F1 of the learner trained on all of DATA.")
    _add_learner_options(p)
    p.add_argument("--data", type=Path, required=True, metavar="FILE", help="gold-labeled data the oracle annotates")
    p.add_argument("--test", type=Path, required=True, metavar="FILE", help="gold-labeled sentences to score")
    p.add_argument("--strategy", required=True, choices=SIMULATE_STRATEGIES, help=strategies.help_text())
    p.add_argument("--mode", choices=SIMULATE_MODES, default="full", help="what the annotator gives (default full)")
    p.add_argument("--budget", type=float, metavar="TOKENS",
                   help="total cost (default: the cost of labeling every token of DATA)")
    p.add_argument("--step", type=float, default=500.0, metavar="TOKENS",
                   help="cost per step; the learner retrains after each (default 500)")
    p.add_argument("--growth", type=float, default=1.0, metavar="G",
                   help="each step costs G times the previous one (default 1: fixed steps)")
    p.add_argument("--threshold", type=float, default=None, metavar="U",
                   help="tokens/partial: ask a token when its question (uncertainty) is >= U (default "
                   f"{strategies.DEFAULT_THRESHOLD[False]:g} for margin-based learners, "
                   f"{strategies.DEFAULT_THRESHOLD[True]:g} for CRFs)")
    p.add_argument("--close", type=float, default=None, metavar="U",
                   help="partial: candidate set where the model's uncertainty between the gold and its "
                   f"strongest wrong label is >= U (default {strategies.DEFAULT_CLOSE:g})")
    p.add_argument("--max-unlabeled", type=int, default=None, metavar="N",
                   help="unlabeled sentences per step for learners that use them (default 500)")
    p.add_argument("--cost-full", type=float, default=None, metavar="C", help="cost of a full label (default 1)")
    p.add_argument("--cost-partial", type=float, default=None, metavar="C",
                   help="cost of a candidate set (default 0.5)")
    p.add_argument("--cost-skip", type=float, default=None, metavar="C",
                   help="cost of reading a token left unlabeled (default 0.1)")
    p.add_argument("--cost-accept", type=float, default=None, metavar="C",
                   help="cost of a suggestion accepted in review (default: the cost of a skipped token)")
    p.add_argument("--cost-sentence", type=float, default=None, metavar="C",
                   help="cost of opening a sentence, in full labels: the gain strategy ranks with it, the "
                   f"simulated annotator is not charged it (default {strategies.SENTENCE_COST:g})")
    p.add_argument("--costs-from", type=Path, default=None, metavar="PROJECT",
                   help="use the costs measured in the action log of a project annotated in the app (seconds per "
                   "token of each action kind, relative to a full label, and the cost of opening a sentence; prints "
                   f"them); a kind with fewer than {COSTS_MIN_TOKENS} tokens there (opening: sentences) keeps its "
                   f"default, fewer than {COSTS_MIN_TOKENS} full labels is an error. --cost-partial, --cost-skip, "
                   "--cost-accept and --cost-sentence given as well replace the measured value")
    p.add_argument("--full-data-f1", type=float, metavar="X",
                   help="F1 in percent of the learner trained on all of DATA, if known (skips that training)")
    p.add_argument("--until-95", action="store_true",
                   help="stop once the curve reaches 95%% of the full-data F1")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the curve and cost_to_95 as JSON")
    p.add_argument("--plot", type=Path, metavar="OUT.png", help="plot F1 against cost (needs matplotlib)")
    add_column_options(p)
    p.set_defaults(func=cmd_simulate)


def _configured_learner(args: argparse.Namespace, seeded: bool = True):
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


def cmd_train(args: argparse.Namespace) -> int:
    from tagtool.services.pipeline import train_tagger
    from tagtool.services.training_setup import check_feature_columns, feature_column_warnings
    from tagtool.tagger.model import load_tagger

    check_not_input(args.output, {"training data": args.data, "unlabeled data": args.unlabeled,
                                  "text": args.text, "warm-start tagger": args.warm_start}, "tagger file")
    cls, settings = _configured_learner(args)
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
    warm = load_tagger(args.warm_start) if args.warm_start else None
    explicit_views = {k: v for k, v in settings.views.items() if k != "seed"} or None
    views = None if warm is not None or not (cls.two_view or explicit_views) else settings.views
    with stop_on_sigint() as stop, progress_bar(f"training {cls.name}") as report:
        tagger = train_tagger(
            corpus, cls().set_params(**settings.params), features=settings.features or None, views=views,
            unlabeled=unlabeled, warm_start=warm, progress=report, should_stop=stop, seed=args.seed, text=text,
            representations=reps, decode=settings.decode,
        )
    tagger.save(args.output)
    info = tagger.model.info
    kinds = ", ".join(f"{n} {k}" for k, n in info.get("sentences", {}).items())
    print(f"wrote {args.output}: {cls.name}, {len(tagger.labels)} labels, {tagger.model.n_features} features, "
          f"sentences {kinds}, trained in {info.get('train_seconds', 0.0):.2f} s")
    for note in info.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    return 0


def _uses_representations(cls, settings) -> bool:
    from tagtool.core.features.wordreps import DIST_SETS
    from tagtool.services.training_setup import feature_settings

    sets = str(feature_settings(cls, settings.features).get("feature_set", "default")).split("+")
    return any(name in DIST_SETS for name in sets)


def _representation_text(args: argparse.Namespace, cls, settings) -> list[list[str]] | None:
    """The token lists of ``train --text`` files; an error if the features read no word representations."""
    if not args.text:
        return None
    from tagtool.services.training_setup import TrainingSetupError
    from tagtool.services.represent import read_text_file

    if args.warm_start or not _uses_representations(cls, settings):
        raise TrainingSetupError(
            "--text feeds the word representations, which only the dist feature sets read "
            "(--set features.feature_set=crfsuite+dist, without --warm-start)"
        )
    return [tokens for path in args.text for tokens in read_text_file(path)]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def cmd_tag(args: argparse.Namespace) -> int:
    from tagtool.services.batch import tag_file

    for path in (args.model, args.input):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    check_not_input(args.output, {"input": args.input, "tagger": args.model})
    output_column = args.output_column
    if args.deprecated_label_column is not None:
        print("warning: tag --label-column is deprecated: it is --output-column", file=sys.stderr)
        output_column = args.deprecated_label_column if output_column is None else output_column
    # The real stdout, taken before the progress bar starts: on a terminal,
    # rich swaps sys.stdout for a proxy that prints to the bar's stderr.
    output = args.output if args.output not in (None, Path("-")) else sys.stdout
    # The model goes by path: with --workers each worker process loads it
    # itself, and the main process, which only reads and writes, never does.
    try:
        with stop_on_sigint() as stop, progress_bar(f"tagging {args.input.name}") as report:
            result = tag_file(args.model, args.input, output, args.format, input_format=args.input_format,
                              token_column=args.token_column, label_column=output_column,
                              label_field=args.label_field, batch_size=args.batch_size,
                              encoding=args.encoding, progress=report, should_stop=stop,
                              reader_options={k: v for k, v in span_kwargs(args).items() if k != "annotator"},
                              workers=args.workers, dask_address=args.dask,
                              allow_missing_columns=args.allow_missing_columns)
    except Cancelled:
        print("tagtool: interrupted: tagging cancelled, nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"tagged {result.n_sentences} sentences, {result.n_tokens} tokens in {result.seconds:.2f} s "
          f"({result.tokens_per_second:,.0f} tokens/s)", file=sys.stderr)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from tagtool.core.metrics import evaluate, format_report
    from tagtool.tagger.model import load_tagger

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


def cmd_experiment(args: argparse.Namespace) -> int:
    from tagtool.services.experiment.config import ExperimentConfig
    from tagtool.services.experiment.runner import run_experiment

    cls, settings = _configured_learner(args, seeded=False)
    config = ExperimentConfig(
        learner=cls.name, params=settings.params, features=settings.features, views=settings.views,
        decode=settings.decode,
        labeled=tuple(args.labeled), unlabeled=tuple(args.unlabeled or (0,)), holdout=args.holdout,
        repeats=args.repeats, min_length=args.min_length, max_length=args.max_length, pool=args.pool,
        partial_share=args.partial_share, candidates=args.candidates, seed=args.seed,
        fit_features=args.fit_features,
    )
    check_not_input(args.json, {"data": args.data, "test data": args.test}, "JSON output")
    data = read_files([args.data], args, args.label_column)
    test = read_files([args.test], args, args.label_column) if args.test else None
    with stop_on_sigint() as stop, progress_bar(f"experiment {cls.name}") as report:
        result = run_experiment(config, data, test, progress=report, should_stop=stop)
    print(format_experiment(result, config, test is not None))
    if args.json:
        _write_json(args.json, result.to_dict())
    return 0


def format_experiment(result, config, with_test: bool) -> str:
    """The experiment table printed on stdout."""
    where = "test file" if with_test else f"holdout {config.holdout}"
    lines = [
        f"{result.learner}: pool {config.pool} sentences of {config.min_length}-{config.max_length} tokens, "
        f"{where}, {config.repeats} repeats, seed {config.seed}",
        f"{'L':>6} {'U':>6} {'token error %':>16} {'span F1 %':>16} {'train s':>9}",
    ]
    for s in (r.to_dict() for r in result.settings):
        lines.append(
            f"{s['labeled']:>6} {s['unlabeled']:>6} {s['token_error_mean']:>8.2f} ± {s['token_error_se']:<5.2f} "
            f"{s['f1_mean']:>8.2f} ± {s['f1_se']:<5.2f} {s['train_seconds_mean']:>9.3f}"
        )
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tagtool.services.simulate.config import Costs, SimulationConfig
    from tagtool.services.simulate.loop import simulate
    from tagtool.services.simulate.plot import check_plotting, plot_curves

    cls, settings = _configured_learner(args, seeded=False)
    optional = {name: getattr(args, name) for name in ("threshold", "close", "max_unlabeled")
                if getattr(args, name) is not None}
    config = SimulationConfig(
        learner=cls.name, strategy=args.strategy, mode=args.mode, budget=args.budget, step=args.step,
        growth=args.growth, seed=args.seed, params=settings.params, features=settings.features,
        views=settings.views, decode=settings.decode, costs=_simulation_costs(args, Costs),
        full_data_f1=_fraction_of_percent(args.full_data_f1, "--full-data-f1"), until_95=args.until_95, **optional,
    )
    config.check(cls)
    inputs = {"data": args.data, "test data": args.test, "project of --costs-from": args.costs_from}
    check_not_input(args.json, inputs, "JSON output")
    check_not_input(args.plot, {**inputs, "JSON output": args.json}, "plot")
    if args.plot:
        check_plotting()
    data = read_files([args.data], args, args.label_column)
    test = read_files([args.test], args, args.label_column)
    with stop_on_sigint() as stop, progress_bar(f"simulate {cls.name} {args.strategy}+{args.mode}") as report:
        result = simulate(config, data, test, progress=report, should_stop=stop,
                          names=(str(args.data), str(args.test)))
    if args.costs_from is not None:
        result.notes.append(f"costs measured in the action log of {args.costs_from}")
    print(format_simulation(result))
    if args.json:
        _write_json(args.json, result.to_dict())
    if args.plot:
        plot_curves([result], args.plot)
    return 0


def _simulation_costs(args: argparse.Namespace, costs_class):
    """The costs of ``tagtool simulate``: measured (``--costs-from``, printed), then given, then the defaults."""
    given = {name: getattr(args, f"cost_{name}") for name in ("full", "partial", "skip", "accept", "sentence")}
    given = {name: value for name, value in given.items() if value is not None}
    if args.costs_from is None:
        return costs_class(**given)
    if "full" in given:
        raise TagtoolError("--cost-full cannot be used with --costs-from: measured costs are relative to a "
                           "full label (1)")
    from tagtool.services.annotation_costs import costs_from_project

    measured = costs_from_project(args.costs_from)
    default = costs_class()
    defaults = {"full": default.full, "partial": default.partial, "skip": default.skip, "sentence": default.opening}
    defaults["accept"] = measured.relative.get("skip", default.skip)  # an unmeasured accept costs a skip
    print(measured.table(defaults))
    for name, value in given.items():
        print(f"  --cost-{name} {value:g} replaces the measured {measured.relative[name]:.3g}"
              if name in measured.relative else f"  --cost-{name} {value:g} given")
    return costs_class(**{**measured.relative, **given})


def format_simulation(result) -> str:
    """The curve and ``cost_to_95`` printed by ``tagtool simulate``."""
    c = result.costs
    reached = "never" if result.cost_to_95 is None else f"{result.cost_to_95:,.1f}"
    review = result.mode == "review"
    if c.accept is not None:
        skip = f"skipped token {c.skip:g}, accepted suggestion {c.accept:g}"
    else:
        skip = f"{'skipped or accepted token' if review else 'skipped token'} {c.skip:g}"
    lines = [
        f"{result.learner} {result.strategy}+{result.mode}: {result.data_tokens:,} data tokens; costs: full label "
        f"{c.full:g}, candidate set {c.partial:g}, {skip}"
        + ("" if c.sentence is None else f"; opening a sentence {c.sentence:.3g} (ranks gain's queue, not charged)"),
        f"full-data F1 {100 * result.full_data_f1:.2f}%; 95% of it ({95 * result.full_data_f1:.2f}%) at cost {reached}",
        f"{'cost':>10} {'labeled':>8} {'accepted' if review else 'cand.sets':>9} {'F1 %':>7} {'train s':>8}",
    ]
    for p in result.curve:
        middle = p.accepted if review else p.candidate_sets
        lines.append(f"{p.cost:>10,.1f} {p.tokens_labeled:>8} {middle:>9} {100 * p.f1:>7.2f} {p.train_seconds:>8.2f}")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def _fraction_of_percent(value: float | None, option: str) -> float | None:
    """A score given in percent (as every command prints them) as a fraction."""
    if value is None:
        return None
    if not 0.0 <= value <= 100.0:
        raise TagtoolError(f"{option} is in percent (0-100), got {value}")
    return value / 100.0


def _write_json(path: Path, data: dict) -> None:
    from tagtool.store.atomic import atomic_write

    with atomic_write(path, "utf-8") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")



def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING - 10 * min(verbosity, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tagtool`` console script."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # a Ctrl-C while an error or a cancel was being reported
        print("tagtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


#: Arguments naming what a command reads, for the out-of-memory message.
_INPUT_ARGS = ("files", "data", "input", "gold", "test", "project")


def _inputs_of(args: argparse.Namespace) -> str:
    """The existing files ``args`` names, comma-separated ('' if none)."""
    names: list[str] = []
    for name in _INPUT_ARGS:
        value = getattr(args, name, None)
        # existing files only: import's project may be the new file it writes
        names += [str(v) for v in (value if isinstance(value, list) else [value]) if v is not None and v.exists()]
    return ", ".join(names)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    try:
        if args.command is None:
            return open_sample()
        return args.func(args)
    except KeyboardInterrupt:
        print("tagtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout left (``tagtool tag ... | head``): stop quietly,
        # and keep Python's final flush from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except MemoryError:  # numpy's _ArrayMemoryError too: a file beyond the read limits, or a small machine
        print(f"tagtool: error: out of memory reading {_inputs_of(args) or 'the input'}: a file, record or "
              "sentence too large for this machine's memory; split it, or refuse it early with a lower "
              "--limit NAME=N", file=sys.stderr)
        return EXIT_ERROR
    except Cancelled:
        print("tagtool: interrupted: training cancelled, nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (TagtoolError, OSError) as exc:
        print(f"tagtool: error: {exc}", file=sys.stderr)
        return EXIT_ERROR


def run() -> None:
    """The ``tagtool`` console script: :func:`main`, then exit with its status.

    A Ctrl-C after the command returned (while Python shuts down) exits at
    once with 130 instead of printing a traceback.
    """
    interrupt_only_inside(main)
    sys.exit(main())


if __name__ == "__main__":
    run()
