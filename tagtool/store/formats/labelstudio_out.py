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
  so that reading the file back gives the same annotators. A sentence
  without annotators' labels gets one annotation of its training labels,
  with no ``completed_by``; an unlabeled one none.
* A task read from HyperText (``hypertextlabels``) is written as a Text
  task of the page's text, with ``labels`` results.
* Spans need full BIO labels: a candidate set or an unlabeled token in an
  annotator's labels is an error naming the document, sentence, token and
  annotator. A training label that is not an annotator's answer (an
  adjudicator's choice, a candidate set) has no place in Label Studio's
  format: tagtool's JSONL token records keep it (``"labels"`` beside
  ``"annotators"``).

Reading the file back (:mod:`.labelstudio`) gives every annotator's labels
again, and the training labels the rule makes of them
(:func:`tagtool.core.annotators.combine`).
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from tagtool.core.annotation import EMPTY
from tagtool.core.corpus import Corpus, Sentence
from tagtool.errors import FormatError
from tagtool.store.formats._common import WriteContext
from tagtool.store.formats.spans_out import record_groups, record_layout, record_text, spans_of

#: ``from_name`` / ``to_name`` of the results: the tags of Label Studio's NER template.
FROM_NAME, TO_NAME = "label", "text"


def write(corpus: Corpus, fh: TextIO, ctx: WriteContext) -> None:
    """Write ``corpus`` as a JSON array of Label Studio tasks (module doc)."""
    named = len(corpus.documents) > 1
    fh.write("[")
    first = True
    for document in corpus.documents:
        for index, group in record_groups(document.sentences):
            where = f"document {document.name!r}, sentence {index + 1}"
            task = _task(group, ctx, where)
            if named:
                task = {"document": document.name, **task}
            fh.write("\n" if first else ",\n")
            fh.write(json.dumps(task, ensure_ascii=False))
            first = False
    fh.write("\n]\n")


def _task(group: list[Sentence], ctx: WriteContext, where: str) -> dict[str, Any]:
    text, offsets = record_text(group, ctx, where)
    layout, text_key, span_key = record_layout(group[0])
    task = {k: v for k, v in layout.items() if k not in (text_key, span_key, "data")}
    data = layout.get("data") if isinstance(layout.get("data"), dict) else {}
    task["data"] = {"text": text, **{k: v for k, v in data.items() if k != "text"}}
    task["annotations"] = [
        _annotation(name, _results(text, group, offsets, name, ctx, where)) for name in _annotators(group)
    ]
    if not task["annotations"] and any(a for s in group for a in s.annotations):
        task["annotations"] = [_annotation(None, _results(text, group, offsets, None, ctx, where))]
    return task


def _annotators(group: list[Sentence]) -> list[str]:
    """The annotators of a record's sentences, in the order they first appear."""
    return list(dict.fromkeys(name for s in group for name in s.annotator_labels))


def _annotation(name: str | None, result: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if name is not None:
        out["completed_by"] = int(name) if name.isdecimal() and name.isascii() else name
    out["result"] = result
    return out


def _labels_of(sentence: Sentence, name: str | None) -> Sentence:
    """The sentence with ``name``'s labels as its annotations (its training labels for None)."""
    if name is None:
        return sentence
    labels = sentence.annotator_labels.get(name, (EMPTY,) * len(sentence))
    return Sentence(sentence.tokens, labels, {}, sentence.meta)


def _results(text: str, group: list[Sentence], offsets, name: str | None, ctx: WriteContext,
             where: str) -> list[dict]:
    """Label Studio ``labels`` results of one annotator's spans over a record."""
    results = []
    for sentence, words in zip(group, offsets):
        try:
            spans = spans_of(_labels_of(sentence, name), words, ctx, where)
        except FormatError as exc:
            by = f" (annotator {name!r})" if name is not None else ""
            raise ctx.error(exc.message.split("; span records")[0] + by +
                            "; Label Studio tasks need full BIO labels (JSONL token records keep "
                            "candidate sets and unlabeled tokens)") from None
        for start, end, kind in spans:
            results.append({
                "from_name": FROM_NAME, "to_name": TO_NAME, "type": "labels",
                "value": {"start": start, "end": end, "text": text[start:end], "labels": [kind]},
            })
    return results
