"""Key presses and mouse actions to label the same sentences: keyboard only, mouse and keys, mouse only.

An oracle who knows the gold spans labels the first ``--sentences`` sentences of
CoNLL-2000 chunking (``tests/data/conll2000_train_head.txt``) and, when
``../shared/data`` holds it, of CoNLL-2002 Spanish NER (``esp.train``), from
scratch (no model) in the real window (offscreen), three ways, each on a fresh copy of the project, every
gesture a real Qt event (``QTest`` key clicks; press, moves and release on the
chips: :mod:`tools.mouse_script`):

* **keys**: the labeled token's move-on puts the focus on the next segment (a
  chunk, or a run of ``O``); Shift+→ over it and its label key (a chunk's
  ``B-`` digit labels it ``B- I- I-``);
* **mouse + keys**: a drag over a segment of several tokens, then its label
  key; a one-token segment needs only the key (the focus is already there);
* **mouse**: as mouse + keys, with a click in the label palette for the key.

N opens the next sentence in every way.  After each sentence the annotations
must equal the gold labels.  What is counted: key presses (a chord such as
Shift+2 is one), drags (press, move, release: one action) and clicks.  Mouse
travel between gestures is not counted.

Usage::

    python benchmarks/mouse_vs_keys.py [--sentences 20] [--out benchmarks/results/mouse_vs_keys.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tools/ (the app's drivers)

from _results import write_keeping_analysis
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

from tagtool.core import Corpus
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tools import mouse_script

ROOT = Path(__file__).resolve().parents[1]
#: ``(name, file)``: chunking (short chunks, in the repository) and, when ../shared holds it, Spanish NER
#: (long runs of O between names).
CORPORA = (
    ("CoNLL-2000 chunking", ROOT / "tests" / "data" / "conll2000_train_head.txt"),
    ("CoNLL-2002 Spanish NER", ROOT.parent / "shared" / "data" / "conll2002-es" / "esp.train"),
)
WAYS = ("keys", "mouse + keys", "mouse")


def segments(labels) -> list[tuple[int, int, str]]:
    """``(first, last, label)``: each gold chunk, and each run of ``O`` (or of a label outside BIO)."""
    out = []
    for t, label in enumerate(labels):
        kind = label[2:] if label[:2] in ("B-", "I-") else None
        if (
            out
            and t == out[-1][1] + 1
            and ((kind is None and label == out[-1][2]) or (label.startswith("I-") and out[-1][2][2:] == kind))
        ):
            out[-1] = (out[-1][0], t, out[-1][2])
        else:
            out.append((t, t, label))
    return out


def gold_labels(sentence) -> list[str]:
    """A fully labeled sentence's label per token."""
    return [next(iter(a)) for a in sentence.annotations]


class Counter:
    """The gestures one way sends the window, counted."""

    def __init__(self, window: MainWindow):
        self.window, self.editor = window, window.editor
        self.keys = self.drags = self.clicks = 0

    def key(self, key, modifier=Qt.NoModifier) -> None:
        QTest.keyClick(self.editor, key, modifier)
        self.keys += 1

    def label_key(self, label: str) -> None:
        shortcut = self.window.session.style.shortcut(label)
        base = shortcut.removeprefix("Shift+")
        self.key(getattr(Qt, f"Key_{base.upper()}"), Qt.ShiftModifier if base != shortcut else Qt.NoModifier)

    def palette(self, label: str) -> None:
        palette = self.window.editor_panel.palette_bar
        if label in palette.buttons:
            mouse_script.click_button(palette.buttons[label])
        else:  # I-X: Shift+click on the type's button
            mouse_script.click_button(palette.buttons[f"B-{label[2:]}"], Qt.ShiftModifier)
        self.clicks += 1

    def drag(self, first: int, last: int) -> None:
        mouse_script.drag(self.editor, first, last)
        self.drags += 1

    def label(self, way: str, first: int, last: int, label: str) -> None:
        """One segment, the way ``way`` labels it (the focus is on ``first``)."""
        assert self.editor.focus == first, (self.editor.focus, first)
        if way == "keys":
            for _ in range(last - first):
                self.key(Qt.Key_Right, Qt.ShiftModifier)
        elif last > first:
            self.drag(first, last)
        (self.label_key if way != "mouse" else self.palette)(label)


def run(way: str, project: Path, gold, count: int, settings: QSettings) -> Counter:
    window = MainWindow(settings)
    window.resize(1200, 720)
    window.open_project(project)
    window.show()
    window.model_loop.auto = False  # no model: labeling from scratch
    session = window.session
    counter = Counter(window)
    ids = session.project.sentence_ids()
    session.go_to(ids[0])
    window.editor.setFocus()
    for i in range(count):
        if i:
            counter.key(Qt.Key_N)
        labels = gold_labels(gold[i])
        for first, last, label in segments(labels):
            counter.label(way, first, last, label)
        got = [next(iter(a)) if len(a) == 1 else None for a in session.annotations]
        if got != labels:
            raise SystemExit(f"{way}: sentence {i + 1} came out {got}, gold {labels}")
    window.close()
    return counter


def measure(name: str, path: Path, count: int, tmp: Path) -> list[str]:
    """The table rows of one corpus: each way on a fresh copy of a project of its first ``count`` sentences."""
    corpus = read_corpus(path)
    gold = list(corpus)[:count]
    n_tokens = sum(len(s) for s in gold)
    n_segments = sum(len(segments(gold_labels(s))) for s in gold)
    base = tmp / "base.tagproj"
    base.unlink(missing_ok=True)
    Project.create(
        base, Corpus.from_sentences([s.unlabeled() for s in gold], labels=corpus.labels), name="mouse"
    ).close()
    rows = []
    for way in WAYS:
        stem = f"{name}-{way}".replace(" ", "")
        copy = tmp / f"{stem}.tagproj"
        shutil.copy(base, copy)
        c = run(way, copy, gold, count, QSettings(str(tmp / f"{stem}.ini"), QSettings.IniFormat))
        total = c.keys + c.drags + c.clicks
        rows.append(
            f"| {name} ({n_tokens} tokens, {n_segments} segments) | {way} | {c.keys} | {c.drags} | "
            f"{c.clicks} | {total} | {total / n_tokens:.2f} |"
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "mouse_vs_keys.md")
    args = parser.parse_args(argv)
    application()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in CORPORA:
            if path.exists():
                rows += measure(name, path, args.sentences, Path(tmp))
            else:
                print(f"{path} not found: {name} left out", file=sys.stderr)
    lines = [
        "# Key presses and mouse actions to label the same sentences",
        "",
        f"`python benchmarks/mouse_vs_keys.py --sentences {args.sentences}`: the first {args.sentences} sentences "
        "of each corpus labeled from scratch to their gold labels in the window (offscreen), no model. "
        "Segments: the gold chunks and the runs of O. Every gesture a real Qt event; N between sentences "
        "(one key press in every way). Mouse travel is not counted.",
        "",
        "| corpus | way | key presses | drags | clicks | actions | per token |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        *rows,
    ]
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
