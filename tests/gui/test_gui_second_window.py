"""A second window on a project another window has open opens it read-only and says so; the first keeps
editing, the command line keeps writing, and once the first closes the project opens for editing again."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tagtool.gui.main_window import MainWindow
from tagtool.store import window_lock
from tagtool.store.project import Project
from tests.gui.helpers import LABELED, key_of, stored

pytestmark = pytest.mark.skipif(window_lock.fcntl is None, reason="no flock here")


def _second(qtbot, settings, path) -> MainWindow:
    window = MainWindow(settings)
    qtbot.addWidget(window)
    assert window.open_project(path)
    window.model_loop.auto = False
    window.show()
    qtbot.waitExposed(window)
    return window


def test_a_second_window_opens_read_only_with_a_banner_and_saves_nothing(window, qtbot, settings, chunk_project):
    window.model_loop.auto = False
    second = _second(qtbot, settings, chunk_project)
    assert second.session.project.readonly
    assert "read-only" in second.windowTitle()
    assert second.readonly_banner.isVisible() and "another window" in second.readonly_banner.text()
    assert str(__import__("os").getpid()) in second.error_box.text()
    # The first window still edits; the second one's key press changes nothing on disk.
    sid = second.session.project.sentence_ids()[LABELED + 2]
    before = stored(chunk_project, sid)
    for w in (second, window):
        w.session.go_to(sid)
        w.editor.setFocus()
    qtbot.keyClick(second.editor, key_of(second, "O"))
    assert stored(chunk_project, sid) == before
    assert not window.session.project.readonly and not window.readonly_banner.isVisible()
    qtbot.keyClick(window.editor, key_of(window, "O"))
    assert stored(chunk_project, sid) != before


def test_the_first_window_closing_frees_the_project(window, qtbot, settings, chunk_project):
    window.close()
    again = _second(qtbot, settings, chunk_project)
    assert not again.session.project.readonly and not again.readonly_banner.isVisible()


def test_opening_the_same_project_again_in_one_window_stays_editable(window, chunk_project):
    assert window.open_project(chunk_project)
    assert not window.session.project.readonly


def test_the_command_line_still_writes_beside_a_window(window, chunk_project, tmp_path):
    window.model_loop.auto = False
    n = window.session.project.n_sentences
    more = tmp_path / "more.txt"  # new text: not a duplicate of the project's documents
    more.write_text("Zebras NNS B-NP\nrun VBP B-VP\n. . O\n\nOkapis NNS B-NP\nhide VBP B-VP\n. . O\n\n")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tagtool.cli.main import main; sys.exit(main())",
            "import",
            str(more),
            "-p",
            str(chunk_project),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    with Project.open(chunk_project, readonly=True) as project:
        assert project.n_sentences == n + 2
