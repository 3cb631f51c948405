"""Where the app's log goes: a log file, and each repeated warning once.

A learner notes on every retrain what it leaves out ("crf cannot use
unlabeled sentences: 350 left out"); a person needs to read that once, not
fifty times in a terminal.  :class:`OncePerMessage` lets the first record
of a warning through and drops its repeats, where a repeat is the same
logger, level and text up to its numbers (the count changes as the person
labels).  :func:`configure_app_logging` writes everything from INFO up to
:func:`log_file` (rotated at :data:`MAX_LOG_BYTES`), sends Python's
``warnings`` through logging, and puts the filter on the terminal's
handlers and on any the caller adds (the window's status bar).
"""

from __future__ import annotations

import logging
import logging.handlers
import re
import sys
import threading
from pathlib import Path

from tagtool.paths import user_state_dir

LOG_NAME = "tagtool.log"
MAX_LOG_BYTES, LOG_BACKUPS = 1_000_000, 2
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def log_file() -> Path:
    """The app's log file under the user's state folder."""
    return user_state_dir() / LOG_NAME


class OncePerMessage(logging.Filter):
    """Lets a warning (or worse) through the first time only; INFO and below always pass.

    One instance may sit on several handlers: each of them gets the first
    record of a message (the same record object) and none gets a repeat.
    """

    def __init__(self):
        super().__init__()
        self._first: dict[tuple, logging.LogRecord] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.levelno, _NUMBER.sub("#", record.getMessage()))
        with self._lock:
            first = self._first.setdefault(key, record)
        return first is record


_configured: OncePerMessage | None = None


def configure_app_logging(*extra: logging.Handler) -> OncePerMessage:
    """The app's logging (idempotent): the log file, ``warnings`` captured, repeats dropped.

    ``extra`` handlers (the status bar's) get the same once-only filter.
    A log file that cannot be opened leaves the terminal as the only place.
    """
    global _configured
    root = logging.getLogger()
    if _configured is None:
        _configured = OncePerMessage()
        terminal_level = root.getEffectiveLevel()  # what the terminal showed (-v: INFO)
        if not root.handlers:
            terminal = logging.StreamHandler(sys.stderr)
            terminal.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
            root.addHandler(terminal)
        _configured.restore = (root.level, [h for h in root.handlers if h.level == logging.NOTSET])
        for handler in root.handlers:
            handler.addFilter(_configured)
            if handler.level == logging.NOTSET:
                handler.setLevel(terminal_level)  # the file below gets INFO, the terminal what it got
        root.setLevel(min(terminal_level, logging.INFO))
        _add_file(root, _configured)
        logging.captureWarnings(True)
    for handler in extra:
        handler.addFilter(_configured)
        root.addHandler(handler)
    return _configured


def _add_file(root: logging.Logger, once: OncePerMessage) -> None:
    path = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8", delay=True
        )
    except OSError as e:
        logging.getLogger(__name__).warning("no log file at %s: %s", path, e)
        return
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(once)
    root.addHandler(handler)


def reset_app_logging() -> None:
    """Undo :func:`configure_app_logging` (tests): its filter, its file and the added handlers go."""
    global _configured
    if _configured is None:
        return
    root = logging.getLogger()
    for handler in list(root.handlers):
        if _configured in handler.filters:
            handler.removeFilter(_configured)
            if isinstance(handler, logging.handlers.RotatingFileHandler) or getattr(handler, "added_by_app", False):
                root.removeHandler(handler)
                handler.close()
    level, unset = getattr(_configured, "restore", (root.level, []))
    root.setLevel(level)
    for handler in unset:
        handler.setLevel(logging.NOTSET)
    logging.captureWarnings(False)
    _configured = None
