"""Fixtures of the fuzz tests (their settings are in :mod:`tests.fuzz.ci`)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One folder per test module: hypothesis examples rewrite the same file in it."""
    return tmp_path_factory.mktemp("fuzz")
