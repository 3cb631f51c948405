"""JSONL: token records, doccano / Label Studio span records, JSON arrays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import iter_sentences, read_corpus, write_corpus

TEXT = "Anna Berg visited Oslo ."  # Anna 0-4, Berg 5-9, visited 10-17, Oslo 18-22, . 23-24
BIO = ({"B-PER"}, {"I-PER"}, {"O"}, {"B-LOC"}, {"O"})

TOKEN_RECORDS = [
    {
        "id": 7,
        "tokens": ["Anna", "Berg", "left"],
        "labels": ["B-PER", ["I-PER", "O"], None],
        "pos": ["NNP", "NNP", "VBD"],
    },
    {"tokens": ["NA", "null"], "labels": ["_", "O"], "source": "wiki"},
]

SPAN_RECORDS = [
    {"id": 1, "text": TEXT, "label": [[0, 9, "PER"], [18, 22, "LOC"]]},  # doccano (old)
    {
        "text": TEXT,
        "entities": [
            {"id": 3, "start_offset": 18, "end_offset": 22, "label": "LOC"},
            {"id": 4, "start_offset": 0, "end_offset": 9, "label": "PER"},
        ],
    },  # doccano 1.x
    {
        "text": TEXT,
        "label": [
            {"start": 0, "end": 9, "text": "Anna Berg", "labels": ["PER"]},
            {"start": 18, "end": 22, "text": "Oslo", "labels": ["LOC"]},
        ],
    },  # Label Studio JSON-MIN
    {"text": TEXT, "spans": [{"start": 0, "end": 9, "label": "PER"}, {"start": 18, "end": 22, "label": "LOC"}]},
]

LABEL_STUDIO_FULL = [
    {
        "id": 11,
        "data": {"text": TEXT},
        "annotations": [
            {
                "result": [
                    {
                        "value": {"start": 0, "end": 9, "text": "Anna Berg", "labels": ["PER"]},
                        "from_name": "label",
                        "to_name": "text",
                        "type": "labels",
                    },
                    {
                        "value": {"start": 18, "end": 22, "text": "Oslo", "labels": ["LOC"]},
                        "from_name": "label",
                        "to_name": "text",
                        "type": "labels",
                    },
                    {"from_id": "a", "to_id": "b", "type": "relation"},
                ]
            }
        ],
    },
    {"id": 12, "data": {"text": "Nobody here"}, "annotations": [{"result": []}]},
]


def _jsonl(tmp_path: Path, name: str, records: list) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _rewrite(corpus: Corpus, tmp_path: Path, name: str, **options) -> Path:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    write_corpus(corpus, out / name, **options)
    return out / name


def test_token_records(tmp_path):
    corpus = read_corpus(_jsonl(tmp_path, "t.jsonl", TOKEN_RECORDS))
    first, second = corpus.sentences
    assert first.annotations == ({"B-PER"}, {"I-PER", "O"}, frozenset())
    assert first.columns == {"pos": ("NNP", "NNP", "VBD")}
    assert dict(first.meta) == {"id": "7"}
    assert second.tokens == ("NA", "null") and second.annotations == (frozenset(), {"O"})
    assert dict(second.meta) == {"source": "wiki"}


def test_token_records_round_trip_with_candidates(tmp_path):
    corpus = read_corpus(_jsonl(tmp_path, "t.jsonl", TOKEN_RECORDS))
    written = _rewrite(corpus, tmp_path, "t.jsonl")
    assert read_corpus(written) == corpus
    records = [json.loads(line) for line in written.read_text().splitlines()]
    assert records[0]["labels"] == ["B-PER", ["O", "I-PER"], None]  # label-set order
    assert records[0]["pos"] == ["NNP", "NNP", "VBD"] and "document" not in records[0]


def test_documents_survive(tmp_path):
    a = Sentence(["x"], [{"A"}])
    corpus = Corpus(LabelSet(["A"]), (Document("d1", (a, a)), Document("d2", (a,))))
    written = _rewrite(corpus, tmp_path, "docs.jsonl")
    assert read_corpus(written) == corpus
    assert json.loads(written.read_text().splitlines()[0])["document"] == "d1"


@pytest.mark.parametrize("index", range(len(SPAN_RECORDS)))
def test_span_record_styles_map_to_bio(tmp_path, index):
    corpus = read_corpus(_jsonl(tmp_path, "s.jsonl", [SPAN_RECORDS[index]]))
    sentence = corpus.sentences[0]
    assert sentence.tokens == ("Anna", "Berg", "visited", "Oslo", ".")
    assert sentence.annotations == BIO
    assert sentence.meta["text"] == TEXT
    assert set(corpus.labels) == {"O", "B-PER", "I-PER", "B-LOC"}


def test_label_studio_full_export_as_json_array(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(LABEL_STUDIO_FULL, indent=2), encoding="utf-8")
    corpus = read_corpus(path)
    assert corpus.sentences[0].annotations == BIO
    assert corpus.sentences[1].annotations == ({"O"}, {"O"})
    assert json.loads(corpus.sentences[0].meta["record"])["id"] == 11  # a number stays a number


def test_pretty_printed_json_records(tmp_path):
    path = tmp_path / "records.json"
    path.write_text("\n".join(json.dumps(r, indent=1) for r in TOKEN_RECORDS), encoding="utf-8")
    expected = read_corpus(_jsonl(tmp_path, "records.jsonl", TOKEN_RECORDS))
    assert read_corpus(path).sentences == expected.sentences


def test_span_records_round_trip_as_spans(tmp_path):
    record = {"id": 1, "text": "Anna  Berg\tvisited Oslo .", "label": [[0, 10, "PER"], [19, 23, "LOC"]]}
    corpus = read_corpus(_jsonl(tmp_path, "s.jsonl", [record]))
    written = _rewrite(corpus, tmp_path, "s.jsonl", spans=True)
    out = json.loads(written.read_text())
    assert out == record and list(out) == list(record)  # the id stays a number, keys in order
    assert read_corpus(written) == corpus
    # and as token records, with the text kept in meta
    tokens = _rewrite(corpus, tmp_path, "t.jsonl")
    assert read_corpus(tokens).sentences == corpus.sentences


def test_span_writer_without_original_text_joins_tokens(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["Anna", "Berg", "left"], [{"B-PER"}, {"I-PER"}, {"O"}])])
    written = _rewrite(corpus, tmp_path, "document", format="jsonl", spans=True)
    assert json.loads(written.read_text()) == {"text": "Anna Berg left", "label": [[0, 9, "PER"]]}


@pytest.mark.parametrize("annotations", [({"O"}, {"I-PER"}, {"O"}), ({"B-PER"}, {"I-LOC"}, {"O"})])
def test_span_writer_refuses_labels_that_are_not_bio_naming_the_token(tmp_path, annotations):
    labels = LabelSet(["O", "B-PER", "I-PER", "I-LOC"])
    corpus = Corpus.from_sentences([Sentence(["a", "b", "c"], annotations)], labels)
    with pytest.raises(FormatError, match="sentence 1: label 'I-.*' of token 2 does not fit the BIO scheme"):
        write_corpus(corpus, tmp_path / "x.jsonl", spans=True)
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(
    "annotations",
    [({"B-PER"}, {"I-PER", "O"}, {"O"}), ({"B-PER"}, set(), {"O"}), (set(), {"I-PER"}, {"O"}), (set(), set(), set())],
)
def test_span_writer_keeps_unlabeled_tokens_and_candidate_sets(tmp_path, annotations):
    labels = LabelSet(["O", "B-PER", "I-PER", "I-LOC"])
    corpus = Corpus.from_sentences([Sentence(["a", "b", "c"], annotations)], labels)
    write_corpus(corpus, tmp_path / "x.jsonl", spans=True)
    record = json.loads((tmp_path / "x.jsonl").read_text())
    assert record["tagtool"]["state"] == ("none" if not any(annotations) else "partial")
    again = read_corpus(tmp_path / "x.jsonl", labels=labels)
    assert again.sentences[0].annotations == tuple(map(frozenset, annotations))


SNAPPED = [
    ({"text": TEXT, "label": [[0, 7, "PER"]]}, ({"B-PER"}, {"I-PER"}, {"O"}, {"O"}, {"O"})),
    ({"text": TEXT, "label": [[1, 9, "PER"]]}, ({"B-PER"}, {"I-PER"}, {"O"}, {"O"}, {"O"})),
    ({"text": TEXT, "label": [[4, 9, "PER"]]}, ({"O"}, {"B-PER"}, {"O"}, {"O"}, {"O"})),  # starts on the space
    ({"text": TEXT, "label": [[19, 21, "LOC"]]}, ({"O"}, {"O"}, {"O"}, {"B-LOC"}, {"O"})),
]


@pytest.mark.parametrize(("record", "expected"), SNAPPED)
def test_span_edges_inside_tokens_snap_outward(tmp_path, record, expected):
    corpus = read_corpus(_jsonl(tmp_path, "s.jsonl", [record]))
    assert corpus.sentences[0].annotations == expected
    assert any("1 span(s) snapped" in w for w in corpus.warnings)


SPAN_ERRORS = [
    ({"text": TEXT, "label": [[0, 9, "PER"], [5, 17, "ORG"]]}, "overlaps"),
    ({"text": TEXT, "label": [[18, 99, "LOC"]]}, "outside"),
    ({"text": TEXT, "label": [[-1, 4, "LOC"]]}, "outside"),
    ({"text": TEXT, "label": [[5, 5, "LOC"]]}, "empty"),
    ({"text": TEXT, "label": [[4, 5, "LOC"]]}, "no token"),
    ({"text": TEXT, "label": [["0", 4, "LOC"]]}, "integers"),
    ({"text": TEXT, "label": [[0, 4]]}, "span must be"),
    ({"text": TEXT, "label": [{"start": 0, "end": 4, "labels": ["A", "B"]}]}, "one label"),
    ({"text": TEXT, "label": [[0, 4, "P ER"]]}, "whitespace"),
]


@pytest.mark.parametrize(("record", "message"), SPAN_ERRORS)
def test_bad_spans_are_skipped_and_listed(tmp_path, record, message):
    record = {**record, "label": [*record["label"], [18, 22, "LOC"]]}
    path = _jsonl(tmp_path, "s.jsonl", [SPAN_RECORDS[0], record])
    corpus = read_corpus(path)
    assert len(corpus) == 2 and corpus.sentences[1].annotations[3] == {"B-LOC"}
    skipped = [w for w in corpus.warnings if "skipped" in w]
    assert len(skipped) == 1 and skipped[0].startswith(f"{path}:2: span") and message in skipped[0]


@pytest.mark.parametrize(("record", "message"), SPAN_ERRORS)
def test_bad_spans_are_errors_when_strict(tmp_path, record, message):
    path = _jsonl(tmp_path, "s.jsonl", [SPAN_RECORDS[0], record])
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path, strict=True)
    assert (err.value.path, err.value.line) == (str(path), 2)


RECORD_ERRORS = [
    ({"text": TEXT, "label": {"start": 0}}, "list"),
    ({"text": 5, "label": []}, '"text"'),
    ({"text": "   ", "label": []}, "no tokens"),
]


@pytest.mark.parametrize(("record", "message"), RECORD_ERRORS)
def test_bad_records_name_file_and_line(tmp_path, record, message):
    path = _jsonl(tmp_path, "s.jsonl", [SPAN_RECORDS[0], record])
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), 2)


def test_span_label_outside_schema(tmp_path):
    path = _jsonl(tmp_path, "s.jsonl", [{"text": TEXT, "label": [[0, 4, "ORG"], [0, 4, "PER"]]}])
    corpus = read_corpus(path, labels=LabelSet(["O", "B-PER", "I-PER"]))
    assert corpus.sentences[0].annotations[0] == {"B-PER"}
    assert len(corpus.warnings) == 1 and "'B-ORG' is not in the label set" in corpus.warnings[0]
    with pytest.raises(FormatError, match="B-ORG") as err:
        read_corpus(path, labels=LabelSet(["O", "B-PER", "I-PER"]), strict=True)
    assert err.value.line == 1


TOKEN_ERRORS = [
    (["tokens", "labels"], "JSON object"),
    ({"tokens": "Anna Berg"}, "list of strings"),
    ({"tokens": []}, "list of strings"),
    ({"tokens": ["Anna", 3]}, "non-empty strings"),
    ({"tokens": ["Anna", ""]}, "non-empty strings"),
    ({"tokens": ["Anna"], "labels": ["O", "O"]}, "one per token"),
    ({"tokens": ["Anna"], "labels": "O"}, "one per token"),
    ({"tokens": ["Anna"], "labels": [3]}, "a label must be"),
    ({"tokens": ["Anna"], "labels": [["O", 3]]}, "a label must be"),
    ({"tokens": ["Anna"], "labels": ["B PER"]}, "whitespace"),
    ({"tokens": ["Anna"], "document": ["x"]}, '"document"'),
    ({"words": ["Anna"]}, '"tokens"'),
]


@pytest.mark.parametrize(("record", "message"), TOKEN_ERRORS)
def test_records_of_the_wrong_shape(tmp_path, record, message):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(TOKEN_RECORDS[0]) + "\n\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), 3)


def test_invalid_json_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(TOKEN_RECORDS[0]) + "\n" + '{"tokens": ["a"],\n', encoding="utf-8")
    with pytest.raises(FormatError, match="invalid JSON") as err:
        read_corpus(path)
    assert err.value.line == 2


def test_invalid_json_inside_an_array_names_its_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('[\n {"tokens": ["a"]},\n {"tokens": ["b"]},\n {"tokens": ["c"],}\n]\n', encoding="utf-8")
    with pytest.raises(FormatError, match="invalid JSON") as err:
        read_corpus(path)
    assert err.value.line == 4
    path.write_text('[\n {"tokens": ["a"]},\n {"tokens": ["b"]}\n {"tokens": ["c"]}\n]\n', encoding="utf-8")
    with pytest.raises(FormatError, match="expected") as err:
        read_corpus(path)
    assert err.value.line == 4
    path.write_text('[\n {"tokens": ["a"]},\n 7\n]\n', encoding="utf-8")
    with pytest.raises(FormatError, match="JSON object") as err:
        read_corpus(path)
    assert err.value.line == 3


def test_json_array_in_a_jsonl_file_and_empty_array(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('\n[{"tokens": ["a"], "labels": ["X"]}]\n', encoding="utf-8")
    assert read_corpus(path).sentences[0].tokens == ("a",)
    path.write_text("[ ]\n", encoding="utf-8")
    with pytest.raises(FormatError, match="empty") as err:
        read_corpus(path)
    assert err.value.line == 1


def test_jsonl_streams(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(TOKEN_RECORDS[0]) + "\n" + "{oops\n", encoding="utf-8")
    stream = iter_sentences(path)
    assert next(stream).tokens == ("Anna", "Berg", "left")
    with pytest.raises(FormatError):
        next(stream)


def test_no_labels_requested(tmp_path):
    path = _jsonl(tmp_path, "s.jsonl", SPAN_RECORDS[:1] + TOKEN_RECORDS[:1])
    corpus = read_corpus(path, label_column=None, labels=LabelSet(["O"]))
    assert all(s.status == "none" for s in corpus)


def test_absurdly_nested_json(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(TOKEN_RECORDS[0]) + "\n" + "[" * 100000 + "]" * 100000 + "\n")
    with pytest.raises(FormatError, match="nested") as err:
        read_corpus(path)
    assert err.value.line == 2


def test_span_records_read_a_stray_i_label_as_a_chunk_start(tmp_path):
    # A tagger may predict I-X after O; tagging a span file must still write it (conlleval's reading).
    import json as _json

    from tagtool.core import Corpus, LabelSet, Sentence
    from tagtool.store.formats import write_corpus

    labels = LabelSet(["O", "B-PER", "I-PER"])
    sentence = Sentence(("Ann", "met", "Bob", "Lee"), tuple(frozenset([x]) for x in ("O", "O", "I-PER", "I-PER")))
    out = tmp_path / "s.jsonl"
    write_corpus(Corpus.from_sentences([sentence], labels=labels), out, spans=True, stray_inside=True)
    record = _json.loads(out.read_text().splitlines()[0])
    assert record["label"] == [[8, 15, "PER"]]


def test_pretty_printed_records_in_a_jsonl_file_are_read(tmp_path):
    # doccano's relation example is pretty-printed JSON named .jsonl: it was
    # refused as invalid JSON at line 2.
    records = [
        {
            "text": "Apple hired Tim Cook.",
            "entities": [{"id": 1, "label": "ORG", "start_offset": 0, "end_offset": 5}],
            "relations": [],
        },
        {"text": "Paris is big.", "entities": [], "relations": []},
    ]
    path = tmp_path / "relations.jsonl"
    path.write_text("".join(json.dumps(r, indent=2) + "\n" for r in records), encoding="utf-8")
    corpus = read_corpus(path)
    assert [s.tokens[0] for s in corpus.sentences] == ["Apple", "Paris"]
    text = json.dumps(records[0], indent=2) + "\n" + json.dumps(records[1], indent=2)[:-1]
    path.write_text(text)  # the last "}" missing: the error is at the end, not at line 2
    with pytest.raises(FormatError, match=rf"relations.jsonl:{text.count(chr(10)) + 1}: invalid JSON"):
        read_corpus(path)
    path.write_text('{"text": "a", "label": []}\n{"text": oops}\n')  # JSON Lines: line by line
    with pytest.raises(FormatError, match=r"relations.jsonl:2: invalid JSON"):
        read_corpus(path)


def test_span_export_keeps_a_candidate_set_in_its_metadata(tmp_path):
    labels = LabelSet(["O", "B-PER", "I-PER", "B-ORG"])
    corpus = Corpus.from_sentences([Sentence(["a", "b"], [{"B-PER", "B-ORG"}, {"O"}])], labels)
    write_corpus(corpus, tmp_path / "x.jsonl", spans=True)
    record = json.loads((tmp_path / "x.jsonl").read_text())
    assert record == {
        "text": "a b",
        "label": [],
        "tagtool": {"state": "partial", "candidates": [[0, 1, ["B-ORG", "B-PER"]]]},
    }
    assert read_corpus(tmp_path / "x.jsonl", labels=labels).sentences[0].annotations == corpus.sentences[0].annotations
