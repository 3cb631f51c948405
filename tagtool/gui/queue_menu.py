"""Go menu: the token questions and the queue strategy (and the sentence list's Info header menu).

* **Next / previous token question** (Tab / Shift+Tab in the editor, which
  owns the keys: a window shortcut on Tab would take it from every field).
* **Two labels the model is torn between** (Shift+Space, editor).
* **Token questions** (Ctrl+Shift+Q): the mode in which the editor marks the
  tokens the model asks about (``tagtool simulate --mode tokens``).
* **Queue strategy**: a radio group with one action per entry of
  :data:`tagtool.services.strategies.REGISTRY` — the order of J and of the list's
  Info column.  A strategy the selected learner cannot serve (no second
  view, not WD-PSL) is disabled, its tooltip says why.  Below the
  strategies: **Rank by measured annotation costs** (the project's action
  log, :mod:`tagtool.services.queue_costs`, once it has enough; otherwise the
  defaults) and a line saying which costs are in use.

The strategy and the costs choice are kept in the user's settings
(:class:`GuiSettings`).  The token-question mode is a setting of the project
(its ``meta`` row :data:`TOKEN_QUESTIONS_META`: each project opens in the mode
it was left in, off for a new one), shown in the status bar by a button
that switches it.  The button also says where the queue stands after the
latest model's cross-validation (:mod:`tagtool.services.question_threshold`):
in its cold start, or the project's question threshold and how many
held-out tokens it comes from (the tooltip, and a status-bar message when it
changes); and the mode the project's own data propose
(:mod:`tagtool.gui.mode_advice_watch`) when it is not the one in use, with
why in the tooltip (before the project has measured one, the development
suite's choice is in the tooltip only).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QToolButton

from tagtool.errors import TagtoolError
from tagtool.gui.keys import TOKEN_QUESTIONS_KEY
from tagtool.gui.mode_advice_watch import ModeAdviceWatch
from tagtool.services import mode_advice, strategies

log = logging.getLogger(__name__)

#: The project's ``meta`` key of the token-question mode (``"1"`` on, ``"0"`` off).
TOKEN_QUESTIONS_META = mode_advice.MODE_META


def project_asking(project) -> bool:
    """The token-question mode a project was left in (off when it never set one)."""
    return mode_advice.project_mode(project) == "tokens"


class QueueMenu(QObject):
    """The Go menu's token-question and queue-strategy actions of a :class:`MainWindow`."""

    def __init__(self, window, go_menu):
        super().__init__(window)
        self.window = window
        self._calibration = None  # the last one the status bar reported
        settings = window.settings
        self.next_question_action = self._add(go_menu, "Next token &question\tTab", lambda: self._question(1))
        self.previous_question_action = self._add(
            go_menu, "Previous token q&uestion\tShift+Tab", lambda: self._question(-1)
        )
        self.pair_action = self._add(go_menu, "Candidates the model is &torn between\tShift+Space", self._pair)
        self.asking_action = self._add(go_menu, "Token &questions mode", self._toggle_asking)
        self.asking_action.setCheckable(True)
        self.asking_action.setShortcut(QKeySequence(TOKEN_QUESTIONS_KEY))
        self.asking_action.setToolTip(
            "Mark the tokens the model asks about (tagtool simulate --mode tokens); Tab goes to the next one"
        )
        self.spans_action = self._add(
            go_menu, "Ask whole s&pans", lambda: self.set_spans(self.spans_action.isChecked())
        )
        self.spans_action.setCheckable(True)
        self.spans_action.setChecked(settings.questions == "spans")
        self.spans_action.setToolTip(
            "Token questions: where the model is unsure of a mention, ask the whole mention it predicts as one "
            "question — Tab selects it, one label key labels it (tagtool simulate --questions spans)"
        )
        self._add_strategy_menu(go_menu, settings)
        # the status bar's permanent mode switch (shown while a project is open)
        self.mode_button = QToolButton(window)
        self.mode_button.setAutoRaise(True)
        self.mode_button.setObjectName("question_mode")
        self.mode_button.clicked.connect(lambda: self.set_asking(not self.asking_action.isChecked()))
        window.statusBar().addPermanentWidget(self.mode_button)
        #: The open project's mode proposal (None: no project).
        self.advice_watch: ModeAdviceWatch | None = None
        self._show_mode(False)
        self.mode_button.hide()

    def _add_strategy_menu(self, go_menu, settings) -> None:
        """Go › Queue strategy: the strategies, the measured costs switch and line, the near-duplicates switch."""
        self.strategy_menu = go_menu.addMenu("Queue &strategy")
        self.strategy_menu.setToolTipsVisible(True)
        self.strategy_menu.aboutToShow.connect(self.update_state)
        group = QActionGroup(self)
        self.strategy_actions: dict[str, QAction] = {}
        for entry in strategies.REGISTRY.values():
            action = self.strategy_menu.addAction(entry.label)
            action.setCheckable(True)
            action.setData(entry.name)
            action.setToolTip(f"{entry.name}: {entry.description}")
            action.setChecked(entry.name == settings.queue_strategy)
            action.triggered.connect(lambda _=False, n=entry.name: self.set_strategy(n))
            group.addAction(action)
            self.strategy_actions[entry.name] = action
        self.strategy_menu.addSeparator()
        self.measured_costs_action = self.strategy_menu.addAction("Rank by &measured annotation costs")
        self.measured_costs_action.setCheckable(True)
        self.measured_costs_action.setChecked(settings.measured_costs)
        self.measured_costs_action.setToolTip(
            "The cost-aware strategies (gain, combined) rank with the costs timed in this project's action log "
            "once it holds enough (as tagtool simulate --costs-from); otherwise with the defaults"
        )
        self.measured_costs_action.toggled.connect(self.set_measured_costs)
        self.costs_action = self.strategy_menu.addAction("Default annotation costs")
        self.costs_action.setEnabled(False)  # information: which costs are in use
        self.near_duplicates_action = self.strategy_menu.addAction("Pass over &near-duplicates until the next model")
        self.near_duplicates_action.setCheckable(True)
        self.near_duplicates_action.setChecked(settings.skip_near_duplicates)
        self.near_duplicates_action.setToolTip(
            "J and Tab pass over a sentence that repeats (nearly) one labeled since the model in use; "
            "the next model decides again (as tagtool simulate --skip-near-duplicates)"
        )
        self.near_duplicates_action.toggled.connect(self.set_skip_near_duplicates)

    def _add(self, menu, text: str, slot) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)
        self.window._project_actions.append(action)
        return action

    # ------------------------------------------------------------------
    # the open project

    @property
    def loop(self):
        """The open project's model loop (None: no project)."""
        return self.window.model_loop

    def attach(self, loop, list_panel) -> None:
        """A project opened: its model loop takes the choices kept in the settings."""
        settings = self.window.settings
        asking = project_asking(loop.session.project)
        self.asking_action.setChecked(asking)
        self.advice_watch = ModeAdviceWatch(loop)
        self.advice_watch.advised.connect(self._advised)
        self._show_mode(asking)
        self.mode_button.show()
        loop.queue.set_queue(settings.queue_strategy, asking, settings.queue_seed, spans=settings.questions == "spans")
        loop.costs_watch.changed.connect(lambda _costs: self._show_costs())
        loop.queue.duplicates.set_on(settings.skip_near_duplicates)
        loop.costs_watch.set_measured(settings.measured_costs)
        header = list_panel.table.horizontalHeader()
        header.setContextMenuPolicy(Qt.CustomContextMenu)
        header.customContextMenuRequested.connect(lambda pos, h=header: self._header_menu(h, pos))
        loop.queueChanged.connect(lambda p=list_panel: self._info_tip(p))
        loop.modelChanged.connect(lambda _result: self._show_calibration())
        self._info_tip(list_panel)
        self.update_state()

    def set_strategy(self, name: str) -> None:
        """Order the queue by strategy ``name`` (kept in the settings)."""
        self.window.settings.queue_strategy = name
        self.strategy_actions[name].setChecked(True)
        if self.loop is not None:
            self.loop.queue.set_queue(strategy=name)
            self.window.statusBar().showMessage(
                f"Queue: {self._label(name)} ({strategies.get(name).description}).", 6000
            )

    def set_asking(self, on: bool) -> None:
        """Turn the token-question mode on or off (kept in the open project)."""
        self.asking_action.setChecked(on)
        self._show_mode(on)
        if self.loop is not None:
            project = self.loop.session.project
            if not project.readonly and project_asking(project) != on:
                try:
                    project.set_meta(TOKEN_QUESTIONS_META, "1" if on else "0")
                except TagtoolError as e:  # a full disk: the mode holds for this session only
                    log.warning("the token-question mode was not saved in %s: %s", project.path, e)
            self.loop.queue.set_queue(asking=on)
            self._show_calibration()  # after the queue took the mode: its line describes the new one
            plan = self.loop.questions.plan
            count = f" ({plan.n_asking} sentences have one)" if plan is not None and on else ""
            self.window.statusBar().showMessage(
                ("Token questions: Tab goes to the next token the model asks about" + count)
                if on
                else "Token questions off (review: correct the wrong suggestions, Enter accepts the rest).",
                6000,
            )

    def set_spans(self, on: bool) -> None:
        """Ask span questions or token questions (kept in the settings as ``questions``)."""
        self.window.settings.questions = "spans" if on else "tokens"
        self.spans_action.setChecked(on)
        if self.loop is not None:
            self.loop.queue.set_queue(spans=on)
            self.window.statusBar().showMessage(
                "Span questions: Tab selects the whole span the model is unsure of, one label key labels it."
                if on
                else "Token questions: Tab goes to the next token the model asks about.",
                6000,
            )

    def set_measured_costs(self, on: bool) -> None:
        """Rank by the project's measured annotation costs, or by the defaults (kept in the settings)."""
        self.window.settings.measured_costs = on
        if self.measured_costs_action.isChecked() != on:
            self.measured_costs_action.setChecked(on)  # toggled calls back here, with nothing left to do
        if self.loop is not None:
            self.loop.costs_watch.set_measured(on)
        self._show_costs()

    def set_skip_near_duplicates(self, on: bool) -> None:
        """Pass over near-duplicates of the sentences labeled since the model, or not (kept in the settings)."""
        self.window.settings.skip_near_duplicates = on
        if self.loop is not None:
            self.loop.queue.duplicates.set_on(on)
            self.loop.queue.requeue()

    def _show_costs(self) -> None:
        """The menu line saying which costs are in use."""
        costs = self.loop.questions.costs if self.loop is not None else None
        text = "Default annotation costs" if costs is None else costs.describe()
        self.costs_action.setText(text.replace("&", "&&"))
        self.costs_action.setToolTip(text)

    def update_state(self) -> None:
        """Disable the strategies the selected learner cannot serve; the tooltip says why."""
        learner = self.loop.learner_name if self.loop is not None else None
        two_view = _two_view(learner)
        for name, action in self.strategy_actions.items():
            entry = strategies.get(name)
            why = None if learner is None else strategies.unavailable(entry, learner, two_view)
            action.setEnabled(why is None)
            action.setToolTip(f"{entry.name}: {entry.description}" if why is None else why[0].upper() + why[1:])
        self._show_costs()

    # ------------------------------------------------------------------

    def detach(self) -> None:
        """The project is closing: no mode to show, no proposal measured."""
        self.mode_button.hide()
        if self.advice_watch is not None:
            self.advice_watch.advised.disconnect(self._advised)
            self.advice_watch.shutdown()
            self.advice_watch = None

    def _show_mode(self, on: bool) -> None:
        advice = self.advice_watch.advice if self.advice_watch is not None else None
        # Only a proposal measured on the project is pressed in the status bar: before it, the cold start
        # reviews whole sentences in either mode, and the suite's choice is said in the tooltip.
        proposed = advice is not None and advice.measured and (advice.mode == "tokens") != on
        other = "token questions" if not on else "whole sentences"
        self.mode_button.setText(
            ("Mode: token questions" if on else "Mode: whole sentences") + (f" · proposed: {other}" if proposed else "")
        )
        self.mode_button.setToolTip(
            (
                "Token questions: the editor marks the tokens the model asks about; Tab goes to the next one. "
                if on
                else "Whole sentences: label or correct every token; Enter accepts the suggestions on screen. "
            )
            + f"Click (or {TOKEN_QUESTIONS_KEY}) to switch; the mode is kept in this project."
            + ("" if advice is None else f"\n\nProposed — {advice.reason}")
        )

    def _advised(self, advice) -> None:
        """A proposal measured on the project's sentences: shown, and said when it is not the mode in use."""
        on = self.asking_action.isChecked()
        self._show_mode(on)
        self._show_calibration()  # the threshold or cold start after the mode
        if advice.measured and (advice.mode == "tokens") != on:
            self.window.statusBar().showMessage(
                f"Proposed: {advice.reason} Click the mode in the status bar to switch.", 15000
            )

    def calibration_text(self) -> str:
        """The plan's cold start or question threshold in a line (empty without a model)."""
        loop = self.loop
        plan = loop.questions.plan if loop is not None else None
        if plan is None or loop.result is None or loop.result.analysis is None:
            return ""
        return plan.calibration.describe(plan.strategy, loop.result.analysis.probabilistic, loop.questions.asking)

    def _show_calibration(self) -> None:
        """The mode button and the status bar: the cold start, or the threshold the project set itself."""
        text = self.calibration_text()
        if not text:
            return
        on = self.asking_action.isChecked()
        self._show_mode(on)
        calibration = self.loop.questions.plan.calibration
        if calibration.cold and (on or calibration.random_order):
            self.mode_button.setText(self.mode_button.text() + " · cold start")
        elif on:
            self.mode_button.setText(self.mode_button.text() + f" · threshold {self.loop.questions.plan.threshold:.2f}")
        self.mode_button.setToolTip(text[0].upper() + text[1:] + ". " + self.mode_button.toolTip())
        if text != self._calibration:  # a new line, not a new object of every run
            self._calibration = text
            bar = self.window.statusBar()  # after the model's own message ("Suggestions … updated")
            QTimer.singleShot(0, bar, lambda: bar.showMessage(f"Queue: {text}.", 8000))

    def _toggle_asking(self) -> None:
        self.set_asking(self.asking_action.isChecked())

    def _question(self, direction: int) -> None:
        editor = self.window.editor
        if editor is not None:
            editor.next_question(direction)
            editor.setFocus()

    def _pair(self) -> None:
        editor = self.window.editor
        if editor is not None:
            editor.give_pair()
            editor.setFocus()

    def _header_menu(self, header, pos) -> None:
        from tagtool.gui.sentence_list import INFO

        if header.logicalIndexAt(pos) == INFO:
            self.strategy_menu.popup(header.mapToGlobal(pos))

    def _info_tip(self, list_panel) -> None:
        effective = self.loop.questions.plan.strategy.name if self.loop.questions.plan else self.loop.questions.strategy
        list_panel.model.info_tip = (
            f"Queue score ({self._label(effective)}): {strategies.get(effective).description}"
            ". Click to sort; right-click to pick the queue strategy."
        )

    @staticmethod
    def _label(name: str) -> str:
        return strategies.get(name).label.replace("&", "")


def _two_view(learner: str | None) -> bool:
    if learner is None:
        return False
    from tagtool.learn import get_learner

    try:
        return bool(get_learner(learner).two_view)
    except Exception:  # noqa: BLE001 — an unknown name serves no two-view strategy
        return False
