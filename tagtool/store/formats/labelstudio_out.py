"""Label Studio tasks with one annotation per annotator (``tagtool export --format labelstudio``).

Writes the full JSON export layout that :mod:`.labelstudio` reads, a JSON
array of tasks::

    [{"id": 7, "data": {"text": "..."}, "annotations": [
        {"completed_by": "alice", "result": [{"from_name": "label", "to_name": "text",
         "type": "labels", "value": {"start": 0, "end": 4, "text": "Acme", "labels": ["ORG"]}}]},
        {"completed_by": "bob", "result": [...]}]}]

* One task per record: the sentences of a record that was split into
  sentences go back into one task (:func:`.spans_out.record_groups`), with the
  record's other keys (``id``, ``data`` fields, ...) as they were read.
* One annotation per annotator (``Sentence.annotator_labels``), its
  ``completed_by`` the annotator's name (a number for a name of digits:
  Label Studio's user ids). The names the reader gave to annotations
  without ``completed_by`` (``(anonymous)``, ...) are written as they are,
  so that reading the file back gives the same annotators.
* A record without annotators' labels: a finished one (every token has a
  full label) gets one annotation of its training labels, with no
  ``completed_by``; an unfinished one none, but a prediction of the spans
  labeled so far (``model_version`` :data:`UNFINISHED`), which Label
  Studio shows as a pre-annotation to go on from and does not count as
  done; an unlabeled one neither.
* Candidate sets are a prediction too (:data:`CANDIDATES`): one result per
  label of the set, scored 1 / the set's size.
* What spans cannot say (unlabeled tokens, candidate sets, a training label
  that is not the rule's answer of the annotators, the sentence split, the
  tokens where the default tokenizer would not give them, the sentences'
  review flags and skips) goes to the
  task's ``meta`` under ``"tagtool"`` (:mod:`.span_state`).
* A task read from HyperText (``hypertextlabels``) is written as a Text
  task of the page's text, with ``labels`` results.
* Labels that are not BIO (an ``I-X`` after ``O``, a label without
  ``B-``/``I-``) are an error naming the document, sentence, token and
  annotator.

Reading the file back (:mod:`.labelstudio`) gives every annotator's labels,
every training label and candidate set again.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from tagtool.core.annotation import EMPTY
from tagtool.core.annotators import combine
from tagtool.core.corpus import Corpus, Sentence
from tagtool.store.formats._common import WriteContext
from tagtool.store.formats.span_state import KEY, status
from tagtool.store.formats.spans_out import Where, answers, describe, record_groups, record_layout, record_text, shape

#: ``from_name`` / ``to_name`` of the results: the tags of Label Studio's NER template.
FROM_NAME, TO_NAME = "label", "text"
#: ``model_version`` of the predictions: an unfinished task's labels, and the candidate sets.
UNFINISHED, CANDIDATES = "tagtool unfinished", "tagtool candidate sets"


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext) -> None:
    """Write ``corpus`` as a JSON array of Label Studio tasks (module doc)."""
    named = len(corpus.documents) > 1
    fh.write("[")
    first = True
    for document in corpus.documents:
        for index, group in record_groups(document.sentences):
            task = _task(group, ctx, lambda k, name=document.name, i=index: f"document {name!r}, sentence {i + k + 1}")
            if named:
                task = {"document": document.name, **task}
            fh.write("\n" if first else ",\n")
            fh.write(json.dumps(task, ensure_ascii=False))
            first = False
    fh.write("\n]\n")


def _task(group: list[Sentence], ctx: WriteContext, where: Where) -> dict[str, Any]:
    text, offsets = record_text(group, ctx, where(0))
    layout, text_key, span_key = record_layout(group[0])
    task = {k: v for k, v in layout.items() if k not in (text_key, span_key, "data")}
    data = layout.get("data") if isinstance(layout.get("data"), dict) else {}
    task["data"] = {"text": text, **{k: v for k, v in data.items() if k != "text"}}
    names = list(dict.fromkeys(name for s in group for name in s.annotator_labels))
    state: dict[str, Any] = {}
    task["annotations"] = []
    every: list[list] = []  # every span of the task, which the reader's sentence splitter keeps whole
    for name in names:
        spans, extras = describe(answers(group, name), offsets, ctx, where, name)
        every += spans
        task["annotations"].append(_annotation(name, _results(text, spans)))
        if extras:
            state.setdefault("annotators", {})[name] = extras
    training = [s.annotations for s in group]
    spans, extras = describe(training, offsets, ctx, where)
    finished = status(training)
    predictions = []
    if not names and finished == "full":
        task["annotations"] = [_annotation(None, _results(text, spans))]
    elif not names and finished == "partial":  # unfinished: a prediction to go on from, not an annotation
        predictions.append({"model_version": UNFINISHED, "result": _results(text, spans)})
        state["labels"] = {"spans": spans, **extras}
    elif names and any(
        a != combine(votes)
        for s in group
        for a, votes in zip(s.annotations, zip(*(s.annotator_labels.get(n, (EMPTY,) * len(s)) for n in names)))
    ):
        state["labels"] = {"spans": spans, **extras}  # an adjudicator's choice, an edit: not the rule's
    scored = _candidates(text, extras.get("candidates", ()))
    if scored:
        predictions.append({"model_version": CANDIDATES, "result": scored})
    if predictions:
        task["predictions"] = predictions
    state = shape(state, text, offsets, every + spans, training, group)
    if state:
        meta = task.get("meta") if isinstance(task.get("meta"), dict) else {}
        task["meta"] = {**meta, KEY: state}
    return task


def _annotation(name: str | None, result: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if name is not None:
        out["completed_by"] = int(name) if name.isdecimal() and name.isascii() else name
    out["result"] = result
    return out


def _result(text: str, start: int, end: int, kind: str) -> dict[str, Any]:
    return {
        "from_name": FROM_NAME,
        "to_name": TO_NAME,
        "type": "labels",
        "value": {"start": start, "end": end, "text": text[start:end], "labels": [kind]},
    }


def _results(text: str, spans: list[list]) -> list[dict]:
    """Label Studio ``labels`` results of spans over a record."""
    return [_result(text, start, end, kind) for start, end, kind in spans]


def _candidates(text: str, candidates: list[list]) -> list[dict]:
    """One result per label of each candidate set, scored 1 / its size (``O`` is no span: left out)."""
    out = []
    for start, end, names in candidates:
        if len(names) < 2:  # a lone I-X after a token without a full label: no candidate set
            continue
        kinds = dict.fromkeys(name[2:] if name[:2] in ("B-", "I-") else name for name in names if name != "O")
        for kind in kinds:
            out.append({**_result(text, start, end, kind), "score": round(1 / len(names), 4)})
    return out
