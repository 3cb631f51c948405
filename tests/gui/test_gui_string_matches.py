"""String-match suggestions in the editor from the first label on, and "Label all occurrences"."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.core.labels import LabelSet
from tagtool.gui.hints import hint_tooltip
from tagtool.store.project import Project
from tests.gui.helpers import key_of, stored

NAMES = ["O", "B-ORG", "I-ORG", "B-PER", "I-PER"]
TEXTS = [
    "Acme Corp hired John Smith .",
    "John Smith left Acme Corp in May .",
    "Shares of Acme Corp fell .",
    "Acme Corp said nothing .",
    "Smith and Jones met .",
]


@pytest.fixture
def ner_project(tmp_path):
    sentences = [Sentence(tuple(t.split()), (frozenset(),) * len(t.split())) for t in TEXTS]
    path = tmp_path / "ner.tagproj"
    Project.create(path, Corpus.from_sentences(sentences, labels=LabelSet(NAMES)), name="ner").close()
    return path


@pytest.fixture
def ner(open_window, ner_project, qtbot):
    window = open_window(ner_project)
    window.model_loop.auto = False  # no model: string matches only
    qtbot.waitUntil(lambda: window.model_loop.string_suggestions.index is not None)
    return window


def _label_span(window, qtbot, start: int, end: int, label: str) -> None:
    editor = window.editor
    editor.set_focus(start)
    editor.set_focus(end - 1, extend=True)
    qtbot.keyClick(editor, key_of(window, label))


def _done(window, qtbot, run=None) -> None:
    """``run()`` (Label all, an undo, a redo), then wait until its bulk write is done."""
    if run is not None:
        run()
    qtbot.waitUntil(lambda: window.session.held is None, timeout=20000)


def test_first_label_is_suggested_where_the_string_recurs(ner, qtbot):
    window, editor = ner, ner.editor
    _label_span(window, qtbot, 0, 2, "B-ORG")  # "Acme Corp" in the first sentence
    assert window.session.annotations[:2] == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    window.session.step(1)
    hints = editor.hints
    assert [hints.get(t).suggestion for t in (3, 4)] == ["B-ORG", "I-ORG"]
    text = hint_tooltip(hints.get(3))
    assert "same text labeled ORG in 1 sentence" in text
    # accepted as a model suggestion is: Space on the selection
    editor.set_focus(3)
    editor.set_focus(4, extend=True)
    qtbot.keyClick(editor, Qt.Key_Space)
    assert stored(window.session.project.path, window.session.current_id)[3:5] == (
        frozenset({"B-ORG"}),
        frozenset({"I-ORG"}),
    )


def test_a_match_stays_on_the_rest_of_its_span_once_its_first_token_is_accepted(ner, qtbot):
    window, editor = ner, ner.editor
    _label_span(window, qtbot, 0, 2, "B-ORG")  # "Acme Corp" in the first sentence
    window.session.step(1)
    editor.set_focus(3)  # Space on "Acme" alone, as on a token question
    qtbot.keyClick(editor, Qt.Key_Space)
    assert window.session.annotations[3] == frozenset({"B-ORG"})
    assert editor.hints.get(4).suggestion == "I-ORG", "the match agrees with the label given: still on 'Corp'"
    window.session.step(1)  # "Shares of Acme Corp fell ."
    editor.set_focus(2)
    qtbot.keyClick(editor, key_of(window, "O"))  # labeled otherwise: the match is gone
    hint = editor.hints.get(3)
    assert hint is None or not hint.source


def test_dictionary_matches_are_suggested_with_their_source(open_window, ner_project, qtbot):
    from tagtool.services.dictionaries import parse_dictionary, store_dictionary

    with Project.open(ner_project) as project:
        store_dictionary(project.stored, parse_dictionary("John Smith\nJones\n", "PER", "people.txt"))
    window = open_window(ner_project)
    window.model_loop.auto = False
    editor = window.editor
    qtbot.waitUntil(lambda: editor.hints.get(3) is not None and editor.hints.get(3).source != "")
    assert [editor.hints.get(t).suggestion for t in (3, 4)] == ["B-PER", "I-PER"]
    assert "in the dictionary PER (people.txt)" in hint_tooltip(editor.hints.get(3))
    # the person's own label of a string wins over the dictionary where both match
    _label_span(window, qtbot, 0, 2, "B-ORG")
    window.session.step(4)  # "Smith and Jones met ."
    qtbot.waitUntil(lambda: editor.hints.get(2) is not None)
    assert editor.hints.get(2).suggestion == "B-PER"


def test_label_all_occurrences_is_one_undo_step(ner, qtbot):
    window, session = ner, ner.session
    _label_span(window, qtbot, 0, 2, "B-ORG")
    window.editor.set_focus(1)
    _done(window, qtbot, window.label_all_action.trigger)
    assert "Labeled 3 occurrences of “Acme Corp” B-ORG I-ORG in 3 sentences" in window.statusBar().currentMessage()
    path, ids = session.project.path, session.sentence_ids
    assert stored(path, ids[1])[3:5] == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    assert stored(path, ids[3])[:2] == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    assert session.current_id == ids[0]  # the window stays where it was
    assert session.counts.token_counts()["full"] == 8
    # the new labels are evidence too, and no suggestion is left for the string
    assert window.model_loop.string_suggestions.index.evidence[("Acme", "Corp")]["ORG"] == {0, 1, 2, 3}
    _done(window, qtbot, session.undo_stack.undo)
    assert all(not a for a in stored(path, ids[1]))
    assert stored(path, ids[0])[:2] == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))  # the span itself stays
    assert session.counts.token_counts()["full"] == 2
    _done(window, qtbot, session.undo_stack.redo)
    assert stored(path, ids[2])[2:4] == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    # nothing left to label: said so
    _done(window, qtbot, window.label_all_action.trigger)
    assert "No unlabeled occurrence of “Acme Corp”" in window.statusBar().currentMessage()


def test_label_all_from_a_suggestion_and_the_keys(ner, qtbot):
    window, session = ner, ner.session
    _label_span(window, qtbot, 3, 5, "B-PER")  # "John Smith"
    session.step(1)
    editor = window.editor
    editor.set_focus(0)  # the suggested "John Smith"
    assert editor.hints.get(0).source
    _done(window, qtbot, lambda: qtbot.keyClick(editor, Qt.Key_L, Qt.ControlModifier | Qt.ShiftModifier))
    assert "Labeled 1 occurrence of “John Smith” B-PER I-PER in 1 sentence" in window.statusBar().currentMessage()
    assert session.annotations[:2] == (frozenset({"B-PER"}), frozenset({"I-PER"}))
    assert "Label all occurrences" in [a.text().replace("&", "") for a in editor.build_menu().actions()]


def _match(start, allowed, evidence, source=""):
    from tagtool.services.string_matches import StringMatch

    return StringMatch(0, start, start + len(allowed), tuple(frozenset(a) for a in allowed), evidence, source)


def test_a_token_question_keeps_the_models_suggestion():
    from tagtool.gui.hints import SentenceHints, TokenHint
    from tagtool.gui.match_hints import with_matches

    asked = TokenHint(suggestion="O", question=True)
    model = SentenceHints(0, {0: asked, 1: TokenHint(suggestion="O")}, asking=True)
    match = _match(0, [{"B-ORG"}, {"I-ORG"}], (("ORG", 2),))
    hints = with_matches(0, model, [match], (frozenset(),) * 2, NAMES)
    assert hints.get(0) == asked  # Space accepts the model's label where it asks
    assert hints.get(1).suggestion == "I-ORG" and hints.get(1).source  # not asked: the match is shown


def test_precedence_over_the_model_and_candidate_sets():
    from tagtool.gui.hints import SentenceHints, TokenHint
    from tagtool.gui.match_hints import with_matches

    model = SentenceHints(0, {t: TokenHint(suggestion=s) for t, s in enumerate(["O", "B-PER", "B-PER", "O"])})
    empty = (frozenset(),) * 4
    agreed = _match(0, [{"B-ORG"}], (("ORG", 2),))
    torn = _match(1, [{"B-ORG", "B-PER"}], (("ORG", 1), ("PER", 1)))
    unpicked = _match(2, [{"B-ORG", "O"}], (("ORG", 1), ("O", 1)))
    hints = with_matches(0, model, [agreed, torn, unpicked], empty, NAMES)
    # agreeing evidence wins over the model; the model's other suggestion stays in the tooltip
    assert hints.get(0).suggestion == "B-ORG" and hints.get(0).model_suggestion == "O"
    assert "Model suggests: O" in hint_tooltip(hints.get(0))
    # conflicting evidence: the candidate set, the model's pick first and accepted
    assert hints.get(1).candidates == ("B-PER", "B-ORG") and hints.get(1).accepted() == {"B-PER"}
    # the model picks outside the set: the set is what accepting gives
    assert hints.get(2).suggestion is None and hints.get(2).accepted() == {"O", "B-ORG"}
    assert hints.get(3).suggestion == "O" and not hints.get(3).source  # the model's own
    # the person's matches come first; a later (dictionary) match over the same tokens is left out
    dictionary = _match(0, [{"B-PER"}], (("PER", 1),), "in the dictionary PER (people.txt)")
    labeled = (frozenset({"O"}),) + empty[1:]
    assert with_matches(0, model, [agreed, dictionary], empty, NAMES).get(0).suggestion == "B-ORG"
    assert with_matches(0, SentenceHints(), [dictionary], labeled, NAMES).get(0) is None  # never on a labeled token


def test_conflicting_evidence_accepted_as_a_candidate_set(ner, qtbot):
    window, session, editor = ner, ner.session, ner.editor
    ids = session.sentence_ids
    _label_span(window, qtbot, 0, 2, "B-ORG")  # "Acme Corp" ORG in sentence 1 ...
    session.go_to(ids[3])
    _label_span(window, qtbot, 0, 2, "B-PER")  # ... and PER in sentence 4
    session.go_to(ids[2])
    hint = editor.hints.get(2)
    assert set(hint.candidates) == {"B-ORG", "B-PER"} and hint.suggestion is None
    assert "same text labeled ORG in 1 sentence, PER in 1 sentence" in hint_tooltip(hint)
    editor.set_focus(2)
    editor.set_focus(3, extend=True)
    qtbot.keyClick(editor, Qt.Key_Space)
    assert session.annotations[2:4] == (frozenset({"B-ORG", "B-PER"}), frozenset({"I-ORG", "I-PER"}))


def test_beside_the_model_on_a_chunking_project(window, qtbot):
    from tests.gui.test_gui_model_loop import go_unlabeled, train

    loop = window.model_loop
    qtbot.waitUntil(lambda: loop.string_suggestions.index is not None)
    train(window, qtbot)
    editor = go_unlabeled(window)
    hints = editor.hints.tokens
    matched = [t for t, h in hints.items() if h.source]
    model_only = [t for t, h in hints.items() if not h.source and h.suggestion]
    assert matched and model_only  # strings labeled in the first sentences, the model elsewhere
    assert all(hints[t].accepted() for t in matched)
    sid = window.session.current_id
    qtbot.keyClick(editor, Qt.Key_Return)  # Enter accepts both kinds at once
    saved = stored(window.session.project.path, sid)
    assert all(saved[t] for t in matched + model_only)


def test_a_big_project_builds_its_index_in_a_worker_and_replays_edits(open_window, ner_project, qtbot, monkeypatch):
    from tagtool.gui import string_suggestions

    monkeypatch.setattr(string_suggestions, "BACKGROUND_BUILD_MIN", 1)
    window = open_window(ner_project)
    window.model_loop.auto = False
    suggestions = window.model_loop.string_suggestions
    qtbot.waitUntil(lambda: suggestions._replay is not None or suggestions.index is not None)
    _label_span(window, qtbot, 0, 2, "B-ORG")  # maybe during the build: replayed on it
    qtbot.waitUntil(lambda: suggestions.index is not None)
    assert suggestions.index.evidence[("Acme", "Corp")]["ORG"] == {0}
    window.session.step(1)
    assert window.editor.hints.get(3).suggestion == "B-ORG"


def test_label_all_asks_first_above_many_sentences(ner, qtbot, monkeypatch):
    from tagtool.gui import label_all, window_menus

    monkeypatch.setattr(label_all, "CONFIRM_SENTENCES", 1)
    asked = []
    monkeypatch.setattr(window_menus, "_ask", lambda _parent, question: asked.append(question) or False)
    _label_span(ner, qtbot, 0, 2, "B-ORG")
    ner.editor.set_focus(0)
    _done(ner, qtbot, ner.label_all_action.trigger)
    assert asked == ["Label 3 occurrences of “Acme Corp” as B-ORG I-ORG in 3 sentences?"]
    assert "nothing changed" in ner.statusBar().currentMessage()
    assert not any(stored(ner.session.project.path, ner.session.sentence_ids[3]))


def test_a_merge_of_tokens_updates_the_index(ner, qtbot):
    window, session, editor = ner, ner.session, ner.editor
    _label_span(window, qtbot, 0, 1, "B-ORG")  # "Acme" alone
    session.go_to(session.sentence_ids[2])  # "Shares of Acme Corp fell ."
    assert editor.hints.get(2).suggestion == "B-ORG"
    assert session.edits.merge_tokens(2)  # "Acme Corp" is one token now: no longer "Acme"
    suggestions = window.model_loop.string_suggestions
    assert "Acme" not in suggestions.index.tokens[2]
    assert all(not h.source for h in editor.hints.tokens.values())
    session.undo_stack.undo()
    assert editor.hints.get(2).suggestion == "B-ORG"


def test_the_view_menu_turns_string_matches_off_and_on(ner, qtbot):
    window, editor = ner, ner.editor
    _label_span(window, qtbot, 0, 2, "B-ORG")
    window.session.step(1)
    assert editor.hints.get(3).source
    window.mark_actions["string_matches"].setChecked(False)
    assert editor.hints.get(3) is None
    window.mark_actions["string_matches"].setChecked(True)
    assert editor.hints.get(3).suggestion == "B-ORG"
