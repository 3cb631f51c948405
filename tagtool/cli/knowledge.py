"""``tagtool dictionary`` and ``tagtool patterns``: the dictionaries and patterns files a project keeps.

``dictionary PROJECT TYPE FILE`` reads a dictionary of one entity type
(one entry a line, :mod:`tagtool.services.dictionaries`) into the project,
replacing the one of that type; ``--remove`` drops it; ``dictionary
PROJECT`` lists them.  ``patterns PROJECT FILE`` does the same for a
patterns file (JSON Lines in Prodigy's shape, :mod:`tagtool.services.patterns`),
kept under the file's name.  Training on the project (``tagtool train
PROJECT``, the app) adds the ``gaz`` features of its dictionaries; the
patterns and dictionaries give suggestions before any model exists.

:func:`training_gazetteers` gathers the dictionaries of ``train
--gazetteer TYPE=FILE`` and of a project among the training data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tagtool.errors import TagtoolError


def add_knowledge_commands(sub) -> None:
    """Add ``dictionary`` and ``patterns`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "dictionary",
        help="add, remove or list a project's dictionaries (gazetteers)",
        description="Add the dictionary FILE of entity type TYPE to PROJECT (UTF-8, one entry a line, "
        "multiword entries allowed, # comments), replacing its dictionary of that type; with --remove "
        "drop the dictionary of TYPE; with PROJECT alone list them. Training on the project adds "
        "their gaz features; they also give suggestions before any model exists.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument("type", nargs="?", metavar="TYPE", help="entity type, e.g. PER (no B-/I-)")
    p.add_argument("file", nargs="?", type=Path, metavar="FILE", help="dictionary file")
    p.add_argument("--remove", action="store_true", help="remove the dictionary of TYPE")
    _tokenizer_option(p)
    p.set_defaults(func=cmd_dictionary)

    p = sub.add_parser(
        "patterns",
        help="add, remove or list a project's patterns files",
        description='Add the patterns FILE (JSON Lines, Prodigy\'s shape: {"label": "ORG", "pattern": '
        '"Acme Corp"} or a list of token objects) to PROJECT under its file name, replacing a file of '
        "the same name; with --remove drop the file called FILE; with PROJECT alone list them. "
        "Patterns give suggestions before any model exists.",
    )
    p.add_argument("project", type=Path, help="project file (.tagproj)")
    p.add_argument(
        "file", nargs="?", type=Path, metavar="FILE", help="patterns file (.jsonl), or its name with --remove"
    )
    p.add_argument("--remove", action="store_true", help="remove the patterns file called FILE")
    _tokenizer_option(p)
    p.set_defaults(func=cmd_patterns)


def _tokenizer_option(p: argparse.ArgumentParser) -> None:
    from tagtool.cli.inputs import TOKENIZER_CHOICES

    p.add_argument(
        "--tokenizer",
        choices=TOKENIZER_CHOICES,
        default="default",
        help="how entries and phrases are split into tokens (default: the rules raw text is read with)",
    )


def cmd_dictionary(args: argparse.Namespace) -> int:
    from tagtool.services.dictionaries import project_dictionaries, read_dictionary, remove_dictionary, store_dictionary
    from tagtool.store.project import Project

    if args.type is None:
        if args.remove or args.file is not None:
            raise TagtoolError("give TYPE (and FILE to add, or --remove)")
        with Project.open(args.project, readonly=True) as project:
            dictionaries = project_dictionaries(project.stored)
        for d in dictionaries:
            print(f"{d.entity_type}\t{len(d)} entries\t{d.source}")
        if not dictionaries:
            print(f"{args.project}: no dictionary")
        return 0
    if args.remove:
        if args.file is not None:
            raise TagtoolError("--remove takes TYPE only, no FILE")
        with Project.open(args.project) as project:
            if not remove_dictionary(project.stored, args.type):
                raise TagtoolError(f"{args.project}: no dictionary of the type {args.type}")
        print(f"{args.project}: removed the dictionary of {args.type}")
        return 0
    if args.file is None:
        raise TagtoolError("give the dictionary FILE to add (or --remove)")
    dictionary = read_dictionary(args.file, args.type, tokenizer=args.tokenizer)  # before the project changes
    with Project.open(args.project) as project:
        store_dictionary(project.stored, dictionary)
        _note_unknown_types(project.labels, [args.type], args.project)
    print(f"{args.project}: dictionary of {args.type} from {args.file}: {len(dictionary)} entries")
    return 0


def cmd_patterns(args: argparse.Namespace) -> int:
    from tagtool.services.dictionaries import project_patterns, read_patterns, remove_patterns, store_patterns
    from tagtool.store.project import Project

    if args.file is None:
        if args.remove:
            raise TagtoolError("give the name of the patterns file to remove")
        with Project.open(args.project, readonly=True) as project:
            files = project_patterns(project.stored)
        for f in files:
            print(f"{f.name}\t{len(f)} patterns\t{', '.join(f.labels)}")
        if not files:
            print(f"{args.project}: no patterns file")
        return 0
    if args.remove:
        with Project.open(args.project) as project:
            if not remove_patterns(project.stored, args.file.name):
                raise TagtoolError(f"{args.project}: no patterns file called {args.file.name}")
        print(f"{args.project}: removed the patterns file {args.file.name}")
        return 0
    patterns = read_patterns(args.file, tokenizer=args.tokenizer)
    with Project.open(args.project) as project:
        store_patterns(project.stored, patterns)
        _note_unknown_types(project.labels, patterns.labels, args.project)
    print(f"{args.project}: patterns file {patterns.name}: {len(patterns)} patterns ({', '.join(patterns.labels)})")
    return 0


def _note_unknown_types(labels, types, project: Path) -> None:
    from tagtool.services.dictionaries import type_in_labels

    missing = [t for t in types if not type_in_labels(t, list(labels.names))]
    if missing:
        print(
            f"note: {project} has no label of the type {', '.join(missing)}: no suggestion of it until the "
            "label set has one (features still use a dictionary)",
            file=sys.stderr,
        )


def add_gazetteer_option(p: argparse.ArgumentParser) -> None:
    """``--gazetteer TYPE=FILE`` (``train``)."""
    p.add_argument(
        "--gazetteer",
        action="append",
        default=[],
        metavar="TYPE=FILE",
        help="a dictionary of entity type TYPE (one entry a line): its gaz features are added; repeatable. "
        "Training on a project also uses the dictionaries stored in it",
    )


def training_gazetteers(args: argparse.Namespace, data: list[Path]):
    """The :class:`~tagtool.core.features.gazetteers.Gazetteers` of ``--gazetteer`` and a training project, or None."""
    from tagtool.services.dictionaries import gazetteers_of, project_dictionaries, read_dictionary
    from tagtool.store.project import Project
    from tagtool.store.sources import is_project_file

    dictionaries = []
    for spec in args.gazetteer:
        kind, eq, file = spec.partition("=")
        if not eq or not kind or not file:
            raise TagtoolError(f"--gazetteer takes TYPE=FILE, got {spec!r}")
        dictionaries.append(read_dictionary(Path(file), kind))
    for path in data:
        if is_project_file(path):
            with Project.open(path, readonly=True) as project:
                dictionaries += project_dictionaries(project.stored)
    return gazetteers_of(dictionaries)


def add_simulate_knowledge_options(p: argparse.ArgumentParser) -> None:
    """``--vectors FILE`` and ``--gazetteer TYPE=FILE`` of ``simulate``: the knowledge a user brings, as in the app."""
    p.add_argument(
        "--vectors",
        type=Path,
        metavar="FILE",
        help="a word vectors file (word2vec, GloVe, fastText; gzip too): the vec feature sets by the default rule "
        "(word-class labels; named ones on any labels), as a project holding them",
    )
    add_gazetteer_option(p)


def simulation_knowledge(args: argparse.Namespace, cls, features: dict, sentences) -> tuple[dict, dict]:
    """``(features, knowledge)`` of a ``simulate`` run: the sets its vectors and dictionaries add, and them."""
    from tagtool.cli.progress import progress_bar, stop_on_sigint
    from tagtool.core.features.wordreps import VEC_SETS
    from tagtool.services import user_vectors as uv
    from tagtool.services.training_setup import feature_settings, with_gazetteers, with_vectors

    knowledge: dict = {}
    if args.vectors is not None:
        settings = feature_settings(cls, features)
        named = any(name in VEC_SETS for name in str(settings.get("feature_set", "default")).split("+"))
        if named or uv.vector_sets(sentences):
            with stop_on_sigint() as stop, progress_bar(f"reading {args.vectors.name}") as report:
                words = (t for s in sentences for t in s.tokens)
                knowledge["vectors"] = uv.load_user_vectors(args.vectors, words, progress=report, should_stop=stop)
            features = features if named else with_vectors(cls, features, sentences)
        else:
            print(
                f"word vectors: {args.vectors.name} not read: no vec set for span labels unless named", file=sys.stderr
            )
    gazetteers = training_gazetteers(args, [])
    if gazetteers is not None:
        knowledge["gazetteers"] = gazetteers
        features = with_gazetteers(cls, features)
    return features, knowledge
