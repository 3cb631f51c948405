"""Compile a learner's numba kernels before the first model needs them.

On a fresh install (or after an update, which changes the kernels' source
digest: :mod:`tagtool.decode._jit`) the first model waits for numba to
compile every kernel its training and scoring call: about 14 s for the
default learner, where later models take about a second.  Compiled once,
the kernels are in numba's on-disk cache for every later process.

:func:`warm_kernels` trains the learner on a tiny corpus of every kind of
sentence (full, partial, unlabeled) and scores it the way the app scores
a project (:func:`tagtool.services.chunked_guidance.score_chunk`), so the
kernels are compiled for the same argument types.  The kernels release
the GIL (``nogil``), so the app runs this in a worker thread while its
window opens (``tagtool.gui.warmup``); the CLI may call it too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)

#: The tiny corpus: tokens and BIO labels (None: no label; a tuple: a candidate set).
_SENTENCES = (
    (("Ada", "B-PER"), ("Lovelace", "I-PER"), ("met", "O"), ("Babbage", "B-PER"), ("in", "O"),
     ("London", "B-LOC"), (".", "O")),
    (("The", "O"), ("engine", "O"), ("ran", "O"), ("in", "O"), ("Paris", "B-LOC"), (".", "O")),
    (("Turing", "B-PER"), ("visited", "O"), ("New", "B-LOC"), ("York", "I-LOC"), (".", "O")),
    (("Hopper", ("B-PER", "B-LOC")), ("wrote", None), ("code", "O"), (".", None)),
    (("Lamport", None), ("lives", None), ("in", None), ("California", None), (".", None)),
    (("Knuth", None), ("typeset", None), ("books", None), (".", None)),
)


def tiny_corpus():
    """Six sentences: three fully labeled, one partial (a candidate set, unlabeled tokens), two unlabeled."""
    from tagtool.core import Corpus, Sentence
    from tagtool.core.labels import LabelSet

    labels = LabelSet(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])
    sentences = []
    for rows in _SENTENCES:
        tokens = tuple(token for token, _ in rows)
        annotations = tuple(() if label is None else (label,) if isinstance(label, str) else tuple(label)
                            for _, label in rows)
        sentences.append(Sentence(tokens, annotations=annotations))
    return Corpus.from_sentences(sentences, labels=labels)


def warm_kernels(learner_name: str | None = None, params: Mapping | None = None) -> float:
    """Compile (or load from numba's cache) the kernels a first model of ``learner_name`` uses; seconds taken.

    Parameters
    ----------
    learner_name : str, optional
        A learner of :func:`tagtool.learn.available_learners` (default: the default learner).
    params : mapping, optional
        Its settings (default: its defaults); settings that pick other kernels (a decoder, a loss)
        compile those.
    """
    from tagtool.learn import DEFAULT_LEARNER, make_learner
    from tagtool.services import chunked_guidance
    from tagtool.services.pipeline import train

    started = time.perf_counter()
    name = learner_name or DEFAULT_LEARNER
    corpus = tiny_corpus()
    trained = train(corpus, make_learner(name, **dict(params or {})), seed=0)
    chunked_guidance.score_chunk(trained.tagger, list(corpus))
    seconds = time.perf_counter() - started
    log.info("kernels of %s ready in %.1f s", name, seconds)
    return seconds
