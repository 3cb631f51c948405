"""Label Studio exports at their edges, randomized: is every annotation read, or dropped with a word?

Four cases, each a run of small export files (full JSON export, and JSON-MIN
rows in the mixed case) whose expected reading is worked out here, apart
from the reader:

``duplicates``
    one annotator's two or three annotations of a task, with ``updated_at``
    or ``created_at`` times (some missing) and now and then ``ground_truth``;
    the kept one must be the ground-truth one, else the latest, else the last
    in the file, and each other one named in a warning (file, task, id).
``unknown + anonymous``
    a real annotator called ``unknown`` beside one to three annotations
    without ``completed_by`` (and tasks whose only annotation names nobody):
    every annotation must be an answer of its own, ``unknown``'s kept.
``hypertextlabels``
    HTML tasks (paragraphs, bold words, ``<br/>``, ``&amp;``) labeled with
    the HyperText tag: spans with ``globalOffsets`` (counted here as Label
    Studio counts them) and some without, placed by their text when it occurs
    once, else skipped with a warning naming the file and task.
``mixed``
    all of the above in one file, with cancelled annotations (each must be
    named in a note) and JSON-MIN files.

Each file is read (``tokenizer="whitespace"``, one sentence per task, the
full label schema), written back with ``format="labelstudio"`` and read
again, which must give the same sentences and answers. Counted: answers
expected and kept, annotations dropped with a word, silent drops (an
annotation or span neither read nor named in a warning; target 0), and
failed files (a wrong answer, an error, a round trip that differs;
target 0). The number of failed trials :func:`run` returns is the failed
files plus the silent drops.
"""

from __future__ import annotations

import collections
import json
import random
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tagtool.core.corpus import SKIPPED_SPAN  # noqa: E402
from tagtool.core.labels import LabelSet  # noqa: E402
from tagtool.store.formats import read_corpus, write_corpus  # noqa: E402

#: Tasks per case at scale 1.0 (files of one to four tasks until the count is reached).
TASKS = {"duplicates": 150, "unknown + anonymous": 150, "hypertextlabels": 150, "mixed": 200}
KINDS = ("PER", "LOC", "ORG", "MISC")
LABELS = LabelSet(["O", *(f"{p}-{k}" for k in KINDS for p in "BI")])
WORDS = (
    "Anna",
    "Ben",
    "Oslo",
    "met",
    "in",
    "the",
    "bank",
    "R&D",
    "Acme",
    "left",
    "for",
    "Paris",
    "Cy",
    "Dana",
    "and",
    "of",
    "Nord",
    "Lab",
    "a",
    "new",
    "team",
    "on",
    "Monday",
    "said",
)
NAMES = (1, 2, 17, "ana@example.com", "ben@example.com", "cy")
START = datetime(2024, 3, 1, tzinfo=UTC)


@dataclass
class Annotation:
    """One generated annotation: who, its word spans, what picks it, and its result as written."""

    ident: int
    who: object  # a completed_by value, or None
    spans: list  # (first word, last word, kind)
    updated: datetime | None = None
    created: datetime | None = None
    ground_truth: bool = False
    cancelled: bool = False
    result: list = field(default_factory=list)
    lost_spans: int = 0  # HyperText spans without globalOffsets whose text occurs more than once

    @property
    def name(self) -> str | None:
        return None if self.who is None else str(self.who)

    def time(self) -> datetime | None:
        return self.updated or self.created


@dataclass
class Task:
    ident: int
    words: list[str]
    annotations: list[Annotation]
    html: str | None = None


def _bio(n: int, spans: list) -> tuple[frozenset, ...]:
    out = ["O"] * n
    for i, j, kind in spans:
        out[i] = f"B-{kind}"
        for k in range(i + 1, j + 1):
            out[k] = f"I-{kind}"
    return tuple(frozenset([x]) for x in out)


def _spans(rng: random.Random, n: int) -> list:
    """Non-overlapping word spans of one to three words."""
    out, i = [], rng.randrange(2)
    while i < n:
        if rng.random() < 0.35:
            j = min(n - 1, i + rng.randrange(3))
            out.append((i, j, rng.choice(KINDS)))
            i = j + 2
        else:
            i += 1
    return out


def _moment(rng: random.Random) -> datetime:
    return START + timedelta(seconds=rng.randrange(10**7), microseconds=rng.randrange(10**6))


# --- writing the tasks as Label Studio would --------------------------------


def _text_results(words: list[str], spans: list) -> list[dict]:
    starts = [sum(len(w) + 1 for w in words[:k]) for k in range(len(words))]
    text = " ".join(words)
    out = []
    for i, j, kind in spans:
        start, end = starts[i], starts[j] + len(words[j])
        out.append(
            {
                "from_name": "label",
                "to_name": "text",
                "type": "labels",
                "id": f"r{i}",
                "value": {"start": start, "end": end, "text": text[start:end], "labels": [kind]},
            }
        )
    return out


def _html(rng: random.Random, words: list[str]) -> tuple[str, list[tuple[int, int]], str]:
    """HTML of the words, each word's ``(start, end)`` as Label Studio counts globalOffsets, and that text."""
    markup, counted, where = ["<div>"], [], []
    length = 0
    paragraph_open = False
    for k, word in enumerate(words):
        if k == 0 or rng.random() < 0.2:
            markup.append("</p><p>" if paragraph_open else "<p>")
            paragraph_open = True
        elif rng.random() < 0.15:
            markup.append("<br/>")
            counted.append("\n")
            length += 1
        else:
            markup.append(" ")
            counted.append(" ")
            length += 1
        shown = word.replace("&", "&amp;")
        markup.append(f"<b>{shown}</b>" if rng.random() < 0.2 else shown)
        counted.append(word)
        where.append((length, length + len(word)))
        length += len(word)
    markup.append("</p></div>")
    return "".join(markup), where, "".join(counted)


def _occurrences(text: str, said: str) -> int:
    found, at = 0, text.find(said)
    while at >= 0:
        found += 1
        at = text.find(said, at + 1)
    return found


def _hypertext_results(annotation: Annotation, where: list, counted: str, rng: random.Random) -> list[dict]:
    out, kept = [], []
    for i, j, kind in annotation.spans:
        start, end = where[i][0], where[j][1]
        value = {
            "start": "/div[1]/p[1]/text()[1]",
            "end": "/div[1]/p[1]/text()[1]",
            "startOffset": 0,
            "endOffset": end - start,
            "text": counted[start:end],
            "hypertextlabels": [kind],
        }
        if rng.random() < 0.8:
            value["globalOffsets"] = {"start": start, "end": end, "calculated": True}
        elif _occurrences(counted, value["text"]) != 1:
            annotation.lost_spans += 1
            out.append({"type": "hypertextlabels", "value": value})
            continue
        kept.append((i, j, kind))
        out.append({"from_name": "ner", "to_name": "html", "type": "hypertextlabels", "value": value})
    annotation.spans = kept  # what the reader can place: the expected answer
    return out


def _full_task(task: Task) -> dict:
    data = {"html": task.html} if task.html is not None else {"text": " ".join(task.words)}
    annotations = []
    for a in task.annotations:
        out = {"id": a.ident, "result": a.result, "was_cancelled": a.cancelled, "ground_truth": a.ground_truth}
        if a.who is not None:
            out["completed_by"] = {"id": a.who, "email": a.who} if isinstance(a.who, str) and "@" in a.who else a.who
        if a.created is not None:
            out["created_at"] = a.created.isoformat().replace("+00:00", "Z")
        if a.updated is not None:
            out["updated_at"] = a.updated.isoformat().replace("+00:00", "Z")
        annotations.append(out)
    return {"id": task.ident, "data": data, "annotations": annotations, "project": 3}


def _min_rows(task: Task) -> list[dict]:
    rows = []
    for a in task.annotations:
        row = {
            "id": task.ident,
            "text": task.html if task.html is not None else " ".join(task.words),
            "label": [{**r["value"]} for r in a.result],
            "annotation_id": a.ident,
        }
        if a.who is not None:
            row["annotator"] = str(a.who)
        if a.updated is not None:
            row["updated_at"] = a.updated.isoformat()
        rows.append(row)
    return rows


# --- the tasks of each case ----------------------------------------------------


class Maker:
    def __init__(self, rng: random.Random):
        self.rng, self.ident, self.annotation = rng, 0, 0

    def task(self, whos: list, *, html: bool = False, duplicates: bool = False) -> Task:
        rng = self.rng
        self.ident += 1
        words = [rng.choice(WORDS) for _ in range(rng.randrange(4, 14))]
        annotations = []
        for who in whos:
            for _ in range(rng.choice((2, 3)) if duplicates and who is not None and rng.random() < 0.7 else 1):
                annotations.append(self._annotation(who, len(words)))
        rng.shuffle(annotations)
        task = Task(self.ident, words, annotations)
        if html:
            task.html, where, counted = _html(rng, words)
            for a in annotations:
                a.result = _hypertext_results(a, where, counted, rng)
        else:
            for a in annotations:
                a.result = _text_results(words, a.spans)
        return task

    def _annotation(self, who, n: int) -> Annotation:
        rng = self.rng
        self.annotation += 1
        a = Annotation(self.annotation, who, _spans(rng, n))
        if rng.random() < 0.85:
            a.updated = _moment(rng)
        elif rng.random() < 0.7:
            a.created = _moment(rng)
        a.ground_truth = rng.random() < 0.1
        return a


def _cancel(task: Task, rng: random.Random) -> None:
    for a in rng.sample(task.annotations, k=min(len(task.annotations), rng.randrange(1, 3))):
        if len([b for b in task.annotations if not b.cancelled]) > 1:
            a.cancelled = True


def _case_tasks(case: str, maker: Maker, count: int) -> list[Task]:
    rng = maker.rng
    if case == "duplicates":
        return [maker.task(rng.sample(NAMES, rng.randrange(1, 4)), duplicates=True) for _ in range(count)]
    if case == "unknown + anonymous":
        tasks = []
        for _ in range(count):
            if rng.random() < 0.15:
                tasks.append(maker.task([None]))
                continue
            whos = ["unknown", *[None] * rng.randrange(1, 4), *rng.sample(NAMES, rng.randrange(0, 2))]
            tasks.append(maker.task(whos))
        return tasks
    if case == "hypertextlabels":
        return [maker.task(rng.sample(NAMES, rng.randrange(1, 4)), html=True) for _ in range(count)]
    tasks = []
    for _ in range(count):
        whos = rng.sample([*NAMES, "unknown"], rng.randrange(1, 4)) + [None] * rng.choice((0, 0, 1, 2))
        task = maker.task(whos, html=rng.random() < 0.3, duplicates=rng.random() < 0.4)
        if rng.random() < 0.3:
            _cancel(task, rng)
        tasks.append(task)
    return tasks


# --- what the reader must give -------------------------------------------------


@dataclass
class Tally:
    tasks: int = 0
    files: int = 0
    expected: int = 0
    kept: int = 0
    named_drops: int = 0
    silent: int = 0
    spans_skipped: int = 0
    failures: list = field(default_factory=list)


def _chosen(annotations: list[Annotation]) -> Annotation:
    timed = all(a.time() is not None for a in annotations)
    return max(enumerate(annotations), key=lambda p: (p[1].ground_truth, p[1].time() if timed else 0, p[0]))[1]


def _warned(warnings: list[str], path: Path, task: Task, *parts: str) -> bool:
    head = f"{path}:"
    return any(w.startswith(head) and f"task {task.ident}:" in w and all(p in w for p in parts) for w in warnings)


def _skipped_ids(warnings: list[str], path: Path, task: Task) -> set[int]:
    out = set()
    for w in warnings:
        if w.startswith(f"{path}:") and f"task {task.ident}: annotator" in w and "skipped " in w:
            for said in w.split("skipped ", 1)[1].split(", "):
                if said.startswith("id "):
                    out.add(int(said.split()[1]))
    return out


def _check_task(task: Task, sentence, warnings: list[str], path: Path, tally: Tally) -> None:
    n = len(task.words)
    live = [a for a in task.annotations if not a.cancelled]
    cancelled = len(task.annotations) - len(live)
    tally.tasks += 1
    if tuple(sentence.tokens) != tuple(task.words):
        raise AssertionError(f"task {task.ident}: tokens {sentence.tokens} for {task.words}")
    if cancelled:
        if _warned(warnings, path, task, f"{cancelled} cancelled annotation(s) skipped"):
            tally.named_drops += cancelled
        else:
            tally.silent += cancelled
    lost = sum(a.lost_spans for a in live)
    if lost:
        found = sum(
            1
            for w in warnings
            if w.kind == SKIPPED_SPAN
            and w.startswith(f"{path}:")
            and re.search(rf"\btask {task.ident}[,:]", w)
            and "hypertextlabels span" in w
        )
        tally.spans_skipped += min(found, lost)
        tally.silent += max(0, lost - found)
    if len(live) == 1 and live[0].who is None:
        tally.expected += 1
        if sentence.annotator_labels or tuple(sentence.annotations) != _bio(n, live[0].spans):
            raise AssertionError(f"task {task.ident}: the one nameless annotation is not the training labels")
        tally.kept += 1
        return
    groups = collections.defaultdict(list)
    for a in live:
        if a.who is not None:
            groups[a.name].append(a)
    skipped = _skipped_ids(warnings, path, task)
    answers = dict(sentence.annotator_labels)
    for name, offered in groups.items():
        tally.expected += 1
        keep = _chosen(offered)
        got = answers.pop(name, None)
        if got != _bio(n, keep.spans):
            raise AssertionError(f"task {task.ident}: annotator {name!r} got {got}, expected annotation {keep.ident}")
        tally.kept += 1
        for a in offered:
            if a is not keep:
                if a.ident in skipped:
                    tally.named_drops += 1
                else:
                    tally.silent += 1
    nameless = sorted(_bio(n, a.spans) for a in live if a.who is None)
    tally.expected += len(nameless)
    if sorted(answers.values()) != nameless:
        missing = len(nameless) - len(answers)
        tally.silent += max(0, missing)
        raise AssertionError(
            f"task {task.ident}: nameless answers {sorted(answers)} differ from the "
            f"{len(nameless)} annotations without completed_by"
        )
    tally.kept += len(nameless)


def _trial(folder: Path, tasks: list[Task], as_min: bool, tally: Tally, number: int) -> None:
    path = folder / f"export{number}.json"
    records = [row for t in tasks for row in _min_rows(t)] if as_min else [_full_task(t) for t in tasks]
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    options = {"tokenizer": "whitespace", "sentence_split": False}
    corpus = read_corpus(path, labels=LABELS, **options)
    if len(corpus.sentences) != len(tasks):
        raise AssertionError(f"{len(corpus.sentences)} sentences for {len(tasks)} tasks")
    for task, sentence in zip(tasks, corpus.sentences):
        _check_task(task, sentence, list(corpus.warnings), path, tally)
    out = folder / f"written{number}.json"
    write_corpus(corpus, out, format="labelstudio")
    again = read_corpus(out, labels=LABELS, **options)
    if [(s.tokens, s.annotations, s.annotator_labels) for s in again] != [
        (s.tokens, s.annotations, s.annotator_labels) for s in corpus
    ]:
        raise AssertionError("written back and read again, the sentences differ")


def _case(folder: Path, case: str, count: int, rng: random.Random) -> tuple[Tally, float]:
    started = time.perf_counter()
    tally, maker, number = Tally(), Maker(rng), 0
    while tally.tasks < count:
        number += 1
        tasks = _case_tasks(case, maker, rng.randrange(1, 5))
        as_min = case == "mixed" and rng.random() < 0.25
        if as_min:  # JSON-MIN holds no cancelled annotations and no ground truth
            for t in tasks:
                t.annotations = [a for a in t.annotations if not a.cancelled]
                for a in t.annotations:
                    a.ground_truth, a.created = False, None
        before = tally.tasks
        tally.files += 1
        try:
            _trial(folder, tasks, as_min, tally, number)
        except Exception as exc:  # noqa: BLE001 — every error is a counted, printed failure
            tally.tasks = before + len(tasks)
            tally.failures.append(f"{case}, file {number}: {type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
    return tally, time.perf_counter() - started


HEADER = [
    "| case | files | tasks | answers expected | kept as expected | dropped with a word | spans skipped with a word "
    "| silent drops (target 0) | failed files (target 0) | time |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
]


def run(folder: Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Every case at ``scale`` times :data:`TASKS`; markdown lines and the number of failed trials."""
    rng = random.Random(seed)
    lines = [
        "### Label Studio edge cases",
        "",
        "Randomized Label Studio exports (full JSON, and JSON-MIN in the mixed case) with one annotator's "
        "two or three annotations of a task (times, ground truth), a real annotator `unknown` beside "
        "annotations without `completed_by`, HyperText tasks labeled with `hypertextlabels` (with and "
        "without `globalOffsets`) and cancelled annotations, each read, written back and read again; every "
        "annotation must be an expected answer or named in a warning (file and task).",
        "",
        *HEADER,
    ]
    failed, failures = 0, []
    for case, tasks in TASKS.items():
        tally, seconds = _case(folder, case, max(1, round(tasks * scale)), rng)
        failed += len(tally.failures) + tally.silent
        failures += tally.failures
        lines.append(
            f"| {case} | {tally.files} | {tally.tasks} | {tally.expected} | {tally.kept} | "
            f"{tally.named_drops} | "
            f"{tally.spans_skipped} | {tally.silent} | {len(tally.failures)} | {seconds:.1f} s |"
        )
    lines.append("")
    if failures:
        lines += ["Failed files:", "", *[f"- {f}" for f in failures], ""]
    return lines, failed


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__)
