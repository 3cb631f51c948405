"""``tagtool agreement``: the table, the JSON document, the one-annotator error, read-only."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tagtool.cli.main import main
from tagtool.core import Corpus, LabelSet
from tagtool.store.actions import Action
from tagtool.store.project import Project
from tests.store.agreement_samples import HAND_TOKENS, hand_project, ner_team_project, team_sentence


def agreement_json(path, capsys) -> dict:
    assert main(["agreement", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_holds_the_hand_computed_values(tmp_path, capsys):
    doc = agreement_json(hand_project(tmp_path / "hand.tagproj"), capsys)
    assert doc["annotators"] == ["ana", "ben"] and doc["span_scheme"] is True and doc["scale"] == "percent"
    (pair,) = doc["pairs"]
    assert pair["cohen_kappa"] == pytest.approx(0.42 / 0.62)  # tests/test_agreement.py works these out
    assert pair["krippendorff_alpha"] == pytest.approx(1 - 76 / 248)
    assert pair["observed_agreement"] == pytest.approx(80.0)
    assert pair["spans"]["f1"] == pytest.approx(100 * 4 / 7) and pair["spans"]["precision"] == pytest.approx(50.0)
    assert {"a": "B-X", "b": "O", "tokens": 1} in pair["confusion"]
    assert doc["overall"]["cohen_kappa"] == pytest.approx(pair["cohen_kappa"])
    assert [p["annotator"] for p in doc["progress"]] == ["ana", "ben"]
    assert doc["progress"][0]["tokens"] == 10 and doc["progress"][0]["tokens_per_minute"] is None


def test_table_lists_pairs_disagreements_and_progress(tmp_path, capsys):
    path = ner_team_project(tmp_path / "ner.tagproj")
    assert main(["agreement", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Agreement per pair of annotators" in out and "Disagreements" in out and "Per-annotator progress" in out
    row = next(line for line in out.splitlines() if line.startswith("ana") and "ben" in line)
    doc = agreement_json(path, capsys)
    pair = doc["pairs"][0]
    assert f"{pair['cohen_kappa']:.3f}" in row and f"{pair['spans']['f1']:.1f}" in row
    assert 0.5 < pair["cohen_kappa"] < 1.0 and pair["spans"]["f1"] < 100.0
    progress = {p["annotator"]: p for p in doc["progress"]}
    assert progress["ana"]["sentences"] == 40 and progress["ben"]["sentences"] == 20


def test_fewer_than_two_annotators_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "one.tagproj"
    corpus = Corpus.from_sentences(
        [team_sentence(HAND_TOKENS, {"ana": ("O",) * 10})], labels=LabelSet(["O", "B-X", "I-X"])
    )
    with Project.create(path, corpus):
        pass
    assert main(["agreement", str(path)]) == 1
    err = capsys.readouterr().err
    assert "agreement needs the answers of two annotators or more, and only 'ana' has" in err
    assert len(err.strip().splitlines()) == 1


def test_pos_labels_get_no_span_scores(tmp_path, capsys):
    path = tmp_path / "pos.tagproj"
    corpus = Corpus.from_sentences(
        [team_sentence(("a", "b", "c"), {"x": ("DT", "NN", "VB"), "y": ("DT", "VB", "VB")})],
        labels=LabelSet(["DT", "NN", "VB"]),
    )
    with Project.create(path, corpus):
        pass
    doc = agreement_json(path, capsys)
    assert doc["span_scheme"] is False and doc["pairs"][0]["spans"] is None and doc["overall"]["spans"] is None
    assert main(["agreement", str(path)]) == 0
    assert "no span scores" in capsys.readouterr().out


def test_speed_comes_from_the_annotators_actions_and_the_file_is_only_read(tmp_path, capsys):
    path = hand_project(tmp_path / "hand.tagproj")
    with Project.open(path) as p:
        sid = p.sentence_ids()[0]
        # ben re-labels 3 tokens in the app in 30 active seconds: 6 tokens per minute
        p.apply_action(sid, {0: {"O"}, 1: {"O"}, 2: {"B-X"}}, Action("full", 3, 100.0, 130.0, 30.0), "ben")
    os.chmod(path, stat.S_IRUSR)
    before = path.stat().st_mtime_ns
    try:
        doc = agreement_json(path, capsys)
    finally:
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    assert path.stat().st_mtime_ns == before
    ben = next(p for p in doc["progress"] if p["annotator"] == "ben")
    assert ben["tokens_per_minute"] == pytest.approx(6.0) and ben["tokens"] == 10
