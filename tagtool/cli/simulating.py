"""The research command ``simulate``: annotation cost against F1 with a simulated annotator.

An oracle annotator follows a queue strategy (the app's), in one of the
app's ways of working; the learner retrains after every step.  Prints the
curve and may write it as JSON or a plot.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from tagtool.cli.experiments import write_json
from tagtool.cli.inputs import add_column_options, check_text_options, read_files
from tagtool.cli.knowledge import add_simulate_knowledge_options, simulation_knowledge
from tagtool.cli.progress import progress_bar, stop_on_sigint
from tagtool.cli.settings import add_learning_parser, configured_learner
from tagtool.errors import TagtoolError
from tagtool.services import strategies
from tagtool.store.outputs import check_not_input


def _threshold(text: str) -> float | None:
    """``--threshold``: a number, or ``auto`` (None: the project's own)."""
    return None if text.strip().lower() == "auto" else float(text)


#: Strategies and modes of ``tagtool simulate``: the registry's (:mod:`tagtool.services.strategies`,
#: which imports neither numpy nor the learners, so building the parser stays light).
SIMULATE_STRATEGIES = strategies.names()
SIMULATE_MODES = strategies.MODES


#: ``tagtool.services.simulate.config.DEFAULT_STRING_MATCHES``, kept here for the same reason as the
#: strategies; a test checks they agree.
SIMULATE_STRING_MATCHES = False
#: ``tagtool.services.near_duplicates.DEFAULT_SKIP`` and ``SIMILARITY``, kept here for the same reason; a test
#: checks they agree.
SKIP_NEAR_DUPLICATES = False
SIMILARITY = 0.7

#: ``tagtool.services.span_questions.QUESTIONS`` and ``DEFAULT_QUESTIONS``, kept here for the same reason as the
#: strategies; a test checks they agree.
SIMULATE_QUESTIONS = ("tokens", "spans")
SIMULATE_DEFAULT_QUESTIONS = "tokens"

#: ``tagtool.services.annotation_costs.MIN_TOKENS``, kept here so that building the parser does not import the
#: store (and numpy); a test checks they agree.
COSTS_MIN_TOKENS = 20


def add_simulate_command(sub) -> None:
    """Add ``simulate`` to the subcommands ``sub``."""
    p = add_learning_parser(
        sub,
        "simulate",
        help="measure annotation cost against F1 with a simulated annotator",
        description="An oracle annotator labels DATA in the order --strategy picks (the app's queue), "
        "whole sentences (--mode full), only the tokens the model is unsure of (tokens), or also candidate "
        "sets {gold, strongest wrong} where the model is torn between the two (partial), or reviews whole "
        "sentences with the model's suggestions, correcting the wrong ones and accepting the rest (review, the "
        "app's Enter; a corrected token costs --cost-full, an accepted one --cost-accept). The learner "
        "retrains (warm start) after every step; the test F1 is recorded against the cost spent. Prints "
        "the curve and the cost at which it reaches 95 percent of the F1 of the learner trained on all of DATA.",
    )
    _add_simulate_inputs(p)
    _add_simulate_steps(p)
    _add_simulate_costs(p)
    _add_simulate_outputs(p)
    add_simulate_knowledge_options(p)
    add_column_options(p)
    p.set_defaults(func=cmd_simulate)


def _add_simulate_inputs(p: argparse.ArgumentParser) -> None:
    """The data the oracle annotates, the test sentences, the queue and what the annotator gives."""
    p.add_argument("--data", type=Path, required=True, metavar="FILE", help="gold-labeled data the oracle annotates")
    p.add_argument("--test", type=Path, required=True, metavar="FILE", help="gold-labeled sentences to score")
    p.add_argument("--strategy", required=True, choices=SIMULATE_STRATEGIES, help=strategies.help_text())
    p.add_argument("--mode", choices=SIMULATE_MODES, default="full", help="what the annotator gives (default full)")
    p.add_argument(
        "--string-matches",
        choices=("on", "off"),
        default="on" if SIMULATE_STRING_MATCHES else "off",
        help="review and token modes: also suggest every span labeled so far wherever its string recurs, before "
        "any model and beside its suggestions (a token question keeps the model's), by the app's rule (a string "
        "labeled one way is suggested so, over the model; where its labels conflict, the model's pick); accepted "
        f"and corrected suggestions cost as the model's (default {'on' if SIMULATE_STRING_MATCHES else 'off'})",
    )
    p.add_argument(
        "--questions",
        choices=SIMULATE_QUESTIONS,
        default=SIMULATE_DEFAULT_QUESTIONS,
        help="tokens/partial: ask single tokens, or where the model is unsure of a mention the whole mention "
        "it predicts as one question, each of its tokens labeled at --cost-full (spans; the app's Go › Ask "
        f"whole spans) (default {SIMULATE_DEFAULT_QUESTIONS})",
    )
    p.add_argument(
        "--accept-questions",
        choices=("on", "off"),
        default="on",
        help="tokens/partial: an asked token whose suggestion is right is accepted at --cost-accept (the app's "
        "Space on a question; a span question when all its suggestions are right); off: every asked token is "
        "typed at --cost-full (default on)",
    )
    p.add_argument(
        "--skip-near-duplicates",
        choices=("on", "off"),
        default="on" if SKIP_NEAR_DUPLICATES else "off",
        help="within a step, pass over a sentence whose near-duplicate (the same tokens after lower-casing and "
        "mapping digits to 0, or token 3-grams with Jaccard similarity of at least "
        f"{SIMILARITY:g}) was shown in the step; the next model decides again (default "
        f"{'on' if SKIP_NEAR_DUPLICATES else 'off'})",
    )


def _add_simulate_steps(p: argparse.ArgumentParser) -> None:
    """The budget and its steps, when a token or a candidate set is asked, the unlabeled sentences per step."""
    p.add_argument(
        "--budget", type=float, metavar="TOKENS", help="total cost (default: the cost of labeling every token of DATA)"
    )
    p.add_argument(
        "--step",
        type=float,
        default=500.0,
        metavar="TOKENS",
        help="cost per step; the learner retrains after each (default 500)",
    )
    p.add_argument(
        "--growth",
        type=float,
        default=1.0,
        metavar="G",
        help="each step costs G times the previous one (default 1: fixed steps)",
    )
    p.add_argument(
        "--threshold",
        type=_threshold,
        default=None,
        metavar="U",
        help="tokens/partial: ask a token when its question (uncertainty) is >= U; auto (the default): the "
        "project's own threshold from the cross-validation after each step, as the app's (the model kind's "
        f"{strategies.DEFAULT_THRESHOLD[False]:g} for margin-based learners, "
        f"{strategies.DEFAULT_THRESHOLD[True]:g} for CRFs, while too few tokens are held out)",
    )
    p.add_argument(
        "--cv-folds",
        type=int,
        default=None,
        metavar="K",
        help="folds of the cross-validation after each step, as the app's after each training run: the question "
        "threshold and the cold-start rule read it (default 5; 0: none, the model kind's threshold, no cold start)",
    )
    p.add_argument(
        "--close",
        type=float,
        default=None,
        metavar="U",
        help="partial: candidate set where the model's uncertainty between the gold and its "
        f"strongest wrong label is >= U (default {strategies.DEFAULT_CLOSE:g})",
    )
    p.add_argument(
        "--max-unlabeled",
        type=int,
        default=None,
        metavar="N",
        help="unlabeled sentences per step for learners that use them (default 500)",
    )


def _add_simulate_costs(p: argparse.ArgumentParser) -> None:
    """The cost of each annotation action, given or measured in a project's action log."""
    p.add_argument("--cost-full", type=float, default=None, metavar="C", help="cost of a full label (default 1)")
    p.add_argument(
        "--cost-partial", type=float, default=None, metavar="C", help="cost of a candidate set (default 0.5)"
    )
    p.add_argument(
        "--cost-skip",
        type=float,
        default=None,
        metavar="C",
        help="cost of reading a token left unlabeled (default 0.1)",
    )
    p.add_argument(
        "--cost-accept",
        type=float,
        default=None,
        metavar="C",
        help="cost of a suggestion accepted in review (default: the cost of a skipped token)",
    )
    p.add_argument(
        "--cost-sentence",
        type=float,
        default=None,
        metavar="C",
        help="cost of opening a sentence, in full labels: the gain strategy ranks with it, the "
        f"simulated annotator is not charged it (default {strategies.SENTENCE_COST:g})",
    )
    p.add_argument(
        "--costs-from",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="use the costs measured in the action log of a project annotated in the app (seconds per "
        "token of each action kind, relative to a full label, and the cost of opening a sentence; prints "
        f"them); a kind with fewer than {COSTS_MIN_TOKENS} tokens there (opening: sentences) keeps its "
        f"default, fewer than {COSTS_MIN_TOKENS} full labels is an error. --cost-partial, --cost-skip, "
        "--cost-accept and --cost-sentence given as well replace the measured value",
    )


def _add_simulate_outputs(p: argparse.ArgumentParser) -> None:
    """The full-data F1, when to stop, and the JSON and plot outputs."""
    p.add_argument(
        "--full-data-f1",
        type=float,
        metavar="X",
        help="F1 in percent of the learner trained on all of DATA, if known (skips that training)",
    )
    p.add_argument("--until-95", action="store_true", help="stop once the curve reaches 95%% of the full-data F1")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the curve and cost_to_95 as JSON")
    p.add_argument("--plot", type=Path, metavar="OUT.png", help="plot F1 against cost (needs matplotlib)")


def cmd_simulate(args: argparse.Namespace) -> int:
    from tagtool.services.simulate.config import Costs, SimulationConfig
    from tagtool.services.simulate.loop import simulate
    from tagtool.services.simulate.plot import check_plotting, plot_curves

    cls, settings = configured_learner(args, seeded=False)
    optional = {
        name: getattr(args, name)
        for name in ("threshold", "cv_folds", "close", "max_unlabeled")
        if getattr(args, name) is not None
    }
    config = SimulationConfig(
        learner=cls.name,
        strategy=args.strategy,
        mode=args.mode,
        budget=args.budget,
        step=args.step,
        growth=args.growth,
        seed=args.seed,
        params=settings.params,
        features=settings.features,
        views=settings.views,
        decode=settings.decode,
        costs=_simulation_costs(args, Costs),
        full_data_f1=_fraction_of_percent(args.full_data_f1, "--full-data-f1"),
        until_95=args.until_95,
        string_matches=args.string_matches == "on",
        questions=args.questions,
        skip_near_duplicates=args.skip_near_duplicates == "on",
        accept_questions=args.accept_questions == "on",
        **optional,
    )
    config.check(cls)
    inputs = {"data": args.data, "test data": args.test, "project of --costs-from": args.costs_from}
    check_not_input(args.json, inputs, "JSON output")
    check_text_options(args, [args.data, args.test], args.format)
    check_not_input(args.plot, {**inputs, "JSON output": args.json}, "plot")
    if args.plot:
        check_plotting()
    data = read_files([args.data], args, args.label_column)
    test = read_files([args.test], args, args.label_column)
    features, knowledge = simulation_knowledge(args, cls, settings.features, data.sentences)
    config = replace(config, features=features)
    with stop_on_sigint() as stop, progress_bar(f"simulate {cls.name} {args.strategy}+{args.mode}") as report:
        result = simulate(config, data, test, report, stop, names=(str(args.data), str(args.test)), knowledge=knowledge)
    if args.costs_from is not None:
        result.notes.append(f"costs measured in the action log of {args.costs_from}")
    print(format_simulation(result))
    if args.json:
        write_json(args.json, result.to_dict())
    if args.plot:
        plot_curves([result], args.plot)
    return 0


def _simulation_costs(args: argparse.Namespace, costs_class):
    """The costs of ``tagtool simulate``: measured (``--costs-from``, printed), then given, then the defaults."""
    given = {name: getattr(args, f"cost_{name}") for name in ("full", "partial", "skip", "accept", "sentence")}
    given = {name: value for name, value in given.items() if value is not None}
    if args.costs_from is None:
        return costs_class(**given)
    if "full" in given:
        raise TagtoolError(
            "--cost-full cannot be used with --costs-from: measured costs are relative to a full label (1)"
        )
    from tagtool.services.annotation_costs import costs_from_project

    measured = costs_from_project(args.costs_from)
    default = costs_class()
    defaults = {"full": default.full, "partial": default.partial, "skip": default.skip, "sentence": default.opening}
    defaults["accept"] = measured.relative.get("skip", default.skip)  # an unmeasured accept costs a skip
    print(measured.table(defaults))
    for name, value in given.items():
        print(
            f"  --cost-{name} {value:g} replaces the measured {measured.relative[name]:.3g}"
            if name in measured.relative
            else f"  --cost-{name} {value:g} given"
        )
    return costs_class(**{**measured.relative, **given})


def format_simulation(result) -> str:
    """The curve and ``cost_to_95`` printed by ``tagtool simulate``."""
    c = result.costs
    reached = "never" if result.cost_to_95 is None else f"{result.cost_to_95:,.1f}"
    review = result.mode == "review"
    if c.accept is not None:
        skip = f"skipped token {c.skip:g}, accepted suggestion {c.accept:g}"
    else:
        skip = f"{'skipped or accepted token' if review else 'skipped token'} {c.skip:g}"
    lines = [
        f"{result.learner} {result.strategy}+{result.mode}: {result.data_tokens:,} data tokens; costs: full label "
        f"{c.full:g}, candidate set {c.partial:g}, {skip}"
        + ("" if c.sentence is None else f"; opening a sentence {c.sentence:.3g} (ranks gain's queue, not charged)"),
        f"full-data F1 {100 * result.full_data_f1:.2f}%; 95% of it ({95 * result.full_data_f1:.2f}%) at cost {reached}",
        f"{'cost':>10} {'labeled':>8} {'accepted' if review else 'cand.sets':>9} {'F1 %':>7} {'train s':>8}",
    ]
    for p in result.curve:
        middle = p.accepted if review else p.candidate_sets
        lines.append(f"{p.cost:>10,.1f} {p.tokens_labeled:>8} {middle:>9} {100 * p.f1:>7.2f} {p.train_seconds:>8.2f}")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def _fraction_of_percent(value: float | None, option: str) -> float | None:
    """A score given in percent (as every command prints them) as a fraction."""
    if value is None:
        return None
    if not 0.0 <= value <= 100.0:
        raise TagtoolError(f"{option} is in percent (0-100), got {value}")
    return value / 100.0
