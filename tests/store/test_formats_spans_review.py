"""Span records written back and read again: Label Studio exports re-imported,
skipped spans left unlabeled, records in their own layout, pretty-printed JSONL."""

from __future__ import annotations

import json
from pathlib import Path

from tagtool.store.formats import read_corpus, write_corpus

TASK = {
    "id": 7,
    "data": {"text": "Apple hired Tim Cook.", "source": "news"},
    "annotations": [
        {
            "completed_by": 1,
            "result": [{"type": "labels", "value": {"start": 0, "end": 5, "text": "Apple", "labels": ["ORG"]}}],
        }
    ],
}


def _labels(sentence) -> list[str]:
    return ["|".join(sorted(a)) for a in sentence.annotations]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_exported_label_studio_task_imports_again_and_exports_unchanged(tmp_path):
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps([TASK]), encoding="utf-8")
    first = tmp_path / "first.jsonl"
    write_corpus(read_corpus(source), first, spans=True)
    again = read_corpus(first)
    assert again.sentences[0].tokens[:2] == ("Apple", "hired")
    assert _labels(again.sentences[0])[:2] == ["B-ORG", "O"]
    second = tmp_path / "second.jsonl"
    write_corpus(again, second, spans=True)
    assert _records(second) == _records(first)
    assert _records(second)[0]["data"] == {"source": "news"}


def _spans_file(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_tokens_of_a_skipped_span_are_left_unlabeled_not_o(tmp_path):
    from tagtool.core.labels import LabelSet

    text = "Apple hired Tim Cook in Cupertino ."
    spans = [[0, 5, "ORG"], [12, 20, 7], [24, 33, "GPE"], [100, 120, "PER"], [0, 5, "PER"]]
    labels = LabelSet(["O", "B-ORG", "I-ORG", "B-PER", "I-PER"])
    corpus = read_corpus(_spans_file(tmp_path, {"text": text, "label": spans}), labels=labels)
    # 7: a label id, GPE: not in the label set, [100, 120): off the text, PER: overlaps ORG.
    assert _labels(corpus.sentences[0]) == ["B-ORG", "O", "", "", "O", "", "O"]
    assert sum("skipped" in w for w in corpus.warnings) == 4


def test_doccano_download_with_label_ids_only_labels_no_span_token_o(tmp_path):
    record = {
        "id": 1,
        "text": "Dr. Chen works in Silver Spring.",
        "annotations": [
            {"id": 9, "label": 3, "start_offset": 4, "end_offset": 8, "user": 1},
            {"id": 10, "label": 4, "start_offset": 18, "end_offset": 31, "user": 1},
        ],
    }
    corpus = read_corpus(_spans_file(tmp_path, record))
    assert _labels(corpus.sentences[0]) == ["O", "", "O", "O", "", "", "O"]


def test_a_record_without_annotations_stays_unlabeled(tmp_path):
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps([{"id": 1, "data": {"text": "Nobody labeled this."}, "annotations": []}]))
    assert _labels(read_corpus(source).sentences[0]) == ["", "", "", ""]
    corpus = read_corpus(_spans_file(tmp_path, {"id": 2, "text": "Nor this one."}))
    assert _labels(corpus.sentences[0]) == ["", "", "", ""]


DATA = Path(__file__).resolve().parent.parent / "data"


def test_span_records_of_one_document_get_no_document_key_whatever_the_name(tmp_path):
    source = DATA / "doccano_v1.jsonl"
    out = tmp_path / "renamed.jsonl"
    write_corpus(read_corpus(source), out, spans=True)
    # Only the span snapped outward to "Silver Spring" differs.
    assert [{**r, "label": None} for r in _records(out)] == [{**r, "label": None} for r in _records(source)]


def test_span_records_of_several_documents_name_their_document(tmp_path):
    from tagtool.core.corpus import merge_corpora

    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(json.dumps({"text": "Apple hired Tim Cook.", "label": [[0, 5, "ORG"]]}) + "\n")
    two.write_text(json.dumps({"text": "Paris is big.", "label": [[0, 5, "LOC"]]}) + "\n")
    out = tmp_path / "both.jsonl"
    write_corpus(merge_corpora([read_corpus(one), read_corpus(two)]), out, spans=True)
    assert [r["document"] for r in _records(out)] == ["one.jsonl", "two.jsonl"]
    assert [d.name for d in read_corpus(out).documents] == ["one.jsonl", "two.jsonl"]
