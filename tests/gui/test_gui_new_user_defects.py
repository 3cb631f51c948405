"""Defects seen when the app was tried as a new user would, each with its test."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeySequence, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox

from tagtool.gui import window_menus
from tests.gui.helpers import DATA_DIR, go_unlabeled, label_keys, stored


def _portable(sequences) -> list[str]:
    return [s.toString(QKeySequence.PortableText) for s in sequences]


def test_redo_key_redoes_where_the_platform_binds_redo_to_ctrl_shift_z(monkeypatch, open_window, chunk_project, qtbot):
    """Linux binds QKeySequence.Redo to Ctrl+Shift+Z: the extra Ctrl+Shift+Z made the key ambiguous (nothing
    happened). The offscreen platform binds Ctrl+Y first, so X11's list is put in place here."""
    offscreen = _portable(QKeySequence.keyBindings(QKeySequence.Redo))
    x11 = [QKeySequence("Ctrl+Shift+Z")]
    real = QKeySequence.keyBindings
    monkeypatch.setattr(QKeySequence, "keyBindings", lambda key: list(x11) if key == QKeySequence.Redo else real(key))
    window = open_window(chunk_project)
    keys = _portable(window.redo_action.shortcuts())
    assert keys == ["Ctrl+Shift+Z"], "each key once"
    monkeypatch.undo()
    assert _portable(window_menus.key_sequences(QKeySequence.Redo, "Ctrl+Shift+Z")) == list(
        dict.fromkeys([*offscreen, "Ctrl+Shift+Z"])
    ), "every platform binding kept, and Ctrl+Shift+Z"

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
    event = QWheelEvent(
        QPointF(5, 5),
        QPointF(widget.mapToGlobal(QPoint(5, 5))),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
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
    loss, epochs = form["loss"], form["max_iter"]

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
    from tagtool.gui.run_plan import plan_run
    from tagtool.gui.training import TrainingInputs
    from tagtool.learn import make_learner

    panel, loop = window.model_panel, window.model_loop
    loop.auto = False
    loop.run_started = time.perf_counter()
    inputs = TrainingInputs.from_project(window.session.project, cv_folds=3)
    full = make_learner("mv-perceptron", max_iter=30)
    plan = plan_run(inputs, make_learner("mv-perceptron", max_iter=3), full, {"max_iter": 3})
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
    assert "quick retrain (warm start, max_iter=3)" in first and rest[0].startswith("epoch 2/3")
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
        geometry = chips.candidate_geometry(
            QRectF(0, 0, width, chips.height), ann, TokenHint(candidate_confidence=confidence)
        )
        bars = {name: bar for name, seg, bar in geometry}
        for (a, seg_a, bar_a), (b, seg_b, bar_b) in itertools.combinations(geometry, 2):
            assert seg_a.contains(bar_a) and seg_b.contains(bar_b), "a bar stays under its candidate"
            if confidence[a] > confidence[b]:
                assert bars[a].width() >= bars[b].width(), (a, b, confidence)
            checked += 1
    assert checked > 200
    # the case seen: 45 % on the wide B-ADJP, 55 % on O
    ann = frozenset({"O", "B-ADJP"})
    geometry = chips.candidate_geometry(
        QRectF(0, 0, chips.chip_width("x", ann), chips.height),
        ann,
        TokenHint(candidate_confidence={"O": 0.55, "B-ADJP": 0.45}),
    )
    bars = {name: bar.width() for name, _, bar in geometry}
    assert bars["O"] > bars["B-ADJP"] > 0


def _project(path, labels, sentences):
    from tagtool.core import Corpus, Document, LabelSet, Sentence
    from tagtool.store.project import Project

    docs = [
        Document(
            "d",
            [
                Sentence(
                    tuple(f"w{i}" for i in range(len(tags))), tuple(frozenset([t]) if t else frozenset() for t in tags)
                )
                for tags in sentences
            ],
        )
    ]
    Project.create(path, Corpus(LabelSet(labels), docs)).close()
    return path


def test_label_keys_and_colours_are_the_same_in_every_project_with_the_labels(open_window, tmp_path):
    """O was 3 in one project and 2 in another: keys went by label frequency, colours by first-seen order."""
    ner = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"]
    first = _project(tmp_path / "one.tagproj", ner, [["B-PER", "I-PER", "O"], ["B-PER", "O", "O"], [None] * 4])
    other = ["B-MISC", "I-MISC", "B-ORG", "O", "I-ORG", "B-LOC", "I-LOC", "B-PER", "I-PER"]
    second = _project(tmp_path / "two.tagproj", other, [["B-ORG", "B-MISC", "B-ORG"], ["I-LOC", "O"], [None] * 4])
    styles = []
    for path in (first, second):
        window = open_window(path)
        style = window.session.style
        styles.append({n: (style.shortcut(n), style.color(n).name()) for n in ner})
        window.close()
    assert styles[0] == styles[1]
    keys = {n: k for n, (k, _) in styles[0].items()}
    assert keys == {
        "O": "1",
        "B-LOC": "2",
        "I-LOC": "Shift+2",
        "B-MISC": "3",
        "I-MISC": "Shift+3",
        "B-ORG": "4",
        "I-ORG": "Shift+4",
        "B-PER": "5",
        "I-PER": "Shift+5",
    }
    colours = {n: c for n, (_, c) in styles[0].items()}
    assert colours["B-PER"] == colours["I-PER"] != colours["B-ORG"] == colours["I-ORG"]


CHUNKS = ["O"] + [
    f"{p}-{k}" for k in ["NP", "VP", "PP", "ADVP", "ADJP", "SBAR", "PRT", "CONJP", "INTJ", "LST"] for p in "BI"
]  # the sample project's labels, in its first-seen order


def test_every_label_is_reachable_by_its_keys_and_the_keys_are_shown(open_window, tmp_path, qtbot):
    """Only O and the B- labels had digits: chunking's I- labels (and some types) had none."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent

    window = open_window(_project(tmp_path / "chunks.tagproj", CHUNKS, [[None] * (len(CHUNKS) + 2)]))
    window.model_loop.auto = False
    editor, session, style = window.editor, window.session, window.session.style
    for token, name in enumerate(CHUNKS):  # each label's key labels a token and moves on
        assert style.shortcut(name), f"{name} has no key"
        key, modifier = label_keys(window, name)
        assert editor.focus == token
        qtbot.keyClick(editor, key, modifier)
        assert session.annotations[token] == {name}, (name, style.shortcut(name))
    # Shift + a digit as X11 reports it on a US layout: the symbol, with the digit row's scan code (7: 16)
    qtbot.keyClick(editor, Qt.Key_Home)
    QApplication.sendEvent(editor, QKeyEvent(QEvent.KeyPress, Qt.Key_Ampersand, Qt.ShiftModifier, 16, 0x26, 0, "&"))
    assert session.annotations[0] == {"I-NP"}, "Shift+7 on the digit row is I-NP whatever the layout types"
    qtbot.keyClick(editor, Qt.Key_Left)
    qtbot.keyClick(editor, Qt.Key_7, Qt.ControlModifier | Qt.ShiftModifier)
    assert session.annotations[0] == set(), "Ctrl+Shift+7 toggles I-NP off the candidate set"
    _keys_are_shown(window, qtbot)

    from tagtool.gui.editor import RESERVED_KEYS
    from tagtool.store.colors import COMMAND_KEYS

    assert set(RESERVED_KEYS) <= COMMAND_KEYS, "default label keys avoid every command key of the editor"


def _keys_are_shown(window, qtbot):
    """The label picker's rows, the legend and Help › Keyboard shortcuts show every label's key."""
    from tagtool.gui.help import shortcuts_html

    editor, style = window.editor, window.session.style
    editor.open_picker()
    model = editor.picker.model
    rows = {model.item(r, 0).text(): model.item(r, 1).text() for r in range(model.rowCount())}
    assert rows == {name: style.shortcut(name) for name in CHUNKS} and rows["I-NP"] == "Shift+7"
    qtbot.keyClicks(editor.picker.filter, "s")  # the filter reads names, not the "Shift+" of the keys
    assert editor.picker.proxy.rowCount() == sum("s" in n.lower() for n in CHUNKS)
    editor.picker.hide()
    legend, help_text = window.legend.text.text(), shortcuts_html(style)
    for name in CHUNKS:
        assert f">{name}</td><td style='padding-left:6px'>{style.shortcut(name)}</td>" in legend
        assert f"<b>{style.shortcut(name)}</b></td><td>{name}</td>" in help_text
    assert "Shift+1 … 9" in help_text and "alphabetical" in help_text and "alphabetical" in legend


def test_labels_dialog_gives_back_the_default_keys_and_colours(window, qtbot):
    """A project made before keys followed the label set gets them in one click (Edit › Labels…)."""
    from tagtool.gui.labels_dialog import LabelsDialog
    from tagtool.store.colors import default_colors, default_shortcuts

    project = window.session.project
    names = project.labels.names
    defaults = list(zip(default_colors(names), default_shortcuts(names)))
    project.label_set.set_label_info("B-ADVP", shortcut=None)
    project.label_set.set_label_info("O", shortcut="3", color="#123456")  # as frequency once gave it
    project.label_set.set_label_info("B-NP", shortcut="V")
    window.session.labels_edited(False)
    dialog = LabelsDialog(window.session, window)
    qtbot.addWidget(dialog)
    assert [(i.color, i.shortcut) for i in project.label_set.label_infos()] != defaults
    assert window.session.style.shortcut("B-NP") == "v", "stored as the editor reads it"
    assert window.session.style.label_for_shortcut("V") == window.session.style.label_for_shortcut("v") == "B-NP"
    dialog.defaults.click()
    assert [(i.color, i.shortcut) for i in project.label_set.label_infos()] == defaults
    assert window.session.style.shortcut("O") == "1" and window.session.style.color("O").name() == "#e0e0e0"


def _menu_action(window, menu_text: str, text: str):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == menu_text)
    return next(a for a in menu.actions() if a.text() == text)


def test_reset_sample_project_gives_back_the_built_in_sample_after_asking(tmp_path, monkeypatch, open_window):
    """The sample project kept a new user's edits with no way back to the sample as shipped."""
    from PySide6.QtWidgets import QMessageBox

    from tagtool.store.sample import ensure_sample_project

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = ensure_sample_project()
    window = open_window(path)
    window.model_loop.auto = False
    session = window.session
    sid = session.project.sentence_ids()[60]
    shipped = stored(path, sid)
    session.go_to(sid)
    window.editor.apply_full("B-NP")
    session.project.label_set.set_label_info("O", color="#123456")
    edited = stored(path, sid)
    assert edited != shipped
    reset = _menu_action(window, "&Help", "&Reset the sample project…")
    asked = []

    def answer(button):
        monkeypatch.setattr(QMessageBox, "question", lambda *args: (asked.append(args[2]), button)[1])

    answer(QMessageBox.Cancel)
    reset.trigger()
    assert len(asked) == 1 and str(path) in asked[0] and "lost" in asked[0]
    assert stored(path, sid) == edited and window.session is session, "Cancel changes nothing"
    answer(QMessageBox.Reset)
    reset.trigger()
    assert stored(path, sid) == shipped
    assert window.session is not None and window.session is not session, "the fresh sample is open"
    assert window.session.project.path.resolve() == path.resolve()
    assert "50 full" in window.progress.text() and window.session.style.color("O").name() == "#e0e0e0"


def test_file_dialogs_start_in_the_project_folder_then_the_last_one_used(
    window, chunk_project, settings, tmp_path, monkeypatch
):
    """Export tagger (and the batch output) started in the working directory, wherever the app was launched."""
    from pathlib import Path
    from types import SimpleNamespace

    from PySide6.QtWidgets import QFileDialog

    from tagtool.gui.batch_dialog import BatchTagDialog

    elsewhere = tmp_path / "launched-from"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    project_folder = chunk_project.resolve().parent
    starts, answer = [], {"path": ""}

    def dialog(_parent, _title, start, *_filters):
        starts.append(Path(start))
        return answer["path"], ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog)
    window.model_loop.auto = False
    window.model_loop.result = SimpleNamespace(tagger=SimpleNamespace(learner="perceptron"))
    window.export_tagger()
    assert starts[0].resolve() == project_folder / "perceptron.tagger", "not the working directory"
    window._export()
    window._import()
    BatchTagDialog(True, "perceptron", window, window.folders()).browse_output()
    assert [s.resolve() for s in starts] == [
        project_folder / "perceptron.tagger",
        project_folder / "chunks.conll",
        project_folder,
        project_folder / "",
    ]
    window.model_loop.result = None

    # a folder the user chooses is where the next dialog of its kind starts, in the next session too
    from tagtool.gui.file_fields import Folders
    from tagtool.gui.settings import GuiSettings

    exports = tmp_path / "exports"
    exports.mkdir()
    answer["path"] = str(exports / "chunks.conll")
    window._export()
    assert (exports / "chunks.conll").is_file()
    answer["path"] = ""
    starts.clear()
    window._export()
    BatchTagDialog(True, "perceptron", window, Folders(GuiSettings(settings), chunk_project)).browse_output()
    assert starts == [exports / "chunks.conll", exports]
    assert Path(Folders(GuiSettings(settings), chunk_project).start("import")) == project_folder, "kinds apart"
