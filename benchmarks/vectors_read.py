"""Reading word vectors a user brings: time, memory and coverage per file layout.

Trains fastText vectors (Bojanowski et al. 2017) with gensim on the raw English
text in ../shared/data/raw-en (never on a test file's text), saves them in
every layout the reader accepts (word2vec text and binary, GloVe text,
fastText .vec and .bin, gzip copies) and reads each the way a user's file is
read, keeping the words of the CoNLL-2000 training file (a project's
vocabulary).  Prints a table and writes benchmarks/results/vectors_read.md.

    python benchmarks/vectors_read.py [--dim 100] [--epochs 2]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis

from tagtool.store import vectors

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")
OUT = Path(__file__).resolve().parent / "results" / "vectors_read.md"


def raw_sentences() -> list[list[str]]:
    sentences = []
    for path in sorted((DATA / "raw-en").glob("*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            sentences += [line.split() for line in fh if line.strip()]
    return sentences


def project_words() -> list[str]:
    lines = (DATA / "conll2000" / "train.txt").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(line.split()[0] for line in lines if line.strip()))


def write_files(model, folder: Path) -> dict[str, Path]:
    from gensim.models.fasttext import save_facebook_model

    paths = {
        "word2vec text (.vec)": folder / "v.vec",
        "word2vec binary": folder / "v.w2v.bin",
        "GloVe text": folder / "v.glove.txt",
        "fastText .bin": folder / "v.ft.bin",
    }
    model.wv.save_word2vec_format(str(paths["word2vec text (.vec)"]))
    model.wv.save_word2vec_format(str(paths["word2vec binary"]), binary=True)
    model.wv.save_word2vec_format(str(paths["GloVe text"]), write_header=False)
    save_facebook_model(model, str(paths["fastText .bin"]))
    for name in ("word2vec text (.vec)", "word2vec binary", "fastText .bin"):
        gz = paths[name].with_name(paths[name].name + ".gz")
        with open(paths[name], "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        paths[name + ", gzip"] = gz
    return paths


def measure(path: Path, vocab: list[str]) -> tuple[float, int, vectors.WordVectors]:
    start = time.perf_counter()
    got = vectors.read_vectors(path, vocab)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    vectors.read_vectors(path, vocab)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    from gensim.models import FastText

    sentences = raw_sentences()
    n_words = sum(map(len, sentences))
    start = time.perf_counter()
    model = FastText(sentences, vector_size=args.dim, min_count=3, epochs=args.epochs, workers=2, seed=1)
    train_seconds = time.perf_counter() - start
    vocab = project_words()
    rows = [
        "| file | size MB | read s | peak Python MB | words kept | of them from subwords |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        reference = None
        for name, path in write_files(model, Path(folder)).items():
            seconds, peak, got = measure(path, vocab)
            exact = got.words if reference is None else reference.words
            if reference is None:
                reference = got
            index = got.index()
            same = np.allclose(np.stack([got.matrix[index[w]] for w in exact]), reference.matrix, atol=1e-5)
            rows.append(
                f"| {name} | {path.stat().st_size / 2**20:.1f} | {seconds:.2f} | {peak / 2**20:.1f} | "
                f"{len(got.words)} | {int(got.subword.sum())} |" + ("" if same else " vectors differ!")
            )
    lines = [
        "# Reading word vectors a user brings",
        "",
        "`python benchmarks/vectors_read.py` (tagtool.store.vectors). fastText vectors trained with gensim "
        f"on raw-en ({n_words:,} tokens, {len(sentences):,} lines; dim {args.dim}, {args.epochs} epochs, "
        f"min_count 3: {len(model.wv.index_to_key):,} words, {train_seconds:.0f} s), saved in each layout; "
        f"vocabulary kept: the {len(vocab):,} distinct words of conll2000/train.txt. Peak Python memory by "
        "tracemalloc in a second read (the fastText .bin's model is loaded whole by gensim).",
        "",
        *machine_lines(),
        "",
        *rows,
    ]
    print("\n".join(rows))
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    main()
