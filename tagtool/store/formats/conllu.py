"""CoNLL-U (Universal Dependencies) through the ``conllu`` library.

Reading
    Token = FORM. The label comes from ``label_field``: a CoNLL-U field name
    (default ``"upos"``, since POS tagging is what CoNLL-U files annotate
    for every token) or ``"misc:KEY"`` for a ``KEY=VALUE`` entry of MISC
    (NER is often stored as ``NER=B-PER``; a token without the key has no
    label). Label cells follow the column-file spelling (``A``, ``A|B``,
    ``_``); in MISC, where ``|`` separates entries, only full labels can be
    stored. The other fields are kept verbatim as ``Sentence.columns``
    named after the field (``lemma``, ``upos``, ``xpos``, ``feats``,
    ``head``, ``deprel``, ``deps``, ``misc``; a MISC label is taken out of
    ``misc``); ID is implied by position. Comments are kept in
    ``Sentence.meta`` in order (``# key = value`` → ``meta[key] = value``,
    a comment without ``=`` → ``meta[text] = ""``).

    What a sentence of words cannot hold is kept verbatim under the
    reserved key ``meta["conllu:lines"]`` (present on every sentence read
    from CoNLL-U, ``""`` when there is nothing to keep), one line per
    file line: multiword-token ranges (``1-2``) and empty nodes (``8.1``),
    which are not tokens (their ID says where they go back), and the
    comment lines themselves when writing them from ``meta`` would not give
    the same bytes (``#text=x``, a repeated key, trailing spaces). A label
    field other than ``upos`` is recorded in ``meta["conllu:label_field"]``,
    so that an export puts the labels back where they came from, and a
    MISC label that was not the last entry of its cell is placed in
    ``meta["conllu:misc_at"]`` (``"token:entry"`` pairs, 0-based). A
    comment using one of these keys is an error.

    IDs must say a place: words 1, 2, …; multiword tokens of two or more
    words right before their first word, neither overlapping nor past the
    last word; empty nodes after the word they name, numbered 1, 2, …; no
    empty field (:mod:`.conllu_ids`). Anything else is a
    :class:`~tagtool.errors.FormatError` naming the file and the line.
    Line endings (CRLF, CR) and a UTF-8 byte-order mark are recorded
    (:mod:`.conllu_bytes`) and written back.

    ``# newdoc id = X`` (or a bare ``# newdoc``) starts a document named
    ``X`` (or ``"<file name>:<k>"``); sentences before the first one form a
    document named after the file.

Writing
    One line per token: ID = 1..n, FORM = token, the label field from the
    annotation, the other fields from the columns of the same name or
    ``_``; a token without a label keeps the label field's column when the
    sentence has one (a file imported without labels is not blanked).
    Comments come from ``meta`` (``# key = value``, ``# key`` for an empty
    value), or from the kept comment lines while ``meta`` still says what
    they say; kept ranges and empty nodes go back to their places. So a
    CoNLL-U file read and written again is byte for byte the same except
    for the label field's changed cells (and blank-line runs, which become
    one blank line; a MISC label new to its token goes last). The label field is
    ``label_field``, else the sentence's recorded one, else ``upos``. A
    document that needs a boundary gets ``# newdoc id = <name>`` on its
    first sentence; the first document of a CoNLL-U file that had none
    stays unmarked.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TextIO

from conllu.exceptions import ParseException
from conllu.parser import DEFAULT_FIELDS, parse_comment_line, parse_id_value

from tagtool.core.annotation import EMPTY, format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import Item, ReadContext, WriteContext
from tagtool.store.formats.conllu_bytes import BOM_KEY, NEWLINE_KEY, Endings, newline, write_bom
from tagtool.store.formats.conllu_ids import IdChecks, check_fields
from tagtool.store.formats.limits import sentence_too_long

logger = logging.getLogger(__name__)

FIELDS: tuple[str, ...] = tuple(DEFAULT_FIELDS)
#: Fields kept as columns (ID is positional, FORM is the token).
COLUMN_FIELDS = FIELDS[2:]
NEWDOC_KEYS = ("newdoc id", "newdoc")
#: Reserved meta keys: the file lines a sentence of words cannot hold, and
#: the label field when it is not ``upos`` (see the module docstring).
LINES_KEY = "conllu:lines"
LABEL_FIELD_KEY = "conllu:label_field"
#: ``"token:entry"`` pairs (0-based) of MISC labels that were not the last entry of their cell.
MISC_AT_KEY = "conllu:misc_at"
#: Line endings and byte-order mark: :mod:`tagtool.store.formats.conllu_bytes`.
RESERVED_KEYS = (LINES_KEY, LABEL_FIELD_KEY, MISC_AT_KEY, NEWLINE_KEY, BOM_KEY)
DEFAULT_LABEL_FIELD = "upos"
LABEL_FIELD_CHOICES = ("upos", "xpos", "deprel", "misc:KEY")

# Keep every comment: conllu drops comments without "=" unless told otherwise.
_KEEP_ALL_COMMENTS = {"__fallback__": lambda key, value: (key, value)}


@dataclass(frozen=True)
class LabelField:
    """Where labels live: a field, or a key of MISC (``"misc:NER"``)."""

    field: str
    misc_key: str | None = None

    @classmethod
    def parse(cls, spec: str) -> LabelField:
        name, _, key = spec.partition(":")
        name = name.lower()
        if name not in COLUMN_FIELDS or (key and name != "misc") or (name == "misc" and not key):
            raise ValueError(f"label_field must be one of {', '.join(COLUMN_FIELDS)} or 'misc:KEY', got {spec!r}")
        return cls(name, key or None)


@dataclass
class _Block:
    """One sentence being collected: comments, then token lines."""

    meta: dict[str, str] = field(default_factory=dict)
    rows: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    start: int = 0
    ids: IdChecks = field(default_factory=IdChecks)
    endings: Endings = field(default_factory=Endings)
    bom: bool = False

    def __bool__(self) -> bool:
        return bool(self.meta or self.rows or self.comments or self.extras)


def read(ctx: ReadContext, *, label_field: str = DEFAULT_LABEL_FIELD) -> Iterator[Item]:
    """Stream ``(document name, Sentence)`` items from a CoNLL-U file.

    Parameters
    ----------
    ctx : ReadContext
    label_field : str
        ``"upos"``, ``"xpos"``, ``"deprel"``, … or ``"misc:KEY"``.
    """
    where = LabelField.parse(label_field) if ctx.read_labels else None
    spec = label_field if where is not None and label_field != DEFAULT_LABEL_FIELD else None
    block = _Block(bom=ctx.starts_with_bom())
    document, n_docs = ctx.document_name, 0
    for lineno, raw in ctx.lines(newline=""):  # line endings kept: CRLF files are written back as CRLF
        line = raw.rstrip("\r\n")
        if line.strip():
            _add_line(block, line, lineno, ctx)
            block.endings.note(raw[len(line) :], lineno, ctx)
            continue
        if block:
            block.endings.note(raw[len(line) :], lineno, ctx)
            document, n_docs = _document(block, document, n_docs, ctx)
            yield document, _sentence(block, where, spec, ctx)
            block = _Block()
    if block:
        document, n_docs = _document(block, document, n_docs, ctx)
        yield document, _sentence(block, where, spec, ctx)


def _document(block: _Block, current: str, n_docs: int, ctx: ReadContext) -> tuple[str, int]:
    """Document of ``block``: a new one when it opens with a newdoc comment."""
    if not any(key in block.meta for key in NEWDOC_KEYS):
        return current, n_docs
    n_docs += 1
    return block.meta.get("newdoc id") or f"{ctx.document_name}:{n_docs}", n_docs


def _add_line(block: _Block, line: str, lineno: int, ctx: ReadContext) -> None:
    if not block:
        block.start = lineno
    if line.startswith("#"):
        if block.rows or block.extras:
            raise ctx.error(lineno, "comment line inside a sentence (comments go before the tokens)")
        for key, value in parse_comment_line(line, metadata_parsers=_KEEP_ALL_COMMENTS):
            if key in RESERVED_KEYS:
                raise ctx.error(lineno, f"comment key {key!r} is reserved by tagtool")
            block.meta[key] = value or ""
        block.comments.append(line)
        return
    fields = line.split("\t")
    if len(fields) != len(FIELDS):
        raise ctx.error(lineno, f"{len(fields)} tab-separated fields where CoNLL-U has {len(FIELDS)}")
    check_fields(fields, lineno, ctx)
    try:
        token_id = parse_id_value(fields[0])
    except ParseException as exc:
        raise ctx.error(lineno, f"bad ID: {exc}") from None
    if isinstance(token_id, tuple):
        # A multiword range repeats its words, an empty node is no token:
        # both are kept verbatim, to be written back in place.
        if token_id[1] == "-":
            block.ids.multiword(fields[0], token_id[0], token_id[2], lineno, ctx)
        else:
            block.ids.empty_node(fields[0], token_id[0], token_id[2], lineno, ctx)
        block.extras.append(line)
        return
    if len(block.rows) >= ctx.limits.max_sentence_tokens:  # before the rows fill memory
        raise sentence_too_long(ctx.path, block.start, ctx.limits.max_sentence_tokens)
    if token_id != len(block.rows) + 1:
        raise ctx.error(lineno, f"token ID {fields[0]} where {len(block.rows) + 1} was expected")
    block.ids.word()
    block.rows.append(fields)
    block.lines.append(lineno)


def _sentence(block: _Block, where: LabelField | None, spec: str | None, ctx: ReadContext) -> Sentence:
    if not block.rows:
        raise ctx.error(block.start, "sentence with comments but no tokens")
    block.ids.end(ctx)
    cols = dict(zip(FIELDS, zip(*block.rows)))
    ctx.check_tokens(cols["form"], block.start, block.lines)
    columns = {name: cols[name] for name in COLUMN_FIELDS}
    annotations: list[frozenset[str]] | tuple = ()
    misc_at = ""
    if where is not None and where.misc_key is None:
        annotations = ctx.parse_cells(columns.pop(where.field), block.lines[0], block.lines)
    elif where is not None:
        cells, columns["misc"], misc_at = _split_misc(columns["misc"], where.misc_key)  # type: ignore[arg-type]
        annotations = [ctx.parse_cell(c, line) if c is not None else EMPTY for c, line in zip(cells, block.lines)]
    kept = block.extras
    if _comment_lines(block.meta) != block.comments:
        kept = [*block.comments, *kept]
    meta = {**block.meta, LINES_KEY: "\n".join(kept)}
    if spec is not None:
        meta[LABEL_FIELD_KEY] = spec
    if misc_at:
        meta[MISC_AT_KEY] = misc_at
    block.endings.record(meta)
    if block.bom:
        meta[BOM_KEY] = "yes"
    return Sentence(cols["form"], annotations, columns, meta)


def _split_misc(values: tuple[str, ...], key: str) -> tuple[list[str | None], tuple[str, ...], str]:
    """Take ``key=…`` out of each MISC cell: (label cells, remaining MISC, where it was if not last)."""
    prefix = f"{key}="
    cells: list[str | None] = []
    rest: list[str] = []
    moved: list[str] = []
    for t, value in enumerate(values):
        entries = [] if value == "_" else value.split("|")
        at = next((i for i, e in enumerate(entries) if e.startswith(prefix)), None)
        kept = [e for e in entries if not e.startswith(prefix)]
        cells.append(None if at is None else entries[at][len(prefix) :])
        rest.append("|".join(kept) or "_")
        if at is not None and at < len(kept):
            moved.append(f"{t}:{at}")  # written back in place, not last
    return cells, tuple(rest), " ".join(moved)


def _comment_lines(meta: Mapping[str, object]) -> list[str]:
    """Comment lines written from ``meta`` (conllu's own spelling)."""
    return [f"# {key} = {value}" if value else f"# {key}" for key, value in meta.items()]


def _parsed_comments(lines: list[str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for line in lines:
        for key, value in parse_comment_line(line, metadata_parsers=_KEEP_ALL_COMMENTS):
            meta[key] = value or ""
    return meta


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, label_field: str | None = None) -> None:
    """Write ``corpus`` as CoNLL-U.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
    ctx : WriteContext
    label_field : str, optional
        Field that receives the labels (see :func:`read`); default the one
        each sentence was read from (``upos`` if none is recorded).
    """
    fixed = LabelField.parse(label_field) if label_field is not None else None
    write_bom(corpus, fh)
    for d, document in enumerate(corpus.documents):
        for s, sentence in enumerate(document.sentences):
            place = f"document {document.name!r}, sentence {s + 1}"
            where = fixed or _recorded_field(sentence, ctx, place)
            meta = {key: value for key, value in sentence.meta.items() if key not in RESERVED_KEYS}
            if s == 0 and ctx.needs_marker(corpus, d) and not _was_unmarked(sentence, d):
                meta = _with_newdoc(meta, document.name)
            kept = _kept_lines(sentence, ctx, place)
            comments = _comments(meta, [line for line in kept if line.startswith("#")], ctx, place)
            words = _word_lines(sentence, where, corpus, ctx, place)
            extras = [line for line in kept if not line.startswith("#")]
            nl = newline(sentence.meta)
            fh.write(nl.join([*comments, *_placed(words, extras, ctx, place)]) + nl * 2)


def _recorded_field(sentence: Sentence, ctx: WriteContext, place: str) -> LabelField:
    spec = sentence.meta.get(LABEL_FIELD_KEY, DEFAULT_LABEL_FIELD)
    try:
        return _parse_field(str(spec))
    except ValueError as exc:
        raise ctx.error(f"{place}: meta {LABEL_FIELD_KEY!r}: {exc}") from None


_parse_field = lru_cache(maxsize=64)(LabelField.parse)


def _was_unmarked(sentence: Sentence, index: int) -> bool:
    """The first document of a CoNLL-U file that had no newdoc comment: it reads back unmarked."""
    return index == 0 and LINES_KEY in sentence.meta and not any(k in sentence.meta for k in NEWDOC_KEYS)


def _kept_lines(sentence: Sentence, ctx: WriteContext, place: str) -> list[str]:
    kept = sentence.meta.get(LINES_KEY) or ""
    if not isinstance(kept, str):
        raise ctx.error(f"{place}: meta {LINES_KEY!r} must be text")
    return kept.split("\n") if kept else []


def _with_newdoc(meta: dict[str, str], name: str) -> dict[str, str]:
    if "newdoc id" in meta:
        return {**meta, "newdoc id": name}
    if "newdoc" in meta:
        return meta
    return {"newdoc id": name, **meta}


def _comments(meta: Mapping[str, object], kept: list[str], ctx: WriteContext, place: str) -> list[str]:
    """The kept comment lines while they still say what ``meta`` says, else lines from ``meta``."""
    if kept and _parsed_comments(kept) == meta:
        return kept
    for key, value in meta.items():
        if "\n" in key or "\r" in key or "\n" in str(value) or "\r" in str(value):
            raise ctx.error(f"{place}: comment {key!r} spans several lines")
    return _comment_lines(meta)


def _word_lines(sentence: Sentence, where: LabelField, corpus: Corpus, ctx: WriteContext, place: str) -> list[str]:
    labels = [format_annotation(a, corpus.labels) for a in sentence.annotations]
    misc_at = _misc_positions(sentence, ctx, place) if where.misc_key is not None else {}
    lines = []
    for t, form in enumerate(sentence.tokens):
        values = {"id": str(t + 1), "form": _cell(form, ctx, place)}
        for name in COLUMN_FIELDS:
            column = sentence.columns.get(name)
            values[name] = _cell(column[t], ctx, place) if column is not None else "_"
        _put_label(values, where, labels[t], ctx, place, misc_at.get(t))
        lines.append("\t".join(values.values()))
    return lines


def _placed(words: list[str], extras: list[str], ctx: WriteContext, place: str) -> list[str]:
    """Word lines with the kept ranges (before their first word) and empty nodes (after their word)."""
    slots = [((t + 1, 1), line) for t, line in enumerate(words)]
    for line in extras:
        try:
            token_id = parse_id_value(line.split("\t", 1)[0])
        except ParseException:
            token_id = None
        if not isinstance(token_id, tuple) or line.count("\t") != len(FIELDS) - 1:
            raise ctx.error(f"{place}: meta {LINES_KEY!r} holds {line!r}, not a multiword range or empty node")
        slots.append(((token_id[0], 0 if token_id[1] == "-" else 2), line))
    return [line for _, line in sorted(slots, key=lambda slot: slot[0])]


def _misc_positions(sentence: Sentence, ctx: WriteContext, place: str) -> dict[int, int]:
    try:
        pairs = (pair.split(":") for pair in str(sentence.meta.get(MISC_AT_KEY, "")).split())
        return {int(t): int(i) for t, i in pairs}
    except ValueError:
        raise ctx.error(f"{place}: meta {MISC_AT_KEY!r} must hold token:entry pairs") from None


def _put_label(
    values: dict, where: LabelField, label: str, ctx: WriteContext, place: str, at: int | None = None
) -> None:
    if label == "_":
        return  # no label: the field keeps its column's value, if any
    if where.misc_key is None:
        values[where.field] = label
        return
    if "|" in label:
        raise ctx.error(f"{place}: candidate set {label!r} cannot be stored in MISC ('|' separates entries)")
    entries = [] if values["misc"] == "_" else values["misc"].split("|")
    entries = [e for e in entries if not e.startswith(f"{where.misc_key}=")]
    entries.insert(len(entries) if at is None else at, f"{where.misc_key}={label}")
    values["misc"] = "|".join(entries)


def _cell(value: str, ctx: WriteContext, place: str) -> str:
    if not value or "\t" in value or "\n" in value or "\r" in value:
        raise ctx.error(f"{place}: value {value!r} is empty or holds a tab or line break")
    return value
