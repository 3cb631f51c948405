"""A scripted annotator: an oracle who knows the gold labels works in the window by key presses alone.

Does the app deliver what ``tagtool simulate`` measured?
:class:`ScriptedAnnotator` answers it from the outside: it drives a real
:class:`~tagtool.gui.main_window.MainWindow` (offscreen) with
:func:`QTest.keyClick` on the editor — J for the queue's next sentence, Tab
for the next token question, the label keys, the arrow keys to reach a
token, Enter to accept the suggestions, Ctrl+T to train — following the
protocol of the simulated annotator (:mod:`tagtool.services.simulate`), and counts
what it spent from the project's action log, priced with the simulator's
costs (:func:`tagtool.services.annotation_costs.logged_cost`), never from its own
bookkeeping.  ``benchmarks/app_vs_simulate.py`` compares its curve with
``tagtool simulate``'s; ``tests/gui/test_gui_scripted_session.py`` runs a
small one.

What it reads from the window is what a user sees: the current sentence,
its annotations, the editor's suggestions and question marks (the hints),
and the head of the queue (the sentence list sorted by its Info column).

Protocol, per step (the simulator's; :meth:`ScriptedAnnotator.annotate_step`)
    Until the log's cost reaches the step's target, checked before each
    sentence (the last one may overshoot):

    * no model yet, or ``full``: the queue's next sentence (J), every
      unlabeled token labeled (arrow keys to it, its label key);
    * ``review``: the queue's next sentence, the wrong suggestions
      corrected (label keys), Enter accepts the rest;
    * ``tokens`` (the token-question mode, Ctrl+Shift+Q): from the queue's
      head, the open questions of the sentence answered, Tab to the next
      question (the next sentence in queue order that asks one); a
      sentence without a question is passed over, its unlabeled tokens are
      logged as skipped when Tab leaves it.  When no question is left,
      whole sentences in queue order, as the simulator's annotator goes on.
      With span questions (``spans``, Go › Ask whole spans) each question is
      a span the editor selects: where its gold labels are one key's span
      labels (``B-X I-X …`` of one mention, or all ``O``) one label key
      answers it, as a person would; otherwise its tokens one by one.
      A question whose suggestion is right (a span question: on every
      token) is accepted with Space instead.

    Then Train now (Ctrl+T, the model's full settings, warm-started from
    the last model) and the caller scores the new model.  The queue ranks
    with the default annotation costs, as the simulator (Go › Queue
    strategy › Rank by measured annotation costs is turned off).  The first step
    runs under Go › Queue strategy › Random order (Document order for
    ``sequential``), the strategy is picked once the first model is in:
    the simulator's first step takes the strategy's tie order
    (:func:`tagtool.services.strategies.tie_order`), which is the app's random
    order, while the app's J goes on in document order under a guided
    strategy before a model.

The J key goes to the queue's first unfinished sentence *other than the
current one*; when the current sentence is the head, the annotator stays
(Home) rather than pressing J.  The simulator's annotator sees each
sentence with the model of its step; the app keeps the open sentence's
suggestions still while a newer model arrives (:mod:`tagtool.gui.suggestion_hold`),
so an annotator who stays on it after Train now asks for the new ones (F5)
first.  In ``review``, Enter completes the sentence and opens the queue's
next one (Edit › Preferences › Next sentence after Enter), the head J
would go to.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest

from tagtool.core.annotation import annotation_status
from tagtool.errors import TagtoolError
from tagtool.gui.edits import span_labels
from tagtool.services.annotation_costs import logged_cost, logged_tokens
from tagtool.services.near_duplicates import DEFAULT_SKIP
from tagtool.services.simulate.config import reached
from tagtool.services.strategies import get as get_strategy

#: How long a training may take before the session gives up (milliseconds).
TRAIN_TIMEOUT_MS = 1_800_000


class SessionError(TagtoolError, RuntimeError):
    """The window did not do what the keys ask (a training failed, a key did nothing)."""


@dataclass(frozen=True)
class StepPoint:
    """The session after one step and its training.

    ``cost``: the action log priced with the simulator's costs; ``logged``:
    the log's tokens of each cost kind (``full``, ``candidate``, ``accept``,
    ``skip``); ``tokens_labeled`` / ``sentences``: tokens with an
    annotation and sentences with one, as the project holds them;
    ``shown``: sentences worked on in the step; ``keys``: key presses so
    far; ``f1``: the caller's score of the model.
    """

    cost: float
    logged: Mapping[str, int]
    tokens_labeled: int
    sentences: int
    shown: int
    keys: int
    train_seconds: float
    f1: float | None = None


@dataclass
class ScriptedAnnotator:
    """An oracle annotator on ``window`` (see the module doc).

    Parameters
    ----------
    window : MainWindow
        Shown, with the project open.
    gold : mapping of sentence id to label names
    costs : tagtool.services.simulate.Costs
        The simulator's cost model the log is priced with.
    mode : str
        ``full``, ``tokens`` or ``review``.
    strategy : str
        The queue strategy (:mod:`tagtool.services.strategies`) from the second step on.
    skip_near_duplicates : bool
        Go › Queue strategy › Pass over near-duplicates, as ``tagtool simulate --skip-near-duplicates``.
    string_matches : bool
        View › String matches, as ``tagtool simulate --string-matches``: the hints the annotator reads
        (and Space and Enter accept) put a string match first, from the first label on.
    """

    window: object
    gold: Mapping[int, Sequence[str]]
    costs: object
    mode: str
    strategy: str = "gain"
    spans: bool = False
    skip_near_duplicates: bool = DEFAULT_SKIP
    string_matches: bool = False
    keys: int = 0
    _read_to: int = 0
    _records: list = field(default_factory=list)

    def __post_init__(self) -> None:
        # the string matches on screen as ``tagtool simulate --string-matches`` says (its default: off)
        self.window.model_loop.set_marks(string_matches=self.string_matches)

    # ------------------------------------------------------------------
    # the window

    @property
    def session(self):
        return self.window.session

    @property
    def editor(self):
        return self.window.editor

    @property
    def loop(self):
        return self.window.model_loop

    def press(self, key, modifiers=Qt.NoModifier) -> None:
        QTest.keyClick(self.editor, key, modifiers)
        self.keys += 1

    def cost(self) -> float:
        """The log's cost so far (new rows read since the last call)."""
        new = self.session.project.actions(after_id=self._read_to)
        if new:
            self._records += new
            self._read_to = new[-1].id
        return logged_cost(self._records, self.costs)

    # ------------------------------------------------------------------
    # settings, by the panel and the menus

    def prepare(self, learner: str, params: Mapping | None = None, folds: int = 0) -> None:
        """The learner; no retraining after edits (the steps retrain); ``folds`` of cross-validation after each
        run (0: none; with folds the question threshold and the cold start follow it, as ``tagtool simulate
        --cv-folds``'s); the first step's order."""
        window = self.window
        window.activateWindow()  # the menus' shortcuts (Ctrl+T, Ctrl+Shift+Q) reach an active window only
        if not QTest.qWaitForWindowActive(window):
            raise SessionError("the window did not become active")
        panel = window.model_panel
        panel.select_learner(learner, dict(params or {}))
        panel.auto.setChecked(False)
        panel.folds.setValue(folds)
        self.window.queue_menu.strategy_actions[self.first_strategy].trigger()
        # The simulator ranks with its default costs: the queue must too, not with the costs the
        # scripted keys' milliseconds would measure in the log (Go › Queue strategy › measured costs).
        costs_action = self.window.queue_menu.measured_costs_action
        if costs_action.isChecked():
            costs_action.trigger()
        if self.spans != self.window.queue_menu.spans_action.isChecked():
            self.window.queue_menu.spans_action.trigger()  # Go › Ask whole spans
        if self.window.queue_menu.near_duplicates_action.isChecked() != self.skip_near_duplicates:
            self.window.queue_menu.near_duplicates_action.trigger()
        if (self.mode == "tokens") != self.loop.questions.asking:
            self.press(Qt.Key_Q, Qt.ControlModifier | Qt.ShiftModifier)
        if (self.mode == "tokens") != self.loop.questions.asking:
            raise SessionError("Ctrl+Shift+Q did not turn the token-question mode on")
        self.editor.setFocus()

    @property
    def first_strategy(self) -> str:
        """The order of the first step (no model yet): the strategy's tie order, as the simulator's."""
        return "sequential" if get_strategy(self.strategy).file_order else "random"

    def train(self) -> float:
        """Train now (Ctrl+T) and wait for the run to end; its seconds."""
        started = time.perf_counter()
        outcome = _wait_for_run(self.loop, lambda: self.press(Qt.Key_T, Qt.ControlModifier))
        if len(outcome) == 2:  # failed(message, traceback)
            raise SessionError(f"the training failed: {outcome[0]}")
        return time.perf_counter() - started

    def pick_strategy(self) -> None:
        """Go › Queue strategy › the session's strategy (a model now ranks the sentences)."""
        action = self.window.queue_menu.strategy_actions[self.strategy]
        if not action.isChecked():
            action.trigger()

    # ------------------------------------------------------------------
    # the annotator's moves

    def _open(self, sid: int) -> bool:
        return annotation_status(self.session.project.annotations(sid)) != "full"

    def head(self) -> int | None:
        """The queue's first unfinished sentence (the sentence list sorted by Info); None without a queue."""
        skipped = self.session.edits.skipped
        return next((sid for sid in self.session.queue if sid not in skipped and self._open(sid)), None)

    def go_to_head(self) -> bool:
        """J to the queue's head (Home when already there); False when nothing is left to annotate."""
        head = self.head()
        current = self.session.current_id
        if head is None and self.session.queue:
            return False
        if head is not None and head == current:
            if (
                self.loop.hold.suggestions_waiting
            ):  # a model trained since it opened: its suggestions, as the simulator's
                self.press(Qt.Key_F5)
            self.press(Qt.Key_Home)
            return True
        self.press(Qt.Key_J)
        moved = self.session.current_id
        if head is not None and moved != head:
            raise SessionError(f"J went to sentence {moved}, the queue's head is {head}")
        return moved != current or self._open(moved)

    def focus(self, t: int) -> None:
        """Arrow keys (or Home) to token ``t``."""
        editor = self.editor
        if editor.focus > t and t < editor.focus - t:
            self.press(Qt.Key_Home)
        while editor.focus < t:
            self.press(Qt.Key_Right)
        while editor.focus > t:
            self.press(Qt.Key_Left)

    def select(self, first: int, last: int) -> None:
        """Tokens ``first``–``last`` selected: the editor selects a question whole; else Shift+Right does."""
        if self.editor.selection() != list(range(first, last + 1)):
            self.focus(first)
            while self.editor.focus < last:
                self.press(Qt.Key_Right, Qt.ShiftModifier)

    def give(self, t: int) -> None:
        """Token ``t`` its gold label: its label key (Shift + the type's digit for I-)."""
        self.focus(t)
        label = self.gold[self.session.current_id][t]
        shortcut = self.session.style.shortcut(label)
        if shortcut is None:
            raise SessionError(f"label {label} has no key")
        base = shortcut.removeprefix("Shift+")
        self.press(getattr(Qt, f"Key_{base.upper()}"), Qt.ShiftModifier if base != shortcut else Qt.NoModifier)
        if self.session.annotations[t] != frozenset({label}):
            raise SessionError(f"the key {shortcut} did not give token {t} the label {label}")

    def label_sentence(self) -> None:
        """Every unlabeled token of the current sentence its gold label."""
        for t, ann in enumerate(self.session.annotations):
            if not ann:
                self.give(t)

    def review_sentence(self) -> None:
        """Correct the wrong suggestions left to right, looking again after each (a string match a correction
        contradicts is gone), then Enter accepts the rest."""
        gold = self.gold[self.session.current_id]
        for t in range(len(self.session.annotations)):
            hint = self.editor.hints.get(t)
            if not self.session.annotations[t] and (hint is None or hint.suggestion != gold[t]):
                self.give(t)
        if any(not a for a in self.session.annotations):
            self.press(Qt.Key_Return)

    def answer_span(self, first: int, last: int) -> None:
        """A span question: one label key when its gold labels are that key's span, else token by token."""
        gold = list(self.gold[self.session.current_id][first : last + 1])
        labels = self.session.project.labels
        key = next((name for name in labels.names if span_labels(labels, name, len(gold)) == gold), None)
        shortcut = None if key is None else self.session.style.shortcut(key)
        if shortcut is None:
            for t in range(first, last + 1):
                self.give(t)
            return
        self.select(first, last)
        base = shortcut.removeprefix("Shift+")
        self.press(getattr(Qt, f"Key_{base.upper()}"), Qt.ShiftModifier if base != shortcut else Qt.NoModifier)
        if [next(iter(a), None) for a in self.session.annotations[first : last + 1]] != gold:
            raise SessionError(f"the key {shortcut} did not give tokens {first}-{last} their labels {gold}")

    def answer_questions(self, asked: list[int]) -> None:
        """The open questions ``asked`` of the current sentence: each token, or each span question whole.

        A question whose suggestion is right (a span question: on every token) is accepted with Space, as
        the simulator's ``accept_questions``; otherwise answered with the label keys.
        """
        runs = [(t, t) for t in asked] if not self.spans else _runs(asked)
        gold = self.gold[self.session.current_id]
        for first, last in runs:  # the hints looked at again for each: an answer can change a string match's
            hints = self.editor.hints
            right = all((h := hints.get(t)) is not None and h.suggestion == gold[t] for t in range(first, last + 1))
            if right:
                self.accept_question(first, last)
            elif self.spans:
                self.answer_span(first, last)
            else:
                self.give(first)

    def accept_question(self, first: int, last: int) -> None:
        """Space on the question ``first``–``last`` (selected whole): its suggestions accepted."""
        self.select(first, last)
        self.press(Qt.Key_Space)
        gold = self.gold[self.session.current_id]
        if any(self.session.annotations[t] != frozenset({gold[t]}) for t in range(first, last + 1)):
            got = [sorted(self.session.annotations[t]) for t in range(first, last + 1)]
            raise SessionError(f"Space did not accept the suggestions on tokens {first}-{last}: got {got}")

    def open_questions(self) -> list[int]:
        """The marked questions of the current sentence that have no label yet."""
        anns = self.session.annotations
        return [t for t in self.editor.hints.questions() if not anns[t]]

    # ------------------------------------------------------------------
    # steps

    def annotate_step(self, target: float) -> int:
        """Annotate until the log's cost reaches ``target`` (module doc); the sentences worked on."""
        if self.mode == "full":
            return self._sentences(target, self.label_sentence)
        if self.loop.result is None:  # no model: the string matches' suggestions (if on) are reviewed
            return self._sentences(target, self.review_sentence if self.string_matches else self.label_sentence)
        if self.mode == "review" or self._reviewing_cold():
            return self._sentences(target, self.review_sentence)
        return self._questions(target)

    def _reviewing_cold(self) -> bool:
        """The token modes' cold start: whole sentences reviewed (tagtool.services.question_threshold.COLD_TOKENS)."""
        from tagtool.services import question_threshold

        plan = self.loop.questions.plan
        return plan is not None and plan.calibration.cold and question_threshold.COLD_TOKENS == "review"

    def _sentences(self, target: float, work: Callable[[], None]) -> int:
        shown = 0
        while not reached(self.cost(), target) and self.go_to_head():
            work()
            shown += 1
        return shown

    def _questions(self, target: float) -> int:
        shown = 0
        if not self.go_to_head():
            return 0
        while True:
            asked = self.open_questions()
            self.answer_questions(asked)
            shown += bool(asked)
            here = self.session.current_id
            self.press(Qt.Key_Tab)  # leaving: the unlabeled tokens are logged as skipped
            if self.session.current_id == here and not self.open_questions():
                break  # no question left anywhere
            if reached(self.cost(), target):
                return shown
        return shown + self._sentences(target, self.label_sentence)  # the simulator's fallback

    def run(
        self,
        step: float,
        growth: float,
        budget: float,
        score: Callable[[object], float] | None = None,
        stop: Callable[[StepPoint], bool] | None = None,
        report: Callable[[StepPoint], None] | None = None,
    ) -> list[StepPoint]:
        """Steps of ``step`` cost growing by ``growth`` until ``budget`` (or ``stop``); a point per step.

        ``score(tagger)``: the model's F1 after each step's training.
        """
        points: list[StepPoint] = []
        size = float(step)
        while not reached(self.cost(), budget):
            target = min(self.cost() + size, budget)
            shown = self.annotate_step(target)
            if not shown:
                break
            size *= growth
            seconds = self.train()
            self.pick_strategy()
            project = self.session.project
            counts, statuses = project.listing.annotation_counts(), project.listing.status_counts()
            point = StepPoint(
                cost=round(self.cost(), 6),
                logged=logged_tokens(self._records),
                tokens_labeled=counts["full"] + counts["partial"],
                sentences=statuses["full"] + statuses["partial"],
                shown=shown,
                keys=self.keys,
                train_seconds=seconds,
                f1=None if score is None else score(self.loop.result.tagger),
            )
            points.append(point)
            if report is not None:
                report(point)
            if stop is not None and stop(point):
                break
        return points


def _runs(tokens: Sequence[int]) -> list[tuple[int, int]]:
    """The runs of contiguous token indices in sorted ``tokens``: ``(first, last)`` each."""
    runs: list[tuple[int, int]] = []
    for t in tokens:
        if runs and runs[-1][1] == t - 1:
            runs[-1] = (runs[-1][0], t)
        else:
            runs.append((t, t))
    return runs


def _wait_for_run(loop, start: Callable[[], None]) -> tuple:
    """Call ``start`` (a key that trains) and wait for the run's ``finished`` or ``failed``; its arguments."""
    outcome: list = []
    began: list = []
    waiter = QEventLoop()

    def done(*args):
        outcome.append(args)
        waiter.quit()

    signals = ((loop.finished, done), (loop.failed, done), (loop.started, began.append), (loop.waiting, began.append))
    for signal, slot in signals:
        signal.connect(slot)
    timer = QTimer(singleShot=True, interval=TRAIN_TIMEOUT_MS)
    timer.timeout.connect(waiter.quit)
    try:
        start()
        if not began and not outcome:  # a big project may first wait for its sentences: waiting()
            raise SessionError("the key started no training")
        timer.start()
        if not outcome:
            waiter.exec()
    finally:
        for signal, slot in signals:
            signal.disconnect(slot)
    if not outcome:
        raise SessionError("the training did not end in time")
    return outcome[0]
