"""Guidance scored chunk by chunk (tagtool.services.chunked_guidance) equals the whole-at-once analysis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tagtool.core import Corpus
from tagtool.gui.questions import build_plan, tie_ranks
from tagtool.learn import make_learner
from tagtool.services import chunked_guidance, guidance, strategies
from tagtool.services.chunked_guidance import ChunkedGuidance, chunk_rows, score_chunk
from tagtool.services.pipeline import train_tagger
from tagtool.services.uncertainty import margin_scale
from tagtool.store.formats import read_corpus

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def gold():
    return read_corpus(DATA / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])


@pytest.fixture(scope="module")
def sentences(gold):
    """60 sentences: every 5th fully labeled, every 7th partially, the rest unlabeled."""
    out = []
    for i, s in enumerate(gold.sentences[20:80]):
        if i % 5 == 0:
            out.append(s)
        elif i % 7 == 0:
            out.append(s.with_annotations([a if t % 2 else () for t, a in enumerate(s.annotations)]))
        else:
            out.append(s.unlabeled())
    return out


def _tagger(gold, learner, **params):
    train = Corpus.from_sentences(gold.sentences[:20], labels=gold.labels)
    return train_tagger(train, make_learner(learner, **params), unlabeled=gold.sentences[80:90])


@pytest.fixture(
    scope="module",
    params=[("mv-perceptron", {"max_iter": 3}), ("crf", {"max_iter": 20}), ("wdpsl", {"max_iter": 2})],
    ids=lambda p: p[0],
)
def tagger(request, gold):
    name, params = request.param
    return _tagger(gold, name, **params)


def _chunked(tagger, sentences, order, size):
    lengths = [len(s) for s in sentences]
    scores = ChunkedGuidance(range(len(sentences)), lengths, tagger)
    for i in range(0, len(order), size):
        rows = np.asarray(order[i : i + size])
        scores.add(rows, score_chunk(tagger, [sentences[r] for r in rows]))
    return scores


def _equal(a, b):
    return (a is None and b is None) or np.array_equal(np.asarray(a), np.asarray(b))


def test_chunks_in_any_order_give_the_whole_analysis(tagger, sentences):
    per_sentence, whole = guidance.analyse_all(tagger, sentences)
    order = np.random.default_rng(3).permutation(len(sentences))
    scores = _chunked(tagger, sentences, order, 7)
    assert scores.complete
    analysis, view = scores.analysis()
    for name in ("uncertainty", "disagree", "contention"):
        assert _equal(getattr(analysis.evidence, name), getattr(whole.evidence, name)), name
    for name in ("offsets", "missing", "unlabeled"):
        assert _equal(getattr(analysis.tokens, name), getattr(whole.tokens, name)), name
    assert _equal(analysis.best, whole.best) and _equal(analysis.runner_up, whole.runner_up)
    assert _equal(analysis.torn, whole.torn) and analysis.labels == whole.labels
    assert analysis.probabilistic == whole.probabilistic and analysis.complete
    assert list(view) == list(range(len(sentences)))
    assert [view[i] for i in range(len(sentences))] == per_sentence


def test_the_incremental_queue_ends_in_the_whole_queue(tagger, sentences):
    _, whole = guidance.analyse_all(tagger, sentences)
    ids = tuple(range(500, 500 + len(sentences)))
    status = {sid: s.status for sid, s in zip(ids, sentences)}
    open_ = np.array([s.status != "full" for s in sentences])
    chunks = chunk_rows(open_, first=[4, 9], first_size=10, chunk=9)
    scores = _chunked(tagger, sentences, np.concatenate(chunks), 9)
    analysis, _ = scores.analysis()
    for strategy in strategies.REGISTRY.values():
        if strategies.unavailable(strategy, tagger.learner, tagger.model.n_views == 2) is not None:
            continue
        for mode in ("review", "tokens"):
            a, b = build_plan(ids, analysis, status, strategy, mode), build_plan(ids, whole, status, strategy, mode)
            assert a.queue == b.queue and a.scores == b.scores, (strategy.name, mode)
            assert _equal(a.asked, b.asked) and _equal(a.pair_of, b.pair_of)


def test_a_partial_analysis_ranks_only_the_scored_sentences(gold, sentences):
    tagger = _tagger(gold, "mv-perceptron", max_iter=3)
    ids = tuple(range(len(sentences)))
    status = {i: s.status for i, s in enumerate(sentences)}
    scores = ChunkedGuidance(ids, [len(s) for s in sentences], tagger)
    first = np.array([3, 11, 17, 29])
    scores.add(first, score_chunk(tagger, [sentences[r] for r in first]))
    analysis, view = scores.analysis()
    assert not analysis.complete and sorted(view) == sorted(first.tolist()) and 5 not in view
    plan = build_plan(ids, analysis, status, strategies.get("gain"), "review")
    assert sorted(plan.scores) == sorted(first.tolist()) and not plan.complete
    scored_open = [r for r in first.tolist() if status[r] != "full"]
    assert sorted(plan.queue[: len(scored_open)]) == sorted(scored_open), "the scored sentences come first"
    ranks = tie_ranks(plan.strategy, len(ids), plan.seed)
    rest = sorted((i for i in ids if status[i] != "full" and i not in first), key=lambda i: ranks[i])
    assert plan.queue[len(scored_open) :] == rest, "the others after them, in the tie order"
    unscored = np.repeat(~analysis.scored, np.diff(analysis.tokens.offsets))
    assert not plan.asked[unscored].any() and (analysis.evidence.uncertainty[unscored] == 0).all()
    # the margin scale is the median of the margins scored so far
    tokens = chunked_guidance.concat_ranges(scores.offsets[first], scores.lengths[first])
    assert scores.scale() == margin_scale(scores.raw[tokens])


def test_chunk_rows_puts_the_first_page_first_and_every_row_once():
    open_ = np.ones(50, dtype=bool)
    open_[::5] = False
    chunks = chunk_rows(open_, first=[7, 7, 3, 99, -1], order=[40, 41, 3, 1], first_size=6, chunk=8)
    head = chunks[0]
    assert head[:2].tolist() == [7, 3] and len(head) == 6, "the given rows first, then a sample of open ones"
    assert open_[head].all()
    everything = np.concatenate(chunks)
    assert sorted(everything.tolist()) == list(range(50))
    rest = everything[6:].tolist()
    previous = [r for r in (40, 41, 1) if r not in head]
    assert rest[: len(previous)] == previous, "then the previous queue's rows, in its order"
    full = [r for r in range(0, 50, 5) if r not in head and r not in previous]
    assert rest[-len(full) :] == full, "fully labeled sentences come last"
    assert all(len(c) <= 8 for c in chunks[1:])
    # without a previous queue, the first chunk is an even sample of the open rows
    sample = chunk_rows(open_, first_size=4, chunk=8)[0]
    assert len(sample) == 4 and open_[sample].all() and sample.min() < 10 and sample.max() > 40
    # a small project is one chunk
    assert len(chunk_rows(open_, first_size=50)) == 1
