"""Test-wide settings (Qt runs offscreen, so the suite needs no display) and shared fixtures."""

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Windows' open-project locks and the log file go to a folder of this run, not the user's.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="tagtool-test-state-")

#: The CoNLL-2000 slice the batch-tagging tests read and tag (provenance: tests/data/README).
BATCH_INPUT = Path(__file__).parent / "data" / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def tagger():
    """A small perceptron tagger trained on the first 30 sentences of :data:`BATCH_INPUT`."""
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(BATCH_INPUT)  # POS as col1: the name the files it tags give it
    return train_tagger(
        Corpus.from_sentences(gold.sentences[:30], labels=gold.labels), make_learner("perceptron", max_iter=2)
    )
