"""The statistics panel: annotation progress (now and over time), annotation
speed by action kind, agreement between annotators and their progress
(:mod:`tagtool.gui.agreement_panel`), label distribution and the learning curve.

Progress, speed and labels are drawn with QPainter (:mod:`tagtool.gui.charts`); the learning curve with
pyqtgraph (:mod:`tagtool.gui.learning_plot`).  The label distribution is
counted once by SQL (:meth:`~tagtool.store.project_listing.ListingPart.label_counts`; in a big project by a
worker thread on a read-only connection of its own, so that the SQL
never stalls the window) and then kept up to date from each edit's old and new
annotations (``Session.annotationsReplaced``), so a refresh never reads the
corpus.  The sentence and token counts are the session's
(:mod:`tagtool.gui.counts`).  The action log is read once and then
only its new rows (:meth:`Project.actions` with ``after_id``).
"""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from tagtool.gui import statistics_numbers as stats
from tagtool.gui.agreement_panel import AgreementPanel
from tagtool.gui.charts import BarChart, LineChart, Series
from tagtool.gui.id_reader import IdReader
from tagtool.gui.learning_plot import LearningCurvePlots
from tagtool.gui.sentence_status import STATUS_COLORS
from tagtool.store.actions import IDLE_SECONDS
from tagtool.store.worker_reads import ReadOnlyCall

log = logging.getLogger(__name__)

#: Projects from this size count their labels in a worker thread (:meth:`StatisticsPanel._count_in_background`).
BACKGROUND_LABEL_COUNT_MIN = 20_000

#: Bar colours of the action kinds (the sentence list's status colours where they match).
KIND_COLORS = {
    "full label": STATUS_COLORS["full"],
    "candidate set": STATUS_COLORS["partial"],
    "accepted suggestion": "#3b82c4",
    "skipped token": STATUS_COLORS["none"],
    "cleared": "#b05a5a",
    "undo": "#8a6fb0",
    "redo": "#8a6fb0",
    "opened sentence": "#c48a3b",
}


def _clock(t: float) -> str:
    return time.strftime("%d %b %H:%M", time.localtime(t))


class StatisticsPanel(QScrollArea):
    """The "Statistics" dock; refreshes (debounced) while it is visible."""

    def __init__(self, session, loop=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session, self.loop = session, loop
        self.setWidgetResizable(True)
        body = QWidget()
        self.summary = QLabel(body)
        self.summary.setWordWrap(True)
        self.status = BarChart("Sentences", body)
        self.progress = LineChart("Labeled tokens over time", parent=body)
        self.progress.empty_text = "No edits made in the app yet."
        self.labels = BarChart("Label distribution (full labels · in candidate sets)", body)
        self.speed = BarChart(
            f"Annotation speed: tokens per minute by action (gaps over {IDLE_SECONDS:g} s count as {IDLE_SECONDS:g} s)",
            body,
        )
        self.speed_note = QLabel(body)
        self.speed_note.setWordWrap(True)
        self.curve = LearningCurvePlots(body)
        self.team = AgreementPanel(body)  # computed in a worker thread (agreement_panel)
        layout = QVBoxLayout(body)
        for w in (
            self.summary,
            self.status,
            self.progress,
            self.speed,
            self.speed_note,
            self.team,
            self.curve,
            self.labels,
        ):
            layout.addWidget(w)
        layout.addStretch(1)
        self.setWidget(body)
        self._timer = QTimer(self, singleShot=True, interval=800)
        self._timer.timeout.connect(self.refresh)
        self._label_counts: dict[str, list[int]] | None = None  # None: count again
        self._counting: int | None = None  # the ticket of a big project's count in the worker
        self._tickets = 0
        self._label_reader = IdReader(self)
        self._label_reader.done.connect(self._labels_counted, Qt.QueuedConnection)
        self._label_reader.failed.connect(self._label_count_failed, Qt.QueuedConnection)
        self._actions: list = []  # the action log read so far
        session.actionLogged.connect(lambda _kind: self.schedule())
        session.annotationsReplaced.connect(self._count_edit)
        session.annotationsChanged.connect(self._annotations_changed)
        session.labelsChanged.connect(self._recount)
        session.counts.changed.connect(self._counts_changed)
        self._awaiting_counts = False  # a refresh waits for a big project's first count
        if loop is not None:
            loop.stored.connect(lambda *_: self.schedule())
        # No refresh here: the panel fills once it is on screen (refresh_when_seen),
        # so opening a big project with the dock behind a tab counts nothing.

    def _count_edit(self, _sid, before: dict, after: dict) -> None:
        if self._counting is not None:  # the worker's count may or may not hold it: start again
            self._counting = None
            self._label_counts = None
            self.schedule()
            return
        counts = self._label_counts
        if counts is None:
            return
        for anns, sign in ((before.values(), -1), (after.values(), 1)):
            for ann in anns:
                column = 0 if len(ann) == 1 else 1
                for name in ann:
                    counts.setdefault(name, [0, 0])[column] += sign

    def _counts_changed(self) -> None:
        if self._awaiting_counts:
            self._awaiting_counts = False
            self.refresh_when_seen()
        else:
            self.schedule()

    def _annotations_changed(self, _sid, changes) -> None:
        if not changes:  # a bulk change (import, label rename): count again
            self._label_counts = self._counting = None
        self.schedule()

    def _recount(self) -> None:
        self._label_counts = self._counting = None
        self.schedule()

    def _show_labels(self) -> None:
        style = self.session.style
        self.labels.set_items(
            [(n, f + c, style.color(n).name(), f"{f} · {c}") for n, (f, c) in self.label_counts().items()]
        )

    def _count_in_background(self) -> None:
        """Count the labels of a big project in a worker thread, so that the SQL never stalls the window.

        An edit, a bulk change or a label change during the count drops its
        answer (:attr:`_counting` no longer holds its ticket) and counts again.
        """
        if self._counting is not None:
            return
        call = ReadOnlyCall.of(self.session.project, lambda project: project.listing.label_counts())
        if call is None:  # an in-memory copy: no other connection can read it
            self._show_labels()
            return
        self._tickets += 1
        self._counting = self._tickets
        self._label_reader.start(self._tickets, call)

    def _labels_counted(self, ticket: int, counts: dict) -> None:
        if ticket != self._counting or self.session.project.closed:
            return
        self._counting = None
        self._label_counts = {name: list(pair) for name, pair in counts.items()}
        self._show_labels()

    def _label_count_failed(self, ticket: int, message: str) -> None:
        if ticket == self._counting and not self.session.project.closed:
            log.warning("counting the labels in the background failed (%s); counting here", message)
            self._counting = None
            self._show_labels()

    def shutdown(self) -> None:
        """Stop a count in the worker and wait for its thread (the project closes)."""
        self._counting = None
        self._label_reader.shutdown()

    def label_counts(self) -> dict[str, tuple[int, int]]:
        """``label -> (full, in candidate sets)``, kept up to date without reading the corpus."""
        if self._label_counts is None:
            self._label_counts = {n: list(c) for n, c in self.session.project.listing.label_counts().items()}
        return {n: tuple(self._label_counts.get(n, (0, 0))) for n in self.session.style.names}

    def on_screen(self) -> bool:
        """Seen by the user: shown, and not behind another dock's tab.

        A dock tabified behind another stays "visible" to Qt, so
        ``isVisible`` alone would count a 100k-sentence project at every
        opening and edit for a panel nobody sees.
        """
        return self.isVisible() and not self.visibleRegion().isEmpty()

    def schedule(self) -> None:
        if self.on_screen():
            self._timer.start()

    def refresh_when_seen(self) -> None:
        """Refresh once the event loop has laid the panel out, if it is on screen then.

        Called when it is shown and when its dock's tab is selected; after
        the window's pending paints, so opening a project paints first.
        """
        QTimer.singleShot(0, self, lambda: self.on_screen() and self.refresh())

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh_when_seen()

    def refresh(self) -> None:
        """Count and draw everything; a big project's in two turns of the event loop.

        The sentence and token counts are the session's (``Session.counts``,
        kept up to date per edit; a big project's first count comes from a
        worker, and the refresh waits for it), a big project's labels are
        counted in a worker (:meth:`_count_in_background`).
        """
        project = self.session.project
        if project.closed:
            return
        if not self.session.counts.known:
            self._awaiting_counts = True
            return
        s = self.session.counts.sentences
        total = sum(s.values()) or 1
        self.status.set_items(
            [
                (kind, s[kind], STATUS_COLORS[kind], f"{s[kind]} ({100 * s[kind] / total:.0f}%)")
                for kind in ("full", "partial", "none")
            ]
        )
        if self.session.n_sentences >= BACKGROUND_LABEL_COUNT_MIN:
            QTimer.singleShot(0, self, self._refresh_rest)
        else:
            self._refresh_rest()

    def _refresh_rest(self) -> None:
        project = self.session.project
        if project.closed or not self.session.counts.known:
            return
        t = self.session.counts.tokens
        tokens = sum(t.values()) or 1
        self.summary.setText(
            f"{t['full']} of {tokens} tokens fully labeled ({100 * t['full'] / tokens:.1f}%), "
            f"{t['partial']} with a candidate set."
        )
        points = stats.progress_over_time(project.annotation_history(), t["full"], t["partial"])
        self.progress.set_series(
            [
                Series("full", STATUS_COLORS["full"], [(w, f) for w, f, _ in points]),
                Series("partial", STATUS_COLORS["partial"], [(w, q) for w, _, q in points]),
            ],
            x_format=_clock,
        )
        if self._label_counts is None and self.session.n_sentences >= BACKGROUND_LABEL_COUNT_MIN:
            self._count_in_background()  # the label chart follows when the count is in
        else:
            self._show_labels()
        actions = self.actions()
        self._show_speed(actions)
        self.curve.set_points(stats.learning_curve(project.stored.models(), actions))
        self.team.refresh(project)

    def actions(self) -> list:
        """The project's action log, reading only the rows logged since the last call."""
        last = self._actions[-1].id if self._actions else None
        self._actions += self.session.project.actions(after_id=last)
        return self._actions

    def _show_speed(self, actions) -> None:
        kinds = stats.speed_by_kind(actions)
        items = []
        for name, k in kinds:
            if k.kind == "open":  # per sentence: getting there and reading it before its first action
                per_minute = 60.0 * k.actions / k.seconds if k.seconds > 0 else 0.0
                items.append(
                    (
                        name,
                        per_minute,
                        KIND_COLORS[name],
                        f"{per_minute:.1f}/min · "
                        f"{k.seconds / max(k.actions, 1):.1f} s each (read before the first action) · "
                        f"{k.actions} in {k.seconds / 60:.1f} min",
                    )
                )
                continue
            per_minute = k.tokens_per_minute or 0.0
            per_token = "" if k.seconds_per_token is None else f" · {k.seconds_per_token:.1f} s/token"
            items.append(
                (
                    name,
                    per_minute,
                    KIND_COLORS.get(name, STATUS_COLORS["none"]),
                    f"{per_minute:.0f}/min{per_token} · {k.tokens} in {k.seconds / 60:.1f} min",
                )
            )
        self.speed.set_items(items)
        minutes = sum(a.active for a in actions) / 60.0
        self.speed_note.setForegroundRole(QPalette.WindowText if actions else QPalette.PlaceholderText)
        self.speed_note.setText(
            f"{len(actions)} actions in {minutes:.1f} annotation minutes; undo and redo time counts toward the "
            "action they reverse in tagtool simulate --costs-from."
            if actions
            else "No annotation action logged yet: the app times each edit from now on."
        )
