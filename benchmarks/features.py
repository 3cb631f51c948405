"""Speed of feature extraction on CoNLL-2000 train (212k tokens, 8.9k sentences).

Usage::

    python benchmarks/features.py [--repeats N] [--data PATH]

Featurises the corpus with both named feature sets (and a few variants),
timing ``fit_transform`` (vocabulary + arrays), ``transform`` with the
frozen vocabulary, and :func:`~tagtool.core.snapshot.build_snapshot`
(transform + allowed mask + view split).  For scale it also times a naive
per-token featuriser (feature-name strings per token, then a dict lookup),
the design the vectorised extractor replaces, on the first 1,000 sentences.
Prints a markdown table and writes it to ``benchmarks/results/features.md``.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import platform
import sys
import time
from pathlib import Path

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureExtractor, default_column_features, default_word_features
from tagtool.core.snapshot import build_snapshot
from tagtool.core.views import ViewSplit

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

DATA = SHARED_DATA / "conll2000/train.txt"
RESULT = Path(__file__).resolve().parent / "results" / "features.md"

CONFIGS = [
    ("default", {}),
    ("default, min_count=1", {"min_count": 1}),
    ("default, window=2", {"window": 2}),
    ("default, hashing 2^18", {"hashing": True}),
    ("crfsuite, min_count=1", {"feature_set": "crfsuite", "min_count": 1}),
    ("crfsuite", {"feature_set": "crfsuite"}),
]

logger = logging.getLogger("benchmarks.features")


def read_conll2000(path: Path) -> Corpus:
    """The corpus via the project's reader, or a few lines of parsing if that is unavailable."""
    try:
        from tagtool.store.formats import read_corpus

        return read_corpus(path, "conll")
    except ImportError:
        sentences, rows = [], []
        for line in path.read_text(encoding="utf-8").splitlines() + [""]:
            if line.strip():
                rows.append(line.split())
            elif rows:
                words, pos, chunks = zip(*rows)
                sentences.append(Sentence(words, [{c} for c in chunks], columns={"col1": pos}))
                rows = []
        return Corpus.from_sentences(sentences)


def best_of(repeats: int, fn):
    """Smallest wall time of ``repeats`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        tic = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - tic)
    return best, result


def naive_featurise(sentences) -> float:
    """Tokens/s of the per-token design: names for every token and window, then a dict."""
    vocabulary: dict[str, int] = {}
    tic = time.perf_counter()
    n_tokens = 0
    for s in sentences:
        pos = s.columns["col1"]
        base = [default_word_features(w) + default_column_features("col1", p) for w, p in zip(s.tokens, pos)]
        for i in range(len(s)):
            row = []
            for o in (-1, 0, 1):
                j = i + o
                names = base[j] if 0 <= j < len(s) else ["BOS" if o < 0 else "EOS"]
                for name in names:
                    key = name if o == 0 or name in ("BOS", "EOS") else f"{o:+d}:{name}"
                    row.append(vocabulary.setdefault(key, len(vocabulary)))
            n_tokens += 1
    return n_tokens / (time.perf_counter() - tic)


def measure(corpus: Corpus, repeats: int) -> list[dict]:
    sentences = corpus.sentences
    n_tokens = corpus.n_tokens
    rows = []
    for title, params in CONFIGS:
        fx = FeatureExtractor(**params)
        fit_time, (indptr, indices) = best_of(repeats, lambda: fx.fit_transform(sentences))
        transform_time, _ = best_of(repeats, lambda: fx.transform(sentences))
        snap_time, _ = best_of(repeats, lambda: build_snapshot(corpus, corpus.labels, fx, ViewSplit("random")))
        rows.append(
            {
                "config": title,
                "n_features": fx.n_features_,
                "nnz_per_token": len(indices) / n_tokens,
                "fit_transform": fit_time,
                "transform": transform_time,
                "snapshot": snap_time,
                "tokens_per_s": n_tokens / transform_time,
                "fit_tokens_per_s": n_tokens / fit_time,
            }
        )
        logger.info("%s: %.2f s fit_transform, %.2f s transform", title, fit_time, transform_time)
    return rows


def report(rows: list[dict], corpus: Corpus, naive_rate: float, repeats: int, command: str) -> str:
    lines = [
        "# Feature extraction speed: CoNLL-2000 train",
        "",
        f"Command: `{command}`",
        "",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- platform: {platform.platform()}",
        f"- CPU: {platform.processor() or platform.machine()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}",
        f"- corpus: {len(corpus):,} sentences, {corpus.n_tokens:,} tokens, "
        f"extra column(s) {', '.join(corpus.column_names)}",
        "",
        f"Best of {repeats} runs, single thread. `fit_transform` learns the vocabulary and returns the arrays; "
        "`transform` reuses the frozen vocabulary; `build_snapshot` = transform + allowed mask "
        "+ random view split. "
        "tokens/s is for `transform`. The machine (a small VM) was shared with other jobs while this ran: "
        "expect ±30 % between runs.",
        "",
        "| feature set | features | nnz/token | fit_transform s | transform s | build_snapshot s "
        "| tokens/s (transform) | tokens/s (fit_transform) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['config']} | {r['n_features']:,} | {r['nnz_per_token']:.1f} | {r['fit_transform']:.2f} "
            f"| {r['transform']:.2f} | {r['snapshot']:.2f} | {r['tokens_per_s'] / 1e3:.0f} k "
            f"| {r['fit_tokens_per_s'] / 1e3:.0f} k |"
        )
    lines += [
        "",
        "Naive per-token featuriser (default set, window 1, names built per token as sklearn-crfsuite's "
        f"`sent2features` does, then a dict; first 1,000 sentences): {naive_rate / 1e3:.0f} k tokens/s, "
        f"i.e. about {corpus.n_tokens / naive_rate:.0f} s for the whole corpus.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    corpus = read_conll2000(args.data)
    rows = measure(corpus, args.repeats)
    naive_rate = naive_featurise(corpus.sentences[:1000])
    args_given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python benchmarks/features.py", *args_given])
    text = report(rows, corpus, naive_rate, args.repeats, command)
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
