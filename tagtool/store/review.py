"""Sentences flagged for review (with a comment) and skipped sentences (schema 6).

What annotators of other tools expect:

Flag for review
    A sentence can carry a flag and a free-text comment ("is *Bank* an ORG
    here?") for whoever reviews the annotation.  A comment is one line:
    line breaks and runs of white space become single spaces (CoNLL-U
    comments cannot hold a line break).  Flagging changes nothing else.
Skip
    A skipped sentence leaves the queue (the app's J and the model's
    ordering never offer it), and its annotations, if any, are not used for
    training: the learners see it as unlabeled text, which semi-supervised
    learners still use (a sentence set aside for being garbled or foreign is
    still text of the domain; its labels are what is doubtful).  Its
    annotations stay in the project and are exported as they are.
    Un-skipping puts it back.

Both are kept in the ``sentence_review`` table, one row per sentence that is
flagged or skipped (none otherwise), with who set it and when.

Export and import
    Formats that carry sentence attributes (CoNLL-U comments, JSON Lines
    keys) get ``tagtool:flag`` (the comment, possibly empty) and
    ``tagtool:skipped`` (``yes``) on the sentences concerned
    (:func:`with_review_meta`); JSON Lines span records carry those of each
    record's first sentence (a record's keys are its first sentence's);
    CoNLL column files, tables and plain text cannot carry them and are
    written without.  A corpus read with these keys (a file
    tagtool exported) gives its sentences their flags and skips back when a
    project is made from it or it is imported, and the keys leave the
    sentence's attributes (:func:`take_review_meta`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tagtool.core.corpus import Corpus, Document, Sentence

FLAG_KEY = "tagtool:flag"
SKIPPED_KEY = "tagtool:skipped"
SKIPPED_VALUE = "yes"

#: SQL conditions on ``s`` (a sentences row) for the project's status filters.
FLAGGED_SQL = "s.id IN (SELECT sentence_id FROM sentence_review WHERE flagged = 1)"
SKIPPED_SQL = "s.id IN (SELECT sentence_id FROM sentence_review WHERE skipped = 1)"


@dataclass(frozen=True)
class Review:
    """A sentence's review state: flagged (with a comment) and/or skipped."""

    flagged: bool = False
    comment: str = ""
    skipped: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "comment", clean_comment(self.comment) if self.flagged else "")

    @property
    def empty(self) -> bool:
        """Neither flagged nor skipped (no row is stored)."""
        return not self.flagged and not self.skipped


#: A sentence that is neither flagged nor skipped.
NOTHING = Review()


def clean_comment(text: str) -> str:
    """A comment as one line: white space runs (line breaks included) become one space."""
    if not isinstance(text, str):
        raise TypeError(f"a comment must be text, got {type(text).__name__}")
    return " ".join(text.split())


def get(conn: sqlite3.Connection, sentence_id: int) -> Review:
    row = conn.execute(
        "SELECT flagged, comment, skipped FROM sentence_review WHERE sentence_id = ?", (int(sentence_id),)
    ).fetchone()
    return NOTHING if row is None else Review(bool(row[0]), row[1], bool(row[2]))


def all_reviews(conn: sqlite3.Connection) -> dict[int, Review]:
    """``{sentence id: Review}`` of every flagged or skipped sentence."""
    return {
        sid: Review(bool(flagged), comment, bool(skipped))
        for sid, flagged, comment, skipped in conn.execute(
            "SELECT sentence_id, flagged, comment, skipped FROM sentence_review ORDER BY sentence_id"
        )
    }


def put(conn: sqlite3.Connection, sentence_id: int, review: Review, annotator: str) -> None:
    """Store ``review`` (an empty one removes the row), inside the caller's transaction."""
    if review.empty:
        conn.execute("DELETE FROM sentence_review WHERE sentence_id = ?", (int(sentence_id),))
        return
    conn.execute(
        "INSERT INTO sentence_review (sentence_id, flagged, comment, skipped, annotator, time) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sentence_id) DO UPDATE SET flagged = excluded.flagged, "
        "comment = excluded.comment, skipped = excluded.skipped, annotator = excluded.annotator, "
        "time = excluded.time",
        (int(sentence_id), int(review.flagged), review.comment, int(review.skipped), annotator, time.time()),
    )


def put_many(conn: sqlite3.Connection, reviews: Iterable[tuple[int, Review]], annotator: str) -> None:
    for sid, review in reviews:
        put(conn, sid, review, annotator)


# ----------------------------------------------------------------------
# training, export, import


def for_training(ids: Sequence[int], sentences: Sequence[Sentence], skipped: Iterable[int]) -> tuple[Sentence, ...]:
    """``sentences`` (of ``ids``) with the skipped ones' annotations removed: unlabeled text."""
    skipped = set(skipped)
    if not skipped:
        return tuple(sentences)
    return tuple(s.unlabeled() if sid in skipped else s for sid, s in zip(ids, sentences))


def review_meta(review: Review) -> dict[str, str]:
    """The sentence attributes that carry ``review`` in an exported file."""
    meta = {}
    if review.flagged:
        meta[FLAG_KEY] = review.comment
    if review.skipped:
        meta[SKIPPED_KEY] = SKIPPED_VALUE
    return meta


def with_review_meta(corpus: Corpus, ids: Sequence[int], reviews: Mapping[int, Review]) -> Corpus:
    """``corpus`` (whose sentences are ``ids`` in order) with the review attributes added."""
    if not reviews:
        return corpus
    ids_left = iter(ids)
    documents = []
    for document in corpus.documents:
        sentences = []
        for sentence in document.sentences:
            review = reviews.get(next(ids_left))
            if review is not None and not review.empty:
                sentence = replace(sentence, meta={**sentence.meta, **review_meta(review)})
            sentences.append(sentence)
        documents.append(Document(document.name, sentences))
    return replace(corpus, documents=tuple(documents))


def take_review_meta(meta: Mapping[str, str]) -> tuple[dict[str, str], Review]:
    """A read sentence's attributes without the review keys, and the review they said."""
    if FLAG_KEY not in meta and SKIPPED_KEY not in meta:
        return dict(meta), NOTHING
    rest = {k: v for k, v in meta.items() if k not in (FLAG_KEY, SKIPPED_KEY)}
    skipped = SKIPPED_KEY in meta and str(meta[SKIPPED_KEY]).strip().lower() not in ("no", "false", "0")
    return rest, Review(FLAG_KEY in meta, str(meta.get(FLAG_KEY) or ""), skipped)
