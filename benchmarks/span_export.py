"""Exports of a partly labeled project made from doccano records: file sizes, and that they read back.

Usage::

    python benchmarks/span_export.py [--data PATH] [--text-chars N] [--labeled FRACTION]

Builds doccano records from a CoNLL NER file as ``span_import.py`` does
(sentences detokenised, 20 to a record) until the records hold
``--text-chars`` characters of text (default 289,000, the size of the
review corpus that showed a 1.59 MB JSONL export), makes a project of them,
keeps the labels of the first ``--labeled`` share of the sentences (the
rest unlabeled: work under way) and exports it as JSONL token records, as
doccano span records and as Label Studio tasks. For the token records it
also gives the size of the layout written before a record's text was
written once: each sentence's ``text`` and an unlabeled sentence's
``labels`` list of nulls put back into the same records. Each export is
read back and compared with the project (tokens and labels).

Prints a markdown table and writes it to ``benchmarks/results/span_export.md``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _results import machine_lines, write_keeping_analysis
from span_import import DEFAULT_DATA, PER_RECORD, build_records

from tagtool.core.corpus import Corpus, Document
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.project import Project

RESULT = Path(__file__).resolve().parent / "results" / "span_export.md"


def _records(corpus: Corpus, path: Path, text_chars: int) -> int:
    """Write doccano records of the first sentences holding ``text_chars`` characters; their number."""
    build_records(corpus, path)
    kept, total = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        kept.append(line)
        total += len(json.loads(line)["text"])
        if total >= text_chars:
            break
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return len(kept)


def _partly_labeled(corpus: Corpus, fraction: float) -> Corpus:
    cut = int(len(corpus) * fraction)
    sentences = [s if i < cut else s.unlabeled() for i, s in enumerate(corpus)]
    return Corpus(corpus.labels, [Document(corpus.documents[0].name, sentences)])


def _old_layout(path: Path, corpus: Corpus) -> int:
    """Bytes of the token records as written before: every sentence's text, every labels list."""
    size = 0
    lines = path.read_text(encoding="utf-8").splitlines()
    for line, sentence in zip(lines, corpus, strict=True):
        record = json.loads(line)
        record.setdefault("labels", [None] * len(sentence))
        if "text" in sentence.meta:
            record.setdefault("text", sentence.meta["text"])
        size += len((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--text-chars", type=int, default=289_000)
    parser.add_argument("--labeled", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source = tmp / "records.jsonl"
        n_records = _records(read_corpus(args.data, "conll"), source, args.text_chars)
        text_bytes = sum(
            len(json.loads(line)["text"].encode("utf-8")) for line in source.read_text(encoding="utf-8").splitlines()
        )
        corpus = _partly_labeled(read_corpus(source), args.labeled)
        with Project.create(tmp / "p.tagproj", corpus) as project:
            exported = project.review.export_corpus()
        expected = [(s.tokens, s.annotations) for s in exported]
        rows = []
        for label, fmt, name in [
            ("JSONL token records", "jsonl", "t.jsonl"),
            ("doccano span records", "doccano", "d.jsonl"),
            ("Label Studio tasks", "labelstudio", "l.json"),
        ]:
            out = tmp / name
            started = time.perf_counter()
            write_corpus(exported, out, format=fmt)
            seconds = time.perf_counter() - started
            back = read_corpus(out, labels=exported.labels)
            same = [(s.tokens, s.annotations) for s in back] == expected
            size = out.stat().st_size
            if fmt == "jsonl":
                old = _old_layout(out, exported)
                rows.append(f"| {label}, as written before | {old:,} | {old / text_bytes:.2f} | | |")
            rows.append(f"| {label} | {size:,} | {size / text_bytes:.2f} | {seconds:.2f} | {'yes' if same else 'NO'} |")
    lines = [
        "# Exports of a partly labeled project (doccano records built from a CoNLL NER file)",
        "",
        *machine_lines(),
        f"- data: `{args.data.name}`, {n_records} records of {PER_RECORD} sentences, {len(corpus)} sentences, "
        f"{corpus.n_tokens} tokens, {text_bytes:,} bytes of text; the first {args.labeled:.0%} of the sentences "
        "labeled, the rest not",
        "",
        "| export | bytes | × text | seconds | reads back the same |",
        "| --- | ---: | ---: | ---: | --- |",
        *rows,
    ]
    print("\n".join(lines))
    write_keeping_analysis(RESULT, lines)


if __name__ == "__main__":
    main()
