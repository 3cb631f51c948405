"""Render the main window's states to PNGs: ``python -m tools.screenshots [OUTDIR]``.

Works offscreen (``QT_QPA_PLATFORM=offscreen``); OUTDIR defaults to the
repository's ``docs/screenshots``.  The sample project is copied into a
temporary folder first, so the user's own copy is not edited.  States: the
sample project as it opens, a sentence with full and partial labels and a
selection (and with ``picker`` the label picker), a span selected by a mouse
drag with the label palette above it, the string-match suggestions of the
strings labeled so far; with ``model`` also the
model panel while training, suggestions with uncertainty shading, a newer
model's suggestions waiting for the open sentence, view
disagreement marks, the token questions (Ctrl+Shift+Q, Tab), WD-PSL candidate confidences (``wdpsl``, when the
learner is installed), the statistics panel and the knowledge a user brings
(:mod:`tools.knowledge_shots`); then the adjudication view (View › Adjudication) on answers of two
simulated annotators; with ``team`` the agreement panel on a demo team (:mod:`tools.agreement_shots`) —
each in a light and a dark palette.  The mouse span (and its palette) and the waiting
suggestions are shown at the window's default size and at 1024×700 too.  PNGs are written with the strongest
compression.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tagtool.gui import window_layout
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.gui.style import apply_theme
from tagtool.gui.window_layout import DEFAULT_SIZE
from tools import agreement_shots, knowledge_shots, mouse_script

#: The window's size for most states (the first start's default, ``window_layout.DEFAULT_SIZE``, for some).
SHOT_SIZE = (1280, 760)
#: The states shown as a first start shows them, at the default size and on a 1024×700 screen
#: (``<state>-<theme>.png`` and ``<state>-1024-<theme>.png``); ``palette`` is mouse-span's editor.
SMALL_SIZE = (1024, 700)
FIRST_START_SHOTS = frozenset({"mouse-span", "waiting"})


def _settle(app: QApplication) -> None:
    for _ in range(3):
        app.processEvents()


def _label_some(window: MainWindow) -> None:
    """A sentence with a span, a candidate set and a selection (by keys)."""
    editor = window.editor
    window.session.next_unfinished()
    labels = window.session.project.labels
    names = [n for n in ("B-NP", "I-NP", "B-VP", "B-PP") if n in labels] or list(labels)[:3]
    editor.set_focus(0)
    editor.set_focus(2, extend=True)
    editor.apply_full(names[0])  # a span: B-NP I-NP I-NP
    for name in names[:3]:  # a candidate set on the next token
        editor.toggle_candidate(name)
    editor.set_focus(editor.focus + 1)
    editor.toggle_candidate(names[-1])
    editor.toggle_candidate(names[2 % len(names)])
    editor.set_focus(editor.focus + 2)
    QTest.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    QTest.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)


def _mouse_span(window: MainWindow) -> None:
    """At the default window size, the next sentence: a span labeled by drag and palette click, another selected."""
    _first_start(window, DEFAULT_SIZE)
    window.session.step(1)
    QApplication.processEvents()
    editor, palette = window.editor, window.editor_panel.palette_bar
    last = len(editor.tokens) - 1
    mouse_script.drag(editor, min(1, last), min(2, last))  # a span labeled by a click in the palette …
    button = palette.buttons.get("B-NP") or next(iter(palette.buttons.values()))
    mouse_script.click_button(button)
    mouse_script.drag(editor, min(4, last), min(5, last))  # … and the next one selected


def _string_matches(window: MainWindow) -> None:
    """The first other sentence where a string labeled so far recurs: its string-match suggestions."""
    suggestions, session = window.model_loop.string_suggestions, window.session
    sid = next((s for s in session.sentence_ids if s != session.current_id and suggestions.matches(s)), None)
    if sid is not None:
        session.go_to(sid)
        window.editor.set_focus(suggestions.matches(sid)[0].start)


def _wait(app: QApplication, condition, seconds: float = 120.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the model did not finish in time")
        app.processEvents()
        time.sleep(0.01)


def _model_shots(app: QApplication, window: MainWindow, wdpsl: bool):
    """``(name, action)`` of the model states; each action prepares the window."""
    ids = window.session.project.sentence_ids()
    return [*_training_shots(app, window, ids), *_guidance_shots(app, window, ids, wdpsl), *_waiting_shot(app, window)]


def _training_shots(app: QApplication, window: MainWindow, ids):
    """A run in progress, then a finished one's suggestions on an unlabeled sentence."""
    loop, panel = window.model_loop, window.model_panel

    def training():
        window.model_dock.raise_()
        panel.select_learner("mv-perceptron", {"max_iter": 400})
        panel.folds.setValue(3)
        panel.train()
        _wait(app, lambda: panel.bar.value() > 150)

    def suggestions():
        loop.cancel()
        loop.runner.wait()
        panel.select_learner("mv-perceptron", {"max_iter": 5})
        panel.folds.setValue(3)
        ended = []
        loop.finished.connect(ended.append)
        panel.train()
        _wait(app, lambda: bool(ended) and not loop.busy)  # stored, and the panel shows the metrics
        unlabeled = [sid for sid in ids if loop.result.status.get(sid) == "none"]
        window.session.go_to(unlabeled[0])
        window.editor.set_focus(3)

    return [("training", training), ("suggestions", suggestions)]


def _waiting_shot(app: QApplication, window: MainWindow):
    """A newer model (another learner) arrives while a sentence is open: its suggestions wait behind the mark."""
    loop, panel = window.model_loop, window.model_panel

    def waiting():
        window.queue_menu.set_asking(False)
        window.stats_dock.hide()
        window.model_dock.show()
        window.legend_dock.show()
        window.legend_dock.raise_()
        unlabeled = [sid for sid in window.session.sentence_ids if loop.result.status.get(sid) == "none"]
        window.session.go_to(unlabeled[1])
        window.editor.set_focus(0)
        window.editor.accept_suggestions([0])  # an edit, then the newer model arrives
        ended = []
        loop.finished.connect(ended.append)
        panel.select_learner("hmm", {})
        panel.train()
        _wait(app, lambda: bool(ended) and not loop.busy)
        if not loop.hold.suggestions_waiting:
            print("waiting: the newer model suggests the same here; no mark to show", file=sys.stderr)
        window.editor.set_focus(2)

    return [("waiting", waiting)]


def _guidance_shots(app: QApplication, window: MainWindow, ids, wdpsl: bool):
    """What the model says: disagreement marks, token questions, WD-PSL's confidences, the statistics."""
    loop = window.model_loop

    def disagreement():
        best = max(
            ids,
            key=lambda sid: loop.guidance(sid).disagreement_share() if loop.result.status.get(sid) == "none" else -1,
        )
        window.mark_actions["uncertainty"].setChecked(False)
        window.session.go_to(best)

    def questions():
        window.mark_actions["uncertainty"].setChecked(True)
        window.queue_menu.set_asking(True)  # Ctrl+Shift+Q: the tokens the model asks about
        window.session.go_to(ids[0])
        window.editor.setFocus()
        QTest.keyClick(window.editor, Qt.Key_J)  # the queue's head, opened on its first question
        QTest.keyClick(window.editor, Qt.Key_Tab)

    def confidences():
        window.queue_menu.set_asking(False)
        window.mark_actions["uncertainty"].setChecked(True)
        _install_wdpsl(window)
        window.editor.set_focus(1)

    def statistics():
        window.model_dock.hide()  # the whole right column for the charts
        window.stats_dock.show()
        window.stats_dock.raise_()
        window.stats_panel.refresh()
        _wait(app, lambda: window.stats_panel.curve.settled)  # its plots are built over several turns

    shots = [("disagreement", disagreement), ("questions", questions)]
    from tagtool.learn import available_learners

    if wdpsl and "wdpsl" in available_learners():
        shots.append(("confidences", confidences))
    shots.append(("statistics", statistics))
    return shots


#: The second simulated annotator's confusions (a chunk's type read as another).
_CONFUSED = {"B-NP": "B-VP", "I-NP": "B-NP", "B-PP": "B-SBAR", "B-VP": "I-VP"}


def _adjudication(window: MainWindow) -> None:
    """Two annotators' answers on the first labeled sentences (``ben`` confuses every third chunk tag),
    then the adjudication view on the most disputed sentence, one token resolved."""
    session = window.session
    project = session.project
    given = []
    for sid in project.sentence_ids(status="full")[:12]:
        labels = project.annotations(sid)
        # as if the sentence had come to the team unlabeled (else its imported labels are a third voice)
        project.set_annotations(sid, {t: () for t in range(len(labels))}, "import")
        ben = [
            frozenset({_CONFUSED.get(next(iter(a)), next(iter(a)))}) if (sid + t) % 3 == 0 else a
            for t, a in enumerate(labels)
        ]
        given.append((sid, f"sentence {sid}", {"ana": labels, "ben": ben}))
    project.team.add_answers(given)
    session.reload()
    window.list_panel.set_status_filter("Annotators disagree")
    dock = window.adjudication
    dock.show()
    dock.view.move(1)  # Tab: the most disputed sentence's first disagreement
    QTest.keyClick(dock.view.table, Qt.Key_1)  # ana's answer; on to the next disagreement
    window.editor.set_focus(dock.view.token)
    window.statusBar().clearMessage()  # the waiting state's, about another sentence


def _install_wdpsl(window: MainWindow) -> None:
    """A small WD-PSL model on a few full and partial sentences (it is slow to train)."""
    from tagtool.gui.stored_models import run_guidance
    from tagtool.gui.training import TrainingInputs
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger

    session = window.session
    labels = session.project.labels
    inputs = TrainingInputs.from_project(session.project)
    full = [i for i, s in enumerate(inputs.sentences) if s.status == "full"][:6]
    target = next(i for i, s in enumerate(inputs.sentences) if s.status == "none")
    sentence = session.project.sentence(inputs.ids[target])
    gold_like = window.model_loop.guidance(inputs.ids[target]).suggestions
    partial = []
    for t, label in enumerate(gold_like):  # candidate sets around the model's guess
        kind = label[2:] if "-" in label else None
        others = [n for n in (f"B-{kind}", f"I-{kind}", "O", "B-NP", "I-NP") if n in labels and n != label]
        partial.append({label, others[0]} if t % 3 != 2 else {label})
    session.go_to(inputs.ids[target])
    session.edit({t: frozenset(a) for t, a in enumerate(partial)}, "candidate sets")
    inputs = TrainingInputs.from_project(session.project)
    keep = full + [target]
    corpus = [inputs.sentences[i] for i in keep]
    tagger = train_tagger(corpus, make_learner("wdpsl", max_iter=2, max_rounds=8, max_passes=3), unlabeled=None)

    class _State:
        def should_stop(self):
            return False

        def model_ready(self, _result):  # the first page of a big project: none here
            pass

    result = run_guidance(inputs, tagger, _State())
    window.model_loop.auto = False
    window.model_panel.select_learner("wdpsl", {"max_iter": 2, "max_rounds": 8, "max_passes": 3})
    window.model_loop._use(result, unstored=False)
    window.model_panel.show_metrics(result)
    window.model_panel.status.setText("Model ready (wdpsl, on 6 full and 1 partial sentences).")
    del sentence


DOCS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def _first_start(window: MainWindow, size: tuple[int, int]) -> None:
    """The window, its docks and the list/editor divider as a first start lays them out at ``size``."""
    window_layout.first_start(window, QSize(*size))
    _settle(QApplication.instance())
    window_layout.fit_splitter(window.splitter, window.list_panel, window.settings)
    _settle(QApplication.instance())


def _first_start_shots(window: MainWindow, name: str, theme: str, outdir: Path) -> list[Path]:
    """``name`` at the default size and at 1024×700 (with mouse-span, the editor's side of it too)."""
    written = []
    for size, tag in ((DEFAULT_SIZE, ""), (SMALL_SIZE, "-1024")):
        _first_start(window, size)
        written.append(_save(window, outdir / f"{name}{tag}-{theme}.png"))
        if name == "mouse-span":  # the editor's side of it: the label palette over the dragged span
            written.append(_save(window.editor_panel, outdir / f"palette{tag}-{theme}.png"))
    window.resize(*SHOT_SIZE)
    return written


def _save(widget, path: Path) -> Path:
    widget.grab().save(str(path), "PNG", 0)  # quality 0: the smallest file, losslessly
    return path


def render(
    outdir: Path, project: Path, model: bool = True, wdpsl: bool = True, picker: bool = False, team: bool = True
) -> list[Path]:
    app = application()
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    style, palette = app.style().name(), app.palette()
    with tempfile.TemporaryDirectory() as tmp:
        for theme in ("light", "dark"):
            # each theme's window as a first start (the light one's closing saves its layout)
            settings = QSettings(str(Path(tmp) / f"gui-{theme}.ini"), QSettings.IniFormat)
            copy = Path(tmp) / f"{theme}-{project.name}"
            shutil.copy(project, copy)
            apply_theme(app, theme)
            window = MainWindow(settings)
            window.resize(*SHOT_SIZE)
            window.open_project(copy)
            window.show()
            _settle(app)
            shots = {
                "sample": None,
                "partial": lambda: _label_some(window),
                "mouse-span": lambda: _mouse_span(window),
                "string-matches": lambda: _string_matches(window),
            }
            if picker:
                shots["picker"] = window.editor.open_picker
            window.model_loop.auto = False
            for name, action in shots.items():
                if action is not None:
                    action()
                _settle(app)
                if name in FIRST_START_SHOTS:
                    written += _first_start_shots(window, name, theme, outdir)
                    continue
                written.append(_save(window, outdir / f"{name}-{theme}.png"))
                if name == "picker":  # a popup is its own window
                    popup = window.editor.picker
                    popup.filter.setText("NP")
                    _settle(app)
                    written.append(_save(popup, outdir / f"picker-popup-{theme}.png"))
                    popup.hide()
            for name, action in [
                *(_model_shots(app, window, wdpsl) if model else ()),
                ("adjudication", lambda: _adjudication(window)),
            ]:
                action()
                _settle(app)
                if name in FIRST_START_SHOTS:
                    written += _first_start_shots(window, name, theme, outdir)
                    continue
                written.append(_save(window, outdir / f"{name}-{theme}.png"))
            if model:  # word vectors, a dictionary and patterns added, last: the other states show none
                written += knowledge_shots.render(app, window, theme, outdir, Path(tmp))
            window.model_loop.cancel()
            window.close()
            window.deleteLater()
            _settle(app)
            if team:
                written += agreement_shots.render(app, settings, Path(tmp), theme, outdir)
    app.setStyle(style)
    app.setPalette(palette)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, nargs="?", default=DOCS, help=f"default: {DOCS}")
    parser.add_argument("--project", type=Path, help="project file (default: the sample project)")
    parser.add_argument("--no-model", action="store_true", help="skip the states that train a model")
    parser.add_argument("--no-wdpsl", action="store_true", help="skip the WD-PSL confidences (slow to train)")
    parser.add_argument("--picker", action="store_true", help="also the label picker and its popup")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        project = args.project or _fresh_sample(Path(tmp))
        for path in render(args.outdir, project, model=not args.no_model, wdpsl=not args.no_wdpsl, picker=args.picker):
            print(path)
    return 0


def _fresh_sample(folder: Path) -> Path:
    """The sample project as a first start creates it (not the user's copy, which may be older)."""
    from tagtool.paths import SAMPLE_PROJECT
    from tagtool.store.project import Project
    from tagtool.store.sample import SAMPLE_NAME, sample_corpus

    path = folder / SAMPLE_PROJECT
    Project.create(path, sample_corpus(), name=SAMPLE_NAME).close()
    return path


if __name__ == "__main__":
    sys.exit(main())
