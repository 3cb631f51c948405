"""Every learner on the suite of development corpora, from 5 labeled sentences to the full file.

Per corpus (:data:`CORPORA`), learner and number L of labeled sentences
(with U unlabeled ones, default 500), over paired repeats: token error and
entity F1 (token accuracy for part-of-speech), the supervised twin of every
semi-supervised learner and CRFsuite on the same draws beside it, collapses
flagged.  The draws are those of ``tagtool experiment``
(:meth:`tagtool.services.experiment.runner.Experiment.repeat_draw`: they depend on the seed,
L and the repeat only), the pool the first ``--pool`` sentences of the
training file, scored on the corpus's test file.

Features: ``--features`` names a feature set (``default``, ``crfsuite``,
``crfsuite+default``, ``crfsuite+dist`` …) given to every learner, or
``defaults`` (the default): every semi-supervised learner with its own
default features and its twin with the same ones; the supervised learners
also at their own defaults.  ``defaults+dist`` adds the word-representation
clusters (``dist``) to every learner's own set; the representations are
learned once per corpus from the text of its training file (never the test
file), as a user adds raw text to a project
(:meth:`_robustness_cells.Corpus.representations`).  CRFsuite keeps its
template: it is the reference beside both runs.  The extractor of a repeat is fitted on the text
of its labeled and unlabeled sentences, as the app fits it on a project's
text, so a twin sees the same feature space and ignores the unlabeled
sentences.

Twins: ``cosvm``/``svm``, ``mv-perceptron``/``perceptron``,
``entropy-crf``/``crf``; ``wdpsl``/``crf``: WD-PSL cannot use unlabeled
sentences, so "itself without them" is itself and the comparison would be
empty; what it is for — learning from candidate sets as well as full
labels — the supervised ``crf`` does too (the marginal likelihood of a
candidate set, docs/design.md#allowed-sets), and it is the learner a user would otherwise
pick.  ``svm`` (max-margin like WD-PSL, trained on whole sequences rather
than pieces) is shown beside it in the tables.  For the three
learners with the collapse guard (:mod:`tagtool.learn.unlabeled`) both the
returned model and the one it was compared with are scored, so the table
shows what the guard chose and what the unlabeled sentences alone would
have given.

Cells are cached in ``benchmarks/results/robustness_cells.json`` as they
finish: a run can be stopped and resumed, and ``--report-only`` rewrites the
result file from the cache.  Usage::

    python benchmarks/robustness.py --corpora conll2000,ncbi --learners cosvm,svm --labeled 5,10 --repeats 5
    python benchmarks/robustness.py --features defaults+dist
    python benchmarks/robustness.py --full            # the full training files (no draws)
    python benchmarks/robustness.py --report-only
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _robustness_cells import CORPORA, TWINS, CellCache, Corpus, run_cell
from _robustness_report import write_report

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / "results" / "robustness_cells.json"
OUT = ROOT / "results" / "robustness.md"
SEMI = ("cosvm", "mv-perceptron", "entropy-crf", "wdpsl")
LEARNERS = (*SEMI, "svm", "perceptron", "crf", "hmm", "crfsuite")

logger = logging.getLogger("robustness")


def learner_specs(learners: list[str], features: str) -> list[tuple[str, str]]:
    """``(learner, feature set)`` pairs to run: each learner, plus every twin with its partner's features."""
    from tagtool.learn import get_learner

    def own(name: str) -> str:
        if name == "crfsuite":
            return "crfsuite"
        if not features.startswith("defaults"):
            return features
        own_set = get_learner(name).default_features.get("feature_set", "default")
        return own_set + features[len("defaults") :]  # "defaults+dist": each learner's own set, plus dist

    specs = [(name, own(name)) for name in learners]
    for name in learners:
        twin = TWINS.get(name)
        if twin is not None:
            specs.append((twin, own(name)))
    return list(dict.fromkeys(specs))


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default=",".join(CORPORA), help=f"comma-separated, of {', '.join(CORPORA)}")
    p.add_argument("--learners", default=",".join(LEARNERS), help="comma-separated; 'crfsuite' is python-crfsuite")
    p.add_argument("--labeled", default="5,10,20,50,100,500", help="comma-separated L")
    p.add_argument("--unlabeled", type=int, default=500, help="U, the same for every L (default 500)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--features",
        default="defaults",
        help="a feature set for every learner, 'defaults' (each learner's own) or 'defaults+dist' "
        "(each learner's own plus the word-representation clusters)",
    )
    p.add_argument("--pool", type=int, default=3000, help="sentences of the training file drawn from")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--full", action="store_true", help="train on the whole training file instead of draws")
    p.add_argument("--budget-minutes", type=float, default=None, help="stop starting new cells after this")
    p.add_argument("--cache", type=Path, default=CACHE)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--report-only", action="store_true", help="only rewrite the result file from the cache")
    p.add_argument("--prune", action="store_true", help="drop cached cells of former default parameters or code")
    return p.parse_args(argv)


def main(argv=None) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")  # the cells record the notes
    args = parse_args(argv)
    cache = CellCache(args.cache)
    if args.prune:
        print(f"{cache.prune()} cells of former defaults dropped", file=sys.stderr)
    if not args.report_only:
        run(args, cache)
    write_report(cache, args.out)
    return 0


def run(args: argparse.Namespace, cache: CellCache) -> None:
    started = time.perf_counter()
    learners = [name for name in args.learners.split(",") if name]
    specs = learner_specs(learners, args.features)
    labeled = [0] if args.full else [int(n) for n in args.labeled.split(",") if n]
    repeats = 1 if args.full else args.repeats
    corpora: dict[str, Corpus] = {}
    for n_labeled in labeled:  # every corpus at small L first: the cold start matters most
        for corpus_name in [c for c in args.corpora.split(",") if c]:
            if corpus_name not in corpora:
                corpora[corpus_name] = Corpus(corpus_name, pool=args.pool, seed=args.seed)
            corpus = corpora[corpus_name]
            for repeat in range(repeats):
                for spec in specs:
                    if args.budget_minutes is not None and time.perf_counter() - started > 60 * args.budget_minutes:
                        print("budget spent: stopping (the cache keeps what finished)", file=sys.stderr)
                        return
                    key = cache.key(
                        corpus_name, spec, n_labeled, 0 if args.full else args.unlabeled, repeat, args.seed, args.pool
                    )
                    if key in cache:
                        continue
                    t0 = time.perf_counter()
                    record = run_cell(corpus, spec, n_labeled, 0 if args.full else args.unlabeled, repeat)
                    cache.put(key, record)
                    print(
                        f"{corpus_name} {spec[0]} [{spec[1]}] L={n_labeled or 'all'} r{repeat}: "
                        f"error {record['token_error']:.2f} F1 {record['f1']:.2f} "
                        f"({time.perf_counter() - t0:.0f} s)",
                        file=sys.stderr,
                        flush=True,
                    )


if __name__ == "__main__":
    sys.exit(main())
