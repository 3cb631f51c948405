"""Span records written back and read again: Label Studio exports re-imported,
skipped spans left unlabeled, records in their own layout, pretty-printed JSONL."""

from __future__ import annotations

import json
from pathlib import Path

from tagtool.store.formats import read_corpus, write_corpus

TASK = {"id": 7, "data": {"text": "Apple hired Tim Cook.", "source": "news"},
        "annotations": [{"completed_by": 1, "result": [
            {"type": "labels", "value": {"start": 0, "end": 5, "text": "Apple", "labels": ["ORG"]}}]}]}


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
