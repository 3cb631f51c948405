"""The main window: the sentence list beside the editor, docks, status bar (menus: :mod:`tagtool.gui.window_menus`).

Model-in-the-loop parts plug in through :meth:`MainWindow.add_panel` (a dock
with its View toggle), :meth:`TokenEditor.set_hints` and
:meth:`SentenceListModel.set_scores`; per open project a
:class:`~tagtool.gui.model_loop.ModelLoop` trains in the background and
feeds them, with its :class:`~tagtool.gui.model_panel.ModelPanel` and the
:class:`~tagtool.gui.statistics_panel.StatisticsPanel` in docks.  Its tagger is
written out or run over files by :mod:`tagtool.gui.tagger_commands`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QUndoGroup
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QSplitter

from tagtool.errors import TagtoolError
from tagtool.gui import transfer, window_layout
from tagtool.gui.add_documents import ask_add_documents
from tagtool.gui.adjudication_view import AdjudicationDock
from tagtool.gui.batch_dialog import BatchTagging
from tagtool.gui.editor_panel import EditorPanel
from tagtool.gui.file_fields import Folders
from tagtool.gui.help import Legend, ShortcutsDialog
from tagtool.gui.hints import Marks
from tagtool.gui.knowledge import KnowledgeController
from tagtool.gui.knowledge_retrain import follow as follow_knowledge
from tagtool.gui.labels_dialog import LabelsDialog
from tagtool.gui.model_loop import ModelLoop
from tagtool.gui.model_panel import ModelPanel
from tagtool.gui.new_project import NewProjectDialog
from tagtool.gui.readonly_banner import ReadonlyBanner, say_if_readonly
from tagtool.gui.representations import RepresentationsController, ask_add_text
from tagtool.gui.sentence_list_panel import SentenceListPanel
from tagtool.gui.session import Session
from tagtool.gui.settings import GuiSettings
from tagtool.gui.statistics_panel import StatisticsPanel
from tagtool.gui.status_log import StatusBarLog, WarningLabel
from tagtool.gui.style import LabelStyle, apply_theme
from tagtool.gui.tagger_commands import TaggerCommands
from tagtool.gui.warmup import KernelWarmup
from tagtool.gui.window_menus import WindowMenus
from tagtool.store import window_lock
from tagtool.store.project import SUFFIX, Project

log = logging.getLogger(__name__)
PROJECT_FILTER = f"tagtool projects (*{SUFFIX});;All files (*)"


class MainWindow(WindowMenus, TaggerCommands, QMainWindow):
    """The application's window: an open project's list, editor and docks.

    The menus are :class:`WindowMenus`; Export tagger and Batch-tag file are :class:`TaggerCommands`.
    """

    def __init__(self, settings: QSettings | None = None):
        super().__init__()
        self.settings = GuiSettings(settings)
        self.session: Session | None = None
        self.list_panel: SentenceListPanel | None = None
        self.editor_panel: EditorPanel | None = None
        self.model_loop: ModelLoop | None = None
        self.model_panel: ModelPanel | None = None
        self.stats_panel: StatisticsPanel | None = None
        self.error_box: QMessageBox | None = None
        self.batch = BatchTagging(self)
        self.batch.done.connect(self._batch_done)
        self.batch.failed.connect(lambda m: self.show_error("Batch-tag", m))
        self.batch.cancelled.connect(lambda: self._report("Batch tagging cancelled; nothing written."))
        self.exports = transfer.BackgroundExport(self)  # a big project's exports, written by a worker
        self.exports.done.connect(self._report)
        self.exports.failed.connect(lambda m: self.show_error("Export annotations", m))
        self.undo_group = QUndoGroup(self)
        self.progress = QLabel(self)
        self.statusBar().addPermanentWidget(self.progress)
        # a status message gets the counts' room while it shows (at 1024×700 they cut it to a few words)
        self.statusBar().messageChanged.connect(lambda text: self.progress.setVisible(not text))
        self.readonly_banner = ReadonlyBanner(self)  # a project another window has open
        self.statusBar().addPermanentWidget(self.readonly_banner)
        self.window_lock: window_lock.WindowLock | None = None
        self.kernel_warmup = KernelWarmup(self)
        self.warning_label = WarningLabel(self)
        self.statusBar().addPermanentWidget(self.warning_label)
        self.status_log = StatusBarLog(self.warning_label, self)  # attached by tagtool.logs (app.run)
        self.legend = Legend(LabelStyle([]), self)
        self.legend_dock = self.add_panel("Legend", self.legend, Qt.RightDockWidgetArea)
        self.model_dock = self.add_panel("Model", QLabel("No project open.", self), Qt.RightDockWidgetArea)
        self.stats_dock = self.add_panel("Statistics", QLabel("No project open.", self), Qt.RightDockWidgetArea)
        self.tabifyDockWidget(self.legend_dock, self.stats_dock)
        self.stats_dock.visibilityChanged.connect(
            lambda shown: shown and self.stats_panel is not None and self.stats_panel.refresh_when_seen()
        )
        self.model_dock.raise_()
        self.legend_dock.raise_()
        self._build_menus()
        self.adjudication = AdjudicationDock(self)  # View › Adjudication
        self.splitter: QSplitter | None = None
        self._show_empty()
        window_layout.restore_window(self, self.settings)  # size, place and docks of the last run

    # ------------------------------------------------------------------
    # projects

    def open_project(self, path: str | Path) -> bool:
        """Open a project file (closing the current one); False on error."""
        if self.session is not None and self.session.project.path.resolve() == Path(path).resolve():
            self.close_project()  # opened again: this window's own lock is not another window's
        lock = window_lock.acquire(Path(path))
        try:
            project = Project.open(path, readonly=lock.elsewhere)
        except (TagtoolError, OSError) as e:
            lock.release()
            QMessageBox.warning(self, "Open project", str(e))
            return False
        self.close_project()
        self.window_lock = lock
        self.session = Session(project, self)
        self.session.annotator = self.settings.annotator
        self.undo_group.addStack(self.session.undo_stack)
        self.undo_group.setActiveStack(self.session.undo_stack)
        self.list_panel = SentenceListPanel(self.session, self)
        self.editor_panel = EditorPanel(self.session, self)
        splitter = self.splitter = QSplitter(Qt.Horizontal, self)
        splitter.addWidget(self.list_panel)
        splitter.addWidget(self.editor_panel)
        splitter.setStretchFactor(0, 0)  # a wider window widens the editor
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)
        window_layout.fit_splitter(splitter, self.list_panel, self.settings)
        self.list_panel.sentenceActivated.connect(self.session.go_to)
        self.list_panel.openRequested.connect(lambda: self.editor.setFocus())
        self.adjudication.open(self.session)
        self.editor.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.session.bulk.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.editor.token_actions = [self.label_all_action, *self.sentence_actions.token_actions]
        self.editor.advance_after_accept = self.settings.advance_after_accept
        self.session.counts.changed.connect(self._update_progress)
        self.session.labelsChanged.connect(self._labels_changed)
        self.session.saveFailed.connect(lambda message: self.show_error("Not saved", message))
        self._start_model_loop()
        self._labels_changed()
        self._update_progress()
        self.settings.add_recent(project.path)
        state = " (read-only)" if project.readonly else ""
        self.setWindowTitle(f"{project.name}{state} — tagtool")
        say_if_readonly(self, project, lock)
        for action in self._project_actions:
            action.setEnabled(True)
        self._return_to_last_position()
        self.editor.setFocus()
        # A big project's sentences are read for training in a worker thread,
        # while the window is already in use (session.cache.read_sentences).
        self.session.cache.read_sentences()
        # Qt raises the central widget whenever a dock's tab changes, and a raise that moves it
        # above the window's newer children (the model loop's objects above) repaints all of it,
        # list and editor: the first click on the Statistics tab stalled 60-140 ms for that.
        # Raised now, it is painted once with the opening's first paint.
        splitter.raise_()
        return True

    def _return_to_last_position(self) -> None:
        """Show the sentence and token this window showed when the project was last closed."""
        position = self.settings.last_position(self.session.project.path)
        if position is None:
            return  # never opened in this account
        try:
            self.session.index_of(position[0])
        except KeyError:
            return  # the sentence was deleted since
        self.session.go_to(position[0])
        self.editor.set_focus(position[1])

    def _start_model_loop(self) -> None:
        loop = self.model_loop = ModelLoop(self.session, self)
        reps = loop.representations = RepresentationsController(self.session, loop)
        reps.ready.connect(loop.representations_ready)
        reps.refresh()
        follow_knowledge(KnowledgeController(self.session, loop), loop, self)  # vectors, dictionaries, patterns
        loop.marks = Marks(**{name: action.isChecked() for name, action in self.mark_actions.items()})
        loop.attach(self.editor, self.list_panel)
        self.queue_menu.attach(loop, self.list_panel)
        loop.failed.connect(lambda message, _tb: self.show_error("Training", message))
        loop.modelChanged.connect(
            lambda r: self._report(
                f"Suggestions from {r.learner} updated"
                + ("; this sentence's wait (F5 shows them)." if loop.hold.suggestions_waiting else ".")
            )
        )
        loop.suggestionsWaiting.connect(self.editor_panel.set_waiting)  # the open sentence's are held still
        self.editor_panel.showSuggestions.connect(self.show_new_suggestions)
        loop.models.load_last()
        self.model_panel = ModelPanel(loop, self)
        self.model_dock.setWidget(self.model_panel)
        for button in (self.model_panel.train_button, self.model_panel.cancel_button):
            button.clicked.connect(self.editor.setFocus)  # after a click, Enter still accepts the sentence
        window_layout.fit_to_dock(self.model_panel, self.model_panel.form)
        self.stats_panel = StatisticsPanel(self.session, loop, self)
        self.stats_dock.setWidget(self.stats_panel)

    def show_error(self, title: str, message: str) -> None:
        """A non-modal message: the window stays usable behind it."""
        if self.error_box is None:
            self.error_box = QMessageBox(QMessageBox.Warning, title, message, QMessageBox.Ok, self)
            self.error_box.setModal(False)
        self.error_box.setWindowTitle(title)
        self.error_box.setText(message)
        self.error_box.show()
        self.statusBar().showMessage(f"{title}: {message.splitlines()[0] if message else ''}", 10000)

    def close_project(self) -> None:
        if self.session is None:
            return
        if self.session.current_id is not None:
            self.settings.set_last_position(self.session.project.path, self.session.current_id, self.editor.focus)
        self.queue_menu.detach()  # its mode proposal's worker stops before the loop closes
        if self.model_loop is not None:
            self.model_loop.close()
            self.model_loop.deleteLater()
        if self.stats_panel is not None:
            self.stats_panel.shutdown()
        for dock in (self.model_dock, self.stats_dock):
            dock.setWidget(QLabel("No project open.", self))
        self.model_loop = self.model_panel = self.stats_panel = None
        self.undo_group.removeStack(self.session.undo_stack)
        self.adjudication.close()
        self.list_panel.shutdown()
        self.session.shutdown()
        self.session.project.close()
        self.session.deleteLater()
        self.session = self.list_panel = self.editor_panel = self.splitter = None
        if self.window_lock is not None:
            self.window_lock.release()
            self.window_lock = None
        self.readonly_banner.clear_reason()
        self._show_empty()

    def _show_empty(self) -> None:
        hint = QLabel("Open a project (Ctrl+O) or create one from a corpus file (Ctrl+N).", self)
        hint.setAlignment(Qt.AlignCenter)
        self.setCentralWidget(hint)
        self.setWindowTitle("tagtool")
        self.progress.clear()
        for action in self._project_actions if hasattr(self, "_project_actions") else ():
            action.setEnabled(False)

    def folders(self) -> Folders:
        """Where file dialogs start: the last folder of their kind, else the open project's folder."""
        return Folders(self.settings, self.session.project.path if self.session else None)

    @property
    def editor(self):
        return None if self.editor_panel is None else self.editor_panel.editor

    def new_project(self) -> None:
        dialog = NewProjectDialog(self, self.folders())
        if dialog.exec() and dialog.created is not None:
            self.open_project(dialog.created)

    def choose_project(self) -> None:
        folders = self.folders()
        path, _ = QFileDialog.getOpenFileName(self, "Open project", folders.start("project"), PROJECT_FILTER)
        if path:
            folders.remember("project", path)
            self.open_project(path)

    def _held(self) -> bool:
        """Whether edits wait for a bulk write (Label all occurrences); the status bar says so."""
        why = self.session.held if self.session is not None else None
        if why:
            self.statusBar().showMessage(f"{why}; try again in a moment.", 8000)
        return bool(why)

    def _import(self) -> None:
        if self._held():
            return
        self._report(transfer.ask_import(self.session, self, self.folders()))
        self._after_bulk_change()

    def _add_documents(self) -> None:
        if self._held():
            return
        self._report(ask_add_documents(self.session, self, self.folders(), transfer.confirm_new_labels))
        self._after_bulk_change()

    def _after_bulk_change(self) -> None:
        """Show what an import changed; when it added or joined sentences, open the project afresh
        (the session's list of sentences is read once), on the sentence that was shown."""
        if self.session.project.n_sentences == self.session.n_sentences:
            self.list_panel.model.refresh()
            self._update_progress()
            return
        path, shown = self.session.project.path, self.session.current_id
        self.close_project()
        if self.open_project(path) and shown in self.session.sentence_ids:
            self.session.go_to(shown)

    def _add_text(self) -> None:
        try:
            self._report(ask_add_text(self.model_loop.representations, self, self.folders()))
        except TagtoolError as exc:
            self.show_error("Add text", str(exc))
        if self.model_panel is not None:
            self.model_panel.representations.update_state()

    def _export(self) -> None:
        self._report(transfer.ask_export(self.session, self, self.folders(), self.exports))

    # ------------------------------------------------------------------
    # model

    def _show_model_panel(self) -> None:
        self.model_dock.show()
        self.model_dock.raise_()
        if self.model_panel is not None:
            self.model_panel.learner.setFocus()

    def warm_kernels(self, child=None) -> None:
        """Compile the learner's kernels in the background (the open project's learner, else the default).

        ``child``: the process filling numba's cache (:func:`tagtool.services.warmup.start_filling_cache`).
        """
        self.kernel_warmup.start(self.model_loop.learner_name if self.model_loop is not None else None, child)

    def train_now(self) -> None:
        if self.model_panel is not None:
            self.model_panel.train()

    def show_new_suggestions(self) -> None:
        """Model › Show new suggestions: the open sentence takes the latest model's."""
        if self.model_loop is not None and not self.model_loop.hold.show_new_suggestions():
            self._report("No new suggestions waiting: this sentence shows the latest model's.")
        if self.editor is not None:
            self.editor.setFocus()

    def cancel_training(self) -> None:
        if self.model_loop is not None and not self.model_loop.cancel():
            self._report("No training is running.")

    def _report(self, message: str | None) -> None:
        if message:
            self.statusBar().showMessage(message, 8000)

    # ------------------------------------------------------------------
    # edit, go, view, help

    def edit_labels(self) -> None:
        if self._held():
            return
        LabelsDialog(self.session, self).exec()

    def _labels_changed(self) -> None:
        self.legend.set_style(self.session.style)
        self.list_panel.model.refresh()
        self.list_panel.show_sentence(self.session.current_id)

    def _go(self, where: str) -> None:
        if self.session is None:
            return
        moved = {
            "next": lambda: self.session.step(1),
            "previous": lambda: self.session.step(-1),
            "unfinished": self.session.next_unfinished,
        }[where]()
        if not moved:
            self.statusBar().showMessage("No further sentence there.", 4000)
        self.editor.setFocus()

    def _find(self) -> None:
        self.list_panel.search.setFocus()
        self.list_panel.search.selectAll()

    def set_theme(self, theme: str) -> None:
        self.settings.theme = theme
        apply_theme(QApplication.instance(), theme)

    def show_shortcuts(self) -> None:
        style = self.session.style if self.session else LabelStyle([])
        ShortcutsDialog(style, self).exec()

    def _about(self) -> None:
        from tagtool import __version__

        QMessageBox.about(
            self, "About tagtool", f"tagtool {__version__}\nToken annotation with full, partial and no labels."
        )

    def _update_progress(self, *_args) -> None:
        """The status bar's counts (kept up to date per edit by ``Session.counts``; a big project's first
        count is read in a worker, the text follows when it is in)."""
        if self.session is None:
            return
        counts = self.session.counts
        if not counts.known:
            if not self.progress.text():
                self.progress.setText("Counting…")
            return
        s, t = counts.sentences, counts.tokens
        total = sum(t.values()) or 1
        self.progress.setText(
            f"Sentences: {s['full']} full · {s['partial']} partial · {s['none']} none    "
            f"Tokens: {t['full']} full · {t['partial']} partial · {t['none']} none "
            f"({100 * t['full'] / total:.0f}% labeled)"
        )

    def closeEvent(self, event) -> None:
        logging.getLogger().removeHandler(self.status_log)
        window_layout.save_window(self, self.splitter, self.settings)
        self.batch.shutdown()
        self.exports.wait()  # an export being written is finished, not cut off
        self.close_project()  # every edit is already saved
        super().closeEvent(event)
