"""The main window's menu bar: File, Edit, Go, Model, View and Help, and the docks' View toggles.

:class:`WindowMenus` is part of :class:`~tagtool.gui.main_window.MainWindow`:
it builds the menus from the window's commands (the window keeps what they
do), lists the actions that need an open project (enabled and disabled with
it), and fills the menus made on demand (Open recent, Model › Learner).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMessageBox, QWidget

from tagtool.gui.keys import key
from tagtool.gui.knowledge_dialog import ask_add_dictionary, ask_add_patterns, ask_add_vectors, show_knowledge
from tagtool.gui.label_all import label_all
from tagtool.gui.preferences import edit_preferences
from tagtool.gui.queue_menu import QueueMenu
from tagtool.gui.sample import ask_reset_sample
from tagtool.gui.sentence_ops import SentenceActions
from tagtool.gui.settings import THEMES
from tagtool.gui.window_layout import SidePanels

#: The View menu's toggles of what the editor marks (the model's, and string matches): ``(Marks field, menu text)``.
MARKS = (
    ("suggestions", "Model &suggestions"),
    ("uncertainty", "&Uncertainty shading"),
    ("disagreement", "View &disagreement marks"),
    ("confidences", "WD-PSL candidate &confidences"),
    ("string_matches", "S&tring-match suggestions"),
)


def key_sequences(standard: QKeySequence.StandardKey, *extra: str) -> list[QKeySequence]:
    """The platform's bindings of a standard key, then ``extra``, each key once.

    A key bound twice to one action is an "ambiguous shortcut overload" for
    Qt, which then does nothing: on Linux ``QKeySequence.Redo`` already is
    Ctrl+Shift+Z (Windows has Ctrl+Y), so adding Ctrl+Shift+Z for the other
    platforms must not repeat it there.
    """
    sequences, seen = [], set()
    for sequence in [*QKeySequence.keyBindings(standard), *map(QKeySequence, extra)]:
        text = sequence.toString(QKeySequence.PortableText)
        if text and text not in seen:
            seen.add(text)
            sequences.append(sequence)
    return sequences


def shortcuts(name: str) -> list[QKeySequence]:
    """The keys of the key table's row ``name`` (:mod:`tagtool.gui.keys`), a standard key's platform bindings first."""
    row = key(name)
    if row.standard:
        return key_sequences(getattr(QKeySequence, row.standard), *row.keys)
    return [QKeySequence(k) for k in row.keys]


def _ask(parent: QWidget, question: str) -> bool:
    answer = QMessageBox.question(parent, "Label all occurrences", question, QMessageBox.Yes | QMessageBox.No)
    return answer == QMessageBox.Yes


class WindowMenus:
    """The menu bar of a :class:`~tagtool.gui.main_window.MainWindow` (see the module docstring)."""

    def _action(self, menu, text: str, slot, keys: str | None = None, needs_project=True) -> QAction:
        """A menu action running ``slot``, with the keys of the key table's row ``keys``."""
        action = menu.addAction(text)
        action.triggered.connect(slot)
        if keys is not None:
            action.setShortcuts(shortcuts(keys))
        if needs_project:
            self._project_actions.append(action)
        return action

    def _build_menus(self) -> None:
        self._project_actions: list[QAction] = []
        bar = self.menuBar()
        self._file_menu(bar.addMenu("&File"))
        edit = bar.addMenu("&Edit")
        self._edit_menu(edit)
        self._go_menu(bar.addMenu("&Go"), edit)
        self._model_menu(bar.addMenu("&Model"))
        self.view_menu = bar.addMenu("&View")
        self._view_menu(self.view_menu)
        self._help_menu(bar.addMenu("&Help"))

    def _file_menu(self, file) -> None:
        self._action(file, "&New project…", self.new_project, "new project", False)
        self._action(file, "&Open…", self.choose_project, "open", False)
        self.recent_menu = file.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file.addSeparator()
        self._action(file, "A&dd documents…", self._add_documents)
        self._action(file, "&Import annotations…", self._import)
        self._action(file, "Add &text for word representations…", self._add_text)
        self._action(file, "Add &word vectors…", lambda: self._knowledge(ask_add_vectors))
        self._action(file, "Add di&ctionary…", lambda: self._knowledge(ask_add_dictionary))
        self._action(file, "Add p&atterns…", lambda: self._knowledge(ask_add_patterns))
        self._action(file, "&Knowledge in the project…", lambda: self._knowledge(None))
        self._action(file, "&Export annotations…", self._export, "export")
        self.export_tagger_action = self._action(file, "Export &tagger…", self.export_tagger)
        self.batch_action = self._action(file, "&Batch-tag file…", self.batch_tag, None, False)
        file.addSeparator()
        self._action(file, "&Quit", self.close, "quit", False)

    def _knowledge(self, ask) -> None:
        """File › Add word vectors…, Add dictionary…, Add patterns… (``ask``), or Knowledge… (None)."""
        knowledge = self.model_loop.knowledge if self.model_loop is not None else None
        if knowledge is None:
            return
        if ask is None:
            show_knowledge(knowledge, self)
            return
        message = ask(knowledge, self)
        if message:
            self._report(message)
            self.model_dock.show()  # its Knowledge lines show the progress
            self.model_dock.raise_()

    def _edit_menu(self, edit) -> None:
        self.undo_action = self.undo_group.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(shortcuts("undo"))
        self.redo_action = self.undo_group.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(shortcuts("redo"))
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        self.label_all_action = self._action(edit, "Label &all occurrences", self.label_all_occurrences, "label all")
        self.label_all_action.setToolTip("Label the focused span's text wherever it recurs unlabeled (one undo step)")
        edit.addSeparator()
        self._action(edit, "&Labels…", self.edit_labels)
        self._action(edit, "&Preferences…", lambda: edit_preferences(self), "preferences", False)

    def label_all_occurrences(self) -> None:
        """Edit › Label all occurrences (:mod:`tagtool.gui.label_all`); the status bar says how many."""
        if self.model_loop is not None:
            index = self.model_loop.string_suggestions.index
            message = label_all(self.editor, index, lambda question: _ask(self, question))
            if message:  # else it started: the session's bulk.message tells the status bar
                self.statusBar().showMessage(message, 8000)

    def _go_menu(self, go, edit) -> None:
        self.next_action = self._action(go, "&Next sentence", lambda: self._go("next"), "next")
        self.previous_action = self._action(go, "&Previous sentence", lambda: self._go("previous"), "previous")
        self.jump_action = self._action(go, "Next &unfinished sentence", lambda: self._go("unfinished"), "unfinished")
        go.addSeparator()
        self.queue_menu = QueueMenu(self, go)  # token questions and the queue strategy
        go.addSeparator()
        self._action(go, "&Find sentence…", self._find, "find")
        self.sentence_actions = SentenceActions(self, edit, go)  # flag, skip, split, merge, next flagged

    def _model_menu(self, model) -> None:
        self.learner_menu = model.addMenu("&Learner")
        self.learner_menu.aboutToShow.connect(self._fill_learners)
        self._action(model, "&Settings…", self._show_model_panel)
        self.train_action = self._action(model, "&Train now", self.train_now, "train")
        self.cancel_action = self._action(model, "&Cancel training", self.cancel_training, "cancel training")
        self.new_suggestions_action = self._action(
            model, "Show &new suggestions", self.show_new_suggestions, "new suggestions"
        )
        self.new_suggestions_action.setToolTip(
            "The open sentence keeps its suggestions while you work on it; this shows the latest model's"
        )

    def _view_menu(self, view) -> None:
        for dock in (self.legend_dock, self.model_dock, self.stats_dock):
            view.addAction(dock.toggleViewAction())
        self.side_panels = SidePanels(self)
        self.side_panels_action = self._action(view, "Side &panels", self.side_panels.toggle, "side panels", False)
        self.side_panels_action.setCheckable(True)
        self.side_panels_action.setChecked(True)
        view.addSeparator()
        self.mark_actions = {}
        for name, text in MARKS:
            action = view.addAction(text)
            action.setCheckable(True)
            action.setChecked(True)
            action.toggled.connect(lambda on, n=name: self.model_loop and self.model_loop.set_marks(**{n: on}))
            self.mark_actions[name] = action
        self._action(view, "Order list by the &queue (Info)", lambda: self.list_panel.sort_by_informativeness())
        view.addSeparator()
        theme_menu = view.addMenu("&Theme")
        group = QActionGroup(self)
        for theme in THEMES:
            action = theme_menu.addAction(theme.capitalize())
            action.setCheckable(True)
            action.setChecked(theme == self.settings.theme)
            action.triggered.connect(lambda _=False, t=theme: self.set_theme(t))
            group.addAction(action)

    def _help_menu(self, help_menu) -> None:
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts, "help", False)
        self._action(help_menu, "&Reset the sample project…", lambda: ask_reset_sample(self), None, False)
        self._action(help_menu, "&About tagtool", self._about, None, False)

    def add_panel(self, title: str, widget: QWidget, area=Qt.RightDockWidgetArea) -> QDockWidget:
        """Dock a panel (e.g. the model panel) with a toggle in the View menu."""
        dock = QDockWidget(title, self)
        dock.setObjectName(title.replace(" ", "_").lower())
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        if hasattr(self, "view_menu"):
            self.view_menu.insertAction(self.view_menu.actions()[0], dock.toggleViewAction())
        return dock

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_projects():
            self.recent_menu.addAction(str(path)).triggered.connect(lambda _=False, p=path: self.open_project(p))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    def _fill_learners(self) -> None:
        from tagtool.learn import available_learners

        self.learner_menu.clear()
        group = QActionGroup(self.learner_menu)
        current = self.model_loop.learner_name if self.model_loop else None
        for name in available_learners():
            action = self.learner_menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name == current)
            action.setEnabled(self.model_panel is not None)
            action.triggered.connect(lambda _=False, n=name: self.model_panel.select_learner(n))
            group.addAction(action)
