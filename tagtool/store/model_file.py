"""Trained models in a project file: their rows stored, listed, read and deleted.

:class:`~tagtool.store.project.Project` stores a model through its own
connection (:func:`insert` inside its transaction).  In the app that
connection belongs to the GUI thread: a tagger with word representations is
megabytes, and its INSERT and commit stalled the window
(benchmarks/results/gui_representations.md).  :func:`add_model_in_file`
does the same in one transaction of its own on a connection of the calling
thread (the app's training worker), and deletes the models beyond the
newest ``keep``; SQLite serialises it with the project's connection as with
another program's (as :func:`tagtool.store.representations.store_in_file`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from tagtool.errors import ProjectError
from tagtool.store.record_types import ModelRecord, NotFoundError


def _json_default(value: Any) -> Any:
    # numpy scalars and arrays (metrics often are) without importing numpy
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _json(value: Mapping[str, Any]) -> str:
    try:
        return json.dumps(dict(value), default=_json_default)
    except (TypeError, ValueError) as e:
        raise ProjectError(f"model params and metrics must be JSON data: {e}") from e


def encode(params: Mapping[str, Any], metrics: Mapping[str, Any], data: bytes) -> tuple[str, str, bytes]:
    """A model's params and metrics as JSON text and its bytes, checked before any transaction."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    return _json(params), _json(metrics), bytes(data)


def insert(
    conn: sqlite3.Connection, learner: str, params_json: str, metrics_json: str, data: bytes, note: str = ""
) -> int:
    """Insert a model's row (inside the caller's transaction); its id."""
    return conn.execute(
        "INSERT INTO models (learner, params, metrics, created, note, size, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (learner, params_json, metrics_json, time.time(), note, len(data), data),
    ).lastrowid


def records(conn: sqlite3.Connection) -> list[ModelRecord]:
    """Stored models, oldest first (without their bytes)."""
    rows = conn.execute("SELECT id, learner, params, metrics, created, note, size FROM models ORDER BY id")
    return [
        ModelRecord(i, learner, json.loads(p), json.loads(m), created, note, size)
        for i, learner, p, m, created, note, size in rows
    ]


def model_bytes(conn: sqlite3.Connection, model_id: int) -> bytes:
    """The exported tagger file of a stored model."""
    row = conn.execute("SELECT data FROM models WHERE id = ?", (model_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no model with id {model_id}")
    return bytes(row[0])


def delete(conn: sqlite3.Connection, model_id: int) -> None:
    """Remove a stored model (inside the caller's transaction)."""
    if conn.execute("DELETE FROM models WHERE id = ?", (model_id,)).rowcount == 0:
        raise NotFoundError(f"no model with id {model_id}")


def add_model_in_file(
    path, learner: str, params: Mapping, metrics: Mapping, data: bytes, note: str = "", keep: int | None = None
) -> int:
    """Store a model in the project file at ``path``; returns its id.

    As :meth:`tagtool.store.project_stored.StoredPart.add_model`, from another connection.

    ``keep``: afterwards only the newest ``keep`` models stay.

    Raises
    ------
    ProjectError
        The file could not be written (locked too long, full disk); it is
        unchanged then.
    """
    from tagtool.store.dbfile import write_in_own_transaction

    params_json, metrics_json, data = _json(params), _json(metrics), bytes(data)

    def insert_and_trim(conn: sqlite3.Connection) -> int:
        model_id = insert(conn, learner, params_json, metrics_json, data, note)
        if keep is not None:
            conn.execute("DELETE FROM models WHERE id NOT IN (SELECT id FROM models ORDER BY id DESC LIMIT ?)", (keep,))
        return model_id

    return write_in_own_transaction(path, "the model", insert_and_trim)
