"""Knowledge a user brings to the open project, in the app: word vectors, dictionaries, patterns.

:class:`KnowledgeController` keeps what the project holds
(:mod:`tagtool.store.resources`) ready for training and adds or removes it:

* On opening a project the stored vectors, dictionaries and patterns are
  read and decoded in a worker thread, through a read-only connection of
  its own (:class:`~tagtool.store.worker_reads.ReadOnlyCall`).
* *Add word vectors…* reads the file in a worker with progress and Cancel
  (:func:`tagtool.services.user_vectors.load_user_vectors`: the vectors of
  the project's words only, a 1–2 GB file in bounded memory) and stores
  them from there (:func:`~tagtool.services.user_vectors.store_vectors_in_file`):
  several megabytes written on the window's connection would stall it.
  Its runner is paced, so the window gets its turns while they are clustered.
* *Add dictionary…* and *Add patterns…* read and store their file the same
  way (:func:`tagtool.store.resources.put_in_file`), on a second runner, so a
  long vectors read does not hold them up; one file at a time, queued, and
  only after the project's own were read, so none replaces another's work.
* A file that is not what it should be stores nothing; the message names
  the file and line (the services' errors).
* Whatever is added or removed changes the model's features:
  :attr:`KnowledgeController.knowledge_changed` tells the model loop, which
  retrains as after an edit (a cold start, the features changed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from tagtool.errors import Cancelled, TagtoolError
from tagtool.gui.knowledge_text import vectors_summary
from tagtool.gui.worker import TaskRunner
from tagtool.store.resources import put_in_file

log = logging.getLogger(__name__)

VECTORS, GAZETTEER, PATTERNS = "vectors", "gazetteer", "patterns"


def vocabulary(sentences, lines) -> set[str]:
    """The project's words: every token of its sentences and of its added texts."""
    words: set[str] = set()
    for sentence in sentences:
        words.update(sentence.tokens)
    for line in lines:
        words.update(line)
    return words


def read_stored(project) -> dict:
    """What ``project`` holds, decoded: ``{"vectors": reps or None, "dictionaries": [...], "patterns": [...]}``."""
    from tagtool.services.dictionaries import project_dictionaries, project_patterns
    from tagtool.services.user_vectors import project_vectors

    stored = project.stored
    vectors, dictionaries = project_vectors(stored), project_dictionaries(stored)
    return {
        VECTORS: _hashed(vectors),
        "dictionaries": dictionaries,
        "gazetteers": gazetteers_for(dictionaries),
        PATTERNS: project_patterns(stored),
    }


def _hashed(thing):
    """``thing`` with its fingerprint computed (and cached) here, in the worker, not on the GUI thread."""
    getattr(thing, "fingerprint", None)
    return thing


def gazetteers_for(dictionaries):
    """The ``gaz`` features' :class:`~tagtool.core.features.gazetteers.Gazetteers` of ``dictionaries``, or None."""
    from tagtool.services.dictionaries import gazetteers_of

    return _hashed(gazetteers_of(dictionaries))


def _read_vectors(path: str, sentences, text, project_file, state):
    """Worker: the vectors of the project's words in the file at ``path``, stored in ``project_file``.

    ``text`` reads the project's added texts (a read-only call of the
    worker's own), or is their lines.
    """
    from tagtool.services.user_vectors import load_user_vectors, store_vectors_in_file

    lines = text(state.should_stop) if callable(text) else text
    words = vocabulary(sentences, lines)
    state.progress(0.0, f"reading {Path(path).name}")
    reps = load_user_vectors(path, words, progress=state.progress, should_stop=state.should_stop)
    if state.should_stop():
        raise Cancelled("reading the word vectors cancelled")
    state.progress(1.0, "storing the word vectors in the project")
    store_vectors_in_file(project_file, reps)
    return _hashed(reps)


def _read_dictionary(path: str, entity_type: str, held: list, project_file, state):
    """Worker: read and store a dictionary; it, and all the dictionaries with ``gaz``'s of them (``held`` updated)."""
    from tagtool.services.dictionaries import read_dictionary, resource_of

    dictionary = read_dictionary(path, entity_type)
    if state.should_stop():
        raise Cancelled("adding the dictionary cancelled")
    put_in_file(project_file, *resource_of(dictionary))  # what store_dictionary keeps, on this thread's connection
    dictionaries = [d for d in held if d.entity_type != entity_type] + [dictionary]
    return dictionary, dictionaries, gazetteers_for(dictionaries)


def _read_patterns(path: str, project_file, state):
    from tagtool.services.dictionaries import read_patterns, resource_of

    patterns = read_patterns(path)
    if state.should_stop():
        raise Cancelled("adding the patterns cancelled")
    put_in_file(project_file, *resource_of(patterns))
    return patterns


class KnowledgeController(QObject):
    """The knowledge of the session's project (module docstring).

    Signals
    -------
    changed()
        The state shown changed (reading, read, failed, added, removed).
    progress(float, str)
        Reading a vectors file.
    knowledge_changed()
        Vectors, a dictionary or patterns were added or removed: the model's features change.
    ready()
        The project's stored knowledge was read (on opening).
    message(str)
        A line for the status bar (what was added, what went wrong).
    """

    changed = Signal()
    progress = Signal(float, str)
    knowledge_changed = Signal()
    #: The project's stored knowledge was read on opening.
    ready = Signal()
    message = Signal(str)
    #: A file could not be added: ``(title, message naming the file and line)``.
    failed = Signal(str, str)

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.vector_runner = TaskRunner(self, paced=True)  # a 2 GB vectors file: the window gets its turns
        self.file_runner = TaskRunner(self)  # the stored knowledge on opening, then dictionaries and patterns
        self.vectors = None
        self.dictionaries: list = []
        #: The ``gaz`` features' dictionaries (all of :attr:`dictionaries` together), or None.
        self.gazetteers = None
        self.patterns: list = []
        #: The vectors file being read ("" when none).
        self.reading = ""
        self.error = ""
        self.loaded = False
        #: Files to add, one at a time, each ``(what, make)``: ``make()`` gives the worker's function and
        #: arguments when it starts (a dictionary's task needs the dictionaries of that moment).
        self._queue: list[tuple[str, Callable]] = []
        self._adding = ""  # the file being added now
        self._vectors_waiting: str | Path | None = None  # a vectors file chosen before the project's were read
        self.closed = False
        self._load_stored()

    @property
    def project(self):
        return self.session.project

    @property
    def adding(self) -> str:
        """The dictionaries and patterns files being added or waiting to be ("" when none)."""
        return ", ".join([self._adding] * bool(self._adding) + [what for what, _ in self._queue])

    # -- what training reads ------------------------------------------------

    def vectors_off(self) -> bool:
        """Whether the project's setting keeps its vectors out of training (``tagtool vectors PROJECT --use off``)."""
        from tagtool.services.user_vectors import vectors_use

        return vectors_use(self.project) == "off"

    def set_vectors_use(self, on: bool) -> None:
        """Train with the stored vectors or not (the project's ``vectors.use``); the model retrains."""
        from tagtool.services.user_vectors import set_vectors_use

        if self.vectors_off() != on:
            return
        try:
            set_vectors_use(self.project, "on" if on else "off")
        except TagtoolError as exc:  # a full disk, a read-only file: the setting stays as it was
            log.warning("vectors.use not saved: %s", exc)
            self.error = str(exc)
        self.changed.emit()
        if self.vectors is not None:
            self.knowledge_changed.emit()

    def vectors_unused(self) -> bool:
        """Whether the default rule adds no ``vec`` set for the project's labels (spans: user_vectors.vector_sets)."""
        from tagtool.services.user_vectors import spans_only

        return spans_only(self.project.labels.names)

    def for_training(self) -> dict:
        """The keyword arguments of a training run: ``vectors`` and ``gazetteers`` (None when absent or off)."""
        vectors = None if self.vectors is None or self.vectors_off() or self.vectors_unused() else self.vectors
        return {"vectors": vectors, "gazetteers": self.gazetteers}

    def records(self) -> list:
        """The project's resource records (kind, name, added, size, info), by kind and name."""
        return self.project.stored.resources()

    # -- adding -----------------------------------------------------------------

    def add_vectors(self, path: str | Path) -> bool:
        """Read the vectors file at ``path`` in the background and store them; False if it cannot start."""
        if self.closed or self.project.readonly:
            return False
        self.reading, self.error = Path(path).name, ""
        if not self.loaded:  # read once the project's own are in (they would replace these)
            self._vectors_waiting = path
            self.changed.emit()
            return True
        if self.session.cache.defer_until_sentences_ready("knowledge", lambda: self.add_vectors(path)):
            self.changed.emit()
            return True
        from tagtool.store.worker_reads import ReadOnlyCall

        _ids, sentences = self.session.cache.training_sentences()
        text = ReadOnlyCall.of(self.project, lambda p: p.stored.text_lines())
        lines = text if text is not None else self.project.stored.text_lines()
        self.vector_runner.start(_read_vectors, str(path), sentences, lines, self.project.path, wire=self._wire_vectors)
        self.changed.emit()
        return True

    def add_dictionary(self, path: str | Path, entity_type: str) -> bool:
        """Read a dictionary of ``entity_type`` in the background and store it; False if it cannot start."""
        what = f"the dictionary {Path(path).name}"
        return self._add_file(what, lambda: (_read_dictionary, str(path), entity_type, list(self.dictionaries)))

    def add_patterns(self, path: str | Path) -> bool:
        """Read a patterns file in the background and store it; False if it cannot start."""
        return self._add_file(f"the patterns {Path(path).name}", lambda: (_read_patterns, str(path)))

    def _add_file(self, what: str, make: Callable) -> bool:
        """Queue a file: files are added one at a time, after the project's own were read (none is lost)."""
        if self.closed or self.project.readonly:
            return False
        self._queue.append((what, make))
        self.error = ""
        self._next_file()
        self.changed.emit()
        return True

    def _next_file(self) -> None:
        if self.closed or not self.loaded or self._adding or not self._queue:
            return
        (self._adding, make), self._queue = self._queue[0], self._queue[1:]
        function, *args = make()

        def wire(task) -> None:
            task.signals.returned.connect(lambda result: self._added(result))
            task.signals.errored.connect(lambda message, _tb: self._add_failed(message))
            task.signals.cancelled.connect(lambda: self._add_failed(""))

        self.file_runner.start(function, *args, self.project.path, wire=wire)

    def cancel(self) -> bool:
        """Stop reading a vectors file (nothing is stored); False if none was being read."""
        deferred = self.session.cache.drop_deferred("knowledge") or self._vectors_waiting is not None
        self._vectors_waiting = None
        if self.vector_runner.cancel() or deferred:
            self.reading = ""
            self.message.emit("Reading the word vectors cancelled; nothing was stored.")
            self.changed.emit()
            return True
        return False

    # -- removing ------------------------------------------------------------

    def remove(self, kind: str, name: str) -> bool:
        """Remove the project's resource ``kind``/``name`` (as the services do); False if it had none."""
        from tagtool.services.dictionaries import remove_dictionary, remove_patterns

        stored = self.project.stored
        if kind == VECTORS:
            from tagtool.services.user_vectors import remove_vectors

            removed = remove_vectors(stored)
            self.vectors = None
        elif kind == GAZETTEER:
            removed = remove_dictionary(stored, name)
            self.dictionaries = [d for d in self.dictionaries if d.entity_type != name]
            self.gazetteers = gazetteers_for(self.dictionaries)  # the rest: small next to a vectors file
        else:
            removed = remove_patterns(stored, name)
            self.patterns = [p for p in self.patterns if p.name != name]
        self.changed.emit()
        if removed:
            self.knowledge_changed.emit()
        return removed

    def shutdown(self) -> None:
        """The project closes: stop reading, and answer no signal after this."""
        self.closed = True
        self.session.cache.drop_deferred("knowledge")
        self._queue.clear()
        self.vector_runner.shutdown()
        self.file_runner.shutdown()

    # -- slots ---------------------------------------------------------------

    def _load_stored(self) -> None:
        """Read what the project holds in the worker (a read-only connection of its own)."""
        if not self.project.stored.resources():
            self.loaded = True
            return
        from tagtool.store.worker_reads import ReadOnlyCall

        call = ReadOnlyCall.of(self.project, read_stored)
        if call is None:  # an old file migrated into memory: no other connection can read it
            self._loaded(read_stored(self.project))
            return

        def wire(task) -> None:
            task.signals.returned.connect(self._loaded)
            task.signals.errored.connect(lambda message, _tb: self._load_failed(message))

        self.file_runner.start(lambda state: call(state.should_stop), wire=wire)

    def _loaded(self, held: dict) -> None:
        if self.closed:
            return
        self.vectors, self.dictionaries, self.patterns = held[VECTORS], list(held["dictionaries"]), list(held[PATTERNS])
        self.gazetteers = held["gazetteers"]
        self._now_loaded()
        self.ready.emit()

    def _load_failed(self, message: str) -> None:
        if self.closed:
            return
        self.error = f"the project's knowledge could not be read: {message}"
        log.warning("%s", self.error)
        self._now_loaded()

    def _now_loaded(self) -> None:
        """The project's own are read: start what was chosen meanwhile."""
        self.loaded = True
        self.changed.emit()
        waiting, self._vectors_waiting = self._vectors_waiting, None
        if waiting is not None:
            self.add_vectors(waiting)
        self._next_file()

    def _wire_vectors(self, task) -> None:
        task.signals.progress.connect(self.progress)
        task.signals.returned.connect(lambda reps, t=task: self._vectors_read(t, reps))
        task.signals.errored.connect(lambda message, _tb, t=task: self._vectors_failed(t, message))
        task.signals.cancelled.connect(lambda t=task: self._vectors_failed(t, ""))

    def _vectors_read(self, task, reps) -> None:
        if self.closed or (self.vector_runner.busy and not self.vector_runner.is_current(task)):
            return  # a newer read runs; this one is stored, and that one replaces it
        self.reading, self.vectors = "", reps
        self.message.emit(f"Added word vectors: {vectors_summary(reps)}.")
        self.changed.emit()
        self.knowledge_changed.emit()

    def _vectors_failed(self, task, message: str) -> None:
        if self.closed or not self.vector_runner.is_current(task):
            return
        self.reading = ""
        if message:
            self.error = message
            self.failed.emit("Add word vectors", f"Nothing was stored.\n\n{message}")
        self.changed.emit()

    def _added(self, result) -> None:
        if self.closed:
            return
        self._adding = ""
        if isinstance(result, tuple):
            dictionary, self.dictionaries, self.gazetteers = result
            self.message.emit(
                f"Added the dictionary {dictionary.entity_type}: {len(dictionary):,} entries from {dictionary.source}."
            )
        else:
            self.patterns = [p for p in self.patterns if p.name != result.name] + [result]
            self.message.emit(f"Added {len(result):,} patterns from {result.name}.")
        self.changed.emit()
        self.knowledge_changed.emit()
        self._next_file()

    def _add_failed(self, message: str) -> None:
        if self.closed:
            return
        what, self._adding = self._adding, ""
        if message:
            self.error = message
            title = "Add dictionary" if what.startswith("the dictionary") else "Add patterns"
            self.failed.emit(title, f"Nothing was stored.\n\n{message}")
        self.changed.emit()
        self._next_file()
