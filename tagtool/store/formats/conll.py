"""CoNLL column files: one token a line, blank line between sentences.

Covers CoNLL-2000 (``word POS chunk``), CoNLL-2002 (``word POS NE``),
CoNLL-2003 (``word POS chunk NE`` with ``-DOCSTART-`` lines) and any other
whitespace-separated layout.

Reading
    Columns are split on runs of whitespace (``sep=None``) or on one exact
    separator (``sep="\\t"`` keeps empty cells). The first token line fixes
    the number of columns; a line with another number is an error. The token
    column (default 0) and the label column (default -1, the last; None for
    no labels) are chosen by index, negative indices counting from the end.
    Every other column becomes ``Sentence.columns[f"col{i}"]`` with ``i`` its
    0-based index in the file (CoNLL-2000's POS is ``col1``), or the name
    ``column_names[i]`` when names are given. A file with a single column
    holds tokens only. Label cells: ``A`` full, ``A|B`` candidate set, ``_``
    none.

    A ``-DOCSTART-`` line starts a new document named ``"<file name>:<k>"``
    (k = 1, 2, ...); sentences before the first one (or in a file without
    any) form a document named after the file.

Writing
    Token, the extra columns in first-seen order, then the label column,
    joined by ``sep`` (default one space), a blank line after each sentence.
    Documents are separated by ``-DOCSTART-`` lines (``-DOCSTART- -X- … O``,
    CoNLL-2003's spelling); the first document needs none when it carries
    the output file's name, and a lone document needs none unless it came
    from a ``-DOCSTART-`` section (named ``"<file>:<k>"``). So read → write
    → read is the identity and an original file is rewritten byte for byte;
    other document names are lost (the format has no place for them).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import Item, ReadContext, WriteContext
from tagtool.store.formats.blocks import iter_blocks
from tagtool.store.formats.column_blocks import runs, split_block
from tagtool.store.formats.limits import sentence_too_long

logger = logging.getLogger(__name__)

DOCSTART = "-DOCSTART-"
#: Characters of an unfinished sentence the block reader carries to the next block; a longer one
#: continues line by line (each block would otherwise split its text again).
PENDING_CHARS = 1 << 22

# Only ASCII whitespace separates columns: str.split() would also cut at a
# no-break space or U+2028 inside a token.
_FIELD = re.compile(r"[^\t\n\x0b\x0c\r\x1c-\x1f ]+")
_SECTION_NAME = re.compile(r".*:[0-9]+")
_SEPARATOR = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1f ]")


def split_fields(line: str, sep: str | None = None) -> list[str]:
    """Cells of one line; ``[]`` for a blank line.

    ``sep=None`` splits on runs of ASCII whitespace; another ``sep`` splits
    on exactly that string, so empty cells survive.
    """
    if sep is None:
        # str.split() is several times faster and agrees on ASCII lines.
        return line.split() if line.isascii() else _FIELD.findall(line)
    if not line.strip():
        return []
    return line.rstrip("\n").split(sep)


@dataclass(frozen=True)
class _Layout:
    """Where token, label and extra columns sit in a file's rows."""

    n_columns: int
    first_line: int
    token: int
    label: int | None
    extras: tuple[tuple[str, int], ...]

    @classmethod
    def from_first_row(cls, n_columns: int, line: int, ctx: ReadContext) -> _Layout:
        token = _resolve_index(ctx, ctx.token_column, n_columns, line, "token")
        label = None
        if ctx.label_column is not None and n_columns > 1:
            label = _resolve_index(ctx, ctx.label_column, n_columns, line, "label")
            if label == token:
                raise ctx.error(line, f"token and label columns are both column {token}")
        names = _column_names(ctx, n_columns, line)
        extras = tuple((names[i], i) for i in range(n_columns) if i not in (token, label))
        return cls(n_columns, line, token, label, extras)

    def sentence(self, rows: list[list[str]], start: int, ctx: ReadContext) -> Sentence:
        return self.sentence_of_columns(list(zip(*rows)), start, ctx)

    def sentence_of_columns(self, cols: list[Sequence[str]], start: int, ctx: ReadContext) -> Sentence:
        """The sentence of the rows ``start, start + 1, ...`` given as its columns."""
        tokens = tuple(cols[self.token])
        ctx.check_tokens(tokens, start, range(start, start + len(tokens)))
        annotations = ctx.parse_cells(cols[self.label], start) if self.label is not None else ()
        columns = {name: tuple(cols[i]) for name, i in self.extras}
        return Sentence(tokens, annotations, columns)


def _resolve_index(ctx: ReadContext, index: int | str, n: int, line: int, what: str) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise ctx.error(line, f"{what} column must be an integer index, got {index!r}")
    if not -n <= index < n:
        raise ctx.error(line, f"{what} column {index} does not exist: the file has {n} columns")
    return index % n


def _column_names(ctx: ReadContext, n: int, line: int) -> list[str]:
    if ctx.column_names is None:
        return [f"col{i}" for i in range(n)]
    names = list(ctx.column_names)
    if len(names) != n:
        raise ctx.error(line, f"{len(names)} column names given for {n} columns")
    if len(set(names)) != n:
        raise ctx.error(line, f"duplicate column names in {names}")
    return names


def read(ctx: ReadContext, *, sep: str | None = None) -> Iterator[Item]:
    """Stream ``(document name, Sentence)`` items from a column file.

    Parameters
    ----------
    ctx : ReadContext
    sep : str or None
        Column separator; None splits on runs of whitespace.
    """
    reader = _ColumnReader(ctx, sep)
    for first, text in iter_blocks(ctx.path, ctx.encoding, ctx.limits.max_line_chars, ctx):
        if sep is None and not reader.rows:
            yield from reader.block(first, text)
        else:
            yield from reader.lines(first, text)
    yield from reader.finish()


class _ColumnReader:
    """The state of one read: the layout, the document, the sentence in progress.

    :meth:`block` is the fast path (whitespace-separated columns): a whole
    block at once (:mod:`~tagtool.store.formats.column_blocks`), keeping an
    unfinished last sentence as text for the next block.  :meth:`lines` is
    the reference, line by line; the fast path hands it any block with
    something to report, so errors, their lines and the sentences yielded
    before them are the reference's.
    """

    def __init__(self, ctx: ReadContext, sep: str | None):
        self.ctx, self.sep = ctx, sep
        self.layout: _Layout | None = None
        self.rows: list[list[str]] = []  # the reference's sentence in progress
        self.start = 0
        self.document, self.n_docs = ctx.document_name, 0
        self.pending: tuple[int, str] | None = None  # the fast path's unfinished sentence: (first line, text)

    def lines(self, first: int, text: str) -> Iterator[Item]:
        """The reference: every line of ``text`` (whole lines, the first numbered ``first``) in turn."""
        ctx, sep = self.ctx, self.sep
        for lineno, line in enumerate(_lines(text), first):
            ctx.line = lineno
            fields = split_fields(line, sep)
            if not fields or fields[0] == DOCSTART:
                if self.rows:
                    yield self.document, self.layout.sentence(self.rows, self.start, ctx)  # type: ignore[union-attr]
                    self.rows = []
                if fields:
                    self.n_docs += 1
                    self.document = f"{ctx.document_name}:{self.n_docs}"
                continue
            self._check_row(fields, lineno)
            if not self.rows:
                self.start = lineno
            elif len(self.rows) >= ctx.limits.max_sentence_tokens:  # before the rows fill memory
                raise sentence_too_long(ctx.path, self.start, ctx.limits.max_sentence_tokens)
            self.rows.append(fields)

    def _check_row(self, fields: list[str], lineno: int) -> None:
        ctx, layout = self.ctx, self.layout
        if layout is None:
            self.layout = layout = _Layout.from_first_row(len(fields), lineno, ctx)
        elif len(fields) != layout.n_columns:
            hint = " (if this is plain text, one sentence a line, read it as format 'text')" if ctx.detected else ""
            raise ctx.error(
                lineno,
                f"{len(fields)} columns where line {layout.first_line} has {layout.n_columns}{hint}",
            )
        if not fields[layout.token]:  # only an exact ``sep`` leaves empty cells
            raise ctx.error(lineno, f"empty token (column {layout.token})")

    def block(self, first: int, text: str) -> Iterator[Item]:
        """The fast path over a block of whole lines (``sep=None``, no sentence in progress)."""
        if self.pending is not None:
            first, text = self.pending[0], self.pending[1] + text
            self.pending = None
        split = split_block(text)
        docstarts = split.lines_starting_with(text, DOCSTART)
        token_lines = split.counts > 0
        token_lines[docstarts] = False
        starts, stops = runs(token_lines)
        if len(starts) and self.layout is None:
            line = int(starts[0])
            self._check_row(split.fields[split.first[line] : split.first[line] + split.counts[line]], first + line)
        n = self.layout.n_columns if self.layout is not None else 0
        if (split.counts[token_lines] != n).any() or (stops - starts > self.ctx.limits.max_sentence_tokens).any():
            yield from self.lines(first, text)  # it raises, at the line and after the sentences before it
            return
        complete = len(starts) - (len(starts) > 0 and stops[-1] == len(split.counts) and text.endswith("\n"))
        documents = self.n_docs + np.searchsorted(docstarts, starts[:complete])
        for a, b, d in zip(starts[:complete].tolist(), stops[:complete].tolist(), documents.tolist()):
            fa = int(split.first[a])
            cells = [split.fields[fa + i : fa + n * (b - a) : n] for i in range(n)]
            name = f"{self.ctx.document_name}:{d}" if d else self.ctx.document_name
            self.ctx.line = first + b - 1
            yield name, self.layout.sentence_of_columns(cells, first + a, self.ctx)  # type: ignore[union-attr]
        if len(docstarts):
            self.n_docs += len(docstarts)
            self.document = f"{self.ctx.document_name}:{self.n_docs}"
        if complete < len(starts):
            rest = (first + int(starts[-1]), text[int(split.line_starts[starts[-1]]) :])
            if len(rest[1]) <= PENDING_CHARS:
                self.pending = rest
            else:  # a sentence of many blocks: rows from here on, not its whole text split again per block
                yield from self.lines(*rest)

    def finish(self) -> Iterator[Item]:
        """The last sentence, at the end of the file."""
        if self.pending is not None:
            first, text = self.pending
            self.pending = None
            yield from self.lines(first, text)
        if self.rows:
            yield self.document, self.layout.sentence(self.rows, self.start, self.ctx)  # type: ignore[union-attr]


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their newlines (only ``\\n`` ends a line, as in text-mode reading)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def write(
    corpus: Corpus,
    fh: TextIO,
    ctx: WriteContext,
    *,
    sep: str = " ",
    write_labels: bool = True,
    docstart: bool | None = None,
) -> None:
    """Write ``corpus`` as a column file.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
        Open text stream (the caller makes the write atomic).
    ctx : WriteContext
    sep : str
        Column separator.
    write_labels : bool
        Write the label column (``_`` for tokens without a label).
    docstart : bool or None
        Write a ``-DOCSTART-`` line before every document (True), before
        none (False), or where a document boundary would otherwise be lost
        (None).
    """
    names = corpus.column_names
    label_cell = _LabelCells(corpus) if write_labels else None
    docstart_line = sep.join([DOCSTART, *(["-X-"] * len(names)), *(["O"] if write_labels else [])])
    for d, document in enumerate(corpus.documents):
        if docstart or (docstart is None and _needs_docstart(corpus, d, ctx)):
            fh.write(f"{docstart_line}\n\n")
        for s, sentence in enumerate(document.sentences):
            where = f"document {document.name!r}, sentence {s + 1}"
            fh.write(_sentence_block(sentence, names, label_cell, sep, ctx, where))


def _sentence_block(
    sentence: Sentence,
    names: Sequence[str],
    label_cell: _LabelCells | None,
    sep: str,
    ctx: WriteContext,
    where: str,
) -> str:
    """The lines of one sentence and the blank line after it."""
    columns = [sentence.tokens, *(_column(sentence, name) for name in names)]
    for values in columns:
        for value in values:
            _check_cell(ctx, value, sep, where)
    if DOCSTART in sentence.tokens:
        raise ctx.error(f"{where}: the token {DOCSTART} would read back as a document boundary")
    if label_cell is not None:
        columns.append([label_cell(a) for a in sentence.annotations])
    return "\n".join(sep.join(row) for row in zip(*columns)) + "\n\n"


def _needs_docstart(corpus: Corpus, index: int, ctx: WriteContext) -> bool:
    """Whether a ``-DOCSTART-`` line is needed to read the corpus back alike.

    Column files cannot store document names. Boundaries between documents
    need the line, and so does a lone document named like a ``-DOCSTART-``
    section (``"eng.train:1"``); a lone document of any other name is
    written plainly, as nothing would be gained.
    """
    if len(corpus.documents) == 1 and not _SECTION_NAME.fullmatch(corpus.documents[0].name):
        return False
    return ctx.needs_marker(corpus, index)


def _column(sentence: Sentence, name: str) -> Sequence[str]:
    # A column file is rectangular: a sentence lacking a column gets "_".
    values = sentence.columns.get(name)
    return values if values is not None else ("_",) * len(sentence)


def _check_cell(ctx: WriteContext, value: str, sep: str, where: str) -> None:
    if not value or _SEPARATOR.search(value) or sep in value:
        raise ctx.error(f"{where}: cell {value!r} is empty or holds a column separator")


class _LabelCells:
    """Label cell of each annotation, cached: a corpus has few distinct ones."""

    def __init__(self, corpus: Corpus):
        self._labels = corpus.labels
        self._cache: dict[frozenset[str], str] = {}

    def __call__(self, ann: frozenset[str]) -> str:
        text = self._cache.get(ann)
        if text is None:
            text = self._cache[ann] = format_annotation(ann, self._labels)
        return text
