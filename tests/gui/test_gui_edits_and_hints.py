"""Span and candidate rules (no Qt), colours, and the model-hint hook of the editor."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from tagtool.core.labels import LabelSet
from tagtool.gui import edits
from tagtool.gui.hints import NO_HINTS, SentenceHints, TokenHint
from tagtool.gui.style import contrast_ratio, readable_text
from tagtool.store.colors import PALETTE

BIO = LabelSet(["O", "B-NP", "I-NP", "B-VP", "I-VP"])
BIOES = LabelSet(["O", "B-X", "I-X", "E-X", "S-X"])
POS = LabelSet(["NN", "VB", "DT", "B-ish"])


@pytest.mark.parametrize(
    "labels,label,n,expected",
    [
        (BIO, "B-NP", 3, ["B-NP", "I-NP", "I-NP"]),
        (BIO, "I-NP", 2, ["B-NP", "I-NP"]),
        (BIO, "I-NP", 1, ["I-NP"]),
        (BIO, "O", 3, ["O", "O", "O"]),
        (BIOES, "I-X", 3, ["B-X", "I-X", "E-X"]),
        (BIOES, "B-X", 2, ["B-X", "E-X"]),
        (POS, "B-ish", 2, ["B-ish", "B-ish"]),  # not a span scheme
    ],
)
def test_span_labels(labels, label, n, expected):
    assert edits.span_labels(labels, label, n) == expected


def test_toggle_builds_and_shrinks_candidate_sets():
    none = (frozenset(),) * 3
    one = edits.toggle_candidate(BIO, none, [1], "O", 1)
    assert one == {1: {"O"}}
    anns = (frozenset(), frozenset({"O"}), frozenset())
    assert edits.toggle_candidate(BIO, anns, [1], "B-NP", 1) == {1: {"O", "B-NP"}}
    assert edits.toggle_candidate(BIO, anns, [1], "O", 1) == {1: frozenset()}
    # all labels allowed is no label
    almost = (frozenset({"O", "B-NP", "I-NP", "B-VP"}),)
    assert edits.toggle_candidate(BIO, almost, [0], "I-VP", 0) == {0: frozenset()}
    # span: the focused token decides add or remove for all
    span = (frozenset({"B-NP"}), frozenset())
    assert edits.toggle_candidate(BIO, span, [0, 1], "B-NP", 0) == {0: frozenset(), 1: frozenset()}
    assert edits.toggle_candidate(BIO, span, [0, 1], "B-NP", 1) == {0: {"B-NP"}, 1: {"I-NP"}}


def test_label_text_is_readable_on_every_palette_colour():
    for color in PALETTE + ("#e0e0e0", "#123456", "#000000", "#ffffff"):
        background = QColor(color)
        assert contrast_ratio(background, readable_text(background)) >= 4.5, color


def test_editor_has_no_hints_until_a_model_gives_some(window, qtbot):
    editor = window.editor
    assert editor.hints is NO_HINTS
    sid = window.session.current_id
    editor.set_hints(
        SentenceHints(sid, {0: TokenHint(suggestion="B-NP", disagreement=("B-NP", "O")), 1: TokenHint(uncertainty=0.7)})
    )
    assert editor.hints.get(0).suggestion == "B-NP"
    assert not editor.grab().isNull()
    editor.set_hints(SentenceHints(sid + 1, {0: TokenHint(suggestion="O")}))
    assert editor.hints is NO_HINTS, "hints for another sentence are not shown"
    window.session.step(1)
    assert editor.hints is NO_HINTS
