"""tagtool.pacing: the checkpoints of long loops call the hook of their own thread only."""

from __future__ import annotations

import threading

from tagtool import pacing
from tagtool.core.features import FeatureExtractor


def test_checkpoint_calls_this_threads_hook_and_nothing_elsewhere():
    calls = []
    pacing.checkpoint()  # no hook: nothing
    with pacing.paced(lambda: calls.append(threading.get_ident())):
        pacing.checkpoint()
        other = threading.Thread(target=pacing.checkpoint)
        other.start()
        other.join()
        with pacing.paced(None):
            pacing.checkpoint()
        pacing.checkpoint()
    pacing.checkpoint()
    assert calls == [threading.get_ident()] * 2


def test_feature_extraction_reaches_a_checkpoint_every_so_many_distinct_words(monkeypatch):
    monkeypatch.setattr(pacing, "EVERY", 10)
    words = [f"w{i}" for i in range(95)]
    extractor = FeatureExtractor().fit([words])
    calls = []
    with pacing.paced(lambda: calls.append(1)):
        plain = extractor.transform([words, words[:5]])
    assert len(calls) >= 10, "95 distinct words: a checkpoint every 10"
    again = extractor.transform([words, words[:5]])
    assert all((a == b).all() for a, b in zip(plain, again)), "the same features with or without a hook"
