"""Hostile files through the whole import: file → reader → project.

``project.imports.import_corpus`` (what ``tagtool import`` and New project do with a
file) must take every corpus a reader accepts; ``project.imports.import_annotations``
(File › Import annotations) must take it or refuse it with a TagtoolError
and leave the project as it was.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tests.fuzz.checks import try_import, try_import_annotations, write_input
from tests.fuzz.ci import FUZZ_PIPELINE, warnings_as_errors
from tests.fuzz.inputs import READER_CASES, corpus_file

#: The cases whose seeds carry labels the project's annotations can come from.
LABELED = ["conll", "conllu", "jsonl", "csv", "detected"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project every example imports into (it grows; that is fine)."""
    folder = tmp_path_factory.mktemp("import")
    seed = READER_CASES["conll"]
    corpus = read_corpus(write_input(folder, seed, seed.seeds[3]), format="conll")
    with Project.create(folder / "fuzz.tagproj", corpus) as project:
        yield project


@pytest.mark.parametrize("name", LABELED)
def test_every_accepted_file_imports_into_a_project(name, project, folder):
    case = READER_CASES[name]

    @FUZZ_PIPELINE
    @given(data=corpus_file(case))
    def run(data):
        with warnings_as_errors():
            try_import(project, write_input(folder, case, data), case)

    run()


@pytest.mark.parametrize("name", LABELED)
def test_importing_annotations_takes_the_file_or_changes_nothing(name, tmp_path_factory, folder):
    case = READER_CASES[name]
    base = tmp_path_factory.mktemp("annotations")
    # a project made of the case's first seed: mutations of it may still match its sentences
    corpus = read_corpus(write_input(base, case, case.seeds[0]), **case.kwargs())
    with Project.create(base / "p.tagproj", corpus) as project:

        @FUZZ_PIPELINE
        @given(
            data=corpus_file(case),
            mode=st.sampled_from(["replace", "fill"]),
            match=st.sampled_from(["order", "document"]),
        )
        def run(data, mode, match):
            with warnings_as_errors():
                try_import_annotations(project, write_input(folder, case, data), case, mode, match)

        run()
