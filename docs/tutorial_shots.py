"""The tutorial's screenshots and its example output: ``python docs/tutorial_shots.py [OUTDIR]``.

Plays the tutorial (docs/tutorial.md) in the app, offscreen: a raw-text file
becomes a project in the New project dialog, a few sentences are labeled
(as the tutorial's keys would), the model trains and suggests, the tagger is
exported and the Batch-tag dialog is filled in; each step is saved as
``tutorial-*-light.png`` in OUTDIR (default docs/screenshots). Then the
exported tagger tags the second raw-text file with ``tagtool tag`` and the
first lines of what it wrote are printed, as the tutorial shows them.

The other screenshots come from ``python -m tools.screenshots``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from tagtool.gui.app import application
from tagtool.gui.batch_dialog import BatchTagDialog
from tagtool.gui.main_window import MainWindow
from tagtool.gui.new_project import NewProjectDialog
from tagtool.gui.style import apply_theme
from tagtool.store.project import Project

DOCS = Path(__file__).resolve().parent / "screenshots"
LABELS = "O B-ORG I-ORG B-PER I-PER B-LOC I-LOC"

#: Who, what and where of the invented news the tutorial labels: (person, organisation, place).
PEOPLE = [
    "Maria Lopez",
    "John Carter",
    "Aiko Tanaka",
    "Peter Novak",
    "Sara Lind",
    "Omar Haddad",
    "Lena Fischer",
    "David Okafor",
    "Anna Rossi",
    "Tom Becker",
]
ORGS = [
    "Acme Corp.",
    "Northwind Bank",
    "Blue River Energy",
    "Helios Motors",
    "Greenfield Foods",
    "Nova Telecom",
    "Orbit Airlines",
    "Vega Pharma",
    "Delta Shipping",
    "Atlas Mining",
]
PLACES = ["Ohio", "Berlin", "Osaka", "Prague", "Stockholm", "Cairo", "Hamburg", "Lagos", "Milan", "Denver"]
TEMPLATES = [
    "{p}, the chief executive of {o}, said on Monday that the company would open a plant in {l}.",
    "Shares of {o} rose 3.5 % after {p} announced a new contract in {l}.",
    "{p} met officials from {o} in {l} to discuss the plan.",
    "The office of {o} in {l} will be led by {p} from next year.",
    "Speaking in {l}, {p} said {o} had no plans to cut jobs.",
]


def news(first: int, count: int) -> str:
    """Paragraphs of invented news, three sentences each."""
    sentences = [
        TEMPLATES[i % len(TEMPLATES)].format(
            p=PEOPLE[i % 10], o=ORGS[(3 * i + i // 10) % 10], l=PLACES[(7 * i + i // 5) % 10]
        )
        for i in range(first, first + count)
    ]
    sentences = [s[0].upper() + s[1:] for s in sentences]
    return "\n\n".join(" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)) + "\n"


def gold(tokens: list[str]) -> dict[int, frozenset]:
    """The labels a careful annotator gives a sentence: each name in :data:`PEOPLE`, ... as a span."""
    labels = {t: frozenset({"O"}) for t in range(len(tokens))}
    for kind, names in (("PER", PEOPLE), ("ORG", ORGS), ("LOC", PLACES)):
        for name in names:
            words = name.split()
            for start in range(len(tokens) - len(words) + 1):
                if tokens[start : start + len(words)] == words:
                    for k in range(len(words)):
                        labels[start + k] = frozenset({("B-" if k == 0 else "I-") + kind})
    return labels


def _settle(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _save(widget, path: Path) -> Path:
    widget.grab().save(str(path), "PNG", 0)
    print(path)
    return path


def main(argv: list[str]) -> int:
    outdir = Path(argv[0]) if argv else DOCS
    outdir.mkdir(parents=True, exist_ok=True)
    app = application()
    apply_theme(app, "light")
    outdir = outdir.resolve()
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.chdir(folder)  # the dialogs show the files' names, not a temporary folder
        (folder / "news.txt").write_text(news(0, 60), encoding="utf-8")
        (folder / "more-news.txt").write_text(news(60, 9), encoding="utf-8")
        settings = QSettings(str(folder / "gui.ini"), QSettings.IniFormat)

        dialog = NewProjectDialog()
        dialog.corpus.setText("news.txt")
        dialog.labels.setText(LABELS)
        dialog.show()
        _settle(app)
        _save(dialog, outdir / "tutorial-new-project-light.png")
        dialog.accept()
        project = folder / dialog.created
        with Project.open(project) as opened:  # the tutorial's first sentences, labeled
            for sid in opened.sentence_ids()[:12]:
                opened.set_annotations(sid, gold(list(opened.sentence(sid).tokens)))

        window = MainWindow(settings)
        window.resize(1280, 760)
        window.open_project(project)
        window.show()
        window.model_loop.auto = False
        _settle(app)
        session = window.session
        ids = session.project.sentence_ids()
        session.go_to(ids[12])
        editor = window.editor
        labels = gold(list(editor.tokens))
        first = min(t for t, a in labels.items() if a != frozenset({"O"}))
        end = first
        while end + 1 in labels and next(iter(labels[end + 1])).startswith("I-"):
            end += 1
        editor.set_focus(first)
        editor.set_focus(end, extend=True)
        editor.apply_full(next(iter(labels[first])))
        _settle(app)
        _save(window, outdir / "tutorial-labeling-light.png")

        ended = []
        window.model_loop.finished.connect(ended.append)
        window.model_panel.select_learner("mv-perceptron", {})
        window.model_panel.train()
        deadline = time.monotonic() + 300
        while not (ended and not window.model_loop.busy):
            if time.monotonic() > deadline:
                raise TimeoutError("the model did not finish in time")
            app.processEvents()
            time.sleep(0.01)
        session.go_to(ids[20])
        editor.set_focus(0)
        _settle(app, 1.0)
        _save(window, outdir / "tutorial-suggestions-light.png")

        tagger = folder / "news.tagger"
        window.model_loop.tagger.save(tagger)
        batch = BatchTagDialog(True, window.model_loop.tagger.learner)
        batch.input.setText("more-news.txt")
        batch.output.setText("more-news.tagged.txt")
        batch.show()
        _settle(app)
        _save(batch, outdir / "tutorial-batch-tag-light.png")
        batch.close()
        window.model_loop.cancel()
        window.close()

        tagged = folder / "more-news.jsonl"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tagtool.cli",
                "tag",
                str(tagger),
                str(folder / "more-news.txt"),
                "--input-format",
                "text",
                "--format",
                "jsonl",
                "-o",
                str(tagged),
            ],
            check=True,
        )
        print(tagged.read_text(encoding="utf-8").splitlines()[0])
        column = folder / "more-news.tagged.txt"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tagtool.cli",
                "tag",
                str(tagger),
                str(folder / "more-news.txt"),
                "--input-format",
                "text",
                "-o",
                str(column),
            ],
            check=True,
        )
        print("\n".join(column.read_text(encoding="utf-8").splitlines()[:40]))
        os.chdir(here)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
