"""``tagtool agreement`` on crowds: 200, 300, 1,000 and 3,000 annotators on one 14-token task, and the limit.

Every annotator answered every token of the one task, so every pair of
annotators shares all of it: the case that took 16 s at 200 annotators,
34 s at 300 and did not end at 3,000 while agreement was computed pair by
pair.  Each crowd runs in a fresh process (:mod:`_agreement_crowd`): time,
peak RSS and tracemalloc peak of computing it, progress reports seen, and
alpha and the observed agreement checked against a reference computed
another way; the largest crowd also under the default ``--limit`` (1,000),
which must refuse it with ``AgreementLimitError`` naming the file, the
count and the option.  A trial fails on a wrong number, a missing refusal
or progress report; time is reported, never judged.

Usage: ``python benchmarks/_adv_agreement.py`` (exit status 1 if a trial failed).
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]

from _agreement_crowd import run_case, table_lines  # noqa: E402

#: The crowds at scale 1.0 (annotators).
CROWDS = (200, 300, 1_000, 3_000)


def run(folder: pathlib.Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Each crowd of :data:`CROWDS` (times ``scale``) with a limit above it, then the largest under the
    default limit (or one below it, at a smaller scale); the subsection's lines and the failed trials."""
    from tagtool.services.agreement_limits import ANNOTATOR_LIMIT, PAIR_ANNOTATORS

    start = time.perf_counter()
    sizes = [max(3, round(n * scale)) for n in CROWDS]
    cases = [run_case(folder, n, max(n, ANNOTATOR_LIMIT), seed) for n in sizes]
    cases.append(run_case(folder, sizes[-1], min(ANNOTATOR_LIMIT, sizes[-1] - 1), seed))
    failures = [f for c in cases for f in c.failures]
    for failure in failures:
        print(failure, file=sys.stderr)
    overall_only = [c for c in cases[: len(sizes)] if c.annotators > PAIR_ANNOTATORS]
    scaling = ""
    if len(overall_only) >= 2:
        small, big = overall_only[0], overall_only[-1]
        ratio = (big.seconds / big.answers) / (small.seconds / small.answers)
        scaling = (
            f" Time per answer at {big.annotators:,} annotators is {ratio:.2f}× that at {small.annotators:,} "
            f"(a cost per answer: 1×; a cost per pair of annotators: {big.annotators / small.annotators:.0f}×)."
        )
    lines = [
        "### Agreement of many annotators (`tagtool agreement`)",
        "",
        f"Crowds of {', '.join(f'{n:,}' for n in sizes)} annotators all answering one 14-token task (seed {seed}), "
        "each computed in a fresh process (imports done before the clock starts) with `--limit` above it, and "
        f"the largest again under the limit {cases[-1].limit:,}, which must refuse it with `AgreementLimitError` "
        "(file, count and `--limit` named); α and the observed agreement of all pairs checked against the "
        f"krippendorff package and a per-token count; above {PAIR_ANNOTATORS} annotators no per-pair measures "
        f"(`--pairs-up-to`).{scaling} {len(cases)} trials, "
        f"{time.perf_counter() - start:.0f} s in all.",
        "",
        *table_lines(cases),
    ]
    return lines, len(failures)


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__, seed=0)
