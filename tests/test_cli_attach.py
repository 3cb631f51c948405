"""``tagtool import`` of span records onto a project's own text (--attach, --as-annotator by text,
--merge-crossing) and of texts the project already holds (--duplicates)."""

from __future__ import annotations

import json

from tagtool.cli.main import main
from tagtool.store.project import Project
from tests.store.test_span_attach import LABELS, PARAGRAPHS, span, two_annotators, write_jsonl


def _project(tmp_path):
    raw = write_jsonl(tmp_path / "raw.jsonl", [{"text": t} for t in PARAGRAPHS])
    project = tmp_path / "p.tagproj"
    assert main(["import", str(raw), "-p", str(project), "--labels", ",".join(LABELS)]) == 0
    return raw, project


def test_a_plain_import_of_texts_already_held_is_refused_unless_told(tmp_path, capsys):
    raw, project = _project(tmp_path)
    capsys.readouterr()
    assert main(["import", str(raw), "-p", str(project)]) == 1
    err = capsys.readouterr().err
    assert f"{raw}: 3 of its 3 texts (6 sentences) are already in {project}" in err and "--duplicates" in err
    with Project.open(project, readonly=True) as p:
        assert p.n_sentences == 6
    more = write_jsonl(tmp_path / "more.jsonl", [{"text": PARAGRAPHS[0]}, {"text": "Something new."}])
    assert main(["import", str(more), "-p", str(project), "--duplicates", "skip"]) == 0
    assert "skipped 1 of 2 texts (2 sentences)" in capsys.readouterr().out
    assert main(["import", str(more), "-p", str(project), "--duplicates", "add"]) == 0
    with Project.open(project, readonly=True) as p:
        assert p.n_sentences == 6 + 1 + 3


def test_attach_puts_a_doccano_file_on_the_project_text_as_training_labels(tmp_path, capsys):
    _, project = _project(tmp_path)
    a = PARAGRAPHS[0]
    file = write_jsonl(tmp_path / "d.jsonl", [{"text": a, "label": [span(a, "Anna Berg", "PER")]}])
    capsys.readouterr()
    assert main(["import", str(file), "-p", str(project), "--attach", "fill"]) == 0
    out = capsys.readouterr().out
    assert f"{file}: 1 of 1 records found in the project's text, 2 sentences labeled by offsets" in out
    with Project.open(project, readonly=True) as p:
        second = p.sentence_ids()[1]
        tokens, anns = p.sentence(second).tokens, p.annotations(second)
        assert anns[tokens.index("Anna")] == {"B-PER"} and anns[tokens.index("Berg")] == {"I-PER"}


def test_two_annotators_by_text_then_the_crossing_span_by_merging(tmp_path, capsys):
    _, project = _project(tmp_path)
    file = two_annotators(tmp_path)
    capsys.readouterr()
    # span records into a project that keeps its text: matched by text without --match
    assert main(["import", str(file), "-p", str(project), "--as-annotator"]) == 0
    captured = capsys.readouterr()
    assert "span(s) cross a sentence boundary of the project" in captured.err and "--merge-crossing" in captured.err
    assert f"{file}:2: span [" in captured.err and "'Paris. The' by bob: crosses the boundary" in captured.err
    with Project.open(project, readonly=True) as p:
        assert p.n_sentences == 6 and set(p.team.answering_annotators()) == {"alice", "bob"}
    assert main(["import", str(file), "-p", str(project), "--as-annotator", "--match", "text", "--merge-crossing"]) == 0
    assert "1 sentence(s) joined" in capsys.readouterr().out
    with Project.open(project, readonly=True) as p:
        assert p.n_sentences == 5
        first = p.sentence_ids()[0]
        bob = p.team.annotator_labels(first)["bob"]
        tokens = p.sentence(first).tokens
        assert [t for t, a in zip(tokens, bob) if a and a != {"O"}] == ["Dr.", "Smith", "Paris", ".", "The"]


def test_merge_crossing_goes_with_attaching(tmp_path, capsys):
    raw, project = _project(tmp_path)
    assert main(["import", str(raw), "-p", str(project), "--merge-crossing"]) == 1
    assert "--merge-crossing goes with --attach" in capsys.readouterr().err


def test_a_project_without_text_says_offsets_cannot_be_used(tmp_path, capsys):
    conll = tmp_path / "c.conll"
    conll.write_text("Dr. B-PER\nSmith I-PER\n\n", encoding="utf-8")
    project = tmp_path / "c.tagproj"
    assert main(["import", str(conll), "-p", str(project)]) == 0
    file = write_jsonl(tmp_path / "d.jsonl", [{"text": "Dr. Smith", "label": []}])
    assert main(["import", str(file), "-p", str(project), "--attach", "fill"]) == 1
    assert "keeps no text" in capsys.readouterr().err
    # the same CoNLL document again is a duplicate; a different one is not
    assert main(["import", str(conll), "-p", str(project)]) == 1
    other = tmp_path / "o.conll"
    other.write_text("Dr. B-PER\nSmith I-PER\n\nMr. B-PER\n\n", encoding="utf-8")
    assert main(["import", str(other), "-p", str(project)]) == 0


def test_one_record_of_the_whole_text_by_two_annotators_goes_onto_the_paragraphs(tmp_path, capsys):
    """The text file as one doccano record per annotator; the project holds it paragraph by paragraph."""
    _, project = _project(tmp_path)
    whole = "\n\n".join(PARAGRAPHS) + "\n"
    file = write_jsonl(
        tmp_path / "whole.jsonl",
        [
            {"text": whole, "label": [span(whole, "Anna Berg", "PER"), span(whole, "Hot Pot", "ORG")], "user": "alice"},
            {"text": whole, "label": [span(whole, "Anna", "PER")], "user": "bob"},
        ],
    )
    assert main(["import", str(file), "-p", str(project), "--as-annotator"]) == 0
    assert "2 of 2 records found in the project's text" in capsys.readouterr().out
    with Project.open(project, readonly=True) as p:
        second, third = p.sentence_ids()[1:3]
        tokens = p.sentence(second).tokens
        anna = tokens.index("Anna")
        own = p.team.annotator_labels(second)
        assert own["alice"][anna : anna + 2] == ({"B-PER"}, {"I-PER"})
        assert own["bob"][anna : anna + 2] == ({"B-PER"}, {"O"})
        assert p.annotations(second)[anna + 1] == {"I-PER", "O"}  # they differ: the candidate set
        assert p.team.annotator_labels(third)["alice"][1:3] == ({"B-ORG"}, {"I-ORG"})


def _team_export(tmp_path, capsys):
    """A project of the paragraphs with alice's and bob's answers (by text) and an edit of the project's own,
    exported as tagtool's doccano records: the training labels as spans, the answers in the metadata."""
    tmp_path.mkdir()
    _, source = _project(tmp_path)
    file = two_annotators(tmp_path)
    assert main(["import", str(file), "-p", str(source), "--as-annotator", "--merge-crossing"]) == 0
    out = tmp_path / "team.jsonl"
    assert main(["export", str(source), "-o", str(out), "--format", "doccano"]) == 0, capsys.readouterr().err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert set(records[0]["tagtool"]["annotators"]) == {"alice", "bob"}
    return source, out


def _answers_by_token(path):
    with Project.open(path, readonly=True) as p:
        return {
            " ".join(p.sentence(sid).tokens): {
                name: [sorted(a) for a in labels] for name, labels in p.team.annotator_labels(sid).items()
            }
            for sid in p.sentence_ids()
        }


def test_attaching_a_team_doccano_export_brings_each_annotators_answers(tmp_path, capsys):
    source, out = _team_export(tmp_path / "team", capsys)
    raw = write_jsonl(tmp_path / "raw.jsonl", [{"text": t} for t in PARAGRAPHS])
    fresh = tmp_path / "fresh.tagproj"
    assert main(["import", str(raw), "-p", str(fresh), "--labels", ",".join(LABELS)]) == 0
    capsys.readouterr()
    assert main(["import", str(out), "-p", str(fresh), "--attach", "fill", "--merge-crossing"]) == 0
    printed = capsys.readouterr().out
    assert "training labels changed" in printed and "answers for 3 sentences" in printed
    with Project.open(fresh, readonly=True) as p:
        assert p.team.answering_annotators() == ["alice", "bob"]  # no "import" made an annotator of the training labels
    assert _answers_by_token(fresh) == _answers_by_token(source)
    # the training labels are the export's own spans (where alice and bob differ: their candidate sets)
    with Project.open(fresh, readonly=True) as f, Project.open(source, readonly=True) as s:
        assert [f.annotations(sid) for sid in f.sentence_ids()] == [s.annotations(sid) for sid in s.sentence_ids()]


def test_only_answers_of_a_team_doccano_export_by_text(tmp_path, capsys):
    source, out = _team_export(tmp_path / "team", capsys)
    raw = write_jsonl(tmp_path / "raw.jsonl", [{"text": t} for t in PARAGRAPHS])
    fresh = tmp_path / "fresh.tagproj"
    assert main(["import", str(raw), "-p", str(fresh), "--labels", ",".join(LABELS)]) == 0
    # the export's own spans are nobody's answers: no --annotator needed
    assert main(["import", str(out), "-p", str(fresh), "--as-annotator", "--merge-crossing"]) == 0
    assert _answers_by_token(fresh) == _answers_by_token(source)
    # one annotator of the export: bob's answers again, alice's kept (the record naming nobody is bob's)
    assert main(["import", str(out), "-p", str(fresh), "--as-annotator", "--match", "text", "--annotator", "bob"]) == 0
    again, before = _answers_by_token(fresh), _answers_by_token(source)
    assert {k: v for k, v in again.items() if "othing" not in k} == {
        k: v for k, v in before.items() if "othing" not in k
    }
