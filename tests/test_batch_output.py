"""tagtool.services.batch_output: the output plan is made from a bounded head of the input."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest

from tagtool.errors import FormatError
from tagtool.services.batch_output import columns_text, output_plan, write_columns

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


# ---------------------------------------------------------------------------
# the column-wise writer of tagged column files

DATA = Path(__file__).parent / "data"
SLICES = ["conll2000_train_head.txt", "conll2002_esp_train_head.txt", "ptb_wsj_sample_head.txt"]


def _reference(sentences, labels, token_column, label_column, sep) -> str:
    """:func:`write_columns` of ``sentences`` tagged with the flat ``labels`` (the tagged copies it writes)."""
    from itertools import accumulate

    from tagtool.core.corpus import Corpus, Document
    from tagtool.core.labels import LabelSet
    from tagtool.store.formats._common import WriteContext

    bounds = [0, *accumulate(map(len, sentences))]
    tagged = tuple(s.with_annotations([[y] for y in labels[a:b]]) for s, a, b in zip(sentences, bounds, bounds[1:]))
    buffer = io.StringIO()
    ctx = WriteContext(Path("out.txt"))
    corpus = Corpus(LabelSet(sorted(set(labels))), (Document(ctx.document_name, tagged),))
    write_columns(corpus, buffer, ctx, token_column=token_column, label_column=label_column, sep=sep)
    return buffer.getvalue()


@pytest.mark.parametrize("name", SLICES)
@pytest.mark.parametrize(
    ("token_column", "label_column", "sep"), [(0, None, " "), (0, -1, "\t"), (1, 0, " "), (-1, 1, "\t"), (0, 5, " ")]
)
def test_columns_text_writes_the_reference_writers_bytes(name, token_column, label_column, sep):
    from tagtool.store.formats import read_corpus

    sentences = list(read_corpus(DATA / name, token_column=token_column, label_column=None).sentences)
    labels = [("B-NP", "I-NP", "O", "B-VP")[len(t) % 4] for s in sentences for t in s.tokens]
    n = len(sentences[0].columns) + 1
    text = columns_text(sentences, labels, token_column, label_column, sep)
    if label_column is not None and not -n <= label_column < n:
        assert text is None  # the reference writer says which column is missing
        with pytest.raises(FormatError, match="does not exist"):
            _reference(sentences, labels, token_column, label_column, sep)
    else:
        assert text == _reference(sentences, labels, token_column, label_column, sep) and text.count("\n\n") == len(
            sentences
        )


def test_columns_text_leaves_a_refused_cell_to_the_reference_writer():
    from tagtool.core.corpus import Sentence

    sentences = [
        Sentence(("EU", "rejects"), columns={"col1": ("NNP", "VBZ")}),
        Sentence(("x",), columns={"col1": ("X",)}),
    ]
    assert columns_text(sentences, ["B-NP", "O", "O"], 0, None, " ") == "EU NNP B-NP\nrejects VBZ O\n\nx X O\n\n"
    for refused in ("B NP", "", "O\t", " O", "O\u2028"):  # whitespace anywhere, or nothing
        assert columns_text(sentences, ["B-NP", "O", refused], 0, None, " ") is None
        assert columns_text(sentences, [refused, "O", "O"], 0, None, "\t") is None
    other = [sentences[0], Sentence(("x",), columns={"col2": ("X",)})]
    assert columns_text(other, ["B-NP", "O", "O"], 0, None, " ") is None  # sentences with other columns
