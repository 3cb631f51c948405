"""``tagtool mode``: the way of working a project is in, the one its own data propose, and switching it.

The proposal is :func:`tagtool.services.mode_advice.advise` — the app's
status bar shows the same — measured on the project's fully labeled
sentences with the learner given (default the app's) and the annotation
costs of its action log once it holds enough (else the defaults).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tagtool.cli.progress import progress_bar, stop_on_sigint


def add_mode_command(sub) -> None:
    """Add ``mode`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "mode",
        help="show, propose or set a project's way of working (token questions or whole sentences)",
        description="Show the mode PROJECT is in (tokens: token questions; review: whole sentences, the "
        "suggestions corrected and accepted) and the one its own data propose: both simulated on its fully "
        "labeled sentences (once there are enough; before that, review) with the app's learner and the "
        "costs measured in its action log, the cheaper to 95 percent of the score proposed, with why. "
        "With MODE: set it (the app opens the project in it).",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("set_mode", nargs="?", choices=("tokens", "review"), metavar="MODE", help="tokens or review")
    p.add_argument("--learner", default=None, help="the learner to simulate (default: the app's)")
    p.add_argument("--no-proposal", action="store_true", help="do not measure a proposal")
    p.set_defaults(func=cmd_mode)


def cmd_mode(args: argparse.Namespace) -> int:
    from tagtool.learn import DEFAULT_LEARNER
    from tagtool.services import mode_advice
    from tagtool.services.queue_costs import of_project
    from tagtool.services.simulate.config import Costs
    from tagtool.store.project import Project

    with Project.open(args.project, readonly=args.set_mode is None) as project:
        if args.set_mode is not None:
            mode_advice.set_project_mode(project, args.set_mode)
        print(f"{args.project}: mode {mode_advice.project_mode(project)}")
        if args.no_proposal:
            return 0
        sentences = project.corpus().sentences
    q = of_project(args.project)
    costs = Costs(q.full, q.partial, q.skip, q.accept, q.sentence)
    with stop_on_sigint() as stop, progress_bar("simulating both modes") as report:
        advice = mode_advice.advise(
            sentences, args.learner or DEFAULT_LEARNER, costs, bool(q.measured), progress=report, should_stop=stop
        )
    print(f"{args.project}: proposed {advice.mode} — {advice.reason}")
    return 0
