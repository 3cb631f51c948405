"""Token and sentence boundaries of raw text: the default and whitespace tokenizers against gold.

Raw text is read as the app reads a plain text file: :func:`tagtool.core.tokenize.tokenize`
(``default``) or :func:`~tagtool.core.tokenize.whitespace_tokenize` (``whitespace``), then
:func:`~tagtool.core.tokenize.split_sentences` on that tokenizer's tokens.

Gold, two sources:

- the development corpora's tokens (CoNLL-2000 test, CoNLL-2002 Spanish testa, the PTB WSJ
  sample, NCBI disease devel), made raw text by the rule-based detokenizer of
  :mod:`benchmarks._detokenize`, ten sentences a document;
- UD English EWT (train, dev and test): each sentence's ``# text`` line, web text as written;
  gold tokens are the FORMs of its words, a multiword token's surface form in place of its
  words (``don't``), located in that text; one row more scores the words instead (``do``
  ``n't``, as PTB and the default tokenizer split them); the sentences of a ``# newpar`` paragraph (else of a
  ``# newdoc`` document) joined by a space make a document.

Token boundaries: a predicted token is right when a gold token has exactly its ``(start, end)``;
precision over predicted tokens, recall over gold tokens. Sentence boundaries: the offsets where a
sentence starts inside a document (the document's own start is given and not counted).

Prints the tables and writes benchmarks/results/tokenizer.md with examples of where the default
tokenizer fails (the analysis section below the marker is kept).

Usage: python benchmarks/tokenizer.py [--data ../shared/data] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._detokenize import detokenize
from benchmarks._results import machine_lines, write_keeping_analysis
from tagtool.core.tokenize import split_sentences, tokenize, whitespace_tokenize

ROOT = Path(__file__).resolve().parent.parent
TOKENIZERS = {"default": tokenize, "whitespace": whitespace_tokenize}
#: (name, file under --data, token column separator)
COLUMN_CORPORA = (
    ("CoNLL-2000 test (WSJ)", "conll2000/test.txt"),
    ("CoNLL-2002 Spanish testa (EFE)", "conll2002-es/esp.testa"),
    ("PTB WSJ sample", "ptb-sample/wsj_sample.word_pos.txt"),
    ("NCBI disease devel (PubMed)", "ncbi-disease/devel.tsv"),
)
EWT_FILES = ("en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu")
DOCUMENT_SENTENCES = 10
EXAMPLES = 8

Document = tuple[str, list[tuple[int, int]], list[int]]


def column_sentences(path: Path) -> list[list[str]]:
    """The token column of a column file, one list per sentence."""
    out, tokens = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields and fields[0] != "-DOCSTART-":
            tokens.append(fields[0])
        elif tokens:
            out.append(tokens)
            tokens = []
    if tokens:
        out.append(tokens)
    return out


def column_documents(path: Path) -> list[Document]:
    sentences = column_sentences(path)
    return [detokenize(sentences[i : i + DOCUMENT_SENTENCES]) for i in range(0, len(sentences), DOCUMENT_SENTENCES)]


def ewt_sentences(path: Path, words: bool = False) -> Iterator[tuple[str, str, str, list[str]]]:
    """``(document id, paragraph id, text, tokens)`` of each sentence of a CoNLL-U file.

    The tokens are the surface tokens (a multiword token's form in place of its words), or with
    ``words`` the syntactic words (``do`` ``n't`` for the multiword token ``don't``).
    """
    doc = par = text = ""
    tokens: list[str] = []
    skip_to = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# newdoc id"):
            doc = par = line.split("=", 1)[1].strip()
        elif line.startswith("# newpar id"):
            par = line.split("=", 1)[1].strip()
        elif line.startswith("# text ="):
            text = line.split("=", 1)[1].strip()
        elif not line:
            if tokens:
                yield doc, par, text, tokens
            tokens, skip_to = [], 0
        elif not line.startswith("#"):
            wid, form = line.split("\t")[:2]
            if "." in wid:
                continue  # an empty node
            if "-" in wid:
                if not words:
                    tokens.append(form)
                    skip_to = int(wid.split("-")[1])
            elif int(wid) > skip_to:
                tokens.append(form)


def _locate(text: str, tokens: list[str]) -> list[tuple[int, int]] | None:
    out, pos = [], 0
    for token in tokens:
        k = text.find(token, pos)
        if k < 0 or text[pos:k].strip():
            return None
        out.append((k, k + len(token)))
        pos = k + len(token)
    return out


def ewt_documents(folder: Path, words: bool = False) -> tuple[dict[str, list[Document]], int]:
    """EWT paragraphs as documents, by genre (the document id's first part); sentences not located."""
    paragraphs: dict[tuple[str, str], list[tuple[str, list[tuple[int, int]]]]] = {}
    lost = 0
    for name in EWT_FILES:
        for doc, par, text, tokens in ewt_sentences(folder / name, words):
            offsets = _locate(text, tokens)
            if offsets is None:
                lost += 1
                continue
            paragraphs.setdefault((doc, par), []).append((text, offsets))
    out: dict[str, list[Document]] = {}
    for (doc, _), sentences in paragraphs.items():
        pieces, offsets, starts, pos = [], [], [], 0
        for text, offs in sentences:
            starts.append(pos)
            offsets += [(pos + a, pos + b) for a, b in offs]
            pieces.append(text)
            pos += len(text) + 1
        out.setdefault(doc.split("-", 1)[0], []).append((" ".join(pieces), offsets, starts))
    return out, lost


class Score:
    """Counts of one tokenizer on one corpus, and the default tokenizer's errors."""

    def __init__(self):
        self.tok = Counter()
        self.sent = Counter()
        self.missed: Counter[str] = Counter()
        self.wrong: Counter[str] = Counter()
        self.sentence_errors: list[str] = []
        self.seconds = 0.0
        self.chars = 0

    def add(self, document: Document, tokenizer) -> None:
        text, gold, gold_starts = document
        started = time.perf_counter()
        predicted = tokenizer(text)
        ranges = split_sentences(text, predicted)
        self.seconds += time.perf_counter() - started
        self.chars += len(text)
        p, g = set(predicted), set(gold)
        self.tok.update(tp=len(p & g), pred=len(p), gold=len(g))
        self.missed.update(text[a:b] for a, b in g - p)
        self.wrong.update(text[a:b] for a, b in p - g)
        starts = {predicted[a][0] for a, _ in ranges[1:]}
        truth = set(gold_starts[1:])
        self.sent.update(tp=len(starts & truth), pred=len(starts), gold=len(truth))
        for at in sorted(starts ^ truth):
            if len(self.sentence_errors) < 200:
                kind = "split" if at in starts else "missed"
                self.sentence_errors.append(f"{kind}: …{text[max(0, at - 45) : at]}⏐{text[at : at + 30]}…")


def prf(c: Counter) -> tuple[float, float, float]:
    p = c["tp"] / c["pred"] if c["pred"] else 0.0
    r = c["tp"] / c["gold"] if c["gold"] else 0.0
    return 100 * p, 100 * r, (200 * p * r / (p + r) if p + r else 0.0)


def table(scores: dict[tuple[str, str], Score]) -> list[str]:
    lines = [
        "| corpus | tokenizer | gold tokens | token P | token R | token F1 | gold sentence breaks | "
        "sentence P | sentence R | sentence F1 | MB/s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (corpus, name), s in scores.items():
        tp, tr, tf = prf(s.tok)
        sp, sr, sf = prf(s.sent)
        speed = s.chars / s.seconds / 1e6 if s.seconds else 0.0
        lines.append(
            f"| {corpus} | {name} | {s.tok['gold']:,} | {tp:.2f} | {tr:.2f} | {tf:.2f} | "
            f"{s.sent['gold']:,} | {sp:.2f} | {sr:.2f} | {sf:.2f} | {speed:.1f} |"
        )
    return lines


def failures(scores: dict[tuple[str, str], Score]) -> list[str]:
    lines = []
    for (corpus, name), s in scores.items():
        if name != "default":
            continue
        missed = ", ".join(f"`{t}` {n}" for t, n in s.missed.most_common(EXAMPLES))
        wrong = ", ".join(f"`{t}` {n}" for t, n in s.wrong.most_common(EXAMPLES))
        lines += [
            f"**{corpus}**",
            "",
            f"- gold tokens not found (most frequent): {missed or 'none'}",
            f"- tokens found that gold lacks: {wrong or 'none'}",
        ]
        picked = [e for e in s.sentence_errors if e.startswith("split")][:3]
        picked += [e for e in s.sentence_errors if e.startswith("missed")][:3]
        lines += [f"- sentence break {e.split(': ', 1)[0]}: `{e.split(': ', 1)[1]}`" for e in picked]
        lines.append("")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "tokenizer.md")
    args = parser.parse_args()
    corpora: dict[str, list[Document]] = {}
    for name, rel in COLUMN_CORPORA:
        corpora[name] = column_documents(args.data / rel)
    ewt, lost = ewt_documents(args.data / "ud-en-ewt")
    corpora["UD EWT, all genres (`# text`)"] = [d for docs in ewt.values() for d in docs]
    for genre, docs in sorted(ewt.items()):
        corpora[f"UD EWT {genre}"] = docs
    ewt_words, lost_words = ewt_documents(args.data / "ud-en-ewt", words=True)
    corpora["UD EWT, all genres, words (`don't` = `do` `n't`)"] = [d for docs in ewt_words.values() for d in docs]
    scores: dict[tuple[str, str], Score] = {}
    for corpus, documents in corpora.items():
        for name, tokenizer in TOKENIZERS.items():
            score = scores[corpus, name] = Score()
            for document in documents:
                score.add(document, tokenizer)
    lines = [
        "# Tokenizer and sentence splitter against gold",
        "",
        *machine_lines(),
        "",
        "Command: `python benchmarks/tokenizer.py` (data: `../shared/data`, see `shared/data/SOURCES.md`). "
        "The column corpora are made raw text by the rule-based detokenizer of `benchmarks/_detokenize.py` "
        f"({DOCUMENT_SENTENCES} sentences a document); UD EWT is the `# text` of each sentence, a paragraph a "
        f"document ({lost} sentences whose forms are not found in their text left out; scoring the syntactic "
        f"words of multiword tokens instead, {lost_words}). Token scores: exact "
        "(start, end) matches; sentence scores: sentence starts inside a document. Percent.",
        "",
        *table(scores),
        "",
        "## Where the default tokenizer fails (examples)",
        "",
        *failures(scores),
    ]
    print("\n".join(table(scores)))
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
