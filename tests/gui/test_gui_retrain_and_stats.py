"""Retraining after an edit (debounce, warm-start budget), cached snapshots, incremental counts."""

from __future__ import annotations

from tagtool.gui import statistics_numbers
from tagtool.gui.model_loop import DEBOUNCE_MS, RETRAIN_EPOCHS
from tagtool.gui.warm_start import retrain_overrides
from tests.gui.helpers import LABELED

TIMEOUT = 60_000


def go_unlabeled(window):
    window.session.go_to(window.session.project.sentence_ids()[LABELED])
    window.editor.setFocus()
    return window.editor


def test_retrain_overrides_cap_the_pass_parameter():
    assert retrain_overrides("max_iter", {"max_iter": 30, "averaged": True}, 3) == {"max_iter": 3}
    assert retrain_overrides("max_iter", {"max_iter": 15, "C": 1.0}, 3) == {"max_iter": 3}
    assert retrain_overrides("max_iter", {"max_iter": 100}, 5) == {"max_iter": 5}
    assert retrain_overrides("max_iter", {"max_iter": 2}, 3) == {}, "never more passes than the user's settings"
    assert retrain_overrides("max_iter", {"max_iter": 30}, 0) == {}, "0: the full settings"
    assert retrain_overrides(None, {"smoothing": 1.0}, 3) == {}, "nothing to cap (HMM)"
    assert retrain_overrides("max_iter", {"shuffle": True, "max_iter": 9}, 3) == {"max_iter": 3}
    assert retrain_overrides("max_iter", {"cu_ramp_iter": 5, "max_iter": 10}, 3) == {"max_iter": 3}, "cosvm"


def test_debounce_is_short_and_restarted_by_each_edit(window, qtbot):
    loop = window.model_loop
    assert 300 <= DEBOUNCE_MS <= 500 and loop._debounce.interval() == DEBOUNCE_MS
    assert loop.retrain_epochs == RETRAIN_EPOCHS and 1 <= RETRAIN_EPOCHS <= 5
    assert window.model_panel.retrain.value() == RETRAIN_EPOCHS
    assert "Train now" in window.model_panel.retrain.toolTip()
    loop.set_learner("perceptron", {"max_iter": 1})
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
    assert loop.result.metrics["labeled_tokens"] == window.session.project.listing.annotation_counts()["full"]


def test_edit_retrains_warm_with_the_budget_and_train_now_fits_fully(window, qtbot):
    loop, panel = window.model_loop, window.model_panel
    panel.select_learner("mv-perceptron", {"max_iter": 6})
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
    assert retrained.metrics["retrain"] == {"max_iter": 2}
    assert retrained.tagger.model.params["max_iter"] == 2, "the fit itself ran 2 epochs"
    assert retrained.params["max_iter"] == 6, "the user's settings are kept"
    assert "Retrained after an edit" in panel.metrics.text()
    record = window.session.project.stored.models()[-1]
    assert record.params["max_iter"] == 6 and record.metrics["retrain"] == {"max_iter": 2}
    # the next edit still warm-starts (same settings), again with the budget
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("I-NP")
    assert loop.result.metrics["retrain"] == {"max_iter": 2}
    # Train now: the full fit again
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    assert "retrain" not in loop.result.metrics
    assert loop.result.tagger.model.params["max_iter"] == 6
    # budget off: an edit retrains with the full settings
    panel.retrain.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("O")
    assert "retrain" not in loop.result.metrics


def test_training_snapshot_follows_edits_undo_and_redo(window, qtbot):
    session = window.session
    ids, sentences = session.cache.training_sentences()
    assert list(sentences) == list(session.project.corpus())
    editor = go_unlabeled(window)
    editor.set_focus(0)
    editor.set_focus(1, extend=True)
    editor.apply_full("B-NP")
    editor.toggle_candidate("O")
    window.undo_action.trigger()
    window.undo_action.trigger()
    window.redo_action.trigger()
    ids2, cached = session.cache.training_sentences()
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
        return statistics_numbers.label_distribution(session.project.corpus(), session.style.names)

    assert panel.label_counts() == expected()
    monkeypatch.setattr(session.project, "corpus", lambda: (_ for _ in ()).throw(AssertionError("read")))
    monkeypatch.setattr(session.project.listing, "label_counts", lambda: (_ for _ in ()).throw(AssertionError("read")))
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


def _check_steps(reports, first_step: str, folds: int) -> dict[int, str]:
    """Every report names its step out of a fixed number; the run's fraction only grows, to 1."""
    import re

    fractions = [f for f, _ in reports]
    assert fractions[-1] == 1.0 and all(b >= a for a, b in zip(fractions, fractions[1:]))
    steps = {}
    for _, message in reports[:-1]:
        m = re.match(r"step (\d+) of (\d+), ([^:·]+?)(?::|\s·)", message)
        assert m and int(m[2]) == 2 + folds, message
        assert re.search(r"· \d+ %$", message), "the step's own share done, whatever the learner says"
        steps[int(m[1])] = m[3]
    assert reports[-1][1] == "done"
    assert steps == {
        1: first_step,
        2: "computing suggestions",
        **{2 + f: f"cross-validation fold {f} of {folds}" for f in range(1, folds + 1)},
    }
    return steps


def test_progress_names_the_retrain_and_each_cross_validation_fold_with_a_known_end(window, qtbot, monkeypatch):
    """Once "epoch 19/30" showed during a cross-validation that followed a 3-epoch retrain,
    and cosvm's "pass 10" had no total."""
    from tagtool.gui.worker import TaskState

    loop, panel = window.model_loop, window.model_panel
    panel.select_learner("mv-perceptron", {"max_iter": 6})
    panel.folds.setValue(2)
    panel.retrain.setValue(2)
    reports, shown = [], []  # every report of the run (worker thread); what the panel showed (sampled)
    real = TaskState.progress
    monkeypatch.setattr(TaskState, "progress", lambda self, f, m="": (reports.append((f, m)), real(self, f, m)))
    loop.progress.connect(lambda f, m: shown.append((panel.bar.value(), panel.status.text())))
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    _check_steps(reports, "training (max_iter=6)", folds=2)
    assert (panel.bar.minimum(), panel.bar.maximum()) == (0, 1000), "a bar with an end, not a busy indicator"
    assert shown and all(text.startswith("mv-perceptron — ") or "done" in text for _, text in shown)
    panel._progress(0.8, "step 4 of 4, cross-validation fold 2 of 2: epoch 3/6 · 50 %")
    # the bar is the cross-validation's (its folds together), the epochs are the fold's
    assert panel.bar.value() == 750 and panel.bar.text().startswith("Cross-validation 75 %")
    assert "cross-validation, fold 2 of 2" in panel.status.text() and "\nepoch 3/6" in panel.status.text()
    assert "±" in panel.metrics.text() and "without column col1" in panel.metrics.text()

    reports.clear()
    loop._debounce.setInterval(20)
    editor = go_unlabeled(window)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        editor.apply_full("B-NP")
    _check_steps(reports, "quick retrain (warm start, max_iter=2)", folds=2)
    cv_start = min(f for f, m in reports if m.startswith("step 3 of 4"))
    assert cv_start < 0.5, "the bar gives the cross-validation (2 folds of 6 epochs) most of the run"
    assert "quick retrain" in panel.metrics.text() and "full fit" in panel.metrics.text()
