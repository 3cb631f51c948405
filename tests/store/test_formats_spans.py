"""Span records from real tools: doccano 1.x and newer, Label Studio full and
JSON-MIN exports (hand-written fixtures in tests/data, in those layouts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import iter_sentences, read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"


def _labels(sentence) -> list[str]:
    return ["|".join(sorted(a)) for a in sentence.annotations]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_doccano_1x_records_with_text_under_data():
    corpus = read_corpus(DATA / "doccano_v1.jsonl")
    first, second = corpus.sentences[:2]  # record 1 is two sentences
    assert first.tokens == ("Angela", "Merkel", "met", "Emmanuel", "Macron", "in", "Paris", "on", "Monday", ".")
    assert _labels(first) == ["B-PER", "I-PER", "O", "B-PER", "I-PER", "O", "B-LOC", "O", "O", "O"]
    assert second.tokens[:5] == ("The", "talks", "lasted", "3.5", "hours")
    third = corpus.sentences[2]
    assert third.tokens[:7] == ("Dr.", "Chen", "works", "for", "the", "U.S.", "Food")
    assert _labels(third)[-3:] == ["B-LOC", "I-LOC", "O"]  # "Silver Spr" snapped to "Silver Spring"
    assert len(corpus) == 4
    assert any("1 span(s) snapped" in w for w in corpus.warnings)


def test_doccano_metadata_keeps_json_types_and_exports_unchanged(tmp_path):
    source = DATA / "doccano_v1.jsonl"
    corpus = read_corpus(source)
    record = json.loads(corpus.sentences[0].meta["record"])
    assert record["meta"] == {"source": "news", "batch": 3, "tags": ["eu", "diplomacy"]} and record["id"] == 1
    out = tmp_path / source.name  # the same name: no "document" key
    write_corpus(corpus, out, spans=True)
    written, original = _records(out), _records(source)
    # "Silver Spr" comes back snapped to the token it cut; everything else as it was
    original[1]["label"][2][1] += len("ing")
    assert written == original
    assert [list(r) for r in written] == [list(r) for r in original]  # keys in their order
    assert read_corpus(out) == corpus


def test_newer_doccano_entities_and_a_skipped_overlap(tmp_path):
    source = DATA / "doccano_entities.jsonl"
    corpus = read_corpus(source)
    assert len(corpus) == 3  # "Siemens ... Chennai." | "It employs 1,200 people." | the second record
    assert corpus.sentences[1].tokens == ("It", "employs", "1,200", "people", ".")
    last = corpus.sentences[2]
    assert last.tokens[:5] == ("Maria", "García-López", "did", "n't", "attend")
    assert _labels(last)[:2] == ["B-PER", "I-PER"] and _labels(last)[-2:] == ["B-LOC", "O"]
    (skipped,) = [w for w in corpus.warnings if "skipped" in w]
    assert skipped.startswith(f"{source}:2: span [48, 54) 'ORG' 'Madrid'") and "overlaps" in skipped
    out = tmp_path / source.name
    write_corpus(corpus, out, spans=True)
    written = _records(out)
    original = _records(source)
    assert written[0]["Comments"] == [] and written[1]["Comments"] == original[1]["Comments"]
    assert [(e["start_offset"], e["end_offset"], e["label"]) for e in written[0]["entities"]] == [
        (e["start_offset"], e["end_offset"], e["label"]) for e in original[0]["entities"]
    ]
    assert len(written[1]["entities"]) == 2  # the overlapping ORG span was skipped
    # unchanged entities are written back as they were read, their ids included
    assert written[0] == original[0]
    assert written[1]["entities"] == original[1]["entities"][:2]


def test_label_studio_full_export_every_annotator():
    corpus = read_corpus(DATA / "labelstudio_full.json")
    task = corpus.sentences[0]
    assert task.tokens == ("Apple", "hired", "Tim", "Cook", "in", "Cupertino", ".")
    # annotator 1 says LOC, ben@example.com says ORG; annotator 3 cancelled
    assert set(task.annotator_labels) == {"1", "ben@example.com"}
    assert task.annotations[5] == {"B-LOC", "B-ORG"} and task.annotations[0] == {"B-ORG"}
    assert task.annotator_labels["1"][5] == {"B-LOC"} and task.annotator_labels["ben@example.com"][5] == {"B-ORG"}
    assert _labels(corpus.sentences[1]) == ["O", "B-LOC", "O", "O", "B-LOC", "O"]
    assert json.loads(task.meta["record"])["file_upload"] == "news.json"


def test_label_studio_one_annotator_chosen():
    corpus = read_corpus(DATA / "labelstudio_full.json", annotator="ben@example.com")
    task, other = corpus.sentences
    assert _labels(task) == ["B-ORG", "O", "B-PER", "I-PER", "O", "B-ORG", "O"]
    assert set(task.annotator_labels) == {"ben@example.com"}
    assert other.status == "none"  # ben did not annotate task 102
    with pytest.raises(FormatError, match="annotators in the file: 1, ben@example.com"):
        read_corpus(DATA / "labelstudio_full.json", annotator="3")  # cancelled only


def test_label_studio_json_min_rows_of_one_task_go_together():
    corpus = read_corpus(DATA / "labelstudio_min.json")
    assert len(corpus) == 2
    task = corpus.sentences[0]
    assert set(task.annotator_labels) == {"anna@example.com", "ben@example.com"}
    assert task.annotations[5] == {"B-LOC", "B-ORG"}
    full = read_corpus(DATA / "labelstudio_full.json")
    assert [s.annotations for s in corpus] == [s.annotations for s in full]
    anna = read_corpus(DATA / "labelstudio_min.json", annotator="anna@example.com")
    assert _labels(anna.sentences[0]) == ["B-ORG", "O", "B-PER", "I-PER", "O", "B-LOC", "O"]


def test_json_min_streams_one_task_at_a_time(tmp_path):
    path = tmp_path / "min.jsonl"
    rows = json.loads((DATA / "labelstudio_min.json").read_text(encoding="utf-8"))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"tokens": ["x"]}\n{oops\n', encoding="utf-8")
    stream = iter_sentences(path)
    assert len(next(stream).annotator_labels) == 2
    assert len(next(stream).annotator_labels) == 1
    assert next(stream).tokens == ("x",)
    with pytest.raises(FormatError):
        next(stream)


def test_whitespace_tokenizer_and_no_sentence_split():
    corpus = read_corpus(DATA / "doccano_v1.jsonl", tokenizer="whitespace", sentence_split=False)
    first = corpus.sentences[0]
    assert len(corpus) == 3 and first.tokens[-1] == "said." and "Paris" in first.tokens
    assert _labels(first)[:2] == ["B-PER", "I-PER"]
    with pytest.raises(FormatError, match="unknown tokenizer"):
        read_corpus(DATA / "doccano_v1.jsonl", tokenizer="spacy")


def test_a_span_across_a_sentence_end_keeps_the_sentences_together(tmp_path):
    text = "I met Mr. Smith. Jones arrived later. Then we left."
    path = tmp_path / "s.jsonl"
    # "Smith. Jones" is one (odd) span: no sentence break inside it
    path.write_text(json.dumps({"text": text, "label": [[10, 22, "PER"]]}) + "\n", encoding="utf-8")
    corpus = read_corpus(path)
    assert [s.meta["text"] for s in corpus] == ["I met Mr. Smith. Jones arrived later.", "Then we left."]
    out = tmp_path / "out" / "s.jsonl"
    out.parent.mkdir()
    write_corpus(corpus, out, spans=True)
    assert _records(out) == [{"text": text, "label": [[10, 22, "PER"]]}]


def test_split_record_through_token_records_and_back(tmp_path):
    source = DATA / "doccano_v1.jsonl"
    corpus = read_corpus(source)
    (tmp_path / "t").mkdir()
    tokens = tmp_path / "t" / source.name
    write_corpus(corpus, tokens)
    again = read_corpus(tokens)
    assert [s.meta for s in again] == [s.meta for s in corpus]
    back = tmp_path / source.name
    write_corpus(again, back, spans=True)
    original = _records(source)
    original[1]["label"][2][1] += len("ing")
    assert _records(back) == original


@pytest.mark.parametrize("name", ["doccano_v1.jsonl", "labelstudio_full.json", "labelstudio_min.json"])
def test_label_outside_the_schema_is_skipped_and_listed(tmp_path, name):
    labels = LabelSet(["O", "B-PER", "I-PER", "B-ORG", "I-ORG"])
    corpus = read_corpus(DATA / name, labels=labels)
    assert any("is not in the label set" in w and "skipped" in w for w in corpus.warnings)
    with pytest.raises(FormatError, match="not in the label set"):
        read_corpus(DATA / name, labels=labels, strict=True)


HUGE = "1" * 5000


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("big.jsonl", '{"tokens": ["a"]}\n{"tokens": ["b"], "n": ' + HUGE + "}\n", 2),
        ("big.json", '[\n {"tokens": ["a"]},\n {"tokens": ["b"], "n": ' + HUGE + "}\n]\n", 3),
        ("big.json", '[\n {"text": "a b", "label": [[0, ' + HUGE + ', "X"]]}\n]\n', 2),
        ("big.jsonl", '{"text": "a b", "label": [[0, 1, "X"]], "id": ' + HUGE + "}\n", 1),
    ],
)
def test_a_5000_digit_json_integer_is_a_format_error(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match="invalid JSON") as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), line)


def test_label_studio_text_under_another_data_key(tmp_path):
    task = {
        "id": 1,
        "data": {"sentence": "Anna left .", "batch": 2},
        "annotations": [
            {"completed_by": 1, "result": [{"type": "labels", "value": {"start": 0, "end": 4, "labels": ["PER"]}}]}
        ],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    (sentence,) = read_corpus(path).sentences
    assert _labels(sentence) == ["B-PER", "O", "O"]
    assert json.loads(sentence.meta["record"])["data"] == {"batch": 2}


@pytest.mark.parametrize(
    "record",
    [
        {"data": "Anna left Oslo .", "label": [[0, 4, "PER"]]},
        {"text": "Anna left Oslo .", "entities": [{"label": "PER", "start_offset": 0, "end_offset": 4}]},
        {"text": "Anna left Oslo .", "label": [[0, 4, "PER"]]},
        {"id": 3, "text": "Anna left Oslo .", "meta": None, "label": [[0, 4, "PER"]], "score": 0.5},
    ],
)
def test_records_come_back_in_their_own_layout(tmp_path, record):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "r.jsonl"
    out.parent.mkdir()
    write_corpus(read_corpus(path), out, spans=True)
    assert out.read_text(encoding="utf-8") == json.dumps(record, ensure_ascii=False) + "\n"


# --- exports as the tools write them ----------------------------------------


def test_label_studio_utf16_offsets_are_moved_to_code_points():
    # Label Studio before 2022 counted offsets in UTF-16 code units, as
    # JavaScript does: after an emoji every span sat one place too far right
    # (HumanSignal/label-studio#1347). value.text says where it belongs.
    corpus = read_corpus(DATA / "labelstudio_utf16.json")
    words = [(t, a) for s in corpus.sentences[:2] for t, a in zip(s.tokens, _labels(s))]
    assert [w for w in words if w[1] != "O"] == [
        ("annotation", "B-ANN"),
        ("Ping", "B-PER"),
        ("Li", "I-PER"),
        ("Anna", "B-PER"),
        ("Smith", "I-PER"),
        ("Paris", "B-LOC"),
    ]
    assert not any("snapped" in w or "skipped" in w for w in corpus.warnings)


def test_label_studio_json_min_utf16_offsets():
    (sentence,) = read_corpus(DATA / "labelstudio_min_utf16.json").sentences
    assert _labels(sentence)[sentence.tokens.index("annotation") :] == ["B-Annotation", "O"]


def test_label_studio_before_1_0_completions_are_annotations():
    # Tasks of Label Studio 0.x keep their annotations under "completions".
    last = read_corpus(DATA / "labelstudio_utf16.json").sentences[-1]
    assert last.tokens == ("Off", "Berlin", "🎉", "today", ".")
    assert _labels(last) == ["O", "B-LOC", "O", "O", "O"]


def test_doccano_1_0_download_annotations_with_label_names_and_users(tmp_path):
    # doccano 1.0's download: spans under "annotations", the label's id as
    # "label" and its name as "label_name", each span naming its user.
    source = DATA / "doccano_1_0_download.jsonl"
    corpus = read_corpus(source)
    assert [_labels(s) for s in corpus.sentences] == [
        ["B-ORG", "O", "O"],
        ["B-PERSON", "I-PERSON"],
        ["O", "B-PERSON"],
    ]
    assert corpus.sentences[1].annotator_labels.keys() == {"user1"}
    out = tmp_path / source.name
    write_corpus(corpus, out, spans=True)
    assert read_corpus(out).sentences[1].tokens == corpus.sentences[1].tokens
    assert [_labels(s) for s in read_corpus(out).sentences] == [_labels(s) for s in corpus.sentences]


def test_the_same_span_twice_is_one_span_not_an_overlap():
    corpus = read_corpus(DATA / "doccano_duplicate_span.jsonl", strict=True)
    assert _labels(corpus.sentences[0]) == ["B-LOC"]
