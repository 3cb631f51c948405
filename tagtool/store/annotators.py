"""Annotators' own answers in a project, and the training labels made from them.

The rule (issue 14's data model, :mod:`tagtool.core.annotators`): the
``annotator_labels`` table holds each annotator's answer for a token; the
``annotations`` table holds the token's training label, which is their
common answer where they agree and the candidate set of their answers where
they differ (:func:`~tagtool.core.annotators.training_label`), its
``annotator`` naming who gave it (:func:`~tagtool.core.annotators.giver`).

:func:`write_answers` adds answers and recomputes the training labels they
touch, inside the caller's transaction (a kill leaves the project as it
was). It is the one place that writes that rule into a file: importing one
annotator's file of a project's sentences uses it, and a merge of
annotators' projects can use it too. Two cases keep what is there:

* **labels that came before any answer.** A sentence without any answer
  yet whose tokens have training labels (labeled in the app, or imported
  without annotators) keeps them as the answers of whoever gave them
  (their ``annotator`` column): a later annotator's file adds a voice and
  never silently replaces earlier labels.
* **decisions.** A token whose training label is not what the rule gives
  from the answers it had — its ``annotator`` is not the rule's giver, so
  someone chose it after the answers came (an adjudicator, an edit in the
  app) — keeps that label when more answers arrive.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.annotators import giver, training_label
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import CANDIDATE_SEPARATOR, LabelSet
from tagtool.errors import LabelError
from tagtool.store import rows as _rows

#: ``{sentence id: {token: {annotator: answer}}}``
Answers = dict[int, dict[int, dict[str, frozenset[str]]]]


@dataclass(frozen=True)
class AnswerCounts:
    """What :func:`write_answers` did.

    Attributes
    ----------
    sentences : int
        Sentences that received answers.
    answers : int
        Tokens answered (over all annotators written).
    changed : int
        Training labels that changed (set, replaced or removed).
    candidate_sets : int
        Tokens whose training label is now a candidate set of differing answers.
    kept : int
        Tokens whose training label was a decision and was kept.
    seeded : int
        Earlier training labels that became their giver's answers.
    """

    sentences: int = 0
    answers: int = 0
    changed: int = 0
    candidate_sets: int = 0
    kept: int = 0
    seeded: int = 0


def _json_ids(ids: Sequence[int]) -> str:
    return _rows.dumps([int(i) for i in ids])


def stored_answers(conn: sqlite3.Connection, sentence_ids: Sequence[int] | None = None) -> Answers:
    """The ``annotator_labels`` rows of some sentences (all when None), by sentence, token and annotator."""
    where, params = "", ()
    if sentence_ids is not None:
        where, params = "WHERE sentence_id IN (SELECT value FROM json_each(?))", (_json_ids(sentence_ids),)
    out: Answers = {}
    for sid, t, name, text in conn.execute(
        f"SELECT sentence_id, token, annotator, labels FROM annotator_labels {where}", params
    ):
        out.setdefault(sid, {}).setdefault(t, {})[name] = _rows.parse_stored(text)
    return out


def _training(conn: sqlite3.Connection, sentence_ids: Sequence[int]) -> dict[int, dict[int, tuple[str, str]]]:
    """``{sentence: {token: (stored labels, annotator)}}`` of the training labels."""
    out: dict[int, dict[int, tuple[str, str]]] = {}
    for sid, t, text, who in conn.execute(
        "SELECT sentence_id, token, labels, annotator FROM annotations "
        "WHERE sentence_id IN (SELECT value FROM json_each(?))", (_json_ids(sentence_ids),)
    ):
        out.setdefault(sid, {})[t] = (text, who)
    return out


def _seed(answers: Answers, training: dict[int, dict[int, tuple[str, str]]], sids: Sequence[int]) -> int:
    """Sentences without answers: their training labels become their givers' answers (module doc)."""
    seeded = 0
    for sid in sids:
        if answers.get(sid):
            continue
        for t, (text, who) in training.get(sid, {}).items():
            answers.setdefault(sid, {}).setdefault(t, {})[who] = _rows.parse_stored(text)
            seeded += 1
    return seeded


def _put(answers: Answers, labels: LabelSet, sid: int, name: str, given: Sequence[frozenset[str]],
         where: str) -> int:
    """``name``'s answers for one sentence, replacing that annotator's earlier ones; tokens answered."""
    tokens = answers.setdefault(sid, {})
    for by_name in tokens.values():
        by_name.pop(name, None)
    n = 0
    for t, ann in enumerate(given):
        try:
            ann = make_annotation(ann, labels)
        except LabelError as exc:
            raise LabelError(f"{where}, token {t + 1}: {exc}") from None
        if ann:
            tokens.setdefault(t, {})[name] = ann
            n += 1
    return n


def write_answers(
    conn: sqlite3.Connection,
    labels: LabelSet,
    given: Sequence[tuple[int, str, Mapping[str, Sequence[frozenset[str]]]]],
    default: str = "import",
) -> AnswerCounts:
    """Add annotators' answers to a project and recompute the training labels they touch.

    Runs inside the caller's transaction (module doc for the rule and what
    it keeps).

    Parameters
    ----------
    conn : sqlite3.Connection
        In a write transaction.
    labels : LabelSet
        The project's labels (answers are checked and normalised against them).
    given : sequence of (sentence id, description, {annotator: labels per token})
        Each annotator's answers replace that annotator's earlier answers
        for the sentence; a token they leave unlabeled has no answer.
    default : str
        The ``annotator`` of a training label no answer gave.

    Returns
    -------
    AnswerCounts

    Raises
    ------
    LabelError
        An answer with a label outside ``labels`` (naming the sentence and token).
    """
    sids = sorted({int(sid) for sid, _, _ in given})
    answers = stored_answers(conn, sids)
    training = _training(conn, sids)
    before = {sid: {t: dict(v) for t, v in answers.get(sid, {}).items()} for sid in sids}
    seeded = _seed(answers, training, sids)
    n_answers = sum(_put(answers, labels, int(sid), name, anns, where)
                    for sid, where, by_name in given for name, anns in by_name.items())
    counts = _recompute(conn, labels, sids, answers, before, training, default)
    conn.execute("DELETE FROM annotator_labels WHERE sentence_id IN (SELECT value FROM json_each(?))",
                 (_json_ids(sids),))
    conn.executemany(
        "INSERT INTO annotator_labels (sentence_id, token, annotator, labels) VALUES (?, ?, ?, ?)",
        [(sid, t, name, _rows.spell(ann, labels))
         for sid in sids for t, by_name in answers.get(sid, {}).items() for name, ann in by_name.items()],
    )
    _rows.refresh_counts(conn, sids)
    return AnswerCounts(len(sids), n_answers, *counts, seeded)


def _recompute(conn, labels, sids, answers, before, training, default) -> tuple[int, int, int]:
    """Write the training labels of the tokens of ``sids``; (changed, candidate sets, kept)."""
    now = time.time()
    upserts, deletes = [], []
    changed = candidate_sets = kept = 0
    for sid in sids:
        now_answers, old_answers, current = answers.get(sid, {}), before[sid], training.get(sid, {})
        for t in sorted(set(now_answers) | set(current)):
            cur = current.get(t)
            if cur is not None and old_answers and not _derived(cur, old_answers.get(t, {}), labels):
                kept += 1  # a decision taken after the answers came (module doc)
                continue
            votes = now_answers.get(t, {})
            label = make_annotation(training_label(votes.values()), labels)
            text = _rows.spell(label, labels)
            candidate_sets += text is not None and CANDIDATE_SEPARATOR in text and len(set(votes.values())) > 1
            row = None if text is None else (text, giver(votes, label, default))
            if row == cur:
                continue
            changed += 1
            if row is None:
                deletes.append((sid, t))
            else:
                upserts.append((sid, t, *row, now))
    conn.executemany("DELETE FROM annotations WHERE sentence_id = ? AND token = ?", deletes)
    conn.executemany(
        "INSERT OR REPLACE INTO annotations (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?)",
        upserts,
    )
    return changed, candidate_sets, kept


def _derived(current: tuple[str, str], votes: Mapping[str, frozenset[str]], labels: LabelSet) -> bool:
    """Whether a training label (stored labels, annotator) is what the rule makes of ``votes``."""
    label = make_annotation(training_label(votes.values()), labels) if votes else EMPTY
    return current == (_rows.spell(label, labels), giver(votes, label, None))  # type: ignore[arg-type]


def with_answers(conn: sqlite3.Connection, corpus: Corpus, sentence_ids: Sequence[int]) -> Corpus:
    """``corpus`` (a project's, ``sentence_ids`` in its order) with each sentence's ``annotator_labels``.

    For exports that carry annotators (JSONL token records, Label Studio
    tasks). A token an annotator did not answer is empty in their labels.
    """
    answers = stored_answers(conn)
    if not answers:
        return corpus
    ids = iter(sentence_ids)

    def own(sentence: Sentence) -> Sentence:
        tokens = answers.get(next(ids))
        if not tokens:
            return sentence
        names = sorted({name for by_name in tokens.values() for name in by_name})
        by_annotator = {
            name: [tokens.get(t, {}).get(name, EMPTY) for t in range(len(sentence))] for name in names
        }
        return Sentence(sentence.tokens, sentence.annotations, sentence.columns, sentence.meta, by_annotator)

    documents = [Document(d.name, [own(s) for s in d.sentences]) for d in corpus.documents]
    return Corpus(corpus.labels, documents, corpus.warnings)
