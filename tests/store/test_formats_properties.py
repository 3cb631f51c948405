"""Property: random corpora survive a write and a read in conll, jsonl, csv, tsv.

Tokens mix unicode, look-alikes of missing values (``NA``, ``null``), column
file syntax (``_``, ``A|B``, ``#``) and non-ASCII whitespace; annotations are
full, partial and none at random.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.store.formats import read_corpus, write_corpus

TRICKY = [
    "NA",
    "N/A",
    "null",
    "None",
    "nan",
    "NaN",
    "#",
    "##",
    "_",
    "|",
    "A|B",
    '"',
    "''",
    "``",
    "1e5",
    "-",
    "-X-",
    "\\",
    "O",
    "東京",
    "naïve",
    "😀",
    "x\u00a0y",
    "a\u2028b",
    "\x85",
    "=",
    "',\"",
    "true",
]

# No ASCII whitespace (separates CoNLL columns), no surrogates (not
# encodable), no NUL (binary), no byte-order mark (dropped at file start).
_CHARS = st.characters(
    blacklist_categories=("Cs",),
    blacklist_characters="\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x00\ufeff",
)
TOKENS = st.one_of(st.sampled_from(TRICKY), st.text(_CHARS, min_size=1, max_size=6)).filter(lambda t: t != "-DOCSTART-")
LABEL_NAMES = st.text(st.sampled_from("ABOIPERLOCnn-#$.:é"), min_size=1, max_size=4)


@st.composite
def corpora(draw, file_name: str, section_names: bool) -> Corpus:
    """A random corpus; document names as the column format would give them."""
    labels = LabelSet(draw(st.lists(LABEL_NAMES, min_size=2, max_size=6, unique=True)))
    annotation = st.one_of(
        st.just(EMPTY),
        st.sampled_from(labels.names).map(lambda n: frozenset([n])),
        st.sets(st.sampled_from(labels.names), min_size=2, max_size=len(labels)).map(
            lambda s: make_annotation(s, labels)
        ),
    )
    n_columns = draw(st.integers(0, 2))

    def sentence() -> Sentence:
        n = draw(st.integers(1, 6))
        return Sentence(
            draw(st.lists(TOKENS, min_size=n, max_size=n)),
            draw(st.lists(annotation, min_size=n, max_size=n)),
            {f"col{i + 1}": draw(st.lists(TOKENS, min_size=n, max_size=n)) for i in range(n_columns)},
        )

    n_docs = draw(st.integers(1, 3))
    if section_names:
        # Sections are numbered from 1; a first document may go unmarked.
        unmarked = draw(st.booleans())
        names = [file_name] * unmarked + [f"{file_name}:{k + 1}" for k in range(n_docs - unmarked)]
    else:
        names = draw(st.lists(st.text(_CHARS, min_size=1, max_size=8), min_size=n_docs, max_size=n_docs, unique=True))
    documents = [Document(name, [sentence() for _ in range(draw(st.integers(1, 4)))]) for name in names]
    return Corpus(labels, documents)


def _round_trip(corpus: Corpus, file_name: str) -> Corpus:
    # fsync makes a write durable, not different; hundreds of them would
    # dominate the run time.
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(os, "fsync"):
        path = Path(folder) / file_name
        write_corpus(corpus, path)
        return read_corpus(path, labels=corpus.labels)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(corpora("random.conll", section_names=True))
def test_conll_round_trip(corpus):
    assert _round_trip(corpus, "random.conll") == corpus


@SETTINGS
@given(corpora("random.jsonl", section_names=False))
def test_jsonl_round_trip(corpus):
    assert _round_trip(corpus, "random.jsonl") == corpus


@SETTINGS
@given(corpora("random.csv", section_names=False))
def test_csv_round_trip(corpus):
    assert _round_trip(corpus, "random.csv") == corpus


@settings(max_examples=30, deadline=None)
@given(corpora("random.tsv", section_names=False))
def test_tsv_round_trip(corpus):
    assert _round_trip(corpus, "random.tsv") == corpus


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8).filter(lambda t: "\x00" not in t), min_size=1, max_size=5))
def test_jsonl_keeps_any_token(tokens):
    # JSON escapes everything: spaces, tabs, line breaks, even lone surrogates.
    tokens = [t.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for t in tokens]
    corpus = Corpus.from_sentences([Sentence(tokens, [{"A"}] * len(tokens))], LabelSet(["A", "B"]), name="any.jsonl")
    assert _round_trip(corpus, "any.jsonl") == corpus
