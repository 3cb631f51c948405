"""Another process splits and merges tokens while ``tagtool merge`` and ``tagtool export`` run; merges killed.

Four kinds of rounds, each a randomized trial of real processes:

* **merge vs retokenization**: a fresh copy of a project with two
  annotators' answered files; a second process starts splitting and merging
  tokens of the project's sentences at a random instant of the merge (the
  merge runs ``tagtool merge`` in this process).  Afterwards the project
  must pass ``PRAGMA integrity_check``, open, export and give its training
  corpus (what ``tagtool train`` reads) without "is damaged", and every
  stored label (training labels and each annotator's) must be the one its
  token's text calls for.
* **export vs retokenization**: ``tagtool export`` to JSON Lines in a
  loop while the other process retokenizes the project without pause;
  each export must succeed, and each exported sentence's labels (and each
  annotator's) must match its exported tokens in number and alignment.
* **annotator's file read vs retokenization**: merge's reading of an
  annotator's file (:func:`tagtool.store.merge.read_file`) while the other
  process retokenizes that file: a read is refused (the file's tokens
  changed) or gives each answer at its token.
* **kills during merge**: a merge (in a forked process) killed with
  SIGKILL at a random instant of its run; the project must be exactly as
  before the merge or as after it (every table but times), and sound.

Every label is derivable from its token: a token of letters is ``LOW``, a
token of digits ``NUM``; the other process only splits tokens and merges
two neighbours of the same kind, so a right label stays right and a label
read or stored against the wrong tokenization shows.

Run alone: ``python benchmarks/_adv_concurrency.py [--scale X] [--seed S]``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.store.retokenizing_child import label_of  # noqa: E402  (the other process's rule)

#: Rounds of each kind at scale 1.0.
ROUNDS = {"merge": 100, "export": 100, "read": 100, "kill": 80}
#: Sentences and tokens per sentence of the projects.
N_SENTENCES, N_TOKENS = 60, 38
CHILD_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

#: The other process: for each ``PATH SEED DELAY`` line, split and merge tokens of PATH's
#: sentences (after DELAY seconds) until ``PATH.stop`` exists; prints ``started``, ``done N``.
RETOKENIZER = r"""
import os, random, sys, time
from tagtool.errors import ProjectError
from tagtool.store.project import Project
from tests.store.retokenizing_child import change_one

for line in sys.stdin:
    path, seed, delay = line.split()
    rng, done, refused = random.Random(int(seed)), 0, 0
    with Project.open(path) as p:
        ids = p.sentence_ids()
        print("started", flush=True)
        time.sleep(float(delay))
        while not os.path.exists(path + ".stop"):
            try:
                change_one(p, ids, rng, "retokenizer")
                done += 1
            except ProjectError:  # the lock held past the busy timeout: try again
                refused += 1
    print("done", done, refused, flush=True)
"""


def _corpus(rng: random.Random, labeled: bool):
    from tagtool.core import Corpus, Document, LabelSet, Sentence

    sentences = []
    for _ in range(N_SENTENCES):
        tokens = []
        while len(tokens) < N_TOKENS:
            alphabet = "abcdefghij" if rng.random() < 0.5 else "0123456789"
            tokens += ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4))) for _ in range(2)]
        anns = tuple(frozenset({label_of(w)}) for w in tokens) if labeled else ()
        sentences.append(Sentence(tuple(tokens), anns))
    return Corpus(LabelSet(["LOW", "NUM"]), [Document("d", sentences)])


def _cli(*argv) -> tuple[int, str]:
    from tagtool.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, err.getvalue()


class _Other:
    """The retokenizing process, one for all rounds."""

    def __init__(self):
        self.child = subprocess.Popen(
            [sys.executable, "-c", RETOKENIZER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=CHILD_ENV
        )
        self.changes = 0

    @contextlib.contextmanager
    def retokenizing(self, path: Path, seed: int, delay: float):
        stop = Path(f"{path}.stop")
        stop.unlink(missing_ok=True)
        self.child.stdin.write(f"{path} {seed} {delay}\n")
        self.child.stdin.flush()
        line = self.child.stdout.readline()
        if line.strip() != "started":
            raise RuntimeError(f"the retokenizing process: {line!r}")
        try:
            yield
        finally:
            stop.touch()
            done = self.child.stdout.readline().split()
            stop.unlink()
            self.changes += int(done[1]) if done[:1] == ["done"] else 0

    def close(self) -> None:
        self.child.stdin.close()
        self.child.wait(30)


# ---------------------------------------------------------------------------
# what a round checks


def _misaligned(path: Path) -> int:
    """Stored labels (training and annotators') outside their sentence or not their token's."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tokens = {sid: json.loads(t) for sid, t in conn.execute("SELECT id, tokens FROM sentences")}
        bad = 0
        for table in ("annotations", "annotator_labels"):
            for sid, t, text in conn.execute(f"SELECT sentence_id, token, labels FROM {table}"):
                words = tokens[sid]
                bad += not (0 <= t < len(words)) or text != label_of(words[t])
        return bad
    finally:
        conn.close()


def _damaged(path: Path, folder: Path) -> str | None:
    """Why the project is damaged (integrity, open, export, training corpus), or None."""
    from tagtool.errors import TagtoolError
    from tagtool.store.project import Project

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    if check != "ok":
        return f"integrity_check: {check}"
    try:
        with Project.open(path, readonly=True) as p:
            p.review.training_corpus()
    except TagtoolError as e:
        return f"open / training corpus: {e}"
    code, err = _cli("export", path, "-o", folder / "check.jsonl")
    return None if code == 0 else f"export: {err.strip()[:200]}"


def _dump(path: Path) -> tuple:
    """Every table a merge writes, times left out."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return tuple(
            sorted(conn.execute(sql))
            for sql in (
                "SELECT id, tokens, n_tokens, n_full, n_partial FROM sentences",
                "SELECT sentence_id, token, labels, annotator FROM annotations",
                "SELECT * FROM annotator_labels",
                "SELECT sentence_id, token, labels, annotator FROM adjudicated",
                "SELECT sentence_id, token, old, new, annotator FROM annotation_log",
            )
        )
    finally:
        conn.close()


class _Kind:
    """The outcomes of one kind of round."""

    def __init__(self, name: str):
        self.name, self.outcomes, self.failures = name, {}, []
        self.damaged = self.misaligned = self.rounds = 0
        self.seconds = 0.0

    def note(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def fail(self, why: str) -> None:
        self.failures.append(why)
        print(f"FAILED {self.name}: {why}", file=sys.stderr)

    def row(self) -> str:
        notes = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        verdict = "✓" if not self.failures else "✗"
        return (
            f"| {self.name} | {self.rounds} | {notes} | {self.damaged} | {self.misaligned} "
            f"| {len(self.failures)} {verdict} | {self.seconds:.0f} s |"
        )


# ---------------------------------------------------------------------------
# the rounds


def _team_template(folder: Path, rng: random.Random) -> tuple[Path, list[Path]]:
    """An unlabeled project, assigned to two annotators whose files are answered (label_of)."""
    from tagtool.store import assign
    from tagtool.store.project import Project

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "team.tagproj"
    with Project.create(path, _corpus(rng, labeled=False)) as project:
        plan = assign.plan(assign.open_sentences(project), ["ana", "ben"], 0.3, seed=rng.randrange(1000))
        files = list(assign.write_files(project, plan, folder / "files").values())
    for f in files:
        with Project.open(f) as p:
            for sid in p.sentence_ids():
                p.set_annotations(sid, {t: label_of(w) for t, w in enumerate(p.sentence(sid).tokens)}, "x")
    return path, files


def _copy(template: Path, files: list[Path], work: Path) -> tuple[Path, list[Path]]:
    if work.exists():
        shutil.rmtree(work)
    (work / "files").mkdir(parents=True)
    shutil.copy(template, work / template.name)
    copies = [work / "files" / f.name for f in files]
    for f, c in zip(files, copies):
        shutil.copy(f, c)
    return work / template.name, copies


def _merge_seconds(template: Path, files: list[Path], folder: Path) -> float:
    path, copies = _copy(template, files, folder / "timing")
    started = time.perf_counter()
    code, err = _cli("merge", path, *copies)
    if code != 0:
        raise RuntimeError(f"the template does not merge: {err}")
    return time.perf_counter() - started


def merge_rounds(kind: _Kind, other: _Other, template, files, folder, rng, n, seconds) -> None:
    for i in range(n):
        started = time.perf_counter()
        path, copies = _copy(template, files, folder / "merge")
        with other.retokenizing(path, rng.randrange(10**6), rng.uniform(0, 1.5 * seconds)):
            code, err = _cli("merge", path, *copies)
        if code == 0:
            kind.note("merged")
        elif "retokenized" in err:
            kind.note("refused: a sentence retokenized")
        else:
            kind.fail(f"round {i}: merge: {err.strip()[:300]}")
        _check_project(kind, path, folder, f"round {i}", hurt=code != 0 and "damaged" in err)
        kind.rounds += 1
        kind.seconds += time.perf_counter() - started


def _check_project(kind: _Kind, path: Path, folder: Path, where: str, hurt: bool = False) -> None:
    """Count the project damaged (``hurt``: a command said so already) and its misaligned labels."""
    why = _damaged(path, folder)
    bad = _misaligned(path)
    if why or hurt:
        kind.damaged += 1
    if why:
        kind.fail(f"{where}: damaged: {why}")
    if bad:
        kind.misaligned += bad
        kind.fail(f"{where}: {bad} misaligned labels")


def _labeled_project(folder: Path, rng: random.Random) -> Path:
    """A labeled project whose sentences also hold two annotators' answers (label_of)."""
    from tagtool.store.project import Project

    path = folder / "labeled.tagproj"
    with Project.create(path, _corpus(rng, labeled=True)) as p:
        given = [
            (sid, "", {name: [frozenset({label_of(w)}) for w in p.sentence(sid).tokens] for name in ("ana", "ben")})
            for sid in p.sentence_ids()
        ]
        p.team.add_answers(given)
    return path


def _export_misaligned(out: Path) -> int:
    bad = 0
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        tokens = record["tokens"]
        for labels in [record["labels"], *record.get("annotators", {}).values()]:
            bad += abs(len(labels) - len(tokens))
            bad += sum(label != label_of(w) for w, label in zip(tokens, labels))
    return bad


def export_rounds(kind: _Kind, other: _Other, folder: Path, rng: random.Random, n: int) -> None:
    path = _labeled_project(folder, rng)
    out = folder / "out.jsonl"
    with other.retokenizing(path, rng.randrange(10**6), 0.0):
        for i in range(n):
            started = time.perf_counter()
            code, err = _cli("export", path, "-o", out)
            if code != 0:
                kind.damaged += "damaged" in err
                kind.fail(f"export {i}: {err.strip()[:300]}")
            else:
                bad = _export_misaligned(out)
                kind.misaligned += bad
                if bad:
                    kind.fail(f"export {i}: {bad} misaligned labels")
                else:
                    kind.note("exported, aligned")
            kind.rounds += 1
            kind.seconds += time.perf_counter() - started
    _check_project(kind, path, folder, "after the exports")


def read_rounds(kind: _Kind, other: _Other, files: list[Path], folder: Path, rng: random.Random, n: int) -> None:
    from tagtool.core import LabelSet
    from tagtool.errors import TagtoolError
    from tagtool.store import merge
    from tagtool.store.project import Project

    labels = LabelSet(["LOW", "NUM"])
    with Project.open(files[0], readonly=True) as p:
        original = {int(s.meta[merge.SOURCE_KEY]): s.tokens for s in p.sentences(p.sentence_ids())}
    timing = time.perf_counter()
    merge.read_file(files[0], labels)
    seconds = time.perf_counter() - timing
    for i in range(n):
        started = time.perf_counter()
        work = folder / "read.tagproj"
        shutil.copy(files[0], work)
        # the other process's first change (some 5-10 ms after it starts) lands at a random
        # instant of the read, or before it (the read is then refused)
        with other.retokenizing(work, rng.randrange(10**6), 0.0):
            time.sleep(rng.uniform(0, 0.5 * seconds))
            try:
                read = merge.read_file(work, labels)
            except TagtoolError as e:
                read = None
                if "changed in the file" in str(e):
                    kind.note("refused: the file was retokenized")
                else:  # a file read between two of its states is called damaged
                    kind.damaged += "damaged" in str(e)
                    kind.fail(f"read {i}: {e}")
        if read is not None:
            bad = sum(
                t >= len(original[s.source_id]) or ann != {label_of(original[s.source_id][t])}
                for s in read.sentences
                for t, ann in s.answers.items()
            )
            bad += sum(len(s.answers) != len(original[s.source_id]) for s in read.sentences)
            kind.misaligned += bad
            kind.note("read, aligned" if not bad else "read, misaligned")
            if bad:
                kind.fail(f"read {i}: {bad} misaligned answers")
        kind.rounds += 1
        kind.seconds += time.perf_counter() - started


def kill_rounds(kind: _Kind, template: Path, files: list[Path], folder: Path, rng: random.Random, n: int) -> float:
    """The kills; returns how long the merge's own transaction took (the kills' window)."""
    from tagtool.store import merge
    from tagtool.store.project import Project

    before = _dump(template)
    path, copies = _copy(template, files, folder / "merged")
    with Project.open(path) as p:
        read = [merge.read_file(f, p.labels) for f in copies]
        timing = time.perf_counter()
        p.team.merge_answers(read)
        seconds = time.perf_counter() - timing
    after = _dump(path)
    for i in range(n):
        started = time.perf_counter()
        path, copies = _copy(template, files, folder / "kill")
        delay = rng.uniform(0, 1.2 * seconds)
        reported = _killed_merge(path, copies, delay)
        now = _dump(path)
        if now == before:
            kind.note("as before")
        elif now == after:
            kind.note("as after" + (" (merge returned)" if "m" in reported else ""))
        else:
            kind.fail(f"kill {i} at {delay:.3f} s: neither as before nor as after")
        if "m" in reported and now != after:
            kind.fail(f"kill {i}: the merge returned but is not all there")
        _check_project(kind, path, folder, f"kill {i}")
        kind.rounds += 1
        kind.seconds += time.perf_counter() - started
    return seconds


def _killed_merge(path: Path, files: list[Path], delay: float) -> str:
    """Merge in a forked process, SIGKILLed ``delay`` s after its files are read; what it reported."""
    from tagtool.store import merge
    from tagtool.store.project import Project

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the benchmark
        try:
            os.close(read_end)
            with Project.open(path) as p:
                read = [merge.read_file(f, p.labels) for f in files]
                os.write(write_end, b"r")
                p.team.merge_answers(read)
                os.write(write_end, b"m")
            time.sleep(600)
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        reported = os.read(read_end, 1).decode()
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        while chunk := os.read(read_end, 16):
            reported += chunk.decode()
    finally:
        os.close(read_end)
    return reported


# ---------------------------------------------------------------------------


def run(folder: Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Every kind of round in ``folder``; (markdown lines of the subsection, failed rounds)."""
    rng = random.Random(seed)
    counts = {k: max(2, round(v * scale)) for k, v in ROUNDS.items()}
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    template, files = _team_template(folder / "template", rng)
    seconds = _merge_seconds(template, files, folder)
    kinds = [
        _Kind("merge ∥ retokenization"),
        _Kind("export ∥ retokenization"),
        _Kind("annotator's file read ∥ its retokenization"),
        _Kind("merge killed (SIGKILL)"),
    ]
    other = _Other()
    try:
        merge_rounds(kinds[0], other, template, files, folder, rng, counts["merge"], seconds)
        export_rounds(kinds[1], other, folder, rng, counts["export"])
        read_rounds(kinds[2], other, files, folder, rng, counts["read"])
    finally:
        other.close()
    in_transaction = kill_rounds(kinds[3], template, files, folder, rng, counts["kill"])
    lines = [
        "### Concurrent retokenization against merge, export and file reads; merges killed",
        "",
        f"A second process split and merged tokens ({other.changes} changes in all) while this one ran "
        f"`tagtool merge` on a fresh copy of a {N_SENTENCES}-sentence, {N_TOKENS}-token-per-sentence "
        "project with two annotators' files (the retokenization starting at a random instant of the merge), "
        "`tagtool export` to JSON Lines in a loop, and merge's read of an annotator's file being retokenized; "
        f"then merges were killed with SIGKILL at a random instant of 0–1.2 times their transaction's "
        f"{in_transaction * 1000:.0f} ms after reading the files "
        f"(a merge with the CLI: {seconds * 1000:.0f} ms). Every "
        "label is derivable from its token's text (letters `LOW`, digits `NUM`), so a label stored or read "
        "against the wrong tokenization is counted as misaligned; a project is damaged when "
        "`PRAGMA integrity_check`, opening, its training corpus or `tagtool export` fails.",
        "",
        "| trial | rounds | outcomes | damaged projects (target 0) | misaligned labels (target 0) "
        "| failed rounds (target 0) | time |",
        "|---|---|---|---|---|---|---|",
        *[k.row() for k in kinds],
        "",
    ]
    failures = [f for k in kinds for f in k.failures]
    if failures:
        lines += ["Failed rounds:", "", *[f"- {f}" for f in failures[:20]], ""]
    return lines, len(failures)


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__, seed=0)
