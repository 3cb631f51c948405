"""Which word-representation features to switch on, from how much text, and what unseen words get.

Representations (:func:`tagtool.services.represent.learn_representations`) are learned
once per corpus and setting from the sentences of the whole training file
(labels not read) and kept as ``.npz`` in ``--cache-dir`` (always reloaded
from those bytes, so a resumed run reads the same arrays as a fresh one).
Every feature extractor is fitted on the text of the whole training file,
i.e. on the labeled sentences plus the rest of the file as unlabeled text —
what ``train_tagger(labeled, unlabeled=rest)`` and the app do — and the
learner (``crf`` with one thread, ``perceptron``) trains on L labeled
sentences drawn at random per seed: the same draw for every variant (paired
differences, standard errors over the seeds).

Stages (``--stages``):

``features``
    Base sets ``crfsuite`` and ``default``, each alone and with ``+dist``,
    ``+dist-dims``, ``+dist+dist-dims`` from FastText (``ft``) and word2vec
    (``w2v``) at the library defaults; L = 20 / 100 / 500; ``crf`` on the
    ``default`` base only at L = 100 (its L-BFGS over 200k+ columns is what
    the time budget cannot pay at every L).
``tuning``
    ``crf`` and ``perceptron`` at L = 100 with ``crfsuite+dist`` and
    ``crfsuite+dist-dims`` for settings of :data:`TUNING` (epochs, dim,
    min_count, granularities, lower-cased text) of ``--tune-method``.
``text``
    A project holding N tokens of text: the L = 100 labeled sentences plus
    the first training sentences up to N tokens; the representations and
    the extractor both see only that text.  Gain of each of ``--text-sets``
    over its base set (the first of the stack) at N in :data:`TEXT_SIZES`.

Every cell of the ``features`` stage also counts, on the test tokens, how
the ``ft`` and ``w2v`` representations treat each word (own vector /
FastText subword vector / no feature) and whether the word occurs in the
labeled sentences, with the correct / entity-token counts of each group: the
unseen-word tables.  Scores: entity F1 (conlleval rules, checked against
:func:`tagtool.core.metrics.evaluate` once per corpus) for span corpora,
token accuracy for POS.  Finished cells are cached in ``--cells`` (JSON);
a rerun skips them.

Usage::

    python benchmarks/representations.py [--stages features,tuning,text] [--corpora es,ncbi,chunk,ptb,ud]
        [--seeds 0,1,2] [--tune-method ft] [--report-only]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _representations_report import report
from _results import write_keeping_analysis

from tagtool.core.features import FeatureExtractor
from tagtool.core.features.wordreps import WordRepresentations
from tagtool.core.metrics import evaluate
from tagtool.learn import make_learner
from tagtool.services.pipeline import train_tagger
from tagtool.services.represent import RepresentationSettings, learn_representations, spherical_kmeans
from tagtool.store.formats import read_corpus

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "representations.md"
CELLS = RESULTS / "representations.json"

#: key -> (name, train file, test file or None (split), read options, test = sentences after this many)
CORPORA = {
    "es": ("CoNLL-2002 Spanish NER", "conll2002-es/esp.train", "conll2002-es/esp.testb", {}, None),
    "es-form": ("CoNLL-2002 Spanish NER, FORM only", "conll2002-es/esp.train", "conll2002-es/esp.testb", {}, None),
    "ncbi": ("NCBI disease NER", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv", {}, None),
    "chunk": ("CoNLL-2000 chunking", "conll2000/train.txt", "conll2000/test.txt", {}, None),
    "ptb": ("PTB POS sample (FORM only)", "ptb-sample/wsj_sample.word_pos.txt", None, {}, 3000),
    "ud": (
        "UD EWT upos (FORM only)",
        "ud-en-ewt/en_ewt-ud-train.conllu",
        "ud-en-ewt/en_ewt-ud-test.conllu",
        {"label_field": "upos"},
        None,
    ),
}
#: Corpora read without their extra columns (the POS column), as raw text in a project would be.
FORM_ONLY = {"es-form": "es"}
LABELED = (20, 100, 500)
BASES = ("crfsuite", "default")
EXTENSIONS = ("+dist", "+dist-dims", "+dist+dist-dims")
METHODS = {"ft": {"method": "fasttext"}, "w2v": {"method": "word2vec"}}
#: Tuning variants: suffix -> RepresentationSettings overrides, or a special ("lower", "k:...").
TUNING = {
    "": {},
    "ep20": {"epochs": 20},
    "dim50": {"dim": 50},
    "dim200": {"dim": 200},
    "mc1": {"min_count": 1},
    "mc3": {"min_count": 3},
    "lower": "lower",
    "k32": (32, 64, 256, 1024),
    "k2048": (64, 256, 1024, 2048),
}
TEXT_SIZES = (10_000, 25_000, 50_000, 100_000, None)
TEXT_CORPORA = ("es", "ncbi", "chunk")

logger = logging.getLogger("benchmarks.representations")


# -- data and representations ---------------------------------------------------


def load_corpus(key: str) -> tuple[list, list]:
    _, train_path, test_path, options, split = CORPORA[key]
    train = _sentences(SHARED_DATA / train_path, options, key in FORM_ONLY)
    if test_path is None:
        return train[:split], train[split:]
    return train, _sentences(SHARED_DATA / test_path, options, key in FORM_ONLY)


def _sentences(path: Path, options: dict, form_only: bool) -> list:
    sentences = list(read_corpus(path, **options).sentences)
    return [replace(s, columns={}) for s in sentences] if form_only else sentences


def gold_of(sentences) -> list[list[str]]:
    return [[next(iter(a)) for a in s.annotations] for s in sentences]


def draw(n_sentences: int, seed: int, size: int) -> list[int]:
    """Indices of the labeled sentences: a prefix of one permutation per seed (L = 20 ⊂ 100 ⊂ 500)."""
    return np.random.default_rng(seed).permutation(n_sentences)[:size].tolist()


def project_text(train: list, labeled: list[int], n_tokens: int | None) -> list:
    """The labeled sentences plus the first other training sentences until ``n_tokens`` tokens (None: all)."""
    if n_tokens is None:
        return train
    chosen, total, taken = set(labeled), sum(len(train[i]) for i in labeled), []
    for i, sentence in enumerate(train):
        if total >= n_tokens:
            break
        if i not in chosen:
            taken.append(sentence)
            total += len(sentence)
    return [train[i] for i in labeled] + taken


def rep_settings(method: str, variant: str) -> tuple[RepresentationSettings, object]:
    spec = TUNING[variant]
    overrides = spec if isinstance(spec, dict) else {}
    return RepresentationSettings(**METHODS[method], **overrides), spec


def recluster(reps: WordRepresentations, ks: tuple[int, ...]) -> WordRepresentations:
    """The same vectors clustered at other granularities (capped as learn_representations caps them)."""
    cap = max(2, len(reps.words) // 4)
    ks = tuple(dict.fromkeys(min(k, cap) for k in ks))
    centres, clusters = {}, {}
    for k in ks:
        centres[k], clusters[k] = spherical_kmeans(reps.vectors, k, int(reps.info.get("kmeans_iterations", 25)))
    return WordRepresentations(
        words=reps.words,
        vectors=reps.vectors,
        clusters=clusters,
        centres=centres,
        ngrams=reps.ngrams,
        ngram_vectors=reps.ngram_vectors,
        ngram_scale=reps.ngram_scale,
        info={**reps.info, "granularities": list(ks)},
    )


class Store:
    """The JSON of finished cells and learned-representation facts, written after every change."""

    def __init__(self, path: Path, cache_dir: Path):
        self.path, self.cache_dir = Path(path), Path(cache_dir)
        self.data = json.loads(self.path.read_text()) if self.path.exists() else {"cells": {}, "reps": {}}
        self.cache_dir.mkdir(parents=True, exist_ok=True)

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=0, sort_keys=True))
        os.replace(tmp, self.path)

    def representations(self, corpus: str, repkey: str, text: list) -> WordRepresentations:
        """Learned (or cached) representations ``repkey`` = ``method[-variant][@N:seed]`` of ``text``."""
        corpus = FORM_ONLY.get(corpus, corpus)  # the same text: the same representations
        path = self.cache_dir / f"{corpus}-{repkey.replace('@', '_').replace(':', '_')}.npz"
        if not path.exists():
            method, _, rest = repkey.partition("@")[0].partition("-")
            settings, spec = rep_settings(method, rest)
            tic = time.perf_counter()
            if isinstance(spec, tuple):
                base = self.representations(corpus, method, text)
                reps = recluster(base, spec)
            else:
                if spec == "lower":
                    text = [[t.lower() for t in s.tokens] for s in text]
                reps = learn_representations(text, settings)
            seconds = time.perf_counter() - tic
            path.write_bytes(reps.to_bytes())
            self.data["reps"][f"{corpus}|{repkey}"] = {
                "seconds": round(seconds, 1), "n_words": len(reps.words), "n_tokens": reps.info["n_tokens"],
                "n_ngrams": len(reps.ngrams), "granularities": list(reps.granularities),
            }  # fmt: skip
            self.save()
            logger.info("%s %s: %s in %.1f s", corpus, repkey, reps, seconds)
        return WordRepresentations.from_bytes(path.read_bytes())


# -- scoring ----------------------------------------------------------------------


def spans(labels: list[str]) -> set[tuple[int, int, str]]:
    """conlleval chunks: start at B- or at an I- whose type differs from the previous token's."""
    out, start, kind = set(), None, None
    for i, label in enumerate([*labels, "O"]):
        prefix, _, typ = label.partition("-")
        continues = prefix == "I" and typ == kind
        if start is not None and not continues:
            out.add((start, i, kind))
            start = kind = None
        if prefix in ("B", "I") and not continues:
            start, kind = i, typ
    return out


def score(gold: list[list[str]], pred: list[list[str]], span_scheme: bool) -> float:
    if not span_scheme:
        flat = [(g == p) for gs, ps in zip(gold, pred) for g, p in zip(gs, ps)]
        return 100.0 * float(np.mean(flat))
    tp = n_pred = n_gold = 0
    for gs, ps in zip(gold, pred):
        g, p = spans(gs), spans(ps)
        tp, n_pred, n_gold = tp + len(g & p), n_pred + len(p), n_gold + len(g)
    return 200.0 * tp / (n_pred + n_gold) if n_pred + n_gold else 0.0


def word_classes(reps: WordRepresentations, words: list[str]) -> np.ndarray:
    """0 own vector (seen in the text), 1 subword vector only, 2 no representation — per test token."""
    memo = {}
    for w in set(words):
        memo[w] = 0 if reps.word_index(w) is not None else (1 if reps.subword_vector(w) is not None else 2)
    return np.array([memo[w] for w in words], dtype=np.int8)


def group_counts(gold: np.ndarray, pred: np.ndarray, classes: dict, in_labeled: np.ndarray) -> dict:
    """Per representation, class and labeled-ness: [tokens, correct, entity tp, predicted, gold entity tokens]."""
    out = {}
    for repkey, cls in classes.items():
        for c in range(3):
            for seen in (0, 1):
                m = (cls == c) & (in_labeled == seen)
                g, p = gold[m], pred[m]
                out[f"{repkey}:{c}:{seen}"] = [
                    int(m.sum()), int((g == p).sum()), int(((g == p) & (g != "O")).sum()),
                    int((p != "O").sum()), int((g != "O").sum()),
                ]  # fmt: skip
    return out


# -- cells ------------------------------------------------------------------------


class Runner:
    """Runs and caches cells of one corpus, keeping the current fitted extractor."""

    def __init__(self, store: Store, corpus: str, seeds: list[int]):
        self.store, self.corpus, self.seeds = store, corpus, seeds
        self.train, self.test = load_corpus(corpus)
        self.gold = gold_of(self.test)
        self.gold_flat = np.array([y for s in self.gold for y in s], dtype=object)
        self.words = [w for s in self.test for w in s.tokens]
        self.span_scheme = any(y.startswith("B-") for y in self.gold_flat)
        self.checked = False
        self.classes = {m: word_classes(self.reps(m), self.words) for m in METHODS}
        self.store.data.setdefault("coverage", {})[corpus] = {
            m: [float(np.mean(c == k)) for k in range(3)] for m, c in self.classes.items()
        }

    def reps(self, repkey: str, text: list | None = None) -> WordRepresentations:
        return self.store.representations(self.corpus, repkey, self.train if text is None else text)

    def key(self, learner, size, seed, feature_set, repkey, textkey="all") -> str:
        return f"{self.corpus}|{learner}|L{size}|s{seed}|{feature_set}|{repkey}|{textkey}"

    def run_group(self, feature_set, repkey, jobs, text=None, textkey="all", counts=True) -> None:
        """Cells ``jobs`` = [(learner, L, seed)] sharing one extractor fitted on ``text``."""
        todo = [j for j in jobs if self.key(*j, feature_set, repkey, textkey) not in self.store.data["cells"]]
        if not todo:
            return
        text = self.train if text is None else text
        reps = self.reps(repkey.split("@")[0] if textkey == "all" else repkey, text) if repkey != "none" else None
        extractor = FeatureExtractor(feature_set=feature_set, representations=reps).fit(text)
        self.remember_test_features(extractor)
        for learner, size, seed in todo:
            labeled = [self.train[i] for i in draw(len(self.train), seed, size)]
            self.store.data["cells"][self.key(learner, size, seed, feature_set, repkey, textkey)] = self.cell(
                extractor, learner, labeled, counts
            )
            self.store.save()

    def remember_test_features(self, extractor: FeatureExtractor) -> None:
        """Transform the test sentences once per extractor, not once per cell (the same arrays every time)."""
        transform, test, memo = extractor.transform, self.test, []

        def cached(sentences):
            if len(sentences) == len(test) and all(a is b for a, b in zip(sentences, test)):
                if not memo:
                    memo.append(transform(test))
                return memo[0]
            return transform(sentences)

        extractor.transform = cached

    def cell(self, extractor, learner: str, labeled: list, counts: bool) -> dict:
        params = {"n_jobs": 1} if learner == "crf" else {}
        tic = time.perf_counter()
        tagger = train_tagger(labeled, make_learner(learner, **params), features=extractor)
        train_s = time.perf_counter() - tic
        pred = tagger.tag(self.test)
        value = score(self.gold, pred, self.span_scheme)
        if not self.checked:  # our conlleval scorer against the project's (seqeval) once per corpus
            reference = 100 * evaluate(self.gold, pred, tagger.labels.union(LabelSetOf(self.gold))).f1
            assert abs(reference - value) < 1e-6, (reference, value)
            self.checked = True
        out = {"score": round(value, 4), "train_s": round(train_s, 2), "n_features": int(extractor.n_features_)}
        if counts:
            vocab = {w for s in labeled for w in s.tokens}
            in_labeled = np.array([w in vocab for w in self.words], dtype=np.int8)
            pred_flat = np.array([y for s in pred for y in s], dtype=object)
            out["groups"] = group_counts(self.gold_flat, pred_flat, self.classes, in_labeled)
        logger.info(
            "%s %s L=%d %s: %.2f (%.1f s)", self.corpus, learner, len(labeled), extractor.feature_set, value, train_s
        )
        return out


def LabelSetOf(gold):  # reads like the class it builds
    from tagtool.core.labels import LabelSet

    return LabelSet.from_observed({y for s in gold for y in s})


# -- stages -------------------------------------------------------------------------


def stage_features(runner: Runner, learners: list[str], sizes: list[int]) -> None:
    for repkey in ("none", *METHODS):
        for base in BASES:
            for extension in ("",) if repkey == "none" else EXTENSIONS:
                jobs = [
                    (lr, size, seed)
                    for size in sizes
                    for seed in runner.seeds
                    for lr in learners
                    if not (lr == "crf" and base == "default" and size != 100)
                ]
                runner.run_group(base + extension, repkey, jobs)


def stage_tuning(runner: Runner, learners: list[str], method: str, variants: list[str]) -> None:
    jobs = [(lr, 100, seed) for seed in runner.seeds for lr in learners]
    for variant in variants:
        repkey = f"{method}-{variant}" if variant else method
        for feature_set in ("crfsuite+dist", "crfsuite+dist-dims"):
            runner.run_group(feature_set, repkey, jobs, counts=False)


def stage_text(runner: Runner, learners: list[str], method: str, feature_sets: list[str], sizes: list) -> None:
    for seed in runner.seeds:
        labeled = draw(len(runner.train), seed, 100)
        for size in sizes:
            if size is None:
                text, textkey, repkey = None, "all", method
            else:
                text, textkey = project_text(runner.train, labeled, size), f"N{size}"
                repkey = f"{method}@{size}:{seed}"
            jobs = [(lr, 100, seed) for lr in learners]
            bases = [fs.split("+")[0] for fs in feature_sets]  # each set against its base set alone
            for feature_set in dict.fromkeys([*bases, *feature_sets]):
                fs_rep = "none" if "dist" not in feature_set else repkey
                runner.run_group(feature_set, fs_rep, jobs, text=text, textkey=textkey, counts=size is None)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stages", default="features,tuning,text")
    p.add_argument("--corpora", default=",".join(CORPORA))
    p.add_argument("--tune-corpora", default=",".join(CORPORA))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--learners", default="crf,perceptron")
    p.add_argument("--sizes", default=",".join(map(str, LABELED)), help="labeled sentences (features stage)")
    p.add_argument("--tune-method", default="ft", choices=sorted(METHODS))
    p.add_argument("--tune-variants", default=",".join(v for v in TUNING if v), help=f"of {', '.join(TUNING)}")
    p.add_argument("--tune-learners", default="crf")
    p.add_argument("--text-method", default="ft", choices=sorted(METHODS))
    p.add_argument(
        "--text-sets", default="crfsuite+dist", help="feature sets of the text stage (each against its base)"
    )
    p.add_argument("--text-sizes", default=",".join(str(n or "all") for n in TEXT_SIZES))
    p.add_argument("--cells", default=str(CELLS))
    p.add_argument("--cache-dir", default="/tmp/tagtool-representations-bench")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--report-only", action="store_true")
    return p.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logger.setLevel(logging.INFO)  # gensim and the learners log every epoch at INFO
    store = Store(Path(args.cells), Path(args.cache_dir))
    seeds, learners, stages = ([*map(int, args.seeds.split(","))], args.learners.split(","), args.stages.split(","))
    tic = time.perf_counter()
    if not args.report_only:
        for corpus in args.corpora.split(","):
            runner = Runner(store, corpus, seeds)
            if "features" in stages:
                stage_features(runner, learners, [*map(int, args.sizes.split(","))])
            if "tuning" in stages and corpus in args.tune_corpora.split(","):
                stage_tuning(
                    runner, args.tune_learners.split(","), args.tune_method, ["", *args.tune_variants.split(",")]
                )
            if "text" in stages and corpus in TEXT_CORPORA:
                sizes = [None if n == "all" else int(n) for n in args.text_sizes.split(",")]
                stage_text(runner, learners, args.text_method, args.text_sets.split(","), sizes)
        store.data.setdefault("runs", []).append(
            {"argv": sys.argv[1:], "minutes": round((time.perf_counter() - tic) / 60, 1)}
        )
        store.save()
    lines = report(
        store.data,
        CORPORA,
        command="python benchmarks/representations.py " + " ".join(sys.argv[1:]),
        tuning=[args.tune_method] + [f"{args.tune_method}-{v}" for v in TUNING if v],
        sizes=[*sorted({int(k.rsplit("|N", 1)[1]) for k in store.data["cells"] if "|N" in k}), "all"],
        text_method=args.text_method,
        text_sets=sorted({k.split("|")[4] for k in store.data["cells"] if "|N" in k and "dist" in k.split("|")[4]}),
    )
    print("\n".join(lines))
    write_keeping_analysis(Path(args.out), lines)


if __name__ == "__main__":
    main()
