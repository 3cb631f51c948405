"""Help › Keyboard shortcuts, and the legend of chip colours and marks."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from tagtool.gui.adjudication_view import KEYS as ADJUDICATION_KEYS
from tagtool.gui.model_loop import DEBOUNCE_MS
from tagtool.gui.queue_menu import TOKEN_QUESTIONS_KEY
from tagtool.gui.sentence_ops import KEYS as SENTENCE_KEYS
from tagtool.gui.style import LabelStyle
from tagtool.gui.suggestion_hold import NEW_SUGGESTIONS_KEYS

KEYS = (
    ("←  →", "move to the previous / next token"),
    ("Home  End", "first / last token"),
    ("Shift+←  Shift+→", "extend the selection"),
    ("1 … 9", "full label (the label's key) on the selection, then move on; in span schemes the type's "
              "B- label (a selection of several tokens: the whole span)"),
    ("Shift+1 … 9", "the type's I- label (inside a span), in span schemes"),
    ("Ctrl+1 … 9, Alt+1 … 9", "add / remove that label in the candidate set (partial label); "
                              "with Shift, the type's I- label"),
    ("0  Delete  Backspace", "clear the selection's labels"),
    ("/  Ctrl+L", "pick a label from a searchable list (Ctrl+Enter: as candidate)"),
    ("Esc", "collapse the selection"),
    ("N  P", "next / previous sentence"),
    ("J", "the first sentence of the queue (Go › Queue strategy) that is not fully labeled "
          "(without a model: document order, or the random order under Random order)"),
    ("Enter", "accept the model's suggestions on screen for the whole sentence (one undo step); once the "
              "sentence is fully labeled, the queue's next sentence opens (Edit › Preferences)"),
    ("Space", "accept the suggestion on the selected token(s), then move on"),
    ("Tab  Shift+Tab", "the next / previous token the model asks about (a token question), across "
                       "sentences in the queue's order"),
    ("Shift+Space", "give the focused token the two labels the model is torn between, as a candidate set"),
    (TOKEN_QUESTIONS_KEY, "token questions mode: mark the tokens the model asks about; a sentence opens on "
                          "its first question and answering one moves on to the next (kept in the project; "
                          "the status bar shows the mode, a click switches it)"),
    ("Ctrl+T", "train the model now, with the learner's full settings (after an edit it retrains "
               "by itself with a few passes)"),
    ("  ".join(NEW_SUGGESTIONS_KEYS), "show the latest model's suggestions for the open sentence (they wait, "
                                      "marked above the editor, until you leave the sentence or ask)"),
    ("F9", "hide the side panels (Legend, Statistics, Model) for a wider editor, and bring them back"),
    ("Ctrl+Z  Ctrl+Shift+Z", "undo / redo"),
    ("Ctrl+F", "search the sentence list"),
    ("Mouse", "click a token to focus it; drag across tokens (or click, then Shift+click) to select a span; "
              "right-click for labels and suggestions"),
)

#: The mouse, for Help (the editor's press, drag and release: tagtool.gui.editor_mouse).
MOUSE = (
    ("Drag", "press on a token, move, release on another: the tokens between are selected (a span)"),
    ("Shift+click", "extend the selection from its first token to the clicked one"),
    ("Label palette", "the buttons above the editor, each with its key: a click labels the selection as the key "
                      "does (a span type's button: B- on the first token, I- on the rest); Shift+click the I- "
                      "label; Ctrl+click adds the label to the candidate set or removes it; Clear removes the "
                      "labels"),
    ("Click a suggestion", "a click on the faded suggestion under an unlabeled token accepts the suggested span "
                           "it belongs to (B-X I-X … together), as Space does; where the model is torn (A | B) "
                           "the half clicked is the label given. A click on the word only focuses the token"),
    ("Right-click", "the menu of the selection: set a label, toggle a candidate, accept the suggestion"),
)

MODES_NOTE = (
    "Ways of working, named as tagtool simulate --mode names them: full (label every token), "
    f"tokens (only the token questions: {TOKEN_QUESTIONS_KEY}, then J or Tab and a label key; confident tokens "
    "keep their suggestion and stay unlabeled), partial (as tokens, with Shift+Space where the model is torn between "
    "two labels), review (correct the wrong suggestions, Enter accepts the rest). The queue's order "
    "(J, Tab, the list's Info column) is the strategy picked in Go › Queue strategy."
)

KEY_SCHEME = (
    "the same in every project with the same labels: 1 is O, then 2, 3, … the types in alphabetical "
    "order (B-X on the digit, I-X on Shift + the digit; B- and I- of a type share its colour). Types "
    "after the ninth key take a letter of their name (chunking's VP: v, Shift+v). Labels without a key "
    "are one / away: the picker lists every label with its key."
)

SPAN_NOTE = (
    "In BIO schemes a selection of several tokens labeled with a B-X or I-X "
    "label becomes a span: B-X, I-X, …  A candidate toggle on such a selection "
    "adds (or removes) B-X on its first token and I-X on the others."
)


def _rows(pairs) -> str:
    return "".join(
        f"<tr><td style='padding:2px 14px 2px 0'><b>{html.escape(k)}</b></td>"
        f"<td>{html.escape(v)}</td></tr>" for k, v in pairs
    )


def shortcuts_html(style: LabelStyle) -> str:
    labels = [(info.shortcut, info.name) for info in style.infos if info.shortcut]
    return (
        f"<h3>Keys</h3><table>{_rows(KEYS + SENTENCE_KEYS + ADJUDICATION_KEYS)}</table><p>{html.escape(MODES_NOTE)}</p>"
        f"<h3>Mouse</h3><table>{_rows(MOUSE)}</table>"
        f"<p>{html.escape(SPAN_NOTE)}</p>"
        f"<h3>Label keys</h3><p>Label keys are {html.escape(KEY_SCHEME)}</p><table>{_rows(labels)}</table>"
        "<p>Change them in Edit › Labels….</p>"
    )


def legend_html(style: LabelStyle) -> str:
    swatches = "".join(
        f"<tr><td style='background:{info.color}; color:{style.text_color(info.name).name()};"
        f" padding:1px 6px'>{html.escape(info.name)}</td>"
        f"<td style='padding-left:6px'>{html.escape(info.shortcut or '')}</td></tr>"
        for info in style.infos
    )
    return (
        "<p><b>Solid chip</b>: full label.<br><b>Coloured segments</b>: candidate set "
        "(partial label).<br><b>Dashed outline</b>: no label.<br><b>Outline + bar</b>: "
        "focused token; <b>bar</b>: selected.</p>"
        "<p><b>Model marks</b> (View menu toggles):<br>"
        "<i>Faded italic label</i>: the model's suggestion (Enter accepts the sentence's, "
        "Space the selected token's, a click on it its span's).<br>"
        "<span style='background:rgba(240,160,48,0.55)'>&nbsp;Amber token&nbsp;</span>: the model is "
        "uncertain (the stronger, the less sure).<br>"
        "<span style='color:#d62728'><b>⋯ red dotted line</b></span> under a token: the two views "
        "disagree (tooltip: each view's label).<br>"
        "<b>Bar under a candidate</b>: its WD-PSL confidence; <b>outlined candidate</b>: the model's pick.<br>"
        "<span style='color:#8b5cf6'><b>Violet outline and ?</b></span> (token questions, Ctrl+Shift+Q): the "
        "model asks about this token (Tab: the next one); <i>A | B</i> below it: the two labels it is torn "
        "between (Shift+Space gives both).<br>"
        "<b>Info</b> column: the queue strategy's score (Go › Queue strategy): what labeling the sentence "
        "would teach the model per unit of work; J goes to the highest.</p>"
        "<p><b>Sentence list</b>: <span style='color:#d62728'>⚑</span> flagged for review (tooltip: the "
        "comment); ↷ skipped (out of the queue and of training).</p>"
        f"<p><b>Retraining</b>: {DEBOUNCE_MS / 1000:g} s after your last edit the model retrains from the last model "
        "with a few passes (Model panel: <i>Passes after an edit</i>), so the suggestions follow "
        "within about a second; <b>Train now</b> (Ctrl+T) fits with the full settings. The open sentence "
        f"keeps the suggestions it showed: a newer model's wait behind a blue line ({NEW_SUGGESTIONS_KEYS[0]} "
        "shows them) until you leave it.</p>"
        f"<p><b>Label keys</b> are {html.escape(KEY_SCHEME)}</p>"
        f"<table cellspacing='2'>{swatches}</table>"
    )


class ShortcutsDialog(QDialog):
    def __init__(self, style: LabelStyle, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        text = QLabel(shortcuts_html(style))
        text.setTextFormat(Qt.RichText)
        text.setWordWrap(True)
        text.setMargin(8)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(text)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        self.resize(560, 560)


class Legend(QScrollArea):
    """The dock that explains chip colours and marks."""

    def __init__(self, style: LabelStyle, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.text = QLabel()
        self.text.setTextFormat(Qt.RichText)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.text.setMargin(6)
        self.setWidget(self.text)
        self.set_style(style)

    def set_style(self, style: LabelStyle) -> None:
        self.text.setText(legend_html(style))
