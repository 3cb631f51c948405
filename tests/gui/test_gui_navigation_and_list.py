"""Navigation (N/P/J), the sentence list's filters, search and paging."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tagtool.core import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.gui import sentence_list
from tagtool.gui.session import Session
from tagtool.store.project import Project
from tests.gui.helpers import LABELED, go_unlabeled, key_of


def test_n_p_move_in_document_order(window, qtbot):
    session, editor = window.session, window.editor
    ids = session.project.sentence_ids()
    assert session.current_id == ids[0]
    qtbot.keyClick(editor, Qt.Key_N)
    qtbot.keyClick(editor, Qt.Key_N)
    assert session.current_id == ids[2]
    qtbot.keyClick(editor, Qt.Key_P)
    assert session.current_id == ids[1]
    qtbot.keyClick(editor, Qt.Key_P)
    qtbot.keyClick(editor, Qt.Key_P)  # stays at the first
    assert session.current_id == ids[0]
    assert window.list_panel.table.currentIndex().row() == 0


def test_j_skips_fully_labeled_sentences_and_wraps(window, qtbot):
    session, editor = window.session, window.editor
    ids = session.project.sentence_ids()
    editor = go_unlabeled(window)
    assert session.current_id == ids[LABELED]
    # label the whole sentence: J then goes to the next one
    editor.set_focus(0)
    editor.set_focus(len(editor.tokens) - 1, extend=True)
    qtbot.keyClick(editor, key_of(window, "O"))
    qtbot.keyClick(editor, Qt.Key_J)
    assert session.current_id == ids[LABELED + 1]
    session.go_to(ids[-1])
    qtbot.keyClick(editor, Qt.Key_J)  # wraps to the first unfinished
    assert session.current_id == ids[LABELED + 1]


def test_status_filter_and_search(window, qtbot):
    panel, project = window.list_panel, window.session.project
    model = panel.model
    assert model.rowCount() == project.n_sentences
    panel.set_status_filter("Fully labeled")
    assert model.rowCount() == LABELED
    assert all("full" in model.index(r, 1).data() for r in range(model.rowCount()))
    panel.set_status_filter("Unlabeled")
    assert model.rowCount() == project.n_sentences - LABELED
    panel.set_status_filter("All sentences")
    qtbot.keyClicks(panel.search, "pound")
    qtbot.waitUntil(lambda: model.rowCount() < project.n_sentences)
    assert model.rowCount() == project.listing.count_sentences(search="pound") > 0
    sid = model.index(0, 0).data(Qt.UserRole)
    assert "pound" in " ".join(project.sentence(sid).tokens)
    panel.table.selectRow(0)
    assert window.session.current_id == sid


def test_edited_row_updates_in_place_and_filters_on_refresh(window, qtbot):
    panel = window.list_panel
    panel.set_status_filter("Unlabeled")
    n = panel.model.rowCount()
    editor = go_unlabeled(window)
    sid = window.session.current_id
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    row = panel.model.row_of(sid)
    assert row is not None and "partial" in panel.model.index(row, 1).data()
    panel.apply_filter()
    assert panel.model.rowCount() == n - 1


def test_list_model_pages_lazily(tmp_path, qtbot):
    sentences = [Sentence([f"w{i}", "x", "y"]) for i in range(5000)]
    corpus = Corpus.from_sentences(sentences, labels=LabelSet(["A", "B"]))
    with Project.create(tmp_path / "big.tagproj", corpus) as project:
        session = Session(project)
        model = sentence_list.SentenceListModel(session)
        assert model.rowCount() == 5000
        assert model.index(4999, 4).data().startswith("w4999")
        assert model.index(0, 0).data() == 1
        assert len(model._pages) == 2
        for row in range(0, 5000, sentence_list.PAGE):
            model.index(row, 0).data()
        assert len(model._pages) <= sentence_list.MAX_PAGES
        assert model.index(3, 3).data() is None  # no model, no informativeness
        model.set_scores({project.sentence_ids()[3]: 0.5})
        assert model.index(3, 3).data() == "0.50"
