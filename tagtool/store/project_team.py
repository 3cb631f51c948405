"""The team-work part of a :class:`~tagtool.store.project.Project` (``project.team``): annotators'
answers, adjudicators' resolutions, merges of annotators' files.

The rule that makes training labels of answers lives in
:mod:`tagtool.store.annotators`; resolutions in :mod:`tagtool.store.team`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from tagtool.errors import LabelError
from tagtool.store import actions as _actions
from tagtool.store import annotator_answers as _answers
from tagtool.store import annotators as _annotators
from tagtool.store import corpus_reads as reading
from tagtool.store import label_rows as _labels
from tagtool.store import team as _team
from tagtool.store import token_checks, writes
from tagtool.store.project_db import ProjectDb

Labels = Iterable[str] | str
Action = _actions.Action | None


class TeamPart:
    """Answers and resolutions of a project's tokens."""

    def __init__(self, db: ProjectDb):
        self.db = db

    def annotator_labels(self, sentence_id: int) -> dict[str, tuple[frozenset[str], ...]]:
        """Each annotator's own labels of a sentence, for data imported with several."""
        return reading.annotator_labels(self.db.conn, sentence_id)

    def answers(self, sentence_id: int) -> tuple[dict[str, frozenset[str]], ...]:
        """Each token's answers, ``{annotator: labels}`` (empty: nobody answered it)."""
        with self.db.read():  # the length and the rows of one moment
            return _team.read_answers(self.db.conn, int(sentence_id), self.db.length(sentence_id))

    def resolutions(self, sentence_id: int) -> dict[int, _team.Resolution]:
        """``{token: Resolution}`` of the sentence's tokens an adjudicator resolved."""
        self.db.length(sentence_id)
        return _team.read_resolutions(self.db.conn, int(sentence_id))

    def resolve_token(
        self, sentence_id: int, token_index: int, labels: Labels, annotator: str = "user", action: Action = None
    ) -> int | None:
        """Make ``labels`` (one picked, or the set kept) a token's training label that merges leave
        alone; one transaction, logged (:func:`tagtool.store.writes.resolve`)."""
        ann = self.db.normalize(labels)
        if not ann:
            raise LabelError("a token is resolved with a label or a candidate set, not with no label")
        if action is not None:
            _actions.check(action)
        with self.db.write() as conn:
            return writes.resolve(
                conn, self.db.path, self.db.labels, int(sentence_id), int(token_index), ann, annotator, action
            )

    def unresolve_token(
        self,
        sentence_id: int,
        token_index: int,
        annotator: str = "user",
        restore: Labels | None = None,
        action: Action = None,
    ) -> int | None:
        """Take a token's resolution back, its training label ``restore`` (an undo) or the one its
        answers make; one transaction, logged (:func:`tagtool.store.writes.unresolve`)."""
        restored = None if restore is None else self.db.normalize(restore)
        if action is not None:
            _actions.check(action)
        self.db.length(sentence_id)
        with self.db.write() as conn:
            return writes.unresolve(
                conn, self.db.path, self.db.labels, int(sentence_id), int(token_index), restored, annotator, action
            )

    def merge_answers(self, files: Sequence[Any]) -> Any:
        """Check annotators' files against the project (:func:`tagtool.store.merge.check_files`)
        and bring their answers in, one transaction (:func:`tagtool.store.merge.apply`): the
        check sees the sentences the merge writes (another program may retokenize them)."""
        from tagtool.store import merge as _merge  # imported only when merging

        with self.db.write() as conn:
            _merge.check_files(conn, self.db.path, files)
            return _merge.apply(conn, self.db.labels, files)

    def add_answers(
        self,
        given: Sequence[tuple[int, str, Mapping[str, Sequence[frozenset[str]]]]],
        add_labels: Iterable[str] = (),
        tokens: Mapping[int, Sequence[str]] | None = None,
    ) -> _annotators.AnswerCounts:
        """Add ``(sentence id, description, {annotator: labels per token})`` answers and recompute the
        training labels they touch, one transaction (:func:`tagtool.store.annotators.write_answers`).

        ``tokens``: the tokens each sentence had when the answers were matched to it; the
        lengths and these tokens are checked inside the transaction (another program may have
        split or merged a token since), and a sentence that differs now refuses them all.
        """
        given = list(given)
        if not given:
            return _annotators.AnswerCounts()
        with self.db.write() as conn:
            if tokens:
                token_checks.check_tokens(conn, tokens)
            _annotators.check_lengths(conn, given)
            labels = _labels.add_missing(conn, self.db.label_cache, add_labels) if add_labels else self.db.labels
            return _annotators.write_answers(conn, labels, given)

    def annotator_answers(
        self, first_id: int | None = None, last_id: int | None = None, shared: bool = False
    ) -> Iterator[tuple[int, int, str, frozenset[str]]]:
        """Every annotator's own answers ``(sentence id, token, annotator, labels)``, an iterator
        (:func:`tagtool.store.annotator_answers.answers`)."""
        return _answers.answers(self.db.conn, first_id, last_id, shared)

    def answering_annotators(self) -> list[str]:
        """Names with answers of their own (``annotator_labels``), sorted."""
        return _answers.annotators(self.db.conn)

    def annotator_progress(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``annotator -> (sentences, tokens)`` answered (:func:`tagtool.store.annotator_answers.progress`)."""
        return _answers.progress(self.db.conn, first_id, last_id)
