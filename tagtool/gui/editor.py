"""The sentence editor: tokens as chips, driven by the keyboard (and the mouse).

Keys (also listed in Help › Keyboard shortcuts):

=====================  ====================================================
←/→, Home/End          move the focused token (the selection collapses)
Shift+←/→, Shift+Home  extend the selection from its anchor
1–9 (label shortcut)   full label on the selection, then move on (span
                       schemes: the type's B-, a span on a selection)
Shift + label key      the type's I- label (span schemes)
Ctrl/Alt + 1–9         toggle that label in the selection's candidate sets
0, Delete, Backspace   clear the selection's annotations
/ or Ctrl+L            searchable label picker
N / P                  next / previous sentence
J                      the most informative sentence not fully labeled
Enter                  accept the model's suggestions on screen for the whole
                       sentence, then the queue's next sentence (Edit ›
                       Preferences › Next sentence after Enter)
Space                  accept the suggestion on the selection, then move on
Tab / Shift+Tab        the next / previous token the model asks about, across
                       sentences in queue order (:mod:`tagtool.gui.questions`)
Shift+Space            the two labels the model is torn between, as a
                       candidate set on the focused token (``--mode partial``)
Esc                    collapse the selection to the focused token
=====================  ====================================================

In the token-question mode (Go › Token questions mode, Ctrl+Shift+Q) the
questions are marked, a sentence opens on its first question, and answering
one (a label key, Space, Shift+Space) moves on to the next question of the
sentence.  A span question (Go › Ask whole spans, :mod:`tagtool.gui.span_plan`)
is selected whole, so one label key labels it.

The mouse (:mod:`tagtool.gui.editor_mouse`): a drag over the chips, or a
click then Shift+click, selects a span, which the keys above, the label
palette (:mod:`tagtool.gui.label_palette`) or the context menu label; a
click on a faded suggestion accepts the suggested span.

Window commands that act on the sentence (flag, skip, split and merge
tokens: :mod:`tagtool.gui.sentence_ops`) are menu shortcuts; the context
menu lists the token ones too (:attr:`TokenEditor.token_actions`).

Span labels in BIO-style schemes: see :mod:`tagtool.gui.edits`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolTip, QWidget

from tagtool.errors import LabelError, TagtoolError
from tagtool.gui import edits
from tagtool.gui.chips import ChipPainter, ChipState, paint_span_links
from tagtool.gui.editor_menu import token_menu
from tagtool.gui.editor_mouse import MouseSelection
from tagtool.gui.hints import NO_HINTS, SentenceHints, hint_tooltip
from tagtool.gui.keys import EDITOR
from tagtool.gui.label_keys import chord, commands, key_names
from tagtool.gui.label_picker import LabelPicker
from tagtool.gui.session import Session

#: ``{key: command}`` of the editor's rows of the key table (:mod:`tagtool.gui.keys`).
_COMMANDS = commands(EDITOR)
#: Keys the editor keeps for itself ("0npj/"); labels cannot take them as shortcuts.
RESERVED_KEYS = frozenset(k.lower() for k in _COMMANDS if len(k) == 1)


class TokenEditor(MouseSelection, QWidget):
    """Paints the current sentence's tokens as chips and edits their labels.

    Signals
    -------
    focusChanged(int)
        The focused token's index.
    message(str)
        Something to tell the user (a refused edit), for the status bar.
    """

    focusChanged = Signal(int)
    message = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.focus, self.anchor = 0, 0
        self.hints: SentenceHints = NO_HINTS
        #: What Tab and Shift+Space ask (the model loop): ``next_question(sid, focus, direction)``
        #: and ``pair(sid, token)``; None without one.
        self.questions = None
        #: After Enter completes a sentence, open the queue's next one (Edit › Preferences).
        self.advance_after_accept = True
        self._arrived = False  # a sentence just opened: its first hints may place the focus
        self._rects = []
        self.picker: LabelPicker | None = None
        #: Window actions on the focused token (split, merge) for the context menu.
        self.token_actions: list = []
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMouseTracking(True)  # the hand over a suggestion a click accepts
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Minimum)
        self.setAttribute(Qt.WA_OpaquePaintEvent, False)
        session.sentenceChanged.connect(self._sentence_changed)
        session.annotationsChanged.connect(self._annotations_changed)
        session.tokensChanged.connect(self._tokens_changed)
        session.labelsChanged.connect(self._relayout)
        self._sentence_changed(session.current_id)

    # ------------------------------------------------------------------
    # state

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.session.sentence.tokens if self.session.sentence else ()

    @property
    def annotations(self) -> tuple[frozenset, ...]:
        """What the screen shows for each token of the current sentence."""
        return self.session.annotations

    def selection(self) -> list[int]:
        return edits.select_range(self.anchor, self.focus) if self.tokens else []

    def set_hints(self, hints: SentenceHints) -> None:
        """Model output to draw (the hook for suggestions and guidance)."""
        self.hints = hints if hints.sentence_id == self.session.current_id else NO_HINTS
        arrived, self._arrived = self._arrived, False
        asked = self.hints.questions() if self.hints.asking else []
        if arrived and asked:
            self.select_question(asked[0])  # the token-question mode opens a sentence on its first question
        self._relayout()

    def set_focus(self, token: int, extend: bool = False) -> None:
        if not self.tokens:
            return
        token = max(0, min(len(self.tokens) - 1, token))
        self.focus = token
        if not extend:
            self.anchor = token
        self.update()
        self.focusChanged.emit(token)

    def _sentence_changed(self, _sid) -> None:
        self.hints = NO_HINTS
        start = next((t for t, a in enumerate(self.annotations) if len(a) != 1), 0)
        self.focus = self.anchor = start
        self._arrived = True
        self._relayout()
        self.focusChanged.emit(start)

    def _tokens_changed(self, sid: int, focus: int) -> None:
        """A split or merge: the chips are laid out again (annotationsChanged follows), ``focus`` focused."""
        if sid == self.session.current_id:
            self.hints = NO_HINTS  # they name the old tokens; the model loop sends the new ones
            self._relayout()
            self.set_focus(focus)

    def _annotations_changed(self, sid: int, _changes) -> None:
        if sid == self.session.current_id:
            self._relayout()
            self.focusChanged.emit(self.focus)

    # ------------------------------------------------------------------
    # edits

    def _edit(self, changes: dict, text: str, kind: str | None = None) -> bool:
        """Apply an edit (``kind``: its action in the log, :meth:`Session.edit`).

        False only when the project refused it.
        """
        try:
            self.session.edit(changes, text, kind)
        except TagtoolError as e:
            self.message.emit(f"Not saved: {e}")
            return False
        return True

    def apply_full(self, label: str) -> None:
        tokens = self.selection()
        if not tokens:
            return
        try:
            changes = edits.set_full(self.session.project.labels, tokens, label)
        except LabelError as e:  # the key's label was removed by another program
            self.session.refuse_stale_label(e)
            return
        if self._edit(changes, f"Label {_count(tokens)} {label}"):
            self._move_on(tokens[-1])

    def toggle_candidate(self, label: str) -> None:
        tokens = self.selection()
        if tokens:
            try:
                changes = edits.toggle_candidate(
                    self.session.project.labels, self.annotations, tokens, label, self.focus
                )
            except LabelError as e:  # the key's label was removed by another program
                self.session.refuse_stale_label(e)
                return
            self._edit(changes, f"Toggle candidate {label} on {_count(tokens)}", "candidate")

    def clear_selection(self) -> None:
        tokens = self.selection()
        if tokens:
            self._edit(edits.clear(tokens), f"Clear {_count(tokens)}")

    def suggested_changes(self, tokens=None) -> dict:
        """The suggestions (the model's, string matches') on ``tokens`` (default: all) not fully labeled yet."""
        tokens = range(len(self.tokens)) if tokens is None else tokens
        changes = {}
        for t in tokens:
            hint = self.hints.get(t)
            accepted = hint.accepted() if hint is not None else None
            if accepted and len(self.annotations[t]) != 1:
                changes[t] = accepted  # a string match's conflicting evidence: its candidate set
        return changes

    def accept_suggestions(self, tokens=None) -> bool:
        """Accept the suggestions (of the sentence, or of ``tokens``) as one undo step."""
        changes = self.suggested_changes(tokens)
        if not changes:
            self.message.emit("No suggestion to accept here.")
            return False
        if not self._edit(changes, f"Accept {_count(list(changes))} suggested", "accept"):
            return False
        if tokens is not None:
            self._move_on(max(tokens))
        elif self.advance_after_accept and all(len(a) == 1 for a in self.annotations):
            if not self.session.next_unfinished():
                self.message.emit("Sentence done; no unfinished sentence is left in the queue.")
        return True

    def _move_on(self, last: int) -> None:
        """After answering up to token ``last``: the next question in the token-question mode, else the next token."""
        later = [t for t in self.hints.questions() if t > last] if self.hints.asking else []
        self.select_question(later[0]) if later else self.set_focus(last + 1)

    def select_question(self, token: int) -> None:
        """Focus the question at ``token``; a span question (:mod:`tagtool.gui.span_plan`) is selected whole."""
        first, last = self.hints.question_span(token) or (token, token)
        self.anchor = first
        self.set_focus(last, extend=True)

    # ------------------------------------------------------------------
    # token questions

    def next_question(self, direction: int = 1) -> bool:
        """Go to the next (``direction`` −1: previous) token the model asks about, across sentences."""
        target = (
            None
            if self.questions is None
            else self.questions.next_question(self.session.current_id, self._question_edge(direction), direction)
        )
        if target is None:
            self.message.emit(
                self.questions.no_question_reason()
                if self.questions is not None
                else "No token questions: they come with a model."
            )
            return False
        sid, token = target
        if sid != self.session.current_id:
            self.session.go_to(sid)
        self.select_question(token)
        return True

    def _question_edge(self, direction: int) -> int:
        """Where Tab looks on from: the focus, or the far end of a selected span question the way it goes."""
        return (max if direction >= 0 else min)(self.anchor, self.focus) if self.hints.spans else self.focus

    def give_pair(self) -> bool:
        """Give the focused token the two labels the model is torn between, as a candidate set."""
        pair = (
            None
            if self.questions is None or not self.tokens
            else self.questions.pair(self.session.current_id, self.focus)
        )
        if pair is None:
            self.message.emit("The model is not torn between two labels here (Shift+Space gives them where it is).")
            return False
        t = self.focus
        if self._edit({t: frozenset(pair)}, f"Candidates {pair[0]}|{pair[1]} on token {t + 1}", "candidate"):
            self._move_on(t)
        return True

    def open_picker(self) -> None:
        if self.picker is None:
            self.picker = LabelPicker(self.session.style, self)
            self.picker.picked.connect(self._picked)
        else:
            self.picker.set_style(self.session.style)
        rect = self._rects[self.focus] if self._rects else None
        where = QPoint(int(rect.left()), int(rect.bottom()) + 8) if rect else QPoint(0, 0)
        self.picker.popup(self.mapToGlobal(where))

    def _picked(self, label: str, as_candidate: bool) -> None:
        self.setFocus()
        (self.toggle_candidate if as_candidate else self.apply_full)(label)

    # ------------------------------------------------------------------
    # keyboard

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The editor's keys: the rows of :mod:`tagtool.gui.keys` it binds, then the label keys."""
        if not self.tokens:
            return super().keyPressEvent(event)
        command = _COMMANDS.get(chord(event))
        shift = bool(event.modifiers() & Qt.ShiftModifier)
        toggle = bool(event.modifiers() & (Qt.ControlModifier | Qt.AltModifier))
        if command == "move":
            moves = {
                Qt.Key_Left: self.focus - 1,
                Qt.Key_Right: self.focus + 1,
                Qt.Key_Home: 0,
                Qt.Key_End: len(self.tokens) - 1,
            }
            self.set_focus(moves[event.key()], extend=shift)
        elif shift and self._label_key(event, toggle):
            pass  # Shift + a label key first: on some layouts Shift+7 is "/" (the picker)
        elif command:
            self._run(command, event.key())
        elif not self._label_key(event, toggle):
            super().keyPressEvent(event)

    def _run(self, command: str, key: int) -> None:
        if command == "navigate":
            self._navigate(key)
            return
        {
            "clear": self.clear_selection,
            "picker": self.open_picker,
            "collapse": lambda: self.set_focus(self.focus),
            "accept": self.accept_suggestions,
            "accept token": lambda: self.accept_suggestions(self.selection()),
            "pair": self.give_pair,
        }[command]()

    def _label_key(self, event: QKeyEvent, toggle: bool) -> bool:
        style = self.session.style
        label = next(
            (style.label_for_shortcut(n) for n in key_names(event, toggle) if style.label_for_shortcut(n)), None
        )
        if label is None:
            return False
        (self.toggle_candidate if toggle else self.apply_full)(label)
        return True

    def _navigate(self, key: int) -> None:
        moved = {
            Qt.Key_N: lambda: self.session.step(1),
            Qt.Key_P: lambda: self.session.step(-1),
            Qt.Key_J: self.session.next_unfinished,
        }[key]()
        if not moved:
            self.message.emit("No further sentence there.")

    # ------------------------------------------------------------------
    # mouse (the press, drag and release: tagtool.gui.editor_mouse)

    def build_menu(self) -> QMenu:
        """The context menu of the selection (:func:`tagtool.gui.editor_menu.token_menu`)."""
        return token_menu(self)

    # ------------------------------------------------------------------
    # layout and painting

    def _painter(self) -> ChipPainter:
        return ChipPainter(self.font(), self.session.style, self.palette())

    def _relayout(self) -> None:
        chips = self._painter()
        self._rects, height = chips.layout(self.tokens, self.annotations, self.width(), self.hints)
        self.setMinimumHeight(int(height))
        self.update()

    def event(self, event) -> bool:
        # Tab and Shift+Tab move between token questions; QWidget.event would move the keyboard focus.
        if event.type() == QEvent.KeyPress and self.tokens and _COMMANDS.get(chord(event)) == "question":
            backward = event.key() == Qt.Key_Backtab or bool(event.modifiers() & Qt.ShiftModifier)
            self.next_question(-1 if backward else 1)
            return True
        if event.type() == QEvent.ToolTip:
            t = self.token_at(QPointF(event.pos()))
            text = hint_tooltip(self.hints.get(t)) if t is not None else ""
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.FontChange, QEvent.PaletteChange):
            self._relayout()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._relayout()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        chips = self._painter()
        selected = set(self.selection())
        for t, (token, ann) in enumerate(zip(self.tokens, self.annotations)):
            if t >= len(self._rects):
                break
            state = ChipState(focused=t == self.focus, selected=t in selected)
            chips.paint(painter, self._rects[t], token, ann, state, self.hints.get(t))
        if self.hints.spans:
            paint_span_links(painter, self._rects, self.hints.questions())
        painter.end()


def _count(tokens) -> str:
    return "1 token" if len(tokens) == 1 else f"{len(tokens)} tokens"
