"""Storing a trained model through a connection of the calling thread (the app's training worker).

:meth:`Project.add_model` writes on the project's own connection, which in
the app belongs to the GUI thread: a tagger with word representations is
megabytes, and its INSERT and commit stalled the window 80 ms
(benchmarks/results/gui_representations.md).  :func:`add_model_in_file`
does the same in one transaction of its own, and deletes the models beyond
the newest ``keep``; SQLite serialises it with the project's connection as
with another program's (as :func:`tagtool.store.representations.store_in_file`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from tagtool.errors import ProjectError


def _json(value: Mapping[str, Any]) -> str:
    from tagtool.store.project import _json_default

    try:
        return json.dumps(dict(value), default=_json_default)
    except (TypeError, ValueError) as e:
        raise ProjectError(f"model params and metrics must be JSON data: {e}") from e


def add_model_in_file(path, learner: str, params: Mapping, metrics: Mapping, data: bytes, note: str = "",
                      keep: int | None = None) -> int:
    """Store a model in the project file at ``path`` (as :meth:`Project.add_model`); returns its id.

    ``keep``: afterwards only the newest ``keep`` models stay.

    Raises
    ------
    ProjectError
        The file could not be written (locked too long, full disk); it is
        unchanged then.
    """
    from tagtool.store.dbfile import write_in_own_transaction

    params_json, metrics_json, data = _json(params), _json(metrics), bytes(data)

    def insert(conn: sqlite3.Connection) -> int:
        model_id = conn.execute(
            "INSERT INTO models (learner, params, metrics, created, note, size, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (learner, params_json, metrics_json, time.time(), note, len(data), data),
        ).lastrowid
        if keep is not None:
            conn.execute("DELETE FROM models WHERE id NOT IN (SELECT id FROM models ORDER BY id DESC LIMIT ?)",
                         (keep,))
        return model_id

    return write_in_own_transaction(path, "the model", insert)
