"""A new model's guidance in the worker: the queue's first page first, the rest in the background (no Qt).

:func:`score_guidance` runs in the worker thread once a model is ready
(after a fit, or when a stored model is read at opening).  It scores the
sentences chunk by chunk (:mod:`tagtool.services.chunked_guidance`): first those
the GUI thread expects at the top of the new queue (:class:`Priority`:
the current sentence, the list's rows on screen, the previous queue's
head), and hands that *first page* to the GUI thread at once
(``state.model_ready``, a :class:`~tagtool.gui.training.TrainingResult`
whose ``complete`` is False): the new suggestions, the J queue over the
sentences scored so far, their Info scores and token questions.  Then it
scores the rest, hands an updated result every :data:`UPDATE_SECONDS` and
the complete one at the end.  Between two chunks it polls
``state.should_stop()``: a newer run (an edit) stops it.

Each update carries the plan of the queue choice current when it is made
(``choice`` is read each time), made here, so the GUI thread only swaps it
in.  Tested without Qt in tests/gui/test_scoring.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.gil_slices import index_of
from tagtool.gui.questions import plan_in_worker
from tagtool.services import chunked_guidance

#: Seconds between two updates of a model's queue while the rest is scored (each costs the GUI thread a swap).
UPDATE_SECONDS = 3.0


@dataclass(frozen=True)
class Priority:
    """What the GUI thread expects at the top of the new queue (ids), most likely first.

    ``first``: the sentences to score before the first page (the current
    one, the list's rows on screen, the previous queue's head); ``order``:
    the previous queue, whose order the rest is scored in.
    """

    first: Sequence[int] = ()
    order: Sequence[int] = ()


def _rows(index: dict[int, int], ids: Sequence[int]) -> np.ndarray:
    return np.fromiter((index[sid] for sid in ids if sid in index), dtype=np.int64)


def score_guidance(
    tagger,
    inputs,
    state,
    make_result: Callable,
    choice: Callable | None = None,
    priority: Priority | None = None,
    report: Callable | None = None,
    last_update: bool = True,
    snapshot=None,
):
    """Score ``inputs`` under ``tagger`` chunk by chunk; see the module doc.

    Parameters
    ----------
    tagger : Tagger
    inputs : TrainingInputs
        The sentences (and their ids, document order).
    state : RunState
        ``model_ready`` receives each update, ``should_stop`` is polled.
    make_result : callable(guidance, analysis, plan) → TrainingResult
        Wraps an update (its ``complete`` follows the analysis).
    choice : callable → (strategy, asking), optional
        The queue choice now (:meth:`Questions.choice`); None: no plan.
    priority : Priority, optional
    report : callable(fraction), optional
        The share of the sentences scored.
    last_update : bool
        Hand the complete result to ``state.model_ready`` too (False: the
        caller does, e.g. after writing the tagger's bytes).
    snapshot : Snapshot, optional
        The fit's training snapshot: its rows are sliced instead of the
        features extracted again, when they are the sentences' own
        (:func:`tagtool.services.chunked_guidance.training_rows`).

    Returns
    -------
    TrainingResult
        The complete result.
    """
    from tagtool.errors import Cancelled

    ids, sentences = inputs.ids, inputs.sentences
    status = inputs.status
    index = index_of(ids)
    priority = priority or Priority()
    open_ = np.fromiter((status[sid] != "full" for sid in ids), dtype=bool, count=len(ids))
    chunks = chunked_guidance.chunk_rows(open_, _rows(index, priority.first), _rows(index, priority.order))
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    scores = chunked_guidance.ChunkedGuidance(ids, lengths, tagger)
    scores.index = index  # the views' (the editor's guidance) and the plans' id -> row, made here once
    whole = chunked_guidance.training_rows(snapshot, tagger, sentences)
    # The first page's sentences too are scored a chunk at a time, and handed over when all are in.
    step = chunked_guidance.CHUNK
    head = [chunks[0][i : i + step] for i in range(0, len(chunks[0]), step)] if chunks else []
    pieces = head + chunks[1:]
    updated, result = 0.0, None
    pause = getattr(state, "pause", None)  # a paced worker's: the GUI thread's turn between chunks
    for k, rows in enumerate(pieces):
        if pause is not None:
            pause()
        if state.should_stop():
            raise Cancelled("a newer model is coming")
        if whole is not None:
            chunk = chunked_guidance.score_chunk(tagger, (), whole.subset(rows))
        else:
            chunk = chunked_guidance.score_chunk(tagger, [sentences[r] for r in rows.tolist()])
        scores.add(rows, chunk)
        if report is not None:
            report(scores.n_scored / max(len(ids), 1))
        last = k == len(pieces) - 1
        if k == len(head) - 1 or last or (k >= len(head) and time.perf_counter() - updated >= UPDATE_SECONDS):
            analysis, view = scores.analysis()
            plan = (
                None
                if choice is None
                else plan_in_worker(choice(), ids, analysis, status, tagger.learner, tagger.model, index)
            )
            result = make_result(view, analysis, plan)
            if not last or last_update:
                state.model_ready(result)
                if pause is not None:
                    pause(True)  # parked while the GUI thread takes it in and repaints (ModelLoop._use)
            updated = time.perf_counter()
    if result is None:  # no sentence
        result = make_result({}, None, None)
    return result
