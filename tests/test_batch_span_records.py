"""Batch tagging of span records: a record split into sentences is never cut
between two batches, whatever the batch size, the workers or Dask."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.cli.main import main
from tagtool.services.batch import tag_file

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "doccano_v1.jsonl"  # 3 records, the first one two sentences


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.tagger"
    assert main(["train", str(SOURCE), "-o", str(path), "--learner", "perceptron"]) == 0
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("workers", [1, 2])
def test_batches_never_split_a_record(model, tmp_path, workers):
    whole = tmp_path / "whole.jsonl"
    tag_file(model, SOURCE, whole, batch_size=1000)
    written = {}
    for size in (1, 2, 3):
        out = tmp_path / f"out{size}.jsonl"
        result = tag_file(model, SOURCE, out, batch_size=size, workers=workers)
        assert result.n_sentences == 4
        written[size] = out.read_bytes()
    assert set(written.values()) == {whole.read_bytes()}
    got = records(whole)
    assert [r["id"] for r in got] == [1, 2, 3]
    assert got[0]["data"] == json.loads(SOURCE.read_text(encoding="utf-8").splitlines()[0])["data"]


def test_batches_never_split_a_record_on_dask(model, tmp_path):
    distributed = pytest.importorskip("distributed")
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    tag_file(model, SOURCE, whole, batch_size=1000)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as local:
        tag_file(model, SOURCE, out, batch_size=1, dask_address=local.scheduler_address)
    assert out.read_bytes() == whole.read_bytes()


def test_the_cli_writes_one_record_per_record_with_batch_size_one(model, tmp_path, capsys):
    capsys.readouterr()
    assert main(["tag", str(model), str(SOURCE), "-o", "-", "--batch-size", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [1, 2, 3]


def test_pretty_printed_span_records_named_jsonl_are_tagged_as_span_records(model, tmp_path):
    source = tmp_path / "relations.jsonl"
    record = {"text": "Angela Merkel met Emmanuel Macron.", "entities": [], "relations": []}
    source.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    tag_file(model, source, out)
    (written,) = records(out)
    assert written["text"] == record["text"] and written["relations"] == [] and "tokens" not in written
