"""The project's word representations in the app: learned in the background, kept in the project.

:class:`RepresentationsController` owns its own :class:`~tagtool.gui.worker.TaskRunner`,
so learning never cancels a training run nor waits for one:

* On opening a project, the stored representations' bytes are read (one
  row) and decoded in the worker.
* When they are wanted (:attr:`mode`: ``"auto"`` follows
  :func:`tagtool.represent.wanted_by_default`, ``"on"``, ``"off"``) and
  missing or stale (the text changed by 10 % or more,
  :mod:`tagtool.store.representations`), the text — the session's cached
  sentences and the project's added texts — is copied on the GUI thread
  and learned from in the worker, with progress and Cancel; the result is
  stored on the GUI thread (one INSERT) and :attr:`changed` is emitted.
* :meth:`for_training` gives the training run what to use: the
  representations and the feature set that reads them, or nothing.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from tagtool.core.features.wordreps import WordRepresentations
from tagtool.gui.worker import TaskRunner
from tagtool.represent import MIN_AUTO_TEXT_TOKENS, learn_representations, wanted_by_default

log = logging.getLogger(__name__)

MODES = ("auto", "on", "off")


def _decode(data: bytes, state) -> WordRepresentations:
    return WordRepresentations.from_bytes(data)


def _learn(text: list[list[str]], n_tokens: int, state) -> tuple[WordRepresentations, int, bytes]:
    reps = learn_representations(text, progress=state.progress, should_stop=state.should_stop)
    return reps, n_tokens, reps.to_bytes()  # serialised here: the GUI thread only inserts the bytes


class RepresentationsController(QObject):
    """Word representations of the session's project (module docstring)."""

    changed = Signal()
    progress = Signal(float, str)

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = TaskRunner(self)
        self.mode = "auto"
        self.current: WordRepresentations | None = None
        self.learning = False
        self.error = ""
        self._load_stored()

    # -- state -------------------------------------------------------------

    @property
    def project(self):
        return self.session.project

    def wanted(self) -> bool:
        if self.mode == "off":
            return False
        return self.mode == "on" or wanted_by_default(self.project.text_tokens())

    def for_training(self) -> WordRepresentations | None:
        """The representations a training run should read, or None (off, not wanted, not ready)."""
        return self.current if self.wanted() else None

    def status_text(self) -> str:
        """One line for the model panel."""
        tokens = self.project.text_tokens()
        if self.learning:
            return "Word representations: learning from the project's text…"
        if self.error:
            return f"Word representations: not learned ({self.error})"
        if not self.wanted():
            if self.mode == "off":
                return "Word representations: off"
            return (f"Word representations: off — {tokens:,} tokens of text, they pay from "
                    f"{MIN_AUTO_TEXT_TOKENS:,} (File ▸ Add text…, or set them on)")
        if self.current is None:
            return "Word representations: waiting to be learned"
        info = self.current.info
        return (f"Word representations: in use — {len(self.current.words):,} words from "
                f"{info.get('n_tokens', 0):,} tokens, clusters {', '.join(map(str, self.current.granularities))}")

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
        if not self.wanted() or self.learning or self.project.readonly:
            return
        if self.current is not None and not self.project.representations_stale():
            return
        if self.session.defer_until_sentences_ready("representations", self.refresh):
            return
        _ids, sentences = self.session.training_sentences()
        text = [list(s.tokens) for s in sentences] + self.project.text_lines()
        n_tokens = sum(map(len, text))
        self.learning, self.error = True, ""
        task = self.runner.start(_learn, text, n_tokens)
        task.signals.progress.connect(self.progress)
        task.signals.returned.connect(lambda result, t=task: self._learned(t, result))
        task.signals.errored.connect(lambda message, _tb, t=task: self._failed(t, message))
        task.signals.cancelled.connect(lambda t=task: self._failed(t, "cancelled"))
        self.changed.emit()

    def cancel(self) -> None:
        if self.runner.cancel():
            self.learning = False
            self.error = "cancelled"
            self.changed.emit()

    def shutdown(self) -> None:
        self.runner.shutdown()

    # -- slots -------------------------------------------------------------

    def _load_stored(self) -> None:
        record = self.project.representations_record()
        if record is None:
            return
        data = self.project.representations_bytes()
        task = self.runner.start(_decode, data)
        task.signals.returned.connect(lambda reps, t=task: self._loaded(t, reps))
        task.signals.errored.connect(lambda message, _tb, t=task: self._failed(t, message))

    def _loaded(self, task, reps: WordRepresentations) -> None:
        if not self.runner.is_current(task) and self.learning:
            return
        self.current = reps
        self.changed.emit()
        self.refresh()

    def _learned(self, task, result) -> None:
        if not self.runner.is_current(task):
            return  # cancelled after it finished: what was cancelled is not stored
        self.learning = False
        reps, n_tokens, data = result
        try:
            self.project.set_representations(reps, n_tokens, data)
        except Exception as exc:  # noqa: BLE001 — a full disk must not lose the model panel's state
            log.warning("word representations not stored: %s", exc)
            self.error = f"not stored: {exc}"
        self.current = reps
        self.changed.emit()

    def _failed(self, task, message: str) -> None:
        if not self.runner.is_current(task) and not self.learning:
            return
        self.learning = False
        self.error = message
        log.info("word representations: %s", message)
        self.changed.emit()
