"""The span-attaching part of a :class:`~tagtool.store.project.Project` (``project.spans``): span records
of the project's own text placed by character offsets (:mod:`tagtool.store.span_attach`), as training labels
or as annotators' answers, sentences a span crosses joined on request (:mod:`tagtool.store.sentence_join`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tagtool.core.annotators import combine
from tagtool.core.corpus import Sentence
from tagtool.errors import ProjectError
from tagtool.store import annotators as _annotators
from tagtool.store import label_rows as _labels
from tagtool.store import project_texts, sentence_join, span_attach, writes
from tagtool.store.formats.spans import SpanRecord
from tagtool.store.project_db import ProjectDb

#: How attached spans become training labels: only where a token has none, or over every covered token.
ATTACH_MODES = ("fill", "replace")


class NewLabelsError(ProjectError):
    """Spans whose labels the project lacks (``labels``, sorted); nothing was written."""

    def __init__(self, path: Path, labels: list[str]):
        super().__init__(f"{path}: labels the project does not have: {' '.join(labels)}")
        self.path, self.labels = path, labels


@dataclass(frozen=True)
class Attached:
    """What an attach did: the placement (notes, records found), sentences joined, and
    ``changed`` (training labels) or ``counts`` (:class:`~tagtool.store.annotators.AnswerCounts`)."""

    placed: span_attach.Placed
    joined: int = 0
    changed: int = 0
    counts: Any = None


class SpansPart:
    """Span records placed on the project's text by offsets."""

    def __init__(self, db: ProjectDb):
        self.db = db

    def has_texts(self) -> bool:
        """Whether the project keeps the text its sentences were read from (span records attach by offsets)."""
        return project_texts.has_texts(self.db.conn)

    def plan(self, path: Path, records: list[SpanRecord]) -> span_attach.Placed:
        """Where ``records`` (read from ``path``) would go, nothing written (the app asks about crossings first)."""
        with self.db.read():
            return span_attach.place_records(Path(path), records, project_texts.project_texts(self.db.conn))

    def attach(
        self,
        path: Path,
        records: list[SpanRecord],
        *,
        mode: str | None = "fill",
        answers: bool = False,
        owner: str | None = None,
        merge_crossing: bool = False,
        add_labels: bool = False,
        annotator: str = "import",
    ) -> Attached:
        """Place ``records`` on the project's text and store them, one transaction.

        ``answers``: as annotators' answers (those the records name, else
        ``owner``), the training labels following the team rule; else as
        training labels given by ``annotator``, ``mode`` ``"fill"`` (tokens
        without one) or ``"replace"``. Either way the answers a tagtool
        doccano export keeps in its metadata become those annotators'
        answers (its own spans are its training labels, used as such only
        without ``answers``). ``merge_crossing`` joins the
        sentences a span crosses first. Labels the project lacks:
        :class:`NewLabelsError` unless ``add_labels``.
        """
        if not answers and mode not in ATTACH_MODES:
            raise ValueError(f"mode must be one of {', '.join(ATTACH_MODES)}, got {mode!r}")
        path = Path(path)
        with self.db.write() as conn:
            placed = span_attach.place_records(path, records, project_texts.project_texts(conn))
            joined = 0
            if merge_crossing and placed.crossing:
                joined = sentence_join.join_runs(conn, placed.crossing)
                placed = span_attach.place_records(path, records, project_texts.project_texts(conn))
            new = sorted(placed.used_labels - set(self.db.labels.names))
            if new and not add_labels:
                raise NewLabelsError(path, new)
            labels = _labels.add_missing(conn, self.db.label_cache, new) if new else self.db.labels
            if answers:
                given = _given(placed, owner, path)
                _annotators.check_lengths(conn, given)
                return Attached(placed, joined, counts=_annotators.write_answers(conn, labels, given))
            pairs, keep = _training(placed, labels)
            changed = writes.take_annotations(conn, labels, pairs, str(mode), annotator, keep)
            counts = None
            if placed.answers:  # after the training labels, which stand beside them (the project's own)
                given = _given(span_attach.Placed(labels=placed.answers, where=placed.where), owner, path)
                _annotators.check_lengths(conn, given)
                counts = _annotators.write_answers(conn, labels, given)
            return Attached(placed, joined, changed=changed, counts=counts)


def _given(placed: span_attach.Placed, owner: str | None, path: Path) -> list:
    """``(sentence id, where, {annotator: answers})`` of the placed labels and of the export's answers;
    a sentence with the latter has its own spans as training labels, nobody's answers."""
    given = []
    for sid in {**placed.labels, **placed.answers}:
        by = {**placed.labels.get(sid, {}), **placed.answers.get(sid, {})}
        if sid in placed.answers:
            by.pop(span_attach.NOBODY, None)
        if None in by and owner is None:
            raise ProjectError(
                f"{path}: the file does not say whose labels these are; name the annotator "
                "(tagtool import --annotator NAME)"
            )
        given.append(
            (
                sid,
                placed.where[sid],
                {(owner if who is None else who): span_attach.as_sets(bio) for who, bio in by.items()},
            )
        )
    return given


def _training(placed: span_attach.Placed, labels) -> tuple[list, dict[int, set[int]]]:
    """``(sentence id, where, Sentence)`` pairs for ``take_annotations``, and the tokens to leave alone."""
    pairs, keep = [], {}
    for sid, by in placed.labels.items():
        sets = [span_attach.as_sets(bio) for bio in by.values()]
        annotations = tuple(combine(votes, labels) for votes in zip(*sets))
        keep[sid] = {t for t, ann in enumerate(annotations) if not ann}
        pairs.append((sid, placed.where[sid], Sentence(placed.tokens[sid], annotations)))
    return pairs, keep
