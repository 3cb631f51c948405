"""The collector paused around work that makes no cycles (tagtool.collector), by several threads at once."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

from tagtool import collector
from tagtool.core import snapshot
from tagtool.core.annotation import allowed_mask
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_resumes_when_the_last_pause_of_any_thread_ends(collector_on):
    inside, leave = threading.Event(), threading.Event()

    def other():
        with collector.paused():
            inside.set()
            leave.wait(5)

    with collector.paused():
        assert not gc.isenabled()
        thread = threading.Thread(target=other)
        thread.start()
        assert inside.wait(5)
    assert not gc.isenabled(), "the other thread's pause is still on"
    leave.set()
    thread.join(5)
    assert gc.isenabled()


def test_a_pause_leaves_a_collector_that_was_off_off(collector_on):
    gc.disable()
    with collector.paused(), collector.paused():
        pass
    assert not gc.isenabled()


def test_a_pause_ends_on_an_error(collector_on):
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


@pytest.mark.parametrize("slice_", [1, 7, 10_000])
def test_allowed_rows_in_slices_are_each_tokens_mask(monkeypatch, slice_):
    corpus = read_corpus(DATA_DIR / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    sentences = [
        s if i % 3 == 0 else s.with_annotations([a if t % 2 else () for t, a in enumerate(s.annotations)])
        for i, s in enumerate(corpus.sentences[:40])
    ]
    monkeypatch.setattr(snapshot, "SLICE", slice_)
    rows = snapshot._allowed_rows(sentences, corpus.labels)
    expected = np.stack([allowed_mask([a], corpus.labels)[0] for s in sentences for a in s.annotations])
    assert rows.dtype == np.bool_ and np.array_equal(rows, expected)
