"""Plain text: one sentence a line, no labels.

Reading
    ``tokenized=True`` (default): tokens are the whitespace-separated words
    of a line, so already tokenised text (and this format's own output)
    reads back exactly. ``tokenized=False``: a minimal regular-expression
    tokenizer for raw text: runs of word characters, joined by inner
    hyphens or apostrophes (``state-of-the-art``, ``don't``), and every
    other non-space character on its own (``"Hello, world."`` →
    ``Hello , world .``). It knows no abbreviations (``U.S.`` →
    ``U . S .``); tokenise with a real tokenizer when that matters.
    ``tagged=True`` reads ``token/LABEL`` words (split at the last ``/``;
    ``LABEL`` in the column-file spelling). Blank lines are skipped; the
    whole file is one document named after it.

Writing
    Tokens joined by single spaces, one sentence a line, labels dropped;
    ``tagged=True`` writes ``token/LABEL`` (``_`` for no label).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import TextIO

from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import Item, ReadContext, WriteContext, check_cell

logger = logging.getLogger(__name__)

_WORD = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
TAG_SEPARATOR = "/"


def tokenize(line: str) -> list[str]:
    """Split raw text into words and punctuation (see the module docstring)."""
    return _WORD.findall(line)


def read(ctx: ReadContext, *, tokenized: bool = True, tagged: bool = False) -> Iterator[Item]:
    """Stream one-document ``(name, Sentence)`` items, one per non-blank line.

    Parameters
    ----------
    ctx : ReadContext
    tokenized : bool
        Split on whitespace (True) or with :func:`tokenize` (False).
    tagged : bool
        Words are ``token/LABEL``.
    """
    if tagged and not tokenized:
        raise ValueError("tagged=True needs tokenized=True: a tokenizer would split the tags off")
    for lineno, line in ctx.lines():
        words = line.split() if tokenized else tokenize(line)
        if not words:
            continue
        ctx.check_tokens(words, lineno)
        if tagged:
            yield ctx.document_name, _tagged_sentence(words, lineno, ctx)
        else:
            yield ctx.document_name, Sentence(words)


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
                words = [f"{w}{TAG_SEPARATOR}{_tag(a, corpus, ctx, where)}" for w, a in zip(words, sentence.annotations)]
            fh.write(" ".join(words))
            fh.write("\n")


def _tag(ann: frozenset[str], corpus: Corpus, ctx: WriteContext, where: str) -> str:
    tag = format_annotation(ann, corpus.labels)
    if TAG_SEPARATOR in tag:
        raise ctx.error(f"{where}: label {tag!r} contains {TAG_SEPARATOR!r}")
    return tag
