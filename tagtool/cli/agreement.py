"""``tagtool agreement PROJECT [--json] [--limit N] [--pairs-up-to N]``: inter-annotator agreement and progress.

Reads the project read-only (:meth:`Project.open` with ``readonly=True``):
it may be open in the app meanwhile.  What is computed and which tokens
count: :mod:`tagtool.services.agreement`; the output: :mod:`tagtool.services.agreement.report`.
A rich progress bar on stderr appears once the work has taken
:data:`BAR_AFTER` seconds (a small project prints no bar); the first
Ctrl-C stops it (nothing is written), as in the other long commands.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tagtool.errors import TagtoolError

#: Seconds of work before the progress bar is shown.
BAR_AFTER = 0.5


def _positive(text: str) -> int:
    value = int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be 2 or more, got {value}")
    return value


def add_agreement_command(sub) -> None:
    from tagtool.services.agreement_limits import ANNOTATOR_LIMIT, PAIR_ANNOTATORS

    p = sub.add_parser(
        "agreement",
        help="agreement between annotators: Cohen's kappa, Krippendorff's alpha, span F1, confusions",
        description="Agreement between the annotators whose own answers PROJECT holds (a Label Studio import "
        "with several annotators, or their merged projects), per pair and overall: Cohen's kappa on tokens "
        "(overall: the mean over pairs), Krippendorff's alpha (nominal), span precision/recall/F1 (seqeval) "
        "and the label pairs they disagree on; and each annotator's sentences, tokens and tokens per minute. "
        "Only tokens both annotators of a pair answered count for it; tokens where one gave a candidate set "
        "are counted apart. Alpha, the observed agreement of all pairs pooled, the compared tokens and the "
        "disagreements come from per-token label counts: time and memory grow with the answers, not with the "
        "pairs of annotators. Kappa, span scores and candidate sets are per pair: they are computed, and the "
        f"pairs listed, for up to --pairs-up-to annotators (default {PAIR_ANNOTATORS}); with more, only the "
        "overall alpha, observed agreement and disagreements are given.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("--json", action="store_true", help="print one JSON object (scores in percent)")
    p.add_argument(
        "--limit",
        type=_positive,
        default=ANNOTATOR_LIMIT,
        metavar="N",
        help=f"refuse (exit 1, nothing computed) when more than N annotators have answers "
        f"(default {ANNOTATOR_LIMIT:,}); raise it for bigger teams",
    )
    p.add_argument(
        "--pairs-up-to",
        type=_positive,
        default=PAIR_ANNOTATORS,
        metavar="N",
        help=f"compute the per-pair measures (Cohen's kappa, span F1, candidate sets) and list the pairs "
        f"when at most N annotators have answers "
        f"(default {PAIR_ANNOTATORS}: {PAIR_ANNOTATORS * (PAIR_ANNOTATORS - 1) // 2:,} "
        "pairs); their cost grows with the pairs that share tokens",
    )
    p.set_defaults(func=cmd_agreement)


@contextmanager
def progress_when_slow(description: str, after: float | None = None):
    """``progress(fraction, message)`` that shows :func:`~tagtool.cli.progress.progress_bar` once
    ``after`` (default :data:`BAR_AFTER`) seconds have passed since the block began (reports before
    that are dropped)."""
    from tagtool.cli import progress

    after = BAR_AFTER if after is None else after
    start = time.monotonic()
    with ExitStack() as stack:
        bar = None

        def report(fraction: float, message: str = "") -> None:
            nonlocal bar
            if bar is None:
                if time.monotonic() - start < after:
                    return
                bar = stack.enter_context(progress.progress_bar(description))
            bar(fraction, message)

        yield report


def cmd_agreement(args: argparse.Namespace) -> int:
    from tagtool.cli.progress import EXIT_INTERRUPTED, stop_on_sigint
    from tagtool.errors import Cancelled
    from tagtool.services.agreement.progress import of_project
    from tagtool.services.agreement.report import print_tables, to_json
    from tagtool.store.project import Project

    try:
        with (
            Project.open(args.project, readonly=True) as project,
            stop_on_sigint() as stop,
            progress_when_slow(f"agreement {args.project.name}") as report,
        ):
            result = of_project(project, stop, report, args.limit, args.pairs_up_to)
    except Cancelled:
        print("tagtool: interrupted: agreement cancelled", file=sys.stderr)
        return EXIT_INTERRUPTED
    if result.agreement is None:
        who = f"only {result.answering[0]!r} has" if result.answering else "no annotator has"
        raise TagtoolError(
            f"{args.project}: agreement needs the answers of two annotators or more, and {who} answers of "
            "their own there (import a Label Studio export with several annotators, or merge their projects)"
        )
    if args.json:
        print(json.dumps(to_json(result, str(args.project))))
    else:
        print_tables(result, str(args.project))
    return 0
