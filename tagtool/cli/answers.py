"""Who labeled the files ``tagtool import`` reads, and importing annotators' answers.

``--annotator NAME`` names the annotator of files (and records) that name
nobody; ``--annotator-from-file-name`` names each such file's annotator
after the file (doccano's per-user export writes ``alice.jsonl``,
``bob.jsonl``); the annotators that Label Studio and doccano files name are
kept as they are. ``--as-annotator`` reads the files as annotators' answers
for the project's own sentences (:mod:`tagtool.store.answer_files`) instead
of new sentences, and recomputes the training labels they touch
(:mod:`tagtool.store.annotators`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tagtool.cli.attach import add_attach_options, attach_files, text_match
from tagtool.errors import TagtoolError

#: ``tagtool.store.answer_files.MATCH_MODES``, kept here so that building the parser imports neither
#: the store nor numpy; a test checks they agree.
MATCH_MODES = ("order", "tokens", "text")


def add_annotator_import_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``tagtool import`` about annotators (``--annotator`` itself is a span option)."""
    group = parser.add_argument_group("annotators")
    group.add_argument(
        "--annotator-from-file-name",
        action="store_true",
        help="the labels of each file that names nobody are the annotator named by the file's "
        "name without extension (doccano's per-user export: alice.jsonl, bob.jsonl)",
    )
    group.add_argument(
        "--as-annotator",
        action="store_true",
        help="the files hold annotators' labels of the project's own sentences (same tokens), "
        "not new sentences (a new project takes the first file's sentences, unlabeled); each "
        "annotator's answers are kept and a "
        "token's training label becomes their common answer, or the candidate set of their "
        "answers where they differ (as tagtool merge does; tokens resolved in the app's "
        "adjudication view keep their labels)",
    )
    group.add_argument(
        "--match",
        choices=MATCH_MODES,
        help="--as-annotator: order pairs the file's k-th sentence with the project's "
        "k-th; tokens pairs each with a project sentence of the same tokens (a part of the "
        "project, in any order); text places the spans of doccano / Label Studio records by "
        "character offsets on the project's text of the same text, whatever the tokenization "
        "and sentence split (default: text for span records when the project keeps its text, "
        "else order)",
    )
    add_attach_options(parser)


def file_annotator(args: argparse.Namespace, path: Path) -> str | None:
    """The annotator of ``path``'s labels where it names nobody (``--annotator``, or the file's name)."""
    from tagtool.core.annotators import check_name

    if args.annotator_from_file_name and getattr(args, "annotator", None):
        raise TagtoolError("give --annotator NAME or --annotator-from-file-name, not both")
    name = path.stem if args.annotator_from_file_name else getattr(args, "annotator", None)
    if name is None:
        return None
    try:
        return check_name(name)
    except ValueError as exc:
        raise TagtoolError(f"{path}: {exc}") from None


def attributed(corpus, args: argparse.Namespace, path: Path):
    """``corpus`` read from ``path``, its unnamed labels given to :func:`file_annotator`."""
    from tagtool.core.annotators import attribute

    name = file_annotator(args, path)
    return corpus if name is None else attribute(corpus, name)


def import_answers(args: argparse.Namespace) -> int:
    """``tagtool import FILES -p PROJECT --as-annotator``: annotators' answers for the project's sentences."""
    from tagtool.store.project import Project

    if args.no_labels:
        raise TagtoolError("--as-annotator reads the files' labels; --no-labels does not apply")
    if text_match(args):
        return attach_files(args, answers=True)
    args.match = args.match or "order"
    created = not args.project.exists()
    if created:
        _create_from_first(args)
        args.add_labels = True  # the project was made for these files: all their labels belong
    elif args.labels:
        raise TagtoolError("--labels sets a new project's label set; the answers go into the project's own")
    try:
        with Project.open(args.project) as project:
            files = [_read_answers(project, f, args) for f in args.files]
            used = sorted(set().union(*(a.labels for a in files)))
            added = check_new_labels(project.labels, used, args)
            counts = project.team.add_answers(
                [g for a in files for g in a.given],
                add_labels=added,
                tokens={sid: t for a in files for sid, t in a.tokens.items()},
            )
    except BaseException:
        if created:  # a file refused: no half-made project is left behind
            for leftover in (args.project, *(args.project.with_name(args.project.name + x) for x in ("-wal", "-shm"))):
                leftover.unlink(missing_ok=True)
        raise
    for path, answers in zip(args.files, files):
        who = ", ".join(answers.annotators) or "nobody (no labels)"
        print(f"{path}: {len(answers.given)} of {answers.sentences} sentences answered by {who}")
    print(
        f"{args.project}: answers for {counts.sentences} sentences ({counts.answers} tokens); "
        f"{counts.changed} training labels changed, {counts.candidate_sets} became the candidate set of "
        "differing answers"
    )
    if counts.seeded:
        print(
            f"  {counts.seeded} earlier labels of these sentences (given before the answers, or edited in the "
            "app) count as the answers of whoever gave them"
        )
    if counts.kept:
        print(f"  {counts.kept} tokens resolved by an adjudicator kept their labels")
    if added:
        print(f"added labels: {' '.join(added)}")
    return 0


def _read_answers(project, path: Path, args: argparse.Namespace):
    """One file's answers matched by ``--match order|tokens``; a span file that does not match is pointed to
    ``--match text``."""
    from tagtool.cli.inputs import reader_kwargs
    from tagtool.errors import FormatError
    from tagtool.store.answer_files import read_answer_file
    from tagtool.store.span_attach import is_span_file

    try:
        return read_answer_file(project, path, args.match, file_annotator(args, path), **reader_kwargs(args, path))
    except FormatError as exc:
        if not is_span_file(path) or not project.spans.has_texts():
            raise
        raise FormatError(
            exc.path,
            exc.line,
            exc.message + "; --match text places the spans of doccano / Label "
            "Studio records by character offsets on the project's text",
        ) from None


def _create_from_first(args: argparse.Namespace) -> None:
    """A new project of the first file's sentences, unlabeled: the files' labels come as answers.

    Its label set is ``--labels``, else the files' labels with the scheme
    completed (``I-X`` beside ``B-X``), as a plain import makes it.
    """
    from tagtool.cli.inputs import reader_kwargs
    from tagtool.core import Corpus, LabelSet
    from tagtool.core.corpus import Document
    from tagtool.core.labels import complete_scheme
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    corpora = [read_corpus(f, **reader_kwargs(args, f)) for f in args.files]
    if args.labels:
        labels = LabelSet(args.labels.split(","))
    else:
        labels = corpora[0].labels
        for corpus in corpora[1:]:
            labels = labels.union(corpus.labels)
        if not len(labels):
            raise TagtoolError(f"{', '.join(map(str, args.files))}: hold no labels; nothing to import as answers")
        labels = complete_scheme(labels)[0]
    documents = [Document(d.name, [s.unlabeled() for s in d.sentences]) for d in corpora[0].documents]
    with Project.create(args.project, Corpus(labels, documents), name=args.name):
        pass
    print(
        f"created {args.project} from the sentences of {args.files[0]} ({len(corpora[0])} sentences, "
        f"{len(labels)} labels: {' '.join(labels)})"
    )


def check_new_labels(project_labels, used, args: argparse.Namespace) -> list[str]:
    """The labels of the files (or of their answers) the project lacks: refused unless ``--add-labels``."""
    new = [name for name in used if name not in project_labels]
    if new and not args.add_labels:
        raise TagtoolError(
            f"{', '.join(map(str, args.files))}: labels that {args.project} does not have: {' '.join(new)}; "
            "check them for typos, or add them with --add-labels"
        )
    return new
