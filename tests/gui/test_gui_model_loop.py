"""The learner in the loop: background runs, suggestions, guidance, export and batch-tag."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from tagtool.core.annotation import annotation_status
from tagtool.gui.batch_dialog import BatchTagDialog
from tagtool.learn import REGISTRY, Learner
from tagtool.tagger.model import load_tagger
from tests.gui.helpers import DATA_DIR, LABELED

TIMEOUT = 60_000


def go_unlabeled(window):
    """The first sentence that is not labeled (document order, whatever the queue)."""
    window.session.go_to(window.session.project.sentence_ids()[LABELED])
    window.editor.setFocus()
    return window.editor


def train(window, qtbot, learner="mv-perceptron", folds=0, **params):
    """Train through the panel (Train now) and wait for the run to end."""
    panel, loop = window.model_panel, window.model_loop
    panel.select_learner(learner, {"max_iter": 2, **params} if "perceptron" in learner else params)
    panel.folds.setValue(folds)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    return loop.result


def test_background_run_brings_suggestions_accepted_by_enter_and_space(window, qtbot):
    editor = go_unlabeled(window)
    assert all(h.source for h in editor.hints.tokens.values())  # before a model: string matches only
    result = train(window, qtbot)
    assert window.model_loop.tagger is result.tagger
    sid = window.session.current_id
    hints = editor.hints
    assert hints.sentence_id == sid
    n = len(editor.tokens)
    model = [hints.get(t).model_suggestion or hints.get(t).suggestion for t in range(n)]
    assert model == list(result.guidance[sid].suggestions)  # where a string match shows another, the tooltip has it
    shown = [hints.get(t).suggestion for t in range(n)]
    assert all(0.0 <= hints.get(t).uncertainty <= 1.0 for t in range(n))
    assert "Model suggests" in window.legend.text.text() or "suggestion" in window.legend.text.text()
    # Space: one token, then the focus moves on
    editor.set_focus(0)
    QTest.keyClick(editor, Qt.Key_Space)
    assert window.session.annotations[0] == {hints.get(0).suggestion}
    assert editor.focus == 1
    # Enter: the rest of the sentence in one undo step, then the queue's next sentence opens
    QTest.keyClick(editor, Qt.Key_Return)
    assert window.session.current_id != sid
    done = window.session.project.annotations(sid)
    assert annotation_status(done) == "full"
    assert [next(iter(a)) for a in done] == shown
    window.undo_action.trigger()  # undo shows the sentence it changes
    assert window.session.current_id == sid
    assert window.session.annotations[1] == frozenset() and len(window.session.annotations[0]) == 1
    window.model_loop.cancel()  # the edits scheduled an automatic run


def test_disagreement_marks_exactly_where_the_views_differ(window, qtbot):
    result = train(window, qtbot)
    session, editor = window.session, window.editor
    marked = 0
    for sid in session.project.sentence_ids()[LABELED : LABELED + 40]:
        session.go_to(sid)
        ((v0, v1),) = result.tagger.disagreement([session.sentence])
        expected = {t for t in range(len(v0)) if v0[t] != v1[t]}
        shown = {t for t, h in editor.hints.tokens.items() if h.disagreement}
        assert shown == expected, sid
        for t in shown:
            assert editor.hints.get(t).disagreement == (v0[t], v1[t])
        marked += len(shown)
    assert marked > 0, "two views trained for 2 epochs disagree somewhere"
    # the View toggle hides them
    window.mark_actions["disagreement"].setChecked(False)
    assert not any(h.disagreement for h in editor.hints.tokens.values())


def test_info_column_sorts_and_j_follows_the_queue(window, qtbot):
    result = train(window, qtbot)
    panel = window.list_panel
    panel.sort_by_informativeness()
    model = panel.model
    first = model.data(model.index(0, 0), Qt.UserRole)
    queue = window.session.queue
    assert first == queue[0]
    scores = window.model_loop.questions.plan.scores  # the queue strategy's (Go › Queue strategy)
    top = max(scores[s] for s, st in result.status.items() if st != "full")
    assert scores[first] == pytest.approx(top)
    assert float(model.data(model.index(0, 3))) >= float(model.data(model.index(1, 3)))
    window.session.go_to(window.session.project.sentence_ids()[0])
    QTest.keyClick(window.editor, Qt.Key_J)
    assert window.session.current_id == queue[0]
    QTest.keyClick(window.editor, Qt.Key_J)
    assert window.session.current_id == queue[1]


def test_automatic_retrain_after_an_edit(window, qtbot):
    loop = window.model_loop
    loop.set_learner("perceptron", {"max_iter": 1})
    loop.cv_folds = 0
    loop._debounce.setInterval(50)
    editor = go_unlabeled(window)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("B-NP")
    assert loop.result.metrics["labeled_tokens"] == window.session.project.listing.annotation_counts()["full"]


def test_cancel_a_run(window, qtbot):
    loop, panel = window.model_loop, window.model_panel
    panel.select_learner("mv-perceptron", {"max_iter": 500})
    panel.folds.setValue(0)
    with qtbot.waitSignal(loop.progress, timeout=TIMEOUT):
        panel.train_button.click()
    assert panel.cancel_button.isEnabled()
    with qtbot.waitSignal(loop.cancelled, timeout=1000):
        window.cancel_action.trigger()
    assert loop.runner.wait(10_000), "the worker stops within seconds"
    assert loop.result is None and "cancelled" in panel.status.text()


class BrokenLearner(Learner):
    name = "broken"
    uses = frozenset({"full", "partial", "none"})

    def __init__(self, when: str = "always"):
        self.when = when

    def _fit(self, snapshot, warm_start, monitor):
        raise RuntimeError("the learner fell over")


def test_a_learner_that_raises_shows_an_error_and_the_app_stays_usable(window, qtbot, monkeypatch):
    monkeypatch.setitem(REGISTRY, "broken", "tests.gui.test_gui_model_loop:BrokenLearner")
    loop = window.model_loop
    loop.set_learner("broken", {})
    with qtbot.waitSignal(loop.failed, timeout=TIMEOUT) as failed:
        loop.train()
    assert "fell over" in failed.args[0]
    assert window.error_box is not None and window.error_box.isVisible()
    assert "fell over" in window.error_box.text()
    assert not window.error_box.isModal()
    window.error_box.close()
    editor = go_unlabeled(window)
    QTest.keyClick(editor, Qt.Key_1)  # labeling still works
    assert len(window.session.annotations[0]) == 1
    loop.cancel()
    result = train(window, qtbot, learner="perceptron", max_iter=1)
    assert result.learner == "perceptron"


def test_export_tagger_then_batch_tag_through_the_menu(window, qtbot, monkeypatch, tmp_path):
    result = train(window, qtbot, learner="perceptron", max_iter=2)
    tagger_path = tmp_path / "model.tagger"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tagger_path), ""))
    window.export_tagger_action.trigger()
    exported = load_tagger(tagger_path)
    assert exported.learner == "perceptron"

    source = tmp_path / "to_tag.txt"
    source.write_text((DATA_DIR / "conll2000_train_head.txt").read_text().split("\n\n", 5)[5] + "\n")
    output = tmp_path / "tagged.conll"

    def open_file(parent, caption, *args, **kwargs):
        return (str(tagger_path) if "Tagger" in caption else str(source)), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", open_file)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(output), ""))

    def run_dialog(dialog):
        dialog.browse_input()
        dialog.browse_tagger()  # the exported tagger, not the current model
        dialog.browse_output()
        dialog.format.setCurrentIndex(dialog.format.findData("conll"))
        return 1

    monkeypatch.setattr(BatchTagDialog, "exec", run_dialog)
    with qtbot.waitSignal(window.batch.done, timeout=TIMEOUT) as done:
        window.batch_action.trigger()
    assert done.args[0].n_sentences == 95
    from tagtool.store.formats import read_corpus

    written = read_corpus(output, label_column=-1)
    plain = read_corpus(source, label_column=None)
    assert [[next(iter(a)) for a in s.annotations] for s in written] == exported.tag(plain.sentences)
    assert exported.tag(plain.sentences) == result.tagger.tag(plain.sentences)


def test_reopen_loads_the_last_model(open_window, chunk_project, qtbot):
    window = open_window(chunk_project)
    result = train(window, qtbot, learner="perceptron", folds=2, max_iter=2)
    assert result.metrics["cv_folds"] == 2
    records = window.session.project.stored.models()
    assert records and records[-1].learner == "perceptron" and records[-1].metrics["cv_folds"] == 2
    window.close()

    again = open_window(chunk_project)
    loop = again.model_loop
    assert loop.learner_name == "perceptron"  # known at once; the tagger is decoded in the worker
    qtbot.waitUntil(lambda: loop.result is not None and bool(loop.result.guidance), timeout=TIMEOUT)
    assert loop.result.tagger.labels == result.tagger.labels
    assert loop.learner_name == "perceptron"
    assert again.model_panel.learner.currentData() == "perceptron"
    go_unlabeled(again)
    assert again.editor.hints.tokens and again.editor.hints.get(0).suggestion
    assert "CV accuracy" in again.model_panel.metrics.text() or loop.result.metrics.get("cv_folds") == 2


def test_an_unreadable_stored_model_is_logged_and_the_window_stays_usable(open_window, chunk_project, qtbot, caplog):
    window = open_window(chunk_project)
    train(window, qtbot, learner="perceptron", folds=0, max_iter=1)
    model_id = window.session.project.stored.models()[-1].id
    window.close()
    import sqlite3

    with sqlite3.connect(chunk_project) as conn:  # a model row whose bytes are not a tagger file
        conn.execute("UPDATE models SET data = ? WHERE id = ?", (b"not a zip", model_id))
    again = open_window(chunk_project)
    qtbot.waitUntil(lambda: not again.model_loop.busy, timeout=TIMEOUT)
    assert again.model_loop.result is None
    assert any("unreadable" in r.getMessage() for r in caplog.records)
    go_unlabeled(again).apply_full("B-NP")  # still editable


def test_statistics_panel_shows_progress_and_learning_curve(window, qtbot):
    train(window, qtbot, learner="perceptron", folds=2, max_iter=1)
    window.stats_dock.show()
    window.stats_dock.raise_()
    stats = window.stats_panel
    stats.refresh()
    assert [name for name, *_ in stats.status.items] == ["full", "partial", "none"]
    assert stats.status.items[0][1] == LABELED
    assert any(v for _, v, _, _ in stats.labels.items)
    assert [p.learner for p in stats.curve.points] == ["perceptron"], "one trained model with CV metrics"
    qtbot.waitUntil(lambda: stats.curve.settled, timeout=30_000)  # the plots are built over several turns
    assert stats.curve.plots and stats.curve.plots[0].isVisible()
    editor = go_unlabeled(window)
    editor.apply_full("B-NP")
    stats.refresh()
    assert len(stats.progress.series[0].points) == 2
    assert not stats.grab().isNull()
    window.model_loop.cancel()


def test_hints_follow_annotations_and_view_toggles():
    from tagtool.gui.hints import Marks, hints_for
    from tagtool.services.guidance import SentenceGuidance

    g = SentenceGuidance(
        ("B-NP", "I-NP", "O"),
        (0.2, 0.9, 0.5),
        views=(("B-NP", "B-NP", "O"), ("B-NP", "I-NP", "O")),
        confidences=({}, {"I-NP": 0.7, "B-NP": 0.3}, {}),
    )
    anns = (frozenset({"B-NP"}), frozenset({"B-NP", "I-NP"}), frozenset())
    hints = hints_for(7, g, anns, Marks())
    assert hints.get(0) is None, "a full label needs no hint"
    assert hints.get(1).suggestion == "I-NP" and hints.get(1).disagreement == ("B-NP", "I-NP")
    assert hints.get(1).candidate_confidence == {"I-NP": 0.7, "B-NP": 0.3}
    assert hints.get(2).suggestion == "O" and hints.get(2).uncertainty == 0.5
    # a partial token whose candidates exclude the model's label gets no suggestion
    other = hints_for(7, g, (frozenset(), frozenset({"O", "B-VP"}), frozenset()), Marks())
    assert other.get(1).suggestion is None
    off = hints_for(7, g, anns, Marks(suggestions=False, uncertainty=False, disagreement=False, confidences=False))
    assert all(
        h.suggestion is None and h.uncertainty is None and not h.disagreement and not h.candidate_confidence
        for h in off.tokens.values()
    )


def test_a_new_project_starts_with_the_default_learner(window):
    from tagtool.learn import DEFAULT_LEARNER

    assert window.model_loop.learner_name == DEFAULT_LEARNER
    assert window.model_panel.learner.currentData() == DEFAULT_LEARNER
