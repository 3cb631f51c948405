"""Writing span records back: a record's sentences put together, their BIO labels as spans.

Writing finds each sentence's tokens in the text the reader kept
(:mod:`tagtool.store.formats.spans`; so offsets are relative to the original
text, whatever tokenizer was used), puts the sentences of one record back
together and writes the spans in the style they were read in
(``[start, end, label]`` lists, or doccano's
``start_offset``/``end_offset``/``label`` objects under ``entities``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tagtool.core.annotation import EMPTY
from tagtool.core.corpus import Sentence
from tagtool.core.tokenize import Offsets, get_tokenizer, split_sentences
from tagtool.errors import FormatError
from tagtool.store.formats import span_state
from tagtool.store.formats._common import WriteContext
from tagtool.store.formats.labelstudio import record_annotator
from tagtool.store.formats.span_state import REVIEW_KEYS, status
from tagtool.store.formats.spans import (
    META_FULL,
    META_KEYS,
    META_RECORD,
    META_START,
    META_TEXT,
    OWN_KEYS,
    continues_record,
)


def record_groups(sentences: Sequence[Sentence]) -> Iterator[tuple[int, list[Sentence]]]:
    """``(index of the first, sentences)`` of each record: a split record's sentences go together."""
    i = 0
    while i < len(sentences):
        first, group = i, [sentences[i]]
        i += 1
        if META_FULL in group[0].meta:
            while i < len(sentences) and continues_record(sentences[i]):
                group.append(sentences[i])
                i += 1
        yield first, group


def _locate(text: str, group: list[Sentence]) -> list[Offsets] | None:
    """Each sentence's token offsets in ``text``, or None if the tokens are not its words."""
    out, pos = [], 0
    for n, sentence in enumerate(group):
        if n:
            try:
                pos = max(pos, int(sentence.meta[META_START]))
            except (KeyError, ValueError):
                return None
        offsets = []
        for token in sentence.tokens:
            k = text.find(token, pos)
            if k < 0 or text[pos:k].strip():
                return None
            offsets.append((k, k + len(token)))
            pos = k + len(token)
        out.append(offsets)
    return out


def _joined(group: list[Sentence], ctx: WriteContext, where: str) -> tuple[str, list[Offsets]]:
    """The tokens joined by spaces, for sentences that kept no text of their own."""
    pieces: list[str] = []
    out: list[Offsets] = []
    pos = 0
    for sentence in group:
        offsets = []
        for token in sentence.tokens:
            if token.split() != [token]:
                raise ctx.error(f"{where}: token {token!r} holds whitespace; span records cannot keep it")
            pos += bool(pieces)
            offsets.append((pos, pos + len(token)))
            pieces.append(token)
            pos += len(token)
        out.append(offsets)
    return " ".join(pieces), out


def record_text(group: list[Sentence], ctx: WriteContext, where: str) -> tuple[str, list[Offsets]]:
    """The text of one group of :func:`record_groups`, and each sentence's token offsets in it."""
    meta = group[0].meta
    text = meta.get(META_FULL, meta.get(META_TEXT))
    offsets = _locate(text, group) if isinstance(text, str) else None
    if offsets is None:
        text, offsets = _joined(group, ctx, where)
    return text, offsets


def record_layout(sentence: Sentence) -> tuple[dict, str, str]:
    """The record's other keys (:data:`META_RECORD`), its text key and its span key, from its first sentence."""
    meta = sentence.meta
    text_key, span_key = meta.get(META_KEYS, "text label").split(" ")
    return (json.loads(meta[META_RECORD]) if META_RECORD in meta else {}), text_key, span_key


#: Where the k-th sentence of a record is, for messages: ``where(k)``.
Where = Callable[[int], str]


def record_out(group: list[Sentence], ctx: WriteContext, where: Where, stray_inside: bool = False) -> dict:
    """The span record of one group of :func:`record_groups`.

    With ``stray_inside`` (a tagger's output, :func:`spans_of`) the spans are
    all it holds; otherwise what spans cannot say goes to the record's
    ``"tagtool"`` metadata (:mod:`.span_state`).
    """
    meta = group[0].meta
    text, offsets = record_text(group, ctx, where(0))
    if stray_inside:
        spans = [
            span
            for k, (s, offs) in enumerate(zip(group, offsets))
            for span in spans_of(s.annotations, offs, ctx, where(k), True)
        ]
        state: dict = {}
    else:
        spans, state = doccano_state(group, text, offsets, ctx, where)
    layout, text_key, span_key = record_layout(group[0])
    if span_key in ("entities", "annotations"):
        originals = _originals(layout.get(span_key))
        spans = [originals.get((s, e, t)) or {"label": t, "start_offset": s, "end_offset": e} for s, e, t in spans]
    record: dict[str, Any] = {**layout, text_key: text, span_key: spans}
    for key, value in meta.items():
        if key in OWN_KEYS or (not stray_inside and key in REVIEW_KEYS):  # review: in the metadata
            continue
        if key in record or key in ("document", span_state.KEY):
            raise ctx.error(f"{where(0)}: meta key {key!r} collides with another key")
        record[key] = value
    if state:
        record[span_state.KEY] = state
    return record


def doccano_state(
    group: list[Sentence], text: str, offsets: list[Offsets], ctx: WriteContext, where: Where
) -> tuple[list[list], dict]:
    """The spans of a record's training labels and its ``"tagtool"`` metadata (:mod:`.span_state`)."""
    training = [s.annotations for s in group]
    spans, state = describe(training, offsets, ctx, where)
    names = list(dict.fromkeys(name for s in group for name in s.annotator_labels))
    layout = record_layout(group[0])[0]
    if names == [record_annotator(layout)] and not state and answers(group, names[0]) == training:
        names = []  # the record names its one annotator, whose labels its spans are (doccano's "user")
    if names:
        state["annotators"] = {}
        for name in names:
            own, extras = describe(answers(group, name), offsets, ctx, where, name)
            state["annotators"][name] = {"spans": own, **extras}
    every = spans + [span for entry in state.get("annotators", {}).values() for span in entry["spans"]]
    return spans, shape(state, text, offsets, every, training, group)


def answers(group: list[Sentence], name: str) -> list[Sequence[frozenset[str]]]:
    """``name``'s answers in each sentence of a record (no label where they gave none)."""
    return [s.annotator_labels.get(name, (EMPTY,) * len(s)) for s in group]


def describe(
    labels: Sequence[Sequence[frozenset[str]]],
    offsets: Sequence[Offsets],
    ctx: WriteContext,
    where: Where,
    by: str | None = None,
) -> tuple[list[list], dict]:
    """The spans of a record's labels (one sequence per sentence) and what spans cannot say of them:
    ``unlabeled`` runs and ``candidates`` (:mod:`.span_state`)."""
    spans: list[list] = []
    unlabeled: list[list[int]] = []
    candidates: list[list] = []
    last, before = -2, 0  # record-wide index of the last unlabeled token: a run goes on across sentences
    for k, (sentence, words) in enumerate(zip(labels, offsets)):
        loose: list[int] = []
        try:
            spans += spans_of(sentence, words, ctx, where(k), loose=loose)
        except FormatError as exc:
            raise ctx.error(exc.message + (f" (annotator {by!r})" if by is not None else "")) from None
        for t in loose:
            (start, end), ann = words[t], sentence[t]
            if ann:
                candidates.append([start, end, sorted(ann)])
            elif last == before + t - 1:
                unlabeled[-1][1], last = end, before + t
            else:
                unlabeled.append([start, end])
                last = before + t
        before += len(sentence)
    extras: dict[str, list] = {}
    if unlabeled:
        extras["unlabeled"] = unlabeled
    if candidates:
        extras["candidates"] = candidates
    return spans, extras


def shape(
    state: dict,
    text: str,
    offsets: list[Offsets],
    spans: list[list],
    training: Sequence[Sequence[frozenset[str]]],
    group: list[Sentence],
) -> dict:
    """``state`` with the record's ``state``, its sentences' review flags, and its tokens and sentence
    starts where a reader would not find them again (``spans``: every span the record holds, which the
    reader's sentence splitter does not split); {} when the spans say it all."""
    review = span_state.review_out(group)
    if review:
        state["review"] = review
    flat = [w for words in offsets for w in words]
    if get_tokenizer("default")(text) != flat:
        state["tokens"] = [list(w) for w in flat]
    starts = [words[0][0] for words in offsets]
    places = [s for s, _ in flat], [e for _, e in flat]
    together = {k for s, e, _ in spans for k in span_state.covered(places, s, e)[1:]}
    # (a doccano reader splits before it knows the annotators' spans kept in the metadata)
    known = not state or (len(offsets) == 1 and "annotators" not in state)
    if not known or [flat[a][0] for a, _ in split_sentences(text, flat, together)] != starts:
        state["sentences"] = starts
    said = status(training)
    return {"state": said, **state} if state or said != "full" else {}


def _originals(objects) -> dict[tuple[int, int, str], dict]:
    """The span objects read with a record, by (start, end, label): an unchanged
    span is written back as it was (its ``id`` and key order kept)."""
    out: dict[tuple[int, int, str], dict] = {}
    for obj in objects if isinstance(objects, list) else ():
        if isinstance(obj, dict):
            label = obj.get("label", obj.get("label_name"))
            key = (obj.get("start_offset"), obj.get("end_offset"), label)
            out.setdefault(key, obj)
    return out


def spans_of(
    annotations: Sequence[frozenset[str]],
    words: Offsets,
    ctx: WriteContext,
    where: str,
    stray_inside: bool = False,
    loose: list[int] | None = None,
) -> list[list]:
    """``[start, end, type]`` of each BIO chunk; raises if the labels are not BIO.

    With ``stray_inside`` an ``I-X`` that does not continue an ``X`` chunk
    starts one, as conlleval and seqeval read it: a tagger's prediction may
    hold such a label and tagging a file must still write it. Exporting
    annotations keeps it an error (it would read back as ``B-X``).

    With a ``loose`` list, the tokens no span can say are appended to it
    instead of being an error: a token without a label, a candidate set, and
    an ``I-X`` after one of those (whose chunk may begin before it) or after such an ``I-X``.
    """
    spans: list[list] = []
    for t, ann in enumerate(annotations):
        if len(ann) != 1:
            if loose is None:
                raise ctx.error(
                    f"{where}: token {t + 1} has {'a candidate set' if ann else 'no label'}; span records need "
                    "full BIO labels"
                )
            loose.append(t)
            continue
        (label,) = ann
        if label == "O":
            continue
        prefix, kind = label[:2], label[2:]
        if prefix == "I-" and spans and spans[-1][3] == t - 1 and spans[-1][2] == kind:
            spans[-1][1], spans[-1][3] = words[t][1], t
        elif (prefix == "B-" or (prefix == "I-" and stray_inside)) and kind:
            spans.append([words[t][0], words[t][1], kind, t])
        elif (
            loose is not None
            and prefix == "I-"
            and kind
            and t
            and (len(annotations[t - 1]) != 1 or loose[-1:] == [t - 1])
        ):
            loose.append(t)
        else:
            raise ctx.error(f"{where}: label {label!r} of token {t + 1} does not fit the BIO scheme")
    return [s[:3] for s in spans]
