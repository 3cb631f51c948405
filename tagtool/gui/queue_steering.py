"""The queue part of :class:`~tagtool.gui.model_loop.ModelLoop` (``loop.queue``): J's queue, the Info column,
token questions.

:class:`QueueSteering` turns the plan
of the model in use (:class:`~tagtool.gui.questions.QueuePlan`) into the
session's queue and the list's scores, switches the queue strategy (a big
project's new plan is made in a worker thread, :meth:`replan`), answers Tab
and Shift+Space, and says which sentences a new model should score first
(:meth:`priority`, :mod:`tagtool.gui.scoring`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tagtool.gui.near_duplicate_watch import NearDuplicateWatch
from tagtool.gui.questions import replan
from tagtool.gui.scoring import Priority
from tagtool.services import strategies
from tagtool.services.chunked_guidance import FIRST
from tagtool.services.guidance import queue

if TYPE_CHECKING:
    from tagtool.gui.questions import Questions
    from tagtool.gui.session import Session
    from tagtool.gui.suggestion_hold import SuggestionHold
    from tagtool.gui.training import TrainingResult
    from tagtool.gui.worker import TaskRunner


class QueueSteering:
    """The session's queue and the list's scores from the model in use (module doc).

    Parameters
    ----------
    session : Session
        Its queue, skipped sentences, current sentence and annotations.
    questions : Questions
        The queue choice and the plan of the model in use.
    planner : TaskRunner
        Runs a big project's new plan (:meth:`replan`).
    hold : SuggestionHold
        What the open sentence shows (Tab and Shift+Space follow it there).
    retokenized : dict
        ``{sentence id: when}`` split or merged since the model read them (the loop updates it in place).
    result : callable
        ``result()``: the :class:`TrainingResult` in use, or None.
    refresh : callable
        Refreshes the editor's hints.
    changed : Signal
        The loop's ``queueChanged()``.

    Attributes
    ----------
    list_panel : SentenceListPanel or None
        The sentence list whose Info column shows the scores (set by ``ModelLoop.attach``).
    duplicates : NearDuplicateWatch
        The near-duplicates J and Tab pass over until the next model.
    """

    def __init__(
        self,
        session: Session,
        questions: Questions,
        planner: TaskRunner,
        hold: SuggestionHold,
        retokenized: dict[int, float],
        result: Callable[[], TrainingResult | None],
        refresh: Callable[[], None],
        changed: Any,
    ):
        self.session, self.questions, self.planner, self.hold = session, questions, planner, hold
        self._retokenized, self._result, self._refresh, self._changed = retokenized, result, refresh, changed
        self.list_panel: Any = None
        self.duplicates = NearDuplicateWatch(session)

    @property
    def result(self) -> TrainingResult | None:
        return self._result()

    def priority(self) -> Priority:
        """The sentences a new model scores first (:class:`~tagtool.gui.scoring.Priority`).

        The current sentence, the list's rows on screen, then the head of
        the queue in use: where the new queue's first page most likely is.
        """
        first = [] if self.session.current_id is None else [self.session.current_id]
        if self.list_panel is not None:
            first += _rows_on_screen(self.list_panel)
        plan = self.questions.plan
        order = plan.queue if plan is not None else ()
        return Priority(tuple(first) + tuple(order[:FIRST]), order)

    def requeue(self) -> None:
        """The session's queue from the model in use under the queue strategy, without the skipped sentences
        and the near-duplicates of those labeled since the model (:mod:`tagtool.gui.near_duplicate_watch`)."""
        self.duplicates.follow(self.result)
        plan = self.questions.plan
        if self.result is None:
            order = self._queue_without_model()
        elif plan is None:  # no analysis (no sentence): the mean informativeness, as before strategies
            order = queue(self.result.scores, self.session.edits.queueable(self.result.status))
        else:
            order = plan.queue
        passed = self.session.edits.skipped | self.duplicates.passed()  # a few: the list as it is without them
        self.session.queue = [sid for sid in order if sid not in passed] if passed else order

    def _queue_without_model(self) -> list[int]:
        """Before any model: under ``random`` every sentence in its order (J passes over the labeled ones).

        The guided strategies have nothing to rank with yet, and J goes on in
        document order.  ``random`` needs no model: its order is the one the
        model's queue keeps, and the one ``tagtool simulate --strategy
        random`` (and its first step under every strategy but
        ``sequential``) takes with the same seed.
        """
        strategy = strategies.get(self.questions.strategy)
        if strategy.guided or strategy.file_order:
            return []
        ids, skipped = self.session.sentence_ids, self.session.edits.skipped
        order = strategies.tie_order(strategy, len(ids), self.questions.seed).tolist()
        return [ids[i] for i in order if ids[i] not in skipped]

    def show_scores(self, now: bool = False) -> None:
        """The list's Info column: the queue strategy's scores.

        ``now``: paint the column's rows on screen in this turn of the event
        loop, and only them (a new model's arrival, :meth:`ModelLoop._use`).
        """
        plan = self.questions.plan
        scores = plan.scores if plan is not None else self.result.scores if self.result is not None else {}
        panel = self.list_panel
        if panel is None:
            return
        if panel.model.set_scores(scores, notify=not now):
            panel.show_sentence(self.session.current_id)
        elif now:
            _paint_info_column(panel)

    def review_changed(self, sid: int) -> None:
        """A skipped sentence leaves the queue at once; an un-skipped one takes its place in it again."""
        if sid in self.session.edits.skipped:
            self.session.queue = [s for s in self.session.queue if s != sid]
        elif (
            self.result is not None and self.result.status.get(sid, "full") != "full" and sid not in self.session.queue
        ):
            self.requeue()

    # ------------------------------------------------------------------
    # queue strategy and token questions

    def set_queue(
        self,
        strategy: str | None = None,
        asking: bool | None = None,
        seed: int | None = None,
        costs=None,
        spans: bool | None = None,
    ) -> None:
        """Pick the queue strategy (a :mod:`tagtool.services.strategies` name), the token-question mode, the tie
        order's seed, the annotation costs (a :class:`~tagtool.services.queue_costs.QueueCosts`).

        A big project's new plan is made in a worker thread (:meth:`replan`);
        the old one serves until it arrives.
        """
        questions = self.questions
        questions.choose(spans=spans)  # span questions or token questions (:mod:`tagtool.gui.span_plan`)
        if questions.big:
            questions.choose(strategy, asking, seed, costs)
            self.replan()
        elif questions.set(strategy, asking, seed, costs) is not None:
            self.requeue()
            self.show_scores()
        elif self.result is None:
            self.requeue()  # random needs no model
        self._refresh()
        self._changed.emit()

    def replan(self) -> None:
        """Make the current choice's plan of the model in use in a worker, and swap it in when done."""
        job = self.questions.job()

        def wire(task) -> None:
            task.signals.returned.connect(
                lambda plan, t=task: self.planner.is_current(t) and self._replanned(plan, job)
            )

        self.planner.start(replan, job, wire=wire)

    def _replanned(self, plan, job) -> None:
        if self.questions.adopt(plan, job):
            self.requeue()
            self.show_scores()
            self._refresh()
            self._changed.emit()

    def next_question(self, sid: int | None, focus: int, direction: int = 1) -> tuple[int, int] | None:
        """The next open token question (:meth:`QueuePlan.next_question`); None without one or a model.

        Skipped sentences and those split or merged since the model read them ask nothing.
        """
        plan = self.questions.plan
        if plan is None:
            return None
        held = self.hold.held_open_questions(sid)  # the open sentence's questions on screen, while newer ones wait
        ahead = [t for t in held or () if (t > focus if direction >= 0 else t < focus)]
        if ahead:
            return sid, ahead[0] if direction >= 0 else ahead[-1]
        passed = self.session.edits.skipped | set(self._retokenized) | ({sid} if held is not None else set())
        passed |= self.duplicates.passed()
        found = plan.next_question(sid, focus, self._annotations_of, direction, passed_over=passed)
        return found if found is not None or not held else (sid, held[0] if direction >= 0 else held[-1])

    def pair(self, sid: int | None, token: int) -> tuple[str, str] | None:
        """The two labels the model is torn between at ``token`` (None: not torn, or no model)."""
        held = self.hold.held_pair(sid, token)  # the open sentence: as it is shown
        if held is not ...:
            return held
        plan = self.questions.plan
        if plan is None or sid is None or sid in self._retokenized:
            return None
        return plan.pair(sid, token)

    def no_question_reason(self) -> str:
        """What the status bar says when Tab finds no question."""
        plan = self.questions.plan
        if plan is None:
            return "No token questions yet: they come with a model (label a few sentences, or Model › Train now)."
        return (
            f"No token question left: the model is sure (question below {plan.threshold:g}) of every "
            "unlabeled token it scored."
        )

    def _annotations_of(self, sid: int):
        session = self.session
        return session.annotations if sid == session.current_id else session.project.annotations(sid)


def _rows_on_screen(list_panel) -> list[int]:
    """The ids of the sentence list's rows on screen (their Info scores come with the first page)."""
    table, model = list_panel.table, list_panel.model
    top = table.rowAt(0)
    if top < 0:
        return []
    bottom = table.rowAt(table.viewport().height() - 1)
    bottom = model.rowCount() - 1 if bottom < 0 else bottom
    return [row.id for row in map(model.summary, range(top, bottom + 1)) if row is not None]


def _paint_info_column(list_panel) -> None:
    """Repaint the Info column of the list's rows on screen, now (a third of a full repaint's ``data()`` calls)."""
    from tagtool.gui.sentence_list import INFO

    table = list_panel.table
    if not table.isVisible() or table.isColumnHidden(INFO):
        return
    viewport = table.viewport()
    x = table.columnViewportPosition(INFO)
    viewport.repaint(x, 0, table.columnWidth(INFO), viewport.height())
