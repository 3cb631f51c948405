"""``tagtool vectors`` and ``train --vectors``: word vectors a user brings (:mod:`tagtool.services.user_vectors`).

``vectors PROJECT FILE`` reads a vectors file (word2vec text or binary,
GloVe, fastText ``.vec``/``.bin``, gzip too), keeps the vectors of the
project's words and stores them in it; ``--remove`` removes them, ``--use``
sets whether training reads them, and without FILE the stored ones are
shown.  ``train --vectors FILE`` reads a file for one training run; a
project's stored vectors are used by ``train PROJECT`` unless its ``use`` is
``off`` or ``--no-vectors`` is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tagtool.cli.progress import progress_bar, stop_on_sigint
from tagtool.errors import TagtoolError


def add_vectors_command(sub) -> None:
    """Add ``vectors`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "vectors",
        help="add, show or remove a project's word vectors",
        description="Read a word vectors FILE (word2vec text or binary, GloVe text, fastText .vec or .bin; "
        "gzip-compressed too), keep the vectors of PROJECT's words (from a fastText .bin also the "
        "n-gram vectors that compose unseen words) with their clusters, and store them in PROJECT, "
        "replacing any stored before. Training on the project then adds the vec feature sets when its "
        "labels are word classes such as part of speech, not spans (unless the feature set names them; "
        "--use off turns them off). Without FILE: show the stored vectors. Ctrl-C stops cleanly "
        "and changes nothing.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("file", nargs="?", type=Path, metavar="FILE", help="a word vectors file")
    p.add_argument(
        "--format",
        dest="vectors_format",
        choices=("word2vec-text", "word2vec-binary", "glove", "fasttext-bin"),
        help="the file's layout (detected from its content by default)",
    )
    p.add_argument("--remove", action="store_true", help="remove the project's word vectors")
    p.add_argument(
        "--use", choices=("on", "off"), help="whether training on the project reads the stored vectors (default on)"
    )
    p.set_defaults(func=cmd_vectors)


def cmd_vectors(args: argparse.Namespace) -> int:
    from tagtool.services import user_vectors as uv
    from tagtool.store.project import Project

    if args.remove and args.file is not None:
        raise TagtoolError("give a FILE to add or --remove, not both")
    with Project.open(args.project) as project:
        if args.use is not None:
            uv.set_vectors_use(project, args.use)
            print(f"{args.project}: vectors.use = {args.use}")
        if args.remove:
            removed = uv.remove_vectors(project.stored)
            print(f"{args.project}: " + ("word vectors removed" if removed else "no word vectors to remove"))
        elif args.file is not None:
            vocabulary = uv.project_vocabulary(project)
            with stop_on_sigint() as stop, progress_bar(f"reading {args.file.name}") as report:
                reps = uv.load_user_vectors(
                    args.file, vocabulary, fmt=args.vectors_format, progress=report, should_stop=stop
                )
            uv.store_vectors(project.stored, reps)
            print(f"{args.project}: stored word vectors {uv.describe(uv.vectors_info(project.stored))}")
            if uv.spans_only(project.labels.names):
                print(
                    f"{args.project}: its labels are spans: training adds no vec set unless the feature set "
                    "names it (--set features.feature_set=...+vec)"
                )
        elif args.use is None:
            print(f"{args.project}: word vectors {uv.describe(uv.vectors_info(project.stored))}")
            print(f"{args.project}: vectors.use = {uv.vectors_use(project)}")
    return 0


def add_train_vectors_options(p: argparse.ArgumentParser) -> None:
    """``--vectors FILE`` and ``--no-vectors`` of ``train``."""
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--vectors",
        type=Path,
        metavar="FILE",
        help="word vectors file (word2vec, GloVe, fastText .vec/.bin, gzip too): adds the vec feature sets",
    )
    group.add_argument(
        "--no-vectors", action="store_true", help="do not read a project's stored word vectors"
    )  # fmt: skip


def training_vectors(args: argparse.Namespace, features: dict, sentences: list, cls):
    """``(features, vectors)`` of a ``train`` run: the vectors read (file, else the project's) and the sets added.

    The ``vec`` sets of the default rule are added to the learner's feature
    set when vectors are read and the feature set names none; a feature set
    naming ``vec`` without vectors is an error before training starts.
    """
    from tagtool.core.features.wordreps import VEC_SETS
    from tagtool.services import user_vectors as uv
    from tagtool.services.training_setup import feature_settings, with_vectors

    settings = feature_settings(cls, features)
    named = any(name in VEC_SETS for name in str(settings.get("feature_set", "default")).split("+"))
    if args.warm_start:
        if args.vectors is not None:
            raise TagtoolError("--vectors is not for --warm-start (the previous tagger keeps its features)")
        return features, None
    vectors = None
    if args.vectors is not None and not named and not uv.vector_sets(sentences):
        print(
            f"word vectors: {args.vectors.name} not read: the default rule adds no vec set for span labels "
            "(benchmarks/results/knowledge.md); name vec in --set features.feature_set=... to use them",
            file=sys.stderr,
        )
        return features, None
    if args.vectors is not None:
        with stop_on_sigint() as stop, progress_bar(f"reading {args.vectors.name}") as report:
            words = (t for s in sentences for t in s.tokens)
            vectors = uv.load_user_vectors(args.vectors, words, progress=report, should_stop=stop)
    elif not args.no_vectors:
        vectors = _project_vectors(args.data, named)
    if vectors is None:
        if named:
            raise TagtoolError("the vec feature sets need word vectors: give --vectors FILE")
        return features, None
    print(f"word vectors: {uv.describe(dict(vectors.info))}", file=sys.stderr)
    return (features if named else with_vectors(cls, features, sentences)), vectors


def _project_vectors(paths, named: bool):
    """The stored vectors of the one project among ``paths`` (when its ``use`` is not off, or the sets name them)."""
    from tagtool.services import user_vectors as uv
    from tagtool.store.project import Project
    from tagtool.store.sources import is_project_file

    projects = [p for p in paths if is_project_file(p)]
    if len(projects) != 1:
        return None
    with Project.open(projects[0], readonly=True) as project:
        return uv.vectors_for_training(project, named)
