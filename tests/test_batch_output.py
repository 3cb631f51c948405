"""tagtool.services.batch_output: the output plan is made from a bounded head of the input."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from tagtool.services.batch_output import output_plan

#: Characters of the huge first line: far beyond the 64 KiB head.
HUGE = 8_000_000


def _peak_of(function):
    """What ``function()`` returns, and the most memory it held at once (bytes)."""
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("name", "first", "spans"),
    [
        ("spans.jsonl", {"id": 1, "text": "a " * (HUGE // 2), "label": []}, True),
        ("tokens.jsonl", {"tokens": ["a"] * (HUGE // 5), "labels": ["O"] * 10}, False),
        ("tasks.json", [{"data": {"text": "a " * (HUGE // 2)}, "annotations": []}], True),
    ],
)
def test_record_kind_is_judged_from_the_head_of_a_huge_first_record(tmp_path, name, first, spans):
    path = tmp_path / name
    path.write_text(json.dumps(first) + "\n" + json.dumps({"text": "b", "label": []}) + "\n", encoding="utf-8")
    plan, peak = _peak_of(lambda: output_plan("jsonl", "jsonl", path, "utf-8"))
    assert dict(plan)["spans"] is spans
    assert peak < HUGE // 4  # the head, not the line (a line of 8 M characters is 8 MB or more)


def test_column_separator_is_judged_from_the_head_of_a_huge_first_line(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a\tB-NP" + "\tx" * (HUGE // 2) + "\n", encoding="utf-8")
    plan, peak = _peak_of(lambda: output_plan("conll", "conll", path, "utf-8"))
    assert dict(plan)["layout"] == (0, None, "\t")
    assert peak < HUGE // 4


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ('{"text": "EU rejects", "label": [[0, 2, "ORG"]]}\n', True),
        ('{"tokens": ["EU"], "labels": ["B-ORG"]}\n', False),
        ('[\n  {\n    "data": {"text": "EU"},\n    "annotations": []\n  }\n]\n', True),
        ('{"text": "EU", "label": \n', False),  # malformed: the reader reports it
        ("", False),
    ],
)
def test_record_kind_of_small_files(tmp_path, text, spans):
    path = tmp_path / "in.jsonl"
    path.write_text(text, encoding="utf-8")
    assert dict(output_plan("jsonl", "jsonl", path, "utf-8"))["spans"] is spans
