"""Annotators' own answers in a project, and the training labels made from them.

The one module that writes the rule of
:mod:`tagtool.core.annotators` into a project
(:mod:`tagtool.core.annotators`): the ``annotator_labels`` table holds each
annotator's answer for a token; the ``annotations`` table holds the token's
training label, :func:`~tagtool.core.annotators.combine` of its answers
(a strict majority's answer, else the candidate set of their answers), its ``annotator`` naming who gave it
(:func:`~tagtool.core.annotators.giver`).

:func:`write_answers` adds answers and recomputes the training labels of
the tokens whose answers they change, inside the caller's transaction (a
kill leaves the project as it was). Importing annotators' files of a project's
sentences (``tagtool import --as-annotator``) and ``tagtool merge``
(:mod:`tagtool.store.merge`) both go through it. Before the new answers go
in:

* **a named giver's training label is their answer.** A token whose training
  label is not what the rule makes of its answers — labeled before any
  answer came, or edited after they came — by a named person (an
  annotator, an adjudicator editing under their name) gives that label as
  that person's answer, replacing their earlier answer for the token.
  Nothing is lost: such an edit is one voice among the others.
* **the project's own labels stand.** Where that label's giver is one of
  :data:`~tagtool.core.annotators.PROJECT_GIVERS` (the person working in
  the app under no name of their own, an import that named nobody), the
  label is the project's curated label, not an answer: the token keeps it,
  as a resolved one does, and no annotator ``user`` appears in the project
  or its exports.
* **joint givers are never annotators.** A training label's ``annotator``
  ``alice+bob`` (:data:`~tagtool.core.annotators.JOINER`) says the rule
  made it of alice's and bob's answers; it is nobody's own answer, and is
  not made one even where the label is no longer what their answers make
  (a token merge of an older version kept it so).
* **resolved tokens are left alone.** A token in ``adjudicated``
  (:mod:`tagtool.store.team`: an adjudicator picked one label or kept the
  set) keeps its training label; its answers are still recorded. (An edit
  of a resolved token carries its resolution along, :func:`tagtool.store.writes.apply`;
  a resolution an older version left behind such an edit follows the
  training label here.)

Then only the tokens whose answers the new ones change get the label the
rule makes. A token nobody's new answer touches keeps its training label,
whatever the rule would make of it: merging the same, unchanged files again
changes nothing, and an edit or a clear made in the project since the last
merge stands (the annotators said nothing new about that token) until an
annotator's answer for it changes.

Changed training labels are logged in ``annotation_log`` by their new giver.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.annotators import JOINER, PROJECT_GIVERS, combine, giver
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import CANDIDATE_SEPARATOR, NO_LABEL, LabelSet
from tagtool.errors import LabelError, ProjectError
from tagtool.store import sentence_rows as _rows
from tagtool.store import team as _team
from tagtool.store import token_checks
from tagtool.store.corpus_reads import sentence_length

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
    answers_changed : int
        Tokens whose answers the new ones changed.
    changed : int
        Training labels that changed (set, replaced or removed).
    candidate_sets : int
        Tokens recomputed (their answers changed) whose training label is now
        a candidate set of differing answers.
    kept : int
        Resolved tokens, and tokens with the project's own label, whose answers changed and whose
        training label was kept.
    seeded : int
        Earlier training labels that became their giver's answers.
    """

    sentences: int = 0
    answers: int = 0
    answers_changed: int = 0
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
        "WHERE sentence_id IN (SELECT value FROM json_each(?))",
        (_json_ids(sentence_ids),),
    ):
        out.setdefault(sid, {})[t] = (text, who)
    return out


def _resolved(conn: sqlite3.Connection, sentence_ids: Sequence[int]) -> dict[tuple[int, int], str]:
    """``{(sentence, token): stored labels}`` of the tokens an adjudicator resolved (:mod:`tagtool.store.team`)."""
    return {
        (sid, t): text
        for sid, t, text in conn.execute(
            "SELECT sentence_id, token, labels FROM adjudicated WHERE sentence_id IN (SELECT value FROM json_each(?))",
            (_json_ids(sentence_ids),),
        )
    }


def _follow_edits(conn: sqlite3.Connection, training, resolved: dict[tuple[int, int], str]) -> set[tuple[int, int]]:
    """The resolved tokens, each resolution made the token's training label where an edit changed it
    without its resolution (an older version did), removed where the edit cleared the token."""
    now = time.time()
    for (sid, t), text in list(resolved.items()):
        label, who = training.get(sid, {}).get(t, (None, None))
        if label == text:
            continue
        if label is None:
            del resolved[(sid, t)]
        _team.put_resolution(conn, sid, t, label, who or "nobody", now)
    return set(resolved)


def derived(votes: Mapping[str, frozenset[str]], labels: LabelSet) -> tuple[str, str] | None:
    """The training label the rule makes of a token's answers: (stored labels, giver), None for no label."""
    label = combine(votes.values(), labels)
    text = _rows.spell(label, labels)
    return None if text is None else (text, giver(votes, label, "nobody"))


def _seed(answers: Answers, training, resolved, labels: LabelSet, sids: Sequence[int], names: set[str]) -> int:
    """Training labels the rule does not make of the answers become their givers' answers, unless
    their giver is a joint one of ``names``, the annotators; those the project gave itself join
    ``resolved``, the tokens whose label stands (module doc)."""
    seeded = 0
    for sid in sids:
        for t, (text, who) in training.get(sid, {}).items():
            votes = answers.get(sid, {}).get(t, {})
            if (sid, t) in resolved or (derived(votes, labels) or (None,))[0] == text or is_joint(who, names):
                continue
            if who in PROJECT_GIVERS and who not in names:  # the project's own label: it stands (module doc)
                resolved.add((sid, t))
                continue
            answers.setdefault(sid, {}).setdefault(t, {})[who] = _rows.parse_stored(text)
            seeded += 1
    return seeded


def _put(answers: Answers, labels: LabelSet, sid: int, name: str, given, where: str) -> int:
    """``name``'s answers for one sentence, replacing that annotator's earlier ones; tokens answered.

    ``given`` is the labels per token (a sequence), or ``{token: labels}``.
    """
    tokens = answers.setdefault(sid, {})
    for by_name in tokens.values():
        by_name.pop(name, None)
    n = 0
    for t, ann in given.items() if isinstance(given, Mapping) else enumerate(given):
        try:
            ann = make_annotation(ann, labels)
        except LabelError as exc:
            raise LabelError(f"{where}, token {t + 1}: {exc}") from None
        if ann:
            tokens.setdefault(int(t), {})[name] = ann
            n += 1
    return n


def check_lengths(conn: sqlite3.Connection, given: Sequence[tuple[int, str, Mapping[str, Sequence]]]) -> None:
    """:class:`ProjectError` when an annotator gives a sentence more or fewer labels than it has tokens
    (:class:`~tagtool.store.record_types.NotFoundError` for an unknown sentence); inside the write's
    transaction, so the lengths checked are those written to."""
    for sid, _, by_name in given:
        n = sentence_length(conn, sid)
        bad = [name for name, anns in by_name.items() if len(anns) != n]
        if bad:
            raise ProjectError(f"sentence {sid} has {n} tokens; {bad[0]!r} gave {len(by_name[bad[0]])} labels")


def write_answers(
    conn: sqlite3.Connection,
    labels: LabelSet,
    given: Sequence[tuple[int, str, Mapping[str, Sequence[frozenset[str]] | Mapping[int, frozenset[str]]]]],
) -> AnswerCounts:
    """Add annotators' answers to a project and recompute the training labels of the tokens they change.

    Runs inside the caller's transaction (module doc for the rule, what
    becomes an answer first and what is left alone).

    Parameters
    ----------
    conn : sqlite3.Connection
        In a write transaction.
    labels : LabelSet
        The project's labels (answers are checked and normalised against them).
    given : sequence of (sentence id, description, {annotator: answers})
        Each annotator's answers (labels per token, or ``{token: labels}``)
        replace that annotator's earlier answers for the sentence; a token
        they leave unlabeled has no answer.

    Returns
    -------
    AnswerCounts

    Raises
    ------
    LabelError
        An answer with a label outside ``labels`` (naming the sentence and token).
    StaleTokensError
        An answer for a token index outside its sentence
        (:func:`tagtool.store.token_checks.check_indexes`); nothing is written.
    """
    sids = sorted({int(sid) for sid, _, _ in given})
    answers = stored_answers(conn, sids)
    before = {sid: {t: dict(v) for t, v in answers.get(sid, {}).items()} for sid in sids}
    names = {name for tokens in answers.values() for v in tokens.values() for name in v}
    names.update(name for _, _, by_name in given for name in by_name)
    training = _training(conn, sids)
    resolved = _follow_edits(conn, training, _resolved(conn, sids))
    seeded = _seed(answers, training, resolved, labels, sids, names)
    n_answers = sum(
        _put(answers, labels, int(sid), name, anns, where)
        for sid, where, by_name in given
        for name, anns in by_name.items()
    )
    moved = _moved(before, answers, given)
    rows = [
        (sid, t, name, _rows.spell(ann, labels))
        for sid in sids
        for t, by_name in answers.get(sid, {}).items()
        for name, ann in by_name.items()
    ]
    token_checks.check_indexes(conn, rows, "an answer")  # before anything is written
    changed, candidate_sets = _recompute(conn, labels, sids, answers, training, moved - resolved)
    conn.execute(
        "DELETE FROM annotator_labels WHERE sentence_id IN (SELECT value FROM json_each(?))", (_json_ids(sids),)
    )
    conn.executemany("INSERT INTO annotator_labels (sentence_id, token, annotator, labels) VALUES (?, ?, ?, ?)", rows)
    _rows.refresh_counts(conn, sids)
    return AnswerCounts(len(sids), n_answers, len(moved), changed, candidate_sets, len(moved & resolved), seeded)


def is_joint(who: str, names: set[str]) -> bool:
    """Whether the giver ``who`` is a joint one (``alice+bob``) of annotators in ``names``, not a person.

    A name may hold the joiner itself (``jo+tagtool@example.org``): ``who``
    is joint when it is no name of ``names`` but its parts, cut at joiners,
    make two or more of them.
    """
    if JOINER not in who or who in names:
        return False
    parts = who.split(JOINER)
    ends = {0}  # ends[i]: parts[:i] joined are names of ``names`` joined
    for i in range(1, len(parts) + 1):
        if any(JOINER.join(parts[j:i]) in names for j in ends):
            ends.add(i)
    return len(parts) in ends


def _moved(before: Answers, after: Answers, given) -> set[tuple[int, int]]:
    """The (sentence, token) pairs whose answers by the annotators of ``given`` differ from ``before``
    (the stored ones, before an earlier label became its giver's answer)."""
    moved = set()
    for sid, _, by_name in given:
        sid, old, new = int(sid), before.get(int(sid), {}), after.get(int(sid), {})
        for t in set(old) | set(new):
            if any(old.get(t, {}).get(name) != new.get(t, {}).get(name) for name in by_name):
                moved.add((sid, t))
    return moved


def _recompute(conn, labels, sids, answers, training, tokens: set[tuple[int, int]]) -> tuple[int, int]:
    """Write the training labels of ``tokens`` (of ``sids``) that the rule makes of their answers,
    log the changed ones; (labels changed, candidate sets of differing answers)."""
    now = time.time()
    upserts, deletes, log = [], [], []
    changed = candidate_sets = 0
    for sid, t in sorted(tokens):
        votes, cur = answers.get(sid, {}).get(t, {}), training.get(sid, {}).get(t)
        row = derived(votes, labels)
        candidate_sets += row is not None and CANDIDATE_SEPARATOR in row[0] and len(set(votes.values())) > 1
        if row == cur:
            continue
        if row is None:
            deletes.append((sid, t))
        else:
            upserts.append((sid, t, *row, now))
        if (row or (None,))[0] != (cur or (None,))[0]:  # the label itself changed, not only its giver
            changed += 1
            log.append(
                (sid, t, cur[0] if cur else NO_LABEL, row[0] if row else NO_LABEL, row[1] if row else cur[1], now)
            )
    _rows.write_annotations(conn, deletes, upserts, log)
    return changed, candidate_sets


def derived_label(
    conn: sqlite3.Connection, labels: LabelSet, sentence_id: int, token: int
) -> tuple[frozenset[str], str]:
    """The training label a token's stored answers make, and its giver (``nobody`` without answers).

    For a resolution taken back (:meth:`tagtool.store.project_team.TeamPart.unresolve_token`).
    """
    votes = stored_answers(conn, [sentence_id]).get(int(sentence_id), {}).get(int(token), {})
    row = derived(votes, labels)
    return (EMPTY, "nobody") if row is None else (_rows.parse_stored(row[0]), row[1])


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
        by_annotator = {name: [tokens.get(t, {}).get(name, EMPTY) for t in range(len(sentence))] for name in names}
        return Sentence(sentence.tokens, sentence.annotations, sentence.columns, sentence.meta, by_annotator)

    documents = [Document(d.name, [own(s) for s in d.sentences]) for d in corpus.documents]
    return Corpus(corpus.labels, documents, corpus.warnings)
