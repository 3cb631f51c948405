"""doccano and Label Studio records as :class:`~.spans.SpanRecord`.

doccano
    1.x: ``{"id": 1, "data": "text", "label": [[start, end, "TYPE"], ...]}``;
    newer: ``{"id": 1, "text": "...", "label": [[start, end, "TYPE"]]}`` or
    ``{"text": "...", "entities": [{"id": 3, "start_offset": 0,
    "end_offset": 4, "label": "TYPE"}], "relations": [], "Comments": []}``.
    Spans may also sit under ``labels`` or ``spans``. Every other key is
    metadata, kept with its JSON type. A record without spans (no span key,
    or ``null``) is unlabeled; an empty list labels every token ``O``.
    A record key ``annotator``, ``user``, ``user_name`` or ``username``
    (doccano 1.x writes ``"user": 1``) names the annotator of its spans.
    ``annotation_approver`` does not: it is who approved the labels, not who
    gave them, and stays metadata. With "collaborative annotation" off,
    doccano exports each user's labels to a file of its own named after the
    user (``alice.jsonl``), whose records name nobody: the reader option
    ``annotator`` (below) names them.

Label Studio, full JSON export
    A list of tasks ``{"id": 7, "data": {"text": "..."}, "annotations":
    [{"completed_by": 1, "was_cancelled": false, "result": [{"type":
    "labels", "value": {"start": 0, "end": 4, "labels": ["TYPE"]}}]}]}``.
    Every annotation is read except cancelled ones (``was_cancelled``); its
    ``completed_by`` (an id, or an object with ``email``) names the
    annotator. Which annotation counts where one annotator has several, and
    whose an annotation without ``completed_by`` is:
    :mod:`.labelstudio_answers`. Spans are ``labels`` results (the Text
    tag) and ``hypertextlabels`` results (the HyperText tag, placed on the
    page's text: :mod:`.labelstudio_html`); other results (relations,
    choices) are ignored. A task without annotations is unlabeled; an
    annotation with an empty result labels every token ``O``.
    ``predictions`` and ``drafts`` are not read.

Label Studio, JSON-MIN export
    ``[{"id": 7, "text": "...", "label": [{"start": 0, "end": 4, "text":
    "...", "labels": ["TYPE"]}], "annotator": "ann@example.com",
    "annotation_id": 3, ...}]``: one row per annotation, so consecutive rows
    with the same ``id`` and text are one task with several annotators
    (chosen among as in the full export).

Offsets
    Label Studio's editor counted offsets in UTF-16 code units (as
    JavaScript does) until 2022, code points since. A span whose offsets do
    not select its ``text`` but would as UTF-16 offsets is moved
    (:func:`code_point_offsets`). Tasks of Label Studio 0.x hold their
    annotations under ``completions``; doccano 1.0's download holds spans
    under ``annotations`` (``label_name``, ``user_name`` per span).

Choosing annotators (reader option ``annotator``): None or ``"all"`` keeps
every annotator (the sentence gets their candidate set where they differ);
a name keeps only that annotator's annotations, and the spans of a record
that names no annotator are that annotator's. A file that names annotators
but not that one is an error listing the names it has.
"""

from __future__ import annotations

from typing import Any

from tagtool.store.formats import span_state
from tagtool.store.formats._common import ReadContext, json_kind
from tagtool.store.formats.labelstudio_answers import (
    AnnotatorsSeen,
    Answer,
    answer_time,
    name_anonymous,
    task_name,
    whose,
)
from tagtool.store.formats.labelstudio_html import (
    Page,
    hypertext_result,
    hypertext_spans,
    integers,
    is_hypertext,
    is_page,
    page,
    plain,
    utf16_index,
)
from tagtool.store.formats.spans import SpanOptions, SpanRecord

#: ``annotations``: doccano 1.0's download, objects with ``label_name`` and ``user_name``.
SPAN_KEYS = ("label", "labels", "spans", "entities", "annotations")
#: Keys of a full-export task that are not the task's metadata
#: (``completions``: Label Studio before 1.0 named the annotations so).
TASK_KEYS = ("data", "annotations", "completions", "predictions", "drafts", "document")
#: Keys of a doccano record that name the annotator of its spans (not ``annotation_approver``).
RECORD_ANNOTATOR_KEYS = ("annotator", "user", "user_name", "username")
#: Keys of a JSON-MIN row that belong to its annotation, not to the task.
MIN_ANNOTATION_KEYS = ("annotator", "annotation_id", "created_at", "updated_at", "lead_time")


def is_task(record: dict) -> bool:
    """A Label Studio full-export task.

    A record with a top-level ``"text"`` is a span record whatever its
    ``data`` holds: a task written back by tagtool keeps its other ``data``
    fields as metadata beside its text and spans (``{"id", "data":
    {"source": ...}, "text", "label"}``), and must read back the same.
    """
    return isinstance(record.get("data"), dict) and not isinstance(record.get("text"), str)


def is_min_row(record: Any) -> bool:
    """A Label Studio JSON-MIN row (one annotation of a task)."""
    return isinstance(record, dict) and "text" in record and ("annotator" in record or "annotation_id" in record)


def same_task(a: dict, b: dict) -> bool:
    """Whether two JSON-MIN rows are annotations of one task."""
    return a.get("id") is not None and a.get("id") == b.get("id") and a.get("text") == b.get("text")


def annotator_name(value: Any) -> str | None:
    """The annotator of ``completed_by``/``annotator``: an id, an email, or an object holding one."""
    if isinstance(value, dict):
        value = value.get("email") or value.get("username") or value.get("id")
    if value is None or value == "":
        return None
    return str(value)


def _checked_text(text: Any, line: int, ctx: ReadContext) -> str:
    if not isinstance(text, str):
        raise ctx.error(line, f'"text" must be a string, not {json_kind(text)}')
    return text


def _checked_spans(spans: Any, line: int, ctx: ReadContext) -> list:
    if spans is None:
        return []
    if not isinstance(spans, list):
        raise ctx.error(line, f"spans must be a list, not {json_kind(spans)}")
    return spans


def _choose(sources: dict, opts: SpanOptions, seen: set[str]) -> dict:
    """The sources ``opts`` asks for; a record that names nobody is the chosen annotator's."""
    seen.update(name for name in sources if name is not None)
    name = opts.one_annotator
    if name is None:
        return sources
    if set(sources) == {None}:
        seen.add(name)  # the file has labels of theirs: asking for them is no error
        return {name: sources[None]}
    return {who: s for who, s in sources.items() if who == name}


def record_annotator(record: dict) -> str | None:
    """The annotator a doccano record names at its top level (:data:`RECORD_ANNOTATOR_KEYS`)."""
    for key in RECORD_ANNOTATOR_KEYS:
        if key in record:
            return annotator_name(record[key])
    return None


def _span_objects(spans) -> list | None:
    """Span objects with keys of their own (doccano's entity ``id``), kept so that
    export writes an unchanged span back as it was read; None otherwise."""
    if isinstance(spans, list) and spans and all(isinstance(x, dict) for x in spans):
        return spans
    return None


def doccano_record(record: dict, line: int, ctx: ReadContext, opts: SpanOptions, seen: AnnotatorsSeen) -> SpanRecord:
    """A doccano record (or any ``text`` + spans record)."""
    text_key = "text" if "text" in record else "data"
    span_key = next((k for k in SPAN_KEYS if k in record), "label")
    text = _checked_text(record[text_key], line, ctx)
    spans = _checked_spans(record.get(span_key), line, ctx)
    layout = {
        k: (None if k in (text_key, span_key) else v)
        for k, v in record.items()
        if k not in ("document", span_state.KEY)
    }
    layout[span_key] = _span_objects(record.get(span_key))
    state = span_state.checked(record.get(span_state.KEY), line, ctx)
    # No span key at all (or null): nobody labeled the text; an empty list labels it all O.
    # A record tagtool wrote with annotators holds its training labels; theirs are in its metadata.
    who = None if state and "annotators" in state else record_annotator(record)
    sources: dict[str | None, list] = {who: spans} if record.get(span_key) is not None else {}
    if span_key == "annotations":  # doccano 1.0: each span names its user
        sources = {}
        for item in spans:
            by = item.get("user_name", item.get("user")) if isinstance(item, dict) else None
            sources.setdefault(annotator_name(by) or who, []).append(item)
        sources = sources or {who: []}
    answers = span_state.annotator_spans(state)
    if answers:  # a tagtool export: its spans are the training labels, nobody's answers
        seen.update(answers)
        answers = {name: items for name, items in answers.items() if opts.one_annotator in (None, name)}
    elif sources:
        sources = _choose(name_anonymous(sources, task_name(record, "record"), line, ctx, seen), opts, seen)
    return SpanRecord(line, text, sources, layout, (text_key, span_key), state=state, answers=answers)


def code_point_offsets(text: str, spans: list) -> list:
    """Spans whose offsets count UTF-16 code units, moved to code points.

    Label Studio's editor measured offsets as JavaScript does, in UTF-16
    code units, until 2022; later versions count code points. Both write
    the span's own text (``value.text``), so a span whose offsets do not
    select its text, but would as UTF-16 offsets, is moved; every other
    span is left as it is.
    """
    if all(ord(c) <= 0xFFFF for c in text):
        return spans
    index = utf16_index(text)
    out = []
    for item in spans:
        nested = isinstance(item, dict) and isinstance(item.get("value"), dict)
        moved = _moved(text, item["value"] if nested else item, index)
        if moved is not None:
            item = {**item, "value": moved} if nested else moved
        out.append(item)
    return out


def _moved(text: str, value: Any, index: list[int]) -> dict | None:
    """``value`` with UTF-16 offsets made code points, if only those select its text."""
    if not isinstance(value, dict):
        return None
    start, end, said = value.get("start"), value.get("end"), value.get("text")
    if not isinstance(said, str) or not integers(start, end):
        return None
    if text[start:end] == said or not 0 <= start <= end < len(index):
        return None
    if text[index[start] : index[end]] != said:
        return None
    return {**value, "start": index[start], "end": index[end]}


def _text_key(data: dict) -> str:
    """``text``, or the one string field of ``data`` (a config naming it ``$sentence``)."""
    if "text" in data:
        return "text"
    strings = [k for k, v in data.items() if isinstance(v, str)]
    return strings[0] if len(strings) == 1 else "text"


def _is_labels(result: Any) -> bool:
    """Whether a result is a Text span (anything malformed is one too: the span reader says what is wrong)."""
    return not isinstance(result, dict) or result.get("type", "labels") == "labels"


def _spans(
    shown: Page, result: list, who: str | None, task: str, line: int, ctx: ReadContext, opts: SpanOptions
) -> list:
    """The span items of one annotation's results, HyperText ones placed on the page's text."""
    # Results also hold relations, choices, ...: only labeled spans count.
    spans = [r for r in result if _is_labels(r)]
    hypertext = [r for r in result if is_hypertext(r)]
    if hypertext and (opts.one_annotator is None or who in (None, opts.one_annotator)):
        where = task + (f", annotator {who!r}" if who is not None else "")
        spans += hypertext_spans(shown, hypertext, where, line, ctx, opts.strict)
    return code_point_offsets(shown.text, spans)


def full_task(record: dict, line: int, ctx: ReadContext, opts: SpanOptions, seen: AnnotatorsSeen) -> SpanRecord:
    """A task of Label Studio's full JSON export, with every annotation not cancelled."""
    data = record["data"]
    key = _text_key(data)
    text = _checked_text(data.get(key), line, ctx)
    annotations = record.get("annotations") or record.get("completions") or []
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        raise ctx.error(line, '"annotations" must be a list of objects')
    task = task_name(record)
    cancelled = [a for a in annotations if a.get("was_cancelled")]
    if cancelled:
        by = ", ".join(sorted({annotator_name(a.get("completed_by")) or "nobody" for a in cancelled}))
        ctx.warn(line, f"{task}: {len(cancelled)} cancelled annotation(s) skipped (by {by})")
    kept = [a for a in annotations if not a.get("was_cancelled")]
    results = [_checked_spans(a.get("result"), line, ctx) for a in kept]
    shown = page(text) if is_page(text, results, seen) else plain(text)
    text = shown.text
    answers = []
    for annotation, result in zip(kept, results):
        who = annotator_name(annotation.get("completed_by"))
        answers.append(
            Answer(
                who,
                _spans(shown, result, who, task, line, ctx, opts),
                annotation.get("id"),
                answer_time(annotation),
                annotation.get("ground_truth") is True,
            )
        )
    sources = whose(answers, task, line, ctx, seen) if answers else {}
    layout = {k: v for k, v in record.items() if k not in TASK_KEYS}
    state = None
    if isinstance(record.get("meta"), dict) and span_state.KEY in record["meta"]:
        state = span_state.checked(record["meta"][span_state.KEY], line, ctx)
        layout["meta"] = {k: v for k, v in record["meta"].items() if k != span_state.KEY}
        if not layout["meta"]:
            del layout["meta"]
    rest = {k: v for k, v in data.items() if k != key}
    if rest:
        layout["data"] = rest
    layout.update(text=None, label=None)
    return SpanRecord(line, text, _choose(sources, opts, seen), layout, ("text", "label"), state=state)


def _min_span_key(row: dict) -> str:
    key = next((k for k in SPAN_KEYS if k in row), None)
    if key is None:  # JSON-MIN names the spans after the labeling config's tag
        key = next(
            (
                k
                for k, v in row.items()
                if isinstance(v, list) and v and all(isinstance(x, dict) and "start" in x for x in v)
            ),
            "label",
        )
    return key


def min_task(rows: list[tuple[int, dict]], ctx: ReadContext, opts: SpanOptions, seen: AnnotatorsSeen) -> SpanRecord:
    """One task of a JSON-MIN export from its consecutive rows (one per annotation)."""
    line, first = rows[0]
    text = _checked_text(first.get("text"), line, ctx)
    span_key = _min_span_key(first)
    task = task_name(first)
    # A row's spans are result values: a HyperText one (hypertextlabels) is put back in its result.
    results = [
        [hypertext_result(item) for item in _checked_spans(row.get(_min_span_key(row)), row_line, ctx)]
        for row_line, row in rows
    ]
    shown = page(text) if is_page(text, results, seen) else plain(text)
    text = shown.text
    answers = []
    for (row_line, row), result in zip(rows, results):
        who = annotator_name(row.get("annotator"))
        answers.append(
            Answer(
                who, _spans(shown, result, who, task, row_line, ctx, opts), row.get("annotation_id"), answer_time(row)
            )
        )
    sources = whose(answers, task, line, ctx, seen)
    layout = {
        k: (None if k in ("text", span_key) else v)
        for k, v in first.items()
        if k not in MIN_ANNOTATION_KEYS and k != "document"
    }
    layout.setdefault(span_key, None)
    return SpanRecord(line, text, _choose(sources, opts, seen), layout, ("text", span_key))


def check_annotator(opts: SpanOptions, seen: set[str], ctx: ReadContext) -> None:
    """After a whole file: the annotator asked for must have been there."""
    name = opts.one_annotator
    if name is not None and seen and name not in seen:
        raise ctx.error(None, f"no annotations by {name!r}; annotators in the file: {', '.join(sorted(seen))}")


def annotators_in(path, encoding: str = "utf-8") -> list[str]:
    """The annotators named in a Label Studio or doccano export, sorted; [] for other files.

    For the import dialogs, which offer one annotator or all of them. Reads
    the records only (no tokenising); cancelled annotations do not count.
    Raises :class:`FormatError` for malformed JSON.
    """
    from pathlib import Path

    from tagtool.store.formats.jsonl import records  # jsonl imports this module

    ctx = ReadContext(Path(path), encoding=encoding)
    names: set[str] = set()
    for _, record in records(ctx):
        if not isinstance(record, dict):
            continue
        if is_task(record) and isinstance(record.get("annotations"), list):
            names.update(
                name
                for a in record["annotations"]
                if isinstance(a, dict) and not a.get("was_cancelled")
                for name in [annotator_name(a.get("completed_by"))]
                if name is not None
            )
        elif is_min_row(record) and annotator_name(record.get("annotator")) is not None:
            names.add(annotator_name(record.get("annotator")))
        elif "text" in record or isinstance(record.get("data"), str):
            names.update(_doccano_names(record))
    return sorted(names)


def _doccano_names(record: dict) -> set[str]:
    """The annotators a doccano record names: at its top level, or on each span (doccano 1.0)."""
    names = {record_annotator(record)}
    if isinstance(record.get("annotations"), list):
        names.update(
            annotator_name(item.get("user_name", item.get("user")))
            for item in record["annotations"]
            if isinstance(item, dict)
        )
    return {name for name in names if name is not None}
