"""The corpora, the cached cells and one cell's run of benchmarks/robustness.py."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tagtool.core.corpus import Corpus as TagCorpus
from tagtool.core.corpus import Document
from tagtool.core.features import FeatureExtractor
from tagtool.core.features.wordreps import WordRepresentations
from tagtool.core.metrics import evaluate
from tagtool.core.snapshot import build_snapshot
from tagtool.learn import get_learner
from tagtool.services.experiment.config import ExperimentConfig
from tagtool.services.experiment.runner import Experiment
from tagtool.services.represent import RepresentationSettings, learn_representations
from tagtool.services.training_setup import feature_views, view_split_for
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
#: Learned word representations, one ``.npz`` per corpus (outside the repository: 10-40 MB each).
REPS_DIR = Path(os.environ.get("TAGTOOL_BENCH_CACHE", Path.home() / ".cache" / "tagtool-bench")) / "robustness"

#: name -> (training file, test file or None to split the training file, POS column for CRFsuite or None).
CORPORA = {
    "conll2000": ("conll2000/train.txt", "conll2000/test.txt", "col1"),
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testa", "col1"),
    "ptb-pos": ("ptb-sample/wsj_sample.word_pos.txt", None, None),
    "ud-ewt-upos": ("ud-en-ewt/en_ewt-ud-train.conllu", "ud-en-ewt/en_ewt-ud-dev.conllu", None),
    "ncbi-disease": ("ncbi-disease/train.tsv", "ncbi-disease/devel.tsv", None),
}
#: Sentences of the PTB sample kept for the pool (it has no test file: the rest, 914 sentences, is the test).
PTB_TRAIN = 3000
#: Semi-supervised learner -> its supervised twin (module docstring of robustness.py).
TWINS = {"cosvm": "svm", "mv-perceptron": "perceptron", "entropy-crf": "crf", "wdpsl": "crf"}
#: Other supervised learners a semi-supervised one is compared with in the tables (not in the summary).
ALSO = {"wdpsl": ("svm",)}
CRFSUITE_PARAMS = {"c1": 0.1, "c2": 0.1, "max_iterations": 100, "feature.possible_transitions": True}


class CellCache:
    """Finished cells in one JSON file, written atomically after every cell."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.cells: dict[str, dict] = json.loads(self.path.read_text()) if self.path.exists() else {}

    @staticmethod
    def key(corpus: str, spec: tuple[str, str], labeled: int, unlabeled: int, repeat: int, seed: int, pool: int) -> str:
        """Everything a cell's result depends on, the learner's default parameters included (as a hash)."""
        learner, features = spec
        return (
            f"{corpus}|{learner}|{features}|L={labeled}|U={unlabeled}|r={repeat}|seed={seed}|pool={pool}"
            f"|params={defaults_hash(learner)}|code={code_hash(learner)}"
        )

    def __contains__(self, key: str) -> bool:
        return key in self.cells

    def put(self, key: str, record: dict) -> None:
        """Add a cell and write the file, keeping the cells other runs wrote meanwhile (two runs may share it)."""
        with self._locked():
            if self.path.exists():
                self.cells = {**json.loads(self.path.read_text()), **self.cells}
            self.cells[key] = record
            self.save()

    @contextlib.contextmanager
    def _locked(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def prune(self) -> int:
        """Drop the cells run with other default parameters or other code than the present ones."""
        stale = [key for key in self.cells if not CellKey.parse(key).current]
        for key in stale:
            del self.cells[key]
        self.save()
        return len(stale)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as out:
            json.dump(self.cells, out, indent=0, sort_keys=True)
        os.replace(tmp, self.path)


#: The code a cell's result depends on: learners, decoders, features, the pipeline and the draws.
CODE_PATHS = (
    "tagtool/learn",
    "tagtool/decode",
    "tagtool/core",
    "tagtool/services/pipeline.py",
    "tagtool/services/training_setup.py",
    "tagtool/services/experiment",
    "tagtool/services/represent.py",
)
#: Files there no result depends on: the learner registry and the app's default learner.
CODE_EXCLUDED = ("tagtool/learn/__init__.py",)
_SVM = ("svm", "cosvm")
#: Files only some learners import (directly or not): a change there leaves the others' cells current.
#: Every other file of CODE_PATHS counts for every learner.
LEARNER_FILES = {
    "tagtool/learn/cosvm.py": ("cosvm",),
    "tagtool/learn/cosvm_agreement.py": ("cosvm",),
    "tagtool/learn/svm.py": _SVM,
    **{
        f"tagtool/learn/structsvm/{name}.py": _SVM
        for name in ("__init__", "layout", "_joint_kernels", "search", "subqp", "_dual_kernels", "trainer")
    },
    "tagtool/learn/structsvm/coviews.py": ("cosvm",),
    "tagtool/learn/qp.py": (*_SVM, "wdpsl"),
    "tagtool/learn/crf.py": ("crf", "entropy-crf"),
    "tagtool/learn/_crf_kernels.py": ("crf", "entropy-crf"),
    "tagtool/learn/crf_objective.py": ("crf", "entropy-crf"),
    "tagtool/learn/lbfgs.py": ("crf", "entropy-crf"),
    "tagtool/learn/_lbfgs_kernels.py": ("crf", "entropy-crf"),
    "tagtool/learn/perceptron.py": ("perceptron", "mv-perceptron"),
    "tagtool/learn/perceptron_run.py": ("perceptron", "mv-perceptron"),
    "tagtool/learn/_perceptron_kernels.py": ("perceptron", "mv-perceptron"),
    "tagtool/learn/unlabeled.py": ("cosvm", "mv-perceptron", "entropy-crf", "crf", "perceptron"),
    "tagtool/learn/wdpsl.py": ("wdpsl",),
    **{
        f"tagtool/learn/piecewise/{name}.py": ("wdpsl",)
        for name in (
            "__init__",
            "pieces",
            "_piece_kernels",
            "dual",
            "_block_kernels",
            "_block_gram_kernels",
            "_working_set_kernels",
        )
    },
    "tagtool/learn/hmm.py": ("hmm",),
}


@functools.cache
def code_hash(learner: str) -> str:
    """Short hash of the source files ``learner``'s cells depend on (:data:`CODE_PATHS`, :data:`LEARNER_FILES`).

    A cell run with other code is stale: it is kept in the cache but not
    shown, and ``--prune`` drops it.
    """
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha1()
    for name in CODE_PATHS:
        path = root / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            relative = str(file.relative_to(root))
            if relative in CODE_EXCLUDED or learner not in LEARNER_FILES.get(relative, (learner,)):
                continue
            digest.update(relative.encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:8]


def defaults_hash(learner: str) -> str:
    """Short hash of a learner's default parameters (seeds aside): a changed default makes new cells."""
    if learner == "crfsuite":
        params = CRFSUITE_PARAMS
    else:
        params = {k: v for k, v in get_learner(learner).param_defaults().items() if k != "random_state"}
    return hashlib.sha1(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:8]


def _corpus_of(sentences) -> TagCorpus:
    sentences = list(sentences)
    names = {n for s in sentences for a in s.annotations for n in a}
    from tagtool.core.labels import LabelSet

    return TagCorpus(LabelSet.from_observed(names), [Document("ptb-sample", tuple(sentences))])


class Corpus:
    """One corpus of the suite: training data, test sentences, draws and featurised arrays."""

    def __init__(self, name: str, pool: int, seed: int):
        train_name, test_name, self.pos_column = CORPORA[name]
        self.name, self.pool_size, self.seed = name, pool, seed
        data = read_corpus(SHARED / train_name)
        if test_name is None:
            data, test = _corpus_of(data.sentences[:PTB_TRAIN]), _corpus_of(data.sentences[PTB_TRAIN:])
        else:
            test = read_corpus(SHARED / test_name)
        self.data, self.test_corpus = data, test
        self.test = [s for s in test if s.status == "full"]
        self.gold = [[next(iter(a)) for a in s.annotations] for s in self.test]
        self._experiments: dict[tuple[int, int], Experiment] = {}
        self._arrays: dict[tuple, tuple] = {}
        self._representations: WordRepresentations | None = None

    def representations(self) -> WordRepresentations:
        """FastText representations at the app's defaults, learned once from the training text (never the test).

        The training file stands for the raw text a user adds to a project
        (``tagtool text``); every draw's L + U sentences are part of it.
        Kept in :data:`REPS_DIR` under a hash of the text and the settings,
        and always read back from those bytes, so a resumed run uses the
        same arrays as a fresh one.
        """
        if self._representations is None:
            settings = RepresentationSettings()
            text = [list(s.tokens) for s in self.data]
            digest = hashlib.sha1(json.dumps([text, repr(settings)]).encode()).hexdigest()[:12]
            path = REPS_DIR / f"{self.name}-{digest}.npz"
            if not path.exists():
                started = time.perf_counter()
                reps = learn_representations(text, settings)
                REPS_DIR.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=REPS_DIR, suffix=".tmp")
                with os.fdopen(fd, "wb") as out:
                    out.write(reps.to_bytes())
                os.replace(tmp, path)
                print(
                    f"{self.name}: representations of {reps.info['n_tokens']} tokens learned in "
                    f"{time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            self._representations = WordRepresentations.from_bytes(path.read_bytes())
        return self._representations

    def experiment(self, labeled: int, unlabeled: int) -> Experiment:
        key = (labeled, unlabeled)
        if key not in self._experiments:
            config = ExperimentConfig(
                learner="crf",
                labeled=(labeled,),
                unlabeled=(unlabeled,),
                holdout=0,
                repeats=1,
                min_length=1,
                max_length=10**6,
                pool=self.pool_size,
                seed=self.seed,
            )
            self._experiments[key] = Experiment(config, self.data, self.test_corpus)
        return self._experiments[key]

    def sentences(self, labeled: int, unlabeled: int, repeat: int):
        """``(labeled, unlabeled sentences (labels removed), learner seed, labels)``; L = 0: the whole file."""
        if labeled == 0:
            full = [s for s in self.data if s.status == "full"]
            return full, [], 0, self.data.labels.union(self.test_corpus.labels)
        experiment = self.experiment(labeled, unlabeled)
        draw, seed = experiment.repeat_draw(labeled, unlabeled, repeat)
        pool = experiment.pool
        return ([pool[i] for i in draw.labeled], [pool[i].unlabeled() for i in draw.unlabeled], seed, experiment.labels)

    def extractor(self, labeled: int, unlabeled: int, repeat: int, feature_set: str):
        """The repeat's extractor, fitted on the text of its labeled and unlabeled sentences (kept for reuse)."""
        key = (labeled, unlabeled, repeat, feature_set)
        if key not in self._arrays:
            if len(self._arrays) > 4:
                self._arrays.clear()
            lab, unl, seed, labels = self.sentences(labeled, unlabeled, repeat)
            reps = self.representations() if uses_representations(feature_set) else None
            extractor = FeatureExtractor(feature_set=feature_set, representations=reps).fit(lab + unl)
            self._arrays[key] = (extractor, lab, unl, seed, labels)
        return self._arrays[key]


def uses_representations(feature_set: str) -> bool:
    return any(part.startswith("dist") for part in feature_set.split("+"))


def scores(corpus: Corpus, predicted: list[list[str]], labels) -> dict:
    """Token error and F1 (%, accuracy for non-span label sets), and what a collapse check needs."""
    result = evaluate(corpus.gold, predicted, labels)
    flat_pred = [y for s in predicted for y in s]
    flat_gold = [y for s in corpus.gold for y in s]
    values, counts = np.unique(np.array(flat_pred, dtype=object), return_counts=True)
    top = str(values[counts.argmax()])
    return {
        "token_error": 100.0 * result.token_error,
        "f1": 100.0 * result.f1,
        "span": bool(result.span_scheme),
        "top_label": top,
        "top_share_pred": float(counts.max() / len(flat_pred)),
        "top_share_gold": float(np.mean(np.array(flat_gold, dtype=object) == top)),
    }


def run_cell(corpus: Corpus, spec: tuple[str, str], labeled: int, unlabeled: int, repeat: int) -> dict:
    """Train one learner on one draw and score it on the corpus's test sentences."""
    name, feature_set = spec
    if name == "crfsuite":
        return _run_crfsuite(corpus, labeled, unlabeled, repeat)
    extractor, lab, unl, seed, labels = corpus.extractor(labeled, unlabeled, repeat, feature_set)
    cls = get_learner(name)
    learner = cls()
    params = {p: seed for p in ("random_state",) if p in learner.param_names()}
    learner.set_params(**params)
    views = feature_views(extractor, view_split_for(cls, None, seed, extractor))
    train = build_snapshot(lab + (unl if "none" in cls.uses else []), labels, extractor, views)
    test = build_snapshot(corpus.test, labels, extractor, views)
    started = time.perf_counter()
    model = learner.fit(train)
    record = {"train_seconds": time.perf_counter() - started, "sentences": len(lab), "unlabeled": len(unl)}
    record.update(scores(corpus, model.predict_labels(test), labels))
    guard = model.info.get("unlabeled")
    if guard is not None:
        record["guard"] = guard
        other = model.extras.get("alternative")
        if other is not None:
            record["other"] = scores(corpus, other.predict_labels(test), labels)
    return record


def _crfsuite_features(sentence, pos_column) -> list[dict]:
    if pos_column is not None:
        from crfsuite_compare import word2features

        pairs = list(zip(sentence.tokens, sentence.columns[pos_column]))
        return [word2features(pairs, k) for k in range(len(pairs))]
    from ud_pos import word2features

    return [word2features(list(sentence.tokens), k) for k in range(len(sentence))]


def _run_crfsuite(corpus: Corpus, labeled: int, unlabeled: int, repeat: int) -> dict:
    """CRFsuite (L-BFGS, c1 = c2 = 0.1, 100 iterations, the sklearn-crfsuite template) on the labeled sentences."""
    import pycrfsuite

    lab, _, _, labels = corpus.sentences(labeled, unlabeled, repeat)
    trainer = pycrfsuite.Trainer(verbose=False)
    for s in lab:
        trainer.append(_crfsuite_features(s, corpus.pos_column), [next(iter(a)) for a in s.annotations])
    trainer.set_params(CRFSUITE_PARAMS)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.crfsuite")
        started = time.perf_counter()
        trainer.train(path)
        seconds = time.perf_counter() - started
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        predicted = [tagger.tag(_crfsuite_features(s, corpus.pos_column)) for s in corpus.test]
        tagger.close()
    record = {"train_seconds": seconds, "sentences": len(lab), "unlabeled": 0}
    record.update(scores(corpus, predicted, labels))
    return record


@dataclass(frozen=True)
class CellKey:
    """A parsed cache key."""

    corpus: str
    learner: str
    features: str
    labeled: int
    unlabeled: int
    repeat: int
    params: str
    code: str

    @classmethod
    def parse(cls, key: str) -> CellKey:
        corpus, learner, features, lab, unl, rep, _seed, _pool, params, *code = key.split("|")
        return cls(
            corpus,
            learner,
            features,
            int(lab[2:]),
            int(unl[2:]),
            int(rep[2:]),
            params[len("params=") :],
            code[0][len("code=") :] if code else "",
        )

    @property
    def current(self) -> bool:
        """Whether the cell was run with the learner's present default parameters and the present code."""
        return self.params == defaults_hash(self.learner) and self.code == code_hash(self.learner)
