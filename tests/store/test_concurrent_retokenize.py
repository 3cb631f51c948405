"""Another program splits or merges a token while the project is read or written.

Each test makes the interleaving happen at a chosen instant: a second
connection retokenizes a sentence just before a write's transaction begins
(after every check made outside it), or between two queries of one read.
A write must then refuse (nothing stored), a read must see one moment
(before or after, never a mix), and the project is never left damaged.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from retokenizing_child import label_of
from team_samples import answered_team, dump, gold_corpus, unlabeled_project

from tagtool.cli.main import main
from tagtool.core import Corpus, Document, LabelSet, Sentence
from tagtool.errors import ProjectError
from tagtool.store import merge, transaction
from tagtool.store import sentence_rows as _rows
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.merge import AnnotatorFile, FileSentence
from tagtool.store.project import Project
from tagtool.store.token_checks import StaleTokensError

RETOKENIZER = Path(__file__).with_name("retokenizing_child.py")


def _cli(*argv) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, err.getvalue()


def _retokenize(path: Path, sid: int, ops: tuple[str, ...] = ("merge",)) -> None:
    """Split or merge tokens of sentence ``sid`` through a connection of its own (another program)."""
    with Project.open(path) as other:
        for op in ops:
            if op == "merge":
                other.review.merge_tokens(sid, 0, annotator="other")
            elif op == "merge-last":
                other.review.merge_tokens(sid, len(other.sentence(sid).tokens) - 2, annotator="other")
            else:  # split the first token of two characters or more
                t = next(i for i, w in enumerate(other.sentence(sid).tokens) if len(w) > 1)
                other.review.split_token(sid, t, 1, annotator="other")


def _before_next_write(monkeypatch, path: Path, sid: int, ops: tuple[str, ...] = ("merge",)) -> None:
    """Retokenize ``sid`` once, just before the next write transaction begins."""
    original, done = transaction.write, []

    @contextlib.contextmanager
    def write(conn, *args, **kwargs):
        if not done:
            done.append(True)
            _retokenize(path, sid, ops)
        with original(conn, *args, **kwargs) as c:
            yield c

    monkeypatch.setattr(transaction, "write", write)


def _between_reads(monkeypatch, path: Path, sid: int, after: bool, ops: tuple[str, ...] = ("split",)) -> None:
    """Retokenize ``sid`` once, just before (or just after) the next read of the annotations' rows."""
    original, done = _rows.annotations_by_sentence, []

    def annotations(conn, *args, **kwargs):
        if not after and not done:
            done.append(True)
            _retokenize(path, sid, ops)
        result = original(conn, *args, **kwargs)
        if after and not done:
            done.append(True)
            _retokenize(path, sid, ops)
        return result

    monkeypatch.setattr(_rows, "annotations_by_sentence", annotations)


def _sound(path: Path) -> None:
    """Every per-token row inside its sentence; the project reads and exports."""
    conn = sqlite3.connect(path)
    try:
        for table in ("annotations", "annotator_labels", "adjudicated"):
            outside = conn.execute(
                f"SELECT count(*) FROM {table} r JOIN sentences s ON s.id = r.sentence_id "
                "WHERE r.token < 0 OR r.token >= s.n_tokens"
            ).fetchone()[0]
            assert outside == 0, f"{outside} rows of {table} lie outside their sentence"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    with Project.open(path, readonly=True) as p:
        p.review.export_corpus()
        p.review.training_corpus()


def _state(path: Path) -> list[tuple]:
    with Project.open(path, readonly=True) as p:
        return [(s.tokens, s.annotations) for s in p.corpus()]


@pytest.fixture
def assigned(tmp_path):
    """A project, two annotators' files answered, and the first file's first sentence."""
    path = tmp_path / "p.tagproj"
    plan, files = answered_team(path, ["ana", "ben"], n_sentences=20, overlap=0.5)
    return path, list(files.values()), plan.sentences["ana"][0]


# ---------------------------------------------------------------------------
# writes: every check inside the write's transaction


def test_merge_refuses_a_sentence_retokenized_after_the_files_were_read(assigned, monkeypatch):
    path, files, sid = assigned
    before = dump(path)
    _before_next_write(monkeypatch, path, sid)
    code, err = _cli("merge", path, *files)
    assert code == 1 and "retokenized" in err, err
    _sound(path)
    after = dump(path)
    assert after["annotator_labels"] == before["annotator_labels"] == []


def test_merge_refuses_a_split_and_a_merge_that_keep_the_length(assigned, monkeypatch):
    path, files, sid = assigned
    _before_next_write(monkeypatch, path, sid, ("split", "merge-last"))
    code, err = _cli("merge", path, *files)
    assert code == 1 and "retokenized" in err, err
    _sound(path)


def test_an_answer_past_the_sentences_end_is_refused_and_nothing_stored(assigned):
    path, _, sid = assigned
    before = dump(path)
    with Project.open(path) as p:
        tokens = p.sentence(sid).tokens
        n = len(tokens)
        sentence = FileSentence(sid, merge.fingerprint(tokens), {0: frozenset({"O"}), n: frozenset({"O"})}, "here")
        crafted = AnnotatorFile(Path("x.tagproj"), "ana", p.identity(), (sentence,))
        before = dump(path)
        with pytest.raises(StaleTokensError, match=rf"{n} tokens; an answer for token index {n}"):
            p.team.merge_answers([crafted])
        with pytest.raises(StaleTokensError, match="token index -1"):
            p.team.merge_answers(
                [
                    AnnotatorFile(
                        crafted.path,
                        "ana",
                        crafted.source_project,
                        (FileSentence(sid, sentence.fingerprint, {-1: frozenset({"O"})}, "here"),),
                    )
                ]
            )
    assert dump(path) == before


def test_a_training_label_past_the_sentences_end_is_refused(tmp_path):
    path = tmp_path / "p.tagproj"
    project, _ = unlabeled_project(path, n_sentences=4)
    sid = project.sentence_ids()[0]
    n = len(project.sentence(sid).tokens)
    with pytest.raises(StaleTokensError, match=f"token index {n}"):
        with project._write() as conn:
            _rows.write_annotations(conn, [], [(sid, n, "O", "me", 0.0)], [])
    project.close()
    _sound(path)


def _annotator_conll(tmp_path: Path) -> tuple[Path, Path]:
    """An unlabeled project of :func:`gold_corpus` and a CoNLL file of its sentences with the gold labels."""
    gold = gold_corpus(12)
    path = tmp_path / "p.tagproj"
    Project.create(
        path,
        Corpus(gold.labels, tuple(Document(d.name, tuple(s.unlabeled() for s in d.sentences)) for d in gold.documents)),
    ).close()
    answers = tmp_path / "ana.conll"
    write_corpus(gold, answers)
    return path, answers


@pytest.mark.parametrize("ops", [("merge",), ("split", "merge-last")])
def test_import_as_annotator_refuses_a_sentence_retokenized_after_matching(tmp_path, monkeypatch, ops):
    path, answers = _annotator_conll(tmp_path)
    with Project.open(path) as p:
        sid = p.sentence_ids()[3]
    _before_next_write(monkeypatch, path, sid, ops)
    code, err = _cli("import", answers, "-p", path, "--as-annotator", "--annotator", "ana")
    assert code == 1 and "split or merged" in err and f"sentence {sid}" in err, err
    _sound(path)
    with Project.open(path) as p:
        assert p.team.answering_annotators() == []


def test_import_annotations_matches_inside_its_write(tmp_path, monkeypatch):
    path, answers = _annotator_conll(tmp_path)
    with Project.open(path) as p:
        sid = p.sentence_ids()[3]
    corpus = read_corpus(answers)
    _before_next_write(monkeypatch, path, sid)
    with Project.open(path) as p, pytest.raises(ProjectError, match="tokens differ"):
        p.imports.import_annotations(corpus)
    _sound(path)
    assert all(not any(anns) for _, anns in _state(path))


# ---------------------------------------------------------------------------
# reads: one snapshot


@pytest.fixture
def labeled(tmp_path):
    path = tmp_path / "gold.tagproj"
    Project.create(path, gold_corpus(12)).close()
    with Project.open(path) as p:
        sid = p.sentence_ids()[2]
    return path, sid


def _after_retokenizing(path: Path, sid: int, ops=("split",)) -> list[tuple]:
    copy = path.with_name("after.tagproj")
    copy.write_bytes(path.read_bytes())
    _retokenize(copy, sid, ops)
    return _state(copy)


def test_export_writes_one_moment_of_a_project_being_retokenized(labeled, monkeypatch):
    path, sid = labeled
    states = (_state(path), _after_retokenizing(path, sid))
    out = path.with_name("out.conll")
    _between_reads(monkeypatch, path, sid, after=True)  # its annotations read, its sentences not yet
    code, err = _cli("export", path, "-o", out)
    assert code == 0, err
    exported = [(s.tokens, s.annotations) for s in read_corpus(out)]
    assert exported in states


# Between the two queries of each: ``sentences`` reads the tokens first, ``corpus`` the annotations.
@pytest.mark.parametrize("reader, after", [("sentences", False), ("corpus", True), ("training_corpus", True)])
def test_corpus_and_sentences_read_one_moment(labeled, monkeypatch, reader, after):
    path, sid = labeled
    states = (_state(path), _after_retokenizing(path, sid))
    with Project.open(path, readonly=True) as p:
        read = {
            "sentences": lambda: p.sentences(p.sentence_ids()),
            "corpus": p.corpus,
            "training_corpus": p.review.training_corpus,
        }[reader]
        _between_reads(monkeypatch, path, sid, after)
        assert [(s.tokens, s.annotations) for s in read()] in states


def test_merge_reads_an_annotators_file_being_retokenized_as_one_moment(assigned, monkeypatch):
    path, files, _ = assigned
    with Project.open(path) as p:
        labels = p.labels
    expected = merge.read_file(files[0], labels)
    with Project.open(files[0]) as f:
        in_file = f.sentence_ids()[0]
    _between_reads(monkeypatch, files[0], in_file, after=False)
    assert merge.read_file(files[0], labels) == expected


# ---------------------------------------------------------------------------
# two processes


def _derivable_project(path: Path, rng: random.Random) -> None:
    """Labels (and two annotators' answers) that follow from their tokens' text (``label_of``)."""
    sentences = []
    for _ in range(30):
        tokens = []
        while len(tokens) < 38:
            alphabet = "abcdef" if rng.random() < 0.5 else "012345"
            tokens += ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4))) for _ in range(2)]
        sentences.append(Sentence(tuple(tokens), tuple(frozenset({label_of(w)}) for w in tokens)))
    with Project.create(path, Corpus(LabelSet(["LOW", "NUM"]), [Document("d", sentences)])) as p:
        p.team.add_answers(
            [
                (sid, "", {name: [{label_of(w)} for w in p.sentence(sid).tokens] for name in ("a", "b")})
                for sid in p.sentence_ids()
            ]
        )


def _misaligned_records(out: Path) -> int:
    bad = 0
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for labels in [record["labels"], *record["annotators"].values()]:
            bad += len(labels) != len(record["tokens"]) or labels != [label_of(w) for w in record["tokens"]]
    return bad


@pytest.mark.skipif(sys.platform == "win32", reason="kills the child with SIGKILL")
def test_exports_and_reads_against_a_retokenizing_process_see_aligned_labels(tmp_path):
    path, out = tmp_path / "p.tagproj", tmp_path / "out.jsonl"
    _derivable_project(path, random.Random(3))
    child = subprocess.Popen(
        [sys.executable, str(RETOKENIZER), str(path), "7"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    exports = 0
    try:
        assert child.stdout.readline().startswith("committed"), child.stderr.read()
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            code, err = _cli("export", path, "-o", out)
            assert code == 0, err
            assert _misaligned_records(out) == 0
            with Project.open(path, readonly=True) as p:
                assert all(s.annotations == tuple({label_of(w)} for w in s.tokens) for s in p.corpus())
            exports += 1
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        child.stderr.close()
    assert exports
    _sound(path)
