"""Corpus import and export: CoNLL column files, CoNLL-U, plain text, JSONL,
CSV and TSV (docs/design.md#formats).

Three entry points::

    corpus = read_corpus("train.txt")                     # format sniffed
    corpus = read_corpus("esp.train", "conll", labels=schema)
    for sentence in iter_sentences("huge.conll"):         # flat memory
        ...
    write_corpus(corpus, "out.jsonl")                     # atomic

Every reader turns malformed input (ragged columns, undecodable bytes, an
empty or binary file, a label outside the schema, bad JSON, ...) into
:class:`~tagtool.errors.FormatError` naming the file and the 1-based line;
span records skip a span that cannot be placed and list it in
``Corpus.warnings`` instead (an error with ``strict=True``). :func:`read_corpus` builds the whole corpus before it
returns, so an error means nothing was imported; :func:`write_corpus`
replaces the target only once the new file is complete.

Memory stays bounded on hostile files: a line, sentence or token beyond a
limit, too many distinct labels or a CSV/TSV table too large to load whole
is a :class:`~tagtool.errors.FormatError` naming the file and line.  The
limits and their defaults (:class:`ReadLimits`):

==========================  ==========  =====================================
``max_line_chars``          16 Mi       characters in a line
``max_sentence_tokens``     100,000     tokens in a sentence
``max_token_chars``         4,096       characters in a token
``max_labels``              1,000       distinct labels (without a schema)
``max_table_bytes``         32 MiB      size of a CSV/TSV table
==========================  ==========  =====================================

Override them with keyword arguments of :func:`read_corpus` and
:func:`iter_sentences` (``max_sentence_tokens=10**6``) or
``limits=ReadLimits(...)``; :mod:`.limits` says why each default.

Each format's module documents its layout and options: :mod:`.conll`,
:mod:`.conllu`, :mod:`.text`, :mod:`.jsonl`, :mod:`.table`; format
detection is described in :mod:`.detect`.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.atomic import atomic_write
from tagtool.store.dbfile import held_by_this_process
from tagtool.store.format_catalog import CATALOG
from tagtool.store.formats import conll, conllu, jsonl, jsonl_out, labelstudio_out, table, text
from tagtool.store.formats._common import (
    Item,
    ReadContext,
    WriteContext,
    group_documents,
    normalise_full_sets,
)
from tagtool.store.formats.detect import EXTENSIONS, detect_format
from tagtool.store.formats.limits import ReadLimits, check_table_size

logger = logging.getLogger(__name__)

#: Reader options of span records (:mod:`.spans`); formats without span
#: records ignore them, so one set of options serves every input file.
SPAN_OPTIONS = ("tokenizer", "sentence_split", "strict", "annotator")
#: Reader options of raw text (:mod:`.text`); ignored by the other formats.
TEXT_OPTIONS = ("tokenizer", "sentence_split", "document_unit")
#: The reader options some formats take, and which formats take each.
SHARED_OPTIONS = {"jsonl": SPAN_OPTIONS, "text": TEXT_OPTIONS}

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "SHARED_OPTIONS",
    "SPAN_OPTIONS",
    "TEXT_OPTIONS",
    "Format",
    "ReadLimits",
    "detect_format",
    "iter_located",
    "iter_sentences",
    "read_corpus",
    "write_corpus",
]


@dataclass(frozen=True)
class Format:
    """A registered file format.

    Attributes
    ----------
    name : str
        Key in :data:`FORMATS`.
    read : callable
        ``read(ctx, **options)`` yielding ``(document name, Sentence)``.
    write : callable
        ``write(corpus, stream, ctx, **options)``.
    streaming : bool
        Whether ``read`` holds only one sentence at a time in memory.
    description : str
        One line for menus and ``--help``.
    """

    name: str
    read: Callable[..., Iterator[Item]]
    write: Callable[..., None]
    streaming: bool
    description: str


#: Each catalogued format's reader and writer (Label Studio tasks are read
#: back by the jsonl reader, which detects them).
_IO = {
    "conll": (conll.read, conll.write),
    "conllu": (conllu.read, conllu.write),
    "text": (text.read, text.write),
    "jsonl": (jsonl.read, jsonl_out.write),
    "csv": (table.read_csv, table.write_csv),
    "tsv": (table.read_tsv, table.write_tsv),
    "doccano": (jsonl.read, jsonl_out.write_spans),
    "labelstudio": (jsonl.read, labelstudio_out.write),
}


def _registered(readable: bool) -> dict[str, Format]:
    return {
        info.name: Format(info.name, *_IO[info.name], info.streaming, info.description)
        for info in CATALOG.values()
        if info.readable == readable
    }


#: The formats read and written, from :data:`tagtool.store.format_catalog.CATALOG`.
FORMATS: dict[str, Format] = _registered(readable=True)
#: Formats that are only written: their files read back as another format.
EXPORT_FORMATS: dict[str, Format] = _registered(readable=False)


def _format(name: str | None, path: Path, detect: Callable[[Path], str], writing: bool = False) -> Format:
    name = detect(path) if name is None else name.lower()
    known = {**FORMATS, **EXPORT_FORMATS} if writing else FORMATS
    try:
        return known[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose one of {', '.join(known)}") from None


def _items(
    path: str | PathLike,
    format: str | None,
    labels: LabelSet | None,
    token_column: int | str,
    label_column: int | str | None,
    encoding: str,
    column_names: Sequence[str] | None,
    options: dict,
) -> tuple[ReadContext, Iterator[Item]]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if held_by_this_process(path):
        # Reading it with open()/close() would drop this process's SQLite locks on it.
        raise FormatError(path, None, "is a tagtool project open in this program, not a corpus file")
    fmt = _format(format, path, detect_format)
    taken = SHARED_OPTIONS.get(fmt.name, ())
    options = {k: v for k, v in options.items() if k in taken or k not in (*SPAN_OPTIONS, *TEXT_OPTIONS)}
    limits = ReadLimits.from_options(options)
    ctx = ReadContext(path, labels, token_column, label_column, encoding, column_names, format is None, limits)
    if not fmt.streaming:
        check_table_size(path, path.stat().st_size, limits)
    return ctx, _checked(fmt.read(ctx, **options), ctx)


def _checked(items: Iterator[Item], ctx: ReadContext) -> Iterator[Item]:
    """Pass items through, each within ``ctx.limits``; an input without any sentence is an error."""
    empty = True
    for item in items:
        empty = False
        # Readers check each sentence themselves, naming its lines; this
        # catches any that did not, at the line read last.
        if ctx.located is None:
            ctx.check_tokens(item[1].tokens, ctx.line)
        yield item
        ctx.located = None
    if empty:
        raise ctx.error(1, "empty file: no sentences")


def iter_sentences(
    path: str | PathLike,
    format: str | None = None,
    *,
    labels: LabelSet | None = None,
    token_column: int | str = 0,
    label_column: int | str | None = -1,
    encoding: str = "utf-8",
    column_names: Sequence[str] | None = None,
    **options,
) -> Iterator[Sentence]:
    """Stream the sentences of a corpus file.

    Takes the arguments of :func:`read_corpus`. For the streaming formats
    (conll, conllu, text, jsonl Lines; see :data:`FORMATS`) memory stays flat
    however large the file; a CSV/TSV table or a JSON array is loaded first.
    Malformed input raises :class:`FormatError` when the stream reaches it,
    so sentences before the error have already been yielded.

    Returns
    -------
    iterator of Sentence
    """
    _, items = _items(path, format, labels, token_column, label_column, encoding, column_names, options)
    return (sentence for _, sentence in items)


def iter_located(
    path: str | PathLike,
    format: str | None = None,
    *,
    labels: LabelSet | None = None,
    token_column: int | str = 0,
    label_column: int | str | None = -1,
    encoding: str = "utf-8",
    column_names: Sequence[str] | None = None,
    **options,
) -> Iterator[tuple[str, Sentence, tuple[int, ...]]]:
    """Stream ``(document name, sentence, each token's line)`` from a corpus file.

    Takes the arguments of :func:`read_corpus`, streams as
    :func:`iter_sentences` does, and says where each token is in the file
    (1-based lines; every token of a JSON record, or of a plain-text line,
    is on the record's or the line's first line), so that a sentence found
    wrong after reading (tokens that differ from a project's) is reported
    at its line.
    """
    ctx, items = _items(path, format, labels, token_column, label_column, encoding, column_names, options)
    for document, sentence in items:
        line, lines = ctx.located if ctx.located is not None else (ctx.line, None)
        yield document, sentence, tuple(lines) if lines is not None else (line,) * len(sentence)


def read_corpus(
    path: str | PathLike,
    format: str | None = None,
    *,
    labels: LabelSet | None = None,
    token_column: int | str = 0,
    label_column: int | str | None = -1,
    encoding: str = "utf-8",
    column_names: Sequence[str] | None = None,
    keep_full_sets: bool = False,
    **options,
) -> Corpus:
    """Read a whole corpus file.

    Parameters
    ----------
    path : str or PathLike
    format : {"conll", "conllu", "text", "jsonl", "csv", "tsv"} or None
        None detects it (:func:`detect_format`).
    labels : LabelSet, optional
        The label schema. A label outside it is a :class:`FormatError`
        naming its line. Without it the label set is the labels observed
        (``LabelSet.from_observed``), or ``LabelSet.empty()`` when the file
        holds none.
    token_column, label_column : int or str or None
        Column files: 0-based indices (negative from the end). Tables:
        header names (the defaults mean ``token`` and ``label``). Ignored by
        the other formats, except that ``label_column=None`` reads no labels
        from any format.
    encoding : str
        Text encoding (a UTF-8 byte-order mark is skipped).
    column_names : sequence of str, optional
        Column files: one name per file column for ``Sentence.columns``
        (default ``col{i}``).
    keep_full_sets : bool
        Without ``labels``: leave a candidate set that names every label
        observed as it is (default: it becomes no label). For a caller that
        normalises against a larger label set of its own: an import into a
        project whose labels (or the completed scheme, ``I-X`` beside
        ``B-X``) hold more than the file uses, where ``O|B-PER`` still
        excludes ``I-PER``.
    **options
        Format options, e.g. ``sep`` (conll), ``label_field`` (conllu),
        ``tagged`` (text), ``sentence_column`` (tables),
        :data:`SPAN_OPTIONS` (jsonl span records) and :data:`TEXT_OPTIONS`
        (raw text: tokenizer, sentence_split, document_unit), each ignored
        by the formats that do not take it; and
        the read limits ``max_line_chars``, ``max_sentence_tokens``,
        ``max_token_chars``, ``max_labels``, ``max_table_bytes`` or a whole
        ``limits=ReadLimits(...)`` (see the package docstring).

    Returns
    -------
    Corpus
        Documents as the format delimits them; ``Corpus.warnings`` lists
        what was skipped (span records: spans that cannot be placed).

    Raises
    ------
    FormatError
        Malformed input; nothing is returned.
    FileNotFoundError
        ``path`` is not a file.
    """
    started = time.perf_counter()
    ctx, items = _items(path, format, labels, token_column, label_column, encoding, column_names, options)
    documents = group_documents(items)
    label_set = ctx.label_set()
    if labels is None and not keep_full_sets:
        documents = normalise_full_sets(documents, label_set)
    corpus = Corpus(label_set, documents, tuple(ctx.warnings))
    logger.info(
        "read %s: %d sentences, %d documents, %d labels in %.2f s",
        ctx.path,
        len(corpus),
        len(documents),
        len(label_set),
        time.perf_counter() - started,
    )
    return corpus


def _format_for_writing(path: Path, corpus: Corpus) -> str:
    known = EXTENSIONS.get(path.suffix.lower())
    if known is not None:
        return known
    # .txt and the like: a column file if there is anything to put in columns.
    labeled = any(a for s in corpus for a in s.annotations) or bool(corpus.column_names)
    return "conll" if labeled else "text"


def write_corpus(
    corpus: Corpus,
    path: str | PathLike,
    format: str | None = None,
    *,
    encoding: str = "utf-8",
    **options,
) -> None:
    """Write ``corpus`` to ``path`` atomically.

    The data goes to a temporary file in the same folder, which replaces
    ``path`` (``os.replace``) only when complete: a failed write leaves the
    old file as it was.

    Parameters
    ----------
    corpus : Corpus
    path : str or PathLike
        ``-`` writes to standard output.
    format : str or None
        None picks it from the extension; other extensions (``.txt``) get
        conll when the corpus has labels or extra columns, else text.
        Besides :data:`FORMATS`, ``"doccano"`` (jsonl span records) and ``"labelstudio"``
        (:data:`EXPORT_FORMATS`).
    encoding : str
    **options
        Format options, e.g. ``sep`` and ``docstart`` (conll),
        ``label_field`` (conllu), ``tagged`` (text), ``spans`` (jsonl).

    Raises
    ------
    FormatError
        The corpus cannot be written in this format (a token with a space
        in a column file, a candidate set as spans, …).
    """
    path = Path(path)
    fmt = _format(format, path, lambda p: _format_for_writing(p, corpus), writing=True)
    if str(path) == "-":  # standard output, as every command's -o - means
        fmt.write(corpus, sys.stdout, WriteContext(path), **options)
        sys.stdout.flush()
        return
    with atomic_write(path, encoding) as fh:
        fmt.write(corpus, fh, WriteContext(path), **options)
    logger.info("wrote %s (%s): %d sentences", path, fmt.name, len(corpus))
