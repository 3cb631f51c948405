"""JSON Lines: one JSON object a sentence, as token or span records.

Token records
    ``{"tokens": ["EU", "rejects"], "labels": ["B-ORG", ["O", "B-MISC"]]}``.
    A label is a string (full label; the column-file spellings ``_`` and
    ``A|B`` are understood too), a list of strings (candidate set) or
    ``null`` (no label); ``labels`` may be left out (no labels at all).
    Another key whose value is a list of strings as long as ``tokens``
    becomes ``Sentence.columns[key]`` (``"pos": ["NNP", "VBZ"]``);
    ``"document"`` names the document; ``"annotators"`` maps each
    annotator's name to that annotator's own labels, spelled as ``labels``
    (``{"alice": ["B-ORG", "O"], "bob": ["B-PER", null]}``:
    ``Sentence.annotator_labels``, while ``labels`` stays the training
    label, which may be an adjudicator's choice); every other key goes to
    ``Sentence.meta`` (strings as they are, other values as their JSON text).

Span records (doccano, Label Studio)
    ``{"text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]}``,
    doccano's 1.x and newer exports, Label Studio's full and JSON-MIN
    exports (:mod:`.labelstudio`). The text is tokenised, split into
    sentences and its spans become BIO labels (:mod:`.spans`, which also
    says what is kept in ``Sentence.meta`` to write the record back). A span
    that cannot be placed is skipped and reported in ``Corpus.warnings``
    (an error with ``strict=True``).

Files
    ``.jsonl`` files are read line by line (streaming, blank lines
    skipped). A file whose first character is ``[`` is one JSON array of
    records; a ``.json`` file may also hold records one after another,
    pretty-printed, and so may a ``.jsonl`` file whose first record is not
    whole on its first line. Either way errors name the line where a record
    starts.

Writing (:mod:`.jsonl_out`)
    Token records by default (candidate sets as lists in label-set order,
    ``null`` for no label; an ``"annotators"`` object when several
    annotators' labels are kept; no ``"labels"`` for a sentence without
    any, which reads back the same). A record's text is written once: its
    first sentence keeps ``record_text``, and a sentence's own ``text`` is
    left out where that and its ``text_start`` give it (the reader puts it
    back; files with it in every sentence read as before).
    ``spans=True`` writes doccano-style span records: the sentences of one
    record go back into one record, with its metadata, and what spans
    cannot say (unlabeled tokens, candidate sets, annotators, review flags)
    in its ``"tagtool"`` key (:mod:`.span_state`). Token records get a
    ``"document"`` key when the document boundaries or names need it;
    span records keep the record's own layout and get one only when the
    corpus holds several documents (each record then names its document,
    which reads back as that document; one document reads back named after
    the file, as the record was).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from tagtool.core.annotation import EMPTY
from tagtool.core.corpus import Sentence
from tagtool.store.formats import labelstudio
from tagtool.store.formats._common import Item, ReadContext, json_kind
from tagtool.store.formats.spans import SpanOptions, SpanRecord, sentences_of, with_text

logger = logging.getLogger(__name__)

TOKEN_KEYS = ("tokens", "labels", "document", "annotators")
_WHITESPACE = " \t\n\r"


# ---------------------------------------------------------------------------
# JSON values with their line numbers


def records(ctx: ReadContext) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` of each record of a JSON or JSON Lines file, streaming when it is JSON Lines."""
    lines = ctx.lines()
    for lineno, line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        # A record that is not whole on its first line: pretty-printed JSON
        # (doccano's relation example, named .jsonl), read as a .json file is.
        if stripped.startswith("[") or ctx.path.suffix.lower() == ".json" or not _whole(stripped):
            rest = "".join(text for _, text in lines)
            yield from _document_records("\n" * (lineno - 1) + line + rest, ctx)
            return
        yield lineno, _loads(line, lineno, ctx)
        break
    for lineno, line in lines:
        if line.strip():
            yield lineno, _loads(line, lineno, ctx)


def _whole(line: str) -> bool:
    """Whether ``line`` is not the start of a value that goes on past it (an unclosed object)."""
    if not line.startswith("{"):
        return True
    try:
        json.loads(line)
    except json.JSONDecodeError as exc:
        return exc.pos < len(line)  # an error inside the line, not the end of its text
    except ValueError:
        return True
    return True


def _loads(line: str, lineno: int, ctx: ReadContext) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ctx.error(lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ctx.error(lineno, "JSON nested too deeply") from None
    except ValueError as exc:  # an integer past sys.get_int_max_str_digits()
        raise ctx.error(lineno, f"invalid JSON: {exc}") from None


class _Scanner:
    """Walks a whole JSON document, decoding one value at a time."""

    def __init__(self, text: str, ctx: ReadContext):
        self.text, self.ctx, self.pos = text, ctx, 0
        self._decoder = json.JSONDecoder()
        self._line, self._line_pos = 1, 0

    def line(self, pos: int | None = None) -> int:
        # Counted incrementally: positions only move forward.
        pos = self.pos if pos is None else pos
        self._line += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def skip(self) -> str:
        """Skip whitespace; the next character, or "" at the end."""
        while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
            self.pos += 1
        return self.text[self.pos : self.pos + 1]

    def value(self) -> tuple[int, Any]:
        line = self.line()
        try:
            value, self.pos = self._decoder.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            raise self.ctx.error(exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise self.ctx.error(line, "JSON nested too deeply") from None
        except ValueError as exc:  # an integer past sys.get_int_max_str_digits()
            raise self.ctx.error(line, f"invalid JSON: {exc}") from None
        return line, value

    def expect(self, chars: str) -> str:
        char = self.skip()
        if not char or char not in chars:
            found = repr(char) if char else "end of file"
            raise self.ctx.error(self.line(), f"invalid JSON: expected {' or '.join(chars)}, found {found}")
        self.pos += 1
        return char


def _document_records(text: str, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
    """Records of a JSON array, or of JSON values one after another."""
    scan = _Scanner(text, ctx)
    if scan.skip() != "[":
        while scan.skip():
            yield scan.value()
        return
    scan.pos += 1
    if scan.skip() == "]":
        scan.pos += 1
    else:
        while True:
            scan.skip()
            yield scan.value()
            if scan.expect(",]") == "]":
                break
    if scan.skip():
        raise ctx.error(scan.line(), "invalid JSON: text after the closing ']'")


# ---------------------------------------------------------------------------
# reading records


def read(
    ctx: ReadContext,
    *,
    tokenizer: str = "default",
    sentence_split: bool = True,
    strict: bool = False,
    annotator: str | None = None,
) -> Iterator[Item]:
    """Stream ``(document name, Sentence)`` items from token or span records.

    The keyword options concern span records only (:mod:`.spans`):
    ``tokenizer`` ("default" or "whitespace"), ``sentence_split``,
    ``strict`` (a span that cannot be placed is an error, not a warning)
    and ``annotator`` (one annotator's name, or None / "all").
    """
    opts = SpanOptions(tokenizer, sentence_split, strict, annotator).check(ctx)
    snapped = 0
    for document, rec in _records_of(ctx, opts):
        if not isinstance(rec, SpanRecord):
            yield document, rec
            continue
        for sentence in sentences_of(rec, ctx, opts):
            ctx.check_tokens(sentence.tokens, rec.line)
            yield document, sentence
        snapped += rec.snapped[0]
    if snapped:
        ctx.warn(None, f"{snapped} span(s) snapped outward to token boundaries")


def span_records(
    ctx: ReadContext, *, strict: bool = False, annotator: str | None = None
) -> Iterator[tuple[str, SpanRecord]]:
    """``(document name, SpanRecord)`` of each span record, untokenized: its text and raw spans
    (attaching them by character offsets to a project's text, :mod:`tagtool.store.span_attach`).

    A token record is a :class:`FormatError`: it has no text to attach by.
    """
    for document, rec in _records_of(ctx, SpanOptions(strict=strict, annotator=annotator).check(ctx)):
        if not isinstance(rec, SpanRecord):
            raise ctx.error(
                ctx.line, "a token record has no text to attach by offsets; span records (doccano, Label Studio) only"
            )
        yield document, rec


def _records_of(ctx: ReadContext, opts: SpanOptions) -> Iterator[tuple[str, SpanRecord | Sentence]]:
    """Each record: a token record's sentence, or a span record as read (not yet tokenized)."""
    seen = labelstudio.AnnotatorsSeen()
    # The record text of token records, kept for the sentences after the first (of the same document).
    whole: str | None = None
    last = None
    for rows in _tasks(records(ctx)):
        line, record = rows[0]
        if not isinstance(record, dict):
            raise ctx.error(line, f"a record must be a JSON object, not {json_kind(record)}")
        if "tokens" in record:
            document, sentence = _token_record(record, line, ctx)
            ctx.check_tokens(sentence.tokens, line)
            whole, sentence = with_text(sentence, whole if document == last else None)
            last = document
            yield document, sentence
            continue
        if labelstudio.is_task(record):
            rec = labelstudio.full_task(record, line, ctx, opts, seen)
        elif labelstudio.is_min_row(record):
            rec = labelstudio.min_task(rows, ctx, opts, seen)
        elif "text" in record or isinstance(record.get("data"), str):
            rec = labelstudio.doccano_record(record, line, ctx, opts, seen)
        else:
            raise ctx.error(line, 'a record needs "tokens" (token record) or "text" (span record)')
        yield _document(record, line, ctx), rec
    labelstudio.check_annotator(opts, seen, ctx)


def _tasks(records: Iterator[tuple[int, Any]]) -> Iterator[list[tuple[int, Any]]]:
    """Records one by one, but consecutive JSON-MIN rows of one task together."""
    pending: list[tuple[int, Any]] = []
    for item in records:
        if pending and labelstudio.is_min_row(item[1]) and labelstudio.same_task(pending[0][1], item[1]):
            pending.append(item)
            continue
        if pending:
            yield pending
            pending = []
        if labelstudio.is_min_row(item[1]):
            pending = [item]  # its task may go on in the next row
        else:
            yield [item]
    if pending:
        yield pending


def _document(record: dict, line: int, ctx: ReadContext) -> str:
    name = record.get("document", ctx.document_name)
    if isinstance(name, bool) or not isinstance(name, (str, int)):
        raise ctx.error(line, f'"document" must be a string, not {json_kind(name)}')
    return str(name)


def _meta_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _token_record(record: dict, line: int, ctx: ReadContext) -> Item:
    tokens = record["tokens"]
    if not isinstance(tokens, list) or not tokens:
        raise ctx.error(line, '"tokens" must be a non-empty list of strings')
    if not all(isinstance(t, str) and t for t in tokens):
        raise ctx.error(line, '"tokens" must hold non-empty strings only')
    annotations = _token_labels(record.get("labels"), len(tokens), line, ctx) if ctx.read_labels else ()
    by_annotator = _annotators(record.get("annotators"), len(tokens), line, ctx) if ctx.read_labels else {}
    columns, meta = {}, {}
    for key, value in record.items():
        if key in TOKEN_KEYS:
            continue
        if isinstance(value, list) and len(value) == len(tokens) and all(isinstance(v, str) for v in value):
            columns[key] = value
        else:
            meta[key] = _meta_value(value)
    return _document(record, line, ctx), Sentence(tokens, annotations, columns, meta, by_annotator)


def _annotators(value: Any, n: int, line: int, ctx: ReadContext) -> dict[str, list[frozenset[str]]]:
    """``Sentence.annotator_labels`` of a token record's ``"annotators"`` object."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ctx.error(line, f'"annotators" must be an object of name: labels, not {json_kind(value)}')
    out = {}
    for name, labels in value.items():
        if not name.strip():
            raise ctx.error(line, '"annotators": an annotator\'s name must not be empty')
        if not isinstance(labels, list) or len(labels) != n:
            raise ctx.error(line, f'"annotators": {name!r} must have a list of {n} labels, one per token')
        out[name.strip()] = _token_labels(labels, n, line, ctx)
    return out


def _token_labels(labels: Any, n: int, line: int, ctx: ReadContext) -> list[frozenset[str]] | tuple:
    if labels is None:
        return ()
    if not isinstance(labels, list) or len(labels) != n:
        raise ctx.error(line, f'"labels" must be a list of {n} labels, one per token')
    out = []
    for label in labels:
        if label is None:
            out.append(EMPTY)
        elif isinstance(label, str):
            out.append(ctx.parse_cell(label, line))
        elif isinstance(label, list) and all(isinstance(name, str) for name in label):
            out.append(ctx.parse_names(label, line))
        else:
            raise ctx.error(line, f"a label must be a string, a list of strings or null, not {json_kind(label)}")
    return out
