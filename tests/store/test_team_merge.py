"""tagtool assign / merge: round trips, idempotence, refusals, and resolved tokens surviving merges."""

from __future__ import annotations

import os
import sqlite3

import pytest
from team_samples import answer_file, dump, gold_corpus, unlabeled_project

from tagtool.store import assign, merge
from tagtool.store.merge import MergeError
from tagtool.store.project import Project


def _assign(project, out, annotators=("ann", "bob", "cy"), overlap=0.25, seed=0, force=False):
    plan = assign.plan(assign.open_sentences(project), list(annotators), overlap, seed=seed)
    return plan, assign.write_files(project, plan, out, force)


def _merge(project, paths):
    files = [merge.read_file(p, project.labels) for p in paths]
    merge.check_files(project._db, project.path, files)
    return project.team.merge_answers(files)


@pytest.fixture
def team(tmp_path):
    project, gold = unlabeled_project(tmp_path / "ner.tagproj")
    plan, paths = _assign(project, tmp_path / "out")
    given = {name: answer_file(path, gold, noise=0.3, seed=i) for i, (name, path) in enumerate(paths.items())}
    yield project, plan, paths, given, gold
    project.close()


# ---------------------------------------------------------------------------
# assign


def test_plan_deals_every_sentence_balanced_by_tokens():
    lengths = [(i, 1 + (i * 7) % 13) for i in range(1, 201)]
    plan = assign.plan(lengths, ["a", "b", "c"], 0.1, seed=3)
    counts = {sid: sum(sid in ids for ids in plan.sentences.values()) for sid, _ in lengths}
    assert len(plan.shared) == 20 and all(counts[sid] == (2 if sid in plan.shared else 1) for sid in counts)
    loads = [sum(dict(lengths)[sid] for sid in ids) for ids in plan.sentences.values()]
    assert loads == list(plan.tokens.values()) and max(loads) - min(loads) <= max(n for _, n in lengths)
    assert all(ids == sorted(ids) for ids in plan.sentences.values())  # document order kept
    assert assign.plan(lengths, ["a", "b", "c"], 0.1, seed=3) == plan
    assert assign.plan(lengths, ["a", "b", "c"], 0.1, seed=4).shared != plan.shared
    three = assign.plan(lengths, ["a", "b", "c"], 0.5, shared_by=3)
    assert all(sum(s in ids for ids in three.sentences.values()) == 3 for s in three.shared)


@pytest.mark.parametrize(
    "names, overlap, shared_by, message",
    [
        (["a", " a "], 0.1, 2, "named twice"),
        (["a", " "], 0.1, 2, "empty"),
        ([], 0.1, 2, "at least one"),
        (["a"], 0.1, 2, "--overlap 0"),
        (["a", "b"], 1.5, 2, "between 0 and 1"),
        (["a", "b"], 0.1, 3, "--shared-by"),
    ],
)
def test_plan_refuses_bad_annotators_and_shares(names, overlap, shared_by, message):
    with pytest.raises(assign.AssignError, match=message):
        assign.plan([(1, 3), (2, 4)], names, overlap, shared_by)


def test_assigned_files_are_unlabeled_and_record_their_source(team, tmp_path):
    project, plan, paths, _, _ = team
    assert set(paths) == {"ann", "bob", "cy"} and paths["ann"].name == "ner.ann.tagproj"
    fresh, _ = unlabeled_project(tmp_path / "again.tagproj")
    _, again = _assign(fresh, tmp_path / "out2")
    fresh.close()
    with Project.open(again["bob"], readonly=True) as f:
        assert f.meta[merge.ANNOTATOR_KEY] == "bob" and f.meta[merge.SOURCE_PROJECT_KEY] != project.identity()
        assert f.listing.annotation_counts()["full"] == 0 and f.listing.annotation_counts()["partial"] == 0
        sentences = f.sentences(f.sentence_ids())
        assert [int(s.meta[merge.SOURCE_KEY]) for s in sentences] == plan.sentences["bob"]
        assert all(
            s.meta[merge.FINGERPRINT_KEY] == merge.fingerprint(s.tokens) and "sent_id" in s.meta and s.columns["pos"]
            for s in sentences
        )
        assert [d.name for d in f.documents()] == ["a", "b"]
    with Project.open(paths["ann"], readonly=True) as f:
        assert f.meta[merge.SOURCE_PROJECT_KEY] == project.identity()


def test_assign_never_overwrites_unless_forced_and_never_a_non_file(tmp_path):
    project, _ = unlabeled_project(tmp_path / "p.tagproj")
    _, paths = _assign(project, tmp_path / "out")
    before = paths["ann"].read_bytes()
    with pytest.raises(assign.AssignError, match="already exists"):
        _assign(project, tmp_path / "out", annotators=("zed", "ann"))
    assert not (tmp_path / "out" / "p.zed.tagproj").exists(), "checked before anything is written"
    assert paths["ann"].read_bytes() == before
    _assign(project, tmp_path / "out", force=True, seed=5)
    os.unlink(paths["bob"])
    os.mkfifo(paths["bob"])
    with pytest.raises(assign.AssignError, match="not a regular file"):
        _assign(project, tmp_path / "out", force=True)
    project.close()


def test_only_open_sentences_are_assigned(tmp_path):
    project, gold = unlabeled_project(tmp_path / "p.tagproj")
    ids = project.sentence_ids()
    project.set_annotations(ids[0], {t: "O" for t in range(len(project.sentence(ids[0]).tokens))})  # full
    project.review.set_skipped(ids[1])
    project.set_annotation(ids[2], 0, "B-PER")  # partial: still open
    assigned = [sid for sid, _ in assign.open_sentences(project)]
    assert ids[0] not in assigned and ids[1] not in assigned and ids[2] in assigned
    project.close()


# ---------------------------------------------------------------------------
# merge


def test_round_trip_keeps_every_answer_once_and_builds_candidate_sets(team):
    project, plan, paths, given, _ = team
    report = _merge(project, paths.values())
    stored = {(sid, t, who): lab for sid, t, who, lab in dump(project.path)["annotator_labels"]}
    expected = {(sid, t, who): lab for who, answers in given.items() for (sid, t), lab in answers.items()}
    assert stored == expected  # nothing lost, nothing duplicated
    by_token: dict = {}
    for (sid, t, who), lab in expected.items():
        by_token.setdefault((sid, t), {})[who] = frozenset({lab})
    agree = disagree = 0
    for (sid, t), answers in by_token.items():
        training = project.annotations(sid)[t]
        assert training == frozenset().union(*answers.values())
        assert project.team.answers(sid)[t] == answers
        if len(answers) > 1:
            agree += len(set(answers.values())) == 1
            disagree += len(set(answers.values())) > 1
    assert disagree > 0 and (report.agree, report.disagree, report.resolved) == (agree, disagree, 0)
    assert report.sentences == len(project.sentence_ids())
    rows = dict(((sid, t), who) for sid, t, _, who in dump(project.path)["annotations"])
    sid, t = next(k for k, a in by_token.items() if len(a) == 2)
    assert rows[(sid, t)] == "+".join(sorted(by_token[(sid, t)]))
    single = next(k for k, a in by_token.items() if len(a) == 1)
    assert rows[single] == next(iter(by_token[single]))


def test_merging_twice_changes_nothing(team):
    project, _, paths, _, _ = team
    _merge(project, paths.values())
    before = dump(project.path)
    report = _merge(project, [*paths.values(), paths["ann"]])
    assert report.labels_changed == 0 and report.answers_changed == 0
    assert dump(project.path) == before


def test_a_file_merged_again_after_edits_replaces_that_annotators_answers(team):
    project, plan, paths, given, _ = team
    _merge(project, paths.values())
    sid = plan.sentences["ann"][0]
    with Project.open(paths["ann"]) as f:
        fid = f.sentence_ids()[0]
        f.set_annotations(fid, {0: "I-ORG", 1: "_"})
    report = _merge(project, [paths["ann"]])
    assert report.answers_changed == 2
    assert project.team.answers(sid)[0]["ann"] == frozenset({"I-ORG"}) and "ann" not in project.team.answers(sid)[1]
    others = {who: a for who, a in project.team.answers(sid)[1].items()}
    assert project.annotations(sid)[1] == frozenset().union(*others.values())


def test_resolved_tokens_survive_later_merges_and_can_be_taken_back(team):
    project, plan, paths, _, _ = team
    _merge(project, paths.values())
    sid = next(iter(sorted(plan.shared)))
    t = 0
    assert project.annotations(sid)[t] != frozenset({"B-PER"}) or project.set_annotation(sid, t, "O") is None
    project.team.resolve_token(sid, t, "B-PER", "judge")
    assert project.team.resolutions(sid)[t].labels == frozenset({"B-PER"})
    assert project.team.resolutions(sid)[t].annotator == "judge"
    assert [(e.new, e.annotator) for e in project.annotation_history(sid)][-1] == (frozenset({"B-PER"}), "judge")
    who = next(w for w in ("ann", "bob", "cy") if sid in plan.sentences[w])
    with Project.open(paths[who]) as f:
        fid = next(i for i in f.sentence_ids() if int(f.sentence(i).meta[merge.SOURCE_KEY]) == sid)
        f.set_annotation(fid, t, "I-ORG")
    report = _merge(project, paths.values())
    assert report.answers_changed == 1 and report.labels_changed == 0
    assert project.team.answers(sid)[t][who] == frozenset({"I-ORG"})
    assert project.annotations(sid)[t] == frozenset({"B-PER"})
    project.team.unresolve_token(sid, t, "judge")
    assert project.team.resolutions(sid) == {} and "I-ORG" in project.annotations(sid)[t]
    project.team.resolve_token(sid, t, "B-PER|B-ORG", "judge")  # keep a set
    assert project.annotations(sid)[t] == frozenset({"B-PER", "B-ORG"})
    project.team.unresolve_token(sid, t, "judge", restore="O")  # an undo puts back what was there
    assert project.annotations(sid)[t] == frozenset({"O"}) and project.team.resolutions(sid) == {}


def test_a_label_given_in_the_project_becomes_one_answer(tmp_path):
    project, gold = unlabeled_project(tmp_path / "p.tagproj")
    sid = project.sentence_ids()[0]
    project.set_annotation(sid, 0, "B-ORG", "early")
    _, paths = _assign(project, tmp_path / "out", annotators=("ann", "bob"), overlap=0.0)
    for i, path in enumerate(paths.values()):
        answer_file(path, gold, noise=0.0, seed=i)
    _merge(project, paths.values())
    answers = project.team.answers(sid)[0]
    assert answers["early"] == frozenset({"B-ORG"}) and len(answers) == 2
    assert project.annotations(sid)[0] == frozenset().union(*answers.values())
    project.close()


def test_merge_refuses_foreign_files_and_changed_tokens(team, tmp_path):
    project, plan, paths, _, _ = team
    other, gold = unlabeled_project(tmp_path / "other.tagproj")
    _, foreign = _assign(other, tmp_path / "foreign")
    other.close()
    with pytest.raises(MergeError, match="another project"):
        _merge(project, [foreign["ann"]])
    with pytest.raises(MergeError, match="not an annotator's file"):
        _merge(project, [project.path])
    with Project.open(paths["bob"]) as f:
        f.review.split_token(f.sentence_ids()[0], 0, 1)
    with pytest.raises(MergeError, match=f"{paths['bob']}.*changed in the file"):
        _merge(project, [paths["bob"]])
    sid = plan.sentences["cy"][0]
    project.review.merge_tokens(sid, 0)
    with pytest.raises(MergeError, match=f"{paths['cy']}.*retokenized"):
        _merge(project, [paths["cy"]])
    with Project.open(paths["ann"]) as f:
        f.label_set.add_label("B-LOC")
        f.set_annotation(f.sentence_ids()[0], 0, "B-LOC")
    with pytest.raises(MergeError, match="B-LOC"):
        _merge(project, [paths["ann"]])
    assert dump(project.path)["annotator_labels"] == []


def test_two_files_of_one_annotator_for_one_sentence_are_refused(team, tmp_path):
    project, _, paths, _, _ = team
    copy = tmp_path / "copy.tagproj"
    copy.write_bytes(paths["ann"].read_bytes())
    with pytest.raises(MergeError, match="both hold ann's answers"):
        _merge(project, [paths["ann"], copy])


def test_disagree_filter_lists_unresolved_disagreements(team):
    project, _, paths, _, _ = team
    _merge(project, paths.values())
    listed = project.sentence_ids(status="disagree")
    expected = [
        sid for sid in project.sentence_ids() if any(len(set(a.values())) > 1 for a in project.team.answers(sid))
    ]
    assert listed == expected and listed
    sid = listed[0]
    for t, answers in enumerate(project.team.answers(sid)):
        if len(set(answers.values())) > 1:
            project.team.resolve_token(sid, t, sorted(answers.values(), key=sorted)[0], "judge")
    assert sid not in project.sentence_ids(status="disagree")


def test_resolutions_follow_splits_merges_and_label_changes(team):
    project, plan, paths, _, _ = team
    _merge(project, paths.values())
    sid = plan.sentences["ann"][0]
    project.team.resolve_token(sid, 0, "B-PER", "judge")
    project.team.resolve_token(sid, 2, "B-ORG", "judge")
    done = project.review.split_token(sid, 0, 1)
    assert set(project.team.resolutions(sid)) == {3}
    project.review.restore_tokens(sid, done.before, 0, expected=done.after)
    assert set(project.team.resolutions(sid)) == {0, 2}
    project.label_set.rename_label("B-ORG", "B-CORP")
    assert project.team.resolutions(sid)[2].labels == frozenset({"B-CORP"})
    project.label_set.remove_label("B-PER", force=True)
    assert set(project.team.resolutions(sid)) == {2}


def test_import_records_the_annotator_given(tmp_path):
    from tagtool.cli.main import main
    from tagtool.store.formats import write_corpus

    data = tmp_path / "gold.conll"
    write_corpus(gold_corpus(6), data, format="conll")
    assert main(["import", str(data), "-p", str(tmp_path / "p.tagproj"), "--annotator", " maria "]) == 0
    assert (
        main(["import", str(data), "-p", str(tmp_path / "p.tagproj"), "--annotator", "jo", "--duplicates", "add"]) == 0
    )
    conn = sqlite3.connect(tmp_path / "p.tagproj")
    assert {r[0] for r in conn.execute("SELECT DISTINCT annotator FROM annotations")} == {"maria", "jo"}
    conn.close()
    assert main(["import", str(data), "-p", str(tmp_path / "q.tagproj")]) == 0
    conn = sqlite3.connect(tmp_path / "q.tagproj")
    assert {r[0] for r in conn.execute("SELECT DISTINCT annotator FROM annotations")} == {"import"}
    conn.close()


def test_cli_assign_and_merge(tmp_path, capsys):
    from tagtool.cli.main import main

    project, gold = unlabeled_project(tmp_path / "ner.tagproj")
    project.close()
    out = tmp_path / "out"
    assert (
        main(
            [
                "assign",
                str(tmp_path / "ner.tagproj"),
                "--annotators",
                "ann,bob",
                "--overlap",
                "0.2",
                "-o",
                str(out),
                "--seed",
                "1",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "assigned 40 open sentences" in text and "(8 to 2 annotators each)" in text
    assert main(["assign", str(tmp_path / "ner.tagproj"), "--annotators", "ann,bob", "-o", str(out)]) == 1
    assert "already exists" in capsys.readouterr().err
    files = sorted(out.iterdir())
    for i, path in enumerate(files):
        answer_file(path, gold, 0.5, i)
    assert main(["merge", str(tmp_path / "ner.tagproj"), *map(str, files)]) == 0
    text = capsys.readouterr().out
    assert "merged 2 file(s) (ann, bob)" in text and "40 sentences" in text and "disagree" in text
    assert main(["merge", str(tmp_path / "ner.tagproj"), *map(str, files)]) == 0
    assert "0 tokens whose answers changed, 0 training labels changed" in capsys.readouterr().out


def test_disagreeing_sentences_order_by_their_share_of_disputed_tokens(tmp_path):
    project, gold = unlabeled_project(tmp_path / "p.tagproj", n_sentences=6)
    ids = project.sentence_ids()
    lengths = {sid: len(project.sentence(sid)) for sid in ids}

    def answers(sid, disputed):
        ann = [frozenset({"O"})] * lengths[sid]
        bob = [frozenset({"B-PER"}) if t < disputed else frozenset({"O"}) for t in range(lengths[sid])]
        return sid, f"sentence {sid}", {"ann": ann, "bob": bob}

    few, many, none = ids[1], ids[3], ids[4]
    project.team.add_answers([answers(few, 1), answers(many, lengths[many]), answers(none, 0)])
    order = project.sentence_ids(status="disagree", order_by="disagreement", descending=True)
    assert order == [many, few]
    everything = project.sentence_ids(order_by="disagreement", descending=True)
    assert everything[:2] == [many, few] and everything[2:] == [i for i in ids if i not in (many, few)]
    for t in range(lengths[many]):
        project.team.resolve_token(many, t, "O", "judge")
    assert project.sentence_ids(status="disagree", order_by="disagreement", descending=True) == [few]
    project.close()


def test_importing_annotations_leaves_resolved_tokens_alone(tmp_path):
    project, gold = unlabeled_project(tmp_path / "p.tagproj", n_sentences=4)
    sid = project.sentence_ids()[0]
    project.team.resolve_token(sid, 0, "I-ORG", "judge")
    corpus = gold_corpus(4)
    assert project.imports.import_annotations(corpus, mode="replace") > 0
    assert project.annotations(sid)[0] == frozenset({"I-ORG"})
    assert project.annotations(sid)[1:] == corpus.sentences[0].annotations[1:]
    project.close()
