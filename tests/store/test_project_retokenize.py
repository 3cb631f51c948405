"""Splitting and merging tokens in the store: rows, labels, columns, log, undo, CoNLL-U ids."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from project_samples import ann, sample_corpus

from tagtool.errors import ProjectError
from tagtool.gui.statistics_numbers import progress_over_time
from tagtool.store import conllu_words, retokenize_conllu
from tagtool.store.formats import conllu, read_corpus, write_corpus
from tagtool.store.project import Project
from tagtool.store.record_types import NotFoundError
from tagtool.store.retokenize import RetokenizeError
from tagtool.store.review import Review

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", sample_corpus()) as p:
        yield p


def test_split_rewrites_tokens_labels_columns_and_the_list_row(project):
    sid = project.sentence_ids()[0]  # Confidence/B-NP in/{O,B-VP} the/- pound/I-NP
    before, after, action_id = project.review.split_token(sid, 0, 4)
    assert action_id is None  # no action given: none logged
    s = project.sentence(sid)
    assert s.tokens == ("Conf", "idence", "in", "the", "pound")
    assert s.annotations == (ann("B-NP"), ann("I-NP"), ann("O", "B-VP"), ann(), ann("I-NP"))
    assert s.columns["pos"] == ("NN", "NN", "IN", "DT", "NN")  # a split copies the values
    assert s.meta == sample_corpus().documents[0].sentences[0].meta
    row = project.listing.sentence_summaries_by_id([sid])[0]
    assert (row.n_tokens, row.n_full, row.n_partial, row.preview) == (5, 3, 1, "Conf idence in the pound")
    assert project.sentence_ids(search="idence in") == [sid]
    assert before.tokens == ("Confidence", "in", "the", "pound") and after.tokens == s.tokens


def test_merge_joins_texts_keeps_the_first_columns_and_agreeing_labels(project):
    sid = project.sentence_ids()[3]  # is/B-VP widely/{I-VP,I-NP,O} expected/I-VP
    project.review.merge_tokens(sid, 1)
    s = project.sentence(sid)
    assert s.tokens == ("is", "widelyexpected") and s.columns["pos"] == ("VBZ", "RB")
    assert s.annotations == (ann("B-VP"), ann("I-VP"))  # the one compatible pair
    project.review.merge_tokens(sid, 0)
    assert project.sentence(sid).annotations == (ann("B-VP"),)
    with pytest.raises(RetokenizeError, match="no next token"):
        project.review.merge_tokens(sid, 0)
    with pytest.raises(RetokenizeError, match="both parts"):
        project.review.split_token(sid, 0, 0)
    with pytest.raises(RetokenizeError, match="no token 3"):
        project.review.split_token(sid, 2, 1)
    with pytest.raises(NotFoundError):
        project.review.merge_tokens(999, 0)


def test_undo_and_redo_put_the_exact_states_back(project):
    sid = project.sentence_ids()[0]
    original = project.sentence(sid)
    project.set_annotation(sid, 2, ["O"], annotator="ann")
    labeled = project.sentence(sid)
    before, after, _ = project.review.split_token(sid, 3, 2)
    split = project.sentence(sid)
    project.review.restore_tokens(sid, before, 3, expected=after)
    assert project.sentence(sid) == labeled
    project.review.restore_tokens(sid, after, 3, expected=before)
    assert project.sentence(sid) == split
    with pytest.raises(RetokenizeError, match="changed since"):
        project.review.restore_tokens(sid, before, 3, expected=before)  # it is not in that state any more
    assert project.sentence(sid) == split
    project.review.restore_tokens(sid, before, 3)
    project.set_annotation(sid, 2, [], annotator="ann")
    assert project.sentence(sid) == original


def test_the_log_replays_to_the_counts_through_splits_and_merges(project):
    """The statistics replay the log backwards from the counts: retokenizing keeps the replay exact."""
    ids = project.sentence_ids()
    rng = random.Random(3)
    start = project.listing.annotation_counts()
    for _ in range(60):
        sid = rng.choice(ids)
        s = project.sentence(sid)
        if rng.random() < 0.4:
            project.set_annotation(sid, rng.randrange(len(s)), rng.choice([["O"], ["B-NP", "I-NP"], []]))
        elif len(s) > 1 and rng.random() < 0.5:
            project.review.merge_tokens(sid, rng.randrange(len(s) - 1))
        else:
            t = rng.choice([t for t, w in enumerate(s.tokens) if len(w) > 1])
            project.review.split_token(sid, t, rng.randrange(1, len(s.tokens[t])))
    now = project.listing.annotation_counts()
    points = progress_over_time(project.annotation_history(), now["full"], now["partial"])
    assert points[0][1:] == (start["full"], start["partial"])
    assert points[-1][1:] == (now["full"], now["partial"])
    check = {s.id: (s.n_full, s.n_partial) for s in project.listing.sentence_summaries()}
    for sid in ids:
        anns = project.annotations(sid)
        assert check[sid] == (sum(len(a) == 1 for a in anns), sum(len(a) > 1 for a in anns))


def test_each_annotators_labels_follow(tmp_path):
    corpus = read_corpus(DATA / "labelstudio_full.json")
    with Project.create(tmp_path / "ls.tagproj", corpus) as p:
        sid = p.sentence_ids()[0]
        by = p.team.annotator_labels(sid)
        tokens = p.sentence(sid).tokens
        t = next(i for i, w in enumerate(tokens) if len(w) > 1 and by["1"][i] == {"B-PER"})
        p.review.split_token(sid, t, 1)
        after = p.team.annotator_labels(sid)
        assert after["1"][t : t + 2] == ({"B-PER"}, {"I-PER"})
        assert after["1"][t + 2 :] == by["1"][t + 1 :]
        p.review.merge_tokens(sid, t)
        assert p.team.annotator_labels(sid) == by


def test_a_read_only_project_refuses(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    with Project.open(path, readonly=True) as p, pytest.raises(ProjectError, match="read-only"):
        p.review.split_token(p.sentence_ids()[0], 0, 1)


# ----------------------------------------------------------------------
# CoNLL-U: word ids stay right, the file stays valid, # text still matches


def surface(block: str) -> str:
    """The text a CoNLL-U sentence spells (ranges give their form, SpaceAfter=No joins)."""
    out, covered = [], 0
    for line in block.splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        ident, form, misc = fields[0], fields[1], fields[9]
        if "." in ident:
            continue
        if "-" in ident:
            covered = int(ident.split("-")[1])
        elif int(ident) <= covered:
            continue
        out.append(form + ("" if "SpaceAfter=No" in misc.split("|") else " "))
    return "".join(out).strip()


def check_conllu(path: Path) -> None:
    for block in path.read_text().strip().split("\n\n"):
        words = [line.split("\t") for line in block.splitlines() if line and not line.startswith("#")]
        ids = [w[0] for w in words if w[0].isdigit()]
        assert ids == [str(i) for i in range(1, len(ids) + 1)]
        for w in words:
            if w[0].isdigit() and w[6] != "_":
                assert 0 <= int(w[6]) <= len(ids) and w[6] != w[0], w
            if "-" in w[0]:
                a, b = map(int, w[0].split("-"))
                assert 1 <= a < b <= len(ids)
        text = next((line[len("# text = ") :] for line in block.splitlines() if line.startswith("# text = ")), None)
        if text is not None:
            assert surface(block) == text


def test_conllu_merge_of_a_multiword_token_and_heads(tmp_path):
    corpus = read_corpus(DATA / "ewt_test_slice.conllu")
    with Project.create(tmp_path / "ud.tagproj", corpus) as p:
        sid = next(
            i for i, s in zip(p.sentence_ids(), p.corpus()) if s.meta.get("sent_id") == "email-enronsent28_01-0018"
        )
        p.review.merge_tokens(sid, 1)  # that + 's
        s = p.sentence(sid)
        assert s.tokens[:3] == ("And", "that's", "the")
        assert "2-3" not in s.meta["conllu:lines"]
        assert s.columns["head"][:4] == ("4", "4", "4", "0")  # 5 → 4: the root moved up by one
        assert s.columns["deps"][3] == "0:root|12:obl"
        out = tmp_path / "out.conllu"
        write_corpus(p.review.export_corpus(), out)
        check_conllu(out)


def test_conllu_random_splits_and_text_keeping_merges_export_valid_files(tmp_path):
    """Every sentence of the UD slice split and merged at random: the file is valid CoNLL-U,
    heads point at words, ranges and empty nodes are in place, and ``# text`` still reads right."""
    corpus = read_corpus(DATA / "ewt_test_slice.conllu")
    rng = random.Random(5)
    with Project.create(tmp_path / "ud.tagproj", corpus) as p:
        for sid in p.sentence_ids():
            for _ in range(4):
                s = p.sentence(sid)
                joined = [t for t in range(len(s) - 1) if "SpaceAfter=No" in s.columns["misc"][t].split("|")]
                long = [t for t, w in enumerate(s.tokens) if len(w) > 1]
                if joined and (rng.random() < 0.5 or not long):
                    p.review.merge_tokens(sid, rng.choice(joined))  # a merge that removes no space
                elif long:
                    t = rng.choice(long)
                    p.review.split_token(sid, t, rng.randrange(1, len(s.tokens[t])))
        out = tmp_path / "out.conllu"
        write_corpus(p.review.export_corpus(), out)
        check_conllu(out)
        assert len(read_corpus(out)) == len(corpus)


def test_the_conllu_key_names_are_the_readers():
    assert retokenize_conllu.LINES_KEY == conllu_words.LINES_KEY == conllu.LINES_KEY
    assert retokenize_conllu.MISC_AT_KEY == conllu_words.MISC_AT_KEY == conllu.MISC_AT_KEY


def test_misc_label_positions_follow(tmp_path):
    conllu_text = (
        "# text = Ab cd\n1\tAb\t_\t_\t_\t_\t0\troot\t_\tNER=B-PER|X=1\n2\tcd\t_\t_\t_\t_\t1\tdep\t_\tNER=I-PER\n\n"
    )
    path = tmp_path / "in.conllu"
    path.write_text(conllu_text)
    corpus = read_corpus(path, label_field="misc:NER")
    with Project.create(tmp_path / "m.tagproj", corpus) as p:
        sid = p.sentence_ids()[0]
        p.review.split_token(sid, 0, 1)
        out = tmp_path / "out.conllu"
        write_corpus(p.review.export_corpus(), out)
        lines = out.read_text().splitlines()
        assert lines[1].split("\t")[9] == "NER=B-PER|X=1|SpaceAfter=No"
        assert lines[2].split("\t")[9] == "NER=I-PER|X=1"
        assert [line.split("\t")[6] for line in lines[1:4]] == ["0", "1", "1"]  # the second half hangs on the first
        check_conllu(out)


def test_conllu_ids_of_ranges_empty_nodes_and_deps():
    meta = {conllu_words.LINES_KEY: "2-3\tthat's\t_\t_\t_\t_\t_\t_\t_\t_\n3.1\tx\t_\t_\t_\t_\t_\t_\t3:dep|4:obj\t_"}
    split = conllu_words.Extras.of(meta)
    split.renumber(conllu_words.Ids(conllu_words.split_ids(2)))  # word 3 becomes 3 and 4
    split.store(split_meta := {})
    assert split_meta[conllu_words.LINES_KEY].split("\n") == [
        "2-4\tthat's\t_\t_\t_\t_\t_\t_\t_\t_",
        "4.1\tx\t_\t_\t_\t_\t_\t_\t3:dep|5:obj\t_",
    ]
    ids = conllu_words.Ids(conllu_words.merge_ids(1))
    assert ids.deps("3:nsubj|1:x|2:nsubj") == "2:nsubj|1:x"  # a repeated entry once
    assert [ids.ref(v) for v in ("0", "3", "1", "_", "4.1")] == ["0", "2", "1", "_", "3.1"]
    assert conllu_words.with_space_after("SpaceAfter=No|A=1", "B=2|SpaceAfter=No") == "A=1|SpaceAfter=No"
    assert conllu_words.with_space_after("SpaceAfter=No", "_") == "_"
    assert retokenize_conllu.split_misc("_") == "SpaceAfter=No"


def test_the_apps_action_is_logged_in_the_same_transaction(project):
    from tagtool.store.actions import Action

    sid = project.sentence_ids()[0]
    done = project.review.split_token(sid, 0, 4, action=Action("retokenize", 2, 10.0, 12.5, 2.5))
    undo = project.review.restore_tokens(
        sid, done.before, 0, expected=done.after, action=Action("undo", 1, 12.5, 13.0, 0.5, done.action_id)
    )
    kinds = [(a.kind, a.sentence_id, a.n_tokens, a.ref) for a in project.actions()]
    assert kinds == [("retokenize", sid, 2, None), ("undo", sid, 1, done.action_id)] and undo == project.actions()[1].id
    # an impossible change logs nothing
    with pytest.raises(RetokenizeError):
        project.review.merge_tokens(sid, 3, action=Action("retokenize", 1, 13.0, 14.0, 1.0))
    assert len(project.actions()) == 2
    # a review is logged with its own kind
    project.review.set(sid, Review(True, "x"), action=Action("review", 4, 14.0, 15.0, 1.0))
    assert project.actions()[-1].kind == "review"
