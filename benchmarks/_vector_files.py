"""fastText vectors trained on raw-en (never a test file's text), saved as .bin and .vec, cached.

Shared by benchmarks/user_vectors.py: the files a user would bring, made once
under benchmarks/.cache (not in git).

    python benchmarks/_vector_files.py [--dim 100] [--epochs 3]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")
CACHE = Path(__file__).resolve().parent / ".cache"


def raw_sentences() -> list[list[str]]:
    """The raw English text's lines as token lists."""
    sentences = []
    for path in sorted((DATA / "raw-en").glob("*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            sentences += [line.split() for line in fh if line.strip()]
    return sentences


def vector_files(dim: int = 100, epochs: int = 3) -> dict[str, Path]:
    """``{"bin": …, "vec": …}``: the cached files, trained now if missing."""
    paths = {"bin": CACHE / f"raw-en-ft{dim}e{epochs}.bin", "vec": CACHE / f"raw-en-ft{dim}e{epochs}.vec"}
    if all(p.exists() for p in paths.values()):
        return paths
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    CACHE.mkdir(exist_ok=True)
    sentences = raw_sentences()
    tic = time.perf_counter()
    model = FastText(sentences, vector_size=dim, min_count=3, epochs=epochs, workers=2, seed=1)
    print(f"trained on {sum(map(len, sentences)):,} tokens in {time.perf_counter() - tic:.0f} s", file=sys.stderr)
    model.wv.save_word2vec_format(str(paths["vec"]))
    save_facebook_model(model, str(paths["bin"]))
    return paths


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    print(vector_files(args.dim, args.epochs))
