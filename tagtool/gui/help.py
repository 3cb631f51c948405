"""Help › Keyboard shortcuts, and the legend of chip colours and marks."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from tagtool.gui.keys import KEY_SCHEME, MODES_NOTE, MOUSE, NEW_SUGGESTIONS_KEYS, SPAN_NOTE, first, sections
from tagtool.gui.model_loop import DEBOUNCE_MS
from tagtool.gui.style import LabelStyle


def _rows(pairs) -> str:
    return "".join(
        f"<tr><td style='padding:2px 14px 2px 0'><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>"
        for k, v in pairs
    )


def shortcuts_html(style: LabelStyle) -> str:
    """Help › Keyboard shortcuts: the key table (:mod:`tagtool.gui.keys`), the mouse and the project's label keys."""
    labels = [(info.shortcut, info.name) for info in style.infos if info.shortcut]
    keys = "".join(
        f"<h3>{html.escape(section)}</h3><table>{_rows((row.label, row.what) for row in rows)}</table>"
        for section, rows in sections().items()
    )
    return (
        f"{keys}<p>{html.escape(MODES_NOTE)}</p>"
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
        "<span style='color:#0f9d8a'><b>Teal dashed outline</b></span> round a suggestion: a string match, "
        "the same text labeled elsewhere (or in a dictionary, a pattern), from the first label on; <i>A | B</i>: "
        f"its evidence conflicts (the tooltip names the source). {first('label all')} labels every occurrence.<br>"
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
