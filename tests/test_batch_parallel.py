"""tag_file with a process pool (workers=2) and on a Dask LocalCluster: the same bytes as one process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tagtool.errors import Cancelled, TagtoolError
from tagtool.services.batch import tag_file
from tagtool.services.batch_job import BatchError
from tagtool.services.batch_parallel import pack, unpack
from tagtool.store.formats import read_corpus

DATA = Path(__file__).parent / "data"
INPUT = DATA / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def model_file(tagger, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.tagger"
    tagger.save(path)
    return path


@pytest.fixture(scope="module")
def serial_output(tagger, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "out.txt"
    tag_file(tagger, INPUT, out, "conll", batch_size=7)
    return out.read_bytes()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as local:
        yield local.scheduler_address


def jsonl_input(path: Path, bad_at: int | None = None) -> Path:
    lines = []
    for i, s in enumerate(read_corpus(INPUT, label_column=None)):
        tokens = ["New York" if (i == bad_at and k == 2) else t for k, t in enumerate(s.tokens)]
        lines.append(json.dumps({"tokens": tokens, "col1": list(s.columns["col1"]), "n": i}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_pack_round_trip_keeps_tokens_columns_and_meta(tmp_path):
    sentences = read_corpus(jsonl_input(tmp_path / "in.jsonl"), label_column=None).sentences[:5]
    assert sentences[0].meta["n"] == "0" and "col1" in sentences[0].columns
    assert unpack(pack(sentences)) == list(sentences)


def test_two_worker_processes_write_the_same_bytes(tagger, serial_output, tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    reports = []
    result = tag_file(tagger, INPUT, out, "conll", batch_size=7, workers=2, progress=lambda f, m: reports.append(f))
    assert out.read_bytes() == serial_output
    assert (result.n_sentences, result.n_tokens) == (100, read_corpus(INPUT).n_tokens)
    assert len(reports) == 15 and reports == sorted(reports) and reports[-1] == pytest.approx(1.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_an_error_in_a_worker_comes_back_as_one_line_and_nothing_is_written(model_file, tmp_path):
    source = jsonl_input(tmp_path / "in.jsonl", bad_at=52)
    with pytest.raises(BatchError) as caught:
        tag_file(model_file, source, tmp_path / "out.conll", "conll", batch_size=10, workers=2)
    message = str(caught.value)
    assert message.startswith(f"{source}: sentence 53: cannot write it as conll:") and "\n" not in message
    assert [p.name for p in tmp_path.iterdir()] == ["in.jsonl"]


def test_cancel_with_workers_leaves_no_output(model_file, tmp_path):
    out = tmp_path / "out.txt"
    polls = iter([False, False, False])
    with pytest.raises(Cancelled):
        tag_file(model_file, INPUT, out, batch_size=5, workers=2, should_stop=lambda: next(polls, True))
    assert list(tmp_path.iterdir()) == []


def test_dask_local_cluster_writes_the_same_bytes(tagger, model_file, serial_output, cluster, tmp_path):
    by_object, by_path = tmp_path / "a.txt", tmp_path / "b.txt"
    tag_file(tagger, INPUT, by_object, "conll", batch_size=7, dask_address=cluster)
    result = tag_file(model_file, INPUT, by_path, "conll", batch_size=7, dask_address=cluster)
    assert by_object.read_bytes() == serial_output == by_path.read_bytes()
    assert result.n_sentences == 100


def test_dask_keeps_jsonl_columns_and_meta(tagger, cluster, tmp_path):
    source = jsonl_input(tmp_path / "in.jsonl")
    serial, remote = tmp_path / "serial.jsonl", tmp_path / "dask.jsonl"
    tag_file(tagger, source, serial, batch_size=9)
    tag_file(tagger, source, remote, batch_size=9, dask_address=cluster)
    assert remote.read_bytes() == serial.read_bytes()
    assert read_corpus(remote).sentences[40].meta["n"] == "40"


def test_dask_errors_name_input_and_sentence_or_the_tagger(model_file, cluster, tmp_path):
    source = jsonl_input(tmp_path / "in.jsonl", bad_at=12)
    with pytest.raises(BatchError, match=r"in\.jsonl: sentence 13: cannot write it as conll: .*'New York'"):
        tag_file(model_file, source, tmp_path / "out.conll", "conll", batch_size=10, dask_address=cluster)
    broken = tmp_path / "broken.tagger"
    broken.write_bytes(model_file.read_bytes()[:500])
    with pytest.raises(BatchError, match=r"cannot load the tagger: .*not a tagger file"):
        tag_file(broken, INPUT, tmp_path / "out.conll", dask_address=cluster)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.tagger", "in.jsonl"]


def test_dask_missing_is_a_clear_error(tagger, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    with pytest.raises(TagtoolError, match=r"needs the 'distributed' package: pip install 'tagtool\[dask\]'"):
        tag_file(tagger, INPUT, tmp_path / "out.txt", dask_address="tcp://127.0.0.1:8786")
    assert list(tmp_path.iterdir()) == []


def test_core_imports_no_dask():
    import subprocess

    code = (
        "import sys, tagtool.services.batch, tagtool.services.batch_parallel, tagtool.cli.main; "
        "print('distributed' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_dask_client_keeps_no_log_of_sent_batches(tagger, cluster, tmp_path, monkeypatch):
    """distributed keeps the last 1000 messages per channel by default: with batches in them, the client grew."""
    from distributed.batched import BatchedSend

    lengths = []
    real_init = BatchedSend.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        lengths.append(self.recent_message_log.maxlen)

    monkeypatch.setattr(BatchedSend, "__init__", init)
    tag_file(tagger, INPUT, tmp_path / "out.txt", batch_size=50, dask_address=cluster)
    assert lengths and set(lengths) == {0}


def test_conllu_and_column_layouts_are_the_same_bytes_on_workers_and_dask(cluster, tmp_path):
    """The input's own format (CoNLL-U lines kept, a tab-separated layout) travels to every worker."""
    from tagtool.core import Corpus, Sentence
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger

    gold = read_corpus(INPUT)  # tokens only: the tagger needs no column the inputs lack
    tokens_only = [Sentence(s.tokens, s.annotations) for s in gold.sentences[:30]]
    tagger = train_tagger(
        Corpus.from_sentences(tokens_only, labels=gold.labels), make_learner("perceptron", max_iter=1)
    )
    ewt = DATA / "ewt_test_slice.conllu"
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text(INPUT.read_text(encoding="utf-8").replace(" ", "\t"), encoding="utf-8")
    written = {}
    for source, options in ((ewt, {"label_field": "misc:Chunk"}), (tabbed, {"label_column": 2})):
        outputs = []
        for where in ({}, {"workers": 2}, {"dask_address": cluster}):
            out = tmp_path / f"out-{len(outputs)}{source.suffix}"
            tag_file(tagger, source, out, batch_size=7, **options, **where)
            outputs.append(out.read_bytes())
        assert outputs[0] == outputs[1] == outputs[2]
        written[source] = outputs[0].decode("utf-8")
    assert "\n24.1\tleft\t" in written[ewt] and "Chunk=" in written[ewt]
    rows = [line.split("\t") for line in written[tabbed].splitlines() if line]
    assert rows and {len(row) for row in rows} == {3}
    source_rows = [line.split("\t") for line in tabbed.read_text(encoding="utf-8").splitlines() if line]
    assert [row[:2] for row in rows] == [row[:2] for row in source_rows]
