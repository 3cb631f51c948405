"""Reading a project's sentences: by id, the whole corpus, a snapshot, one sentence's labels.

Functions of a connection; the :class:`~tagtool.store.project.Project`
front calls them.  Each reads in one read transaction
(:func:`tagtool.store.transaction.read`): a sentence's tokens and its labels
are read by separate queries, and another program may split or merge a
token between them.  A sentence the file holds broken (a row written outside
tagtool) becomes a :class:`~tagtool.errors.ProjectError` naming it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tagtool.core.annotation import EMPTY
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError, ProjectError
from tagtool.store import sentence_rows as _rows
from tagtool.store import transaction
from tagtool.store.record_types import DocumentInfo, NotFoundError

#: Sentences read between two calls of a snapshot's ``checkpoint``.
CHECKPOINT_EVERY = 32


def sentence_length(conn: sqlite3.Connection, sentence_id: int) -> int:
    """Number of tokens of a sentence (:class:`NotFoundError` for an unknown id)."""
    row = conn.execute("SELECT n_tokens FROM sentences WHERE id = ?", (int(sentence_id),)).fetchone()
    if row is None:
        raise NotFoundError(f"no sentence with id {sentence_id}")
    return row[0]


def require_ids(ids: list[int], rows: dict) -> None:
    """Raise :class:`NotFoundError` for the first of ``ids`` that ``rows`` (keyed by id) lacks."""
    missing = next((i for i in ids if i not in rows), None)
    if missing is not None:
        raise NotFoundError(f"no sentence with id {missing}")


@contextmanager
def broken_sentence(path: Path) -> Iterator[Callable[[int], int]]:
    """Turn a sentence the file holds broken into a :class:`ProjectError`.

    Yields ``current(sid) -> sid``, to be called with each sentence id
    read, so that the error names the sentence.
    """
    last = [None]

    def current(sid: int) -> int:
        last[0] = sid
        return sid

    try:
        yield current
    except (ValueError, TypeError) as e:
        raise ProjectError(
            f"{path} is damaged: sentence {last[0]} holds broken data ({e}); was the file changed outside tagtool?"
        ) from e


def documents(conn: sqlite3.Connection) -> list[DocumentInfo]:
    """Documents in order, with their sentence and token counts."""
    rows = conn.execute(
        "SELECT d.id, d.name, d.position, count(s.id), coalesce(sum(s.n_tokens), 0) "
        "FROM documents d LEFT JOIN sentences s ON s.document_id = d.id "
        "GROUP BY d.id ORDER BY d.position"
    )
    return [DocumentInfo(*row) for row in rows]


def sentences(conn: sqlite3.Connection, path: Path, sentence_ids: Iterable[int]) -> list[Sentence]:
    """Sentences in the order of ``sentence_ids`` (two queries in all; :class:`NotFoundError`
    for an id the project does not hold)."""
    ids = [int(i) for i in sentence_ids]
    if not ids:
        return []
    with transaction.read(conn):
        return _read_sentences(conn, path, ids)


def _read_sentences(conn: sqlite3.Connection, path: Path, ids: list[int]) -> list[Sentence]:
    key = _rows.dumps(ids)
    rows = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT id, tokens, columns, meta FROM sentences WHERE id IN (SELECT value FROM json_each(?))", (key,)
        )
    }
    require_ids(ids, rows)
    annotations = _rows.annotations_by_sentence(conn, "WHERE sentence_id IN (SELECT value FROM json_each(?))", (key,))
    with broken_sentence(path) as current:
        return [_rows.make_sentence(*rows[current(i)], annotations.get(i, {})) for i in ids]


def corpus(conn: sqlite3.Connection, path: Path, labels: LabelSet) -> Corpus:
    """The whole project as a :class:`Corpus` (one query per table, one read transaction:
    the caller's, when ``labels`` must be of the same snapshot)."""
    with transaction.read(conn):
        return _read_corpus(conn, path, labels)


def _read_corpus(conn: sqlite3.Connection, path: Path, labels: LabelSet) -> Corpus:
    annotations = _rows.annotations_by_sentence(conn)
    by_document: dict[int, list[Sentence]] = {}
    with broken_sentence(path) as current:
        for doc_id, sid, tokens, columns, meta in conn.execute(
            "SELECT document_id, id, tokens, columns, meta FROM sentences ORDER BY document_id, position"
        ):
            by_document.setdefault(doc_id, []).append(
                _rows.make_sentence(tokens, columns, meta, annotations.get(current(sid), {}))
            )
    docs = [
        Document(name, by_document.get(doc_id, ()))
        for doc_id, name in conn.execute("SELECT id, name FROM documents ORDER BY position")
    ]
    try:
        return Corpus(labels, docs)
    except LabelError as e:
        # a label row deleted or an annotation written outside tagtool
        sid = next(s for s, anns in annotations.items() for ann in anns.values() if not ann <= set(labels))
        raise ProjectError(
            f"{path} is damaged: sentence {sid} holds a label that is not in the label set ({e}); "
            "was the file changed outside tagtool?"
        ) from e


def snapshot(
    conn: sqlite3.Connection, path: Path, checkpoint: Callable[[], bool] | None = None
) -> tuple[list[int], list[Sentence]]:
    """Ids and sentences (with their annotations) of the whole project, in document order.

    Read in one transaction (unless the caller holds one), so both lists
    describe the same moment even while another connection edits the file.
    ``checkpoint`` is called every :data:`CHECKPOINT_EVERY` sentences; when
    it returns True the read ends with :class:`InterruptedError`.
    """
    with transaction.read(conn):
        return _read_snapshot(conn, path, checkpoint)


def _read_snapshot(
    conn: sqlite3.Connection, path: Path, checkpoint: Callable[[], bool] | None
) -> tuple[list[int], list[Sentence]]:
    # One row per sentence: its JSON fields as one document (a third of
    # the decoding calls) and its annotations as "token labels token
    # labels ..." (label names hold no spaces), read through the
    # annotations' primary key.
    ids: list[int] = []
    read: list[Sentence] = []
    with broken_sentence(path) as current:
        for sid, fields, annotated in conn.execute(
            "SELECT s.id, '[' || s.tokens || ',' || s.columns || ',' || s.meta || ']', "
            "(SELECT group_concat(a.token || ' ' || a.labels, ' ') FROM annotations a "
            f" WHERE a.sentence_id = s.id) {_rows.ORDERED_SENTENCES} ORDER BY d.position, s.position"
        ):
            if checkpoint is not None and len(ids) % CHECKPOINT_EVERY == 0 and checkpoint():
                raise InterruptedError(f"{path}: reading stopped")
            tokens, columns, meta = json.loads(fields)
            parts = annotated.split(" ") if annotated else []
            anns = zip(map(int, parts[::2]), map(_rows.parse_stored, parts[1::2]))
            ids.append(current(sid))
            read.append(_rows.build_sentence(tokens, anns, columns, meta))
    return ids, read


def annotations(conn: sqlite3.Connection, sentence_id: int) -> tuple[frozenset[str], ...]:
    """Allowed set of every token of a sentence (empty = no label)."""
    with transaction.read(conn):
        result = [EMPTY] * sentence_length(conn, sentence_id)
        rows = conn.execute("SELECT token, labels FROM annotations WHERE sentence_id = ?", (sentence_id,)).fetchall()
    for t, text in rows:
        result[t] = _rows.parse_stored(text)
    return tuple(result)


def annotator_labels(conn: sqlite3.Connection, sentence_id: int) -> dict[str, tuple[frozenset[str], ...]]:
    """Each annotator's own labels of a sentence (empty without a multi-annotator import;
    a token an annotator left unlabeled is empty)."""
    with transaction.read(conn):
        n_tokens = sentence_length(conn, sentence_id)
        rows = conn.execute(
            "SELECT token, annotator, labels FROM annotator_labels WHERE sentence_id = ? ORDER BY annotator, token",
            (sentence_id,),
        ).fetchall()
    out: dict[str, list[frozenset[str]]] = {}
    for t, name, text in rows:
        out.setdefault(name, [EMPTY] * n_tokens)[t] = _rows.parse_stored(text)
    return {name: tuple(labels) for name, labels in out.items()}
