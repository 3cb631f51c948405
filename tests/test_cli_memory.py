"""Out of memory in a command: one line naming what was read, never a traceback."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import tagtool.store.formats as formats
from tagtool.cli.main import main

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


def _no_memory(*args, **kwargs):
    # what numpy raises for an array too large to allocate (a MemoryError subclass)
    np.empty(2**62, dtype=np.uint8)


def _one_line_error(capsys, argv, *names):
    assert main([str(a) for a in argv]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    last = err.splitlines()[-1]  # after the progress line of tag
    assert last.startswith("tagtool: error: out of memory reading ") and all(str(n) in last for n in names), err
    return last


def test_import_out_of_memory_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(formats, "read_corpus", _no_memory)
    error = _one_line_error(capsys, ["import", CONLL, "-p", tmp_path / "P.tagproj"], CONLL)
    assert "P.tagproj" not in error  # what it would have written, not read
    assert not (tmp_path / "P.tagproj").exists()


def test_tag_out_of_memory_is_a_one_line_error(tagger, tmp_path, monkeypatch, capsys):
    model = tmp_path / "m.tagger"
    tagger.save(model)
    monkeypatch.setattr(formats, "iter_sentences", _no_memory)
    out = tmp_path / "out.txt"
    _one_line_error(capsys, ["tag", model, CONLL, "-o", out], CONLL)
    assert not out.exists()


def test_numpy_raises_a_memory_error_here():
    with pytest.raises(MemoryError):
        _no_memory()
