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
from collections.abc import Iterator, Sequence
from typing import Any

from tagtool.core.corpus import Sentence
from tagtool.core.tokenize import Offsets
from tagtool.store.formats._common import WriteContext
from tagtool.store.formats.spans import (
    META_FULL, META_KEYS, META_RECORD, META_START, META_TEXT, OWN_KEYS, continues_record,
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
    pieces, out, pos = [], [], 0
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


def record_out(group: list[Sentence], ctx: WriteContext, where: str, stray_inside: bool = False) -> dict:
    """The span record of one group of :func:`record_groups` (``stray_inside``: see :func:`spans_of`)."""
    meta = group[0].meta
    text, offsets = record_text(group, ctx, where)
    spans = [span for s, offs in zip(group, offsets) for span in spans_of(s, offs, ctx, where, stray_inside)]
    layout, text_key, span_key = record_layout(group[0])
    if span_key in ("entities", "annotations"):
        originals = _originals(layout.get(span_key))
        spans = [originals.get((s, e, t)) or {"label": t, "start_offset": s, "end_offset": e} for s, e, t in spans]
    record: dict[str, Any] = {**layout, text_key: text, span_key: spans}
    for key, value in meta.items():
        if key in OWN_KEYS:
            continue
        if key in record or key == "document":
            raise ctx.error(f"{where}: meta key {key!r} collides with another key")
        record[key] = value
    return record


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
    sentence: Sentence, words: Offsets, ctx: WriteContext, where: str, stray_inside: bool = False
) -> list[list]:
    """``[start, end, type]`` of each BIO chunk; raises if the labels are not BIO.

    With ``stray_inside`` an ``I-X`` that does not continue an ``X`` chunk
    starts one, as conlleval and seqeval read it: a tagger's prediction may
    hold such a label and tagging a file must still write it. Exporting
    annotations keeps it an error (it would read back as ``B-X``).
    """
    spans: list[list] = []
    for t, ann in enumerate(sentence.annotations):
        if len(ann) != 1:
            raise ctx.error(
                f"{where}: token {t + 1} has {'a candidate set' if ann else 'no label'}; span records need full "
                "BIO labels (JSONL token records, without --spans, keep candidate sets and unlabeled tokens)"
            )
        (label,) = ann
        if label == "O":
            continue
        prefix, kind = label[:2], label[2:]
        if prefix == "I-" and spans and spans[-1][3] == t - 1 and spans[-1][2] == kind:
            spans[-1][1], spans[-1][3] = words[t][1], t
        elif (prefix == "B-" or (prefix == "I-" and stray_inside)) and kind:
            spans.append([words[t][0], words[t][1], kind, t])
        else:
            raise ctx.error(f"{where}: label {label!r} of token {t + 1} does not fit the BIO scheme")
    return [s[:3] for s in spans]

