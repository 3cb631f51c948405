"""Span records attached to a project's text by character offsets.

A doccano or Label Studio file of the text a project was made from holds
each record's text and spans ``[start, end)`` on it. Its own tokenization
and sentence split need not be the project's: the spans are placed by
their offsets on the project's text (:mod:`tagtool.store.project_texts`),
then on the project's tokens.

Finding a record's text
    A project text with the same text, the first not yet taken (a second
    record of the same text, another annotator's, takes the first again);
    else the project text holding the record's text (a file of paragraphs,
    a project of whole texts); else the project texts the record's text
    holds, in order (a file of whole texts, a project of paragraphs). A
    record found nowhere is listed and left out.
Placing a span
    On the tokens its offsets overlap. An edge inside a token is moved
    outward to the token's edge, and listed (the project's tokenization
    wins: the span then covers the whole token, as doccano's own "snap"
    does). A span that covers no token, overlaps an earlier span of the
    same annotator or is malformed is listed and left out; the tokens it
    covers stay unlabeled (not ``O``: the annotator marked something there).
A span across a sentence boundary
    Is listed with the project sentences it crosses; left out (its tokens
    unlabeled), or, with ``merge_crossing``, the sentences are joined
    (:mod:`tagtool.store.sentence_join`) and the span attached.
What a record labels
    Every token of the project text its text covers: ``O`` where no span
    of the annotator lies, ``B-X``/``I-X`` on a span. Tokens outside it
    are not touched.
A tagtool doccano export with annotators
    Its record's own spans are the training labels; each annotator's
    answers, kept in its metadata, are placed the same way, as answers
    (:attr:`Placed.answers`).

Every listed note names the file, the record's line and the span.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from tagtool.core.annotation import EMPTY
from tagtool.core.labels import CANDIDATE_SEPARATOR
from tagtool.store.formats.span_state import covered
from tagtool.store.formats.spans import SpanRecord, _Skip, parse_span
from tagtool.store.project_texts import ProjectText

#: Annotator key of spans whose record names nobody.
NOBODY = None


@dataclass
class Placed:
    """What one file's records give the project's sentences.

    Attributes
    ----------
    labels : dict
        ``{sentence id: {annotator or None: [label name or "" per token]}}``;
        ``""`` leaves the token unlabeled (outside the record, or under a
        span left out, or unlabeled in an export); names joined by ``|``
        are a candidate set.
    answers : dict
        The same for the annotators' answers a tagtool doccano export keeps
        beside its training labels (:attr:`~tagtool.store.formats.spans.SpanRecord.answers`).
    where : dict of int to str
        Each labeled sentence's description, for messages.
    tokens : dict of int to tuple of str
        The tokens each sentence had when the spans were placed.
    crossing : list of tuple of int
        Runs of consecutive sentence ids a span crosses.
    notes : list of str
        What was left out or moved, each naming file, line and span.
    records, found : int
        Records read, and records whose text the project holds.
    snapped : int
        Spans moved outward to token edges.
    """

    labels: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)
    where: dict = field(default_factory=dict)
    tokens: dict = field(default_factory=dict)
    crossing: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    records: int = 0
    found: int = 0
    snapped: int = 0

    @property
    def used_labels(self) -> set[str]:
        return {
            name
            for placed in (self.labels, self.answers)
            for by in placed.values()
            for bio in by.values()
            for cell in bio
            if cell
            for name in cell.split(CANDIDATE_SEPARATOR)
        }


class _Index:
    """Project texts by their text, and which were taken."""

    def __init__(self, texts: list[ProjectText]):
        self.texts = texts
        self.by_text: dict[str, list[int]] = {}
        for k, t in enumerate(texts):
            self.by_text.setdefault(t.text, []).append(k)
        self.taken: set[int] = set()

    def segments(self, text: str) -> list[tuple[int, int, int, int]]:
        """``(text index, offset in the record, offset in the project text, length)`` of the record's text."""
        same = self.by_text.get(text)
        if same:
            k = next((k for k in same if k not in self.taken), same[0])
            self.taken.add(k)
            return [(k, 0, 0, len(text))]
        for k, t in enumerate(self.texts):
            at = t.text.find(text)
            if at >= 0 and text.strip():
                return [(k, 0, at, len(text))]
        out, pos = [], 0
        for k, t in enumerate(self.texts):
            if not t.text.strip():
                continue
            at = text.find(t.text, pos)
            if at >= 0:
                out.append((k, at, 0, len(t.text)))
                pos = at + len(t.text)
        return out


def place_records(path: Path, records: list[SpanRecord], texts: list[ProjectText]) -> Placed:
    """Place the spans of ``records`` (read from ``path``) on the project's ``texts`` (module doc)."""
    index, out = _Index(texts), Placed()
    for rec in records:
        out.records += 1
        segments = index.segments(rec.text)
        if not segments:
            short = rec.text[:60] + ("..." if len(rec.text) > 60 else "")
            out.notes.append(f"{path}:{rec.line}: the project holds no text {short!r}; record left out")
            continue
        out.found += 1
        for who, items in _sources(rec).items():
            _place(path, rec, who, items, segments, texts, out, out.labels)
        for who, items in rec.answers.items():
            _place(path, rec, who, items, segments, texts, out, out.answers)
    return out


def _place(
    path: Path, rec: SpanRecord, who, items: list, segments, texts: list[ProjectText], out: Placed, into: dict
) -> None:
    """One annotator's spans of one record, on the segments of project text it covers, put ``into``
    :attr:`Placed.labels` or :attr:`Placed.answers`."""
    bios = _outside_bios(segments, texts)
    by = f" by {who}" if who is not None else ""
    spans = _parsed_spans(path, rec, by, items, out)
    taken: dict[int, set[int]] = {}
    for start, end, label in sorted(dict.fromkeys(spans), key=lambda s: s[:2]):
        what = f"{path}:{rec.line}: span [{start}, {end}) {label!r} {rec.text[max(start, 0) : max(end, 0)][:60]!r}{by}"
        seg = next((g for g in segments if g[1] <= start and end <= g[1] + g[3]), None)
        if start >= end or seg is None:
            reason = "empty" if start >= end else "outside the project's texts (or across two of them)"
            out.notes.append(f"{what}: {reason}; left out")
            continue
        k, r0, p0, _ = seg
        text = texts[k]
        starts, ends, owner = text.flat()
        ps, pe = start - r0 + p0, end - r0 + p0
        i, j = bisect_right(ends, ps), bisect_left(starts, pe) - 1
        bio = bios[k]
        if i > j:
            out.notes.append(f"{what}: covers no token of the project; left out")
            continue
        if taken.setdefault(k, set()) & set(range(i, j + 1)):
            out.notes.append(f"{what}: overlaps another span{by}; left out")
            for t in set(range(i, j + 1)) - taken[k]:  # the span placed first keeps its labels
                bio[t] = ""
            continue
        if owner[i] != owner[j]:
            run = tuple(text.sentences[n].id for n in range(owner[i], owner[j] + 1))
            out.crossing.append(run)
            out.notes.append(
                f"{what}: crosses the boundary of the project's {text.sentences[owner[i]].where} "
                f"and the next; left out (merging the sentences attaches it)"
            )
            bio[i : j + 1] = [""] * (j + 1 - i)
            continue
        if (starts[i], ends[j]) != (ps, pe):
            out.snapped += 1
            out.notes.append(
                f"{what}: an edge inside a token; moved out to the token's edges "
                f"{text.text[starts[i] : ends[j]][:60]!r}"
            )
        taken[k].update(range(i, j + 1))
        bio[i] = f"B-{label}"
        bio[i + 1 : j + 1] = [f"I-{label}"] * (j - i)
    _amend(rec, who, segments, texts, bios)
    for k, bio in bios.items():
        _store(texts[k], who, bio, out, into)


def _outside_bios(segments, texts: list[ProjectText]) -> dict[int, list[str]]:
    """``text index -> flat labels over the text's tokens``: ``O`` on the tokens inside the segments
    the record covers, ``""`` (not this record's) elsewhere."""
    bios: dict[int, list[str]] = {}
    for k, _, p0, length in segments:
        bio = bios.setdefault(k, [""] * texts[k].n_tokens)
        starts, ends, _ = texts[k].flat()
        for t in range(bisect_left(starts, p0), bisect_right(ends, p0 + length)):  # tokens inside it
            bio[t] = "O"
    return bios


def _parsed_spans(path: Path, rec: SpanRecord, by: str, items: list, out: Placed) -> list:
    """``(start, end, label)`` of each span item; one that cannot be read is a note and left out."""
    spans = []
    for item in items:
        try:
            spans.append(parse_span(item))
        except _Skip as exc:
            out.notes.append(f"{path}:{rec.line}: span{by}: {exc}; left out")
    return spans


def _amend(rec: SpanRecord, who, segments, texts: list[ProjectText], bios: dict[int, list[str]]) -> None:
    """The record's amendments (:func:`_amendments`) written over the labels of the tokens they cover."""
    for start, end, names in _amendments(rec, who):
        for k, r0, p0, length in segments:
            a, b = max(start, r0) - r0 + p0, min(end, r0 + length) - r0 + p0
            starts, ends, _ = texts[k].flat()
            for t in covered((starts, ends), a, b):
                bios[k][t] = names


def _training_entry(rec: SpanRecord) -> dict | None:
    """The metadata's ``labels`` entry: an unfinished Label Studio task's training labels, kept beside it."""
    labels = rec.state.get("labels") if isinstance(rec.state, dict) else None
    return labels if isinstance(labels, dict) and isinstance(labels.get("spans"), list) else None


def _sources(rec: SpanRecord) -> dict:
    """Each annotator's span items of ``rec``, with the training labels its metadata holds as spans of nobody.

    A partly labeled project's Label Studio export writes the labels of an
    unfinished task without annotators as a prediction and in the metadata's ``labels`` entry
    (:mod:`tagtool.store.formats.span_state`), not as an annotation.
    """
    entry = _training_entry(rec)
    if entry is None or rec.sources:  # annotators' tasks: their answers say it (an adjudicated label is left)
        return rec.sources
    return {NOBODY: list(entry["spans"])}


def _amendments(rec: SpanRecord, who) -> list[tuple[int, int, str]]:
    """``(start, end, labels)``: what an exported record's metadata says ``who`` gave beside the spans.

    A partly labeled project's export (:mod:`tagtool.store.formats.span_state`)
    keeps the tokens nobody labeled (``labels`` ``""``) and the candidate
    sets (label names joined by ``|``) beside the spans, which alone would
    make those tokens ``O``: the top-level entry (or the ``labels`` entry's)
    amends the record's own spans, an annotator's entry their spans.
    Malformed runs are passed over (the spans still attach).
    """
    state = rec.state if isinstance(rec.state, dict) else {}
    entry = _training_entry(rec) or state
    if who is not None:
        annotators = state.get("annotators")
        entry = annotators.get(who) if isinstance(annotators, dict) else None
    if not isinstance(entry, dict):
        return []
    out = []
    for run in entry.get("unlabeled") if isinstance(entry.get("unlabeled"), list) else []:
        if isinstance(run, list) and len(run) == 2 and all(isinstance(v, int) for v in run):
            out.append((run[0], run[1], ""))
    for run in entry.get("candidates") if isinstance(entry.get("candidates"), list) else []:
        if (
            isinstance(run, list)
            and len(run) == 3
            and all(isinstance(v, int) for v in run[:2])
            and isinstance(run[2], list)
            and run[2]
            and all(isinstance(n, str) for n in run[2])
        ):
            out.append((run[0], run[1], CANDIDATE_SEPARATOR.join(run[2])))
    return [run for run in out if run[0] < run[1]]


def _store(text: ProjectText, who, bio: list[str], out: Placed, into: dict) -> None:
    """Split a text's flat labels into its sentences' (a later record of the same annotator adds, not replaces)."""
    pos = 0
    for s in text.sentences:
        part, pos = bio[pos : pos + len(s.tokens)], pos + len(s.tokens)
        if not any(part):
            continue
        mine = into.setdefault(s.id, {})
        old = mine.get(who)
        mine[who] = part if old is None else [a or b for a, b in zip(part, old)]
        out.where[s.id], out.tokens[s.id] = s.where, s.tokens


def as_sets(bio: list[str]) -> list[frozenset[str]]:
    """Label names per token as annotations (``""``: no label; ``"A|B"``: a candidate set)."""
    return [frozenset(cell.split(CANDIDATE_SEPARATOR)) if cell else EMPTY for cell in bio]


def read_span_records(
    path, encoding: str = "utf-8", strict: bool = False, annotator: str | None = None, **limits
) -> list[SpanRecord]:
    """The span records of a doccano or Label Studio file, untokenized.

    See :func:`~tagtool.store.formats.jsonl.span_records`.

    ``annotator``: only that annotator's spans (a record naming nobody is theirs); ``limits``: read limits.
    """
    from tagtool.errors import FormatError
    from tagtool.store.formats import detect_format
    from tagtool.store.formats._common import ReadContext
    from tagtool.store.formats.jsonl import span_records
    from tagtool.store.formats.limits import ReadLimits

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if detect_format(path) != "jsonl":
        raise FormatError(
            path, None, "holds no span records (doccano or Label Studio JSON/JSONL) to attach by character offsets"
        )
    ctx = ReadContext(path, None, encoding=encoding, limits=ReadLimits.from_options(dict(limits)))
    out = [rec for _, rec in span_records(ctx, strict=strict, annotator=annotator)]
    if not out:
        raise FormatError(path, 1, "empty file: no records")
    return out


def is_span_file(path) -> bool:
    """Whether ``path`` is JSON / JSON Lines whose first record is a span record (text, not tokens)."""
    from tagtool.store.formats import detect_format
    from tagtool.store.formats._common import ReadContext
    from tagtool.store.formats.jsonl import records

    path = Path(path)
    try:
        if not path.is_file() or detect_format(path) != "jsonl":
            return False
        for _, record in records(ReadContext(path)):
            return isinstance(record, dict) and "tokens" not in record
    except (OSError, ValueError):  # FormatError is a ValueError: the import itself says what is wrong
        return False
    return False
