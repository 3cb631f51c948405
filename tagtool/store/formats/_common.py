"""Plumbing shared by every format: decoding with line numbers, binary-file
detection, label cells checked against a schema and document markers (atomic
writes: :mod:`tagtool.store.atomic`).

Readers see a :class:`ReadContext`, writers a :class:`WriteContext`; both
carry the path so that every error names the file.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tagtool.core.annotation import EMPTY, make_annotation, parse_annotation
from tagtool.core.corpus import Corpus, Document, ReadWarning, Sentence
from tagtool.core.labels import LabelSet, check_label_name
from tagtool.errors import FormatError, LabelError
from tagtool.store.formats.limits import DEFAULT_LIMITS, ReadLimits, check_tokens, line_too_long

logger = logging.getLogger(__name__)

#: What a reader yields: the name of the document a sentence belongs to, and
#: the sentence. Consecutive items with the same name form one Document.
Item = tuple[str, Sentence]

#: Bytes read to detect binary files and to sniff formats.
HEAD_BYTES = 64 * 1024


# ---------------------------------------------------------------------------
# decoding


def text_encoding(path: Path, encoding: str) -> str:
    """Validate ``encoding``; read UTF-8 as ``utf-8-sig``.

    ``utf-8-sig`` decodes BOM-less UTF-8 identically and drops the byte-order
    mark some Windows editors write, which would otherwise stick to the first
    token.
    """
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise FormatError(path, None, f"unknown encoding {encoding!r}") from None
    return "utf-8-sig" if name == "utf-8" else encoding


def _nul_is_text(encoding: str) -> bool:
    # UTF-16/32 text is full of NUL bytes; for them NUL says nothing.
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def check_not_binary(path: Path, encoding: str) -> None:
    """Raise :class:`FormatError` when the head of the file holds a NUL byte."""
    if _nul_is_text(encoding):
        return
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    at = head.find(b"\x00")
    if at >= 0:
        raise FormatError(path, head.count(b"\n", 0, at) + 1, "binary file (NUL byte), not a text corpus")


def locate_undecodable_line(path: Path, encoding: str) -> int | None:
    """1-based line of the first byte sequence ``encoding`` cannot decode.

    Text-mode reading decodes in chunks and cannot say where it failed, so on
    failure the file is scanned again line by line; this costs nothing on
    files that decode.
    """
    decoder = codecs.getincrementaldecoder(encoding)()
    lineno = 0
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                decoder.decode(raw)
            except UnicodeError:
                return lineno
    try:
        decoder.decode(b"", final=True)
    except UnicodeError:
        return max(lineno, 1)
    return None


def decode_error(path: Path, encoding: str, exc: UnicodeError) -> FormatError:
    """The :class:`FormatError` to raise for ``exc``, with its line.

    Besides :class:`UnicodeDecodeError`, codecs raise a bare
    :class:`UnicodeError` for a whole stream they cannot start on (UTF-16
    without a byte-order mark).
    """
    if isinstance(exc, UnicodeDecodeError):
        what = f"bytes {exc.object[exc.start : exc.start + 4]!r}"
        reason = exc.reason
    else:
        what, reason = "the file", str(exc)
    return FormatError(
        path,
        locate_undecodable_line(path, encoding),
        f"cannot decode {what} as {encoding} ({reason}); choose the file's encoding (e.g. latin-1)",
    )


def iter_lines(
    path: Path,
    encoding: str,
    max_line_chars: int | None = None,
    where: ReadContext | None = None,
    newline: str | None = None,
) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line)`` pairs of a text file, lines with their newline.

    Universal newlines (``\\r\\n`` reads as ``\\n``; with ``newline=""`` a
    line ends where it would but keeps its ``\\r\\n`` or ``\\r``, for a
    reader that writes the file back as it was). Raises
    :class:`FormatError` for binary files, undecodable bytes and a line of
    more than ``max_line_chars`` characters (newline excluded), which is
    refused after reading one character more than the limit, never whole.
    ``where.line`` follows the line read last.
    """
    opened = text_encoding(path, encoding)
    check_not_binary(path, encoding)
    nul_is_text = _nul_is_text(encoding)
    # One character past the limit (two when a kept \r\n may end the line) tells a line too long.
    size = -1 if max_line_chars is None else max_line_chars + (2 if newline == "" else 1)
    with open(path, encoding=opened, newline=newline) as fh:
        try:
            for lineno, line in enumerate(iter(lambda: fh.readline(size), ""), 1):
                if size > 0 and len(line.rstrip("\r\n")) > max_line_chars:
                    raise line_too_long(path, lineno, max_line_chars)
                if not nul_is_text and "\x00" in line:
                    raise FormatError(path, lineno, "binary data (NUL byte) in a text file")
                if where is not None:
                    where.line = lineno
                yield lineno, line
        except UnicodeError as exc:
            raise decode_error(path, encoding, exc) from None


# ---------------------------------------------------------------------------
# reading


@dataclass
class ReadContext:
    """What a reader needs besides its own options.

    Parses label cells once per distinct spelling (a corpus has few), checks
    them against ``labels`` when a schema is given and otherwise records the
    labels observed, so the caller can build the label set afterwards.

    Parameters
    ----------
    path : Path
        The file being read.
    labels : LabelSet or None
        The schema labels must come from; None to accept any valid name.
    token_column, label_column : int or str or None
        Column choices; their meaning depends on the format.
    encoding : str
        Text encoding of the file.
    column_names : sequence of str or None
        Names for the columns of a column file.
    detected : bool
        The format was sniffed, not chosen: errors may suggest another.
    limits : ReadLimits
        Longest line, sentence and token, most labels, largest table
        (:mod:`~tagtool.store.formats.limits`).
    """

    path: Path
    labels: LabelSet | None = None
    token_column: int | str = 0
    label_column: int | str | None = -1
    encoding: str = "utf-8"
    column_names: Sequence[str] | None = None
    detected: bool = False
    limits: ReadLimits = DEFAULT_LIMITS
    line: int = field(default=1, repr=False)  # the line read last (iter_lines)
    #: ``(first line, each token's line or None)`` of the sentence checked last (:meth:`check_tokens`).
    located: tuple[int, Sequence[int] | None] | None = field(default=None, repr=False)
    observed: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    _cells: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _names: dict[str, None] = field(default_factory=dict, repr=False)

    @property
    def document_name(self) -> str:
        """Name of a document that has no name of its own in the file."""
        return self.path.name

    @property
    def read_labels(self) -> bool:
        return self.label_column is not None

    def error(self, line: int | None, message: str) -> FormatError:
        return FormatError(self.path, line, message)

    def warn(self, line: int | None, message: str, kind: str = "note") -> None:
        """Record something skipped or changed; it reaches ``Corpus.warnings`` (a :class:`ReadWarning` of ``kind``)."""
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        self.warnings.append(ReadWarning(f"{where}: {message}", kind))
        logger.info("%s: %s", where, message)

    def lines(self, newline: str | None = None) -> Iterator[tuple[int, str]]:
        """The file's numbered lines (:func:`iter_lines`; ``newline=""`` keeps their ``\\r``)."""
        return iter_lines(self.path, self.encoding, self.limits.max_line_chars, self, newline)

    def starts_with_bom(self) -> bool:
        """The file is UTF-8 that starts with a byte-order mark (which reading drops)."""
        if text_encoding(self.path, self.encoding) != "utf-8-sig":
            return False
        with open(self.path, "rb") as fh:
            return fh.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8

    def check_tokens(self, tokens: Sequence[str], line: int, lines: Sequence[int] | None = None) -> None:
        """:class:`FormatError` for a sentence of too many tokens or a token too long (``self.limits``).

        Readers call it on every sentence before they yield it, with its
        line and, where they know them, each token's line: :attr:`located`
        keeps them, for errors about the sentence found after reading
        (:func:`tagtool.store.formats.iter_located`).
        """
        check_tokens(self.path, tokens, line, self.limits, lines)
        self.located = (line, lines)

    def parse_cells(
        self, cells: Sequence[str], first_line: int, lines: Sequence[int] | None = None
    ) -> list[frozenset[str]]:
        """Annotations of label cells (``A``, ``A|B``, ``_``).

        A cell's line is ``lines[i]`` when given, else ``first_line + i``.
        """
        cache = self._cells
        try:
            return [cache[c] for c in cells]
        except KeyError:
            pass
        out = []
        for i, cell in enumerate(cells):
            ann = cache.get(cell)
            if ann is None:
                line = lines[i] if lines is not None else first_line + i
                ann = self._parse_cell(cell, line)
            out.append(ann)
        return out

    def parse_cell(self, cell: str, line: int) -> frozenset[str]:
        """Annotation of one label cell."""
        ann = self._cells.get(cell)
        return ann if ann is not None else self._parse_cell(cell, line)

    def parse_names(self, names: Iterable[str], line: int) -> frozenset[str]:
        """Annotation from a collection of label names (a JSON list)."""
        names = list(names)
        for name in names:
            self._check_name(name, line)
        try:
            return make_annotation(names, self.labels)
        except LabelError as exc:
            raise self.error(line, str(exc)) from None

    def _parse_cell(self, cell: str, line: int) -> frozenset[str]:
        try:
            ann = parse_annotation(cell, self.labels)
        except LabelError as exc:
            raise self.error(line, f"label cell {cell!r}: {exc}") from None
        for name in ann:
            self._check_name(name, line)
        self._cells[cell] = ann
        return ann

    def _check_name(self, name: object, line: int) -> None:
        if name in self._names:
            return
        try:
            check_label_name(name)  # type: ignore[arg-type]
            if self.labels is not None:
                self.labels.index(name)  # type: ignore[arg-type]
        except LabelError as exc:
            raise self.error(line, str(exc)) from None
        if self.labels is None and len(self.observed) >= self.limits.max_labels:
            raise self.error(
                line,
                f"label {name!r} is one more than the {self.limits.max_labels:,} distinct labels a file "
                "may hold (max_labels); is the label column the right one?",
            )
        self._names[name] = None  # type: ignore[index]
        self.observed.add(name)  # type: ignore[arg-type]

    def label_set(self) -> LabelSet:
        """The schema given, else the labels observed (empty if there are none)."""
        if self.labels is not None:
            return self.labels
        if not self.observed:
            # Unlabeled text: the importer adds a schema, or merges into one.
            return LabelSet.empty()
        return LabelSet.from_observed(self.observed)


def json_kind(value: object) -> str:
    """What a JSON value is, for messages: "an object", "a list", "a string", "null", ..."""
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(value), "a number"
    )


def group_documents(items: Iterable[Item]) -> list[Document]:
    """Collect consecutive sentences of the same document name."""
    documents: list[Document] = []
    name: str | None = None
    sentences: list[Sentence] = []
    for doc_name, sentence in items:
        if doc_name != name and sentences:
            documents.append(Document(name, tuple(sentences)))  # type: ignore[arg-type]
            sentences = []
        name = doc_name
        sentences.append(sentence)
    if sentences:
        documents.append(Document(name, tuple(sentences)))  # type: ignore[arg-type]
    return documents


def normalise_full_sets(documents: list[Document], labels: LabelSet) -> list[Document]:
    """Collapse candidate sets that name every label to "no label".

    Needed only when the label set is built from the labels observed: a cell
    ``A|B`` in a file whose only labels are A and B allows everything.
    A one-label schema is left alone so that its labels stay full labels.
    Each annotator's own labels are collapsed by the same rule; everything
    else of a sentence (its annotators, meta, columns) is kept as it is.
    """
    n = len(labels)
    if n < 2:
        return documents

    def collapsed(anns: tuple[frozenset[str], ...]) -> tuple[frozenset[str], ...]:
        return tuple(EMPTY if len(a) == n else a for a in anns)

    def fix(sentence: Sentence) -> Sentence:
        answers = sentence.annotator_labels
        if all(len(a) < n for a in sentence.annotations) and all(len(a) < n for anns in answers.values() for a in anns):
            return sentence
        # replace() keeps every other field: a rebuilt Sentence must not lose its annotators.
        return replace(
            sentence,
            annotations=collapsed(sentence.annotations),
            annotator_labels={name: collapsed(anns) for name, anns in answers.items()},
        )

    return [Document(d.name, tuple(fix(s) for s in d.sentences)) for d in documents]


# ---------------------------------------------------------------------------
# writing


@dataclass
class WriteContext:
    """What a writer needs besides its own options."""

    path: Path

    @property
    def document_name(self) -> str:
        return self.path.name

    def error(self, message: str) -> FormatError:
        return FormatError(self.path, None, message)

    def needs_marker(self, corpus: Corpus, index: int) -> bool:
        """Whether document ``index`` must be marked in the output.

        Readers name an unmarked document after its file, so only the first
        document, carrying the output file's name, can go unmarked and still
        read back identically.
        """
        return index > 0 or corpus.documents[0].name != self.document_name

    def any_marker(self, corpus: Corpus) -> bool:
        return bool(corpus.documents) and self.needs_marker(corpus, len(corpus.documents) - 1)


def check_cell(ctx: WriteContext, value: str, what: str, where: str) -> str:
    """Return ``value`` if it is non-empty and holds no whitespace, else raise.

    For formats where whitespace separates cells, so that the value reads
    back as one cell.
    """
    if value.split() != [value]:
        raise ctx.error(f"{where}: {what} {value!r} is empty or holds whitespace that separates cells")
    return value
