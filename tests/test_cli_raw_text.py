"""Plain text on the command line: every reading command honours --tokenizer, --no-sentence-split and
--document-unit for it, or refuses them when no input reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.cli.main import main
from tagtool.store.project import Project

DATA = Path(__file__).resolve().parent / "data"
CONLL = DATA / "conll2000_train_head.txt"
RAW = (
    "Great pizza in New Haven, Conn. and the staff were kind. We'll be back!\n"
    "Visit https://example.com/menu or mail info@example.com, e.g. for bookings.\n"
)
#: One sentence a line, tokens at spaces: pre-tokenised text.
PRETOKENIZED = ("--tokenizer", "whitespace", "--no-sentence-split")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def raw(tmp_path):
    path = tmp_path / "reviews.txt"
    path.write_text(RAW, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A chunker of tokens alone (no POS column: plain text has none)."""
    from tagtool.core import Corpus, Sentence
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(CONLL)
    bare = [Sentence(s.tokens, s.annotations) for s in gold.sentences[:30]]
    path = tmp_path_factory.mktemp("model") / "m.tagger"
    train_tagger(Corpus.from_sentences(bare, labels=gold.labels), make_learner("perceptron", max_iter=1)).save(path)
    return path


def _sentences(project: Path) -> list[tuple[str, ...]]:
    with Project.open(project, readonly=True) as p:
        return [s.tokens for s in p.corpus()]


def test_import_tokenises_and_splits_raw_text_by_default(raw, tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert run(capsys, "import", raw, "-p", project, "--labels", "O,B-ORG,I-ORG")[0] == 0
    sentences = _sentences(project)
    assert sentences[:2] == [
        ("Great", "pizza", "in", "New", "Haven", ",", "Conn.", "and", "the", "staff", "were", "kind", "."),
        ("We", "'ll", "be", "back", "!"),
    ]
    assert sentences[2][:2] == ("Visit", "https://example.com/menu") and "info@example.com" in sentences[2]
    # the records' text is kept: span export writes it back with character offsets
    with Project.open(project, readonly=True) as p:
        first = p.corpus().sentences[0]
    assert first.meta["record_text"] == RAW.splitlines()[0]


def test_import_pretokenized_is_an_explicit_choice(raw, tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert run(capsys, "import", raw, "-p", project, "--labels", "O", *PRETOKENIZED)[0] == 0
    assert _sentences(project) == [tuple(line.split()) for line in RAW.splitlines()]


def test_import_document_unit(tmp_path, capsys):
    path = tmp_path / "wrapped.txt"
    path.write_text("A sentence wrapped\nover two lines. And another.\n\nNext paragraph.\n", encoding="utf-8")
    by_paragraph, by_line = tmp_path / "a.tagproj", tmp_path / "b.tagproj"
    assert run(capsys, "import", path, "-p", by_paragraph, "--labels", "O")[0] == 0
    assert [" ".join(s) for s in _sentences(by_paragraph)] == [
        "A sentence wrapped over two lines .",
        "And another .",
        "Next paragraph .",
    ]
    assert run(capsys, "import", path, "-p", by_line, "--labels", "O", "--document-unit", "line")[0] == 0
    assert [" ".join(s) for s in _sentences(by_line)] == [
        "A sentence wrapped",
        "over two lines .",
        "And another .",
        "Next paragraph .",
    ]


@pytest.mark.parametrize(
    "option", [("--tokenizer", "whitespace"), ("--no-sentence-split",), ("--document-unit", "line")]
)
def test_import_refuses_options_no_input_reads(tmp_path, capsys, option):
    code, _, err = run(capsys, "import", CONLL, "-p", tmp_path / "p.tagproj", *option)
    assert code == 1
    assert f"{option[0]} applies to plain text" in err and "conll2000_train_head.txt is a CoNLL column file" in err
    assert not (tmp_path / "p.tagproj").exists()


def test_strict_is_refused_without_span_records(raw, tmp_path, capsys):
    code, _, err = run(capsys, "import", raw, "-p", tmp_path / "p.tagproj", "--labels", "O", "--strict")
    assert code == 1 and "--strict applies to span records (doccano, Label Studio), and no input is: " in err
    assert "reviews.txt is plain text" in err


def test_document_unit_is_refused_for_span_records(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"text": "Anna met Berg.", "label": [[0, 4, "PER"]]}) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "import", path, "-p", tmp_path / "p.tagproj", "--document-unit", "line")
    assert code == 1 and "--document-unit applies to plain text, and no input is: " in err
    # the tokenizer applies to span records
    assert run(capsys, "import", path, "-p", tmp_path / "p.tagproj", "--tokenizer", "whitespace")[0] == 0


def test_tag_honours_the_options(model, raw, tmp_path, capsys):
    out = tmp_path / "out.txt"
    assert run(capsys, "tag", model, raw, "-o", out)[0] == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and lines[1].startswith("We/") and " 'll/" in lines[1]
    assert run(capsys, "tag", model, raw, "-o", out, *PRETOKENIZED)[0] == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [[w.rsplit("/", 1)[0] for w in line.split()] for line in lines] == [x.split() for x in RAW.splitlines()]


def test_tag_writes_raw_text_back_as_span_records(model, raw, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert run(capsys, "tag", model, raw, "-o", out, "--format", "jsonl")[0] == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in records] == RAW.splitlines()
    for record in records:
        assert record["label"] and all(
            record["text"][s:e].strip() == record["text"][s:e] for s, e, _ in record["label"]
        )


def test_tag_refuses_options_for_a_column_file(model, tmp_path, capsys):
    code, _, err = run(capsys, "tag", model, CONLL, "-o", tmp_path / "o.txt", "--tokenizer", "default")
    assert code == 1 and "--tokenizer applies to plain text" in err
    assert not (tmp_path / "o.txt").exists()


def test_train_gives_the_options_to_unlabeled_raw_text(raw, tmp_path, capsys):
    out = tmp_path / "m.tagger"
    base = ("train", CONLL, "--learner", "perceptron", "--set", "learner.max_iter=1", "-o", out)
    code, printed, _ = run(capsys, *base, "--unlabeled", raw)
    assert code == 0 and "3 none" in printed
    code, printed, _ = run(capsys, *base, "--unlabeled", raw, *PRETOKENIZED)
    assert code == 0 and "2 none" in printed
    code, _, err = run(capsys, *base, "--no-sentence-split")
    assert code == 1 and "--no-sentence-split applies to plain text" in err


def test_train_refuses_options_for_a_project(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert run(capsys, "import", CONLL, "-p", project)[0] == 0
    code, _, err = run(capsys, "train", project, "-o", tmp_path / "m.tagger", "--tokenizer", "whitespace")
    assert code == 1 and "p.tagproj is a project file" in err


def test_evaluate_honours_the_tokenizer_for_span_records_and_refuses_it_for_columns(model, tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"text": "He's in New York.", "label": [[8, 16, "NP"]]}) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "evaluate", model, gold, "--json")
    assert code == 0 and json.loads(out)["tokens"] == 6
    code, out, _ = run(capsys, "evaluate", model, gold, "--json", "--tokenizer", "whitespace")
    assert code == 0 and json.loads(out)["tokens"] == 4
    code, _, err = run(capsys, "evaluate", model, CONLL, "--tokenizer", "whitespace")
    assert code == 1 and "--tokenizer applies to plain text" in err


@pytest.mark.parametrize(
    "command",
    [
        ("experiment", "--data", CONLL, "--labeled", "5", "--unlabeled", "0"),
        ("simulate", "--data", CONLL, "--test", CONLL, "--strategy", "random"),
    ],
)
def test_experiment_and_simulate_refuse_options_for_column_files(command, capsys):
    code, _, err = run(capsys, *command, "--tokenizer", "whitespace")
    assert code == 1 and "--tokenizer applies to plain text" in err


def test_text_command_honours_the_options(raw, tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert run(capsys, "import", CONLL, "-p", project)[0] == 0
    code, out, _ = run(capsys, "text", project, raw)
    assert code == 0 and f"added {raw}: 3 sentences" in out
    code, out, _ = run(capsys, "text", project, raw, *PRETOKENIZED)
    assert code == 0 and f"added {raw}: 2 sentences" in out


def test_text_added_to_a_project_is_read_as_the_projects_text_was(raw, tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert run(capsys, "import", raw, "-p", project, "--labels", "O", *PRETOKENIZED)[0] == 0
    more = tmp_path / "more.txt"
    more.write_text("Great! Visit e.g. Conn. today.\n", encoding="utf-8")
    assert run(capsys, "import", more, "-p", project)[0] == 0  # the project's options, not the defaults
    assert _sentences(project)[-1] == ("Great!", "Visit", "e.g.", "Conn.", "today.")
    assert run(capsys, "import", more, "-p", project, "--tokenizer", "default", "--duplicates", "add")[0] == 0
    assert _sentences(project)[-1] == ("Great", "!", "Visit", "e.g.", "Conn.", "today", ".")  # given: it wins


def test_the_stored_text_options_go_to_the_inputs_that_take_them():
    from tagtool.store.sources import stored_text_options, text_options_meta

    meta = text_options_meta({"tokenizer": "whitespace", "sentence_split": False, "strict": True})
    assert stored_text_options(meta, "text") == {"tokenizer": "whitespace", "sentence_split": False}
    assert stored_text_options(meta, "jsonl") == {"tokenizer": "whitespace", "sentence_split": False}
    assert stored_text_options(meta, "conll") == {} and stored_text_options({}, "text") == {}
    assert text_options_meta({"tokenizer": None}) == {} and stored_text_options({"text_options": "{"}) == {}
