"""What a :class:`~tagtool.store.project.Project` stores beside its sentences (``project.stored``):
trained models (:mod:`tagtool.store.model_file`), added texts and word representations
(:mod:`tagtool.store.representations`), and the word vectors, dictionaries and patterns the user brought
(:mod:`tagtool.store.resources`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tagtool.core.features.wordreps import WordRepresentations
from tagtool.store import model_file as _models
from tagtool.store import representations as reps_store
from tagtool.store import resources as _resources
from tagtool.store.project_db import ProjectDb
from tagtool.store.record_types import ModelRecord


class StoredPart:
    """Models, texts and word representations kept in the project file."""

    def __init__(self, db: ProjectDb):
        self.db = db

    def add_model(
        self, learner: str, params: Mapping[str, Any], metrics: Mapping[str, Any], data: bytes, note: str = ""
    ) -> int:
        """Store a trained model (its exported tagger file's bytes); returns its id."""
        params_json, metrics_json, data = _models.encode(params, metrics, data)
        with self.db.write() as conn:
            return _models.insert(conn, learner, params_json, metrics_json, data, note)

    def models(self) -> list[ModelRecord]:
        """Stored models, oldest first (without their bytes)."""
        return _models.records(self.db.conn)

    def model_data(self, model_id: int) -> bytes:
        """The exported tagger file of a stored model."""
        return _models.model_bytes(self.db.conn, model_id)

    def delete_model(self, model_id: int) -> None:
        """Remove a stored model."""
        with self.db.write() as conn:
            _models.delete(conn, model_id)

    # -- extra text and word representations (tagtool.store.representations)

    def add_text(self, name: str, lines: Iterable[Sequence[str]]) -> int:
        """Store a tokenised raw text for the word representations (not sentences to annotate); its id."""
        with self.db.write() as conn:
            return reps_store.add_text(conn, name, lines)

    def texts(self) -> list[reps_store.TextInfo]:
        """The added texts, oldest first."""
        return reps_store.texts(self.db.conn)

    def text_lines(self) -> list[list[str]]:
        """Token lists of every added text."""
        return reps_store.text_lines(self.db.conn)

    def remove_text(self, text_id: int) -> None:
        """Remove an added text."""
        with self.db.write() as conn:
            reps_store.remove_text(conn, text_id)

    def text_tokens(self) -> int:
        """Tokens of all the project's text: its sentences and its added texts."""
        return reps_store.text_tokens(self.db.conn)

    def representations_record(self) -> reps_store.StoredRepresentations | None:
        """The stored word representations' record (no arrays), or None."""
        return reps_store.stored(self.db.conn)

    def representations(self) -> WordRepresentations | None:
        """The stored word representations, or None."""
        return reps_store.load(self.db.conn)

    def representations_bytes(self) -> bytes | None:
        """The stored word representations' ``.npz`` bytes (decoded elsewhere: the app's worker)."""
        return reps_store.load_bytes(self.db.conn)

    def set_representations(
        self, reps: WordRepresentations, learned_from_tokens: int, data: bytes | None = None
    ) -> None:
        """Keep ``reps``, learned from ``learned_from_tokens`` tokens of this project's text (``data``: their bytes)."""
        with self.db.write() as conn:
            reps_store.store(conn, reps, learned_from_tokens, data)

    def representations_stale(self) -> bool:
        """True if none are stored or the text changed materially since.

        See :func:`~tagtool.store.representations.is_stale`.
        """
        return reps_store.is_stale(self.representations_record(), self.text_tokens())

    # -- knowledge the user brought (tagtool.store.resources)

    def add_resource(self, kind: str, name: str, data: bytes, info: Mapping[str, Any] | None = None) -> None:
        """Keep a resource (word vectors, a dictionary, patterns), replacing one of the same kind and name."""
        with self.db.write() as conn:
            _resources.put(conn, kind, name, data, dict(info or {}))

    def resources(self, kind: str | None = None) -> list[_resources.ResourceRecord]:
        """The stored resources (of ``kind`` if given), without their data."""
        return _resources.records(self.db.conn, kind)

    def resource_data(self, kind: str, name: str) -> bytes | None:
        """A stored resource's data, or None."""
        return _resources.data(self.db.conn, kind, name)

    def remove_resource(self, kind: str, name: str) -> bool:
        """Remove a stored resource; False if there was none."""
        with self.db.write() as conn:
            return _resources.remove(conn, kind, name)
