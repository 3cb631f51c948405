"""``tagtool merge``: bring annotators' project files back into the project they were assigned from.

Each annotator's file (written by :mod:`tagtool.store.assign`) records the
source project's identity and annotator name in its ``meta``, and each of
its sentences the source sentence's id and token fingerprint in
``sentences.meta`` (:data:`SOURCE_KEY`, :data:`FINGERPRINT_KEY`).  A merge

1. reads every file (:func:`read_file`, each in one read transaction: the
   annotator may be splitting a token in it meanwhile) and checks it
   (:func:`check_files`): a file of another project, a sentence whose tokens
   changed on either side since the assignment, a label the project lacks
   or two files answering the same sentence for one annotator are refused
   with the file's name, and nothing is written;
2. in one transaction (``project.team.merge_answers`` → :func:`check_files`
   against the project as the transaction sees it (another program may
   have retokenized a sentence since the files were read), then :func:`apply`) makes
   the annotator's answers in ``annotator_labels`` those of the file for
   its sentences (a token the annotator left unlabeled is no answer), and
   recomputes the training labels of the tokens whose answers changed by
   the one rule of :mod:`tagtool.store.annotators` (which ``tagtool import
   --as-annotator`` uses too): a training label given in the project itself
   (before the assignment, or an edit in the app) first becomes one answer,
   by the annotator recorded with it, so nothing is lost; resolved tokens
   are left alone.

So merging the same file twice changes nothing the second time (nor does it
undo an edit or a clear made in the project since), and a merge killed
midway leaves the project as it was.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from tagtool.core.annotation import make_annotation
from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError, ProjectError, TagtoolError
from tagtool.store import annotators as _annotators
from tagtool.store import team as _team
from tagtool.store.lifecycle import PROJECT_ID_KEY

#: ``meta`` of an annotator's file: the source project's id and name, the annotator.
SOURCE_PROJECT_KEY = "tagtool:source_project"
SOURCE_NAME_KEY = "tagtool:source_name"
ANNOTATOR_KEY = "tagtool:annotator"
#: ``sentences.meta`` of an annotator's file: the source sentence's id and token fingerprint.
SOURCE_KEY = "tagtool:source_id"
FINGERPRINT_KEY = "tagtool:fingerprint"


class MergeError(TagtoolError):
    """An annotator's file that cannot be merged into the project (its message names the file)."""


def fingerprint(tokens: Sequence[str]) -> str:
    """A short hash of a sentence's tokens (SHA-256 of their JSON, 16 hex digits)."""
    data = json.dumps(list(tokens), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True)
class FileSentence:
    """One sentence of an annotator's file: its source and the annotator's answers."""

    source_id: int
    fingerprint: str
    answers: Mapping[int, frozenset]
    where: str


@dataclass(frozen=True)
class AnnotatorFile:
    """What a merge takes from one annotator's file."""

    path: Path
    annotator: str
    source_project: str
    sentences: tuple[FileSentence, ...]


@dataclass(frozen=True)
class MergeReport(_annotators.AnswerCounts):
    """What a merge did (``tagtool merge`` prints it): the answers written and the training
    labels changed (:class:`~tagtool.store.annotators.AnswerCounts`), of ``files`` files.

    ``agree``/``disagree`` count the tokens of the merged sentences with
    two or more answers after the merge; ``disagree`` those whose training
    label is the candidate set of the answers, ``resolved`` the differing
    ones an adjudicator resolved (left alone).
    """

    files: int = 0
    agree: int = 0
    disagree: int = 0
    resolved: int = 0

    @property
    def labels_changed(self) -> int:
        """Training labels that changed (:attr:`~tagtool.store.annotators.AnswerCounts.changed`)."""
        return self.changed


def read_file(path: Path, labels: LabelSet) -> AnnotatorFile:
    """Read an annotator's file (read-only) and check its own sentences against their fingerprints.

    Raises
    ------
    MergeError
        Not an annotator's file, a sentence retokenized in it, or a label ``labels`` lacks.
    """
    from tagtool.store.project import Project  # it imports this module

    path = Path(path)
    try:
        project = Project.open(path, readonly=True)
    except ProjectError as e:
        raise MergeError(f"{path}: cannot be read ({e})") from e
    with project, project.read_transaction():  # its tokens and labels of one moment
        meta = project.meta
        if not meta.get(ANNOTATOR_KEY) or not meta.get(SOURCE_PROJECT_KEY):
            raise MergeError(
                f"{path} is not an annotator's file written by 'tagtool assign' "
                "(its meta names no source project or annotator)"
            )
        sentences = [_file_sentence(path, s, labels) for s in project.sentences(project.sentence_ids())]
    return AnnotatorFile(path, meta[ANNOTATOR_KEY], meta[SOURCE_PROJECT_KEY], tuple(sentences))


def _file_sentence(path: Path, sentence, labels: LabelSet) -> FileSentence:
    try:
        source_id, recorded = int(sentence.meta[SOURCE_KEY]), sentence.meta[FINGERPRINT_KEY]
    except (KeyError, ValueError):
        raise MergeError(
            f"{path}: sentence {' '.join(sentence.tokens)[:60]!r} names no source "
            "sentence (was it added to the file by hand?)"
        ) from None
    where = f"{path}, source sentence {source_id}"
    if fingerprint(sentence.tokens) != recorded:
        raise MergeError(
            f"{where}: its tokens were changed in the file (split or merged) since it "
            "was assigned; it cannot be matched to the project's sentence"
        )
    answers = {}
    for t, ann in enumerate(sentence.annotations):
        if not ann:
            continue
        try:
            answers[t] = make_annotation(ann, labels)
        except LabelError as e:
            raise MergeError(f"{where}, token {t + 1}: {e} (the project's labels: {' '.join(labels)})") from None
    return FileSentence(source_id, recorded, answers, where)


def check_files(conn: sqlite3.Connection, path: Path, files: Sequence[AnnotatorFile]) -> None:
    """Refuse files of another project, sentences whose tokens changed in the project, and
    two files answering one sentence for the same annotator (:class:`MergeError`).

    ``TeamPart.merge_answers`` calls it inside the merge's write transaction on ``conn`` (the
    project ``path``'s): a check made before it began may describe tokens another program has
    split or merged since.
    """
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (PROJECT_ID_KEY,)).fetchone()
    identity = row[0] if row else None
    seen: dict[tuple[str, int], Path] = {}
    for f in files:
        if identity is None or f.source_project != identity:
            raise MergeError(f"{f.path} was assigned from another project, not from {path}")
        current = _fingerprints(conn, [s.source_id for s in f.sentences])
        for s in f.sentences:
            if s.source_id not in current:
                raise MergeError(f"{s.where}: the project has no such sentence any more")
            if current[s.source_id] != s.fingerprint:
                raise MergeError(
                    f"{s.where}: the project's sentence was retokenized since it was "
                    "assigned; its tokens differ from the file's"
                )
            other = seen.setdefault((f.annotator, s.source_id), f.path)
            if other != f.path:
                raise MergeError(
                    f"{f.path} and {other} both hold {f.annotator}'s answers for source "
                    f"sentence {s.source_id}; merge one of them"
                )


def _fingerprints(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, str]:
    """Fingerprints of the project's current tokens of these sentences (absent ids left out)."""
    ids = sorted(set(ids))
    out: dict[int, str] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows = conn.execute(f"SELECT id, tokens FROM sentences WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
        out.update((sid, fingerprint(json.loads(tokens))) for sid, tokens in rows)
    return out


#: Ids per ``IN (...)`` query (below SQLite's oldest bound on parameters, 999).
_CHUNK = 900


def apply(conn: sqlite3.Connection, labels: LabelSet, files: Sequence[AnnotatorFile]) -> MergeReport:
    """Make each file's answers the annotator's in ``annotator_labels`` and recompute the
    training labels of their sentences (:func:`tagtool.store.annotators.write_answers`);
    inside the caller's transaction."""
    given = [(s.source_id, s.where, {f.annotator: s.answers}) for f in files for s in f.sentences]
    counts = _annotators.write_answers(conn, labels, given) if given else _annotators.AnswerCounts()
    agree, disagree, resolved = _count_agreement(conn, sorted({s.source_id for f in files for s in f.sentences}))
    return MergeReport(**asdict(counts), files=len(files), agree=agree, disagree=disagree, resolved=resolved)


def _count_agreement(conn: sqlite3.Connection, sentence_ids: Iterable[int]) -> tuple[int, int, int]:
    """(tokens whose answers agree, that differ unresolved, that differ resolved) of the sentences."""
    agree = disagree = resolved = 0
    for sid in sentence_ids:
        n = conn.execute("SELECT n_tokens FROM sentences WHERE id = ?", (sid,)).fetchone()[0]
        resolutions = set(_team.read_resolutions(conn, sid))
        for t, given in enumerate(_team.read_answers(conn, sid, n)):
            token_agree, token_disagree = _team.agreement_counts([given])
            agree += token_agree
            if token_disagree:
                if t in resolutions:
                    resolved += 1
                else:
                    disagree += 1
    return agree, disagree, resolved
