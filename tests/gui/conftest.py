"""Fixtures of the GUI tests: a chunking project in a temporary folder and a window on it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings

from tagtool.core import Corpus
from tagtool.gui.main_window import MainWindow
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tests.gui.helpers import LABELED

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def chunk_project(tmp_path) -> Path:
    """CoNLL-2000 head (100 sentences): the first 3 labeled, the rest not."""
    gold = read_corpus(DATA / "conll2000_train_head.txt")  # POS as col1, the name files to tag give it
    corpus = Corpus.from_sentences(
        [s if i < LABELED else s.unlabeled() for i, s in enumerate(gold)], labels=gold.labels
    )
    path = tmp_path / "chunks.tagproj"
    Project.create(path, corpus, name="chunks").close()
    return path


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "gui.ini"), QSettings.IniFormat)


@pytest.fixture
def open_window(qtbot, settings):
    """``open_window(path)``: a shown main window on a project."""

    def make(path: Path) -> MainWindow:
        window = MainWindow(settings)
        qtbot.addWidget(window)
        assert window.open_project(path)
        window.show()
        qtbot.waitExposed(window)
        window.editor.setFocus()
        return window

    return make


@pytest.fixture
def window(open_window, chunk_project) -> MainWindow:
    return open_window(chunk_project)
