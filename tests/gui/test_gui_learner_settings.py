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
    window.model_panel.select_learner("extra", {"rounds": 2})
    assert window.model_loop.learner_name == "extra" and window.model_loop.params["rounds"] == 2


def test_a_value_out_of_range_is_refused_as_it_is_typed(window):
    panel, loop = window.model_panel, window.model_loop
    panel.select_learner("svm", {})
    assert loop.learner_name == "svm"
    applied = dict(loop.params)
    field = panel.form.widgets["C"]
    field.setText("-1")
    field.editingFinished.emit()
    assert panel.status.text() == "Setting not valid: svm: C must be positive, got -1.0"
    assert loop.params == applied, "the bad value never reaches the model loop"
    field.setText("0.5")
    field.editingFinished.emit()
    assert loop.params["C"] == 0.5
