"""JSON Lines: one JSON object a sentence, as token or span records.

Token records
    ``{"tokens": ["EU", "rejects"], "labels": ["B-ORG", ["O", "B-MISC"]]}``.
    A label is a string (full label; the column-file spellings ``_`` and
    ``A|B`` are understood too), a list of strings (candidate set) or
    ``null`` (no label); ``labels`` may be left out (no labels at all).
    Another key whose value is a list of strings as long as ``tokens``
    becomes ``Sentence.columns[key]`` (``"pos": ["NNP", "VBZ"]``);
    ``"document"`` names the document; every other key goes to
    ``Sentence.meta`` (strings as they are, other values as their JSON text).

Span records (doccano, Label Studio)
    ``{"text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]}``.
    Spans may sit under ``label``, ``labels``, ``spans`` or ``entities``,
    as ``[start, end, label]`` lists or as dicts with ``start``/``end``
    (or doccano's ``start_offset``/``end_offset``) and ``label`` (or Label
    Studio's ``labels: [one label]``, also nested under ``value``). Label
    Studio's full export (``{"data": {"text": …}, "annotations": [{"result":
    [...]}]}``) is read from its first annotation. The text is tokenised on
    whitespace; spans become BIO labels (``B-X`` on the first token, ``I-X``
    on the rest, ``O`` elsewhere), so span records are fully labeled. A
    span must start and end on token boundaries, lie inside the text and
    not overlap another. The text itself is kept in ``meta["text"]``.

Files
    ``.jsonl`` files are read line by line (streaming, blank lines
    skipped). A file whose first character is ``[`` is one JSON array of
    records; a ``.json`` file may also hold records one after another,
    pretty-printed. Either way errors name the line where a record starts.

Writing
    Token records by default (candidate sets as lists in label-set order,
    ``null`` for no label); ``spans=True`` writes doccano-style span
    records, possible when every token has a full BIO label. A
    ``"document"`` key is written when the document boundaries need it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from tagtool.core.annotation import EMPTY
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import Item, ReadContext, WriteContext

logger = logging.getLogger(__name__)

TOKEN_KEYS = ("tokens", "labels", "document")
SPAN_KEYS = ("label", "labels", "spans", "entities")
_WORDS = re.compile(r"\S+")
_WHITESPACE = " \t\n\r"


# ---------------------------------------------------------------------------
# JSON values with their line numbers


def _records(ctx: ReadContext) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` of each record, streaming when the file is JSON Lines."""
    lines = ctx.lines()
    for lineno, line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("[") or ctx.path.suffix.lower() == ".json":
            rest = "".join(text for _, text in lines)
            yield from _document_records("\n" * (lineno - 1) + line + rest, ctx)
            return
        yield lineno, _loads(line, lineno, ctx)
        break
    for lineno, line in lines:
        if line.strip():
            yield lineno, _loads(line, lineno, ctx)


def _loads(line: str, lineno: int, ctx: ReadContext) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ctx.error(lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ctx.error(lineno, "JSON nested too deeply") from None


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


def read(ctx: ReadContext) -> Iterator[Item]:
    """Stream ``(document name, Sentence)`` items from token or span records."""
    for line, record in _records(ctx):
        if not isinstance(record, dict):
            raise ctx.error(line, f"a record must be a JSON object, not {_kind(record)}")
        if "tokens" in record:
            yield _token_record(record, line, ctx)
        elif "text" in record or isinstance(record.get("data"), dict):
            yield _span_record(record, line, ctx)
        else:
            raise ctx.error(line, 'a record needs "tokens" (token record) or "text" (span record)')


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(value), "a number"
    )


def _document(record: dict, line: int, ctx: ReadContext) -> str:
    name = record.get("document", ctx.document_name)
    if isinstance(name, bool) or not isinstance(name, (str, int)):
        raise ctx.error(line, f'"document" must be a string, not {_kind(name)}')
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
    columns, meta = {}, {}
    for key, value in record.items():
        if key in TOKEN_KEYS:
            continue
        if isinstance(value, list) and len(value) == len(tokens) and all(isinstance(v, str) for v in value):
            columns[key] = value
        else:
            meta[key] = _meta_value(value)
    return _document(record, line, ctx), Sentence(tokens, annotations, columns, meta)


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
            raise ctx.error(line, f"a label must be a string, a list of strings or null, not {_kind(label)}")
    return out


def _span_record(record: dict, line: int, ctx: ReadContext) -> Item:
    text, spans, consumed = _text_and_spans(record, line, ctx)
    words = [(m.start(), m.end()) for m in _WORDS.finditer(text)]
    if not words:
        raise ctx.error(line, '"text" holds no tokens')
    tokens = [text[s:e] for s, e in words]
    annotations = _bio_labels(spans, words, text, line, ctx) if ctx.read_labels else ()
    meta = {k: _meta_value(v) for k, v in record.items() if k not in consumed}
    meta["text"] = text
    return _document(record, line, ctx), Sentence(tokens, annotations, {}, meta)


def _text_and_spans(record: dict, line: int, ctx: ReadContext) -> tuple[str, list, set[str]]:
    if "text" in record:
        text, key = record["text"], next((k for k in SPAN_KEYS if k in record), None)
        spans = record.get(key) if key else []
        consumed = {"text", "document", *([key] if key else [])}
    else:  # Label Studio's full export
        text = record["data"].get("text")
        annotations = record.get("annotations") or [{}]
        first = annotations[0] if isinstance(annotations, list) else None
        if not isinstance(first, dict):
            raise ctx.error(line, '"annotations" must be a list of objects')
        spans = first.get("result", [])
        if isinstance(spans, list):  # results also hold relations, choices, ...
            spans = [r for r in spans if not isinstance(r, dict) or r.get("type", "labels") == "labels"]
        consumed = {"data", "annotations", "predictions", "document"}
    if not isinstance(text, str):
        raise ctx.error(line, f'"text" must be a string, not {_kind(text)}')
    if spans is None:
        spans = []
    if not isinstance(spans, list):
        raise ctx.error(line, f"spans must be a list, not {_kind(spans)}")
    return text, spans, consumed


def _span(item: Any, line: int, ctx: ReadContext) -> tuple[int, int, str]:
    """``(start, end, label)`` of a list- or dict-style span."""
    if isinstance(item, dict) and isinstance(item.get("value"), dict):
        item = item["value"]
    if isinstance(item, list) and len(item) == 3:
        start, end, label = item
    elif isinstance(item, dict):
        start = item.get("start", item.get("start_offset"))
        end = item.get("end", item.get("end_offset"))
        label = item.get("label", item.get("labels"))
        if isinstance(label, list) and len(label) == 1:
            label = label[0]
    else:
        raise ctx.error(line, f"a span must be [start, end, label] or an object, not {json.dumps(item)[:60]}")
    if any(isinstance(x, bool) or not isinstance(x, int) for x in (start, end)):
        raise ctx.error(line, f"span offsets must be integers, got {start!r} and {end!r}")
    if not isinstance(label, str):
        raise ctx.error(line, f"a span needs one label (a string), got {label!r}")
    return start, end, label


def _bio_labels(
    spans: list, words: list[tuple[int, int]], text: str, line: int, ctx: ReadContext
) -> list[frozenset[str]]:
    first = {s: i for i, (s, _) in enumerate(words)}
    last = {e: i for i, (_, e) in enumerate(words)}
    outside = ctx.parse_names(["O"], line)
    out = [outside] * len(words)
    taken = [False] * len(words)
    for start, end, label in sorted((_span(item, line, ctx) for item in spans), key=lambda s: s[:2]):
        if not 0 <= start < end <= len(text):
            raise ctx.error(line, f"span [{start}, {end}) {label!r} is outside the text (length {len(text)})")
        i, j = first.get(start), last.get(end)
        if i is None or j is None or j < i:
            raise ctx.error(
                line, f"span [{start}, {end}) {label!r} = {text[start:end]!r} does not start and end on token boundaries"
            )
        if any(taken[i : j + 1]):
            raise ctx.error(line, f"span [{start}, {end}) {label!r} overlaps another span")
        out[i] = ctx.parse_names([f"B-{label}"], line)
        for k in range(i + 1, j + 1):
            out[k] = ctx.parse_names([f"I-{label}"], line)
        taken[i : j + 1] = [True] * (j + 1 - i)
    return out


# ---------------------------------------------------------------------------
# writing


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext, *, spans: bool = False) -> None:
    """Write one JSON record a line.

    Parameters
    ----------
    corpus : Corpus
    fh : TextIO
    ctx : WriteContext
    spans : bool
        Write span records (doccano style) instead of token records.
    """
    named = ctx.any_marker(corpus)
    for document in corpus.documents:
        for s, sentence in enumerate(document.sentences):
            where = f"document {document.name!r}, sentence {s + 1}"
            record = _span_out(sentence, ctx, where) if spans else _token_out(sentence, corpus, ctx, where)
            if named:
                record = {"document": document.name, **record}
            fh.write(json.dumps(record, ensure_ascii=False))
            fh.write("\n")


def _token_out(sentence: Sentence, corpus: Corpus, ctx: WriteContext, where: str) -> dict:
    record: dict[str, Any] = {"tokens": list(sentence.tokens), "labels": [_label_out(a, corpus) for a in sentence.annotations]}
    for key, values in sentence.columns.items():
        _claim(record, key, ctx, where)
        record[key] = list(values)
    for key, value in sentence.meta.items():
        _claim(record, key, ctx, where)
        record[key] = value
    return record


def _claim(record: dict, key: str, ctx: WriteContext, where: str) -> None:
    if key in record or key in TOKEN_KEYS:
        raise ctx.error(f"{where}: column or meta key {key!r} collides with another key")


def _label_out(ann: frozenset[str], corpus: Corpus) -> str | list[str] | None:
    if not ann:
        return None
    if len(ann) == 1:
        return next(iter(ann))
    return sorted(ann, key=corpus.labels.index)


def _span_out(sentence: Sentence, ctx: WriteContext, where: str) -> dict:
    text = sentence.meta.get("text")
    words = token_offsets(text, sentence.tokens) if isinstance(text, str) else None
    if words is None:
        for token in sentence.tokens:
            if token.split() != [token]:
                raise ctx.error(f"{where}: token {token!r} holds whitespace; span records cannot keep it")
        text = " ".join(sentence.tokens)
        words = [(m.start(), m.end()) for m in _WORDS.finditer(text)]
    record: dict[str, Any] = {"text": text, "label": _spans_of(sentence, words, ctx, where)}
    for key, value in sentence.meta.items():
        if key != "text":
            if key in record or key == "document":
                raise ctx.error(f"{where}: meta key {key!r} collides with another key")
            record[key] = value
    return record


def token_offsets(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """``(start, end)`` of each token found in ``text`` in order, only whitespace between.

    Whatever tokenizer made the tokens from the text, as long as it kept
    them as they are written, so the spans keep offsets into the original
    text; None if the tokens do not spell the text.
    """
    offsets, pos = [], 0
    for token in tokens:
        start = text.find(token, pos)
        if start < 0 or text[pos:start].strip():
            return None
        offsets.append((start, start + len(token)))
        pos = start + len(token)
    return offsets if not text[pos:].strip() else None


def _spans_of(sentence: Sentence, words: list[tuple[int, int]], ctx: WriteContext, where: str) -> list[list]:
    """``[start, end, type]`` of each BIO chunk; raises if the labels are not BIO."""
    spans: list[list] = []
    for t, ann in enumerate(sentence.annotations):
        if len(ann) != 1:
            raise ctx.error(f"{where}: token {t + 1} has no full label; span records need full BIO labels")
        (label,) = ann
        if label == "O":
            continue
        prefix, kind = label[:2], label[2:]
        if prefix == "I-" and spans and spans[-1][3] == t - 1 and spans[-1][2] == kind:
            spans[-1][1], spans[-1][3] = words[t][1], t
        elif prefix == "B-" and kind:
            spans.append([words[t][0], words[t][1], kind, t])
        else:
            raise ctx.error(f"{where}: label {label!r} of token {t + 1} does not fit the BIO scheme")
    return [s[:3] for s in spans]
