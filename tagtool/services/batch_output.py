"""What :func:`tagtool.services.batch.tag_file` writes: by default the input's own format.

- CoNLL-U in, CoNLL-U out: every line of the input (comments, IDs,
  multiword tokens, empty nodes, the other fields) comes back as it was,
  with the prediction in the label field (``upos`` unless chosen).
- JSONL span records in (doccano, Label Studio), span records out: the
  record's text and its spans as ``[start, end, label]`` character offsets
  into that text (the predictions must be BIO labels); JSONL token records
  in, token records out.
- A column file in, the same column layout out: every input column in its
  place, separated as the input's first line is (a tab, else one space),
  and the prediction appended as a new last column — or written into
  column ``label_column`` instead, when one is given (e.g. to replace a
  gold column with the prediction).
- Plain text in, ``token/LABEL`` text out, or with ``--format jsonl`` span
  records of its documents (each document's text as written, the
  predictions as character offsets into it); CSV/TSV in, a column file out.

The choice is made once per run (:func:`output_plan`) and travels with
every batch as plain data, so worker processes and Dask workers write the
same bytes as one process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from itertools import accumulate, chain
from pathlib import Path
from typing import TextIO

from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.errors import TagtoolError
from tagtool.store import format_catalog
from tagtool.store.formats._common import WriteContext, check_cell

#: Output formats of a tagged file (the catalog's ``tagged_output``).
TAG_FORMATS = format_catalog.TAG_FORMATS
#: The format each input format is written back as when none is asked for (others: conll).
OWN_FORMAT = {name: name for name in TAG_FORMATS}
#: Write options of a column file in the input's layout (see :func:`write_columns`).
LAYOUT = "layout"

Options = tuple[tuple[str, object], ...]
#: Options of a job that names none (a caller building its own BatchJob).
_DEFAULT_OPTIONS: dict[str, Options] = {"conll": (("docstart", False),), "text": (("tagged", True),)}


def output_format_for(input_format: str, requested: str | None = None) -> str:
    """The output format: ``requested``, else the input's own if taggable, else conll."""
    if requested is not None:
        if requested not in TAG_FORMATS:
            raise TagtoolError(f"cannot write tagged {requested!r}; choose one of {', '.join(TAG_FORMATS)}")
        return requested
    return OWN_FORMAT.get(input_format, "conll")


def output_plan(
    in_format: str,
    out_format: str,
    path: Path,
    encoding: str,
    *,
    token_column: int = 0,
    label_column: int | None = None,
    label_field: str | None = None,
) -> Options:
    """Write options of a run, as a picklable tuple of ``(name, value)`` pairs.

    Parameters
    ----------
    in_format, out_format : str
        Of the input (detected or given) and of the output.
    path : Path
        The input, peeked at for its column separator or record kind.
    encoding : str
    token_column : int
        The input's token column (column files).
    label_column : int, optional
        Column files: write the prediction into this column instead of
        appending one.
    label_field : str, optional
        CoNLL-U output: the field that receives the prediction (``upos``).
    """
    if out_format == "conllu":
        return (("label_field", label_field or "upos"),)
    if out_format == "jsonl":
        # raw text keeps its documents' text as span records do
        spans = in_format == "text" or (in_format == "jsonl" and _span_records(path, encoding))
        # a tagger may predict I-X after O: written as a chunk start, as conlleval reads it
        return (("spans", spans), ("stray_inside", True)) if spans else (("spans", False),)
    if out_format == "text":
        return (("tagged", True),)
    if in_format == "conll":
        return ((LAYOUT, (token_column, label_column, _separator(path, encoding))),)
    return (("docstart", False),)


def writer(out_format: str, options: Options) -> Callable[..., None]:
    """``write(corpus, fh, ctx)`` of ``out_format`` with ``options`` applied."""
    from tagtool.store.formats import FORMATS

    kwargs = dict(options or _DEFAULT_OPTIONS.get(out_format, ()))
    if LAYOUT in kwargs:
        token_column, label_column, sep = kwargs[LAYOUT]
        return lambda corpus, fh, ctx: write_columns(
            corpus, fh, ctx, token_column=token_column, label_column=label_column, sep=sep
        )
    write = FORMATS[out_format].write
    return lambda corpus, fh, ctx: write(corpus, fh, ctx, **kwargs)


def write_columns(
    corpus: Corpus, fh: TextIO, ctx: WriteContext, *, token_column: int, label_column: int | None, sep: str
) -> None:
    """Write tagged sentences read from a column file in that file's layout.

    The sentences hold the file's other columns as ``col{i}`` (``i`` their
    index in the file, as :mod:`tagtool.store.formats.conll` names them
    when no label column is read); the token goes back to ``token_column``
    and the prediction to ``label_column`` (replacing it) or after the last
    column.
    """
    spelled = _Spellings(corpus.labels)
    for document in corpus.documents:
        for s, sentence in enumerate(document.sentences):
            where = f"document {document.name!r}, sentence {s + 1}"
            n = len(sentence.columns) + 1
            cells: list[list[str]] = [[] for _ in range(n)]
            cells[token_column % n] = list(sentence.tokens)
            for name, values in sentence.columns.items():
                cells[int(name.removeprefix("col"))] = list(values)
            labels = list(map(spelled.__getitem__, sentence.annotations))
            if label_column is None:
                cells.append(labels)
            elif -n <= label_column < n:
                cells[label_column % n] = labels
            else:
                raise ctx.error(f"{where}: label column {label_column} does not exist: the input has {n} columns")
            for column in cells:
                _check_cells(ctx, column, where)
            fh.write("\n".join(sep.join(row) for row in zip(*cells)) + "\n\n")


def column_layout(out_format: str, options: Options) -> tuple[int, int | None, str] | None:
    """``(token_column, label_column, sep)`` of a run that writes a column file in the input's layout, else None."""
    return dict(options).get(LAYOUT) if out_format == "conll" else None


def columns_text(
    sentences: Sequence[Sentence], labels: list[str], token_column: int, label_column: int | None, sep: str
) -> str | None:
    """What :func:`write_columns` writes for ``sentences`` with the spelled ``labels`` of all their tokens.

    Built column by column over the whole batch (one join per row, no
    tagged copy of a sentence), the same bytes as :func:`write_columns`.
    None when that writer must be the one to run: sentences with
    different columns, a label column that does not exist, or a cell it
    refuses (it then says which).
    """
    names = tuple(sentences[0].columns)
    n = len(names) + 1
    if any(tuple(s.columns) != names for s in sentences) or not (label_column is None or -n <= label_column < n):
        return None
    cells: list[list[str]] = [[] for _ in range(n)]
    cells[token_column % n] = list(chain.from_iterable(s.tokens for s in sentences))
    for name in names:
        cells[int(name.removeprefix("col"))] = list(chain.from_iterable(s.columns[name] for s in sentences))
    if label_column is None:
        cells.append(labels)
    else:
        cells[label_column % n] = labels
    if not all(map(_whole_cells, cells)):
        return None
    # Row after row, cell after cell: one list of cells, separators and line ends, joined once.
    width, n_tokens = 2 * len(cells), len(cells[0])
    pieces = [sep] * (width * n_tokens)
    for k, column in enumerate(cells):
        pieces[2 * k :: width] = column
    pieces[width - 1 :: width] = ["\n"] * n_tokens
    for end in accumulate(map(len, sentences)):
        pieces[width * end - 1] = "\n\n"  # a blank line after each sentence
    return "".join(pieces)


def _whole_cells(column: list[str]) -> bool:
    """Whether every value passes :func:`check_cell` (non-empty, no whitespace), at C speed.

    The values hold no whitespace exactly when their concatenation holds none.
    """
    joined = "".join(column)
    return all(column) and joined.split() == [joined]


class _Spellings(dict):
    """``format_annotation`` of each annotation, computed once per distinct one (a tagging has few)."""

    def __init__(self, labels):
        super().__init__()
        self.labels = labels

    def __missing__(self, annotation: frozenset) -> str:
        self[annotation] = text = format_annotation(annotation, self.labels)
        return text


def _check_cells(ctx: WriteContext, column: list[str], where: str) -> None:
    """:func:`check_cell` of every value, at C speed when all are fine (the usual case).

    Joined by spaces and split again, the values come back unchanged exactly
    when every one is non-empty and free of whitespace.
    """
    if " ".join(column).split() != column:
        for value in column:
            check_cell(ctx, value, "cell", where)


def _separator(path: Path, encoding: str) -> str:
    """A tab if the first token line of a column file is tab-separated, else a space.

    Decided from the file's head (:func:`_head`): a first line longer than
    that is refused by the reader anyway.
    """
    from tagtool.store.formats.conll import DOCSTART

    for line in _head(path, encoding).split("\n"):
        stripped = line.strip()
        if stripped and not stripped.lstrip("\ufeff").startswith(DOCSTART):
            return "\t" if "\t" in stripped else " "
    return " "


def _span_records(path: Path, encoding: str) -> bool:
    """Whether a JSON(L) input holds span records (text + spans) rather than token records.

    Decided by its first record, the first object in the file's head
    (:func:`_head`): a record that does not end there is judged by the keys
    it shows there (no ``tokens`` key: span records), so that a 100 MB
    first line is never parsed whole here. Malformed JSON is left for the
    reader to report.
    """
    from tagtool.store.formats._common import HEAD_BYTES

    head = _head(path, encoding)
    start = head.find("{")
    if start < 0:
        return False
    try:
        first = json.JSONDecoder().raw_decode(head, start)[0]
    except ValueError:
        cut = len(head) >= HEAD_BYTES
        return cut and "tokens" not in _first_keys(head, start)
    return "tokens" not in first


def _head(path: Path, encoding: str) -> str:
    """The first ``HEAD_BYTES`` characters of ``path``, newlines as ``\\n``.

    Decoded leniently (the reader reports bad bytes, with their line); an
    unknown encoding or a binary file raise :class:`FormatError` as the
    reader would.
    """
    from tagtool.store.formats._common import HEAD_BYTES, check_not_binary, text_encoding

    opened = text_encoding(path, encoding)
    check_not_binary(path, encoding)
    try:
        with open(path, encoding=opened, errors="replace", newline=None) as fh:
            return fh.read(HEAD_BYTES)
    except UnicodeError:  # a stream the codec cannot start on: the reader says so
        return ""


# The string pattern unrolled ("a*(?:\\.a*)*"): an alternation repeated per
# character would keep a backtracking entry per character of a long value.
_JSON_STRING = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?', re.DOTALL)
_JSON_MARK = re.compile(r'[{}\[\]"]')


def _first_keys(text: str, start: int) -> set[str]:
    """The keys of the JSON object at ``text[start]`` seen before it or ``text`` ends.

    A scan of strings and brackets, not a parse: ``text`` may end inside
    the object, even inside a string (the scan stops there).
    """
    keys: set[str] = set()
    depth, pos = 0, start
    while (mark := _JSON_MARK.search(text, pos)) is not None:
        if mark.group() != '"':
            depth += 1 if mark.group() in "{[" else -1
            if depth == 0:
                break
            pos = mark.end()
            continue
        string = _JSON_STRING.match(text, mark.start())
        if string is None:  # the text ends inside this string
            break
        if depth == 1 and string.group(2):
            keys.add(json.loads(string.group(1)))
        pos = string.end()
    return keys
