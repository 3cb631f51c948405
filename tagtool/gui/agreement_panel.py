"""The statistics dock's "Annotators" part: agreement between annotators and per-annotator progress.

The numbers are :mod:`tagtool.services.agreement`'s (the same as ``tagtool
agreement``).  They are computed in a worker thread
(:class:`~tagtool.gui.worker.TaskRunner`, paced: the worker gives the GUI
thread a turn every few milliseconds) on a read-only connection of its own
(:class:`~tagtool.services.agreement.progress.ProjectQuery`), and only when the
dock refreshes, which it does only while on screen.  Reading the answers
and the action log and scoring spans are Python loops over every answer,
too long for the GUI thread on a big project.  One computation runs at a
time, and the next waits a pause proportional to the last one's duration
(every edit refreshes the dock).  A project whose data is not in its file
(an old file opened read-only, migrated in memory) is computed on the GUI
thread.  While the first numbers are computed the panel shows the worker's
progress (the runner's throttled ``progress`` signal).  A big team's
tables are cut to :data:`DOCK_ROWS` rows, with a note of the rest: a long
rich-text label is laid out on the GUI thread at every refresh.
"""

from __future__ import annotations

import html
import logging
import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tagtool import collector
from tagtool.errors import Cancelled
from tagtool.gui.worker import TaskRunner
from tagtool.services.agreement.progress import ProjectAgreement, ProjectQuery, of_project
from tagtool.services.agreement.report import disagreements, pair_rows, pairs_note, progress_rows

log = logging.getLogger(__name__)

#: A new computation starts no sooner than this many times the last one's duration after it started.
PAUSE_FACTOR = 4.0
#: Columns of :func:`tagtool.services.agreement.report.pair_rows` the dock shows (its width is small):
#: a, b, compared, agree %, kappa, alpha, span F1, sets.
DOCK_PAIR_COLUMNS = (
    (0, "a"),
    (1, "b"),
    (3, "compared"),
    (4, "agree %"),
    (5, "κ"),
    (6, "α"),
    (9, "span F1"),
    (10, "sets"),
)
#: Disagreements listed under the table.
DOCK_DISAGREEMENTS = 5
#: Rows of each table the dock shows (a big team's pairs and annotators are for ``tagtool agreement``):
#: a long rich-text label is laid out on the GUI thread.
DOCK_ROWS = 30
NO_AGREEMENT = (
    "Agreement needs the answers of two annotators or more (a Label Studio import with several "
    "annotators, or their merged projects)."
)


def _table(header: list[str], rows: list[list[str]], names: int = 1) -> str:
    """An HTML table; the first ``names`` columns left-aligned, the numbers right-aligned."""

    def cells(tag: str, row: list[str]) -> str:
        return "".join(
            f"<{tag} align='{'left' if i < names else 'right'}'>{html.escape(c)}</{tag}>" for i, c in enumerate(row)
        )

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f"<table cellspacing='0' cellpadding='3'><tr>{cells('th', header)}</tr>{body}</table>"


def _clipped(rows: list[list[str]], what: str, keep_last: bool = False) -> tuple[list[list[str]], str]:
    """At most :data:`DOCK_ROWS` rows (the last one kept, as the "all" row), and a note of the rest."""
    if len(rows) <= DOCK_ROWS:
        return rows, ""
    shown = rows[: DOCK_ROWS - 1] + rows[-1:] if keep_last else rows[:DOCK_ROWS]
    hidden = len(rows) - len(shown)
    return shown, f"<p><small>{hidden:,} more {what}: tagtool agreement lists them all</small></p>"


def agreement_html(result: ProjectAgreement) -> str:
    """The agreement table, the frequent disagreements and the progress table as rich text."""
    parts = []
    agreement = result.agreement
    if agreement is None:
        parts.append(f"<p>{html.escape(NO_AGREEMENT)}</p>")
    else:
        rows = [[row[i] for i, _ in DOCK_PAIR_COLUMNS] for row in pair_rows(agreement)]
        rows, more = _clipped(rows, "pairs", keep_last=len(agreement.pairs) > 1)
        parts.append(_table([name for _, name in DOCK_PAIR_COLUMNS], rows, names=2) + more)
        note = (
            "κ: Cohen's kappa (all: mean over pairs) · α: Krippendorff's alpha · tokens with a candidate set "
            "are left out and counted in sets (compatible/all)"
        )
        if not agreement.span_scheme:
            note += " · labels are not spans: no span F1"
        if pairs_note(agreement):
            note += f" · {pairs_note(agreement)}"
        parts.append(f"<p><small>{html.escape(note)}</small></p>")
        off = disagreements(agreement, DOCK_DISAGREEMENTS)
        if off:
            parts.append(
                "<p>Disagree most on: " + html.escape(", ".join(f"{x} · {y} ({n})" for x, y, n in off)) + "</p>"
            )
    if result.progress:
        parts.append(
            "<p>Per annotator: sentences and tokens answered; tokens per minute from their actions in "
            "this project's log</p>"
        )
        rows, more = _clipped(progress_rows(result.progress), "annotators")
        parts.append(_table(["annotator", "sentences", "tokens", "tokens/min"], rows) + more)
    return "".join(parts)


class AgreementPanel(QWidget):
    """Agreement and per-annotator progress; :meth:`refresh` recomputes them off the GUI thread."""

    #: Emitted on the GUI thread when new numbers are shown (tests wait for it).
    shown = Signal()
    #: The worker's answer (a ProjectAgreement, an error message, or None when stopped); connected
    #: before any computation starts, so one that ends at once cannot answer to nobody.
    _answered = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel("Annotators: agreement and progress", self)
        self.body = QLabel(self)
        self.body.setTextFormat(Qt.RichText)
        self.body.setWordWrap(True)
        self.body.setText("Counting…")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        self.result: ProjectAgreement | None = None
        self._runner: TaskRunner | None = None
        self._project = None
        self._running = False  # one computation at a time: a request meanwhile waits (_pending)
        self._started = self._duration = 0.0  # of the last computation (time.monotonic, seconds)
        self._pending = QTimer(self, singleShot=True)
        self._pending.timeout.connect(self.refresh_pending)
        self._wanted = False  # a refresh asked for and not started yet
        self._answered.connect(self._take)

    def refresh(self, project) -> None:
        """Recompute for ``project``, at once or when the pause after the last computation ends.

        Every edit makes the dock refresh; on a big project one computation
        takes seconds of the worker's time, so one runs at a time and the
        next starts no sooner than :data:`PAUSE_FACTOR` times the last one's
        duration after it started (requests meanwhile make one computation).
        """
        self._project, self._wanted = project, True
        if not self._running:  # else _take schedules it
            self._schedule()

    def _schedule(self) -> None:
        wait = self._started + PAUSE_FACTOR * self._duration - time.monotonic()
        if wait > 0:
            self._pending.start(int(wait * 1000) + 1)
            return
        self._wanted = False
        self._start()

    def refresh_pending(self) -> None:
        """The request that waited for the pause (:meth:`refresh`)."""
        if self._wanted and not self._running:
            self._schedule()

    def _start(self) -> None:
        project = self._project
        if project is None or project.closed:
            return
        query = ProjectQuery.of(project)
        self._started = time.monotonic()
        if query is None:
            self._show(of_project(project))
            self._duration = time.monotonic() - self._started
            return
        if self._runner is None:
            self._runner = TaskRunner(self, paced=True)
        self._running = True
        answered = self._answered

        def run(state) -> None:  # worker thread
            try:
                with collector.paused():  # what the worker makes is freed by reference counting
                    # closed first: a closed project's worker stops without waiting for a GUI turn
                    answer = query(lambda: project.closed or state.should_stop(), state.progress)
            except Cancelled:
                answer = None
            except Exception as exc:  # shown in the panel instead of lost in the thread
                log.exception("computing the agreement failed")
                answer = f"{type(exc).__name__}: {exc}"
            answered.emit(answer)  # queued to the GUI thread (this object lives there)

        self._runner.start(run, wire=lambda task: task.signals.progress.connect(self._progressed))

    def _progressed(self, fraction: float, message: str) -> None:
        """A running computation's progress, shown until its first numbers replace it."""
        if self.result is None:
            self.body.setText(html.escape(f"Counting… {100 * fraction:.0f} % {message}".rstrip()))

    def _take(self, answer) -> None:
        self._running = False
        self._duration = time.monotonic() - self._started
        if isinstance(answer, ProjectAgreement):
            self._show(answer)
        elif isinstance(answer, str):
            self.body.setText(html.escape(f"Could not compute the agreement: {answer}"))
        if self._wanted:
            self._schedule()

    def _show(self, result: ProjectAgreement) -> None:
        self.result = result
        self.body.setText(agreement_html(result))
        self.shown.emit()
