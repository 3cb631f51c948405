"""A model's guidance of a big project, scored chunk by chunk: the likely top of the queue first.

:func:`tagtool.services.guidance.analyse_all` scores every sentence at once.  On a
big project that is a long wait before the queue has its first
sentence, in numpy and scipy calls over millions of tokens, some of which
hold the GIL for a tenth of a second (the window, on the GUI thread, waits
that long).  Here the same numbers come in chunks of :data:`CHUNK`
sentences, each a few milliseconds per call:

* :func:`chunk_rows` orders the chunks.  The first (:data:`FIRST`
  sentences) holds what the new queue's first page most likely shows: the
  sentences given first (the current one, the list's rows on screen, the
  head of the previous model's queue) and, without a previous queue, an
  even sample of the open sentences.  The rest follows in the previous
  queue's order, then the open sentences in document order, then the fully
  labeled ones.
* :func:`score_chunk` computes one chunk's numbers per token.
* :class:`ChunkedGuidance` gathers them into flat arrays over every token
  of the project and gives, at any time, the
  :class:`~tagtool.services.guidance.Analysis` of the sentences scored so far (the
  others score nothing: their tokens ask no question, and the queue plan
  ranks them last, :func:`tagtool.gui.questions.build_plan`) and their
  :class:`~tagtool.services.guidance.SentenceGuidance`, built when asked
  (:class:`GuidanceView`).

Once every chunk is in, the arrays are :func:`analyse_all`'s: each number
is computed per sentence, except the margin models' scale ``τ`` (the median
margin of all tokens scored together, :func:`tagtool.services.uncertainty.margin_scale`),
which is applied when the analysis is made, over the margins scored so
far.  One number depends on the batch: the BIO penalty
(:func:`tagtool.decode.forbid_transitions`) is the batch's largest path
score range, so the max-marginal of a label that only a forbidden step
reaches differs between batches.  It is never a token's best label, and
its second-best only where every ``B-``/``O`` label, always valid, scores
lower still; the margins, suggestions and runner-ups are then equal
(tests/test_chunked_guidance.py compares them with :func:`analyse_all`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from tagtool.core.features import concat_ranges
from tagtool.core.snapshot import build_snapshot
from tagtool.gil_slices import index_of
from tagtool.services import guidance
from tagtool.services.guidance import Analysis, SentenceGuidance
from tagtool.services.strategies import Evidence, Tokens
from tagtool.services.uncertainty import (
    best_and_runner_up,
    candidate_confidences,
    contention_question,
    entropy_uncertainty,
    gives_confidences,
    margin_scale,
    margins,
    pair_uncertainty,
)

#: Sentences scored before the queue's first page (about half a second on a 2-core machine).
FIRST = 1000
#: Sentences per later chunk, a short piece of work: between two chunks the app's worker lets the
#: GUI thread have a turn (:meth:`tagtool.gui.worker.TaskState.pause`).
CHUNK = 200


def _first_seen(rows: np.ndarray) -> np.ndarray:
    """``rows`` without repeats, each where it first occurs."""
    _, first = np.unique(rows, return_index=True)
    return rows[np.sort(first)]


def chunk_rows(
    open_: np.ndarray,
    first: Sequence[int] = (),
    order: Sequence[int] = (),
    first_size: int | None = None,
    chunk: int | None = None,
) -> list[np.ndarray]:
    """The sentence rows to score, chunk by chunk (see the module doc); every row exactly once.

    Parameters
    ----------
    open_ : bool array [n]
        Sentences not fully labeled (the queue's candidates).
    first : sequence of int
        Rows expected on the new queue's first page, most likely first; the
        first chunk takes up to ``first_size`` of them and fills up with an
        even sample of the other open rows.
    order : sequence of int
        The previous queue's rows: the rest is scored in this order first.
    first_size, chunk : int, optional
        Sentences of the first chunk and of the others (default :data:`FIRST`, :data:`CHUNK`).
    """
    first_size = FIRST if first_size is None else first_size
    chunk = CHUNK if chunk is None else chunk
    open_ = np.asarray(open_, dtype=bool)
    n = len(open_)
    seen = np.zeros(n, dtype=bool)

    def valid(rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        return _first_seen(rows[(rows >= 0) & (rows < n)])

    head = valid(first)[:first_size]
    seen[head] = True
    if len(head) < first_size:
        others = np.flatnonzero(open_ & ~seen)
        need = first_size - len(head)
        if len(others) > need:
            others = others[np.linspace(0, len(others) - 1, need).astype(np.int64)]
        head = np.concatenate([head, others])
        seen[others] = True
    previous = valid(order)
    previous = previous[~seen[previous]]
    seen[previous] = True
    rest = np.concatenate([previous, np.flatnonzero(open_ & ~seen), np.flatnonzero(~open_ & ~seen)])
    if n <= first_size:  # a small project: one chunk, no first page before the whole
        return [np.concatenate([head, rest])] if n else []
    chunks = [head] if len(head) else []
    chunks += [rest[i : i + chunk] for i in range(0, len(rest), chunk)]
    return chunks


class ChunkScores:
    """One chunk's numbers per token, its sentences' tokens in the chunk's order (:func:`score_chunk`)."""

    def __init__(self, allowed, suggested, raw, top, other, pair, views=None, conf=None, contention=None, status=None):
        self.allowed, self.suggested, self.raw = allowed, suggested, raw
        self.status = status  # each sentence's (Snapshot.sentence_status: 2 fully labeled)
        self.top, self.other, self.pair = top, other, pair
        self.views, self.conf, self.contention = views, conf, contention


def score_chunk(tagger, sentences: Sequence, snapshot=None) -> ChunkScores:
    """:func:`tagtool.services.guidance.analyse_all`'s per-token numbers of ``sentences``, before the margin scale.

    ``raw`` is the token uncertainty of a probabilistic model and the margin
    of the others; ``pair`` the pair uncertainty between the best label and
    the runner-up (probabilistic), or the gap between their scores.
    ``snapshot``: theirs, made already (a slice of the training snapshot,
    :func:`training_rows`); by default built here.
    """
    model = tagger.model
    if snapshot is None:
        sentences = [guidance.known_labels(s, tagger.labels) for s in sentences]
        snapshot = build_snapshot(sentences, tagger.labels, tagger.extractor, model.feature_view)
    suggested = model.predict(snapshot, constrained=True)
    scores = model.score_tokens(snapshot)
    probabilistic = model.probabilistic
    raw = entropy_uncertainty(scores) if probabilistic else margins(scores)
    top, other = best_and_runner_up(scores)
    if scores.shape[1] < 2:
        pair = np.zeros(len(scores))
    elif probabilistic:
        pair = pair_uncertainty(scores, top, other, True)
    else:
        rows = np.arange(len(scores))
        pair = np.abs(scores[rows, top] - scores[rows, other])
    views = model.disagreement(snapshot) if model.n_views == 2 else None
    conf = candidate_confidences(tagger, snapshot)
    contention = contention_question(model, snapshot, scores) if conf is not None else None
    return ChunkScores(
        snapshot.allowed, suggested, raw, top, other, pair, views, conf, contention, snapshot.sentence_status()
    )


def training_rows(snapshot, tagger, sentences: Sequence):
    """``snapshot`` (a fit's training snapshot) when its rows are the features ``tagger`` gives
    ``sentences``, in their order; else None.

    A retrain's snapshot holds every sentence of the project (the learners
    read the unlabeled ones too), with the tagger's labels, features and
    views: slicing it (:meth:`Snapshot.subset`) spares extracting the
    features again (half the time of scoring a 100,000-sentence project,
    in Python that competes with the window for the GIL).
    """
    if snapshot is None or snapshot.n_sentences != len(sentences) or snapshot.labels != tuple(tagger.labels.names):
        return None
    if snapshot.feature_view is not tagger.model.feature_view and not np.array_equal(
        snapshot.feature_view, tagger.model.feature_view
    ):
        return None
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    if not np.array_equal(np.diff(snapshot.offsets), lengths):
        return None
    return snapshot


class ChunkedGuidance:
    """The flat arrays of a model's guidance of ``n`` sentences, filled chunk by chunk (module doc).

    Parameters
    ----------
    ids : sequence of int
        The sentences' ids, in document order (the rows).
    lengths : int array [n]
        Their token counts.
    tagger : Tagger
        The model they are scored with.
    """

    def __init__(self, ids: Sequence[int], lengths, tagger):
        model = tagger.model
        self.ids = tuple(ids)
        #: id -> row, if the caller made it (else each view makes its own on first use)
        self.index: dict[int, int] | None = None
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.offsets = np.concatenate(([0], np.cumsum(self.lengths))).astype(np.int64)
        self.labels = tuple(tagger.labels.names)
        self.names = np.asarray(self.labels, dtype=object)
        self.probabilistic = bool(model.probabilistic)
        n_tokens, n_labels = int(self.offsets[-1]), len(self.labels)
        self.scored = np.zeros(len(self.ids), dtype=bool)
        self.open = np.zeros(len(self.ids), dtype=bool)  # not fully labeled (known once scored)
        self.allowed = np.ones((n_tokens, n_labels), dtype=bool)
        self.suggested = np.zeros(n_tokens, dtype=np.int64)
        self.raw = np.zeros(n_tokens)
        self.top = np.zeros(n_tokens, dtype=np.int64)
        self.other = np.zeros(n_tokens, dtype=np.int64)
        self.pair = np.zeros(n_tokens)
        self.single_label = n_labels < 2
        self.views = (np.zeros(n_tokens, np.int64), np.zeros(n_tokens, np.int64)) if model.n_views == 2 else None
        self.conf: np.ndarray | None = None  # WD-PSL's candidate confidences, from the first chunk with them
        self.contention = np.zeros(n_tokens) if gives_confidences(tagger.learner) else None

    @property
    def n_scored(self) -> int:
        return int(self.scored.sum())

    @property
    def complete(self) -> bool:
        return bool(self.scored.all())

    def add(self, rows: np.ndarray, chunk: ChunkScores) -> None:
        """Put in the numbers of the sentences ``rows``, scored in this order (:func:`score_chunk`)."""
        rows = np.asarray(rows, dtype=np.int64)
        tokens = concat_ranges(self.offsets[rows], self.lengths[rows])
        for name in ("allowed", "suggested", "raw", "top", "other", "pair"):
            getattr(self, name)[tokens] = getattr(chunk, name)
        if self.views is not None:
            self.views[0][tokens], self.views[1][tokens] = chunk.views
        if chunk.conf is not None:
            if self.conf is None:
                self.conf = np.zeros(self.allowed.shape)
            self.conf[tokens] = chunk.conf
        if self.contention is not None:
            self.contention[tokens] = chunk.contention
        self.scored[rows] = True
        self.open[rows] = chunk.status < 2

    def scale(self) -> float | None:
        """``τ`` of the margins scored so far (None for a probabilistic model).

        As :func:`tagtool.services.guidance.analyse_all`'s: over the tokens of the
        sentences not fully labeled, or of all when every one is.
        """
        if self.probabilistic:
            return None
        rows = self.scored & self.open
        if not rows.any():
            rows = self.scored
        return margin_scale(self.raw[np.repeat(rows, self.lengths)])

    def analysis(self) -> tuple[Analysis, GuidanceView]:
        """The analysis of the sentences scored so far, and their guidance (a snapshot: later chunks change neither)."""
        scored_tokens = np.repeat(self.scored, self.lengths)
        scale = self.scale()
        if scale is None:
            uncertainty, torn = self.raw.copy(), self.pair.copy()
        else:
            uncertainty, torn = np.exp(-self.raw / scale), np.exp(-self.pair / scale)
        if self.single_label:
            torn = np.zeros(len(torn))
        uncertainty[~scored_tokens] = 0.0
        torn[~scored_tokens] = 0.0
        disagree = None if self.views is None else self.views[0] != self.views[1]
        contention = None if self.contention is None else self.contention.copy()
        result = Analysis(
            Evidence(uncertainty, disagree, contention),
            Tokens.from_allowed(self.allowed, self.offsets),
            self.probabilistic,
            self.top.copy(),
            self.other.copy(),
            torn,
            self.labels,
            scored=self.scored.copy(),
        )
        return result, GuidanceView(self, result.scored, uncertainty, disagree)


class GuidanceView(Mapping):
    """Sentence id → :class:`SentenceGuidance` of the sentences scored, built when asked.

    The app shows one sentence's guidance at a time; building all of them
    (100,000 objects holding 2.4 million floats) took seconds and set off
    the garbage collector, which holds the GIL throughout.
    """

    def __init__(self, source: ChunkedGuidance, scored: np.ndarray, uncertainty: np.ndarray, disagree):
        self._source, self._scored = source, scored
        self._uncertainty, self._disagree = uncertainty, disagree
        self._index: dict[int, int] | None = None

    def row(self, sid: int) -> int | None:
        if self._index is None:
            self._index = self._source.index if self._source.index is not None else index_of(self._source.ids)
        i = self._index.get(sid)
        return i if i is not None and self._scored[i] else None

    def __getitem__(self, sid: int) -> SentenceGuidance:
        i = self.row(sid)
        if i is None:
            raise KeyError(sid)
        s = self._source
        rows = slice(int(s.offsets[i]), int(s.offsets[i + 1]))
        names = s.names
        views = None if s.views is None else (names[s.views[0][rows]], names[s.views[1][rows]])
        whole = slice(0, rows.stop - rows.start)
        return guidance.sentence_guidance(
            whole,
            names[s.suggested[rows]],
            self._uncertainty[rows],
            s.allowed[rows],
            views,
            None if s.conf is None else s.conf[rows],
            None if self._disagree is None else self._disagree[rows],
            names,
        )

    def __iter__(self) -> Iterator[int]:
        ids = self._source.ids
        return (ids[i] for i in np.flatnonzero(self._scored).tolist())

    def __len__(self) -> int:
        return int(self._scored.sum())

    def __contains__(self, sid) -> bool:
        return self.row(sid) is not None
