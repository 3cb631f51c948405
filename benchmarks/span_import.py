"""Span-record import on a real corpus: speed, and how well the tokenizers
recover the gold tokens and spans from raw text.

Usage::

    python benchmarks/span_import.py [--data PATH] [--repeat N]

Turns each sentence of a CoNLL NER file (default: CoNLL-2002 Spanish
training set) into a doccano record: the tokens are detokenised (no space
before ``, . ; : ? ! ) %`` and after ``( ¿ ¡``; quotes kept spaced) and the
gold BIO chunks become character spans. Every 20 records are joined into
one text, so the sentence splitter has work to do. Then each tokenizer reads
the file back and the result is compared with the gold:

- token agreement: share of gold tokens reproduced exactly (same offsets);
- spans exact: share of gold spans whose first and last tokens are the
  gold ones after reading (snapping included);
- sentence agreement: share of gold sentence ends the splitter found.

Prints a markdown table and writes it to ``benchmarks/results/span_import.md``;
times are the median of ``--repeat`` reads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from _results import machine_lines, write_keeping_analysis

from tagtool.core.tokenize import TOKENIZERS
from tagtool.store.formats import read_corpus

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_DATA = SHARED_DATA / "conll2002-es" / "esp.train"
RESULT = Path(__file__).resolve().parent / "results" / "span_import.md"
NO_SPACE_BEFORE = set(",.;:?!)%")
NO_SPACE_AFTER = set("(¿¡")
PER_RECORD = 20


def _detokenise(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    text, offsets = "", []
    for i, token in enumerate(tokens):
        if i and token not in NO_SPACE_BEFORE and tokens[i - 1] not in NO_SPACE_AFTER:
            text += " "
        offsets.append((len(text), len(text) + len(token)))
        text += token
    return text, offsets


def _chunks(labels: list[str]) -> list[tuple[int, int, str]]:
    out: list[list] = []
    for t, label in enumerate(labels):
        if label.startswith("I-") and out and out[-1][1] == t - 1 and out[-1][2] == label[2:]:
            out[-1][1] = t
        elif label != "O":
            out.append([t, t, label[2:]])
    return [tuple(c) for c in out]


def build_records(corpus, path: Path) -> tuple[list, int]:
    """Write the doccano file; returns gold (offsets, spans, sentence ends) per record."""
    gold, sentences = [], list(corpus)
    with open(path, "w", encoding="utf-8") as fh:
        for r in range(0, len(sentences), PER_RECORD):
            text, offsets, spans, ends = "", [], [], []
            for sentence in sentences[r : r + PER_RECORD]:
                piece, offs = _detokenise(list(sentence.tokens))
                base = len(text) + (1 if text else 0)
                text += (" " if text else "") + piece
                offs = [(s + base, e + base) for s, e in offs]
                labels = [next(iter(a)) for a in sentence.annotations]
                spans += [(offs[i][0], offs[j][1], kind) for i, j, kind in _chunks(labels)]
                offsets += offs
                ends.append(offs[-1][1])
            fh.write(json.dumps({"id": r, "text": text, "label": [list(s) for s in spans]}, ensure_ascii=False) + "\n")
            gold.append((offsets, spans, ends))
    return gold, len(sentences)


def _score(read, gold) -> dict:
    tokens_ok = tokens = spans_ok = n_spans = ends_ok = n_ends = 0
    groups: list[list] = []
    for sentence in read:  # the sentences of one record (spans.py meta keys)
        if "text_start" in sentence.meta and "record_text" not in sentence.meta:
            groups[-1].append(sentence)
        else:
            groups.append([sentence])
    for (offsets, spans, ends), group in zip(gold, groups):
        text = group[0].meta.get("record_text", group[0].meta["text"])
        found, pos, found_ends, labels = [], 0, [], []
        for sentence in group:
            for token in sentence.tokens:
                k = text.find(token, pos)
                found.append((k, k + len(token)))
                pos = k + len(token)
            found_ends.append(pos)
            labels += [next(iter(a)) for a in sentence.annotations]
        tokens += len(offsets)
        tokens_ok += len(set(offsets) & set(found))
        got = {(found[i][0], found[j][1], kind) for i, j, kind in _chunks(labels)}
        n_spans += len(spans)
        spans_ok += len(set(spans) & got)
        n_ends += len(ends)
        ends_ok += len(set(ends) & set(found_ends))
    return {"tokens": tokens_ok / tokens, "spans": spans_ok / max(n_spans, 1), "ends": ends_ok / n_ends}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = read_corpus(args.data, "conll")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        gold, n_sentences = build_records(corpus, path)
        rows = []
        for name in TOKENIZERS:
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                read = read_corpus(path, tokenizer=name)
                times.append(time.perf_counter() - started)
            score = _score(read, gold)
            skipped = sum("skipped" in w for w in read.warnings)
            seconds = statistics.median(times)
            rows.append(
                f"| {name} | {seconds:.2f} | {read.n_tokens / seconds:,.0f} | {score['tokens']:.2%} | "
                f"{score['spans']:.2%} | {score['ends']:.2%} | {skipped} |"
            )
    lines = [
        "# Span-record import (doccano JSONL built from a CoNLL NER file)",
        "",
        *machine_lines(),
        f"- data: `{args.data.name}`, {n_sentences} sentences, {corpus.n_tokens} tokens, "
        f"{len(gold)} records of {PER_RECORD} sentences; median of {args.repeat} reads",
        "",
        "| tokenizer | seconds | tokens/s | gold tokens | gold spans exact | sentence ends found | spans skipped |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
    ]
    print("\n".join(lines))
    write_keeping_analysis(RESULT, lines)


if __name__ == "__main__":
    main()
