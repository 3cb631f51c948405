"""Plain rows the project store hands out (no database handles inside), and the error for one it lacks."""

from __future__ import annotations

from typing import Any, NamedTuple

from tagtool.errors import ProjectError


class NotFoundError(ProjectError, LookupError):
    """A sentence, token or model id the project does not hold."""


class LabelInfo(NamedTuple):
    """A label as the annotation view shows it.

    Attributes
    ----------
    name : str
    color : str
        Background colour ``#rrggbb``.
    shortcut : str or None
        Key that assigns the label, if any.
    """

    name: str
    color: str
    shortcut: str | None


class DocumentInfo(NamedTuple):
    """A document of the project with its size."""

    id: int
    name: str
    position: int
    n_sentences: int
    n_tokens: int


class SentenceSummary(NamedTuple):
    """One row of the sentence list, read without loading tokens.

    Attributes
    ----------
    id : int
        Project id of the sentence.
    document_id, document : int, str
        Its document.
    position : int
        0-based position inside the document.
    n_tokens, n_full, n_partial : int
        Length, and how many tokens carry a full / a partial label.
    preview : str
        The first characters of the space-joined tokens.
    """

    id: int
    document_id: int
    document: str
    position: int
    n_tokens: int
    n_full: int
    n_partial: int
    preview: str

    @property
    def status(self) -> str:
        """``"full"``, ``"partial"`` or ``"none"`` as in :func:`annotation_status`."""
        if self.n_full == self.n_tokens:
            return "full"
        if self.n_full == 0 and self.n_partial == 0:
            return "none"
        return "partial"


class LogEntry(NamedTuple):
    """One edit of the annotation log.

    Attributes
    ----------
    id : int
        Increases with every edit (the log's order).
    sentence_id, token : int
    old, new : frozenset of str
        Allowed set before and after (empty = no label).
    annotator : str
    time : float
        Unix seconds, UTC.
    """

    id: int
    sentence_id: int
    token: int
    old: frozenset
    new: frozenset
    annotator: str
    time: float


class ModelRecord(NamedTuple):
    """A trained model stored in the project (its bytes via ``model_data``)."""

    id: int
    learner: str
    params: dict[str, Any]
    metrics: dict[str, Any]
    created: float
    note: str
    size: int


class ActionRecord(NamedTuple):
    """One row of the action log (:mod:`tagtool.store.actions`).

    Attributes
    ----------
    id : int
        Increases with every action (the log's order).
    kind : str
        ``full``, ``candidate``, ``accept``, ``skip``, ``clear``, ``undo``, ``redo``.
    sentence_id : int or None
        None once its sentence was removed (split or merged).
    n_tokens : int
        Tokens given the kind's outcome.
    started, ended : float
        Unix seconds (UTC): the interval the action is charged with.
    active : float
        Seconds of it counted as annotation (idle time over the threshold left out).
    annotator : str
    ref : int or None
        For ``undo``/``redo``: the id of the action reversed.
    """

    id: int
    kind: str
    sentence_id: int | None
    n_tokens: int
    started: float
    ended: float
    active: float
    annotator: str
    ref: int | None
