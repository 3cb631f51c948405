"""Speed of the project store on a real corpus: import, reopen, load, edit.

Usage::

    python benchmarks/store.py [--data PATH] [--repeat N] [--keep]

Reads the corpus file with :func:`tagtool.store.formats.read_corpus`
(default: the CoNLL-2000 training set, 212k tokens), creates a new project
from it, closes it, reopens it and loads the whole corpus back, checks that
every token, column and label came back identical, prints a markdown table
and writes it to ``benchmarks/results/store.md``.  Timings are the median of
``--repeat`` runs, each on a fresh file.  Targets (docs/design.md#project-file and the
big-project goals): import under 10 s, reopen under 1 s.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _results import machine_lines

from tagtool.core import Corpus, Document
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

DEFAULT_DATA = SHARED_DATA / "conll2000/train.txt"
RESULT = Path(__file__).resolve().parent / "results" / "store.md"
TARGETS = {"create + import": 10.0, "reopen": 1.0}


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def check_identical(expected: Corpus, actual: Corpus) -> None:
    """Every label, document, token, column, meta and annotation equal."""
    assert actual.labels.names == expected.labels.names, "label sets differ"
    assert len(actual.documents) == len(expected.documents), "document counts differ"
    for d, (a, b) in enumerate(zip(expected.documents, actual.documents)):
        assert a.name == b.name, f"document {d}: name differs"
        assert len(a.sentences) == len(b.sentences), f"document {d}: sentence counts differ"
        for i, (x, y) in enumerate(zip(a.sentences, b.sentences)):
            where = f"document {d}, sentence {i}"
            assert x.tokens == y.tokens, f"{where}: tokens differ"
            assert dict(x.columns) == dict(y.columns), f"{where}: columns differ"
            assert dict(x.meta) == dict(y.meta), f"{where}: meta differs"
            assert x.annotations == y.annotations, f"{where}: annotations differ"
    assert actual == expected


def run_once(corpus: Corpus, folder: Path, run: int) -> dict[str, float]:
    path = folder / f"bench-{run}.tagproj"
    times = {}
    times["create + import"], project = _timed(lambda: Project.create(path, corpus))
    project.close()
    times["reopen"], project = _timed(lambda: Project.open(path))
    project.close()

    def reopen_and_load():
        with Project.open(path) as p:
            return p.corpus()

    times["reopen + load all"], loaded = _timed(reopen_and_load)
    check_identical(corpus, loaded)

    with Project.open(path) as p:
        n = p.n_sentences
        times["list page (50 rows, last page, status filter)"], _ = _timed(
            lambda: (
                p.listing.sentence_summaries(status="incomplete", offset=max(n - 50, 0), limit=50)
                + p.listing.sentence_summaries(status="full", offset=max(n - 50, 0), limit=50)
            )
        )
        times["list search (LIKE over all sentences)"], _ = _timed(
            lambda: p.listing.count_sentences(search="the pound")
        )
        ids = p.sentence_ids()
        edit_times = []
        for k in range(50):
            sid = ids[(k * 997) % len(ids)]
            dt, _ = _timed(lambda: p.set_annotation(sid, 0, [p.labels[k % len(p.labels)]]))
            edit_times.append(dt)
        times["one committed edit (median of 50)"] = statistics.median(edit_times)
    times["file size (MB)"] = path.stat().st_size / 1e6
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    return times


def _machine() -> list[str]:
    return machine_lines(versions=f", SQLite {sqlite3.sqlite_version}")


def scaled(corpus: Corpus, k: int) -> Corpus:
    """``k`` copies of every document, as separate documents (a large project)."""
    documents = [Document(f"{d.name}#{i + 1}", d.sentences) for i in range(k) for d in corpus.documents]
    return Corpus(corpus.labels, documents)


def _medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def _shown(name: str, value: float) -> str:
    if name.startswith("file size"):
        return f"{value:.1f} MB"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--scale", type=int, default=0, help="also time a project of SCALE copies of the corpus (one run)"
    )
    parser.add_argument(
        "--folder", type=Path, default=None, help="where to write the project files (default: a temporary folder)"
    )
    args = parser.parse_args(argv)

    read_time, corpus = _timed(lambda: read_corpus(args.data))
    columns = {f"{len(corpus)} sentences, {corpus.n_tokens} tokens": None}
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        runs = [run_once(corpus, Path(folder), run) for run in range(args.repeat)]
        results = [{"read file (`read_corpus`)": read_time, **_medians(runs)}]
        if args.scale > 1:
            big = scaled(corpus, args.scale)
            columns[f"×{args.scale}: {len(big)} sentences, {big.n_tokens} tokens"] = None
            results.append({"read file (`read_corpus`)": float("nan"), **run_once(big, Path(folder), -1)})

    command = "python benchmarks/store.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [
        "# Project store: import, reopen, load, edit",
        "",
        f"Command: `{command.strip()}`",
        "",
        *_machine(),
        "",
        f"Data: `{args.data}` — {len(corpus.documents)} document(s), {len(corpus)} sentences, "
        f"{corpus.n_tokens} tokens, {len(corpus.labels)} labels, extra columns "
        f"{', '.join(corpus.column_names) or 'none'}. After reopening, every token, column, "
        "meta value, annotation and label is checked identical. Times are the median of "
        f"{args.repeat} runs, each on a new file (the file is read once)"
        + (
            f"; the ×{args.scale} column (the corpus repeated as {args.scale} times as many "
            "documents, the size of a large project) is one run."
            if args.scale > 1
            else "."
        ),
        "",
        "| step | " + " | ".join(columns) + " | target |",
        "|---|" + "---|" * len(columns) + "---|",
    ]
    for name in results[0]:
        cells = []
        for result in results:
            value = result[name]
            cells.append("–" if value != value else _shown(name, value))
        target = TARGETS.get(name)
        verdict = "" if target is None else (f"< {target:g} s {'✓' if results[0][name] < target else '✗'}")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {verdict} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
