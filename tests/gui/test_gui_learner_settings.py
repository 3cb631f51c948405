"""The model panel follows the learner registry and checks the values typed in its settings form."""

from __future__ import annotations

from tagtool.learn import REGISTRY


def _offered(window) -> list[str]:
    combo = window.model_panel.learner
    return [combo.itemData(i) for i in range(combo.count())]


def test_the_learner_combo_offers_every_registered_learner(window):
    assert _offered(window) == list(REGISTRY)


def test_the_learner_combo_follows_a_learner_added_to_the_registry(open_window, chunk_project, monkeypatch):
    monkeypatch.setitem(REGISTRY, "extra", "tests.test_learner_registry:ExtraLearner")
    window = open_window(chunk_project)
    assert _offered(window)[-1] == "extra"
    window.model_panel.select_learner("extra", {"rounds": 2})  # an old name: read as the current one
    assert window.model_loop.learner_name == "extra" and window.model_loop.params["max_iter"] == 2


def test_a_value_out_of_range_is_refused_as_it_is_typed(window):
    panel, loop = window.model_panel, window.model_loop
    panel.select_learner("svm", {})
    assert loop.learner_name == "svm"
    applied = dict(loop.params)
    field = panel.form.widgets["C"]
    field.setText("-1")
    field.editingFinished.emit()
    assert panel.status.text() == "Setting not valid: svm: C: expected a number in (0.0, inf), got '-1'"
    assert loop.params == applied, "the bad value never reaches the model loop"
    field.setText("0.5")
    field.editingFinished.emit()
    assert loop.params["C"] == 0.5


def test_the_form_is_built_from_the_learners_table(window):
    from PySide6.QtWidgets import QComboBox, QLineEdit, QSpinBox

    from tagtool.learn import get_learner

    panel, loop = window.model_panel, window.model_loop
    panel.select_learner("svm", {})
    widgets = panel.form.widgets
    assert list(widgets) == get_learner("svm").params.names()
    loss = widgets["loss"]
    assert isinstance(loss, QComboBox) and [loss.itemData(i) for i in range(loss.count())] == ["hamming", "zero-one"]
    assert isinstance(widgets["max_iter"], QSpinBox) and widgets["max_iter"].minimum() == 1
    assert widgets["kbest"].minimum() == 2
    assert widgets["C"].toolTip().startswith(get_learner("svm").params["C"].help)
    panel.select_learner("entropy-crf", {})
    balance = panel.form.widgets["balance"]
    assert isinstance(balance, QLineEdit) and "none: gamma as given" in balance.toolTip()
    balance.setText("none")
    balance.editingFinished.emit()
    assert loop.params["balance"] is None, "the paper's objective can be chosen in the app"
    jobs = panel.form.widgets["n_jobs"]
    jobs.setText("two")
    jobs.editingFinished.emit()
    assert (
        panel.status.text() == "Setting not valid: entropy-crf: n_jobs: expected an int in [1, inf) or none, got 'two'"
    )


def test_clicking_train_now_leaves_the_keys_with_the_editor(window, qtbot):
    """After a click on Train now, Enter still accepts the open sentence (the button does not take the focus)."""
    from PySide6.QtCore import Qt

    window.show()
    window.activateWindow()
    editor = window.editor
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus, timeout=2000)
    qtbot.mouseClick(window.model_panel.train_button, Qt.LeftButton)
    assert editor.hasFocus()
