"""The built-in sample project: CoNLL-2000 sentences, the first few labeled.

Shared by the command line (``tagtool`` with no command opens it), the app
(Help › Reset the sample project) and the screenshot scripts, so none of them
imports another's module for it.  Qt-free and cheap to import: the readers
and the project store are imported when a function runs.
"""

from __future__ import annotations

import logging
from pathlib import Path

logger = logging.getLogger(__name__)

#: Sentences of the sample project that start fully labeled.
SAMPLE_LABELED = 50


def sample_corpus():
    """The sample project's sentences: the first :data:`SAMPLE_LABELED` keep their gold chunk labels.

    The POS column keeps the name every column-file reader gives it
    (``col1``), so a tagger trained on the sample reads the POS of a
    CoNLL-2000 file given to ``tagtool tag``/``evaluate`` or the app's batch
    tagging; named ``pos``, such files lacked it and were tagged without POS
    and scored far lower (benchmarks/results/design-measurements.md, "Missing input columns").
    """
    from tagtool.core import Corpus
    from tagtool.paths import SAMPLE_CORPUS, resource
    from tagtool.store.formats import read_corpus

    gold = read_corpus(resource(SAMPLE_CORPUS), format="conll")
    return Corpus.from_sentences(
        [s if i < SAMPLE_LABELED else s.unlabeled() for i, s in enumerate(gold)],
        labels=gold.labels,
        name="conll2000-train-400",
    )


#: The sample project's name (its window title).
SAMPLE_NAME = "CoNLL-2000 sample"


def ensure_sample_project() -> Path:
    """The built-in sample project in the user data folder, created on first use.

    The first :data:`SAMPLE_LABELED` sentences keep their gold chunk labels and
    the rest start unlabeled: where an annotator starts on a real task.
    """
    from tagtool.paths import SAMPLE_PROJECT, user_data_dir
    from tagtool.store.project import Project

    path = user_data_dir() / SAMPLE_PROJECT
    if not path.exists():
        with Project.create(path, sample_corpus(), name=SAMPLE_NAME):
            pass
        logger.info("created the sample project %s", path)
    return path


def reset_sample_project() -> Path:
    """Replace the user's copy of the sample project with the built-in one (its edits and models are lost).

    The copy is rewritten atomically (``Project.create(..., overwrite=True)``);
    the caller closes it first if it is open.
    """
    from tagtool.paths import SAMPLE_PROJECT, user_data_dir
    from tagtool.store.project import Project

    path = user_data_dir() / SAMPLE_PROJECT
    with Project.create(path, sample_corpus(), name=SAMPLE_NAME, overwrite=True):
        pass
    logger.info("reset the sample project %s", path)
    return path
