"""``tagtool import`` and ``export`` keep who labeled what: --annotator, --annotator-from-file-name,
--as-annotator (per-annotator CoNLL, CoNLL-U, TSV, doccano files), and round trips through
tagtool's JSONL and Label Studio tasks."""

from __future__ import annotations

import json
import pathlib

import pytest

from tagtool.cli.main import main
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

DATA = pathlib.Path(__file__).parent / "data"
ESP = DATA / "conll2002_esp_train_head.txt"
NER = "O,B-PER,I-PER,B-ORG,I-ORG,B-LOC,I-LOC,B-MISC,I-MISC"


def _lines(n=60):
    """The first sentences of CoNLL-2002 Spanish (word POS NE), up to line ``n``."""
    return ESP.read_text(encoding="utf-8").splitlines(keepends=True)[:n]


def _write(path, lines):
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _tokens_project(tmp_path, n=60):
    """A project of the sentences' tokens only, unlabeled."""
    tokens = _write(tmp_path / "tokens.txt", [(line.split()[0] + "\n") if line.strip() else "\n" for line in _lines(n)])
    project = tmp_path / "p.tagproj"
    assert main(["import", str(tokens), "-p", str(project), "--labels", NER]) == 0
    return project


def _team_files(tmp_path):
    """alice: the gold labels; bob: every B-LOC read as B-ORG."""
    alice = _write(tmp_path / "alice.txt", _lines())
    bob = _write(tmp_path / "bob.txt", [line.replace(" B-LOC\n", " B-ORG\n") for line in _lines()])
    return alice, bob


def _state(project):
    with Project.open(project, readonly=True) as p:
        return [(p.annotations(sid), p.team.annotator_labels(sid)) for sid in p.sentence_ids()]


def test_per_annotator_conll_files_make_candidate_sets_where_they_differ(tmp_path, capsys):
    project = _tokens_project(tmp_path)
    alice, bob = _team_files(tmp_path)
    capsys.readouterr()
    assert (
        main(["import", str(alice), str(bob), "-p", str(project), "--as-annotator", "--annotator-from-file-name"]) == 0
    )
    out = capsys.readouterr().out
    assert "alice.txt: 4 of 4 sentences answered by alice" in out and "2 became the candidate set" in out
    (first, by_annotator), *_ = _state(project)
    assert first[0] == {"B-LOC", "B-ORG"} and first[8] == {"B-ORG"}  # Melbourne; EFE
    assert by_annotator["alice"][0] == {"B-LOC"} and by_annotator["bob"][0] == {"B-ORG"}


def test_a_file_of_nobody_needs_a_name_and_a_differing_token_names_its_line(tmp_path, capsys):
    project = _tokens_project(tmp_path)
    alice, _ = _team_files(tmp_path)
    before = _state(project)
    assert main(["import", str(alice), "-p", str(project), "--as-annotator"]) == 1
    assert "alice.txt:1: the file does not say whose labels these are" in capsys.readouterr().err
    lines = _lines()
    lines[15] = "Abogada NC B-PER\n"  # line 16: token 2 of sentence 3
    bad = _write(tmp_path / "carol.txt", lines)
    assert main(["import", str(bad), "-p", str(project), "--as-annotator", "--annotator", "carol"]) == 1
    err = capsys.readouterr().err
    assert "carol.txt:16: token 2 is 'Abogada' here, 'Abogado' in the project's sentence 3 of document" in err
    short = _write(tmp_path / "dan.txt", _lines()[:14])
    assert main(["import", str(short), "-p", str(project), "--as-annotator", "--annotator", "dan"]) == 1
    assert "dan.txt: 2 sentences, the project 4" in capsys.readouterr().err
    assert _state(project) == before  # nothing half-imported


def test_match_tokens_takes_a_part_of_the_project_in_any_order(tmp_path, capsys):
    project = _tokens_project(tmp_path)
    blocks = "".join(_lines()).split("\n\n")
    part = _write(tmp_path / "part.txt", [blocks[2] + "\n\n", blocks[0] + "\n\n"])
    args = ["import", str(part), "-p", str(project), "--as-annotator", "--annotator", "eve"]
    assert main(args) == 1  # in order, sentence 1 of the file is not the project's sentence 1
    assert main(args + ["--match", "tokens"]) == 0
    answered = [sorted(labels) for _, labels in _state(project)]
    assert answered == [["eve"], [], ["eve"], []]
    lines = _lines()
    lines[0] = "Sydney NP B-LOC\n"
    assert (
        main(
            [
                "import",
                str(_write(tmp_path / "x.txt", lines)),
                "-p",
                str(project),
                "--as-annotator",
                "--annotator",
                "eve",
                "--match",
                "tokens",
            ]
        )
        == 1
    )
    assert "x.txt:1: no sentence of the project has the tokens 'Sydney ( Australia" in capsys.readouterr().err


def test_conllu_and_tsv_answers(tmp_path, capsys):
    source = DATA / "ewt_test_slice.conllu"
    project = tmp_path / "u.tagproj"
    assert main(["import", str(source), "-p", str(project)]) == 0
    text = source.read_text(encoding="utf-8").replace("\tAUX\tVBP\t", "\tVERB\tVBP\t", 1)
    copy = _write(tmp_path / "ann.conllu", [text])
    assert main(["import", str(copy), "-p", str(project), "--as-annotator", "--annotator", "ann"]) == 0
    (first, by_annotator), *_ = _state(project)
    # the imported labels are the project's own (they name nobody): they stand beside ann's answer
    assert first[0] == {"AUX"} and by_annotator["ann"][0] == {"VERB"} and "import" not in by_annotator
    moved = _write(tmp_path / "moved.conllu", [text.replace("\tyou\tyou\t", "\tyou'\tyou\t", 1)])
    assert main(["import", str(moved), "-p", str(project), "--as-annotator", "--annotator", "x"]) == 1
    assert 'moved.conllu:4: token 2 is "you\'" here' in capsys.readouterr().err  # after two comment lines
    table = tmp_path / "t.tsv"
    table.write_text("sentence\ttoken\tlabel\n1\tAnn\tB-PER\n1\tleft\tO\n2\tBob\tB-PER\n", encoding="utf-8")
    tproject = tmp_path / "t.tagproj"
    assert main(["import", str(table), "-p", str(tproject)]) == 0
    table.write_text("sentence\ttoken\tlabel\n1\tAnn\tB-PER\n1\tleft\tO\n2\tBob\tO\n", encoding="utf-8")
    assert main(["import", str(table), "-p", str(tproject), "--as-annotator", "--annotator", "kim"]) == 0
    assert _state(tproject)[1][0][0] == {"B-PER"} and _state(tproject)[1][1]["kim"][0] == {"O"}


def test_doccano_per_user_files_into_a_new_project(tmp_path, capsys):
    records = [{"id": 1, "text": "Ann Lee joined Acme."}, {"id": 2, "text": "Bob stayed home."}]
    spans = {
        "alice": [[[0, 7, "PER"], [15, 19, "ORG"]], [[0, 3, "PER"]]],
        "bob": [[[0, 7, "PER"], [15, 19, "LOC"]], None],
    }
    for name, labels in spans.items():
        lines = [json.dumps({**r, **({} if s is None else {"label": s})}) + "\n" for r, s in zip(records, labels)]
        _write(tmp_path / f"{name}.jsonl", lines)
    project = tmp_path / "team.tagproj"
    files = [str(tmp_path / "alice.jsonl"), str(tmp_path / "bob.jsonl")]
    assert main(["import", *files, "-p", str(project), "--as-annotator", "--annotator-from-file-name"]) == 0
    assert "created" in capsys.readouterr().out
    (ann_lee, first), (bob, second) = _state(project)
    assert ann_lee[3] == {"B-ORG", "B-LOC"} and ann_lee[0] == {"B-PER"} and set(first) == {"alice", "bob"}
    assert set(second) == {"alice"} and bob[0] == {"B-PER"}  # bob's file left record 2 unlabeled
    with Project.open(project, readonly=True) as p:
        assert {"I-PER", "I-LOC", "I-ORG"} <= set(p.labels)  # the scheme completed
    other = tmp_path / "other.tagproj"
    broken = _write(tmp_path / "zed.jsonl", [json.dumps({"text": "Something else."}) + "\n"])
    assert (
        main(["import", files[0], str(broken), "-p", str(other), "--as-annotator", "--annotator-from-file-name"]) == 1
    )
    assert not other.exists()  # no half-made project


def test_annotator_option_names_the_labels_of_a_new_import(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert (
        main(["import", str(_write(tmp_path / "a.txt", _lines(12))), "-p", str(project), "--annotator", " alice "]) == 0
    )
    ((labels, by_annotator),) = _state(project)
    assert by_annotator == {"alice": labels}
    with Project.open(project, readonly=True) as p:
        assert {who for (who,) in p._db.execute("SELECT annotator FROM annotations")} == {"alice"}


@pytest.mark.parametrize("fmt, name", [("jsonl", "out.jsonl"), ("labelstudio", "out.json")])
def test_import_export_import_keeps_every_annotators_labels(tmp_path, capsys, fmt, name):
    project = _tokens_project(tmp_path)
    alice, bob = _team_files(tmp_path)
    assert (
        main(["import", str(alice), str(bob), "-p", str(project), "--as-annotator", "--annotator-from-file-name"]) == 0
    )
    out = tmp_path / name
    assert main(["export", str(project), "-o", str(out), "--format", fmt]) == 0
    again = tmp_path / "again.tagproj"
    assert main(["import", str(out), "-p", str(again), "--labels", NER]) == 0
    assert _state(again) == _state(project)
    if fmt == "labelstudio":
        tasks = json.loads(out.read_text(encoding="utf-8"))
        assert [a["completed_by"] for a in tasks[0]["annotations"]] == ["alice", "bob"]
    else:
        assert read_corpus(out).sentences[0].annotator_labels.keys() == {"alice", "bob"}


def test_adjudicated_labels_survive_the_jsonl_round_trip(tmp_path, capsys):
    project = _tokens_project(tmp_path)
    alice, bob = _team_files(tmp_path)
    assert (
        main(["import", str(alice), str(bob), "-p", str(project), "--as-annotator", "--annotator-from-file-name"]) == 0
    )
    with Project.open(project) as p:
        p.set_annotations(p.sentence_ids()[0], {0: ["B-LOC"]}, annotator="judge")
    out = tmp_path / "out.jsonl"
    assert main(["export", str(project), "-o", str(out)]) == 0
    again = tmp_path / "again.tagproj"
    assert main(["import", str(out), "-p", str(again), "--labels", NER]) == 0
    assert _state(again) == _state(project) and _state(again)[0][0][0] == {"B-LOC"}


#: A token where one annotator says O and the other B-PER: the file's candidate set names every
#: label the file uses (O, B-PER), but not the I-PER the imported project's scheme adds.
ALL_LABELS_SET = {
    "tokens": ["New", "York", "x"],
    "labels": ["O", ["O", "B-PER"], "O"],
    "annotators": {"ana": ["O", "O", "O"], "ben": ["O", "B-PER", "O"]},
}

#: A Label Studio task: annotator 1 marked nothing, annotator 2 marked "York".
EMPTY_AND_SPAN_TASK = [
    {
        "id": 1,
        "data": {"text": "New York is big"},
        "annotations": [
            {"completed_by": 1, "result": []},
            {
                "completed_by": 2,
                "result": [
                    {
                        "type": "labels",
                        "from_name": "label",
                        "to_name": "text",
                        "value": {"start": 4, "end": 8, "labels": ["LOC"]},
                    }
                ],
            },
        ],
    }
]


@pytest.mark.parametrize(
    "name, content, labels, answers",
    [
        (
            "a.jsonl",
            json.dumps(ALL_LABELS_SET) + "\n",
            "O,B-PER,I-PER",
            {"ana": ["O", "O", "O"], "ben": ["O", "B-PER", "O"]},
        ),
        (
            "tasks.json",
            json.dumps(EMPTY_AND_SPAN_TASK),
            "O,B-LOC,I-LOC",
            {"1": ["O", "O", "O", "O"], "2": ["O", "B-LOC", "O", "O"]},
        ),
    ],
)
def test_a_candidate_set_of_every_label_in_the_file_keeps_the_annotators(
    tmp_path, capsys, name, content, labels, answers
):
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    guessed, given = tmp_path / "guessed.tagproj", tmp_path / "given.tagproj"
    assert main(["import", str(source), "-p", str(guessed)]) == 0
    assert main(["import", str(source), "-p", str(given), "--labels", labels]) == 0
    ((training, by_annotator),) = _state(guessed)
    assert {n: [next(iter(a)) for a in anns] for n, anns in by_annotator.items()} == answers
    assert training[1] == {"O", labels.split(",")[1]}  # the candidate set: I-X is still excluded
    assert _state(guessed) == _state(given)  # the same with the label set given or guessed
    capsys.readouterr()
    assert main(["agreement", str(guessed)]) == 0
    assert f"2 annotators with answers: {', '.join(answers)}" in capsys.readouterr().out
