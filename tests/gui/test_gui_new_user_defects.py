"""Defects seen when the app was tried as a new user would (issue 13), each with its test."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeySequence, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox

from tagtool.gui import main_window
from tests.gui.helpers import DATA_DIR, go_unlabeled, stored


def _portable(sequences) -> list[str]:
    return [s.toString(QKeySequence.PortableText) for s in sequences]


def test_redo_key_redoes_where_the_platform_binds_redo_to_ctrl_shift_z(monkeypatch, open_window, chunk_project,
                                                                      qtbot):
    """Linux binds QKeySequence.Redo to Ctrl+Shift+Z: the extra Ctrl+Shift+Z made the key ambiguous (nothing
    happened). The offscreen platform binds Ctrl+Y first, so X11's list is put in place here."""
    offscreen = _portable(QKeySequence.keyBindings(QKeySequence.Redo))
    x11 = [QKeySequence("Ctrl+Shift+Z")]
    real = QKeySequence.keyBindings
    monkeypatch.setattr(QKeySequence, "keyBindings",
                        lambda key: list(x11) if key == QKeySequence.Redo else real(key))
    window = open_window(chunk_project)
    keys = _portable(window.redo_action.shortcuts())
    assert keys == ["Ctrl+Shift+Z"], "each key once"
    monkeypatch.undo()
    assert _portable(main_window.key_sequences(QKeySequence.Redo, "Ctrl+Shift+Z")) == list(
        dict.fromkeys([*offscreen, "Ctrl+Shift+Z"])), "every platform binding kept, and Ctrl+Shift+Z"

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # window shortcuts need the active window
    editor = go_unlabeled(window)
    sid = window.session.current_id
    before = stored(chunk_project, sid)
    editor.apply_full("B-NP")
    after = stored(chunk_project, sid)
    QTest.keyClick(editor, Qt.Key_Z, Qt.ControlModifier)
    assert stored(chunk_project, sid) == before
    QTest.keyClick(editor, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert stored(chunk_project, sid) == after, "the Redo key redoes"


def _wheel(widget, notches: int) -> None:
    """A mouse-wheel turn over ``widget`` (negative: towards the user, which lowers a value)."""
    event = QWheelEvent(QPointF(5, 5), QPointF(widget.mapToGlobal(QPoint(5, 5))), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_changes_model_settings_only_once_focused(window, qtbot):
    """cosvm's loss went from hamming to zero-one and its epochs down while the panel was scrolled."""
    window.model_loop.auto = False
    panel = window.model_panel
    panel.select_learner("cosvm", {})
    window.model_dock.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    form = panel.form.widgets
    loss, epochs = form["loss"], form["max_epochs"]
    def value(box):
        return box.currentIndex() if isinstance(box, QComboBox) else box.value()

    settings = [w for w in form.values() if isinstance(w, (QComboBox, QSpinBox))]
    others = [panel.retrain, panel.folds, panel.representations.mode, panel.learner]
    for boxes in (settings, others):  # the learner last: a new one rebuilds the form
        values = [value(b) for b in boxes]
        for box in boxes:
            _wheel(box, -1)
        assert [value(b) for b in boxes] == values, "an unfocused box ignores the wheel"
        assert all(box.focusPolicy() == Qt.StrongFocus for box in boxes), "the wheel does not focus them"
    assert panel.loop.learner_name == "cosvm" and panel.loop.params["loss"] == "hamming"

    loss.setFocus()
    qtbot.waitUntil(loss.hasFocus)
    _wheel(loss, -1)
    assert loss.currentData() == "zero-one", "a focused box takes the wheel"
    epochs.setFocus()
    qtbot.waitUntil(epochs.hasFocus)
    _wheel(epochs, -1)
    assert epochs.value() == 9, "cosvm's default 10, one notch down"
    assert panel.loop.params["loss"] == "zero-one"


def test_typing_a_corpus_path_from_slash_gives_a_hint_not_a_traceback(qtbot, tmp_path):
    """Typing "/" first in New project's corpus field raised ValueError (no file name to give a suffix)."""
    from tagtool.gui.new_project import NewProjectDialog

    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    corpus = tmp_path / "train.txt"
    corpus.write_text((DATA_DIR / "conll2000_train_head.txt").read_text(encoding="utf-8"), encoding="utf-8")
    dialog.project.setText("kept.tagproj")
    qtbot.keyClicks(dialog.corpus, "/")  # an exception in the slot fails the test (pytest-qt)
    assert dialog.form.isRowVisible(dialog.corpus_note) and "/ is a folder" in dialog.corpus_note.text()
    assert dialog.project.text() == "kept.tagproj", "no project name from a path without a file name"
    dialog.corpus.clear()
    for text in (".", "..", "~/", f"{tmp_path}/", f"{tmp_path}/tr"):
        dialog.corpus.clear()
        qtbot.keyClicks(dialog.corpus, text)
        dialog.corpus.editingFinished.emit()
        assert dialog.form.isRowVisible(dialog.corpus_note), text
    assert "No file" in dialog.corpus_note.text()
    qtbot.keyClicks(dialog.corpus, "ain.txt")
    assert not dialog.form.isRowVisible(dialog.corpus_note), "a file: no hint"
    assert dialog.project.text() == str(tmp_path / "train.tagproj")


def test_progress_says_which_phase_runs_with_its_own_total(window):
    """ "epoch 19/30" showed during the cross-validation after a quick retrain, read as the retrain's epochs."""
    from tagtool.gui.training import TrainingInputs, plan_run
    from tagtool.learn import make_learner

    panel, loop = window.model_panel, window.model_loop
    loop.auto = False
    loop.run_started = time.perf_counter()
    inputs = TrainingInputs.from_project(window.session.project, cv_folds=3)
    full = make_learner("mv-perceptron", epochs=30)
    plan = plan_run(inputs, make_learner("mv-perceptron", epochs=3), full, {"epochs": 3})
    assert len(plan.steps) == 5

    class Panel:  # the run's reports, as the worker sends them
        def progress(self, fraction, message):
            panel._progress(fraction, message)

    def shown():
        lines = panel.status.text().splitlines()
        return panel.bar.text(), panel.bar.value(), lines[0], lines[1:]

    plan.reporter(Panel(), 0)(2 / 3, "epoch 2/3")
    bar, value, first, rest = shown()
    assert bar.startswith("Quick retrain 67 %") and value == 670, "the step's own share, in whole percents"
    assert "quick retrain (warm start, epochs=3)" in first and rest[0].startswith("epoch 2/3")
    plan.reporter(Panel(), 1)(0.5)
    assert shown()[0].startswith("Suggestions 50 %")
    values = []
    for fold in range(3):
        for done in (0.0, 19 / 30, 1.0):
            plan.reporter(Panel(), 2 + fold)(done, f"epoch {round(30 * done)}/30")
            bar, value, first, rest = shown()
            assert bar.startswith("Cross-validation "), bar
            assert value == int(1000 * (fold + round(done, 2)) / 3), "the cross-validation's own total, over its folds"
            assert f"cross-validation, fold {fold + 1} of 3" in first and "suggestions are already updated" in first
            assert rest[0].startswith(f"epoch {round(30 * done)}/30"), "the epochs under the fold they belong to"
            values.append(value)
    assert values == sorted(values) and values[-1] == 1000


def test_a_higher_wdpsl_confidence_never_draws_a_shorter_bar(window):
    """A 45 % candidate with a long name drew a longer bar than a 55 % one with a short name."""
    import itertools
    import random

    from PySide6.QtCore import QRectF

    from tagtool.gui.chips import ChipPainter
    from tagtool.gui.hints import TokenHint

    editor = window.editor
    chips = ChipPainter(editor.font(), window.session.style, editor.palette())
    names = window.session.style.names
    rng = random.Random(13)
    checked = 0
    for _ in range(200):
        ann = frozenset(rng.sample(names, rng.randint(2, 4)))
        confidence = {n: rng.random() for n in ann}
        token = rng.choice(["a", "Commodities", "of"])
        width = chips.chip_width(token, ann)
        geometry = chips.candidate_geometry(QRectF(0, 0, width, chips.height), ann,
                                            TokenHint(candidate_confidence=confidence))
        bars = {name: bar for name, seg, bar in geometry}
        for (a, seg_a, bar_a), (b, seg_b, bar_b) in itertools.combinations(geometry, 2):
            assert seg_a.contains(bar_a) and seg_b.contains(bar_b), "a bar stays under its candidate"
            if confidence[a] > confidence[b]:
                assert bars[a].width() >= bars[b].width(), (a, b, confidence)
            checked += 1
    assert checked > 200
    # the case seen: 45 % on the wide B-ADJP, 55 % on O
    ann = frozenset({"O", "B-ADJP"})
    geometry = chips.candidate_geometry(QRectF(0, 0, chips.chip_width("x", ann), chips.height), ann,
                                        TokenHint(candidate_confidence={"O": 0.55, "B-ADJP": 0.45}))
    bars = {name: bar.width() for name, _, bar in geometry}
    assert bars["O"] > bars["B-ADJP"] > 0
