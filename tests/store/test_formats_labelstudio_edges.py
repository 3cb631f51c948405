"""Label Studio exports at their edges: one annotator's two annotations of a task,
annotations that name nobody beside a real annotator called ``unknown``,
HyperText (``hypertextlabels``) results, cancelled annotations; each read
with a word, and written back so that it reads the same again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.core.corpus import SKIPPED_SPAN
from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus

TEXT = "Anna met Ben in Oslo ."


def _labels(labels) -> list[str]:
    return ["|".join(sorted(a)) for a in labels]


def _span(start: int, end: int, label: str, text: str = TEXT) -> dict:
    return {
        "from_name": "label",
        "to_name": "text",
        "type": "labels",
        "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]},
    }


def _file(tmp_path: Path, tasks: list[dict], name: str = "tasks.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(tasks, indent=1), encoding="utf-8")
    return path


def _annotation(ident, who, *spans, updated=None, **keys) -> dict:
    out = {"id": ident, "result": list(spans), **keys}
    if who is not None:
        out["completed_by"] = who
    if updated is not None:
        out["updated_at"] = updated
    return out


def test_one_annotators_two_annotations_keep_the_latest_and_say_so(tmp_path):
    newer = _annotation(11, "alice", _span(16, 20, "LOC"), updated="2024-05-02T09:00:00.000Z")
    older = _annotation(12, "alice", _span(0, 4, "PER"), updated="2024-05-01T09:00:00.000Z")
    path = _file(
        tmp_path,
        [
            {
                "id": 7,
                "data": {"text": TEXT},
                "annotations": [newer, older, _annotation(13, "bob", _span(16, 20, "LOC"))],
            }
        ],
    )
    corpus = read_corpus(path)
    (sentence,) = corpus.sentences
    # the one updated last counts, not the one written last
    assert _labels(sentence.annotator_labels["alice"]) == ["O", "O", "O", "O", "B-LOC", "O"]
    (said,) = [w for w in corpus.warnings if "alice" in w]
    assert said.startswith(f"{path}:") and "task 7" in said and "2 annotations" in said
    assert "kept id 11" in said and "skipped id 12" in said and "the latest" in said


def test_two_annotations_without_times_keep_the_last_in_the_file_and_say_so(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 8,
                "data": {"text": TEXT},
                "annotations": [_annotation(1, 5, _span(0, 4, "PER")), _annotation(2, 5, _span(9, 12, "PER"))],
            }
        ],
    )
    corpus = read_corpus(path)
    assert _labels(corpus.sentences[0].annotations) == ["O", "O", "B-PER", "O", "O", "O"]
    assert any(
        "task 8: annotator '5' has 2 annotations; kept id 2 (the last in the file), skipped id 1" in w
        for w in corpus.warnings
    )


def test_a_ground_truth_annotation_wins_over_a_later_one(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 9,
                "data": {"text": TEXT},
                "annotations": [
                    _annotation(1, "alice", _span(0, 4, "PER"), updated="2024-01-01T00:00:00Z", ground_truth=True),
                    _annotation(2, "alice", _span(9, 12, "PER"), updated="2024-02-01T00:00:00Z"),
                ],
            }
        ],
    )
    corpus = read_corpus(path)
    assert _labels(corpus.sentences[0].annotations)[:3] == ["B-PER", "O", "O"]
    assert any("marked ground_truth" in w for w in corpus.warnings)


def test_json_min_rows_of_one_annotator_keep_the_latest(tmp_path):
    row = {"id": 4, "text": TEXT}
    rows = [
        {
            **row,
            "annotator": "a@x.org",
            "annotation_id": 1,
            "updated_at": "2024-03-02T00:00:00Z",
            "label": [{"start": 0, "end": 4, "text": "Anna", "labels": ["PER"]}],
        },
        {
            **row,
            "annotator": "a@x.org",
            "annotation_id": 2,
            "updated_at": "2024-03-01T00:00:00Z",
            "label": [{"start": 16, "end": 20, "text": "Oslo", "labels": ["LOC"]}],
        },
    ]
    corpus = read_corpus(_file(tmp_path, rows))
    assert _labels(corpus.sentences[0].annotations)[0] == "B-PER"
    assert any("task 4: annotator 'a@x.org' has 2 annotations; kept id 1" in w for w in corpus.warnings)


def test_a_real_annotator_named_unknown_is_not_overwritten_by_nobody(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 3,
                "data": {"text": TEXT},
                "annotations": [
                    _annotation(1, "unknown", _span(0, 4, "PER")),
                    _annotation(2, None, _span(16, 20, "LOC")),
                ],
            }
        ],
    )
    corpus = read_corpus(path)
    (sentence,) = corpus.sentences
    assert set(sentence.annotator_labels) == {"unknown", "(anonymous)"}
    assert _labels(sentence.annotator_labels["unknown"])[0] == "B-PER"
    assert _labels(sentence.annotator_labels["(anonymous)"])[4] == "B-LOC"
    assert any("task 3: 1 annotation(s) without completed_by" in w and "'(anonymous)'" in w for w in corpus.warnings)


def test_every_annotation_that_names_nobody_is_an_answer_of_its_own(tmp_path):
    path = _file(
        tmp_path,
        [
            {"id": 1, "data": {"text": TEXT}, "annotations": [_annotation(1, "(anonymous)", _span(0, 4, "PER"))]},
            {
                "id": 2,
                "data": {"text": TEXT},
                "annotations": [_annotation(2, None, _span(0, 4, "PER")), _annotation(3, None, _span(0, 4, "ORG"))],
            },
            {"id": 5, "data": {"text": TEXT}, "annotations": [_annotation(4, None, _span(0, 4, "LOC"))]},
        ],
    )
    corpus = read_corpus(path)
    first, second, third = corpus.sentences
    # a real "(anonymous)" keeps the name; the nameless ones get names nobody has
    assert set(first.annotator_labels) == {"(anonymous)"}
    assert set(second.annotator_labels) == {"(anonymous 2)", "(anonymous 3)"}
    assert second.annotations[0] == {"B-PER", "B-ORG"}
    # the only annotation of a task, naming nobody, stays nobody's: the training labels
    assert third.annotator_labels == {} and _labels(third.annotations)[0] == "B-LOC"


def test_a_real_annotator_with_a_name_given_before_is_an_error(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 1,
                "data": {"text": TEXT},
                "annotations": [_annotation(1, "bob", _span(0, 4, "PER")), _annotation(2, None, _span(0, 4, "ORG"))],
            },
            {"id": 2, "data": {"text": TEXT}, "annotations": [_annotation(3, "(anonymous)", _span(0, 4, "PER"))]},
        ],
    )
    with pytest.raises(FormatError, match="annotator '\\(anonymous\\)' has the name given") as err:
        read_corpus(path)
    assert err.value.line is not None and err.value.line > 2


def test_cancelled_annotations_are_skipped_with_a_word(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 6,
                "data": {"text": TEXT},
                "annotations": [
                    _annotation(1, "alice", _span(0, 4, "PER")),
                    _annotation(2, "bob", _span(0, 4, "ORG"), was_cancelled=True),
                ],
            }
        ],
    )
    corpus = read_corpus(path)
    assert set(corpus.sentences[0].annotator_labels) == {"alice"}
    assert any("task 6: 1 cancelled annotation(s) skipped (by bob)" in w for w in corpus.warnings)


HTML = "<div><p>Anna met <b>Ben</b></p><p>in Oslo&nbsp;.<br/>Then Ben left .</p></div>"
#: As Label Studio counts globalOffsets: text nodes and <br>, no break between the paragraphs.
VISIBLE = "Anna met Benin Oslo\xa0.\nThen Ben left ."


def _hypertext(start: int, end: int, label: str, *, offsets: bool = True) -> dict:
    value = {
        "start": "/div[1]/p[1]/text()[1]",
        "end": "/div[1]/p[1]/text()[1]",
        "startOffset": 0,
        "endOffset": end - start,
        "text": VISIBLE[start:end],
        "hypertextlabels": [label],
    }
    if offsets:
        value["globalOffsets"] = {"start": start, "end": end, "calculated": True}
    return {"from_name": "ner", "to_name": "html", "type": "hypertextlabels", "value": value}


def test_hypertextlabels_are_read_by_their_global_offsets(tmp_path):
    ben = VISIBLE.index("Ben")
    task = {
        "id": 21,
        "data": {"html": HTML},
        "annotations": [
            _annotation(
                1,
                "alice",
                _hypertext(0, 4, "PER"),
                _hypertext(ben, ben + 3, "PER"),
                _hypertext(VISIBLE.index("Oslo"), VISIBLE.index("Oslo") + 4, "LOC"),
            )
        ],
    }
    corpus = read_corpus(_file(tmp_path, [task]), sentence_split=False)
    (sentence,) = corpus.sentences
    # the page's text is tokenised, not its markup, with the paragraphs apart
    assert sentence.tokens == ("Anna", "met", "Ben", "in", "Oslo", ".", "Then", "Ben", "left", ".")
    labeled = [(t, a) for t, a in zip(sentence.tokens, _labels(sentence.annotations)) if a != "O"]
    assert labeled == [("Anna", "B-PER"), ("Ben", "B-PER"), ("Oslo", "B-LOC")]
    assert not corpus.skipped_spans


def test_hypertextlabels_without_global_offsets_by_their_text_or_skipped_with_a_word(tmp_path):
    task = {
        "id": 22,
        "data": {"html": HTML},
        "annotations": [
            _annotation(
                1,
                "alice",
                _hypertext(0, 4, "PER", offsets=False),
                _hypertext(VISIBLE.index("Ben"), VISIBLE.index("Ben") + 3, "PER", offsets=False),
            )
        ],
    }
    path = _file(tmp_path, [task])
    corpus = read_corpus(path, sentence_split=False)
    assert _labels(corpus.sentences[0].annotations)[0] == "B-PER"  # "Anna" occurs once
    (skipped,) = [w for w in corpus.warnings if w.kind == SKIPPED_SPAN]
    assert skipped.startswith(f"{path}:") and "task 22, annotator 'alice'" in skipped
    assert "'Ben'" in skipped and "occurs 2 times" in skipped
    with pytest.raises(FormatError, match="occurs 2 times"):
        read_corpus(path, strict=True)


def test_edge_cases_written_back_read_the_same(tmp_path):
    ben = VISIBLE.index("Ben")
    path = _file(
        tmp_path,
        [
            {
                "id": 1,
                "data": {"text": TEXT},
                "annotations": [
                    _annotation(1, "unknown", _span(0, 4, "PER")),
                    _annotation(2, None, _span(16, 20, "LOC")),
                    _annotation(3, "unknown", _span(9, 12, "PER")),
                    _annotation(4, 7, _span(0, 4, "PER")),
                ],
            },
            {
                "id": 2,
                "data": {"html": HTML},
                "annotations": [_annotation(5, "unknown", _hypertext(ben, ben + 3, "PER"))],
            },
            {"id": 3, "data": {"text": TEXT}, "annotations": [_annotation(6, None, _span(0, 4, "PER"))]},
        ],
    )
    corpus = read_corpus(path)
    out = tmp_path / "out" / "tasks.json"
    out.parent.mkdir()
    write_corpus(corpus, out, format="labelstudio")
    again = read_corpus(out)
    assert [(s.tokens, s.annotations, s.annotator_labels) for s in again] == [
        (s.tokens, s.annotations, s.annotator_labels) for s in corpus
    ]
    assert not [w for w in again.warnings if "annotation" in w]  # nothing left to choose or name


def test_a_hypertext_task_whose_annotators_marked_nothing_is_read_as_a_page(tmp_path):
    path = _file(
        tmp_path,
        [
            {
                "id": 31,
                "data": {"html": "Anna <i>left</i>"},
                "annotations": [_annotation(1, "alice", _hypertext(0, 4, "PER"))],
            },
            {"id": 32, "data": {"html": "<p>Anna <i>left</i></p>"}, "annotations": [_annotation(2, "alice")]},
            {"id": 33, "data": {"html": HTML}, "annotations": [_annotation(3, "alice")]},
        ],
    )
    first, second, third = read_corpus(path, sentence_split=False).sentences
    assert first.tokens == second.tokens == ("Anna", "left")
    assert third.tokens[:4] == ("Anna", "met", "Ben", "in")
    # alone in its file, a task holding one HTML element and no span is a page too
    alone = _file(tmp_path, [{"id": 34, "data": {"html": HTML}, "annotations": [_annotation(4, "bob")]}], "alone.json")
    assert read_corpus(alone, sentence_split=False).sentences[0].tokens[:4] == ("Anna", "met", "Ben", "in")
    # a Text task that mentions a tag keeps it
    plain = _file(tmp_path, [{"id": 1, "data": {"text": "Use <b> here"}, "annotations": []}], "plain.json")
    assert read_corpus(plain).sentences[0].tokens == ("Use", "<", "b", ">", "here")


def test_json_min_rows_of_a_hypertext_task(tmp_path):
    oslo = VISIBLE.index("Oslo")
    rows = [
        {
            "id": 41,
            "text": HTML,
            "annotator": "a@x.org",
            "annotation_id": 1,
            "ner": [_hypertext(0, 4, "PER")["value"], _hypertext(oslo, oslo + 4, "LOC")["value"]],
        },
        {"id": 41, "text": HTML, "annotator": "b@x.org", "annotation_id": 2, "ner": []},
    ]
    (sentence,) = read_corpus(_file(tmp_path, rows), sentence_split=False).sentences
    assert sentence.tokens[:5] == ("Anna", "met", "Ben", "in", "Oslo")
    assert _labels(sentence.annotator_labels["a@x.org"])[:5] == ["B-PER", "O", "O", "O", "B-LOC"]
    assert _labels(sentence.annotator_labels["b@x.org"])[:5] == ["O"] * 5
