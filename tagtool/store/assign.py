"""``tagtool assign``: split a project's open sentences among annotators, one project file each.

Which sentences
    The *open* ones: not fully labeled and not skipped (what the app's
    queue offers; ``Project.sentence_ids(status="open")``).  A sentence
    partly labeled in the project is assigned too; its labels stay in the
    project and join the annotators' answers at the merge
    (:mod:`tagtool.store.merge`).
Who gets what (:func:`plan`)
    A share ``overlap`` of them (drawn with ``seed``) goes to ``shared_by``
    annotators (default two) so that agreement can be measured; every other
    one to a single annotator.  Balanced by tokens: sentences are dealt
    longest first to the annotator(s) with the fewest tokens so far (LPT
    scheduling: each load ends within one sentence of the others'); ties
    go in an order drawn with ``seed``.
The files (:func:`write_files`)
    ``DIR/<project stem>.<annotator>.tagproj``: the project's label set and
    colours, the assigned sentences in document order under their documents'
    names, their columns and attributes, and *no labels* (the annotator
    starts from scratch: a label copied in would be an answer they never
    gave).  ``meta`` records the source project's identity and name and the
    annotator; each sentence's ``meta`` its source id and token fingerprint
    (:data:`tagtool.store.merge.SOURCE_KEY`, ``FINGERPRINT_KEY``).  The
    files are written all or none (:func:`write_files`): built under
    temporary names, moved into place once all are complete, every one
    removed again on a failure; an existing file is replaced only with
    ``force``, and never when it is not a regular file; every target is
    checked before the first is written.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from tagtool.core.annotators import check_name
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.errors import ProjectError, TagtoolError
from tagtool.store import colors as _colors
from tagtool.store import disk as _disk
from tagtool.store import lifecycle
from tagtool.store import merge as _merge
from tagtool.store import review as _review
from tagtool.store.outputs import check_not_input


class AssignError(TagtoolError):
    """Annotators, overlap or output files that cannot be used."""


@dataclass
class Assignment:
    """Which annotator gets which sentences.

    Attributes
    ----------
    sentences : dict of str to list of int
        Each annotator's sentence ids, in the order given to :func:`plan`.
    shared : set of int
        The sentences given to more than one annotator.
    tokens : dict of str to int
        Each annotator's tokens.
    """

    sentences: dict[str, list[int]]
    shared: set[int] = field(default_factory=set)
    tokens: dict[str, int] = field(default_factory=dict)


def check_annotators(names: Sequence[str]) -> list[str]:
    """Trimmed, non-empty, distinct annotator names (:class:`AssignError` otherwise)."""
    try:
        names = [check_name(n) for n in names]
    except ValueError as e:
        raise AssignError(f"--annotators: {e}") from None
    if not names:
        raise AssignError("--annotators: name at least one annotator")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise AssignError(f"--annotators: {', '.join(twice)} named twice")
    return names


def plan(
    lengths: Sequence[tuple[int, int]],
    annotators: Sequence[str],
    overlap: float,
    shared_by: int = 2,
    seed: int = 0,
) -> Assignment:
    """Deal sentences ``(id, n_tokens)`` to annotators (module doc).

    ``round(overlap · n)`` sentences (at least one when ``overlap > 0``) go
    to ``shared_by`` annotators each, the others to one.
    """
    annotators = check_annotators(annotators)
    if not 0.0 <= overlap <= 1.0 or math.isnan(overlap):
        raise AssignError(f"--overlap {overlap}: a share between 0 and 1")
    if overlap > 0 and not 2 <= shared_by <= len(annotators):
        raise AssignError(
            f"--shared-by {shared_by}: between 2 and the number of annotators ({len(annotators)}); "
            "with one annotator use --overlap 0"
        )
    rng = random.Random(seed)
    n_shared = min(len(lengths), max(1, round(overlap * len(lengths)))) if overlap > 0 and lengths else 0
    shared = set(rng.sample([sid for sid, _ in lengths], n_shared))
    tie = {name: i for i, name in enumerate(rng.sample(annotators, len(annotators)))}
    load = dict.fromkeys(annotators, 0)
    given: dict[str, set[int]] = {name: set() for name in annotators}
    # shared sentences first: they weigh on two loads at once
    by_length = sorted(lengths, key=lambda r: (r[0] not in shared, -r[1]))
    for sid, n in by_length:
        k = shared_by if sid in shared else 1
        for name in sorted(annotators, key=lambda a: (load[a], tie[a]))[:k]:
            given[name].add(sid)
            load[name] += n
    order = [sid for sid, _ in lengths]
    return Assignment({a: [sid for sid in order if sid in given[a]] for a in annotators}, shared, load)


def file_name(stem: str, annotator: str) -> str:
    """``<stem>.<annotator>.tagproj``, the name made safe for every file system."""
    safe = re.sub(r"[^\w.-]+", "_", annotator, flags=re.UNICODE).strip("._") or "annotator"
    return f"{stem}.{safe}.tagproj"


def target_paths(project_path: Path, annotators: Sequence[str], out_dir: Path, force: bool) -> dict[str, Path]:
    """Each annotator's file, every one checked before anything is written."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise AssignError(f"-o {out_dir}: not a folder")
    paths = {a: out_dir / file_name(Path(project_path).stem, a) for a in annotators}
    lower = [str(p).lower() for p in paths.values()]
    clash = [a for a in annotators if lower.count(str(paths[a]).lower()) > 1]
    if clash:
        raise AssignError(
            f"annotators {', '.join(clash)} would share the file name {paths[clash[0]].name}; "
            "give names that differ in letters or digits"
        )
    for path in paths.values():
        check_not_input(path, {"project": project_path}, "annotator's file")
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise AssignError(f"{path} is not a regular file; an annotator's file is never written there")
        if path.exists() and not force:
            raise AssignError(f"{path} already exists; give another -o folder, or --force to replace it")
    return paths


def annotator_corpus(project, annotator: str, sentence_ids: Sequence[int]) -> Corpus:
    """The corpus of one annotator's file: the sentences unlabeled, with their source recorded."""
    wanted = set(sentence_ids)
    documents: list[Document] = []
    for doc in project.documents():
        ids = [sid for sid in project.sentence_ids(doc.id) if sid in wanted]
        if ids:
            documents.append(
                Document(doc.name, tuple(_unlabeled(s, sid) for sid, s in zip(ids, project.sentences(ids))))
            )
    return Corpus(project.labels, tuple(documents))


def _unlabeled(sentence: Sentence, sentence_id: int) -> Sentence:
    meta, _ = _review.take_review_meta(sentence.meta)
    meta.update({_merge.SOURCE_KEY: str(sentence_id), _merge.FINGERPRINT_KEY: _merge.fingerprint(sentence.tokens)})
    return Sentence(sentence.tokens, (), sentence.columns, meta)


def write_files(project, assignment: Assignment, out_dir: Path, force: bool = False) -> dict[str, Path]:
    """Write each annotator's file, every one or none (module doc); the paths of those
    written (an annotator given no sentence gets none).

    All are built under temporary names beside their targets, then moved into
    place; a failure at any step (a full disk, a read-only folder) removes
    every file this call made, folders included, and puts back a file
    ``force`` replaced, so the same command can simply be run again.
    """
    names = [a for a, ids in assignment.sentences.items() if ids]
    paths = target_paths(project.path, names, out_dir, force)
    made = _make_folder(Path(out_dir))
    identity = project.identity()
    colors = {info.name: info.color for info in project.label_set.label_infos()}
    palette = _colors.default_colors(project.labels.names)
    palette = [colors.get(name, c) for name, c in zip(project.labels.names, palette)]
    built: dict[str, Path] = {}
    try:
        for annotator in names:
            corpus = annotator_corpus(project, annotator, assignment.sentences[annotator])
            meta = {
                _merge.SOURCE_PROJECT_KEY: identity,
                _merge.SOURCE_NAME_KEY: project.name,
                _merge.ANNOTATOR_KEY: annotator,
            }
            built[annotator] = _build_one(
                paths[annotator], corpus, f"{project.name} ({annotator})", palette, annotator, meta, len(names)
            )
        _place_all(built, paths, force)
    except BaseException:
        for tmp in built.values():
            lifecycle.discard(tmp)
        for folder in reversed(made):
            with suppress(OSError):
                folder.rmdir()
        raise
    return {a: paths[a] for a in names}


def _make_folder(out_dir: Path) -> list[Path]:
    """Create ``out_dir`` and its missing parents; the folders created, outermost first."""
    missing = [p for p in [out_dir, *out_dir.parents] if not p.exists()][::-1]
    made = []
    try:
        for folder in missing:
            folder.mkdir()
            made.append(folder)
    except OSError as e:
        for folder in reversed(made):
            with suppress(OSError):
                folder.rmdir()
        why = _disk.describe(e, out_dir / "x")
        raise AssignError(f"-o {out_dir}: the folder cannot be created: {why}; no annotator's file was written") from e
    return made


def _build_one(
    path: Path, corpus: Corpus, name: str, colors: list[str], annotator: str, meta: dict[str, str], n_files: int
) -> Path:
    try:
        return lifecycle.build_file(path, corpus, name, colors, annotator, meta)
    except ProjectError as e:
        cause = e.__cause__ if e.__cause__ is not None else e
        why = _disk.describe(cause, path) if e.__cause__ is not None else str(e)
        raise AssignError(
            f"{path}: the annotator's file cannot be written: {why}; "
            f"none of the {n_files} annotators' files was written"
        ) from e


def _place_all(built: dict[str, Path], paths: dict[str, Path], force: bool) -> None:
    """Move every built file into place, or (on a failure) none: the ones moved are
    removed again, a replaced file is put back from what :func:`_keep_old` kept."""
    placed: list[tuple[Path, Path | None]] = []  # target, the old file kept
    path = next(iter(paths.values()))
    try:
        for annotator, tmp in built.items():
            path = paths[annotator]
            if path.is_symlink() or (path.exists() and not path.is_file()):  # appeared since the check
                raise AssignError(f"{path} is not a regular file; an annotator's file is never written there")
            old = _keep_old(path) if force else None
            try:
                lifecycle.place_file(tmp, path, force)
            except BaseException:
                if old is not None:
                    _put_back(old, path)
                raise
            placed.append((path, old))
    except BaseException as e:
        for done, old in reversed(placed):
            with suppress(OSError):
                if old is not None:
                    _put_back(old, done)
                else:
                    done.unlink()
        if isinstance(e, OSError):
            why = _disk.describe(e, path)
            raise AssignError(
                f"{path}: the annotators' files cannot be moved into place: {why}; none was written"
            ) from e
        if isinstance(e, ProjectError):
            raise AssignError(f"{e}; none of the annotators' files was written") from e
        raise
    for _, old in placed:
        if old is not None:
            old.unlink(missing_ok=True)


def _put_back(old: Path, path: Path) -> None:
    """``path`` holds again what :func:`_keep_old` kept in ``old``, and ``old`` is gone.

    Where ``path`` was not replaced, ``old`` is a hard link to the same file, and a
    rename between two links of one file does nothing (POSIX): the link is removed.
    """
    os.replace(old, path)
    old.unlink(missing_ok=True)


def _keep_old(path: Path) -> Path | None:
    """The file ``path`` holds, kept beside it under a temporary name to put it back; None if
    there is none.

    A hard link (no space needed); where the file system has none, a copy: ``path``
    stays in place either way, so a kill meanwhile loses nothing (the next open of
    ``path`` removes the leftover, :func:`tagtool.store.outputs.remove_stale_temps`).
    A copy that does not fit raises, before this file is replaced.
    """
    if not path.exists():
        return None
    keep = lifecycle.temp_path(path)
    try:
        os.link(path, keep)
    except OSError:
        try:
            shutil.copyfile(path, keep)
        except BaseException:
            with suppress(OSError):
                keep.unlink()
            raise
    return keep


def open_sentences(project) -> list[tuple[int, int]]:
    """``(id, n_tokens)`` of the sentences to assign: the open ones, in document order."""
    lengths = dict(project._db.execute("SELECT id, n_tokens FROM sentences"))
    return [(sid, lengths[sid]) for sid in project.sentence_ids(status="open")]
