"""Faults in the app: full and read-only disks, damaged and newer project files, a learner that raises.

The disks are simulated with SQLite itself (``tests/store/sqlite_faults.py``:
the tests may run as root, which ignores file permissions). Throughout, the
screen must show what the file holds: a refused edit, undo or redo is
reported in a message and leaves the annotations as they were, and every
edit shown as saved is in the file when it is opened again.
"""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from PySide6.QtCore import Qt

from tagtool.learn import REGISTRY, Learner
from tagtool.store import schema
from tagtool.store.project import NewerSchemaWarning, Project
from tests.gui.helpers import LABELED, go_unlabeled, key_of, label_keys, stored
from tests.store.sqlite_faults import failing, fill_disk, free_disk, read_only_disk

TIMEOUT = 60_000


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def error_shown(window, title: str, *words: str) -> bool:
    box = window.error_box
    return (
        box is not None and box.isVisible() and box.windowTitle() == title and all(word in box.text() for word in words)
    )


def quiet(window):
    """No automatic training after edits: these tests look at saving only."""
    window.model_loop.auto = False
    return window


def reopened(path) -> dict:
    with Project.open(path, readonly=True) as project:
        return {sid: project.annotations(sid) for sid in project.sentence_ids()}


# ----------------------------------------------------------------------
# full disk


def test_full_disk_refuses_an_edit_visibly_and_every_saved_edit_survives(window, chunk_project, qtbot):
    session, editor = quiet(window).session, go_unlabeled(window)
    fill_disk(session.project)
    keys = [label_keys(window, "B-NP"), label_keys(window, "O"), label_keys(window, "I-NP")]
    shown, refused = {}, None
    for i in range(3000):
        sid, token, before = session.current_id, editor.focus, session.annotations
        steps = session.undo_stack.count()
        qtbot.keyClick(editor, *keys[i % 3])
        if window.error_box is not None and window.error_box.isVisible():
            refused = (sid, token, keys[i % 3])
            break
        shown[(sid, token)] = session.annotations[token]  # what the screen says is saved
        if editor.focus == token:  # the last token: on to the next sentence
            qtbot.keyClick(editor, Qt.Key_N)
    assert refused is not None and len(shown) > 20, "the disk never filled up"
    assert error_shown(window, "Not saved", "the disk is full", str(chunk_project), "left as they are")
    assert "Not saved" in window.statusBar().currentMessage()
    # the refused edit is not shown, not on the undo stack, not in the file
    assert session.annotations == before and editor.annotations == before
    assert session.undo_stack.count() == steps
    assert stored(chunk_project, sid) == before
    # once there is room again, the same key saves it
    window.error_box.close()
    free_disk(session.project)
    qtbot.keyClick(editor, *refused[2])
    assert not window.error_box.isVisible()
    shown[(sid, token)] = session.annotations[token]
    assert shown[(sid, token)] != before[token]
    window.close()
    state = reopened(chunk_project)
    for (sid, token), annotation in shown.items():
        assert state[sid][token] == annotation


def test_disk_failing_at_commit_keeps_the_screen_as_the_file(window, chunk_project, qtbot):
    session, editor = quiet(window).session, go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    sid, shown = session.current_id, session.annotations
    with failing(session.project, "COMMIT"):
        qtbot.keyClick(editor, *label_keys(window, "I-NP"))
        assert error_shown(window, "Not saved", "the disk is full")
        assert session.annotations == shown and editor.focus == 1  # the cursor did not move on
    window.error_box.close()
    qtbot.keyClick(editor, *label_keys(window, "I-NP"))  # the retry goes through
    assert session.annotations[:2] == ({"B-NP"}, {"I-NP"})
    assert stored(chunk_project, sid)[:2] == ({"B-NP"}, {"I-NP"})


# ----------------------------------------------------------------------
# read-only disk: edits, undo and redo


def test_read_only_disk_refuses_edit_undo_and_redo_and_they_can_be_retried(window, chunk_project, qtbot):
    session, editor = quiet(window).session, go_unlabeled(window)
    stack, project = session.undo_stack, session.project
    sid = session.current_id
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    qtbot.keyClick(editor, key_of(window, "O"))
    assert stack.index() == 2 and session.annotations[:2] == ({"B-NP"}, {"O"})

    with read_only_disk(project):
        qtbot.keyClick(editor, key_of(window, "B-VP"))
        assert error_shown(window, "Not saved", "read-only")
        assert session.annotations[2] == frozenset() and stack.index() == 2
        window.error_box.close()

        window.undo_action.trigger()
        assert error_shown(window, "Not saved", "read-only")
        qtbot.waitUntil(lambda: stack.index() == 2)  # stepped back: Undo can be tried again
        assert session.annotations[1] == {"O"} and stored(chunk_project, sid)[1] == {"O"}
        assert stack.canUndo()
        window.error_box.close()

    window.undo_action.trigger()  # the retry
    assert stack.index() == 1 and session.annotations[1] == frozenset()
    assert stored(chunk_project, sid)[1] == frozenset()

    with read_only_disk(project):
        window.redo_action.trigger()
        assert error_shown(window, "Not saved", "read-only")
        qtbot.waitUntil(lambda: stack.index() == 1)
        assert session.annotations[1] == frozenset() and stored(chunk_project, sid)[1] == frozenset()
        assert stack.canRedo()
        window.error_box.close()

    window.redo_action.trigger()
    assert stack.index() == 2 and session.annotations[:2] == ({"B-NP"}, {"O"})
    window.close()
    assert reopened(chunk_project)[sid][:3] == ({"B-NP"}, {"O"}, frozenset())


# ----------------------------------------------------------------------
# damaged and newer project files


def test_a_damaged_project_is_refused_with_a_message_and_left_alone(chunk_project, settings, qtbot, monkeypatch):
    from tagtool.gui import main_window

    data = bytearray(chunk_project.read_bytes())
    data[4096 * 3 : 4096 * 4] = bytes(4096)  # a zeroed page
    chunk_project.write_bytes(bytes(data))
    before = digest(chunk_project)
    warnings_shown = []
    monkeypatch.setattr(main_window.QMessageBox, "warning", lambda _parent, title, text: warnings_shown.append(text))
    window = main_window.MainWindow(settings)
    qtbot.addWidget(window)
    assert not window.open_project(chunk_project)
    assert len(warnings_shown) == 1 and "damaged" in warnings_shown[0] and str(chunk_project) in warnings_shown[0]
    assert window.session is None
    assert digest(chunk_project) == before
    assert sorted(p.name for p in chunk_project.parent.iterdir()) == ["chunks.tagproj"]


def test_a_project_from_a_newer_tagtool_opens_read_only_and_says_why(chunk_project, settings, qtbot):
    from tagtool.gui.main_window import MainWindow

    conn = sqlite3.connect(chunk_project)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.CURRENT_VERSION + 1),))
    conn.execute("CREATE TABLE future_things (x)")
    conn.commit()
    conn.close()
    before = digest(chunk_project)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    with pytest.warns(NewerSchemaWarning):
        assert window.open_project(chunk_project)
    window.show()
    assert "(read-only)" in window.windowTitle()
    assert error_shown(window, "Read-only project", "newer tagtool", "read-only", "edits cannot be saved")
    window.error_box.close()
    editor = go_unlabeled(quiet(window))
    shown = window.session.annotations
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    assert error_shown(window, "Not saved", "open read-only because a newer tagtool wrote it")
    assert window.session.annotations == shown and window.session.undo_stack.count() == 0
    window.close()
    assert digest(chunk_project) == before


# ----------------------------------------------------------------------
# a learner that raises inside the worker


class FlakyLearner(Learner):
    """Reports progress, then raises in the middle of its fit."""

    name = "flaky"
    uses = frozenset({"full", "partial", "none"})

    def _fit(self, snapshot, warm_start, monitor):
        monitor.report(0.3, "first pass")
        raise ValueError("the learner fell over halfway")


def test_a_learner_raising_in_an_automatic_retrain_leaves_the_app_usable(window, chunk_project, qtbot, monkeypatch):
    monkeypatch.setitem(REGISTRY, "flaky", "tests.gui.test_gui_faults:FlakyLearner")
    loop, panel, session = window.model_loop, window.model_panel, window.session
    panel.select_learner("perceptron", {"max_iter": 1})
    panel.folds.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    good = loop.result

    loop.set_learner("flaky", {})
    session.go_to(session.project.sentence_ids()[LABELED])  # J would follow the model's queue
    editor = window.editor
    editor.setFocus()
    with qtbot.waitSignal(loop.failed, timeout=TIMEOUT) as failed:
        qtbot.keyClick(editor, key_of(window, "B-NP"))  # the edit starts a retrain (debounced)
    assert "fell over halfway" in failed.args[0] and "ValueError" in failed.args[1]
    assert error_shown(window, "Training", "fell over halfway")
    assert not window.error_box.isModal()
    assert panel.status.text().startswith("Training failed") and panel.train_button.isEnabled()
    qtbot.waitUntil(lambda: not loop.busy)  # the run's ``finished`` follows its error
    assert loop.result is good  # the last good model still gives suggestions
    window.error_box.close()

    # editing goes on, saved as before, and a good learner trains again
    loop.auto = False
    sid = session.current_id
    qtbot.keyClick(editor, *label_keys(window, "I-NP"))
    assert stored(chunk_project, sid)[:2] == ({"B-NP"}, {"I-NP"})
    panel.select_learner("perceptron", {"max_iter": 1})
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    assert loop.result is not good and loop.result.learner == "perceptron"


# ----------------------------------------------------------------------
# another program changes the label set (file-safety case 4 of benchmarks/reliability.py)


def test_a_label_removed_by_another_program_is_refused_and_the_labels_reloaded(window, chunk_project, qtbot):
    import subprocess
    import sys

    session, editor = quiet(window).session, go_unlabeled(window)
    key = key_of(window, "B-PP")
    sid, before = session.current_id, session.annotations
    script = (
        f"from tagtool.store.project import Project\n"
        f"with Project.open({str(chunk_project)!r}) as p:\n    p.label_set.remove_label('B-PP', force=True)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    qtbot.keyClick(editor, key)
    assert error_shown(window, "Not saved", "B-PP", "label set was changed by another program")
    assert session.annotations == before and stored(chunk_project, sid) == before
    assert "B-PP" not in session.project.labels
    assert all(info.name != "B-PP" for info in session.project.label_set.label_infos())
    window.error_box.close()
    token = editor.focus
    qtbot.keyClick(editor, key_of(window, "B-NP"))  # the current labels save
    assert stored(chunk_project, sid)[token] == {"B-NP"}
    with Project.open(chunk_project, readonly=True) as project:
        assert "B-PP" not in {n for s in project.corpus().sentences for ann in s.annotations for n in ann}
