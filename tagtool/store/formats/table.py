"""CSV and TSV tables through pandas: one token a row, with a header.

Columns
    ``sentence`` (sentence id; consecutive rows with the same id form a
    sentence, and an id may not come back after another one), ``token``,
    ``label`` (column-file spelling: ``A``, ``A|B``, ``_``; an empty cell
    or a missing ``label`` column means no label), an optional ``document``
    (document name; without it the file is one document named after it),
    and any other column, kept as ``Sentence.columns`` under its header.
    ``token_column``/``label_column`` may name other headers; the defaults
    (0 and -1) mean ``token`` and ``label``.

    Every cell is read as a string (``dtype=str, keep_default_na=False``), so
    tokens such as ``NA``, ``null`` or ``1e5`` stay what they are. Blank
    lines are skipped. Errors name the line of the row in the file
    (the header is line 1; a quoted cell spanning lines shifts the count).
    TSV is read and written without quoting (a ``"`` is an ordinary
    character; a tab or line break inside a cell cannot be written).

Writing
    ``[document,] sentence, token, label, extra columns``. Sentence ids are
    the ``sent_id`` of ``Sentence.meta`` when every sentence has a distinct
    one (CoNLL-U), else 1, 2, ...; ids and other meta are not read back.
"""

from __future__ import annotations

import csv
import logging
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import (
    Item,
    ReadContext,
    WriteContext,
    check_not_binary,
    decode_error,
    text_encoding,
)

if TYPE_CHECKING:
    import pandas as pd

logger = logging.getLogger(__name__)

SENTENCE, TOKEN, LABEL, DOCUMENT = "sentence", "token", "label", "document"
_HEADER_LINES = 1


def read_csv(ctx: ReadContext, **options) -> Iterator[Item]:
    """Items of a comma-separated table (see the module docstring)."""
    return _read(ctx, sep=",", **options)


def read_tsv(ctx: ReadContext, **options) -> Iterator[Item]:
    """Items of a tab-separated table (see the module docstring)."""
    return _read(ctx, sep="\t", **options)


def _read(
    ctx: ReadContext, *, sep: str, sentence_column: str = SENTENCE, document_column: str = DOCUMENT
) -> Iterator[Item]:
    frame = _load(ctx, sep)
    token, label = _header_names(ctx, frame)
    for name in (sentence_column, token):
        if name not in frame.columns:
            raise ctx.error(1, f"missing column {name!r} (header: {', '.join(map(str, frame.columns))})")
    frame = frame[~(frame == "").all(axis=1)]  # blank lines
    lines = (frame.index.to_numpy() + _HEADER_LINES + 1).tolist()
    reserved = {sentence_column, document_column, token, LABEL if label is None else label}
    extras = [(str(c), frame[c].tolist()) for c in frame.columns if c not in reserved]
    tokens = frame[token].tolist()
    labels = frame[label].tolist() if label is not None else None
    docs = frame[document_column].tolist() if document_column in frame.columns else None
    for a, b in _runs(frame, sentence_column, document_column, lines, ctx):
        document = docs[a] if docs is not None else ctx.document_name
        annotations = ctx.parse_cells(labels[a:b], lines[a], lines[a:b]) if labels is not None else ()
        sentence_tokens = tokens[a:b]
        ctx.check_tokens(sentence_tokens, lines[a], lines[a:b])
        if "" in sentence_tokens:
            raise ctx.error(lines[a + sentence_tokens.index("")], "empty token")
        columns = {name: values[a:b] for name, values in extras}
        yield document, Sentence(sentence_tokens, annotations, columns)


def _load(ctx: ReadContext, sep: str) -> pd.DataFrame:
    import pandas as pd  # deferred: pandas takes a while to import

    encoding = text_encoding(ctx.path, ctx.encoding)
    check_not_binary(ctx.path, ctx.encoding)
    quoting = csv.QUOTE_NONE if sep == "\t" else csv.QUOTE_MINIMAL
    try:
        with warnings.catch_warnings():
            # pandas only warns when the first rows are longer than the
            # header, and drops their extra cells: refuse the file instead.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                ctx.path,
                sep=sep,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=False,  # keeps row i on line i + 2, blank rows dropped later
                index_col=False,
                encoding=encoding,
                quoting=quoting,
                engine="c",
            )
    except pd.errors.EmptyDataError:
        raise ctx.error(1, "empty file: no header line") from None
    except pd.errors.ParserError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise ctx.error(int(found.group(1)) if found else None, f"malformed table: {exc}") from None
    except pd.errors.ParserWarning:
        line, n_fields, n_header = _long_row(ctx, sep, encoding, quoting)
        raise ctx.error(line, f"malformed table: {n_fields} fields where the header has {n_header}") from None
    except UnicodeError as exc:
        raise decode_error(ctx.path, ctx.encoding, exc) from None


def _long_row(ctx: ReadContext, sep: str, encoding: str, quoting: int) -> tuple[int | None, int, int]:
    """``(line, fields, header fields)`` of the first row longer than the header."""
    header: list[str] = []
    with open(ctx.path, encoding=encoding, newline="") as fh:
        rows = csv.reader(fh, delimiter=sep, quoting=quoting)
        try:
            header = next(rows, [])
            for row in rows:
                if len(row) > len(header):
                    return rows.line_num, len(row), len(header)
        except (csv.Error, UnicodeError):  # only the line number is lost
            pass
    return None, len(header) + 1, len(header)


def _header_names(ctx: ReadContext, frame: pd.DataFrame) -> tuple[str, str | None]:
    token = TOKEN if ctx.token_column == 0 else ctx.token_column
    label = None if ctx.label_column is None else (LABEL if ctx.label_column == -1 else ctx.label_column)
    for name in (token, label):
        if name is not None and not isinstance(name, str):
            raise ctx.error(1, f"tables choose columns by header name, got {name!r}")
    if label is not None and label not in frame.columns:
        if label != LABEL:
            raise ctx.error(1, f"missing label column {label!r}")
        label = None  # an unlabeled table
    return token, label  # type: ignore[return-value]


def _runs(frame: pd.DataFrame, sentence: str, document: str, lines: list[int], ctx: ReadContext):
    """``(start, stop)`` row ranges of the sentences, in order."""
    keys = frame[sentence].to_numpy(dtype=object)
    if not len(keys):
        return
    change = keys[1:] != keys[:-1]
    docs = frame[document].to_numpy(dtype=object) if document in frame.columns else None
    if docs is not None:
        change |= docs[1:] != docs[:-1]
    starts = [0, *(change.nonzero()[0] + 1).tolist()]
    seen: set[tuple] = set()
    for a, b in zip(starts, [*starts[1:], len(keys)]):
        key = (docs[a] if docs is not None else None, keys[a])
        if not keys[a] or (docs is not None and not docs[a]):
            raise ctx.error(lines[a], f"empty {sentence if not keys[a] else document} cell")
        if key in seen:
            raise ctx.error(lines[a], f"rows of sentence {keys[a]!r} are not contiguous")
        seen.add(key)
        yield a, b


def write_csv(corpus: Corpus, fh: TextIO, ctx: WriteContext) -> None:
    """Write a comma-separated table."""
    _write(corpus, fh, ctx, sep=",")


def write_tsv(corpus: Corpus, fh: TextIO, ctx: WriteContext) -> None:
    """Write a tab-separated table."""
    _write(corpus, fh, ctx, sep="\t")


def _write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, sep: str) -> None:
    import pandas as pd

    data = _columns(corpus, ctx)
    if sep == "\t":
        _check_tsv(data, ctx)
    pd.DataFrame(data).to_csv(
        fh,
        sep=sep,
        index=False,
        lineterminator="\n",
        quoting=csv.QUOTE_NONE if sep == "\t" else csv.QUOTE_MINIMAL,
    )


def _columns(corpus: Corpus, ctx: WriteContext) -> dict[str, list[str]]:
    names = corpus.column_names
    clash = set(names) & {SENTENCE, TOKEN, LABEL, DOCUMENT}
    if clash:
        raise ctx.error(f"extra column {sorted(clash)[0]!r} collides with a table column")
    data: dict[str, list[str]] = {DOCUMENT: [], SENTENCE: [], TOKEN: [], LABEL: []}
    data.update({name: [] for name in names})
    cells: dict[frozenset[str], str] = {}
    ids = iter(_sentence_ids(corpus))
    for document in corpus.documents:
        for s, sentence in enumerate(document.sentences):
            n = len(sentence)
            if "" in sentence.tokens:
                raise ctx.error(f"document {document.name!r}, sentence {s + 1}: empty token")
            data[DOCUMENT] += [document.name] * n
            data[SENTENCE] += [next(ids)] * n
            data[TOKEN] += sentence.tokens
            for ann in sentence.annotations:
                if ann not in cells:
                    cells[ann] = format_annotation(ann, corpus.labels)
                data[LABEL].append(cells[ann])
            for name in names:
                data[name] += sentence.columns.get(name, ("_",) * n)
    if not ctx.any_marker(corpus):
        del data[DOCUMENT]
    return data


def _sentence_ids(corpus: Corpus) -> list[str]:
    ids = [s.meta.get("sent_id", "") for s in corpus]
    if all(ids) and len(set(ids)) == len(ids):
        return ids
    return [str(i) for i in range(1, len(ids) + 1)]


def _check_tsv(data: dict[str, list[str]], ctx: WriteContext) -> None:
    for name, values in data.items():
        for row, value in enumerate(values):
            if "\t" in value or "\n" in value or "\r" in value:
                raise ctx.error(f"row {row + 1}, column {name!r}: {value!r} holds a tab or line break")
