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
    a comment without ``=`` → ``meta[text] = ""``). Multiword-token ranges
    (``1-2``) and empty nodes (``8.1``) are skipped; a sentence that had
    empty nodes loses its DEPS (they may point at the dropped nodes).

    ``# newdoc id = X`` (or a bare ``# newdoc``) starts a document named
    ``X`` (or ``"<file name>:<k>"``); sentences before the first one form a
    document named after the file.

Writing
    Valid CoNLL-U via ``conllu``'s serializer: comments from ``meta``,
    ID = 1..n, FORM = token, the label field from the annotation, the other
    fields from the columns of the same name or ``_``. A document that
    needs a boundary gets ``# newdoc id = <name>`` on its first sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from conllu.exceptions import ParseException
from conllu.models import Metadata, Token, TokenList
from conllu.parser import DEFAULT_FIELDS, parse_comment_line, parse_id_value

from tagtool.core.annotation import EMPTY, format_annotation
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import Item, ReadContext, WriteContext
from tagtool.store.formats.limits import sentence_too_long

logger = logging.getLogger(__name__)

FIELDS: tuple[str, ...] = tuple(DEFAULT_FIELDS)
#: Fields kept as columns (ID is positional, FORM is the token).
COLUMN_FIELDS = FIELDS[2:]
NEWDOC_KEYS = ("newdoc id", "newdoc")

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
            raise ValueError(
                f"label_field must be one of {', '.join(COLUMN_FIELDS)} or 'misc:KEY', got {spec!r}"
            )
        return cls(name, key or None)


@dataclass
class _Block:
    """One sentence being collected: comments, then token lines."""

    meta: dict[str, str] = field(default_factory=dict)
    rows: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    had_empty_nodes: bool = False
    start: int = 0

    def __bool__(self) -> bool:
        return bool(self.meta or self.rows)


def read(ctx: ReadContext, *, label_field: str = "upos") -> Iterator[Item]:
    """Stream ``(document name, Sentence)`` items from a CoNLL-U file.

    Parameters
    ----------
    ctx : ReadContext
    label_field : str
        ``"upos"``, ``"xpos"``, ``"deprel"``, … or ``"misc:KEY"``.
    """
    where = LabelField.parse(label_field) if ctx.read_labels else None
    block = _Block()
    document, n_docs = ctx.document_name, 0
    for lineno, line in ctx.lines():
        line = line.rstrip("\n")
        if line.strip():
            _add_line(block, line, lineno, ctx)
            continue
        if block:
            document, n_docs = _document(block, document, n_docs, ctx)
            yield document, _sentence(block, where, ctx)
            block = _Block()
    if block:
        document, n_docs = _document(block, document, n_docs, ctx)
        yield document, _sentence(block, where, ctx)


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
        if block.rows:
            raise ctx.error(lineno, "comment line inside a sentence (comments go before the tokens)")
        for key, value in parse_comment_line(line, metadata_parsers=_KEEP_ALL_COMMENTS):
            block.meta[key] = value or ""
        return
    fields = line.split("\t")
    if len(fields) != len(FIELDS):
        raise ctx.error(lineno, f"{len(fields)} tab-separated fields where CoNLL-U has {len(FIELDS)}")
    try:
        token_id = parse_id_value(fields[0])
    except ParseException as exc:
        raise ctx.error(lineno, f"bad ID: {exc}") from None
    if isinstance(token_id, tuple):
        # A multiword range repeats its words; an empty node is no token.
        block.had_empty_nodes |= token_id[1] == "."
        return
    if len(block.rows) >= ctx.limits.max_sentence_tokens:  # before the rows fill memory
        raise sentence_too_long(ctx.path, block.start, ctx.limits.max_sentence_tokens)
    if token_id != len(block.rows) + 1:
        raise ctx.error(lineno, f"token ID {fields[0]} where {len(block.rows) + 1} was expected")
    block.rows.append(fields)
    block.lines.append(lineno)


def _sentence(block: _Block, where: LabelField | None, ctx: ReadContext) -> Sentence:
    if not block.rows:
        raise ctx.error(block.start, "sentence with comments but no tokens")
    cols = dict(zip(FIELDS, zip(*block.rows)))
    ctx.check_tokens(cols["form"], block.start, block.lines)
    columns = {name: cols[name] for name in COLUMN_FIELDS}
    if block.had_empty_nodes:
        logger.debug("%s:%d: empty nodes dropped, DEPS cleared", ctx.path, block.start)
        columns["deps"] = ("_",) * len(block.rows)
    annotations: list[frozenset[str]] | tuple = ()
    if where is not None and where.misc_key is None:
        annotations = ctx.parse_cells(columns.pop(where.field), block.lines[0], block.lines)
    elif where is not None:
        cells, columns["misc"] = _split_misc(columns["misc"], where.misc_key)  # type: ignore[arg-type]
        annotations = [
            ctx.parse_cell(c, line) if c is not None else EMPTY for c, line in zip(cells, block.lines)
        ]
    return Sentence(cols["form"], annotations, columns, block.meta)


def _split_misc(values: tuple[str, ...], key: str) -> tuple[list[str | None], tuple[str, ...]]:
    """Take ``key=…`` out of each MISC cell: (label cells, remaining MISC)."""
    prefix = f"{key}="
    cells: list[str | None] = []
    rest: list[str] = []
    for value in values:
        entries = [] if value == "_" else value.split("|")
        label = next((e[len(prefix):] for e in entries if e.startswith(prefix)), None)
        kept = [e for e in entries if not e.startswith(prefix)]
        cells.append(label)
        rest.append("|".join(kept) or "_")
    return cells, tuple(rest)


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, label_field: str = "upos") -> None:
    """Write ``corpus`` as CoNLL-U.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
    ctx : WriteContext
    label_field : str
        Field that receives the labels (see :func:`read`).
    """
    where = LabelField.parse(label_field)
    for d, document in enumerate(corpus.documents):
        for s, sentence in enumerate(document.sentences):
            place = f"document {document.name!r}, sentence {s + 1}"
            meta = dict(sentence.meta)
            if s == 0 and ctx.needs_marker(corpus, d):
                meta = _with_newdoc(meta, document.name)
            tokens = _tokens(sentence, where, corpus, ctx, place)
            fh.write(TokenList(tokens, Metadata(_comments(meta, ctx, place))).serialize())


def _with_newdoc(meta: dict[str, str], name: str) -> dict[str, str]:
    if "newdoc id" in meta:
        return {**meta, "newdoc id": name}
    if "newdoc" in meta:
        return meta
    return {"newdoc id": name, **meta}


def _comments(meta: Mapping[str, str], ctx: WriteContext, place: str) -> dict[str, str | None]:
    for key, value in meta.items():
        if "\n" in key or "\r" in key or "\n" in str(value) or "\r" in str(value):
            raise ctx.error(f"{place}: comment {key!r} spans several lines")
    # conllu writes "# key" for a falsy value, "# key = value" otherwise.
    return {key: (value or None) for key, value in meta.items()}


def _tokens(
    sentence: Sentence, where: LabelField, corpus: Corpus, ctx: WriteContext, place: str
) -> list[Token]:
    labels = [format_annotation(a, corpus.labels) for a in sentence.annotations]
    tokens = []
    for t, form in enumerate(sentence.tokens):
        values = {"id": t + 1, "form": _cell(form, ctx, place)}
        for name in COLUMN_FIELDS:
            column = sentence.columns.get(name)
            values[name] = _cell(column[t], ctx, place) if column is not None else "_"
        _put_label(values, where, labels[t], ctx, place)
        tokens.append(Token(values))
    return tokens


def _put_label(values: dict, where: LabelField, label: str, ctx: WriteContext, place: str) -> None:
    if where.misc_key is None:
        values[where.field] = label
        return
    if label == "_":
        return
    if "|" in label:
        raise ctx.error(f"{place}: candidate set {label!r} cannot be stored in MISC ('|' separates entries)")
    entries = [] if values["misc"] == "_" else values["misc"].split("|")
    entries = [e for e in entries if not e.startswith(f"{where.misc_key}=")]
    values["misc"] = "|".join([*entries, f"{where.misc_key}={label}"])


def _cell(value: str, ctx: WriteContext, place: str) -> str:
    if not value or "\t" in value or "\n" in value or "\r" in value:
        raise ctx.error(f"{place}: value {value!r} is empty or holds a tab or line break")
    return value
