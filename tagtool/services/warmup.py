"""Compile a learner's numba kernels before the first model needs them.

On a fresh install (or after an update, which changes the kernels' source
digest: :mod:`tagtool.decode._jit`) the first model waits for numba to
compile every kernel its training and scoring call, many times as long
as a later model takes (benchmarks/results/first_start.md).  Compiled once,
the kernels are in numba's on-disk cache for every later process.

:func:`warm_kernels` trains the learner on a tiny corpus of every kind of
sentence (full, partial, unlabeled) and scores it the way the app scores
a project (:func:`tagtool.services.chunked_guidance.score_chunk`), so the
kernels are compiled for the same argument types.  The kernels release
the GIL (``nogil``), so the app runs this in a worker thread while its
window opens (``tagtool.gui.warmup``); the CLI may call it too.

On a cold cache the app starts sooner than that: :func:`start_filling_cache`,
called before the window is built, compiles the default learner's kernels
in a child process (:func:`fill_cache_command`: ``python -m
tagtool.services.warmup``, or the desktop bundle's own executable with the
hidden argument :data:`FILL_CACHE_ARG`) that writes them to numba's on-disk
cache, on another core and without the GUI thread's GIL; :func:`warm_up`
then waits for the child and loads what it wrote.  A training that starts
meanwhile waits for the warm-up (:func:`wait_for_warm_up`) instead of
compiling the same kernels a second time beside it.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)

#: The tiny corpus: tokens and BIO labels (None: no label; a tuple: a candidate set).
_SENTENCES = (
    (
        ("Ada", "B-PER"),
        ("Lovelace", "I-PER"),
        ("met", "O"),
        ("Babbage", "B-PER"),
        ("in", "O"),
        ("London", "B-LOC"),
        (".", "O"),
    ),
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
        annotations = tuple(
            () if label is None else (label,) if isinstance(label, str) else tuple(label) for _, label in rows
        )
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


#: Set unless a :func:`warm_up` runs in this process (a training waits for it: :func:`wait_for_warm_up`).
_idle = threading.Event()
_idle.set()


def default_kernels_cached() -> bool:
    """Whether numba's on-disk cache holds the default learner's training kernel for today's sources."""
    from tagtool.decode._jit import in_cache
    from tagtool.learn._perceptron_kernels import perceptron_chunk

    return in_cache(perceptron_chunk)


#: The hidden argument on which the frozen app's executable fills numba's cache and ends
#: (``packaging/tagtool_main.py``): a frozen executable runs no ``-m`` module.
FILL_CACHE_ARG = "--fill-numba-cache"


def fill_cache_command() -> list[str]:
    """The command line of :func:`start_filling_cache`'s child.

    ``python -m tagtool.services.warmup`` from an installed package; in the
    frozen app, whose ``sys.executable`` is the app itself (it would take
    ``-m`` for a command-line option), the app with :data:`FILL_CACHE_ARG`.
    """
    from tagtool._runtime import is_frozen

    if is_frozen():
        return [sys.executable, FILL_CACHE_ARG]
    return [sys.executable, "-m", __name__]


def start_filling_cache() -> subprocess.Popen | None:
    """Start compiling the default learner's kernels into numba's on-disk cache in a child process.

    The child (:func:`fill_cache_command`) returns at once when the cache
    holds them already; it shares this process's cache folder (the frozen
    app's is set in the environment, ``tagtool._runtime``).  None when
    kernels are not cached on disk, or when the child cannot start:
    :func:`warm_up` then compiles in this process.
    """
    from tagtool._runtime import jit_cache_enabled

    if not jit_cache_enabled():
        return None
    try:
        return subprocess.Popen(
            fill_cache_command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        log.warning("could not start compiling the kernels in a child process: %s", exc)
        return None


def warm_up(learner_name: str | None = None, child: subprocess.Popen | None = None) -> float:
    """:func:`warm_kernels` after ``child`` (:func:`start_filling_cache`) has filled the cache; seconds taken.

    Trainings that start meanwhile wait for it (:func:`wait_for_warm_up`).
    """
    started = time.perf_counter()
    _idle.clear()
    try:
        # On a filled cache the child only looks and ends: no need to wait for it (a later start).
        if child is not None and not default_kernels_cached() and child.wait() != 0:
            log.warning(
                "compiling the kernels in a child process failed (exit status %s); compiling them here",
                child.returncode,
            )
        warm_kernels(learner_name)
    finally:
        _idle.set()
    return time.perf_counter() - started


def wait_for_warm_up() -> None:
    """Return once no :func:`warm_up` runs in this process (at once if none does)."""
    if not _idle.is_set():
        log.info("waiting for the kernels being compiled")
        _idle.wait()


def fill_cache() -> int:
    """The child of :func:`start_filling_cache`: compile the default learner's kernels unless they are cached."""
    if not default_kernels_cached():
        warm_kernels()
    return 0


if __name__ == "__main__":
    sys.exit(fill_cache())
