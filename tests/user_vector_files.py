"""A small fastText model of a corpus's text as a user's vectors files (.bin, .vec, gzip .vec), for the tests."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path


def write_vector_files(corpus, folder: Path):
    """``(model, {"bin": …, "vec": …, "vec.gz": …})``: vectors of the lower-cased text, 12 dimensions."""
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    text = [[t.lower() for t in s.tokens] for s in corpus.sentences]
    model = FastText(vector_size=12, window=3, min_count=2, min_n=3, max_n=5, bucket=4000, workers=1, seed=1)
    model.build_vocab(text)
    model.train(text, total_examples=len(text), epochs=2)
    paths = {"bin": folder / "small.bin", "vec": folder / "small.vec", "vec.gz": folder / "small.vec.gz"}
    save_facebook_model(model, str(paths["bin"]))
    model.wv.save_word2vec_format(str(paths["vec"]))
    with open(paths["vec"], "rb") as src, gzip.open(paths["vec.gz"], "wb") as dst:
        shutil.copyfileobj(src, dst)
    return model, paths
