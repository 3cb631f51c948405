"""The sentence-review part of a :class:`~tagtool.store.project.Project` (``project.review``): flags,
skips, tokenization fixes, and the corpora that carry them (an export, what learners train on).
"""

from __future__ import annotations

from tagtool.core.corpus import Corpus, Document
from tagtool.store import actions as _actions
from tagtool.store import annotators as _annotators
from tagtool.store import corpus_reads as reading
from tagtool.store import list_queries as queries
from tagtool.store import retokenize as _retokenize
from tagtool.store import review as _review
from tagtool.store.project_db import ProjectDb

Action = _actions.Action | None


class ReviewPart:
    """A sentence flagged, skipped or retokenized; the corpus with its review."""

    def __init__(self, db: ProjectDb):
        self.db = db

    def get(self, sentence_id: int) -> _review.Review:
        """Whether a sentence is flagged for review (and the comment) or skipped."""
        self.db.length(sentence_id)
        return _review.get(self.db.conn, sentence_id)

    def all(self) -> dict[int, _review.Review]:
        """``{sentence id: Review}`` of every flagged or skipped sentence."""
        return _review.all_reviews(self.db.conn)

    def skipped_ids(self) -> set[int]:
        """Ids of the skipped sentences (they leave the queue and are not trained on)."""
        return {sid for sid, r in self.all().items() if r.skipped}

    def set(
        self, sentence_id: int, review: _review.Review, annotator: str = "user", action: Action = None
    ) -> int | None:
        """Store a sentence's flag, comment and skip at once, and the app's ``action`` with them; its id."""
        if not isinstance(review, _review.Review):
            raise TypeError(f"review must be a Review, got {type(review).__name__}")
        self.db.length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self.db.write() as conn:
            _review.put(conn, sentence_id, review, annotator)
            return None if action is None else _actions.insert(conn, action, int(sentence_id), annotator)

    def flag(self, sentence_id: int, comment: str = "", annotator: str = "user") -> None:
        """Flag a sentence for review with a comment (a flagged one gets the new comment)."""
        self.set(sentence_id, _review.Review(True, comment, self.get(sentence_id).skipped), annotator)

    def unflag(self, sentence_id: int, annotator: str = "user") -> None:
        """Remove a sentence's flag and its comment."""
        self.set(sentence_id, _review.Review(False, "", self.get(sentence_id).skipped), annotator)

    def set_skipped(self, sentence_id: int, skipped: bool = True, annotator: str = "user") -> None:
        """Skip a sentence (it leaves the queue and training), or put it back."""
        old = self.get(sentence_id)
        self.set(sentence_id, _review.Review(old.flagged, old.comment, bool(skipped)), annotator)

    def _corpus(self) -> Corpus:
        return reading.corpus(self.db.conn, self.db.path, self.db.labels)

    def _ids(self) -> list[int]:
        return queries.sentence_ids(self.db.conn, False, None, None, None, "position", False)

    def export_corpus(self) -> Corpus:
        """The project's corpus with the review attributes and each annotator's own labels, for exported files."""
        with self.db.read():  # the sentences, their answers and reviews of one moment
            corpus, ids = self._corpus(), self._ids()
            corpus = _annotators.with_answers(self.db.conn, corpus, ids)
            return _review.with_review_meta(corpus, ids, self.all())

    def training_corpus(self) -> Corpus:
        """The project's corpus with the skipped sentences unlabeled: what learners may train on."""
        with self.db.read():
            corpus, skipped = self._corpus(), self.skipped_ids()
            if not skipped:
                return corpus
            ids = self._ids()
        sentences = iter(_review.for_training(ids, list(corpus), skipped))
        documents = [Document(d.name, tuple(next(sentences) for _ in d.sentences)) for d in corpus.documents]
        return Corpus(corpus.labels, tuple(documents))

    # -- tokenization fixes (tagtool.store.retokenize)

    def split_token(
        self, sentence_id: int, token_index: int, offset: int, annotator: str = "user", action: Action = None
    ) -> _retokenize.Retokenized:
        """Split a token before its character ``offset``, labels following; the sentence before and
        after (for :meth:`restore_tokens`) and ``action``'s id, logged with it."""
        change = _retokenize.splitting(int(token_index), int(offset), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def merge_tokens(
        self, sentence_id: int, token_index: int, annotator: str = "user", action: Action = None
    ) -> _retokenize.Retokenized:
        """Merge a token with the next one (their texts joined); as :meth:`split_token`."""
        change = _retokenize.merging(int(token_index), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def restore_tokens(
        self,
        sentence_id: int,
        state: _retokenize.TokenState,
        at: int,
        expected: _retokenize.TokenState | None = None,
        annotator: str = "user",
        action: Action = None,
    ) -> int | None:
        """Put a sentence back into ``state`` (undo or redo of a split or merge at token ``at``),
        unless its tokens are no longer ``expected``'s; the id of ``action``, logged with it."""
        change = _retokenize.restoring(sentence_id, state, expected)
        return self._retokenize(sentence_id, int(at), change, annotator, action).action_id

    def _retokenize(
        self, sentence_id: int, at: int, change: _retokenize.Change, annotator: str, action: Action
    ) -> _retokenize.Retokenized:
        self.db.length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self.db.write() as conn:
            return _retokenize.retokenize(conn, self.db.labels, int(sentence_id), at, change, annotator, action)
