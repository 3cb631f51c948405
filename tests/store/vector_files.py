"""Tiny vectors files in every layout, written by gensim, for the vectors reader's tests."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np

SENTENCES = [
    "the cat sat on the mat".split(),
    "the dog sat on the log".split(),
    "a cat and a dog met in Paris".split(),
    "Paris is a city and London is a city".split(),
] * 20


def keyed_vectors(dim: int = 6, seed: int = 0):
    """KeyedVectors of a dozen words with random values."""
    from gensim.models import KeyedVectors

    words = sorted({w for s in SENTENCES for w in s})
    kv = KeyedVectors(vector_size=dim)
    kv.add_vectors(words, np.random.default_rng(seed).normal(size=(len(words), dim)).astype(np.float32))
    return kv


def write_all(kv, folder: Path) -> dict[str, Path]:
    """``kv`` saved as word2vec text and binary, GloVe text (no header) and gzip of each."""
    paths = {"word2vec-text": folder / "w2v.txt", "word2vec-binary": folder / "w2v.bin", "glove": folder / "glove.txt"}
    kv.save_word2vec_format(str(paths["word2vec-text"]), binary=False)
    kv.save_word2vec_format(str(paths["word2vec-binary"]), binary=True)
    kv.save_word2vec_format(str(paths["glove"]), binary=False, write_header=False)
    for name in list(paths):
        paths[name + "-gz"] = gzip_copy(paths[name])
    return paths


def gzip_copy(path: Path) -> Path:
    out = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out


def fasttext_model(folder: Path, dim: int = 6):
    """A tiny fastText model trained on :data:`SENTENCES`, saved as ``ft.bin``; returns (model, path)."""
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    model = FastText(vector_size=dim, window=2, min_count=1, min_n=2, max_n=4, bucket=500, workers=1, seed=1)
    model.build_vocab(SENTENCES)
    model.train(SENTENCES, total_examples=len(SENTENCES), epochs=2)
    path = folder / "ft.bin"
    save_facebook_model(model, str(path))
    return model, path
