"""Span records on raw text: tokens, sentences and BIO labels with offsets.

A span record (doccano, Label Studio) is a text and character spans
``[start, end)`` with a label. Reading one:

1. The text is tokenised (:mod:`tagtool.core.tokenize`; option
   ``tokenizer``, ``"default"`` or ``"whitespace"``).
2. Each span is placed on tokens: an edge inside a token is snapped outward
   to the token's edge. A span that cannot be placed (off the text, empty,
   covering only whitespace, overlapping an earlier span of the same
   annotator, malformed, or with a label the schema lacks) is skipped and
   listed in the reader's warnings with file, line and span text; with
   ``strict=True`` it is a :class:`FormatError` instead.
3. Spans become BIO labels (``B-X`` on the first token, ``I-X`` on the rest,
   ``O`` elsewhere). The tokens a skipped span covers, where its offsets
   locate it, are left unlabeled rather than ``O`` (a learner must not learn
   ``O`` where the annotator marked something), unless a placed span labels
   them.
4. The text is split into sentences (:func:`~tagtool.core.tokenize.split_sentences`,
   option ``sentence_split``), never inside a span.

Where a record holds several annotators' spans (Label Studio), every
annotator's labels are kept in ``Sentence.annotator_labels``; the sentence's
annotation is the label they all gave, or the candidate set of their labels
where they differ.

What is kept in ``Sentence.meta`` so that export writes the record back:

``text``
    The sentence's text (the record's whole text when it was not split).
``text_start``, ``record_text``
    For a record split into sentences: each sentence's offset in the
    record's text, and (first sentence only) the record's whole text.
``record``, ``record_keys``
    First sentence only, when the record has keys besides its text and
    spans: the record as a JSON object with every key in order and every
    value with its JSON type (numbers stay numbers), the text and span
    values left ``null``; ``record_keys`` names the text key and the span
    key (``"text label"``, ``"data label"``, ``"text entities"``).

Writing them back: :mod:`tagtool.store.formats.spans_out`.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from tagtool.core.annotation import EMPTY
from tagtool.core.annotators import combine
from tagtool.core.corpus import SKIPPED_SPAN, Sentence
from tagtool.core.tokenize import Offsets, get_tokenizer, split_sentences
from tagtool.errors import FormatError
from tagtool.store.formats import span_state
from tagtool.store.formats._common import ReadContext

META_TEXT = "text"
META_START = "text_start"
META_FULL = "record_text"
META_RECORD = "record"
META_KEYS = "record_keys"
#: Meta keys the span reader owns; the writer does not copy them as keys.
OWN_KEYS = frozenset((META_TEXT, META_START, META_FULL, META_RECORD, META_KEYS))


@dataclass(frozen=True)
class SpanOptions:
    """Reader options for span records (see the module docstring)."""

    tokenizer: str = "default"
    sentence_split: bool = True
    strict: bool = False
    #: One annotator's name, or None / ``"all"`` for every annotator.
    annotator: str | None = None

    def check(self, ctx: ReadContext) -> SpanOptions:
        try:
            get_tokenizer(self.tokenizer)
        except ValueError as exc:
            raise ctx.error(None, str(exc)) from None
        return self

    @property
    def one_annotator(self) -> str | None:
        return None if self.annotator in (None, "all") else self.annotator


@dataclass
class SpanRecord:
    """One record as the JSON readers found it.

    ``sources`` maps an annotator (None: the file names none) to that
    annotator's raw span items; an empty mapping is a text nobody labeled.
    ``layout`` is the record with ``null`` for its text and span values.
    """

    line: int
    text: str
    sources: dict[str | None, list]
    layout: dict | None = None
    keys: tuple[str, str] = ("text", "label")
    snapped: list[int] = field(default_factory=lambda: [0])
    #: The record's ``"tagtool"`` metadata (:mod:`.span_state`), None where it has none.
    state: dict | None = None
    #: Each annotator's raw span items that a tagtool doccano export keeps in its metadata beside the
    #: record's own spans, its training labels (:func:`.span_state.annotator_spans`); empty elsewhere.
    answers: dict[str, list] = field(default_factory=dict)


class _Skip(Exception):
    """A span that cannot be placed; the message says why."""


def parse_span(item: Any) -> tuple[int, int, str]:
    """``(start, end, label)`` of a list- or dict-style span; ``_Skip`` if malformed."""
    if isinstance(item, dict) and isinstance(item.get("value"), dict):
        item = item["value"]
    if isinstance(item, list) and len(item) == 3:
        start, end, label = item
    elif isinstance(item, dict):
        start = item.get("start", item.get("start_offset"))
        end = item.get("end", item.get("end_offset"))
        # doccano 1.0 downloads give the label's id as "label", its name as "label_name".
        label = item.get("label_name", item.get("label", item.get("labels")))
        if isinstance(label, list) and len(label) == 1:
            label = label[0]
    else:
        raise _Skip(f"a span must be [start, end, label] or an object, not {json.dumps(item)[:60]}")
    if any(isinstance(x, bool) or not isinstance(x, int) for x in (start, end)):
        raise _Skip(f"span offsets must be integers, got {start!r} and {end!r}")
    if not isinstance(label, str):
        raise _Skip(f"a span needs one label (a string), got {label!r}")
    return start, end, label


def _skip(rec: SpanRecord, ctx: ReadContext, opts: SpanOptions, what: str, reason: str) -> None:
    if opts.strict:
        raise ctx.error(rec.line, f"{what}: {reason}")
    ctx.warn(rec.line, f"{what}: {reason}; skipped", SKIPPED_SPAN)


def _describe(rec: SpanRecord, start: int, end: int, label: str, who: str | None) -> str:
    by = f" by {who}" if who is not None else ""
    return f"span [{start}, {end}) {label!r} {rec.text[max(start, 0) : max(end, 0)][:80]!r}{by}"


def place_spans(
    rec: SpanRecord, tokens: Offsets, items: list, who: str | None, ctx: ReadContext, opts: SpanOptions
) -> list[tuple[int, int, str | None]]:
    """``(first token, last token, label)`` of each span that can be placed.

    A skipped span that covers tokens adds ``(first, last, None)``: its
    tokens are left unlabeled (:func:`_unlabeled`).
    """
    parsed, placed = [], []
    starts, ends = [s for s, _ in tokens], [e for _, e in tokens]
    for item in items:
        try:
            parsed.append(parse_span(item))
        except _Skip as exc:
            _skip(rec, ctx, opts, "span" + (f" by {who}" if who is not None else ""), str(exc))
            placed.extend(_unlabeled(_loose_offsets(item), len(rec.text), starts, ends))
    taken = [False] * len(tokens)
    # The same span twice (doccano exports hold such) is one span, not an overlap.
    for start, end, label in sorted(dict.fromkeys(parsed), key=lambda s: s[:2]):
        i, j = bisect_right(ends, start), bisect_left(starts, end) - 1
        if start >= end:
            reason = "empty span"
        elif not 0 <= start < end <= len(rec.text):
            reason = f"outside the text (length {len(rec.text)})"
        elif i > j:
            reason = "covers no token"
        elif any(taken[i : j + 1]):
            reason = "overlaps another span"
        else:
            reason = _check_label(label, i < j, rec.line, ctx)
        if reason:
            _skip(rec, ctx, opts, _describe(rec, start, end, label, who), reason)
            placed.extend(_unlabeled((start, end), len(rec.text), starts, ends))
            continue
        rec.snapped[0] += (starts[i], ends[j]) != (start, end)
        taken[i : j + 1] = [True] * (j + 1 - i)
        placed.append((i, j, label))
    return placed


def _loose_offsets(item: Any) -> tuple[int, int] | None:
    """``(start, end)`` of a span :func:`parse_span` refused, if its offsets are integers."""
    if isinstance(item, dict) and isinstance(item.get("value"), dict):
        item = item["value"]
    if isinstance(item, list) and len(item) == 3:
        start, end = item[:2]
    elif isinstance(item, dict):
        start, end = item.get("start", item.get("start_offset")), item.get("end", item.get("end_offset"))
    else:
        return None
    if any(isinstance(x, bool) or not isinstance(x, int) for x in (start, end)):
        return None
    return start, end


def _unlabeled(
    offsets: tuple[int, int] | None, length: int, starts: list[int], ends: list[int]
) -> list[tuple[int, int, None]]:
    """The tokens a skipped span covers, as ``(first, last, None)``; [] if it covers none.

    They are left without a label (not ``O``): the annotator labeled them,
    with something this file does not let us read, and ``O`` there would
    teach a learner a wrong label.
    """
    if offsets is None or not 0 <= offsets[0] < offsets[1] <= length:
        return []
    i, j = bisect_right(ends, offsets[0]), bisect_left(starts, offsets[1]) - 1
    return [(i, j, None)] if i <= j else []


def _check_label(label: str, inside: bool, line: int, ctx: ReadContext) -> str | None:
    if not ctx.read_labels:
        return None
    try:
        ctx.parse_names([f"B-{label}"], line)
        if inside:
            ctx.parse_names([f"I-{label}"], line)
    except FormatError as exc:
        return exc.message
    return None


def _bio(n: int, placed: list[tuple[int, int, str | None]], line: int, ctx: ReadContext) -> list[frozenset[str]]:
    # parse_cell caches by spelling (a BIO label holds no "|" or "_" cell).
    out = [ctx.parse_cell("O", line)] * n
    # A skipped span's tokens (label None) go unlabeled where no placed span labels them.
    for i, j, label in sorted(placed, key=lambda p: p[2] is not None):
        if label is None:
            out[i : j + 1] = [EMPTY] * (j + 1 - i)
            continue
        out[i] = ctx.parse_cell(f"B-{label}", line)
        for k in range(i + 1, j + 1):
            out[k] = ctx.parse_cell(f"I-{label}", line)
    return out


def sentences_of(rec: SpanRecord, ctx: ReadContext, opts: SpanOptions) -> list[Sentence]:
    """The sentences of one span record (module docstring)."""
    tokens = span_state.tokens_of(rec.state, rec.text, rec.line, ctx) or get_tokenizer(opts.tokenizer)(rec.text)
    if not tokens:
        raise ctx.error(rec.line, '"text" holds no tokens')
    placed = {who: place_spans(rec, tokens, items, who, ctx, opts) for who, items in rec.sources.items()}
    together = {k for spans in placed.values() for i, j, t in spans if t is not None for k in range(i + 1, j + 1)}
    ranges = [(0, len(tokens))]
    if opts.sentence_split:
        ranges = span_state.sentence_ranges(rec.state, tokens, rec.line, ctx) or split_sentences(
            rec.text, tokens, together
        )
    labels = {}
    if ctx.read_labels:
        labels = {who: _bio(len(tokens), spans, rec.line, ctx) for who, spans in placed.items()}
    named = {who: bio for who, bio in labels.items() if who is not None}
    training = None if named else labels.get(None)
    if rec.state and ctx.read_labels:
        training, named = span_state.apply(rec.state, training, named, tokens, rec.line, ctx, opts.one_annotator)
    out = []
    for n, (a, b) in enumerate(ranges):
        by_annotator = {who: bio[a:b] for who, bio in named.items()}
        if training is not None:
            annotations = training[a:b]
        else:  # the one rule of team work: an annotator's unlabeled token is no answer
            annotations = [combine(votes) for votes in zip(*by_annotator.values())] if named else ()
        meta = _meta(rec, tokens, a, b, n, len(ranges) > 1)
        if rec.state:
            meta.update(span_state.review_in(rec.state, n, rec.line, ctx))
        words = [rec.text[s:e] for s, e in tokens[a:b]]
        out.append(Sentence(words, annotations, {}, meta, by_annotator))
    return out


def _meta(rec: SpanRecord, tokens: Offsets, a: int, b: int, n: int, split: bool) -> dict[str, str]:
    if split:
        start = tokens[a][0]
        meta = {META_TEXT: rec.text[start : tokens[b - 1][1]], META_START: str(start)}
        if n == 0:
            meta[META_FULL] = rec.text
    else:
        meta = {META_TEXT: rec.text}
    if n == 0 and rec.layout and set(rec.layout) - set(rec.keys):
        meta[META_RECORD] = json.dumps(rec.layout, ensure_ascii=False)
    if n == 0 and (META_RECORD in meta or rec.keys != ("text", "label")):
        meta[META_KEYS] = " ".join(rec.keys)
    return meta


# ---------------------------------------------------------------------------
# what the writer reads of the kept meta


def sentence_text(whole: str, meta, tokens) -> str | None:
    """The text of a sentence of a record split into sentences, from the record's text: from its
    ``text_start`` to its last token's end (None where its tokens are not found there in order)."""
    try:
        pos = start = int(meta[META_START])
    except (KeyError, ValueError):
        return None
    for token in tokens:
        k = whole.find(token, pos)
        if k < 0 or whole[pos:k].strip():
            return None
        pos = k + len(token)
    return whole[start:pos]


def continues_record(sentence: Sentence) -> bool:
    """Whether ``sentence`` is a later sentence of a record split into sentences.

    Batch tagging keeps such a sentence in its record's batch
    (:func:`tagtool.services.batch.tag_file`): :func:`~tagtool.store.formats.spans_out.record_groups` can only put a
    record back together from sentences written together.
    """
    return META_START in sentence.meta and META_FULL not in sentence.meta


def with_text(sentence: Sentence, whole: str | None) -> tuple[str | None, Sentence]:
    """A token record's sentence with its ``text`` meta, which a sentence of a record split into
    sentences leaves out where the record's text (its first sentence's ``record_text``) gives it."""
    meta = sentence.meta
    if META_FULL in meta:
        whole = meta[META_FULL]
    elif META_START not in meta:
        return None, sentence
    if META_TEXT in meta or whole is None:
        return whole, sentence
    text = sentence_text(whole, meta, sentence.tokens)
    if text is None:
        return whole, sentence
    return whole, Sentence(
        sentence.tokens, sentence.annotations, sentence.columns, {**meta, META_TEXT: text}, sentence.annotator_labels
    )
