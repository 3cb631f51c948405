"""``tagtool agreement PROJECT [--json]``: inter-annotator agreement and per-annotator progress.

Reads the project read-only (:meth:`Project.open` with ``readonly=True``):
it may be open in the app meanwhile.  What is computed and which tokens
count: :mod:`tagtool.services.agreement`; the output: :mod:`tagtool.services.agreement.report`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tagtool.errors import TagtoolError


def add_agreement_command(sub) -> None:
    p = sub.add_parser(
        "agreement", help="agreement between annotators: Cohen's kappa, Krippendorff's alpha, span F1, confusions",
        description="Agreement between the annotators whose own answers PROJECT holds (a Label Studio import "
        "with several annotators, or their merged projects), per pair and overall: Cohen's kappa on tokens "
        "(overall: the mean over pairs), Krippendorff's alpha (nominal), span precision/recall/F1 (seqeval) "
        "and the label pairs they disagree on; and each annotator's sentences, tokens and tokens per minute. "
        "Only tokens both annotators of a pair answered count for it; tokens where one gave a candidate set "
        "are counted apart.")
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("--json", action="store_true", help="print one JSON object (scores in percent)")
    p.set_defaults(func=cmd_agreement)


def cmd_agreement(args: argparse.Namespace) -> int:
    from tagtool.services.agreement.progress import of_project
    from tagtool.services.agreement.report import print_tables, to_json
    from tagtool.store.project import Project

    with Project.open(args.project, readonly=True) as project:
        result = of_project(project)
    if result.agreement is None:
        who = f"only {result.answering[0]!r} has" if result.answering else "no annotator has"
        raise TagtoolError(
            f"{args.project}: agreement needs the answers of two annotators or more, and {who} answers of "
            "their own there (import a Label Studio export with several annotators, or merge their projects)")
    if args.json:
        print(json.dumps(to_json(result, str(args.project))))
    else:
        print_tables(result, str(args.project))
    return 0
