"""``tagtool text`` and ``tagtool represent``: a project's extra text and its word representations.

``text PROJECT FILE...`` adds plain UTF-8 text files to a project (read as
raw text is: tokenised and split into sentences, ``--tokenizer``,
``--no-sentence-split`` and ``--document-unit`` as for every plain text; kept as text for the word
representations, not as
sentences to annotate).  ``represent PROJECT`` learns the word
representations from all the project's text and stores them in it
(:mod:`tagtool.services.represent`, :mod:`tagtool.store.representations`); the app
does the same in the background.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tagtool.cli.inputs import add_text_options, text_kwargs
from tagtool.cli.progress import progress_bar, stop_on_sigint


def add_text_commands(sub) -> None:
    p = sub.add_parser(
        "text",
        help="add plain text to a project for its word representations",
        description="Add plain UTF-8 text FILEs to PROJECT: tokenised and kept as text the "
        "word representations learn from (features.feature_set=...+dist), not as sentences "
        "to annotate.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    add_text_options(p.add_argument_group("raw text"))
    p.set_defaults(func=cmd_text, strict=False, limit=[])

    p = sub.add_parser(
        "represent",
        help="learn a project's word representations from its text",
        description="Learn word representations (FastText vectors and their clusters) from "
        "every sentence of PROJECT and its added text, and store them in it. Skipped when "
        "the stored ones are current (the text changed by less than 10 %%) unless --force. "
        "Ctrl-C stops cleanly and changes nothing.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("--force", action="store_true", help="relearn even if the stored ones are current")
    p.set_defaults(func=cmd_represent)


def cmd_text(args: argparse.Namespace) -> int:
    from tagtool.services.represent import read_text_file
    from tagtool.store.project import Project

    # Every file is read before the project changes: a bad byte in the last leaves it as it was.
    texts = [(path, read_text_file(path, **text_kwargs(args))) for path in args.files]
    with Project.open(args.project) as project:
        for path, lines in texts:
            project.stored.add_text(path.name, lines)
            print(f"added {path}: {len(lines)} sentences, {sum(map(len, lines))} tokens")
        stale = project.stored.representations_stale()
        print(
            f"{args.project}: {project.stored.text_tokens()} tokens of text"
            + ("; run `tagtool represent` (or open it in the app) to relearn the word representations" if stale else "")
        )
    return 0


def project_text(project) -> list[list[str]]:
    """Token lists of all a project's text: its sentences, then its added texts (read on the caller's thread)."""
    return [list(s.tokens) for s in project.corpus()] + project.stored.text_lines()


def cmd_represent(args: argparse.Namespace) -> int:
    from tagtool.services.represent import learn_representations
    from tagtool.store.project import Project

    with Project.open(args.project) as project:
        record = project.stored.representations_record()
        if record is not None and not args.force and not project.stored.representations_stale():
            print(
                f"{args.project}: the word representations are current "
                f"({record.info.get('n_words')} words from {record.text_tokens} tokens); --force relearns"
            )
            return 0
        text = project_text(project)
        n_tokens = sum(map(len, text))
        with stop_on_sigint() as stop, progress_bar("learning word representations") as report:
            reps = learn_representations(text, progress=report, should_stop=stop)
        project.stored.set_representations(reps, n_tokens)
    info = reps.info
    print(
        f"{args.project}: word representations of {len(reps.words)} words from {n_tokens} tokens, "
        f"clusters {', '.join(map(str, reps.granularities))}, in {info.get('seconds', 0):.1f} s"
    )
    return 0


def stored_representations(paths, features_use_them: bool, file=sys.stderr):
    """The stored, current word representations of the one project among ``paths``, else None.

    ``train PROJECT --set features.feature_set=...+dist`` uses them rather
    than learning new ones; stale ones are not used (a note says so).
    """
    from tagtool.store.project import Project
    from tagtool.store.sources import is_project_file

    projects = [p for p in paths if is_project_file(p)]
    if not features_use_them or len(projects) != 1:
        return None, None
    with Project.open(projects[0], readonly=True) as project:
        if project.stored.representations_stale():
            if project.stored.representations_record() is not None:
                print(
                    f"note: {projects[0]}: its word representations are out of date; learning new ones "
                    "(`tagtool represent` stores them)",
                    file=file,
                )
            return None, project.stored.text_lines()
        return project.stored.representations(), None
