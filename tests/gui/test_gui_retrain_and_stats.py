"""Retraining after an edit (debounce, warm-start budget), cached snapshots, incremental counts."""

from __future__ import annotations

from tagtool.gui import stats
from tagtool.gui.model_loop import DEBOUNCE_MS, RETRAIN_EPOCHS, retrain_overrides
from tests.gui.helpers import LABELED

TIMEOUT = 60_000


def go_unlabeled(window):
    window.session.go_to(window.session.project.sentence_ids()[LABELED])
    window.editor.setFocus()
    return window.editor


def test_retrain_overrides_cap_the_pass_parameter():
    assert retrain_overrides({"epochs": 30, "averaged": True}, 3) == {"epochs": 3}
    assert retrain_overrides({"max_epochs": 15, "C": 1.0}, 3) == {"max_epochs": 3}
    assert retrain_overrides({"max_iterations": 100}, 5) == {"max_iterations": 5}
    assert retrain_overrides({"epochs": 2}, 3) == {}, "never more passes than the user's settings"
    assert retrain_overrides({"epochs": 30}, 0) == {}, "0: the full settings"
    assert retrain_overrides({"smoothing": 1.0}, 3) == {}, "nothing to cap (HMM)"
    assert retrain_overrides({"shuffle": True, "epochs": 9}, 3) == {"epochs": 3}


def test_debounce_is_short_and_restarted_by_each_edit(window, qtbot):
    loop = window.model_loop
    assert 300 <= DEBOUNCE_MS <= 500 and loop._debounce.interval() == DEBOUNCE_MS
    assert loop.retrain_epochs == RETRAIN_EPOCHS and 1 <= RETRAIN_EPOCHS <= 5
    assert window.model_panel.retrain.value() == RETRAIN_EPOCHS
    assert "Train now" in window.model_panel.retrain.toolTip()
    loop.set_learner("perceptron", {"epochs": 1})
    loop.cv_folds = 0
    started = []
    loop.started.connect(started.append)
    editor = go_unlabeled(window)
    editor.apply_full("B-NP")
    qtbot.wait(DEBOUNCE_MS // 2)
    editor.apply_full("I-NP")  # typing on: the timer starts again
    assert not started and loop._debounce.isActive()
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        pass
    assert len(started) == 1, "one run for the two quick edits"
    assert loop.result.metrics["labeled_tokens"] == window.session.project.annotation_counts()["full"]


def test_edit_retrains_warm_with_the_budget_and_train_now_fits_fully(window, qtbot):
    loop, panel = window.model_loop, window.model_panel
    panel.select_learner("mv-perceptron", {"epochs": 6})
    panel.folds.setValue(0)
    panel.retrain.setValue(2)
    assert loop.retrain_epochs == 2
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    first = loop.result
    assert "retrain" not in first.metrics, "Train now: the full settings"
    loop._debounce.setInterval(20)
    editor = go_unlabeled(window)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("B-NP")
    retrained = loop.result
    assert retrained is not first
    assert retrained.metrics["retrain"] == {"epochs": 2}
    assert retrained.tagger.model.params["epochs"] == 2, "the fit itself ran 2 epochs"
    assert retrained.params["epochs"] == 6, "the user's settings are kept"
    assert "Retrained after an edit" in panel.metrics.text()
    record = window.session.project.models()[-1]
    assert record.params["epochs"] == 6 and record.metrics["retrain"] == {"epochs": 2}
    # the next edit still warm-starts (same settings), again with the budget
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("I-NP")
    assert loop.result.metrics["retrain"] == {"epochs": 2}
    # Train now: the full fit again
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    assert "retrain" not in loop.result.metrics
    assert loop.result.tagger.model.params["epochs"] == 6
    # budget off: an edit retrains with the full settings
    panel.retrain.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("O")
    assert "retrain" not in loop.result.metrics


def test_training_snapshot_follows_edits_undo_and_redo(window, qtbot):
    session = window.session
    ids, sentences = session.training_sentences()
    assert list(sentences) == list(session.project.corpus())
    editor = go_unlabeled(window)
    editor.set_focus(0)
    editor.set_focus(1, extend=True)
    editor.apply_full("B-NP")
    editor.toggle_candidate("O")
    window.undo_action.trigger()
    window.undo_action.trigger()
    window.redo_action.trigger()
    ids2, cached = session.training_sentences()
    assert ids2 == ids
    assert list(cached) == list(session.project.corpus())
    assert cached[LABELED].annotations[:2] == ({"B-NP"}, {"I-NP"})
    assert sentences[LABELED].annotations[0] == frozenset(), "an earlier snapshot does not change"
    window.model_loop.cancel()


def test_label_distribution_counts_follow_edits_without_reading_the_corpus(window, qtbot, monkeypatch):
    window.model_loop.auto = False
    window.stats_dock.show()
    window.stats_dock.raise_()
    panel, session = window.stats_panel, window.session
    panel.refresh()

    def expected():
        return stats.label_distribution(session.project.corpus(), session.style.names)

    assert panel.label_counts() == expected()
    monkeypatch.setattr(session.project, "corpus", lambda: (_ for _ in ()).throw(AssertionError("read")))
    monkeypatch.setattr(session.project, "label_counts", lambda: (_ for _ in ()).throw(AssertionError("read")))
    editor = go_unlabeled(window)
    editor.set_focus(0)
    editor.set_focus(2, extend=True)
    editor.apply_full("B-NP")
    editor.toggle_candidate("B-VP")
    editor.set_focus(5)
    editor.toggle_candidate("O")
    editor.toggle_candidate("B-PP")
    window.undo_action.trigger()
    panel.refresh()
    counts = panel.label_counts()
    monkeypatch.undo()
    assert counts == expected()
    assert [(n, f + c) for n, (f, c) in counts.items()] == [(n, v) for n, v, *_ in panel.labels.items]
