"""Where a command's corpus comes from: a corpus file, or a project file.

``tagtool train PROJECT.tagproj`` (and evaluate, experiment, simulate)
takes a project's sentences and annotations directly, exactly as the app's
training does: full labels, candidate sets and unlabeled tokens as stored,
and the sentences skipped in the app as unlabeled text
(:mod:`tagtool.store.review`).
A project is recognised by its header bytes (SQLite's magic), never by
its name alone, so a corpus file called ``x.tagproj`` is still read as text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from os import PathLike
from pathlib import Path

from tagtool.core.corpus import Corpus, Document
from tagtool.store.dbfile import SQLITE_MAGIC, held_by_this_process


def is_project_file(path: str | PathLike) -> bool:
    """True when ``path`` is a regular file starting with SQLite's header."""
    path = Path(path)
    if not path.is_file():
        return False
    if held_by_this_process(path):
        return True  # checked when opened; not read outside SQLite (tagtool.store.dbfile)
    with open(path, "rb") as fh:
        return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def input_format(path: str | PathLike, format: str | None = None) -> str | None:
    """The format ``path`` is read in: ``format``, else detected; "project" for a project file, None for no file."""
    from tagtool.store.formats import detect_format

    path = Path(path)
    if not path.is_file():
        return None
    if is_project_file(path):
        return "project"
    return format or detect_format(path)


def options_taken(format: str | None) -> tuple[str, ...]:
    """The raw-text and span-record reader options an input read in ``format`` takes (others are refused)."""
    from tagtool.store.formats import SHARED_OPTIONS

    return SHARED_OPTIONS.get(format, ())


#: The project ``meta`` row holding the raw-text reader options its text was read with (JSON), so that
#: later text added to it (File › Add documents, ``tagtool import FILE -p PROJECT``) is read alike.
TEXT_OPTIONS_KEY = "text_options"


def text_options_meta(options: Mapping) -> dict[str, str]:
    """The ``meta`` row of the raw-text reader options among ``options`` (``{}`` when none is set)."""
    from tagtool.store.formats import TEXT_OPTIONS

    kept = {name: options[name] for name in TEXT_OPTIONS if options.get(name) is not None}
    return {TEXT_OPTIONS_KEY: json.dumps(kept, sort_keys=True)} if kept else {}


def stored_text_options(meta: Mapping[str, str], format: str | None = None) -> dict:
    """The raw-text reader options a project's ``meta`` records, those an input in ``format`` takes
    (all with None); ``{}`` for a project made otherwise (the readers' defaults then apply)."""
    from tagtool.store.formats import TEXT_OPTIONS

    try:
        stored = json.loads(meta.get(TEXT_OPTIONS_KEY) or "{}")
    except ValueError:
        return {}
    taken = TEXT_OPTIONS if format is None else options_taken(format)
    return {k: v for k, v in stored.items() if k in taken} if isinstance(stored, dict) else {}


def read_source(path: str | PathLike, *, label_column: int | str | None = -1, **reader_options) -> Corpus:
    """The corpus of a project file (opened read-only) or of a corpus file.

    Parameters
    ----------
    path : path-like
    label_column : int or str or None
        None reads no labels, from a project too (its sentences as
        unlabeled text); otherwise the project's annotations are taken and
        the column choice applies to corpus files only.
    **reader_options
        Passed to :func:`tagtool.store.formats.read_corpus` for corpus files.

    Raises
    ------
    ProjectError
        A damaged project file.
    FormatError
        Malformed corpus file.
    """
    if is_project_file(path):
        from tagtool.store.project import Project

        with Project.open(path, readonly=True) as project:
            corpus = project.review.training_corpus()
        if label_column is None:
            corpus = _without_labels(corpus)
        return corpus
    from tagtool.store.formats import read_corpus

    return read_corpus(path, label_column=label_column, **reader_options)


def _without_labels(corpus: Corpus) -> Corpus:
    documents = tuple(Document(d.name, tuple(s.unlabeled() for s in d.sentences)) for d in corpus.documents)
    return Corpus(corpus.labels, documents)
