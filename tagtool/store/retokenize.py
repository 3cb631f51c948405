"""Splitting a token in two and merging a token with the next, inside the project file.

A tokenization error is fixed where it is seen: the sentence's row (tokens,
extra columns, meta, search text, length), its annotations and each
annotator's own labels are rewritten in one transaction, so a kill leaves
either the old sentence or the new one.  The functions take an open
connection inside the caller's transaction, as :mod:`tagtool.store.sentence_rows`
does; :class:`~tagtool.store.project.Project` wraps them.

What changes
------------
Tokens
    A split cuts the token's text at a character offset (both halves
    non-empty); a merge joins two tokens' texts with nothing between them
    (``U.S`` + ``.`` → ``U.S.``).
Labels
    :mod:`tagtool.core.retokenize` (``B-X`` split → ``B-X I-X``; a merge keeps
    what both say, else the candidate set of both).  Tokens after the
    change keep their annotations, annotator and time, shifted; the changed
    tokens are recorded as annotated by the user who made the change.
Annotators' answers
    Each annotator's answer of the changed tokens is mapped as the labels
    are. Where the changed tokens had answers, the new tokens' training
    labels are then what the team rule makes of the mapped answers (none
    where nobody answered both tokens of a merge;
    :mod:`tagtool.store.retokenize_answers`), not the mapped labels: a
    joint giver (``alice+bob``) never stays on a label their answers do not
    make, and the user who made the change is not made an annotator.
Adjudications (:mod:`tagtool.store.team`)
    Resolutions of tokens after the change are shifted; the changed
    tokens' resolutions are dropped (their training labels stay as the
    change made them: the tokens are new).  Undo puts them back.
Extra columns (a file's POS, lemma, … columns)
    A split copies the token's values to both halves; a merge keeps the
    first token's.  Sentences read from CoNLL-U have their word ids
    renumbered and stay a tree with a true ``# text``, by the rules of
    :mod:`tagtool.store.retokenize_conllu`.
The annotation log
    Earlier entries keep the token indexes they had when written (it is a
    history).  The change itself is logged as what happened to the count of
    labeled tokens at its place: a split logs the first half's change (if
    any) and the new second half's label; a merge logs the first token's
    change and the second token's label going away.  So the statistics'
    replay of the log (:func:`tagtool.gui.statistics_numbers.progress_over_time`) stays
    exact.

Later imports
    Importing annotations into the project matches sentences by their
    tokens (:meth:`~tagtool.store.project_imports.ImportsPart.import_annotations`): a
    file with the old tokenization no longer matches a changed sentence,
    and the import says which one and where.

Undo
----
The project's split and merge return the sentence's :class:`TokenState`
before and after (:class:`Retokenized`); :func:`write_state` puts either
back (the app's undo and redo), as one more logged transaction.  The app
logs each as a ``retokenize`` action (:mod:`tagtool.store.actions`) in the
same transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from tagtool.core.labels import NO_LABEL, LabelSet
from tagtool.core.retokenize import merge_annotations, split_annotation
from tagtool.errors import ProjectError
from tagtool.store import actions as _actions
from tagtool.store import retokenize_answers as team_rule
from tagtool.store import retokenize_conllu as conllu_ids
from tagtool.store import sentence_rows as _rows
from tagtool.store.actions import Action


@dataclass(frozen=True)
class TokenState:
    """Everything of one sentence that a split or a merge rewrites.

    Attributes
    ----------
    tokens : tuple of str
    columns : dict of str to list of str
    meta : dict
    annotations : tuple of (token, stored labels, annotator, time)
    annotator_labels : tuple of (token, annotator, stored labels)
    adjudicated : tuple of (token, stored labels, adjudicator, time)
    """

    tokens: tuple[str, ...]
    columns: dict
    meta: dict
    annotations: tuple[tuple[int, str, str, float], ...]
    annotator_labels: tuple[tuple[int, str, str], ...]
    adjudicated: tuple[tuple[int, str, str, float], ...] = ()

    def labels_of(self, t: int) -> str | None:
        """Stored spelling of token ``t``'s annotation, None for no label."""
        return next((text for token, text, _, _ in self.annotations if token == t), None)


class Retokenized(NamedTuple):
    """A split or merge done: the sentence before and after, and the id of the action logged with it."""

    before: TokenState
    after: TokenState
    action_id: int | None = None


class RetokenizeError(ProjectError, ValueError):
    """A split or merge that cannot be made (offset inside no token, no next token)."""


def read_state(conn: sqlite3.Connection, sentence_id: int) -> TokenState:
    """The sentence as stored now; :class:`~tagtool.store.record_types.NotFoundError` by the caller if absent."""
    row = conn.execute("SELECT tokens, columns, meta FROM sentences WHERE id = ?", (int(sentence_id),)).fetchone()
    if row is None:
        raise LookupError(sentence_id)
    annotations = tuple(
        conn.execute(
            "SELECT token, labels, annotator, time FROM annotations WHERE sentence_id = ? ORDER BY token",
            (sentence_id,),
        )
    )
    own = tuple(
        conn.execute(
            "SELECT token, annotator, labels FROM annotator_labels WHERE sentence_id = ? ORDER BY token, annotator",
            (sentence_id,),
        )
    )
    resolved = tuple(
        conn.execute(
            "SELECT token, labels, annotator, time FROM adjudicated WHERE sentence_id = ? ORDER BY token",
            (sentence_id,),
        )
    )
    return TokenState(tuple(json.loads(row[0])), json.loads(row[1]), json.loads(row[2]), annotations, own, resolved)


def split_state(state: TokenState, t: int, offset: int, labels: LabelSet, annotator: str, now: float) -> TokenState:
    """``state`` with token ``t`` cut before its character ``offset``."""
    if not 0 <= t < len(state.tokens):
        raise RetokenizeError(f"the sentence has {len(state.tokens)} tokens; no token {t + 1}")
    token = state.tokens[t]
    if not 0 < offset < len(token):
        raise RetokenizeError(f"token {token!r} cannot be split at character {offset}: both parts must hold text")
    keep = (
        any(i == t for i, *_ in state.adjudicated)
        or not team_rule.answered(state, {t})
        or team_rule.project_labeled(state, {t}, labels)
    )
    state = team_rule.seeded(state, {t}, labels)
    tokens = (*state.tokens[:t], token[:offset], token[offset:], *state.tokens[t + 1 :])
    columns = {name: [*v[: t + 1], v[t], *v[t + 1 :]] for name, v in state.columns.items()}
    meta = dict(state.meta)
    if conllu_ids.is_conllu(meta):
        conllu_ids.split(state.tokens, state.columns, tokens, columns, meta, t)

    def halves(text: str | None) -> tuple[str | None, str | None]:
        if text is None:
            return None, None
        first, second = split_annotation(_rows.parse_stored(text), labels)
        return _rows.spell(first, labels), _rows.spell(second, labels)

    annotations = []
    for token_i, text, who, when in state.annotations:
        if token_i != t:
            annotations.append((token_i + (token_i > t), text, who, when))
            continue
        first, second = halves(text)
        if first == text:
            annotations.append((t, text, who, when))
        elif first is not None:
            annotations.append((t, first, annotator, now))
        if second is not None:
            annotations.append((t + 1, second, annotator, now))
    own = []
    for token_i, who, text in state.annotator_labels:
        if token_i != t:
            own.append((token_i + (token_i > t), who, text))
            continue
        for k, half in enumerate(halves(text)):
            if half is not None:
                own.append((t + k, who, half))
    new = TokenState(
        tokens,
        columns,
        meta,
        _sorted(annotations),
        _sorted(own),
        tuple((i + (i > t), *rest) for i, *rest in state.adjudicated if i != t),
    )
    return new if keep else team_rule.ruled(new, {t, t + 1}, labels, now)


def merge_state(state: TokenState, t: int, labels: LabelSet, annotator: str, now: float) -> TokenState:
    """``state`` with tokens ``t`` and ``t + 1`` made one."""
    if not 0 <= t < len(state.tokens) - 1:
        raise RetokenizeError(f"token {t + 1} of {len(state.tokens)} has no next token to merge with")
    keep = (
        any(i in (t, t + 1) for i, *_ in state.adjudicated)
        or not team_rule.answered(state, {t, t + 1})
        or team_rule.project_labeled(state, {t, t + 1}, labels)
    )
    state = team_rule.seeded(state, {t, t + 1}, labels)
    tokens = (*state.tokens[:t], state.tokens[t] + state.tokens[t + 1], *state.tokens[t + 2 :])
    columns = {name: [*v[: t + 1], *v[t + 2 :]] for name, v in state.columns.items()}
    meta = dict(state.meta)
    if conllu_ids.is_conllu(meta):
        conllu_ids.merge(state.tokens, state.columns, tokens, columns, meta, t)

    def merged(text_a: str | None, text_b: str | None) -> str | None:
        if text_a is None or text_b is None:
            return None
        ann = merge_annotations(_rows.parse_stored(text_a), _rows.parse_stored(text_b), labels)
        return _rows.spell(ann, labels)

    annotations = [
        (i - (i > t + 1), text, who, when) for i, text, who, when in state.annotations if i not in (t, t + 1)
    ]
    text = merged(state.labels_of(t), state.labels_of(t + 1))
    if text is not None:
        kept = next(((who, when) for i, old, who, when in state.annotations if i == t and old == text), None)
        annotations.append((t, text, *(kept or (annotator, now))))
    own = [(i - (i > t + 1), who, text) for i, who, text in state.annotator_labels if i not in (t, t + 1)]
    by_annotator: dict[str, dict[int, str]] = {}
    for i, who, text in state.annotator_labels:
        if i in (t, t + 1):
            by_annotator.setdefault(who, {})[i] = text
    for who, pair in by_annotator.items():
        text = merged(pair.get(t), pair.get(t + 1))
        if text is not None:
            own.append((t, who, text))
    new = TokenState(
        tokens,
        columns,
        meta,
        _sorted(annotations),
        _sorted(own),
        tuple((i - (i > t + 1), *rest) for i, *rest in state.adjudicated if i not in (t, t + 1)),
    )
    return new if keep else team_rule.ruled(new, {t}, labels, now)


def _sorted(rows: list[tuple]) -> tuple[tuple, ...]:
    return tuple(sorted(rows, key=lambda r: (r[0], str(r[1]))))


def write_state(
    conn: sqlite3.Connection, sentence_id: int, old: TokenState, new: TokenState, at: int, annotator: str
) -> None:
    """Replace the sentence's ``old`` state by ``new`` (one token more or fewer at ``at``), logged.

    Runs inside the caller's transaction.
    """
    grown = len(new.tokens) - len(old.tokens)
    if abs(grown) != 1:
        raise RetokenizeError(f"a split or merge changes one token, not {grown:+d}")
    conn.execute(
        "UPDATE sentences SET tokens = ?, columns = ?, meta = ?, text = ?, n_tokens = ? WHERE id = ?",
        (
            _rows.dumps(list(new.tokens)),
            _rows.dumps(new.columns),
            _rows.dumps(new.meta),
            " ".join(new.tokens),
            len(new.tokens),
            sentence_id,
        ),
    )
    conn.execute("DELETE FROM annotations WHERE sentence_id = ?", (sentence_id,))
    conn.executemany(
        "INSERT INTO annotations (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?)",
        [(sentence_id, *row) for row in new.annotations],
    )
    conn.execute("DELETE FROM annotator_labels WHERE sentence_id = ?", (sentence_id,))
    conn.executemany(
        "INSERT INTO annotator_labels (sentence_id, token, annotator, labels) VALUES (?, ?, ?, ?)",
        [(sentence_id, *row) for row in new.annotator_labels],
    )
    conn.execute("DELETE FROM adjudicated WHERE sentence_id = ?", (sentence_id,))
    conn.executemany(
        "INSERT INTO adjudicated (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?)",
        [(sentence_id, *row) for row in new.adjudicated],
    )
    conn.executemany(
        "INSERT INTO annotation_log (sentence_id, token, old, new, annotator, time) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (sentence_id, t, before or NO_LABEL, after or NO_LABEL, annotator, time.time())
            for t, before, after in _log_entries(old, new, at, grown)
        ],
    )
    _rows.refresh_counts(conn, [sentence_id])


def _log_entries(old: TokenState, new: TokenState, at: int, grown: int) -> list[tuple[int, str | None, str | None]]:
    """``(token, old, new)`` of the change at ``at``, so that replaying the log counts right."""
    entries = []
    if old.labels_of(at) != new.labels_of(at):
        entries.append((at, old.labels_of(at), new.labels_of(at)))
    if grown > 0 and new.labels_of(at + 1) is not None:
        entries.append((at + 1, None, new.labels_of(at + 1)))
    if grown < 0 and old.labels_of(at + 1) is not None:
        entries.append((at + 1, old.labels_of(at + 1), None))
    return entries


#: ``change(state now, label set, time) -> new state``: what a split, merge or restore makes of a sentence.
Change = Callable[[TokenState, LabelSet, float], TokenState]


def splitting(t: int, offset: int, annotator: str) -> Change:
    """The change splitting token ``t`` before its character ``offset`` (:func:`split_state`)."""
    return lambda old, labels, now: split_state(old, t, offset, labels, annotator, now)


def merging(t: int, annotator: str) -> Change:
    """The change merging token ``t`` with the next (:func:`merge_state`)."""
    return lambda old, labels, now: merge_state(old, t, labels, annotator, now)


def restoring(sentence_id: int, state: TokenState, expected: TokenState | None) -> Change:
    """The change putting ``state`` back (undo, redo); refused when the tokens are no longer ``expected``'s."""

    def change(old: TokenState, _labels: LabelSet, _now: float) -> TokenState:
        if expected is not None and old.tokens != expected.tokens:
            raise RetokenizeError(
                f"sentence {sentence_id} was changed since (its tokens are {' '.join(old.tokens)!r}); "
                "it was left as it is"
            )
        return state

    return change


def retokenize(
    conn: sqlite3.Connection,
    labels: LabelSet,
    sentence_id: int,
    at: int,
    change: Change,
    annotator: str,
    action: Action | None,
) -> Retokenized:
    """Rewrite a sentence by ``change`` at token ``at`` and log ``action`` with it, inside the
    caller's transaction."""
    old = read_state(conn, sentence_id)
    new = change(old, labels, time.time())
    write_state(conn, sentence_id, old, new, at, annotator)
    action_id = None if action is None else _actions.insert(conn, action, sentence_id, annotator)
    return Retokenized(old, new, action_id)
