"""The research command ``experiment``: learning curves measured on gold data.

``experiment`` runs the papers' resampling experiments (labeled and
unlabeled draws, holdout or test scores); it prints a table and may write
its results as JSON.  ``simulate`` lives in :mod:`tagtool.cli.simulating`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tagtool.cli.inputs import add_column_options, check_text_options, read_files
from tagtool.cli.progress import progress_bar, stop_on_sigint
from tagtool.cli.settings import add_learning_parser, configured_learner
from tagtool.store.outputs import check_not_input


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def add_experiment_command(sub) -> None:
    """Add ``experiment`` to the subcommands ``sub``."""
    p = add_learning_parser(
        sub,
        "experiment",
        help="the papers' resampling experiments",
        description="Per repeat, draw labeled, unlabeled and holdout sentences without "
        "replacement from the pool, train, and score the holdout (or --test). --labeled and "
        "--unlabeled pair up element-wise (5,10,20 with 25,50,100: L=5 U=25, ...). Reports "
        "mean ± standard error of token error (%) and span F1, and training seconds.",
    )
    p.add_argument("--data", type=Path, required=True, metavar="FILE")
    p.add_argument("--test", type=Path, metavar="FILE", help="score this file instead of a drawn holdout")
    p.add_argument("--labeled", type=_int_list, default=[5, 10, 20], metavar="5,10,20")
    p.add_argument(
        "--unlabeled",
        type=_int_list,
        default=[25, 50, 100],
        metavar="25,50,100",
        help="unlabeled sizes, paired with --labeled (one value: for every L; 0: none)",
    )
    p.add_argument("--holdout", type=int, default=300)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--min-length", type=int, default=10)
    p.add_argument("--max-length", type=int, default=40)
    p.add_argument("--pool", type=int, default=3100, help="first N sentences of the length range (default 3100)")
    p.add_argument(
        "--partial-share",
        type=float,
        metavar="P",
        help="WD-PSL protocol: share of training tokens keeping the gold label",
    )
    p.add_argument("--candidates", type=int, metavar="K", help="WD-PSL protocol: candidates of the other tokens")
    p.add_argument(
        "--fit-features",
        choices=["train", "pool"],
        default="train",
        help="fit features per repeat on its training text (default) or once on the pool",
    )
    p.add_argument("--json", type=Path, metavar="OUT", help="write the results as JSON")
    add_column_options(p)
    p.set_defaults(func=cmd_experiment)


def cmd_experiment(args: argparse.Namespace) -> int:
    from tagtool.services.experiment.config import ExperimentConfig
    from tagtool.services.experiment.runner import run_experiment

    cls, settings = configured_learner(args, seeded=False)
    config = ExperimentConfig(
        learner=cls.name,
        params=settings.params,
        features=settings.features,
        views=settings.views,
        decode=settings.decode,
        labeled=tuple(args.labeled),
        unlabeled=tuple(args.unlabeled or (0,)),
        holdout=args.holdout,
        repeats=args.repeats,
        min_length=args.min_length,
        max_length=args.max_length,
        pool=args.pool,
        partial_share=args.partial_share,
        candidates=args.candidates,
        seed=args.seed,
        fit_features=args.fit_features,
    )
    check_not_input(args.json, {"data": args.data, "test data": args.test}, "JSON output")
    check_text_options(args, [p for p in (args.data, args.test) if p is not None], args.format)
    data = read_files([args.data], args, args.label_column)
    test = read_files([args.test], args, args.label_column) if args.test else None
    with stop_on_sigint() as stop, progress_bar(f"experiment {cls.name}") as report:
        result = run_experiment(config, data, test, progress=report, should_stop=stop)
    print(format_experiment(result, config, test is not None))
    if args.json:
        write_json(args.json, result.to_dict())
    return 0


def format_experiment(result, config, with_test: bool) -> str:
    """The experiment table printed on stdout."""
    where = "test file" if with_test else f"holdout {config.holdout}"
    lines = [
        f"{result.learner}: pool {config.pool} sentences of {config.min_length}-{config.max_length} tokens, "
        f"{where}, {config.repeats} repeats, seed {config.seed}",
        f"{'L':>6} {'U':>6} {'token error %':>16} {'span F1 %':>16} {'train s':>9}",
    ]
    for s in (r.to_dict() for r in result.settings):
        lines.append(
            f"{s['labeled']:>6} {s['unlabeled']:>6} {s['token_error_mean']:>8.2f} ± {s['token_error_se']:<5.2f} "
            f"{s['f1_mean']:>8.2f} ± {s['f1_se']:<5.2f} {s['train_seconds_mean']:>9.3f}"
        )
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def write_json(path: Path, data: dict) -> None:
    from tagtool.store.atomic import atomic_write

    with atomic_write(path, "utf-8") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")
