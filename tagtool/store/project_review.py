"""The sentence-review part of :class:`~tagtool.store.project.Project`'s front: flags, skips,
tokenization fixes, and the corpora that carry them (an export, what learners train on).

The methods rely on what :class:`~tagtool.store.project.Project` provides:
``_db`` (the open connection), ``_write()`` (one write transaction),
``labels`` and ``_length(sentence_id)`` (:class:`~tagtool.store.record_types.NotFoundError`
for an unknown sentence), the corpus it reads (``corpus()``, ``sentence_ids()``) and
``read_transaction()`` (the reads of one corpus see one snapshot).
"""

from __future__ import annotations

from tagtool.core.corpus import Corpus, Document
from tagtool.store import actions as _actions
from tagtool.store import annotators as _annotators
from tagtool.store import retokenize as _retokenize
from tagtool.store import review as _review

Action = _actions.Action | None


class ReviewFront:
    """A sentence flagged, skipped or retokenized; the corpus with its review."""

    def review(self, sentence_id: int) -> _review.Review:
        """Whether a sentence is flagged for review (and the comment) or skipped."""
        self._length(sentence_id)
        return _review.get(self._db, sentence_id)

    def reviews(self) -> dict[int, _review.Review]:
        """``{sentence id: Review}`` of every flagged or skipped sentence."""
        return _review.all_reviews(self._db)

    def skipped_ids(self) -> set[int]:
        """Ids of the skipped sentences (they leave the queue and are not trained on)."""
        return {sid for sid, r in self.reviews().items() if r.skipped}

    def set_review(self, sentence_id: int, review: _review.Review, annotator: str = "user",
                   action: Action = None) -> int | None:
        """Store a sentence's flag, comment and skip at once, and the app's ``action`` with them; its id."""
        if not isinstance(review, _review.Review):
            raise TypeError(f"review must be a Review, got {type(review).__name__}")
        self._length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            _review.put(conn, sentence_id, review, annotator)
            return None if action is None else _actions.insert(conn, action, int(sentence_id), annotator)

    def flag(self, sentence_id: int, comment: str = "", annotator: str = "user") -> None:
        """Flag a sentence for review with a comment (a flagged one gets the new comment)."""
        self.set_review(sentence_id, _review.Review(True, comment, self.review(sentence_id).skipped), annotator)

    def unflag(self, sentence_id: int, annotator: str = "user") -> None:
        """Remove a sentence's flag and its comment."""
        self.set_review(sentence_id, _review.Review(False, "", self.review(sentence_id).skipped), annotator)

    def set_skipped(self, sentence_id: int, skipped: bool = True, annotator: str = "user") -> None:
        """Skip a sentence (it leaves the queue and training), or put it back."""
        old = self.review(sentence_id)
        self.set_review(sentence_id, _review.Review(old.flagged, old.comment, bool(skipped)), annotator)

    def export_corpus(self) -> Corpus:
        """:meth:`corpus` with the review attributes and each annotator's own labels, for exported files."""
        with self.read_transaction():  # the sentences, their answers and reviews of one moment
            corpus, ids = self.corpus(), self.sentence_ids()
            corpus = _annotators.with_answers(self._db, corpus, ids)
            return _review.with_review_meta(corpus, ids, self.reviews())

    def training_corpus(self) -> Corpus:
        """:meth:`corpus` with the skipped sentences unlabeled: what learners may train on."""
        with self.read_transaction():
            corpus, skipped = self.corpus(), self.skipped_ids()
            ids = self.sentence_ids() if skipped else None
        if not skipped:
            return corpus
        sentences = iter(_review.for_training(ids, list(corpus), skipped))
        documents = [Document(d.name, [next(sentences) for _ in d.sentences]) for d in corpus.documents]
        return Corpus(corpus.labels, documents)

    # -- tokenization fixes (tagtool.store.retokenize)

    def split_token(self, sentence_id: int, token_index: int, offset: int, annotator: str = "user",
                    action: Action = None) -> _retokenize.Retokenized:
        """Split a token before its character ``offset``, labels following; the sentence before and
        after (for :meth:`restore_tokens`) and ``action``'s id, logged with it."""
        change = _retokenize.splitting(int(token_index), int(offset), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def merge_tokens(self, sentence_id: int, token_index: int, annotator: str = "user",
                     action: Action = None) -> _retokenize.Retokenized:
        """Merge a token with the next one (their texts joined); as :meth:`split_token`."""
        change = _retokenize.merging(int(token_index), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def restore_tokens(self, sentence_id: int, state: _retokenize.TokenState, at: int,
                       expected: _retokenize.TokenState | None = None, annotator: str = "user",
                       action: Action = None) -> int | None:
        """Put a sentence back into ``state`` (undo or redo of a split or merge at token ``at``),
        unless its tokens are no longer ``expected``'s; the id of ``action``, logged with it."""
        change = _retokenize.restoring(sentence_id, state, expected)
        return self._retokenize(sentence_id, int(at), change, annotator, action).action_id

    def _retokenize(self, sentence_id: int, at: int, change: _retokenize.Change, annotator: str,
                    action: Action) -> _retokenize.Retokenized:
        self._length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            return _retokenize.retokenize(conn, self.labels, int(sentence_id), at, change, annotator, action)
