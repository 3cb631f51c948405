"""The adjudication view (View › Adjudication, Ctrl+Shift+A): each annotator's answer per token, and keys to resolve.

A dock under the editor shows the current sentence as a table: one column
per token, a first row with the token's training label, then one row per
annotator who answered in the sentence (numbered 1, 2, … by name).  Columns
where the answers differ and nobody resolved them are marked ``≠`` (and
shaded); resolved ones ``✓``.  Keys, while the table has the focus (their rows in
:mod:`tagtool.gui.keys`): 1 … 9 resolves the token with annotator k's answer
(row k), K keeps the candidate set of the answers, Backspace or Delete takes
the resolution back, Tab and Shift+Tab go to the next / previous unresolved
disagreement (past the sentence's last, the next sentence of the list's
"Annotators disagree" order, most disputed first).

Resolving goes through :meth:`~tagtool.gui.adjudication.Adjudication.resolve`
(saved at once, logged, one undo step: Ctrl+Z works here as in the editor);
a resolution is never overwritten by a later merge or import
(:mod:`tagtool.store.team`).  After a resolution the view moves on to the
sentence's next disagreement.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tagtool.core.annotators import combine
from tagtool.errors import TagtoolError
from tagtool.gui.keys import KEEP_KEY, VIEW_KEY

DISPUTED, RESOLVED = "#f0a030", "#2e9d4f"


def disputed(answers: dict[str, frozenset]) -> bool:
    """Whether a token's answers differ (two or more distinct answers)."""
    return len({a for a in answers.values() if a}) > 1


class AnswerTable(QTableWidget):
    """The table; its keys become signals (Tab never leaves it)."""

    picked = Signal(int)  # annotator row, 1-based
    kept = Signal()
    takenBack = Signal()
    moved = Signal(int)  # +1 Tab, -1 Shift+Tab

    def event(self, event) -> bool:
        if event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Tab, Qt.Key_Backtab):
            self.moved.emit(-1 if event.key() == Qt.Key_Backtab or event.modifiers() & Qt.ShiftModifier else 1)
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        key, text = int(event.key()), event.text().lower()
        if int(Qt.Key_1) <= key <= int(Qt.Key_9) and not event.modifiers() & ~Qt.KeypadModifier:
            self.picked.emit(key - int(Qt.Key_0))
        elif text == KEEP_KEY.lower() and not event.modifiers():
            self.kept.emit()
        elif key in (Qt.Key_Backspace, Qt.Key_Delete):
            self.takenBack.emit()
        else:
            super().keyPressEvent(event)


class AdjudicationView(QWidget):
    """The current sentence's answers and resolutions; ``message(str)`` for the status bar."""

    message = Signal(str)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.names: list[str] = []
        self.answers: tuple[dict[str, frozenset], ...] = ()
        self.resolved: dict = {}
        self.title = QLabel(self)
        self.table = AnswerTable(self)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectColumns)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        self.table.picked.connect(self.pick)
        self.table.kept.connect(self.keep_set)
        self.table.takenBack.connect(self.take_back)
        self.table.moved.connect(self.move)
        session.sentenceChanged.connect(lambda _sid: self._follow())
        session.annotationsChanged.connect(lambda sid, _ch: sid == session.current_id and self._follow())
        session.tokensChanged.connect(lambda sid, _t: sid == session.current_id and self._follow())

    def _follow(self) -> None:
        """Refresh for a change of the session, only while shown (a hidden view reads nothing;
        :meth:`AdjudicationDock.show` refreshes it)."""
        if self.isVisible():
            self.refresh()

    # ------------------------------------------------------------------
    # showing

    @property
    def token(self) -> int:
        """The current token (the table's current column), -1 without one."""
        return self.table.currentColumn()

    def refresh(self) -> None:
        """Read the current sentence's answers and resolutions again and fill the table."""
        session, keep = self.session, max(self.token, 0)
        if session.current_id is None:
            self.answers, self.resolved, self.names = (), {}, []
        else:
            self.answers, self.resolved = session.team.answers(), session.team.resolutions()
            self.names = sorted({name for given in self.answers for name in given})
        tokens = session.sentence.tokens if session.sentence is not None else ()
        table = self.table
        table.clear()
        table.setColumnCount(len(tokens))
        table.setRowCount(1 + len(self.names))
        table.setVerticalHeaderLabels(["label", *(f"{k}  {name}" for k, name in enumerate(self.names, 1))])
        for t, word in enumerate(tokens):
            self._fill_column(t, word)
        n_open = sum(disputed(a) and t not in self.resolved for t, a in enumerate(self.answers))
        self.title.setText(self._title(n_open))
        if tokens:
            table.setCurrentCell(0, min(keep, len(tokens) - 1))

    def _title(self, n_open: int) -> str:
        if not self.names:
            return "No annotator answered in this sentence (Tab: the next disagreement)."
        return (
            f"{len(self.names)} annotators; {n_open} unresolved disagreement{'s' * (n_open != 1)} "
            f"(≠).  1–{min(len(self.names), 9)}: pick an annotator's answer, {KEEP_KEY}: keep the set, "
            "Backspace: take back, Tab: next."
        )

    def _fill_column(self, t: int, word: str) -> None:
        answers = self.answers[t] if t < len(self.answers) else {}
        mark = "✓ " if t in self.resolved else "≠ " if disputed(answers) else ""
        header = QTableWidgetItem(mark + word)
        if t in self.resolved:
            header.setToolTip(f"resolved by {self.resolved[t].annotator}")
        self.table.setHorizontalHeaderItem(t, header)
        cells = [self.session.annotations[t] if t < len(self.session.annotations) else frozenset()]
        cells += [answers.get(name, frozenset()) for name in self.names]
        shade = RESOLVED if t in self.resolved else DISPUTED if disputed(answers) else None
        for row, labels in enumerate(cells):
            self.table.setItem(row, t, self._cell(labels, shade if row == 0 else None))

    def _cell(self, labels: frozenset, shade: str | None) -> QTableWidgetItem:
        names = [n for n in self.session.project.labels if n in labels]
        item = QTableWidgetItem("|".join(names) if names else "·")
        item.setTextAlignment(Qt.AlignCenter)
        if len(names) == 1:
            style = self.session.style
            item.setBackground(style.color(names[0]))
            item.setForeground(style.text_color(names[0]))
        if shade is not None:  # the label row of a disputed or resolved token
            font = item.font()
            font.setBold(True)
            item.setFont(font)
            if len(names) != 1:  # a candidate set (or none): shaded, dark text on the light shade
                item.setBackground(QColor(shade).lighter(150))
                item.setForeground(QColor("#000000"))
        return item

    # ------------------------------------------------------------------
    # keys

    def pick(self, k: int) -> None:
        """Resolve the current token with the k-th annotator's answer."""
        t = self.token
        if not 0 <= t < len(self.answers) or not 1 <= k <= len(self.names):
            self.message.emit(f"No annotator {k} in this sentence.")
            return
        answer = self.answers[t].get(self.names[k - 1])
        if not answer:
            self.message.emit(f"{self.names[k - 1]} did not answer this token.")
            return
        self._resolve(t, answer)

    def keep_set(self) -> None:
        """Resolve the current token keeping the candidate set of its answers."""
        t = self.token
        labels = combine(self.answers[t].values(), self.session.project.labels) if 0 <= t < len(self.answers) else None
        if not labels:
            self.message.emit("Nobody answered this token.")
            return
        self._resolve(t, labels)

    def take_back(self) -> None:
        if self.token in self.resolved:
            self._saving(lambda: self.session.team.unresolve(self.token))

    def _resolve(self, t: int, labels: frozenset) -> None:
        if self._saving(lambda: self.session.team.resolve(t, labels)):
            self._next_in_sentence(t, 1) is not None or self.message.emit(
                "No unresolved disagreement left in this sentence; Tab: the next sentence."
            )

    def _saving(self, write) -> bool:
        try:
            return bool(write())
        except TagtoolError:
            return False  # the session said why (saveFailed)

    def _open(self, t: int) -> bool:
        return disputed(self.answers[t]) and t not in self.resolved

    def _next_in_sentence(self, t: int, step: int) -> int | None:
        """Focus the sentence's next (previous) unresolved disagreement after ``t``; its index."""
        t += step
        while 0 <= t < len(self.answers):
            if self._open(t):
                self.table.setCurrentCell(0, t)
                return t
            t += step
        return None

    def move(self, step: int) -> None:
        """Tab: the next unresolved disagreement here, else in the next disputed sentence."""
        start = self.token if self.token >= 0 else (-1 if step > 0 else len(self.answers))
        if self._next_in_sentence(start, step) is not None:
            return
        order = self.session.project.sentence_ids(status="disagree", order_by="disagreement", descending=True)
        others = [sid for sid in order if sid != self.session.current_id]
        if not others:
            self.message.emit("No other sentence with an unresolved disagreement.")
            return
        current = self.session.current_id
        if current in order:
            i = order.index(current)
            target = order[(i + step) % len(order)]
        else:
            target = others[0] if step > 0 else others[-1]
        self.session.go_to(target)  # refresh() follows sentenceChanged
        self._next_in_sentence(-1 if step > 0 else len(self.answers), step)


class AdjudicationDock:
    """The dock and its View menu action (``VIEW_KEY``); a view per open project."""

    def __init__(self, window):
        self.window = window
        self.dock = QDockWidget("Adjudication", window)
        self.dock.setObjectName("adjudication")
        self.dock.setWidget(QLabel("No project open.", window))
        window.addDockWidget(Qt.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.view: AdjudicationView | None = None
        self.dock.visibilityChanged.connect(lambda shown: shown and self.view is not None and self.view.refresh())
        self.action = window.view_menu.addAction("&Adjudication")
        self.action.setShortcut(QKeySequence(VIEW_KEY))
        self.action.triggered.connect(self.show)
        window._project_actions.append(self.action)

    def open(self, session) -> None:
        self.view = AdjudicationView(session, self.window)
        self.view.message.connect(lambda text: self.window.statusBar().showMessage(text, 5000))
        self.dock.setWidget(self.view)

    def close(self) -> None:
        self.view = None
        self.dock.setWidget(QLabel("No project open.", self.window))

    def show(self) -> None:
        """Show the dock with the table focused, on the current token's column."""
        if self.view is None:
            return
        self.dock.show()
        self.dock.raise_()
        self.view.refresh()
        self.view.table.setFocus()
