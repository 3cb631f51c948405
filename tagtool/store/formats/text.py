"""Plain text: raw text tokenised and split into sentences, or one pre-tokenised sentence a line.

Reading raw text (the default)
    The file is cut into documents, each read exactly as a span record
    ``{"text": ...}`` of that document's text would be (:mod:`.spans`): its
    text is tokenised (``tokenizer``, :mod:`tagtool.core.tokenize`), split
    into sentences (``sentence_split``) and each sentence keeps its text and
    its offset in the document's text in ``Sentence.meta``, so spans can be
    attached by character offsets and written back (``export --spans``).
    What a document is, ``document_unit``:

    ``"line"``
        every non-blank line;
    ``"paragraph"``
        every run of non-blank lines between blank lines (its line breaks
        kept in its text);
    ``"auto"`` (default)
        ``"paragraph"`` when the file's first 64 KiB hold a blank line
        between two lines of text, else ``"line"``; always ``"line"`` with
        ``sentence_split=False`` (one sentence a line).

    All documents of a file belong to one corpus document named after the
    file, as the records of a JSONL file do.

Reading pre-tokenised text
    ``tokenizer="whitespace", sentence_split=False`` reads one sentence a
    line with tokens split at spaces (a corpus that is already tokenised,
    and this format's own output); each line still keeps its text.
    ``tagged=True`` reads ``token/LABEL`` words (split at the last ``/``;
    ``LABEL`` in the column-file spelling), one sentence a line, and keeps
    no text. Blank lines are skipped.

Writing
    Tokens joined by single spaces, one sentence a line, labels dropped;
    ``tagged=True`` writes ``token/LABEL`` (``_`` for no label).
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Iterator
from typing import TextIO

from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import HEAD_BYTES, Item, ReadContext, WriteContext, check_cell, text_encoding
from tagtool.store.formats.spans import META_START, SpanOptions, SpanRecord, sentences_of

logger = logging.getLogger(__name__)

TAG_SEPARATOR = "/"
#: What a document of a plain text file is (``document_unit``).
DOCUMENT_UNITS = ("auto", "line", "paragraph")


def read(
    ctx: ReadContext,
    *,
    tagged: bool = False,
    tokenizer: str = "default",
    sentence_split: bool = True,
    document_unit: str = "auto",
) -> Iterator[Item]:
    """Stream ``(name, Sentence)`` items of one document named after the file (module docstring).

    Parameters
    ----------
    ctx : ReadContext
    tagged : bool
        Words are ``token/LABEL``, one sentence a line (no tokenizer).
    tokenizer : {"default", "whitespace"}
    sentence_split : bool
        Split a document's text into sentences.
    document_unit : {"auto", "line", "paragraph"}
    """
    if tagged:
        yield from _read_tagged(ctx)
        return
    if document_unit not in DOCUMENT_UNITS:
        raise ctx.error(None, f"unknown document unit {document_unit!r}; choose one of {', '.join(DOCUMENT_UNITS)}")
    opts = SpanOptions(tokenizer, sentence_split).check(ctx)
    unit = document_unit
    if unit == "auto":
        unit = "paragraph" if sentence_split and has_paragraphs(ctx) else "line"
    for line, text in _documents(ctx, unit):
        record = SpanRecord(line, text, {})
        breaks = [i for i, char in enumerate(text) if char == "\n"]
        for sentence in sentences_of(record, ctx, opts):
            start = int(sentence.meta.get(META_START, 0))
            first = line + bisect_right(breaks, start - 1)
            lines = None
            if breaks:  # each token's line, for errors found after reading
                lines, pos = [], start
                for token in sentence.tokens:
                    pos = text.index(token, pos)
                    lines.append(line + bisect_right(breaks, pos - 1))
                    pos += len(token)
            ctx.check_tokens(sentence.tokens, first, lines)
            yield ctx.document_name, sentence


def _documents(ctx: ReadContext, unit: str) -> Iterator[tuple[int, str]]:
    """``(first line, text)`` of each document: a non-blank line, or a paragraph."""
    first = 0
    pieces: list[str] = []
    for lineno, line in ctx.lines():
        if not line.strip():
            if pieces:
                yield first, "".join(pieces).removesuffix("\n")
                pieces = []
            continue
        if unit == "line":
            yield lineno, line.removesuffix("\n")
            continue
        if not pieces:
            first = lineno
        pieces.append(line if line.endswith("\n") else line + "\n")
    if pieces:
        yield first, "".join(pieces).removesuffix("\n")


def has_paragraphs(ctx: ReadContext) -> bool:
    """Whether a blank line stands between two lines of text in the file's first :data:`HEAD_BYTES`."""
    with open(ctx.path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    try:
        lines = head.decode(text_encoding(ctx.path, ctx.encoding), errors="replace").splitlines()
    except LookupError:  # an unknown encoding: reading the file reports it
        return False
    seen_text = blank_after_text = False
    for line in lines:
        if line.strip():
            if blank_after_text:
                return True
            seen_text = True
        elif seen_text:
            blank_after_text = True
    return False


def _read_tagged(ctx: ReadContext) -> Iterator[Item]:
    for lineno, line in ctx.lines():
        words = line.split()
        if not words:
            continue
        ctx.check_tokens(words, lineno)
        yield ctx.document_name, _tagged_sentence(words, lineno, ctx)


def _tagged_sentence(words: list[str], lineno: int, ctx: ReadContext) -> Sentence:
    tokens, cells = [], []
    for word in words:
        token, sep, cell = word.rpartition(TAG_SEPARATOR)
        if not sep or not token:
            raise ctx.error(lineno, f"{word!r} is not token{TAG_SEPARATOR}LABEL")
        tokens.append(token)
        cells.append(cell)
    if not ctx.read_labels:
        return Sentence(tokens)
    return Sentence(tokens, ctx.parse_cells(cells, lineno, [lineno] * len(cells)))


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, tagged: bool = False) -> None:
    """Write one sentence a line.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
    ctx : WriteContext
    tagged : bool
        Append ``/LABEL`` to every token.
    """
    for document in corpus.documents:
        for s, sentence in enumerate(document.sentences):
            where = f"document {document.name!r}, sentence {s + 1}"
            words = [check_cell(ctx, t, "token", where) for t in sentence.tokens]
            if tagged:
                words = [
                    f"{w}{TAG_SEPARATOR}{_tag(a, corpus, ctx, where)}" for w, a in zip(words, sentence.annotations)
                ]
            fh.write(" ".join(words))
            fh.write("\n")


def _tag(ann: frozenset[str], corpus: Corpus, ctx: WriteContext, where: str) -> str:
    tag = format_annotation(ann, corpus.labels)
    if TAG_SEPARATOR in tag:
        raise ctx.error(f"{where}: label {tag!r} contains {TAG_SEPARATOR!r}")
    return tag
