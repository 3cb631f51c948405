"""What span records cannot say, kept beside them: an exported record's ``tagtool`` metadata.

A doccano record or a Label Studio task holds spans, that is full BIO
labels. A project being worked on holds more: tokens nobody labeled yet,
candidate sets, several annotators' answers, its own sentence split. An
export keeps them in one JSON object, the record's ``"tagtool"`` key
(doccano: a key of the record, which doccano keeps as metadata; Label
Studio: ``task["meta"]["tagtool"]``), so that reading the file back
(:mod:`.spans`) gives every label, answer and candidate set again. It is
written only where the spans do not say it all, so a finished, unchanged
project exports as before. Character offsets are into the record's text.

``state``
    The record's training labels: ``"full"`` (every token has a full
    label), ``"partial"`` or ``"none"``, for a person reading the file.
``sentences``
    The offset where each sentence of the record starts: the reader splits
    there instead of running the sentence splitter.
``tokens``
    Each token's ``[start, end]``, only where the default tokenizer would
    not give those tokens (a project tokenised otherwise, or tokens split or
    merged in the app); the reader then takes them as they are.
``unlabeled``
    ``[start, end]`` runs of tokens without a label (spans alone would make
    them ``O``).
``candidates``
    ``[start, end, [label, ...]]``: a token with a candidate set, or with a
    lone ``I-X`` after a token without a full label (no span can say it).
``labels``
    Label Studio: the training labels, ``{"spans": [[start, end, type], ...],
    "unlabeled": ..., "candidates": ...}``, where the task's annotations do
    not give them (an unfinished task, whose labels are a prediction rather
    than an annotation; a token an adjudicator settled).
``annotators``
    Each annotator's answers as far as spans cannot say them:
    ``{"alice": {"unlabeled": ..., "candidates": ...}}``; doccano, which has
    no place for several annotators in a record, adds their ``"spans"``.

``review``
    The record's flagged and skipped sentences (by their place in the
    record, from 0): ``[{"sentence": 1, "flag": "is Bank an ORG?"},
    {"sentence": 2, "skipped": true}]``.

``unlabeled`` and ``candidates`` at the top level amend the record's own
spans (doccano's span list); the reader applies them after placing the spans.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from tagtool.core.annotation import EMPTY
from tagtool.core.tokenize import Offsets
from tagtool.store.formats._common import ReadContext
from tagtool.store.review import FLAG_KEY, SKIPPED_KEY, SKIPPED_VALUE

#: The record key (doccano) or ``meta`` key (Label Studio) of the metadata.
KEY = "tagtool"
STATES = ("full", "partial", "none")
#: A sentence's review attributes (:mod:`tagtool.store.review`), kept under ``review``.
REVIEW_KEYS = (FLAG_KEY, SKIPPED_KEY)


def status(labels: Sequence[Sequence[frozenset[str]]]) -> str:
    """``"full"``, ``"partial"`` or ``"none"`` of a record's training labels (one sequence per sentence)."""
    sizes = [len(a) for sentence in labels for a in sentence]
    if all(n == 1 for n in sizes):
        return "full"
    return "none" if not any(sizes) else "partial"


def review_out(group) -> list[dict]:
    """The ``review`` entries of a record's sentences (their review attributes)."""
    out = []
    for n, sentence in enumerate(group):
        item: dict[str, Any] = {}
        if FLAG_KEY in sentence.meta:
            item["flag"] = sentence.meta[FLAG_KEY]
        if SKIPPED_KEY in sentence.meta:
            item["skipped"] = True
        if item:
            out.append({"sentence": n, **item})
    return out


# ---------------------------------------------------------------------------
# reading


def review_in(state: dict | None, n: int, line: int, ctx: ReadContext) -> dict[str, str]:
    """The review attributes of the record's sentence ``n`` (:func:`review_out`), as sentence meta."""
    out: dict[str, str] = {}
    for item in (state or {}).get("review") or ():
        if not isinstance(item, dict) or type(item.get("sentence")) is not int:
            raise ctx.error(line, f'"{KEY}": "review" must be a list of {{"sentence": n, ...}} objects')
        if item["sentence"] == n:
            if "flag" in item:
                out[FLAG_KEY] = str(item["flag"] or "")
            if item.get("skipped"):
                out[SKIPPED_KEY] = SKIPPED_VALUE
    return out


def checked(value: Any, line: int, ctx: ReadContext) -> dict | None:
    """The metadata of a record (None where it has none); an error naming the line if malformed."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ctx.error(line, f'"{KEY}" must be an object')
    if value.get("state", "full") not in STATES:
        raise ctx.error(line, f'"{KEY}": "state" must be one of {", ".join(STATES)}')
    return value


def _offsets(value: Any, width: int, what: str, line: int, ctx: ReadContext) -> list:
    """A list of ``[start, end, ...]`` items with integer offsets (``width`` items each)."""
    if value is None:
        return []
    bad = not isinstance(value, list) or not all(
        isinstance(x, list) and len(x) == width and all(type(o) is int for o in x[:2]) and x[0] < x[1] for x in value
    )
    if bad:
        raise ctx.error(
            line,
            f'"{KEY}": "{what}" must be a list of [start, end{", ..." * (width > 2)}] with '
            "integer offsets, start before end",
        )
    return value


def tokens_of(state: dict | None, text: str, line: int, ctx: ReadContext) -> Offsets | None:
    """The tokens the metadata gives (None: tokenise the text)."""
    if not state or "tokens" not in state:
        return None
    tokens = [tuple(t) for t in _offsets(state["tokens"], 2, "tokens", line, ctx)]
    if not tokens or tokens[-1][1] > len(text) or any(a[1] > b[0] for a, b in zip(tokens, tokens[1:])):
        raise ctx.error(line, f'"{KEY}": "tokens" must be in order, apart, and inside the text')
    return tokens


def sentence_ranges(state: dict | None, tokens: Offsets, line: int, ctx: ReadContext) -> list[tuple[int, int]] | None:
    """Token ranges of the sentences the metadata gives (None: run the splitter)."""
    if not state or "sentences" not in state:
        return None
    starts = state["sentences"]
    if not isinstance(starts, list) or not all(type(s) is int for s in starts):
        raise ctx.error(line, f'"{KEY}": "sentences" must be a list of offsets')
    first = {s: i for i, (s, _) in enumerate(tokens)}
    indices = [first.get(s) for s in starts]
    if not indices or indices[0] != 0 or None in indices or indices != sorted(set(indices)):
        ctx.warn(line, f'"{KEY}": "sentences" are not where tokens start; the sentence splitter is used instead')
        return None
    return list(zip(indices, [*indices[1:], len(tokens)]))


def annotator_spans(state: dict | None) -> dict[str, list]:
    """``{annotator: span items}`` of a doccano export's ``annotators`` entries (those with ``spans``).

    Malformed entries are left to :func:`apply`, which names them.
    """
    annotators = state.get("annotators") if isinstance(state, dict) else None
    if not isinstance(annotators, dict):
        return {}
    return {
        name: entry["spans"]
        for name, entry in annotators.items()
        if isinstance(entry, dict) and isinstance(entry.get("spans"), list)
    }


def _places(tokens: Offsets) -> tuple[list[int], list[int]]:
    return [s for s, _ in tokens], [e for _, e in tokens]


def covered(places: tuple[Sequence[int], Sequence[int]], start: int, end: int) -> range:
    """The indices of the tokens (``places``: their starts and ends, in order) that ``[start, end)`` overlaps.

    Parameters
    ----------
    places : tuple of two sequences of int
        Each token's start offset, and each token's end offset.
    start, end : int
        The character range.

    Returns
    -------
    range
        Empty when the range falls between tokens.
    """
    starts, ends = places
    return range(bisect_right(ends, start), bisect_left(starts, end))


def amend(labels: list[frozenset[str]], entry: dict, places, line: int, ctx: ReadContext) -> list[frozenset[str]]:
    """``labels`` with ``entry``'s unlabeled runs and candidate sets put in."""
    out = list(labels)
    for start, end in _offsets(entry.get("unlabeled"), 2, "unlabeled", line, ctx):
        for k in covered(places, start, end):
            out[k] = EMPTY
    for start, end, names in _offsets(entry.get("candidates"), 3, "candidates", line, ctx):
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ctx.error(line, f'"{KEY}": a candidate set must be a list of label names')
        label = ctx.parse_names(names, line)
        for k in covered(places, start, end):
            out[k] = label
    return out


def labeling(entry: dict, places, line: int, ctx: ReadContext) -> list[frozenset[str]]:
    """The labels an entry with ``spans`` gives (``O`` outside them), amended (:func:`amend`)."""
    out = [ctx.parse_cell("O", line)] * len(places[0])
    for start, end, kind in _offsets(entry.get("spans"), 3, "spans", line, ctx):
        if not isinstance(kind, str):
            raise ctx.error(line, f'"{KEY}": a span\'s type must be a string')
        for n, k in enumerate(covered(places, start, end)):
            out[k] = ctx.parse_cell(f"{'I' if n else 'B'}-{kind}", line)
    return amend(out, entry, places, line, ctx)


def apply(
    state: dict,
    own: list[frozenset[str]] | None,
    named: dict[str, list[frozenset[str]]],
    tokens: Offsets,
    line: int,
    ctx: ReadContext,
    only: str | None = None,
) -> tuple[list[frozenset[str]] | None, dict]:
    """The training labels and each annotator's labels of a record, the metadata applied.

    ``own`` is the labels of the record's spans that name nobody (None: it
    has none), ``named`` each annotator's. Returns the training labels
    (None: the rule of team work makes them from the annotators') and the
    annotators' labels. ``only`` (the reader's one annotator) keeps that
    annotator's labels alone, as their answers.
    """
    places = _places(tokens)
    if only is not None:
        return None, _one(state, named, only, places, line, ctx)
    training = own
    if own is not None and ("unlabeled" in state or "candidates" in state):
        training = amend(own, state, places, line, ctx)
    if isinstance(state.get("labels"), dict):
        training = labeling(state["labels"], places, line, ctx)
    annotators = state.get("annotators") or {}
    if not isinstance(annotators, dict) or not all(isinstance(v, dict) for v in annotators.values()):
        raise ctx.error(line, f'"{KEY}": "annotators" must map each name to an object')
    named = dict(named)
    for name, entry in annotators.items():
        if "spans" in entry:
            named[name] = labeling(entry, places, line, ctx)
        elif name in named:
            named[name] = amend(named[name], entry, places, line, ctx)
    return training, named


def _one(state: dict, named: dict, only: str, places, line: int, ctx: ReadContext) -> dict:
    """``only``'s labels: a doccano record's from its metadata (its spans are the training labels), else
    the spans the reader made theirs, amended by their entry (or the record's top-level one)."""
    annotators = state.get("annotators") if isinstance(state.get("annotators"), dict) else {}
    if any(isinstance(e, dict) and "spans" in e for e in annotators.values()):
        entry = annotators.get(only)
        return {only: labeling(entry, places, line, ctx)} if isinstance(entry, dict) else {}
    if only not in named:
        return {}
    entry = annotators.get(only) if annotators else state
    return {only: amend(named[only], entry, places, line, ctx) if isinstance(entry, dict) else named[only]}
