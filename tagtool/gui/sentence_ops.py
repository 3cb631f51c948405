"""Window commands on the current sentence: flag it for review, skip it, split or merge its tokens.

Ctrl+Shift+F       flag the sentence for review with a comment (or edit the
                   comment, or remove the flag)
Ctrl+K             skip the sentence (it leaves the queue and training) and
                   go on to the next one J would offer; again: un-skip
Ctrl+G             the next sentence flagged for review
Ctrl+Shift+S       split the focused token (a dialog: where)
Ctrl+Shift+M       merge the focused token with the next one
=================  ==========================================================
=======
What annotators of other tools expect, as Edit and Go menu
commands with keys (their rows in :mod:`tagtool.gui.keys`: Ctrl+Shift+F flag, Ctrl+K skip,
Ctrl+G next flagged, Ctrl+Shift+S split, Ctrl+Shift+M merge).

Each is one undo step (:mod:`tagtool.gui.sentence_edits`).  The keys carry
Ctrl so they can never be a label's shortcut (labels take plain keys).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tagtool.errors import TagtoolError
from tagtool.gui.keys import NEXT_FLAGGED_KEY, SKIP_KEY


class FlagDialog(QDialog):
    """The comment of a review flag: Flag (OK), Remove flag (when flagged), Cancel.

    ``choice`` is ``"flag"`` or ``"unflag"`` once accepted.
    """

    def __init__(self, comment: str, flagged: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Flag for review")
        self.choice = "flag"
        self.comment = QLineEdit(comment, self)
        self.comment.setPlaceholderText("What should the reviewer look at? (optional)")
        self.comment.selectAll()
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.button(QDialogButtonBox.Ok).setText("Flag" if not flagged else "Save comment")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.remove = QPushButton("Remove flag", self)
        self.remove.clicked.connect(self._unflag)
        if flagged:
            buttons.addButton(self.remove, QDialogButtonBox.DestructiveRole)
        else:
            self.remove.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Comment for the reviewer:", self))
        layout.addWidget(self.comment)
        layout.addWidget(buttons)
        self.resize(440, self.sizeHint().height())

    def _unflag(self) -> None:
        self.choice = "unflag"
        self.accept()


def split_offset(token: str, text: str, cursor: int) -> int | None:
    """Where to split ``token``, from the dialog's ``text`` and cursor; None if it says nowhere valid.

    The text may be the token with one space typed at the split, or the
    token unchanged with the cursor at the split.
    """
    if text == token:
        return cursor if 0 < cursor < len(token) else None
    parts = text.split()
    if len(parts) == 2 and "".join(parts) == token:
        return len(parts[0])
    return None


class SplitDialog(QDialog):
    """Where a token splits: the cursor in its text, or a space typed there."""

    def __init__(self, token: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Split token")
        self.token = token
        self.text = QLineEdit(token, self)
        # most tokenization errors leave punctuation stuck to a word: offer the cut before it
        self.text.setCursorPosition(len(token) - 1 if not token[-1].isalnum() else len(token) // 2)
        self.preview = QLabel(self)
        self.preview.setTextFormat(Qt.PlainText)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        self.buttons.button(QDialogButtonBox.Ok).setText("Split")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Put the cursor where the token splits (or type a space there):", self))
        layout.addWidget(self.text)
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)
        self.text.textChanged.connect(self._update)
        self.text.cursorPositionChanged.connect(self._update)
        self._update()

    def offset(self) -> int | None:
        return split_offset(self.token, self.text.text(), self.text.cursorPosition())

    def _update(self, *_args) -> None:
        at = self.offset()
        ok = self.buttons.button(QDialogButtonBox.Ok)
        ok.setEnabled(at is not None)
        self.preview.setText("→ cannot split there" if at is None else f"→ “{self.token[:at]}”  +  “{self.token[at:]}”")


class SentenceActions(QObject):
    """The Edit and Go menu commands of this module, wired to the window's current session."""

    def __init__(self, window, edit_menu, go_menu):
        super().__init__(window)
        self.window = window
        self.dialog: QDialog | None = None  # the open flag or split dialog (tests reach it here)
        edit_menu.addSeparator()
        self.flag_action = window._action(edit_menu, "&Flag sentence for review…", self.ask_flag, "flag")
        self.skip_action = window._action(edit_menu, "S&kip sentence", self.toggle_skip, "skip")
        self.split_action = window._action(edit_menu, "S&plit token…", self.ask_split, "split")
        self.merge_action = window._action(edit_menu, "&Merge token with next", self.merge, "merge")
        self.next_flagged_action = window._action(go_menu, "Next &flagged sentence", self.next_flagged, "next flagged")
        edit_menu.aboutToShow.connect(self._name_skip)

    @property
    def token_actions(self) -> list:
        """For the editor's context menu."""
        return [self.split_action, self.merge_action]

    @property
    def session(self):
        return self.window.session

    def _report(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 6000)

    def _name_skip(self) -> None:
        skipped = self.session is not None and self.session.edits.review().skipped
        self.skip_action.setText("Un-s&kip sentence" if skipped else "S&kip sentence")

    def _done(self) -> None:
        self.dialog = None
        if self.window.editor is not None:
            self.window.editor.setFocus()

    # ------------------------------------------------------------------
    # flag, skip, go

    def ask_flag(self) -> None:
        if self.session is None or self.session.current_id is None:
            return
        review = self.session.edits.review()
        dialog = self.dialog = FlagDialog(review.comment, review.flagged, self.window)
        dialog.accepted.connect(lambda: self._flag(dialog))
        dialog.finished.connect(self._done)
        dialog.open()

    def _flag(self, dialog: FlagDialog) -> None:
        try:
            if dialog.choice == "unflag":
                self.session.edits.unflag()
                self._report("Review flag removed.")
            else:
                self.session.edits.flag(dialog.comment.text())
                self._report(f"Flagged for review ({NEXT_FLAGGED_KEY} goes to the next flagged sentence).")
        except TagtoolError:
            pass  # the session reported it (saveFailed)

    def toggle_skip(self) -> None:
        if self.session is None or self.session.current_id is None:
            return
        skip = not self.session.edits.review().skipped
        try:
            self.session.edits.set_skipped(skip)
        except TagtoolError:
            return
        if not skip:
            self._report("Sentence back in the queue.")
        elif self.session.next_unfinished():
            self._report(f"Skipped: it left the queue ({SKIP_KEY} on it puts it back; the list can show skipped ones).")
        else:
            self._report("Skipped. No other sentence is left to label.")
        self.window.editor.setFocus()

    def next_flagged(self) -> None:
        if self.session is None:
            return
        if not self.session.edits.next_flagged():
            self._report("No other sentence is flagged for review.")
        self.window.editor.setFocus()

    # ------------------------------------------------------------------
    # tokens

    def ask_split(self) -> None:
        editor = self.window.editor
        if editor is None or not editor.tokens:
            return
        t = editor.focus
        token = editor.tokens[t]
        if len(token) < 2:
            self._report(f"“{token}” has one character: nothing to split.")
            return
        dialog = self.dialog = SplitDialog(token, self.window)
        dialog.accepted.connect(lambda: self._split(t, dialog.offset()))
        dialog.finished.connect(self._done)
        dialog.open()

    def _split(self, t: int, offset: int | None) -> None:
        if offset is None:
            return
        try:
            self.session.edits.split_token(t, offset)
        except TagtoolError as e:
            self._report(f"Not split: {e}")

    def merge(self) -> None:
        editor = self.window.editor
        if editor is None or not editor.tokens:
            return
        t = editor.focus
        if t + 1 >= len(editor.tokens):
            self._report("The last token has no next token to merge with.")
            return
        try:
            self.session.edits.merge_tokens(t)
        except TagtoolError as e:
            self._report(f"Not merged: {e}")
