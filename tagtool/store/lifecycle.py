"""Creating, opening and migrating project files.

:func:`create_file` builds a project under a temporary name and moves it into
place; :func:`open_file` checks a file and returns the connection the
:class:`~tagtool.store.project.Project` will use: read-write, read-only, or
(for an old file opened read-only) an in-memory migrated copy.
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
import secrets
import sqlite3
import uuid
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import tagtool
from tagtool.core.corpus import Corpus
from tagtool.errors import ProjectError
from tagtool.store import colors as _colors
from tagtool.store import dbfile, disk, filechecks, schema, search_index
from tagtool.store.outputs import TEMP_SUFFIX, remove_stale_temps, temp_prefix
from tagtool.store.sentence_rows import insert_corpus

log = logging.getLogger(__name__)


#: ``meta`` key of a project's identity: a random id written when the file is
#: created (older files get one from ``Project.identity``), so that an
#: annotator's file can say which project it was assigned from.
PROJECT_ID_KEY = "project_id"


class NewerSchemaWarning(UserWarning):
    """The file was written by a newer tagtool; it is opened read-only."""


@dataclass
class OpenedFile:
    """A checked project file and the connection to use it through."""

    conn: sqlite3.Connection
    readonly: bool
    schema_version: int
    newer_schema: bool = False
    migrated_from: int | None = None
    backup_path: Path | None = None
    #: Why a file asked for read-write is open read-only (its folder or the
    #: file cannot be written), or None.
    readonly_reason: str | None = None
    #: A read-only open found no ``-wal``/``-shm`` files: remove them at close.
    tidy_sides: bool = False


def _exists_error(path: Path) -> ProjectError:
    return ProjectError(f"{path} already exists; choose another name or overwrite it")


def create_file(
    path: Path,
    corpus: Corpus,
    name: str,
    colors: list[str],
    overwrite: bool,
    annotator: str,
    meta: Mapping[str, str] | None = None,
) -> None:
    """Write a complete project at ``path``, atomically.

    Built as ``.<name>.<random>.tmp`` in the same folder (so the final rename
    stays on one filesystem), synced, then renamed; on any failure the
    temporary file is removed and ``path`` is untouched.
    """
    path = check_target(path, overwrite)
    tmp = build_file(path, corpus, name, colors, annotator, meta)
    try:
        place_file(tmp, path, overwrite)
    except BaseException as e:
        discard(tmp)
        if isinstance(e, OSError):
            raise ProjectError(
                f"{path}: the project could not be created ({disk.describe(e, path)}); nothing was written"
            ) from e
        raise
    log.info("created project %s (%d sentences)", path, len(corpus))


def check_target(path: Path, overwrite: bool) -> Path:
    """Where a new project at ``path`` is written (a symlink's target), refused if
    it exists (without ``overwrite``) or is not a regular file."""
    if path.is_dir():
        raise ProjectError(f"{path} is a folder, not a project file")
    if path.exists() and not overwrite:
        raise _exists_error(path)
    # Only a regular file is ever replaced: a symlink's target is written
    # (the link stays), a device or FIFO is refused.
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    if path.exists() and not path.is_file():
        raise ProjectError(f"{path} is not a regular file; a project cannot be written there")
    return path


def build_file(
    path: Path, corpus: Corpus, name: str, colors: list[str], annotator: str, meta: Mapping[str, str] | None = None
) -> Path:
    """Build a complete project for ``path`` under a temporary name beside it, synced; the
    temporary file (moved into place by :func:`place_file`, or removed by :func:`discard`).

    Raises
    ------
    ProjectError
        Naming ``path`` and why (the disk is full, the folder is read-only); nothing is left.
    """
    remove_stale_temps(path, dbfile.SIDE_SUFFIXES)
    tmp = temp_path(path)
    try:
        _build(tmp, corpus, name, colors, annotator, meta or {})
    except BaseException as e:
        discard(tmp)
        if isinstance(e, (sqlite3.Error, OSError)):
            raise ProjectError(
                f"{path}: the project could not be created ({disk.describe(e, tmp)}); nothing was written"
            ) from e
        raise
    return tmp


def discard(tmp: Path) -> None:
    """Remove a temporary project of :func:`build_file` and any side file of it."""
    for leftover in [tmp, *dbfile.side_files(tmp)]:
        if not os.path.lexists(leftover):
            continue  # not unlinked: a read-only file system refuses even that (EROFS, not ENOENT)
        try:
            leftover.unlink()
        except OSError as e:
            log.warning("cannot remove the temporary file %s (%s)", leftover, e)


def temp_path(path: Path) -> Path:
    """A temporary file beside ``path`` (a project being built, a backup being
    written) named ``.NAME.PID.RANDOM.tmp``: the next open of ``path`` removes
    what a killed writer left (:func:`tagtool.store.outputs.remove_stale_temps`),
    never a live writer's."""
    return path.with_name(f"{temp_prefix(path)}{secrets.token_hex(4)}{TEMP_SUFFIX}")


def _build(tmp: Path, corpus: Corpus, name: str, colors: list[str], annotator: str, meta: Mapping[str, str]) -> None:
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        # The temporary file is thrown away on failure, so skip the
        # durability work while filling it and sync once at the end.
        conn.execute("PRAGMA journal_mode = MEMORY")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN")
        schema.create_schema(conn)
        created = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("created", created),
                ("tagtool_version", tagtool.__version__),
                ("name", name),
                (PROJECT_ID_KEY, uuid.uuid4().hex),
                *((str(k), str(v)) for k, v in meta.items()),
            ],
        )
        shortcuts = _colors.default_shortcuts(corpus.labels)
        conn.executemany(
            "INSERT INTO labels (name, position, color, shortcut) VALUES (?, ?, ?, ?)",
            [(n, i, colors[i], shortcuts[i]) for i, n in enumerate(corpus.labels)],
        )
        with search_index.bulk_insert(conn):
            insert_corpus(conn, corpus, corpus.labels, annotator)
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()
    dbfile.fsync_path(tmp)


def place_file(tmp: Path, path: Path, overwrite: bool) -> None:
    """Move a project built by :func:`build_file` to ``path`` (over it only with ``overwrite``)."""
    # A WAL or journal left beside ``path`` belongs to another database;
    # SQLite would replay it into the new file.
    stale = [side for side in dbfile.side_files(path) if side.exists()]
    if stale and path.exists() and not overwrite:
        raise _exists_error(path)
    for side in stale:
        side.unlink()
    if overwrite:
        os.replace(tmp, path)
    else:
        try:
            os.link(tmp, path)  # unlike a rename, fails if ``path`` appeared meanwhile
        except FileExistsError:
            raise _exists_error(path) from None
        except OSError:  # a filesystem without hard links
            if path.exists():
                raise _exists_error(path) from None
            os.replace(tmp, path)
        else:
            tmp.unlink()
    dbfile.fsync_dir(path.parent)


def open_file(path: Path, readonly: bool) -> OpenedFile:
    """Check a project file and connect to it (see ``Project.open``)."""
    had_sides = any(side.exists() for side in dbfile.side_files(path)[:2])
    opened = _open_checked(path, readonly)
    opened.conn.text_factory = _lenient_text
    opened.tidy_sides = opened.readonly and not had_sides
    if not opened.readonly:
        remove_stale_temps(path, dbfile.SIDE_SUFFIXES)
        # Its search index: rebuilt where an SQLite without FTS5 left it
        # stale, its triggers dropped where this SQLite cannot run them.
        search_index.ensure(opened.conn, path)
    return opened


def _readonly_reason(path: Path) -> str | None:
    """Why ``path`` cannot be opened for editing, or None if it can."""
    if dbfile.writable(path):
        return None
    return dbfile.why_unwritable(path) or "the file cannot be written"


def _lenient_text(data: bytes) -> str:
    # Damage inside a text value passes every check SQLite has; show it as
    # U+FFFD rather than fail each read that meets it.
    return data.decode("utf-8", "replace")


def _open_checked(path: Path, readonly: bool) -> OpenedFile:
    dbfile.check_header(path)
    filechecks.read_ahead(path)
    absent_sides = {side for side in dbfile.side_files(path) if not side.exists()}
    conn = None
    try:
        conn = dbfile.connect_readonly(path)
        filechecks.check_pages(conn, path)
        version = _read_version(conn, path)
        filechecks.check_columns(conn, path, version)
        filechecks.check_json(conn, path)
    except (ProjectError, sqlite3.Error, ValueError) as e:
        if conn is not None:
            conn.close()
        dbfile.remove_new_side_files(absent_sides)
        if isinstance(e, ProjectError):
            raise
        raise ProjectError(f"{path} is damaged or not a tagtool project ({e})") from e

    if version > schema.CURRENT_VERSION:
        message = (
            f"{path} was written by a newer tagtool (schema {version}; this version "
            f"knows up to {schema.CURRENT_VERSION}); it is opened read-only"
        )
        warnings.warn(message, NewerSchemaWarning, stacklevel=3)
        log.warning(message)
        return OpenedFile(conn, readonly=True, schema_version=version, newer_schema=True)
    reason = None if readonly else _readonly_reason(path)
    if reason:
        log.info("%s: %s; it is opened read-only", path, reason)
    if version == schema.CURRENT_VERSION:
        if readonly or reason:
            return OpenedFile(conn, readonly=True, schema_version=version, readonly_reason=reason)
        conn.close()  # first: a reader open beside it would let a writer start that cannot write
        try:
            return OpenedFile(_connect_for_editing(path), readonly=False, schema_version=version)
        except ProjectError as e:
            if not disk.is_full(e.__cause__, path):
                raise
        # As in a folder that cannot be written: it can still be read
        reason = f"{disk.FULL}: SQLite has no room for its files beside it"
        log.info("%s: %s; it is opened read-only", path, reason)
        return OpenedFile(dbfile.connect_readonly(path), readonly=True, schema_version=version, readonly_reason=reason)
    if readonly or reason:
        opened = _migrate_in_memory(path, conn, version)
        opened.readonly_reason = reason
        return opened
    return _migrate_file(path, conn, version)


def _read_version(conn: sqlite3.Connection, path: Path) -> int:
    try:
        version = schema.read_version(conn)
    except (sqlite3.Error, ValueError) as e:
        raise ProjectError(f"{path} is not a tagtool project (no schema version: {e})") from e
    if version < 1:
        raise ProjectError(f"{path}: invalid schema version {version}")
    return version


def _connect_for_editing(path: Path) -> sqlite3.Connection:
    try:
        return dbfile.connect_readwrite(path)
    except sqlite3.Error as e:
        raise ProjectError(f"{path} cannot be opened for editing ({e}); it can still be opened read-only") from e


def _migrate_file(path: Path, ro_conn: sqlite3.Connection, version: int) -> OpenedFile:
    """Back the file up, then migrate it in one transaction."""
    # Written under a temporary name, renamed once complete: an upgrade
    # killed meanwhile leaves no partial backup that looks like a real one.
    remove_stale_temps(path, dbfile.SIDE_SUFFIXES)
    backup, tmp = dbfile.backup_path(path, version), temp_path(path)
    try:
        dbfile.write_backup(ro_conn, tmp)
        os.replace(tmp, backup)
        dbfile.fsync_dir(path.parent)
    except (OSError, sqlite3.Error) as e:
        discard(tmp)
        raise ProjectError(
            f"{path} needs an upgrade from schema {version}, but the backup "
            f"{backup} could not be written ({disk.describe(e, tmp)}); the file is unchanged"
        ) from e
    finally:
        ro_conn.close()
    conn = _connect_for_editing(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            schema.migrate(conn, version)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except (sqlite3.Error, ValueError) as e:
        conn.close()
        raise ProjectError(
            f"{path}: the upgrade from schema {version} failed ({e}); the file is unchanged, and a copy is at {backup}"
        ) from e
    except BaseException:
        conn.close()
        raise
    log.info("migrated %s from schema %d to %d (backup %s)", path, version, schema.CURRENT_VERSION, backup)
    return OpenedFile(
        conn, readonly=False, schema_version=schema.CURRENT_VERSION, migrated_from=version, backup_path=backup
    )


def _migrate_in_memory(path: Path, ro_conn: sqlite3.Connection, version: int) -> OpenedFile:
    """Read an old file without changing it: migrate a copy held in memory."""
    mem = sqlite3.connect(":memory:", isolation_level=None)
    try:
        ro_conn.backup(mem)
        mem.execute("BEGIN")
        schema.migrate(mem, version)
        mem.execute("COMMIT")
        mem.execute("PRAGMA query_only = ON")
    except (sqlite3.Error, ValueError) as e:
        mem.close()
        raise ProjectError(f"{path}: cannot read schema {version} ({e})") from e
    finally:
        ro_conn.close()
    return OpenedFile(mem, readonly=True, schema_version=schema.CURRENT_VERSION, migrated_from=version)
