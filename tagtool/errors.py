"""Named errors shared by the core, the store and the formats.

Every error a user can provoke with bad input is a subclass of
:class:`TagtoolError`, so the command line and the GUI can report it in one
line without a traceback.
"""

from __future__ import annotations

from os import PathLike


class TagtoolError(Exception):
    """Base class of every error tagtool raises on purpose."""


class Cancelled(TagtoolError):
    """Work stopped because its ``should_stop()`` (or checkpoint) returned True.

    The one cancellation every long task raises -- training
    (:class:`~tagtool.learn.progress.TrainingMonitor`), batch tagging,
    guidance scoring, experiments, simulations, agreement -- so the command
    line and the GUI's task runner each catch one type.  Whatever the task
    would have written is left as it was.
    """


class LabelError(TagtoolError, ValueError):
    """A label or candidate set that the label schema does not allow."""


class FormatError(TagtoolError, ValueError):
    """Malformed input in a corpus or annotation file.

    Parameters
    ----------
    path : str or PathLike or None
        The file that was being read (None for in-memory text).
    line : int or None
        1-based line number of the offending line, when there is one.
    message : str
        What is wrong, in words a user understands.
    """

    def __init__(self, path: str | PathLike | None, line: int | None, message: str):
        self.path = None if path is None else str(path)
        self.line = line
        self.message = message
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


class ProjectError(TagtoolError):
    """A project file that cannot be opened, migrated or written."""
