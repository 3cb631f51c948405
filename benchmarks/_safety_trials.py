"""Randomized trials of the file-safety cases of reliability.py: the counting and the shared inputs.

A case is a list of :class:`Trials`; each trial is a function that returns
a short outcome note (``"refused"``, ``"written"`` ...) or raises: an
:class:`AssertionError` (a broken promise) or any other exception is a
failed trial, printed at once with its arguments and counted.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import os
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
CONLL = DATA / "conll2000_train_head.txt"
#: How a child process finds this checkout's tagtool before the installed one.
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "store")])}


def need(condition: bool, message: str) -> None:
    """A promise of the case; a failed one fails the trial."""
    if not condition:
        raise AssertionError(message)


class Trials:
    """Outcomes of one kind of trial of one case."""

    def __init__(self, case: str, name: str):
        self.case, self.name = case, name
        self.notes: collections.Counter = collections.Counter()
        self.failures: list[str] = []
        self.seconds = 0.0

    @property
    def tried(self) -> int:
        return sum(self.notes.values()) + len(self.failures)

    def run(self, label: str, trial: Callable[[], str | None]) -> None:
        started = time.perf_counter()
        try:
            self.notes[trial() or "passed"] += 1
        except Exception as exc:  # noqa: BLE001 — every failure is counted and printed
            where = traceback.extract_tb(exc.__traceback__)[-1]
            text = (
                f"{self.case} / {self.name} / {label}: {type(exc).__name__}: {str(exc)[:400]} "
                f"({Path(where.filename).name}:{where.lineno})"
            )
            self.failures.append(text)
            print(f"FAILED trial: {text}", file=sys.stderr)
        finally:
            self.seconds += time.perf_counter() - started

    def row(self) -> str:
        notes = ", ".join(f"{k} {v}" for k, v in sorted(self.notes.items()))
        verdict = "✓" if not self.failures else "✗"
        return (
            f"| {self.case} | {self.name} | {self.tried} | {notes} | {len(self.failures)} {verdict} "
            f"| {self.seconds:.0f} s |"
        )


HEADER = [
    "| case | trial | trials | outcomes (all as promised) | failed trials (target 0) | time |",
    "|---|---|---|---|---|---|",
]


def report(all_trials: list[Trials]) -> list[str]:
    """The table, then every failed trial."""
    lines = [*HEADER, *[t.row() for t in all_trials], ""]
    failed = [f for t in all_trials for f in t.failures]
    if failed:
        lines += ["Failed trials:", "", *[f"- {f}" for f in failed], ""]
    return lines


def cli(*argv) -> tuple[int, str, str]:
    """``tagtool ARGV`` in this process: exit code, standard output, standard error."""
    from tagtool.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@contextlib.contextmanager
def cwd(folder: Path):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def one_line_error(code: int, err: str, *needles: str) -> None:
    """Exit status 1 and a single ``tagtool: error:`` line holding every needle."""
    need(code == 1, f"exit status {code}, expected 1: {err[-300:]!r}")
    need(err.startswith("tagtool: error: ") and err.count("\n") == 1, f"not one error line: {err[-300:]!r}")
    need(all(n in err for n in needles), f"{needles} not all in {err!r}")


def small_inputs(folder: Path) -> dict[str, Path]:
    """A training file, a tokens+POS input, a tagger file and a project, all small."""
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data.conll"
    data.write_bytes(b"\n\n".join(CONLL.read_bytes().split(b"\n\n")[:20]) + b"\n\n")
    text = folder / "in.conll"
    text.write_text("Confidence NN\nin IN\nthe DT\npound NN\n\nIt PRP\nrose VBD\n", encoding="utf-8")
    gold = read_corpus(data)
    model = folder / "m.tagger"
    train_tagger(
        Corpus.from_sentences(gold.sentences, labels=gold.labels), make_learner("perceptron", max_iter=2)
    ).save(model)
    project = folder / "P.tagproj"
    code, _, err = cli("import", data, "-p", project)
    need(code == 0, err)
    return {"data": data, "text": text, "model": model, "project": project}


def fresh_folder(base: Path, name: str) -> Path:
    path = base / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path
