"""The editor with its header (which sentence, its status, its review flag, new suggestions waiting), its label
palette and a token info line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from tagtool.core.annotation import annotation_kind, annotation_status, format_annotation
from tagtool.gui.editor import TokenEditor
from tagtool.gui.keys import NEW_SUGGESTIONS_KEYS, SKIP_KEY
from tagtool.gui.label_palette import LabelPalette
from tagtool.gui.sentence_status import FLAG_COLOR, SKIPPED_COLOR
from tagtool.gui.session import Session

#: The tint of the "new suggestions waiting" line (a calm blue: news, not a warning).
WAITING_COLOR = "#2f80ed"


class EditorPanel(QWidget):
    """Header, label palette (:mod:`tagtool.gui.label_palette`), scrollable :class:`TokenEditor`,
    and details of the focused token.

    Signals
    -------
    showSuggestions()
        The "new suggestions waiting" line's link was clicked.
    """

    showSuggestions = Signal()

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.header = QLabel(self)
        self.header.setTextFormat(Qt.PlainText)
        self.editor = TokenEditor(session, self)
        font = self.editor.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.editor.setFont(font)
        bold = self.header.font()
        bold.setBold(True)
        self.header.setFont(bold)
        # the review flag's comment or the skip, on a tinted line under the header
        self.review = QLabel(self)
        self.review.setTextFormat(Qt.PlainText)
        self.review.setWordWrap(True)
        self.review.setMargin(4)
        self.review.hide()
        # a newer model's suggestions wait for this sentence (tagtool.gui.suggestion_hold)
        self.waiting = self._waiting_line()
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.StyledPanel)
        self.scroll.setWidget(self.editor)
        self.scroll.setFocusProxy(self.editor)
        self.palette_bar = LabelPalette(self.editor, self)
        self.token_info = QLabel(self)
        self.token_info.setTextFormat(Qt.PlainText)
        self.token_info.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.review)
        layout.addWidget(self.waiting)
        layout.addWidget(self.palette_bar)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.token_info)
        session.sentenceChanged.connect(self._update_header)
        session.annotationsChanged.connect(lambda sid, _changes: sid == session.current_id and self._update_header())
        session.reviewChanged.connect(self._update_header)
        self.editor.focusChanged.connect(self._update_token)
        self._update_header()
        self._update_token(self.editor.focus)

    def _waiting_line(self) -> QLabel:
        """The "new suggestions waiting" line, hidden; its link emits ``showSuggestions``."""
        waiting = QLabel(self)
        waiting.setTextFormat(Qt.RichText)
        waiting.setWordWrap(True)
        waiting.setMargin(4)
        waiting.setText(
            f"↻ <b>New suggestions</b> waiting: <a href='show'>show them</a> ({NEW_SUGGESTIONS_KEYS[0]}) "
            "or leave the sentence. Enter accepts those on screen."
        )
        waiting.setToolTip(
            "A newer model suggests other labels here. The suggestions on screen stay as "
            "they were while you work on this sentence; Enter accepts them."
        )
        tint = QColor(WAITING_COLOR)
        waiting.setStyleSheet(
            f"QLabel {{ border-left: 4px solid {tint.name()}; "
            f"background: rgba({tint.red()}, {tint.green()}, {tint.blue()}, 40); }}"
        )
        waiting.linkActivated.connect(lambda _link: self.showSuggestions.emit())
        waiting.hide()
        return waiting

    def _update_header(self, *_args) -> None:
        s = self.session
        if s.sentence is None:
            self.header.setText("No sentence")
            return
        summary = (
            f"Sentence {s.index_of(s.current_id) + 1} of {s.n_sentences}  ·  "
            f"{len(s.sentence)} tokens  ·  {annotation_status(s.annotations)}"
        )
        self.header.setText(summary)
        self._update_review()

    def set_waiting(self, waiting: bool) -> None:
        """Show or hide the "new suggestions waiting" line."""
        self.waiting.setVisible(waiting)

    def _update_review(self) -> None:
        review = self.session.edits.review()
        lines = []
        if review.flagged:
            lines.append(f"⚑ Flagged for review{': ' + review.comment if review.comment else ''}")
        if review.skipped:
            lines.append(f"↷ Skipped: left out of the queue and of training ({SKIP_KEY} puts it back)")
        self.review.setText("\n".join(lines))
        color = QColor(FLAG_COLOR if review.flagged else SKIPPED_COLOR)
        tint = f"rgba({color.red()}, {color.green()}, {color.blue()}, 40)"
        self.review.setStyleSheet(f"QLabel {{ border-left: 4px solid {color.name()}; background: {tint}; }}")
        self.review.setVisible(bool(lines))

    def _update_token(self, t: int) -> None:
        s = self.session
        if s.sentence is None or not 0 <= t < len(s.sentence):
            self.token_info.clear()
            return
        ann = s.annotations[t]
        columns = "  ".join(f"{k}={v[t]}" for k, v in s.sentence.columns.items())
        selection = self.editor.selection()
        picked = f"  ·  {len(selection)} tokens selected" if len(selection) > 1 else ""
        kind = annotation_kind(ann)
        text = f"{kind}: {format_annotation(ann, s.project.labels)}" if ann else "no label"
        self.token_info.setText(
            f"Token {t + 1}: {s.sentence.tokens[t]}  {columns}  ·  {text}{picked}".replace("   ", "  ")
        )
