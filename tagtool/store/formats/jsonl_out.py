"""JSON Lines written: token records, or doccano-style span records (the format is :mod:`.jsonl`'s).

A record's text is written once: its first sentence keeps ``record_text``,
and a sentence's own ``text`` is left out where that and its
``text_start`` give it (the reader puts it back). Span records put the
sentences of one record back into one record, with what spans cannot say
in its ``"tagtool"`` key (:mod:`.span_state`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import WriteContext
from tagtool.store.formats.jsonl import TOKEN_KEYS
from tagtool.store.formats.spans import META_FULL, META_START, META_TEXT, sentence_text
from tagtool.store.formats.spans_out import record_groups, record_out


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, spans: bool = False, stray_inside: bool = False) -> None:
    """Write one JSON record a line.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
    ctx : WriteContext
    spans : bool
        Write span records (doccano style) instead of token records.
    stray_inside : bool
        Span records: an ``I-X`` not continuing an ``X`` chunk starts one
        (a tagger's output) instead of being an error (exported annotations).
    """
    # Span records keep their own layout: a "document" key only where the
    # documents must be told apart. Token records also name a lone document
    # whose name is not the output file's, so that it reads back the same.
    named = len(corpus.documents) > 1 if spans else ctx.any_marker(corpus)
    for document in corpus.documents:
        if spans:
            records = ((_where(document.name, s), group) for s, group in record_groups(document.sentences))
            lines = (record_out(group, ctx, where, stray_inside) for where, group in records)
        else:
            lines = _token_records(document, corpus, ctx)
        for record in lines:
            if named:
                record = {"document": document.name, **record}
            fh.write(json.dumps(record, ensure_ascii=False))
            fh.write("\n")


def write_spans(corpus: Corpus, fh: TextIO, ctx: WriteContext) -> None:
    """Span records (doccano), what spans cannot say in each record's metadata: the ``doccano`` export format."""
    write(corpus, fh, ctx, spans=True)


def _where(document: str, first: int) -> Callable[[int], str]:
    """Where the k-th sentence of a record whose first is sentence ``first`` of ``document`` is."""
    return lambda k: f"document {document!r}, sentence {first + k + 1}"


def _token_records(document, corpus: Corpus, ctx: WriteContext) -> Iterator[dict]:
    """The token records of a document's sentences, a record's text written once (module doc)."""
    whole = None  # the text of the record the sentences come from, written with its first sentence
    for s, sentence in enumerate(document.sentences):
        if META_FULL in sentence.meta:
            whole = sentence.meta[META_FULL]
        elif META_START not in sentence.meta:
            whole = None
        record = _token_out(sentence, corpus, ctx, f"document {document.name!r}, sentence {s + 1}")
        if whole is not None and record.get(META_TEXT) == sentence_text(whole, sentence.meta, sentence.tokens):
            del record[META_TEXT]
        yield record


def _token_out(sentence: Sentence, corpus: Corpus, ctx: WriteContext, where: str) -> dict:
    record: dict[str, Any] = {"tokens": list(sentence.tokens)}
    if any(sentence.annotations):  # no "labels": no token has a label (read back the same)
        record["labels"] = [_label_out(a, corpus) for a in sentence.annotations]
    if sentence.annotator_labels:
        record["annotators"] = {
            name: [_label_out(a, corpus) for a in labels] for name, labels in sentence.annotator_labels.items()
        }
    for key, values in sentence.columns.items():
        _claim(record, key, ctx, where)
        record[key] = list(values)
    for key, value in sentence.meta.items():
        _claim(record, key, ctx, where)
        record[key] = value
    return record


def _claim(record: dict, key: str, ctx: WriteContext, where: str) -> None:
    if key in record or key in TOKEN_KEYS:
        raise ctx.error(f"{where}: column or meta key {key!r} collides with another key")


def _label_out(ann: frozenset[str], corpus: Corpus) -> str | list[str] | None:
    if not ann:
        return None
    if len(ann) == 1:
        return next(iter(ann))
    return sorted(ann, key=corpus.labels.index)
