"""The app's File › Add word vectors…, Add dictionary…, Add patterns… and Knowledge…: stored, used, removed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from tagtool.core import Corpus
from tagtool.core.features.wordreps import normalise_word
from tagtool.gui.knowledge_dialog import DictionaryDialog, KnowledgeDialog
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

DATA = Path(__file__).resolve().parents[1] / "data"

TIMEOUT = 120_000


def _words(path) -> list[str]:
    with Project.open(path, readonly=True) as project:
        return sorted({t for s in project.corpus() for t in s.tokens})


def _vectors_file(path, words, dim=8, seed=0):
    """A word2vec text file (count and dimension on the first line) of ``words``."""
    rng = np.random.default_rng(seed)
    rows = [f"{len(words)} {dim}"]
    rows += [w + " " + " ".join(f"{x:.4f}" for x in rng.normal(size=dim)) for w in words]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _menu_action(window, text: str):
    file_menu = window.menuBar().actions()[0].menu()
    matches = [a for a in file_menu.actions() if a.text().replace("&", "") == text]
    assert matches, f"no File › {text}"
    return matches[0]


def _quick(window):
    """A fast learner, automatic retraining on, no cross-validation."""
    window.model_panel.folds.setValue(0)
    window.model_panel.select_learner("mv-perceptron", {"max_iter": 2})


def _trained_with(qtbot, loop, check):
    qtbot.waitUntil(lambda: loop.tagger is not None and not loop.busy and check(loop.tagger.extractor), timeout=TIMEOUT)


def _idle(qtbot, knowledge):
    qtbot.waitUntil(
        lambda: not knowledge.reading and not knowledge.adding and not knowledge.vector_runner.busy, timeout=TIMEOUT
    )


@pytest.fixture
def pos_project(tmp_path) -> Path:
    """UD English head, part of speech (UPOS): the first 3 sentences labeled. Word classes, not spans: the
    default rule adds the vec sets."""
    gold = read_corpus(DATA / "ud_en_ewt_train_head.conllu", label_field="upos")
    corpus = Corpus.from_sentences([s if i < 3 else s.unlabeled() for i, s in enumerate(gold)], labels=gold.labels)
    path = tmp_path / "pos.tagproj"
    Project.create(path, corpus, name="pos").close()
    return path


def test_add_word_vectors_from_the_file_menu_stores_them_and_the_model_uses_them(
    open_window, qtbot, monkeypatch, tmp_path, pos_project
):
    window = open_window(pos_project)
    _quick(window)
    loop, knowledge = window.model_loop, window.model_loop.knowledge
    words = _words(pos_project)
    vec = _vectors_file(tmp_path / "news.vec", words + ["zebra", "quokka"])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(vec), ""))
    progress = []
    knowledge.progress.connect(lambda f, m: progress.append(f))
    _menu_action(window, "Add word vectors…").trigger()
    assert knowledge.reading == "news.vec"
    assert window.model_panel.knowledge.bar.isVisibleTo(window.model_panel)  # progress and Cancel show
    _idle(qtbot, knowledge)
    assert knowledge.vectors is not None and not knowledge.error
    records = window.session.project.stored.resources("vectors")
    assert len(records) == 1 and "news.vec" in json.dumps(records[0].info)
    assert "news.vec" in window.model_panel.knowledge.status.text()
    # only the project's words are kept (under their normalised forms)
    assert set(knowledge.vectors.words) <= {normalise_word(w) for w in words} and "zebra" not in knowledge.vectors.words
    _trained_with(qtbot, loop, lambda e: getattr(e, "vectors", None) is not None)
    qtbot.waitUntil(lambda: "Word vectors" in window.model_panel.metrics.text(), timeout=TIMEOUT)
    assert "news.vec" in window.model_panel.metrics.text()


def test_a_bad_vectors_file_stores_nothing_and_says_where(window, qtbot, tmp_path):
    knowledge = window.model_loop.knowledge
    bad = tmp_path / "broken.txt"
    bad.write_text("3 4\nthe 0.1 0.2 0.3 0.4\nof 0.1 zero 0.3 0.4\nand 0.1 0.2 0.3 0.4\n", encoding="utf-8")
    errors = []
    knowledge.failed.connect(lambda title, message: errors.append(message))
    knowledge.add_vectors(bad)
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    assert "broken.txt" in errors[0] and "3" in errors[0] and "Nothing was stored" in errors[0]
    assert window.session.project.stored.resources("vectors") == []
    assert knowledge.vectors is None and not knowledge.reading


def test_reading_a_big_file_keeps_the_window_responsive_and_cancel_stores_nothing(
    window, qtbot, tmp_path, chunk_project, monkeypatch
):
    from tagtool.services import user_vectors

    real_load = user_vectors.load_user_vectors

    def load_until_cancelled(path, words, progress, should_stop, **options):
        """The real reader, held after its first rows until Cancel (a fast machine would finish first)."""

        def held(fraction, message=""):
            progress(fraction, message)
            deadline = time.perf_counter() + 30
            while fraction > 0 and not should_stop() and time.perf_counter() < deadline:
                time.sleep(0.01)

        return real_load(path, words, progress=held, should_stop=should_stop, **options)

    monkeypatch.setattr(user_vectors, "load_user_vectors", load_until_cancelled)
    knowledge = window.model_loop.knowledge
    words = _words(chunk_project)
    filler = [f"w{i}" for i in range(120_000)]  # words the project does not have
    big = _vectors_file(tmp_path / "big.vec", filler + words, dim=24)
    stalls, last = [], [time.perf_counter()]

    def beat():
        now = time.perf_counter()
        stalls.append(now - last[0])
        last[0] = now

    timer = QTimer(interval=10)
    timer.timeout.connect(beat)
    timer.start()
    knowledge.add_vectors(big)
    qtbot.waitUntil(lambda: knowledge.vector_runner.current is not None, timeout=TIMEOUT)
    qtbot.wait(300)
    assert knowledge.reading == "big.vec"
    knowledge.cancel()
    qtbot.waitUntil(lambda: not knowledge.vector_runner.pool.activeThreadCount(), timeout=TIMEOUT)
    timer.stop()
    assert max(stalls[1:], default=0) < 0.5  # the event loop kept running
    assert window.session.project.stored.resources("vectors") == [] and knowledge.vectors is None
    assert "cancelled" in window.statusBar().currentMessage()


def test_add_dictionary_with_the_projects_type_and_the_model_uses_it(window, qtbot, monkeypatch, tmp_path):
    _quick(window)
    loop, knowledge = window.model_loop, window.model_loop.knowledge
    path = tmp_path / "np.txt"
    path.write_text("# noun phrases\nthe company\nshares\nConfidence\n\nthe pound\n", encoding="utf-8")
    dialog = DictionaryDialog(window.session.project.labels.span_types, window)
    dialog.path.setText(str(path))
    assert dialog.entity_type() == "NP"  # a file named after one of the project's types chooses it
    knowledge.add_dictionary(path, dialog.entity_type())
    _idle(qtbot, knowledge)
    assert [d.entity_type for d in knowledge.dictionaries] == ["NP"] and len(knowledge.dictionaries[0]) == 4
    (record,) = window.session.project.stored.resources("gazetteer")
    assert record.name == "NP" and record.info["entries"] == 4
    # its matches are suggested at once, without opening another sentence first
    suggestions, ids = loop.string_suggestions, window.session.sentence_ids
    qtbot.waitUntil(
        lambda: any("dictionary NP" in m.note for sid in ids for m in suggestions.matches(sid)), timeout=TIMEOUT
    )
    _trained_with(qtbot, loop, lambda e: getattr(e, "gazetteers", None) is not None)
    assert loop.tagger.extractor.gazetteers.fingerprint == knowledge.gazetteers.fingerprint
    qtbot.waitUntil(lambda: "Dictionaries" in window.model_panel.metrics.text(), timeout=TIMEOUT)
    assert "NP (np.txt" in window.model_panel.metrics.text()
    assert "NP (np.txt, 4 entries)" in window.model_panel.knowledge.status.text()


def test_a_dictionary_that_is_not_text_stores_nothing_and_names_the_line(window, qtbot, tmp_path):
    knowledge = window.model_loop.knowledge
    bad = tmp_path / "people.txt"
    bad.write_bytes(b"Alice\nBo\xff\xfeb\n")
    errors = []
    knowledge.failed.connect(lambda title, message: errors.append((title, message)))
    knowledge.add_dictionary(bad, "PER")
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    title, message = errors[0]
    assert title == "Add dictionary" and "people.txt" in message and "2" in message
    assert window.session.project.stored.resources("gazetteer") == [] and knowledge.dictionaries == []


def test_patterns_added_listed_and_a_bad_line_named(window, qtbot, tmp_path):
    knowledge = window.model_loop.knowledge
    good = tmp_path / "patterns.jsonl"
    good.write_text(
        '{"label": "NP", "pattern": [{"lower": "the"}, {"lower": "company"}]}\n{"label": "VP", "pattern": "said"}\n',
        encoding="utf-8",
    )
    knowledge.add_patterns(good)
    _idle(qtbot, knowledge)
    assert [p.name for p in knowledge.patterns] == ["patterns.jsonl"] and len(knowledge.patterns[0]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"label": "NP", "pattern": "ok"}\n{"label": "NP", "pattern": [\n', encoding="utf-8")
    errors = []
    knowledge.failed.connect(lambda title, message: errors.append(message))
    knowledge.add_patterns(bad)
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    assert "bad.jsonl" in errors[0] and "2" in errors[0]
    assert [r.name for r in window.session.project.stored.resources("patterns")] == ["patterns.jsonl"]


def test_knowledge_dialog_lists_and_removes_and_the_model_retrains_without(window, qtbot, tmp_path):
    _quick(window)
    loop, knowledge = window.model_loop, window.model_loop.knowledge
    (tmp_path / "vp.txt").write_text("said\nrose\n", encoding="utf-8")
    knowledge.add_dictionary(tmp_path / "vp.txt", "VP")
    _idle(qtbot, knowledge)
    (tmp_path / "p.jsonl").write_text('{"label": "NP", "pattern": "the company"}\n', encoding="utf-8")
    knowledge.add_patterns(tmp_path / "p.jsonl")
    _idle(qtbot, knowledge)
    dialog = KnowledgeDialog(knowledge, window)
    qtbot.addWidget(dialog)
    rows = [[dialog.tree.topLevelItem(i).text(c) for c in (0, 1, 2, 4)] for i in range(dialog.tree.topLevelItemCount())]
    assert rows == [["Dictionary", "VP", "vp.txt", "2 entries"], ["Patterns", "p.jsonl", "p.jsonl", "1 pattern (NP)"]]
    assert not dialog.empty.isVisibleTo(dialog)
    _trained_with(qtbot, loop, lambda e: getattr(e, "gazetteers", None) is not None)
    dialog.tree.setCurrentItem(dialog.tree.topLevelItem(0))
    assert dialog.remove_button.isEnabled()
    assert dialog.remove_selected(confirm=False)
    assert window.session.project.stored.resources("gazetteer") == [] and knowledge.gazetteers is None
    assert dialog.tree.topLevelItemCount() == 1  # the list follows
    _trained_with(qtbot, loop, lambda e: getattr(e, "gazetteers", None) is None)


def test_reopening_reads_the_knowledge_and_keeps_a_model_made_with_it(open_window, qtbot, chunk_project, tmp_path):
    window = open_window(chunk_project)
    _quick(window)
    knowledge = window.model_loop.knowledge
    (tmp_path / "np.txt").write_text("the company\n", encoding="utf-8")
    knowledge.add_dictionary(tmp_path / "np.txt", "NP")
    _idle(qtbot, knowledge)
    _trained_with(qtbot, window.model_loop, lambda e: getattr(e, "gazetteers", None) is not None)
    qtbot.waitUntil(lambda: window.model_loop.result.model_id is not None, timeout=TIMEOUT)  # stored
    fingerprint = knowledge.gazetteers.fingerprint
    window.close()
    again = open_window(chunk_project)
    loop = again.model_loop
    qtbot.waitUntil(lambda: loop.knowledge.loaded and loop.tagger is not None and not loop.busy, timeout=TIMEOUT)
    assert loop.knowledge.gazetteers.fingerprint == fingerprint
    runs = []
    loop.started.connect(runs.append)
    loop.knowledge.ready.emit()  # read again: the model in use was made with them, no retrain
    assert runs == []


def test_the_file_menu_has_the_items_and_a_read_only_project_refuses(window, monkeypatch):
    for text in ("Add dictionary…", "Add patterns…", "Knowledge in the project…"):
        assert _menu_action(window, text).isEnabled()
    monkeypatch.setattr(window.session.project, "readonly", True)
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    _menu_action(window, "Add dictionary…").trigger()
    assert told and "read-only" in told[0]


def test_cross_validation_folds_read_the_models_vectors_and_dictionaries(open_window, qtbot, tmp_path, pos_project):
    window = open_window(pos_project)
    _quick(window)
    loop, knowledge = window.model_loop, window.model_loop.knowledge
    loop.auto = False
    knowledge.add_vectors(_vectors_file(tmp_path / "v.txt", _words(pos_project)))
    _idle(qtbot, knowledge)
    (tmp_path / "noun.txt").write_text("company\n", encoding="utf-8")
    knowledge.add_dictionary(tmp_path / "noun.txt", "NOUN")
    _idle(qtbot, knowledge)
    window.model_panel.folds.setValue(2)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT) as done:
        window.model_panel.train_button.click()
    metrics = done.args[0].metrics
    assert "cv" not in metrics and "f1" in metrics, metrics.get("cv")
    extractor = loop.tagger.extractor
    assert extractor.vectors is not None and extractor.gazetteers is not None


def test_files_chosen_one_after_another_or_before_the_project_is_read_are_all_added(
    open_window, qtbot, chunk_project, tmp_path
):
    """Files are added one at a time, after the project's own knowledge is read: none replaces another's work."""
    window = open_window(chunk_project)
    knowledge = window.model_loop.knowledge
    (tmp_path / "np.txt").write_text("the company\n", encoding="utf-8")
    knowledge.add_dictionary(tmp_path / "np.txt", "NP")
    _idle(qtbot, knowledge)
    window.close()
    window = open_window(chunk_project)  # its dictionary is read in the background
    knowledge = window.model_loop.knowledge
    assert not knowledge.loaded
    (tmp_path / "vp.txt").write_text("said\n", encoding="utf-8")
    (tmp_path / "pp.txt").write_text("in the\n", encoding="utf-8")
    (tmp_path / "p.jsonl").write_text('{"label": "NP", "pattern": "the pound"}\n', encoding="utf-8")
    knowledge.add_dictionary(tmp_path / "vp.txt", "VP")
    knowledge.add_dictionary(tmp_path / "pp.txt", "PP")
    knowledge.add_patterns(tmp_path / "p.jsonl")
    knowledge.add_vectors(_vectors_file(tmp_path / "v.txt", _words(chunk_project)))
    assert "the dictionary vp.txt" in knowledge.adding and knowledge.reading == "v.txt"
    _idle(qtbot, knowledge)
    assert sorted(d.entity_type for d in knowledge.dictionaries) == ["NP", "PP", "VP"]
    assert knowledge.gazetteers.types == ("NP", "PP", "VP") and [p.name for p in knowledge.patterns] == ["p.jsonl"]
    stored = window.session.project.stored
    assert [r.name for r in stored.resources("gazetteer")] == ["NP", "PP", "VP"] and knowledge.vectors is not None
    assert len(stored.resources("patterns")) == 1 and len(stored.resources("vectors")) == 1


def test_vectors_of_a_span_project_are_stored_and_said_unused(window, qtbot, tmp_path, chunk_project):
    _quick(window)
    loop, knowledge = window.model_loop, window.model_loop.knowledge
    knowledge.add_vectors(_vectors_file(tmp_path / "v.txt", _words(chunk_project)))
    _idle(qtbot, knowledge)
    assert knowledge.vectors is not None and knowledge.for_training()["vectors"] is None
    assert "not used for span labels" in window.model_panel.knowledge.status.text()
    _trained_with(qtbot, loop, lambda e: getattr(e, "vectors", None) is None)


def test_the_knowledge_dialog_switches_training_with_the_vectors(open_window, qtbot, tmp_path, pos_project):
    from tagtool.services.user_vectors import vectors_use

    window = open_window(pos_project)
    _quick(window)
    knowledge = window.model_loop.knowledge
    dialog = KnowledgeDialog(knowledge, window)
    qtbot.addWidget(dialog)
    assert not dialog.use_vectors.isEnabled()  # nothing to switch yet
    knowledge.add_vectors(_vectors_file(tmp_path / "v.txt", _words(pos_project)))
    _idle(qtbot, knowledge)
    assert dialog.use_vectors.isEnabled() and dialog.use_vectors.isChecked()
    with qtbot.waitSignal(knowledge.knowledge_changed, timeout=TIMEOUT):
        dialog.use_vectors.setChecked(False)
    assert vectors_use(window.session.project) == "off" and knowledge.for_training()["vectors"] is None
    assert "vectors.use is off" in window.model_panel.knowledge.status.text()
    dialog.use_vectors.setChecked(True)
    assert vectors_use(window.session.project) == "on" and knowledge.for_training()["vectors"] is not None
