"""The project's word representations in the app: learned in the background, kept in the project.

:class:`RepresentationsController` owns its own :class:`~tagtool.gui.worker.TaskRunner`,
so learning never cancels a training run nor waits for one:

* On opening a project, the stored representations' bytes are read (one
  row) and decoded in the worker.
* When they are wanted (:attr:`mode`: ``"auto"`` follows
  :func:`tagtool.services.represent.wanted_by_default`, ``"on"``, ``"off"``) and
  missing or stale (the text changed by 10 % or more,
  :mod:`tagtool.store.representations`), the text — the session's cached
  sentences and the project's added texts — is copied on the GUI thread
  and learned from in the worker, with progress and Cancel; the worker
  also serialises, fingerprints and stores them through its own connection
  (:func:`tagtool.store.representations.store_in_file`: several megabytes
  and a commit would stall the window), then :attr:`changed` is emitted.
* :meth:`for_training` gives the training run what to use: the
  representations and the feature set that reads them, or nothing — also
  nothing while "auto" holds them back from a two-view learner on a few
  span-labeled sentences (:func:`tagtool.services.represent.held_back_by_default`).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tagtool.core.features.wordreps import WordRepresentations
from tagtool.errors import ProjectError
from tagtool.gui.wheel_guard import guard_wheel
from tagtool.gui.worker import TaskRunner
from tagtool.services.represent import (
    MIN_AUTO_TEXT_TOKENS,
    MIN_TWO_VIEW_SPAN_SENTENCES,
    held_back_by_default,
    learn_representations,
    wanted_by_default,
)
from tagtool.store.representations import store_in_file

log = logging.getLogger(__name__)

MODES = ("auto", "on", "off")


def _decode(data: bytes, state) -> WordRepresentations:
    reps = WordRepresentations.from_bytes(data)
    reps.fingerprint  # noqa: B018 — hashed (and cached) here, not on the GUI thread
    return reps


def _learn(sentences, lines: list[list[str]], path: str, state) -> tuple[WordRepresentations, str]:
    """Learn from the sentences' tokens and the added text's ``lines``, then store in the project file at
    ``path``; returns the representations and a storage error ("").

    The token lists are made here, so that a big project's are not made on the GUI thread.
    """
    text = [list(s.tokens) for s in sentences] + lines
    n_tokens = sum(map(len, text))
    reps = learn_representations(text, progress=state.progress, should_stop=state.should_stop)
    state.progress(1.0, "storing the word representations")
    data = reps.to_bytes()
    reps.fingerprint  # noqa: B018 — cached for the GUI thread
    try:
        store_in_file(path, reps, n_tokens, data)
    except ProjectError as exc:  # a full disk must not lose what was learned: it is used, unsaved
        log.warning("word representations not stored: %s", exc)
        return reps, str(exc)
    return reps, ""


class RepresentationsController(QObject):
    """Word representations of the session's project (module docstring)."""

    changed = Signal()
    progress = Signal(float, str)
    #: New representations became current (loaded or learned): a cold start may use them.
    ready = Signal()

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = TaskRunner(self)
        self.mode = "auto"
        self.current: WordRepresentations | None = None
        self.learning = False
        self.error = ""
        #: Why the last learned representations could not be stored ("" when they were).
        self.store_error = ""
        #: Why "auto" keeps the learned representations out of the last training run ("" when it does not).
        self.held_back = ""
        self.closed = False
        self._text_tokens = self.project.stored.text_tokens()
        self._load_stored()

    # -- state -------------------------------------------------------------

    @property
    def project(self):
        return self.session.project

    def wanted(self) -> bool:
        if self.mode == "off":
            return False
        return self.mode == "on" or wanted_by_default(self._text_tokens)

    def for_training(self, learner_name: str | None = None, sentences=None) -> WordRepresentations | None:
        """The representations a training run should read, or None (off, not wanted, not ready).

        Given the run's learner and sentences, "auto" also applies
        :func:`~tagtool.services.represent.held_back_by_default`; why it holds
        them back is kept in :attr:`held_back` for the status line.
        """
        if learner_name is not None and sentences is not None and self.mode == "auto" and self.current is not None:
            self._hold_back(learner_name, sentences)
        if self.held_back and self.mode == "auto":
            return None
        return self.current if self.wanted() else None

    def _hold_back(self, learner_name: str, sentences) -> None:
        from tagtool.learn import get_learner

        try:
            two_view = bool(get_learner(learner_name).two_view)
        except Exception:  # noqa: BLE001 — an unknown learner fails in the run itself
            two_view = False
        reason = held_back_by_default(two_view, sentences)
        if reason != self.held_back:
            self.held_back = reason
            self.changed.emit()

    def status_text(self) -> str:
        """One line for the model panel."""
        tokens = self._text_tokens
        if self.learning:
            return "Word representations: learning from the project's text…"
        if self.error:
            return f"Word representations: not learned ({self.error})"
        if not self.wanted():
            if self.mode == "off":
                return "Word representations: off"
            return (
                f"Word representations: off — {tokens:,} tokens of text, they pay from "
                f"{MIN_AUTO_TEXT_TOKENS:,} (File ▸ Add text…, or set them on)"
            )
        if self.current is None:
            return "Word representations: waiting to be learned"
        if self.held_back and self.mode == "auto":
            return f"Word representations: learned, not used yet — {self.held_back}; set them on to use them now"
        info = self.current.info
        unsaved = f" (not saved in the project: {self.store_error})" if self.store_error else ""
        return (
            f"Word representations: in use — {len(self.current.words):,} words from "
            f"{info.get('n_tokens', 0):,} tokens, clusters {', '.join(map(str, self.current.granularities))}" + unsaved
        )

    # -- actions -----------------------------------------------------------

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        self.mode = mode
        self.error = ""
        self.refresh()
        self.changed.emit()

    def refresh(self) -> None:
        """Learn new representations if they are wanted and missing or stale."""
        if self.closed:
            return
        self._text_tokens = self.project.stored.text_tokens()
        if not self.wanted() or self.learning or self.project.readonly:
            return
        if self.current is not None and not self.project.stored.representations_stale():
            return
        if self.session.cache.defer_until_sentences_ready("representations", self.refresh):
            return
        _ids, sentences = self.session.cache.training_sentences()
        self.learning, self.error = True, ""
        self.runner.start(_learn, sentences, self.project.stored.text_lines(), str(self.project.path), wire=self._wire)
        self.changed.emit()

    def _wire(self, task) -> None:
        """Connect ``task`` before it is queued: a quick failure must not be lost."""
        task.signals.progress.connect(self.progress)
        task.signals.returned.connect(lambda result, t=task: self._learned(t, result))
        task.signals.errored.connect(lambda message, _tb, t=task: self._failed(t, message))
        task.signals.cancelled.connect(lambda t=task: self._failed(t, "cancelled"))

    def cancel(self) -> None:
        if self.runner.cancel():
            self.learning = False
            self.error = "cancelled"
            self.changed.emit()

    def shutdown(self) -> None:
        """The project closes: stop learning, and answer no signal after this."""
        self.closed = True
        self.session.cache.drop_deferred("representations")
        self.runner.shutdown()

    # -- slots -------------------------------------------------------------

    def _load_stored(self) -> None:
        record = self.project.stored.representations_record()
        if record is None:
            return
        data = self.project.stored.representations_bytes()

        def wire(task) -> None:
            task.signals.returned.connect(lambda reps, t=task: self._loaded(t, reps))
            task.signals.errored.connect(lambda message, _tb, t=task: self._failed(t, message))

        self.runner.start(_decode, data, wire=wire)

    def _loaded(self, task, reps: WordRepresentations) -> None:
        if self.closed or (not self.runner.is_current(task) and self.learning):
            return
        self.current = reps
        self.changed.emit()
        self.ready.emit()
        self.refresh()

    def _learned(self, task, result) -> None:
        if self.closed or not self.runner.is_current(task):
            return  # cancelled after it finished: what was cancelled is not stored
        self.learning = False
        reps, self.store_error = result
        self.current = reps
        self.changed.emit()
        self.ready.emit()

    def _failed(self, task, message: str) -> None:
        if self.closed or (not self.runner.is_current(task) and not self.learning):
            return
        self.learning = False
        self.error = message
        log.info("word representations: %s", message)
        self.changed.emit()


class RepresentationsBox(QWidget):
    """The model panel's line on word representations: status, mode, progress, Cancel."""

    def __init__(self, controller: RepresentationsController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.mode = QComboBox(self)
        guard_wheel(self.mode)  # in the scrolled model panel: the wheel scrolls it unless the box has focus
        self.mode.setObjectName("representations_mode")
        for mode, text in (("auto", "auto (when the text is large enough)"), ("on", "on"), ("off", "off")):
            self.mode.addItem(text, mode)
        self.mode.setCurrentIndex(MODES.index(controller.mode))
        self.mode.setToolTip(
            "Word representations: clusters of FastText vectors learned from all the project's text "
            "(labeled or not, plus File ▸ Add text…), as extra features of every token and its neighbours.\n"
            f"auto: on once the project holds {MIN_AUTO_TEXT_TOKENS:,} tokens of text; a two-view learner on\n"
            f"span labels reads them from {MIN_TWO_VIEW_SPAN_SENTENCES} labeled sentences."
        )
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.cancel = QPushButton("Cancel", self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Word representations", self))
        row.addWidget(self.mode, 1)
        bars = QHBoxLayout()
        bars.addWidget(self.bar, 1)
        bars.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(bars)
        layout.addWidget(self.status)
        self.mode.currentIndexChanged.connect(lambda _i: controller.set_mode(self.mode.currentData()))
        self.cancel.clicked.connect(controller.cancel)
        controller.changed.connect(self.update_state)
        controller.progress.connect(lambda fraction, _message: self.bar.setValue(int(1000 * fraction)))
        self.update_state()

    def update_state(self) -> None:
        if self.controller.closed:
            return
        learning = self.controller.learning
        self.bar.setVisible(learning)
        self.cancel.setVisible(learning)
        if not learning:
            self.bar.setValue(0)
        self.status.setText(self.controller.status_text())


def ask_add_text(controller: RepresentationsController, parent: QWidget, folders=None) -> str:
    """File ▸ Add text…: plain text files into the project, for the word representations; a status line.

    ``folders`` (:class:`~tagtool.gui.file_fields.Folders`) says where the dialog starts.
    """
    from tagtool.services.represent import read_text_file

    start = folders.start("import") if folders is not None else ""
    paths, _ = QFileDialog.getOpenFileNames(
        parent, "Add text for word representations", start, "Text files (*.txt);;All files (*)"
    )
    if not paths:
        return ""
    if folders is not None:
        folders.remember("import", paths[0])
    # Every file is read before the project changes: a bad byte leaves it as it was.
    texts = [(path, read_text_file(path)) for path in paths]
    tokens = 0
    for path, lines in texts:
        controller.project.stored.add_text(path.rsplit("/", 1)[-1], lines)
        tokens += sum(map(len, lines))
    controller.refresh()
    controller.changed.emit()
    return f"Added {len(texts)} text file(s), {tokens:,} tokens, for the word representations."
