"""tagtool.batch.tag_file: the batch tagging the CLI and the app share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tagtool.batch import BatchCancelled, output_format_for, tag_file
from tagtool.store.formats import read_corpus

DATA = Path(__file__).parent / "data"
INPUT = DATA / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def tagger():
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.pipeline import train_tagger

    gold = read_corpus(INPUT, column_names=["token", "pos", "chunk"])
    return train_tagger(Corpus.from_sentences(gold.sentences[:30], labels=gold.labels),
                        make_learner("perceptron", epochs=2))


def test_tag_file_writes_the_taggers_predictions(tagger, tmp_path):
    out = tmp_path / "tagged.txt"
    reports = []
    result = tag_file(tagger, INPUT, out, "conll", batch_size=30, progress=lambda f, m: reports.append(f))
    assert result.n_sentences == 100 and result.output_format == "conll"
    assert reports and reports[-1] == pytest.approx(1.0) and reports == sorted(reports)
    written = read_corpus(out, label_column=-1)
    source = read_corpus(INPUT, label_column=None)
    expected = tagger.tag(source.sentences)
    assert [s.tokens for s in written] == [s.tokens for s in source]
    assert [[next(iter(a)) for a in s.annotations] for s in written] == expected


def test_cancel_leaves_no_output(tagger, tmp_path):
    out = tmp_path / "tagged.txt"
    out.write_text("old\n")
    calls = iter([False, True])
    with pytest.raises(BatchCancelled):
        tag_file(tagger, INPUT, out, "conll", batch_size=10, should_stop=lambda: next(calls, True))
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tagged.txt"]


def test_output_format_defaults():
    assert output_format_for("conllu") == "conll"
    assert output_format_for("jsonl") == "jsonl"
    assert output_format_for("conll", "text") == "text"
