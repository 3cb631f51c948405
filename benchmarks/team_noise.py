"""Teams of simulated annotators: does training on their disagreements as candidate sets pay?

Two or three simulated annotators (:mod:`_team_noise_sim`: missed entities,
type confusions, boundaries moved by one token, at stated rates, with
annotator-specific biases) label the same ``N`` sentences of a corpus
(CoNLL-2002 Spanish NER, NCBI disease).  Each learner is trained on

* ``one`` (a): the first annotator alone on ``k·N`` sentences — the same
  cost as ``k`` annotators on ``N`` sentences;
* ``majority`` (b): the per-token majority vote, ties to the first
  annotator (with two annotators: the first annotator's labels);
* ``drop`` (c): the agreed tokens, no label where anyone disagrees;
* ``candidates`` (d): the set of the answers where they disagree (a partial
  label, docs/design.md#allowed-sets), the agreed label elsewhere;
* ``majority+candidates`` (three annotators): the majority where two agree,
  the set where all three differ;
* ``candidates-no-O``: the candidate sets, with ``O`` left out where anyone
  marked an entity (a disagreement between ``O`` and an entity read as a
  missed entity);
* ``gold`` (reference, not a team's output): the true labels of the ``N``
  sentences.

Cost model: one unit per sentence one annotator labels (the sentences are
drawn at random, so tokens are proportional; the tables show them).  The
team's ``N`` sentences are the first ``N`` of the ``k·N`` of (a), so every
comparison is paired on the draw.  Two-view learners also get ``--unlabeled``
further sentences of the pool without labels, the same in every condition
(the text a project holds besides what was labeled).  Learners run at
their default parameters and each learner's default feature set, the
extractor fitted on the text of the condition's sentences; scored with
entity F1 (seqeval, :func:`tagtool.core.metrics.evaluate`) on the corpus's
test file (esp.testa, NCBI devel).

Cells are cached in ``benchmarks/results/team_noise_cells.json`` as they
finish (two runs, one per corpus, may share it).  Usage::

    python benchmarks/team_noise.py --corpora conll2002-es --seeds 0,1,2
    python benchmarks/team_noise.py --report-only
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from seqeval.metrics import f1_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _robustness_cells import CORPORA, SHARED, CellCache, code_hash, defaults_hash
from _team_noise_report import write_report
from _team_noise_sim import aggregate, classify_errors, simulate_team, team

from tagtool.core.annotation import make_annotation
from tagtool.core.features import FeatureExtractor
from tagtool.core.metrics import evaluate
from tagtool.core.snapshot import build_snapshot
from tagtool.learn import get_learner
from tagtool.services.training_setup import feature_views, view_split_for
from tagtool.store.formats import read_corpus

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / "results" / "team_noise_cells.json"
OUT = ROOT / "results" / "team_noise.md"
CONDITIONS = ("one", "majority", "drop", "candidates", "majority+candidates", "candidates-no-O", "gold")
SET_CONDITIONS = ("candidates", "majority+candidates", "candidates-no-O")
SIM_HASH = hashlib.sha1((ROOT / "_team_noise_sim.py").read_bytes()).hexdigest()[:8]

logger = logging.getLogger("team_noise")


class Data:
    """A corpus's pool (the first ``pool`` fully labeled training sentences) and its test sentences."""

    def __init__(self, name: str, pool: int):
        train_name, test_name, _ = CORPORA[name]
        self.name = name
        train, test = read_corpus(SHARED / train_name), read_corpus(SHARED / test_name)
        self.pool = [s for s in train.sentences if s.status == "full"][:pool]
        self.test = [s for s in test.sentences if s.status == "full"]
        self.gold_test = [tags(s) for s in self.test]
        self.labels = train.labels.union(test.labels)


def tags(sentence) -> list[str]:
    """The full labels of a fully labeled sentence."""
    return [next(iter(a)) for a in sentence.annotations]


class Draw:
    """One seed's sentences, the team's answers and the training sets of every condition."""

    def __init__(self, data: Data, size: int, n_team: int, n_unlabeled: int, seed: int, scale: float):
        # One order per seed, whatever the team size: the first N sentences (the team's) and the last
        # ``n_unlabeled`` (the unlabeled text) are the same for two and three annotators.
        order = np.random.default_rng(seed).permutation(len(data.pool))
        if size * n_team + n_unlabeled > len(order):
            raise ValueError(f"{size}·{n_team} + {n_unlabeled} sentences exceed the pool of {len(order)}")
        self.data, self.size, self.n_team = data, size, n_team
        self.sentences = [data.pool[i] for i in order[: size * n_team]]
        self.unlabeled = [data.pool[i].unlabeled() for i in order[len(order) - n_unlabeled :]]
        self.annotators = team(data.name, size, scale)
        self.answers = simulate_team([(s.tokens, tags(s)) for s in self.sentences], self.annotators, seed)

    def labeled(self, condition: str) -> list:
        """The training sentences of ``condition`` (module docstring)."""
        if condition == "one":
            return [self._with(s, [{t} for t in a]) for s, a in zip(self.sentences, self.answers[0])]
        shared = self.sentences[: self.n_team]
        if condition == "gold":
            return list(shared)
        return [self._with(s, aggregate([a[i] for a in self.answers], condition)) for i, s in enumerate(shared)]

    def _with(self, sentence, annotations):
        labels = self.data.labels
        return replace(
            sentence, annotations=tuple(make_annotation(a, labels) for a in annotations), annotator_labels={}
        )

    def stats(self) -> dict:
        """Measured noise of the team's ``N`` sentences: each annotator against gold, each pair, the labels."""
        gold = [tags(s) for s in self.sentences[: self.n_team]]
        team_answers = [a[: self.n_team] for a in self.answers]
        record = {"annotators": [a.name for a in self.annotators], "vs_gold": [], "errors": [], "pairs": {}}
        for answers in team_answers:
            record["vs_gold"].append(100.0 * f1_score(gold, answers))
            counts: dict[str, int] = {}
            for g, a in zip(gold, answers):
                for kind, n in classify_errors(g, a).items():
                    counts[kind] = counts.get(kind, 0) + n
            record["errors"].append(counts)
        for i in range(self.size):
            for j in range(i + 1, self.size):
                record["pairs"][f"{i + 1}-{j + 1}"] = 100.0 * f1_score(team_answers[i], team_answers[j])
        record["tokens_team"] = sum(len(s) for s in self.sentences[: self.n_team])
        record["tokens_one"] = sum(len(s) for s in self.sentences)
        record["labels"] = {c: label_stats(self.labeled(c), gold) for c in CONDITIONS[1:6] if self._has(c)}
        return record

    def _has(self, condition: str) -> bool:
        return condition != "majority+candidates" or self.size >= 3


def label_stats(sentences, gold) -> dict:
    """Per-token share (%) of full labels that are wrong, of candidate sets, of sets holding the truth, of no label."""
    n = wrong = sets = right_sets = empty = 0
    for sentence, truth in zip(sentences, gold):
        for ann, y in zip(sentence.annotations, truth):
            n += 1
            wrong += len(ann) == 1 and y not in ann
            sets += len(ann) > 1
            right_sets += len(ann) > 1 and y in ann
            empty += not ann
    return {
        "wrong_full": 100.0 * wrong / n,
        "sets": 100.0 * sets / n,
        "sets_with_truth": 100.0 * right_sets / n,
        "no_label": 100.0 * empty / n,
    }


def fit(draw: Draw, learner_name: str, condition: str):
    """``(model, labeled sentences, training snapshot, test snapshot, seconds)`` of one cell."""
    data = draw.data
    lab = draw.labeled(condition)
    cls = get_learner(learner_name)
    learner = cls()
    unl = draw.unlabeled if "none" in cls.uses else []
    extractor = FeatureExtractor(feature_set=cls.default_features.get("feature_set", "default")).fit(lab + unl)
    views = feature_views(extractor, view_split_for(cls, None, 0, extractor))
    train = build_snapshot(lab + unl, data.labels, extractor, views)
    test = build_snapshot(data.test, data.labels, extractor, views)
    started = time.perf_counter()
    model = learner.fit(train)
    return model, lab, train, test, time.perf_counter() - started


def run_cell(draw: Draw, learner_name: str, condition: str) -> dict:
    """Train ``learner_name`` on ``condition``'s labels of ``draw`` and score it on the test sentences."""
    model, lab, _, test, seconds = fit(draw, learner_name, condition)
    unl = draw.unlabeled if "none" in get_learner(learner_name).uses else []
    result = evaluate(draw.data.gold_test, model.predict_labels(test), draw.data.labels)
    return {
        "f1": 100.0 * result.f1,
        "precision": 100.0 * result.precision,
        "recall": 100.0 * result.recall,
        "token_error": 100.0 * result.token_error,
        "train_seconds": seconds,
        "sentences": len(lab),
        "tokens": sum(len(s) for s in lab),
        "unlabeled": len(unl),
    }


def set_resolution(draw: Draw, learner_name: str, condition: str) -> dict:
    """How the trained model resolves the candidate sets of its own training sentences.

    The constrained Viterbi path (inside every allowed set) on the labeled
    sentences, at the tokens with a candidate set: the share (%) resolved to
    the true label, and of the sets whose truth is an entity label, the share
    resolved to ``O``; also the same model's unconstrained prediction there.
    """
    model, lab, train, _, _ = fit(draw, learner_name, condition)
    n_lab = len(lab)
    constrained = model.predict_labels(train, constrained=True)[:n_lab]
    free = model.predict_labels(train)[:n_lab]
    gold = [tags(s) for s in draw.sentences[: draw.n_team]]
    n = right = entity = entity_to_o = free_right = 0
    for sentence, truth, path, guess in zip(lab, gold, constrained, free):
        for ann, y, c, f in zip(sentence.annotations, truth, path, guess):
            if len(ann) > 1:
                n += 1
                right += c == y
                free_right += f == y
                entity += y != "O"
                entity_to_o += y != "O" and c == "O"
    return {
        "sets": n,
        "resolved_right": 100.0 * right / max(n, 1),
        "free_right": 100.0 * free_right / max(n, 1),
        "entity_sets": entity,
        "entity_to_o": 100.0 * entity_to_o / max(entity, 1),
    }


def cell_key(args, corpus: str, size: int, seed: int, learner: str, condition: str) -> str:
    """Everything a cell depends on: the setting, the noise code, the learner's defaults and code."""
    return (
        f"{corpus}|k={size}|N={args.team_sentences}|U={args.unlabeled}|seed={seed}|scale={args.scale}"
        f"|pool={args.pool}|{learner}|{condition}|sim={SIM_HASH}|params={defaults_hash(learner)}"
        f"|code={code_hash(learner)}"
    )


def draw_key(args, corpus: str, size: int, seed: int) -> str:
    return (
        f"draw|{corpus}|k={size}|N={args.team_sentences}|U={args.unlabeled}|seed={seed}|scale={args.scale}"
        f"|pool={args.pool}|sim={SIM_HASH}"
    )


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default="conll2002-es,ncbi-disease")
    p.add_argument("--annotators", default="3,2", help="team sizes k, comma-separated (2 or 3)")
    p.add_argument("--team-sentences", type=int, default=300, help="N: sentences every team member labels")
    p.add_argument("--unlabeled", type=int, default=500, help="unlabeled sentences for two-view learners")
    p.add_argument("--learners", default="crf,wdpsl,mv-perceptron")
    p.add_argument("--conditions", default=",".join(CONDITIONS))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--scale", type=float, default=1.0, help="multiplier of every error rate")
    p.add_argument("--pool", type=int, default=4000, help="first sentences of the training file drawn from")
    p.add_argument("--budget-minutes", type=float, default=None, help="stop starting new cells after this")
    p.add_argument("--cache", type=Path, default=CACHE)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--report-only", action="store_true")
    p.add_argument(
        "--diagnose",
        action="store_true",
        help="instead of scoring: how each learner resolves the candidate sets of its training sentences",
    )
    return p.parse_args(argv)


def run(args: argparse.Namespace, cache: CellCache) -> None:
    started = time.perf_counter()
    for seed in [int(s) for s in args.seeds.split(",") if s]:
        for corpus in [c for c in args.corpora.split(",") if c]:
            data = Data(corpus, args.pool)
            for size in [int(k) for k in args.annotators.split(",") if k]:
                draw = Draw(data, size, args.team_sentences, args.unlabeled, seed, args.scale)
                key = draw_key(args, corpus, size, seed)
                if key not in cache:
                    cache.put(key, draw.stats())
                for learner in [n for n in args.learners.split(",") if n]:
                    for condition in [c for c in args.conditions.split(",") if c]:
                        if not draw._has(condition) or (condition == "gold" and size != max_size(args)):
                            continue
                        key = ("diag|" if args.diagnose else "") + cell_key(
                            args, corpus, size, seed, learner, condition
                        )
                        if key in cache or (args.diagnose and condition not in SET_CONDITIONS):
                            continue
                        if args.budget_minutes and time.perf_counter() - started > 60 * args.budget_minutes:
                            print("budget spent: stopping (the cache keeps what finished)", file=sys.stderr)
                            return
                        if args.diagnose:
                            cache.put(key, set_resolution(draw, learner, condition))
                            print(f"{key}: {cache.cells[key]}", file=sys.stderr, flush=True)
                            continue
                        record = run_cell(draw, learner, condition)
                        cache.put(key, record)
                        print(
                            f"{corpus} k={size} seed {seed} {learner} {condition}: F1 {record['f1']:.1f} "
                            f"({record['train_seconds']:.0f} s)",
                            file=sys.stderr,
                            flush=True,
                        )


def max_size(args) -> int:
    """The largest team size of the run: the ``gold`` reference is trained once per draw of that size."""
    return max(int(k) for k in args.annotators.split(",") if k)


def main(argv=None) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    cache = CellCache(args.cache)
    if not args.report_only:
        started = time.perf_counter()
        run(args, cache)
        minutes = (time.perf_counter() - started) / 60
        cache.put(f"run|{' '.join(sys.argv[1:])}", {"argv": sys.argv[1:], "minutes": minutes})
        print(f"run took {minutes:.1f} min", file=sys.stderr)
    write_report(CellCache(args.cache), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
