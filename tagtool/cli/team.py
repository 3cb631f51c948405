"""``tagtool assign`` and ``tagtool merge``: team work on project files, without a server (docs/design.md#team-answers).

``assign PROJECT --annotators a,b,c --overlap 0.1 -o DIR`` writes one
project file per annotator (:mod:`tagtool.store.assign`); each annotator
labels theirs in the app; ``merge PROJECT FILES...`` brings their answers
back (:mod:`tagtool.store.merge`): where they disagree, a token's training
label becomes the candidate set of their answers.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",")]


def add_team_commands(sub) -> None:
    p = sub.add_parser(
        "assign",
        help="split a project's open sentences among annotators, one project file each",
        description="Write DIR/<project>.<annotator>.tagproj for each annotator: the project's open sentences "
        "(not fully labeled, not skipped), each to one annotator, a share --overlap to --shared-by "
        "annotators (for agreement), balanced by tokens, unlabeled. Existing files are kept unless --force. "
        "Every file is written or none (a full disk leaves nothing to clean up before running it again).",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("--annotators", required=True, type=_names, metavar="A,B,...", help="annotator names")
    p.add_argument(
        "--overlap", type=float, default=0.1, help="share of the sentences given to several annotators (default 0.1)"
    )
    p.add_argument("--shared-by", type=int, default=2, metavar="K", help="annotators per shared sentence (default 2)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="folder of the files")
    p.add_argument("--seed", type=int, default=0, help="seed of the shared sentences and of ties (default 0)")
    p.add_argument("--force", action="store_true", help="replace existing annotator files")
    p.set_defaults(func=cmd_assign)

    p = sub.add_parser(
        "merge",
        help="bring annotators' files back into the project they were assigned from",
        description="Each FILE's answers become its annotator's in PROJECT; the training label of every "
        "token whose answers changed becomes the answer of a strict majority, or else the candidate set of "
        "their answers (tokens an adjudicator resolved are left alone). One transaction; merging a "
        "file twice changes nothing.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="annotators' files from 'tagtool assign'")
    p.set_defaults(func=cmd_merge)


def cmd_assign(args: argparse.Namespace) -> int:
    from tagtool.store import assign
    from tagtool.store.project import Project

    with Project.open(args.project) as project:
        sentences = assign.open_sentences(project)
        plan = assign.plan(sentences, args.annotators, args.overlap, args.shared_by, args.seed)
        paths = assign.write_files(project, plan, args.output, args.force)
    print(
        f"assigned {len(sentences)} open sentences of {args.project} "
        f"({len(plan.shared)} to {args.shared_by} annotators each):"
    )
    for name in plan.sentences:
        where = paths.get(name, "no file: no sentence left for this annotator")
        print(f"  {name}: {len(plan.sentences[name])} sentences, {plan.tokens[name]} tokens -> {where}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from tagtool.store import merge
    from tagtool.store.project import Project

    unique = list(dict.fromkeys(args.files))
    with Project.open(args.project) as project:
        files = [merge.read_file(path, project.labels) for path in unique]
        # checked against the project inside the merge's one transaction: nothing is written if refused
        report = project.team.merge_answers(files)
    annotators = sorted({f.annotator for f in files})
    print(
        f"merged {report.files} file(s) ({', '.join(annotators)}) into {args.project}: "
        f"{report.sentences} sentences, {report.answers} answered tokens, {report.answers_changed} tokens whose "
        f"answers changed, {report.labels_changed} training labels changed"
    )
    print(
        f"tokens with several answers: {report.agree} agree, {report.disagree} disagree (training label: "
        f"the candidate set of the answers), {report.resolved} disagree but were resolved (left as resolved)"
    )
    return 0
