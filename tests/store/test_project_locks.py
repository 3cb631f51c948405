"""A second opening of a project in the same process keeps the editing connection's locks.

SQLite's locks are POSIX locks: closing *any* descriptor of the file drops
every lock the process holds on it.  The header check and the read-ahead of
``Project.open`` read the file with Python's ``open()``; done while the app's
editing connection holds the file (a worker's read-only snapshot, a second
window), another program closing its own connection would then believe it
was the last one and checkpoint and delete the ``-wal``/``-shm`` files the
editor still uses (found by the costs13 work: the project read as damaged).
"""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest
from project_samples import plain_corpus

from tagtool.store import dbfile
from tagtool.store.project import Project

OTHER_PROGRAM = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1])\n"
    "c.execute('SELECT count(*) FROM sentences').fetchone()\n"
    "c.close()\n"
)


def test_a_readonly_open_beside_the_editor_keeps_its_wal(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, plain_corpus(5, 4)).close()
    with Project.open(path) as editor:
        labels = editor.labels
        editor.set_annotations(editor.sentence_ids()[0], {0: frozenset({labels[0]})}, "user")
        wal = dbfile.side_files(path)[0]
        assert wal.exists() and wal.stat().st_size > 0
        with Project.open(path, readonly=True) as reader:
            assert reader.sentence_ids() == editor.sentence_ids()
        subprocess.run([sys.executable, "-c", OTHER_PROGRAM, str(path)], check=True)
        assert wal.exists(), "another program deleted the editor's WAL: the process lost its locks"
        editor.set_annotations(editor.sentence_ids()[1], {0: frozenset({labels[0]})}, "user")
        assert editor.annotations(editor.sentence_ids()[1])[0] == frozenset({labels[0]})
    with Project.open(path, readonly=True) as again:
        first, second = again.sentence_ids()[:2]
        assert again.annotations(first)[0] == again.annotations(second)[0] == frozenset({labels[0]})


def test_a_closed_connection_no_longer_holds_its_file(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, plain_corpus(2, 2)).close()
    assert not dbfile.held_by_this_process(path)
    conn = dbfile.connect_readonly(path)
    assert dbfile.held_by_this_process(path)
    conn.close()
    assert not dbfile.held_by_this_process(path)
    conn = dbfile.connect_readonly(path)
    del conn  # collected without close(): the count follows it
    gc.collect()
    assert not dbfile.held_by_this_process(path)


def test_the_open_project_is_not_read_as_a_corpus_or_a_tagger(tmp_path):
    from tagtool.errors import FormatError
    from tagtool.store.formats import detect_format, read_corpus
    from tagtool.store.sources import is_project_file
    from tagtool.tagger.file_format import TaggerFileError
    from tagtool.tagger.model import load_tagger

    path = tmp_path / "p.tagproj"
    Project.create(path, plain_corpus(2, 2)).close()
    with Project.open(path):
        assert is_project_file(path)
        detect_format(path)  # answers without reading the file
        with pytest.raises(FormatError, match="open in this program"):
            read_corpus(path)
        with pytest.raises(TaggerFileError, match="open in this program"):
            load_tagger(path)
