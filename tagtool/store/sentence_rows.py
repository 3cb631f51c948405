"""Conversions between the core model (:class:`Sentence`, annotations) and rows.

Stored spellings: an annotation is ``A`` or ``A|B`` (labels in label-set
order) in ``annotations.labels`` — no row means no label; the log writes no
label as ``_``.  Tokens, columns and meta are JSON text in the sentence row.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from tagtool.core.annotation import EMPTY, format_annotation, make_annotation
from tagtool.core.annotators import giver
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import CANDIDATE_SEPARATOR, NO_LABEL, LabelSet
from tagtool.errors import FormatError, LabelError, ProjectError
from tagtool.store import review, token_checks

_META_SCALARS = (str, int, float, bool, type(None))


@lru_cache(maxsize=4096)
def parse_stored(text: str) -> frozenset[str]:
    """Annotation from its stored spelling (never empty: no label has no row)."""
    return frozenset(text.split(CANDIDATE_SEPARATOR))


def parse_logged(text: str) -> frozenset[str]:
    """Annotation from its spelling in the log, where ``_`` is no label."""
    return EMPTY if text == NO_LABEL else parse_stored(text)


def spell(ann: frozenset[str], labels: LabelSet) -> str | None:
    """Stored spelling of a normalised annotation, None for no label."""
    return format_annotation(ann, labels) if ann else None


def dumps(value: Any) -> str:
    """Compact JSON that keeps non-ASCII text readable."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_sentence(tokens: str, columns: str, meta: str, annotations: Mapping[int, frozenset]) -> Sentence:
    """A :class:`Sentence` from its row's JSON fields and ``{token: annotation}``.

    Raises ValueError (see :func:`build_sentence`) for values a program
    other than tagtool wrote.
    """
    return build_sentence(json.loads(tokens), annotations.items(), json.loads(columns), json.loads(meta))


def _strings(values: Any) -> bool:
    # One C-level pass (join refuses anything but strings), not a Python
    # loop: this runs on every sentence read.
    if type(values) is not list:
        return False
    try:
        "".join(values)
    except TypeError:
        return False
    return True


def build_sentence(tokens: Any, annotations: Iterable[tuple[int, frozenset]], columns: Any, meta: Any) -> Sentence:
    """A :class:`Sentence` from decoded row values, checked.

    The opening checks see that each value is JSON of the right kind; a
    file edited outside tagtool can still hold numbers for tokens or an
    annotation past its sentence's end.

    Raises
    ------
    ValueError
        What is wrong, for the caller to name the file and sentence.
    """
    if not _strings(tokens):
        raise ValueError("its tokens are not a list of strings")
    if not isinstance(columns, dict) or not all(map(_strings, columns.values())):
        raise ValueError("its extra columns are not lists of strings")
    if not isinstance(meta, dict):
        raise ValueError("its attributes are not an object")
    anns = [EMPTY] * len(tokens)
    t = None
    try:  # token indexes are never negative (a CHECK of the table)
        for t, ann in annotations:
            anns[t] = ann
    except IndexError:
        raise ValueError(f"an annotation of token {t}, past its {len(anns)} tokens") from None
    return Sentence(tokens, anns, columns, meta)


def annotations_by_sentence(
    conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()
) -> dict[int, dict[int, frozenset]]:
    """``{sentence_id: {token: annotation}}`` for the annotated tokens.

    One row per sentence: SQLite concatenates token indexes and spellings
    with spaces (which label names cannot contain), a third faster than a
    Python row per token.  Both lists come from the same aggregation, so
    they stay aligned whatever order SQLite reads the rows in.
    """
    result = {}
    for sid, tokens, texts in conn.execute(
        "SELECT sentence_id, group_concat(token, ' '), group_concat(labels, ' ') "
        f"FROM annotations {where} GROUP BY sentence_id",
        params,
    ):
        result[sid] = dict(zip(map(int, tokens.split(" ")), map(parse_stored, texts.split(" "))))
    return result


def refresh_counts(conn: sqlite3.Connection, sentence_ids: Sequence[int]) -> None:
    """Recompute the cached ``n_full``/``n_partial`` of some sentences."""
    conn.executemany(
        "UPDATE sentences SET "
        "n_full = (SELECT count(*) FROM annotations a WHERE a.sentence_id = sentences.id "
        "          AND instr(a.labels, '|') = 0), "
        "n_partial = (SELECT count(*) FROM annotations a WHERE a.sentence_id = sentences.id "
        "          AND instr(a.labels, '|') > 0) "
        "WHERE id = ?",
        [(sid,) for sid in sentence_ids],
    )


def first_difference(ours: Sequence[str], theirs: Sequence[str]) -> str:
    """Where two token sequences first differ, in words."""
    for t, (x, y) in enumerate(zip(ours, theirs)):
        if x != y:
            return f"token {t + 1}: {x!r} in the project, {y!r} in the corpus"
    return f"{len(ours)} tokens in the project, {len(theirs)} in the corpus"


def check_sentence(sentence: Sentence, where: str) -> None:
    """Refuse what a project cannot store faithfully: non-string tokens or columns."""
    for t, token in enumerate(sentence.tokens):
        if not isinstance(token, str) or not token:
            raise FormatError(None, None, f"{where}, token {t + 1}: {token!r} is not a non-empty string")
    for name, values in sentence.columns.items():
        if not isinstance(name, str) or not all(isinstance(v, str) for v in values):
            raise FormatError(None, None, f"{where}: column {name!r} must hold strings")
    for key, value in sentence.meta.items():
        if not isinstance(key, str) or not isinstance(value, _META_SCALARS):
            raise FormatError(None, None, f"{where}: meta {key!r} must map to a plain value")


def insert_corpus(conn: sqlite3.Connection, corpus: Corpus, labels: LabelSet, annotator: str) -> list[int]:
    """Append the documents of ``corpus`` inside the caller's transaction.

    Rows are validated as they stream into SQLite, document by document, so a
    bad sentence stops the import midway and the caller's rollback undoes it.
    Annotations are normalised against ``labels`` (a set naming all of them
    is no label). ``Sentence.annotator_labels`` (each annotator's own
    labels) go to the ``annotator_labels`` table, and a token's
    ``annotations.annotator`` names the annotators who gave its label
    (:func:`tagtool.core.annotators.giver`; ``annotator`` where the sentence
    names none); the review attributes of
    an exported project (``tagtool:flag``, ``tagtool:skipped``) become the
    sentence's flag and skip (:mod:`tagtool.store.review`).

    Returns
    -------
    list of int
        Ids of the new sentences, in order.
    """
    doc_id, doc_pos, last_id = conn.execute(
        "SELECT (SELECT coalesce(max(id), 0) FROM documents), "
        "(SELECT coalesce(max(position), -1) FROM documents), "
        "(SELECT coalesce(max(id), 0) FROM sentences)"
    ).fetchone()
    rows = _CorpusRows(labels, annotator, last_id)
    for document in corpus.documents:
        doc_id += 1
        doc_pos += 1
        conn.execute(
            "INSERT INTO documents (id, name, position) VALUES (?, ?, ?)",
            (doc_id, str(document.name), doc_pos),
        )
        _insert_document(conn, rows, document, doc_id)
    return rows.new_ids


class _CorpusRows:
    """The rows of an imported corpus's sentences, one document's at a time (:func:`insert_corpus`)."""

    def __init__(self, labels: LabelSet, annotator: str, last_id: int):
        self.labels, self.annotator, self.now = labels, annotator, time.time()
        self.last_id = last_id
        self.new_ids: list[int] = []
        self.annotations: list[tuple] = []
        self.answers: list[tuple] = []
        self.reviews: list[tuple] = []
        self._spelled: dict[frozenset, str | None] = {}

    def stored(self, ann: frozenset, where: str) -> str | None:
        """The stored spelling of ``ann`` (None: no label), checked against the labels once a set."""
        if ann not in self._spelled:
            try:
                self._spelled[ann] = spell(make_annotation(ann, self.labels), self.labels)
            except LabelError as e:
                raise LabelError(f"{where}: {e}") from None
        return self._spelled[ann]

    def sentences(self, document: Document, doc_id: int) -> Iterator[tuple]:
        """The ``sentences`` rows of a document; its other rows go to the lists as a side effect."""
        for position, sentence in enumerate(document.sentences):
            where = f"document {document.name!r}, sentence {position + 1}"
            check_sentence(sentence, where)
            self.last_id += 1
            sid = self.last_id
            n_full, n_partial = self._tokens(sentence, sid, where)
            self.new_ids.append(sid)
            meta, marks = review.take_review_meta(sentence.meta)
            if not marks.empty:
                self.reviews.append((sid, marks))
            yield (
                sid,
                doc_id,
                position,
                len(sentence.tokens),
                n_full,
                n_partial,
                dumps(sentence.tokens),
                dumps({k: list(v) for k, v in sentence.columns.items()}),
                dumps(meta),
                " ".join(sentence.tokens),
            )

    def _tokens(self, sentence: Sentence, sid: int, where: str) -> tuple[int, int]:
        """Collect a sentence's training labels and answers; (full labels, candidate sets)."""
        n_full = n_partial = 0
        answers = sentence.annotator_labels
        for t, ann in enumerate(sentence.annotations):
            text = self.stored(ann, where) if ann else None
            if text is None:
                continue
            if CANDIDATE_SEPARATOR in text:
                n_partial += 1
            else:
                n_full += 1
            # Who gave it: the annotators the file names, else the importer.
            who = giver({n: a[t] for n, a in answers.items()}, ann, self.annotator) if answers else self.annotator
            self.annotations.append((sid, t, text, who, self.now))
        for name, anns in answers.items():
            for t, ann in enumerate(anns):
                text = self.stored(ann, where) if ann else None
                if text is not None:
                    self.answers.append((sid, t, str(name), text))
        return n_full, n_partial


def _insert_document(conn: sqlite3.Connection, rows: _CorpusRows, document: Document, doc_id: int) -> None:
    """Insert a document's sentences, then their review marks, training labels and answers."""
    rows.annotations, rows.answers, rows.reviews = [], [], []
    conn.executemany(
        "INSERT INTO sentences (id, document_id, position, n_tokens, n_full, n_partial, "
        "tokens, columns, meta, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows.sentences(document, doc_id),
    )
    review.put_many(conn, rows.reviews, rows.annotator)
    conn.executemany(
        "INSERT INTO annotations (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?)",
        rows.annotations,
    )
    conn.executemany(
        "INSERT INTO annotator_labels (sentence_id, token, annotator, labels) VALUES (?, ?, ?, ?)",
        rows.answers,
    )


def write_annotations(
    conn: sqlite3.Connection, deletes: Sequence[tuple], upserts: Sequence[tuple], log: Sequence[tuple]
) -> None:
    """Write training labels: ``deletes`` (sentence, token) lose theirs, ``upserts`` (sentence,
    token, labels, annotator, time) get theirs, and ``log`` rows (sentence, token, old, new,
    annotator, time) go to ``annotation_log``; the caller refreshes the counts.

    ``annotations`` has no rowid and no trigger, so a replace is an update.  A token index
    outside its sentence refuses them all (:func:`tagtool.store.token_checks.check_indexes`).
    """
    token_checks.check_indexes(conn, upserts, "a training label")
    conn.executemany("DELETE FROM annotations WHERE sentence_id = ? AND token = ?", deletes)
    conn.executemany(
        "INSERT OR REPLACE INTO annotations (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?)",
        upserts,
    )
    conn.executemany(
        "INSERT INTO annotation_log (sentence_id, token, old, new, annotator, time) VALUES (?, ?, ?, ?, ?, ?)",
        log,
    )


#: Every sentence in document order (``CROSS JOIN`` keeps SQLite walking the
#: documents' position index, so no sort is needed).
ORDERED_SENTENCES = "FROM documents d CROSS JOIN sentences s INDEXED BY sentences_list ON s.document_id = d.id"


def match_sentences(conn: sqlite3.Connection, corpus: Corpus, match: str) -> list[tuple[int, str, Sentence]]:
    """Pair each sentence of ``corpus`` with the project sentence it annotates.

    Returns ``(sentence_id, description, sentence)`` triples; raises
    :class:`ProjectError` when counts or tokens do not agree.
    """
    rows = conn.execute(
        f"SELECT s.id, d.name, s.position, s.tokens {ORDERED_SENTENCES} ORDER BY d.position, s.position"
    ).fetchall()
    if match == "order":
        ours, theirs = rows, list(corpus)
        if len(theirs) != len(ours):
            raise ProjectError(
                f"the corpus has {len(theirs)} sentences, the project {len(ours)}; they cannot be matched in order"
            )
    elif match == "document":
        by_name: dict[str, list] = {}
        for row in rows:
            by_name.setdefault(row[1], []).append(row)
        ours, theirs = [], []
        for doc in corpus.documents:
            if doc.name not in by_name:
                raise ProjectError(f"the project has no document named {doc.name!r}")
            if len(by_name[doc.name]) != len(doc.sentences):
                raise ProjectError(
                    f"document {doc.name!r}: the corpus has {len(doc.sentences)} sentences, "
                    f"the project {len(by_name[doc.name])} (or two documents share the name)"
                )
            ours += by_name[doc.name]
            theirs += doc.sentences
    else:
        raise ValueError(f"match must be 'order' or 'document', got {match!r}")
    pairs = []
    for (sid, doc_name, position, tokens), sentence in zip(ours, theirs):
        where = f"document {doc_name!r}, sentence {position + 1}"
        tokens = tuple(json.loads(tokens))
        if tokens != sentence.tokens:
            detail = first_difference(tokens, sentence.tokens)
            raise ProjectError(f"{where}: the corpus's tokens differ from the project's ({detail})")
        pairs.append((sid, where, sentence))
    return pairs
