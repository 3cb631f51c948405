"""Hostile input and faults: every importer and the tagger loader fuzzed, and the fault scenarios.

Usage::

    python benchmarks/reliability.py [--examples N] [--tagger-examples N] [--import-examples N]
                                     [--span-examples N] [--damaged N] [--seed S] [--big N]
                                     [--hostile-trials N] [--safety-scale X] [--adversarial-scale X]
                                     [--only-adversarial] [--quick] [--no-tests]

Runs the generators of the fuzz tests (``tests/fuzz/inputs.py``,
``tests/fuzz/tagger_inputs.py``) with many more examples than CI does,
through the same checks (``tests/fuzz/checks.py``): per reader, how many
inputs were tried, how many were refused with the named error
(``FormatError``, ``TaggerFileError``, a ``TagtoolError`` for the project
imports), how many were accepted with a valid result, and how many failed
any other way (target 0; the first of each kind is printed). Then the fault
scenarios: damaged and truncated project files (``tests/store/project_damage.py``),
a disk filling up under a stream of edits (``tests/store/sqlite_faults.py``),
the time the open-time checks cost on a big project, full-size hostile
files (``benchmarks/_hostile.py``: tagger files announcing huge sizes, a zip
bomb, a 2 GB ``meta.json``; a 100 MB line, a 35-million-token sentence, a
50 MB token, 10,000 labels, a 40 MB CSV) run through ``tagtool`` under a
memory limit, randomized trials of every file-safety case
(``benchmarks/_file_safety.py``), the team, concurrency and odd-file trials
(``benchmarks/_adversarial.py``: retokenization in one process against merge
and export in another, kills during merge, annotators kept through imports,
CoNLL-U trees and invalid CoNLL-U, Label Studio edge cases, agreement over
thousands of annotators, full and read-only disks; ``--only-adversarial``
runs just these), and the pytest tests of every scenario with their
outcome. Writes ``benchmarks/results/reliability.md``.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "store")]  # the test generators and helpers

import _span_fuzz as spans  # noqa: E402
from _adversarial import adversarial, replace_section  # noqa: E402
from _file_safety import SAFETY_SCENARIOS, file_safety, trial_counts  # noqa: E402
from _hostile import ADDRESS_LIMIT, TIME_LIMIT, hostile_sizes  # noqa: E402
from _hostile import HEADER as HOSTILE_HEADER  # noqa: E402
from _results import machine_lines, write_keeping_analysis  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tagtool.errors import ProjectError  # noqa: E402
from tagtool.store.project import Project  # noqa: E402
from tests.fuzz import checks  # noqa: E402
from tests.fuzz.inputs import ENCODINGS, READER_CASES, corpus_file  # noqa: E402
from tests.fuzz.tagger_inputs import tagger_file  # noqa: E402

RESULT = ROOT / "benchmarks" / "results" / "reliability.md"

#: Fault scenarios and the tests that check them (pytest node ids under tests/).
SCENARIOS = [
    (
        "(a) damaged or truncated project refused, file byte-identical",
        [
            "store/test_project_faults.py::test_a_file_cut_anywhere_is_refused_and_left_alone",
            "store/test_project_faults.py::test_random_damage_is_refused_or_reads_without_crashing",
            "store/test_project_faults.py::test_damage_inside_json_values_is_refused_at_opening",
            "store/test_project_faults.py::test_undecodable_text_reads_as_replacement_characters",
            "store/test_project_files.py::test_non_projects_and_damaged_files_are_refused_and_left_alone",
            "gui/test_gui_faults.py::test_a_damaged_project_is_refused_with_a_message_and_left_alone",
        ],
    ),
    (
        "(b) newer schema opens read-only; the window says so and refuses edits",
        [
            "store/test_project_files.py::test_newer_schema_opens_read_only_and_is_never_modified",
            "gui/test_gui_faults.py::test_a_project_from_a_newer_tagtool_opens_read_only_and_says_why",
        ],
    ),
    (
        "(c) migration backs the file up first",
        [
            "store/test_project_faults.py::test_migration_writes_a_complete_backup_before_changing_the_file",
            "store/test_project_faults.py::test_no_backup_no_migration",
            "store/test_project_files.py::test_v1_file_is_backed_up_and_migrated_with_data_preserved",
            "store/test_project_files.py::test_failed_migration_rolls_back_and_keeps_the_backup",
        ],
    ),
    (
        "(d) a learner raising in the worker: error shown, app usable",
        [
            "gui/test_gui_faults.py::test_a_learner_raising_in_an_automatic_retrain_leaves_the_app_usable",
            "gui/test_gui_model_loop.py::test_a_learner_that_raises_shows_an_error_and_the_app_stays_usable",
        ],
    ),
    (
        "(e) full or read-only disk reported; no edit shown as saved is lost",
        [
            "store/test_project_faults.py::test_full_disk_keeps_every_saved_edit_and_loses_only_the_refused_one",
            "store/test_project_faults.py::test_a_disk_failing_at_commit_or_begin_changes_nothing",
            "store/test_project_faults.py::test_a_failing_rollback_does_not_hide_the_error",
            "store/test_project_faults.py::test_read_only_disk_refuses_every_kind_of_change_and_keeps_the_file",
            "store/test_project_faults.py::test_closing_on_a_failing_disk_is_logged_not_raised",
            "gui/test_gui_faults.py::test_full_disk_refuses_an_edit_visibly_and_every_saved_edit_survives",
            "gui/test_gui_faults.py::test_disk_failing_at_commit_keeps_the_screen_as_the_file",
            "gui/test_gui_faults.py::test_read_only_disk_refuses_edit_undo_and_redo_and_they_can_be_retried",
            "store/test_project_crash.py::test_every_reported_edit_survives_a_kill",
        ],
    ),
    (
        "(f) tagger files bounded before anything is allocated (case 6)",
        [
            "test_tagger_bounds.py::test_a_window_of_a_billion_is_refused_before_the_lookup_is_built",
            "test_tagger_bounds.py::test_a_huge_n_hash_not_backed_by_weights_is_refused_before_allocation",
            "test_tagger_bounds.py::test_a_nested_zip_bomb_in_the_weights_is_refused_unread",
            "test_tagger_bounds.py::test_a_member_declaring_gigabytes_in_a_small_file_is_refused_unread",
            "test_tagger_bounds.py::test_a_meta_json_beyond_the_cap_is_refused",
            "test_tagger_bounds.py::test_members_compressed_in_ways_that_inflate_unbounded_are_refused",
        ],
    ),
    (
        "(g) hostile corpora end in a FormatError naming file and line (case 7)",
        [
            "store/test_formats_limits.py::test_a_sentence_of_too_many_tokens_names_its_first_line",
            "store/test_formats_limits.py::test_a_token_too_long_names_its_line",
            "store/test_formats_limits.py::test_a_line_too_long_is_refused_without_reading_it_whole",
            "store/test_formats_limits.py::test_too_many_distinct_labels_name_the_first_one_beyond",
            "store/test_formats_limits.py::test_a_table_too_large_is_refused_before_it_is_loaded",
            "store/test_formats_limits.py::test_tag_file_stops_at_the_sentence_beyond_the_limit",
            "store/test_formats_limits.py::test_the_counting_pass_does_not_hold_a_long_line",
        ],
    ),
]

SCENARIOS += SAFETY_SCENARIOS


# ---------------------------------------------------------------------------
# fuzzing


class Tally:
    """Outcomes of one fuzzed entry point."""

    def __init__(self, name: str, named: str):
        self.name, self.named = name, named
        self.counts: collections.Counter = collections.Counter()
        self.failures: dict[str, str] = {}  # kind -> first traceback
        self.seconds = 0.0

    def run(self, attempt: Callable[[], str]) -> None:
        self.counts["tried"] += 1
        try:
            self.counts[attempt()] += 1
        except Exception as exc:  # noqa: BLE001 — counting them is the point
            self.counts["other"] += 1
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            kind = f"{type(exc).__name__} at {Path(frame.filename).name}:{frame.lineno}"
            self.failures.setdefault(kind, traceback.format_exc(limit=-4) + f"\n{exc}"[:600])

    def row(self, named: bool = True) -> str:
        c = self.counts
        verdict = "✓" if c["other"] == 0 else "✗"
        first = f"| {self.name} | {self.named} |" if named else f"| {self.name} |"
        return f"{first} {c['tried']} | {c['refused']} | {c['accepted']} | {c['other']} {verdict} |" + (
            f" {self.seconds:.0f} s |" if named else ""
        )


def _settings(n: int) -> settings:
    return settings(
        max_examples=n, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )


def fuzz(tally: Tally, n: int, seed_value: int, strategies: dict, attempt: Callable[..., str]) -> Tally:
    """Run ``attempt(**drawn)`` on ``n`` hypothesis examples of ``strategies``."""

    @seed(seed_value)
    @_settings(n)
    @given(**strategies)
    def loop(**drawn):
        tally.run(lambda: attempt(**drawn))

    started = time.perf_counter()
    loop()
    tally.seconds = time.perf_counter() - started
    print(f"{tally.name}: {dict(tally.counts)} in {tally.seconds:.0f} s", file=sys.stderr)
    return tally


def fuzz_readers(folder: Path, n: int, seed_value: int) -> list[Tally]:
    tallies = []
    for name, case in READER_CASES.items():

        def attempt(data, encoding, schema, case=case):
            path = checks.write_input(folder, case, data)
            outcome = checks.try_read(case, path, encoding, schema)
            checks.try_detect(path)
            return outcome

        label = f"`{name}`" + (f" ({', '.join(f'{k}={v!r}' for k, v in case.options.items())})" if case.options else "")
        tallies.append(
            fuzz(
                Tally(label, "FormatError"),
                n,
                seed_value,
                {"data": corpus_file(case), "encoding": st.sampled_from(ENCODINGS), "schema": st.booleans()},
                attempt,
            )
        )

    def detect(data):
        path = folder / "any.dat"
        path.write_bytes(data)
        return checks.try_detect(path)

    tallies.append(
        fuzz(
            Tally("`detect_format` (random bytes)", "— (never raises)"),
            n,
            seed_value,
            {"data": st.binary(max_size=2000)},
            detect,
        )
    )
    return tallies


def fuzz_spans(folder: Path, n: int, seed_value: int) -> list[Tally]:
    """The span-record readers from their real-layout fixtures (``benchmarks/_span_fuzz.py``)."""
    tallies = []
    for name in spans.CASES:
        tally = Tally(name, "FormatError")
        tallies.append(
            fuzz(tally, n, seed_value, spans.strategies(name), spans.attempt_for(name, folder, tally.counts))
        )
    return tallies


def fuzz_imports(folder: Path, n: int, seed_value: int) -> list[Tally]:
    case = READER_CASES["detected"]
    seed_case = READER_CASES["conll"]
    corpus_path = checks.write_input(folder, seed_case, seed_case.seeds[3])
    from tagtool.store.formats import read_corpus

    corpus = read_corpus(corpus_path, format="conll")
    grow = Project.create(folder / "import.tagproj", corpus)
    labeled = Project.create(
        folder / "annotations.tagproj",
        read_corpus(checks.write_input(folder, READER_CASES["conll"], READER_CASES["conll"].seeds[0]), format="conll"),
    )
    case_annotations = READER_CASES["conll"]
    try:
        t1 = fuzz(
            Tally("`project.imports.import_corpus` (file → reader → project)", "TagtoolError"),
            n,
            seed_value,
            {"data": corpus_file(case)},
            lambda data: checks.try_import(grow, checks.write_input(folder, case, data), case),
        )
        t2 = fuzz(
            Tally("`project.imports.import_annotations` (file → reader → project)", "TagtoolError"),
            n,
            seed_value,
            {
                "data": corpus_file(case_annotations),
                "mode": st.sampled_from(["replace", "fill"]),
                "match": st.sampled_from(["order", "document"]),
            },
            lambda data, mode, match: checks.try_import_annotations(
                labeled, checks.write_input(folder, case_annotations, data), case_annotations, mode, match
            ),
        )
    finally:
        grow.close()
        labeled.close()
    return [t1, t2]


def fuzz_tagger(folder: Path, n: int, seed_value: int) -> list[Tally]:
    path = folder / "model.tagger"
    # Weights near 1e300 are finite, so a file may hold them; numpy warns
    # when the scores they give overflow (the tagger still tags).
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="tagtool.learn.chain")

    def load(data):
        path.write_bytes(data)
        return checks.try_load_tagger(path)

    return [
        fuzz(Tally("`load_tagger`", "TaggerFileError"), n, seed_value, {"data": tagger_file()}, load),
        fuzz(
            Tally("`Tagger.from_bytes` (stored models)", "TaggerFileError"),
            n,
            seed_value + 1,
            {"data": tagger_file()},
            checks.try_tagger_bytes,
        ),
    ]


# ---------------------------------------------------------------------------
# fault scenarios


def damaged_projects(folder: Path, n: int, seed_value: int) -> tuple[list[str], int]:
    """Truncations at every page and random offsets, random damage: outcomes per kind."""
    from project_damage import corruptions, truncations, try_open
    from project_samples import LABELS, plain_corpus

    good = folder / "good.tagproj"
    with Project.create(good, plain_corpus(300, 12)) as p:
        ids = p.sentence_ids()
        for i in range(60):
            p.set_annotation(ids[i], i % 12, [LABELS.names[i % len(LABELS)]])
        p.stored.add_model("perceptron", {"max_iter": 2}, {"f1": 0.5}, b"model bytes" * 100)
    data = good.read_bytes()
    rng = random.Random(seed_value)
    tallies = {}
    damaged = folder / "damaged" / "d.tagproj"
    damaged.parent.mkdir()
    for kind, copy in [*truncations(data, rng, n_random=n // 4), *corruptions(data, rng, n)]:
        kind = "truncated" if kind.startswith("cut") else kind
        for readonly in (False, True):
            tally = tallies.setdefault(kind, Tally(kind, "ProjectError"))
            damaged.write_bytes(copy)
            tally.run(lambda: {"opened": "accepted", "refused": "refused"}[try_open(damaged, readonly)])
            for side in damaged.parent.iterdir():
                if side != damaged:
                    side.unlink()
    return [t.row(named=False) for t in tallies.values()], len(data)


def disk_filling_up(folder: Path, rounds: int, between: int = 100) -> dict:
    """A disk that fills up ``rounds`` times under a stream of edits.

    Each time the file is capped at its size (``PRAGMA max_page_count``),
    edits go on until one is refused; then room is made, the refused edit
    is tried again (it must go through) and ``between`` more edits are made.
    At the end the file is reopened and every edit reported saved looked up.
    """
    from project_samples import LABELS, plain_corpus
    from sqlite_faults import fill_disk, free_disk

    path = folder / "full.tagproj"
    saved, refused, retried = {}, 0, 0
    with Project.create(path, plain_corpus(600, 10)) as project:
        ids = project.sentence_ids()
        edits = ((ids[i % len(ids)], (i // len(ids)) % 10, LABELS.names[i % len(LABELS)]) for i in range(10**6))
        for _ in range(rounds):
            fill_disk(project)
            for sid, token, label in edits:
                try:
                    project.set_annotation(sid, token, [label])
                except ProjectError as e:
                    assert "disk is full" in str(e)
                    refused += 1
                    break
                saved[(sid, token)] = frozenset([label])
            free_disk(project)
            project.set_annotation(sid, token, [label])
            saved[(sid, token)] = frozenset([label])
            retried += 1
            for _, (sid, token, label) in zip(range(between), edits):
                project.set_annotation(sid, token, [label])
                saved[(sid, token)] = frozenset([label])
    with Project.open(path, readonly=True) as project:
        state = {sid: project.annotations(sid) for sid in project.sentence_ids()}
    kept = sum(state[sid][t] == labels for (sid, t), labels in saved.items())
    return {"rounds": rounds, "saved": len(saved), "kept": kept, "refused": refused, "retried": retried}


def open_check_cost(folder: Path, n_sentences: int) -> list[str]:
    """Seconds of each open-time check on a big project, and of Project.open itself."""
    from project_samples import plain_corpus

    path = folder / "big.tagproj"
    Project.create(path, plain_corpus(n_sentences, 20)).close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = []
    for what, sql in [
        ("`PRAGMA quick_check` (the check before this issue)", "PRAGMA quick_check"),
        ("`PRAGMA integrity_check` (now)", "PRAGMA integrity_check(3)"),
        (
            "JSON columns valid (`json_valid`, `json_type`; now)",
            "SELECT rowid FROM sentences WHERE (CASE WHEN json_valid(tokens) THEN json_type(tokens) END) "
            "IS NOT 'array' OR (CASE WHEN json_valid(columns) THEN json_type(columns) END) IS NOT 'object' "
            "OR (CASE WHEN json_valid(meta) THEN json_type(meta) END) IS NOT 'object' LIMIT 1",
        ),
    ]:
        rows.append(f"| {what} | {_best_of(3, lambda: conn.execute(sql).fetchall()) * 1000:.0f} ms |")
    conn.close()
    rows.append(f"| `Project.open` (all checks) | {_best_of(3, lambda: Project.open(path).close()) * 1000:.0f} ms |")
    size = path.stat().st_size / 1e6
    return rows, size


def _best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def scenario_tests() -> list[str]:
    """Run the tests of every fault scenario; one row per scenario."""
    ids = [test for _, tests in SCENARIOS for test in tests]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={report}",
                *[f"tests/{t}" for t in ids],
            ],
            cwd=ROOT,
            env=env,
            check=False,
            stdout=subprocess.DEVNULL,
        )
        outcome = {}
        for case in ElementTree.parse(report).iter("testcase"):
            name = case.get("name").split("[")[0]
            failed = any(child.tag in ("failure", "error") for child in case)
            skipped = any(child.tag == "skipped" for child in case)
            passed, total = outcome.get(name, (0, 0))
            outcome[name] = (passed + (not failed and not skipped), total + 1)
    rows = []
    for scenario, tests in SCENARIOS:
        cells = []
        for test in tests:
            passed, total = outcome.get(test.split("::")[1], (0, 0))
            cells.append(f"`{test.split('::')[1]}` {passed}/{total}")
        ok = all(outcome.get(t.split("::")[1], (0, 1))[0] == outcome.get(t.split("::")[1], (0, 1))[1] for t in tests)
        rows.append(f"| {scenario} | {'passed ✓' if ok else 'FAILED ✗'} | {'<br>'.join(cells)} |")
    return rows


# ---------------------------------------------------------------------------
# report


def _machine() -> list[str]:
    return machine_lines(versions=f", SQLite {sqlite3.sqlite_version}")


TABLE = [
    "| entry point | named error | tried | refused (named error) | accepted (valid result) "
    "| other failures (target 0) | time |",
    "|---|---|---|---|---|---|---|",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=3000, help="inputs per reader case")
    parser.add_argument("--tagger-examples", type=int, default=3000, help="inputs per tagger entry point")
    parser.add_argument("--import-examples", type=int, default=1000, help="inputs per project import")
    parser.add_argument("--damaged", type=int, default=400, help="random damaged copies of a project")
    parser.add_argument(
        "--big", type=int, default=100_000, help="sentences of the project the open checks are timed on"
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--hostile-trials", type=int, default=3, help="runs of each full-size hostile file")
    parser.add_argument("--span-examples", type=int, default=1500, help="inputs per span-reader case")
    parser.add_argument(
        "--safety-scale", type=float, default=1.0, help="trials of the file-safety cases, times the default counts"
    )
    parser.add_argument(
        "--quick", action="store_true", help="about a tenth of every count (a check that everything runs, not a result)"
    )
    parser.add_argument(
        "--adversarial-scale",
        type=float,
        default=1.0,
        help="trials of the team, concurrency and odd-file cases, times the default counts",
    )
    parser.add_argument(
        "--only-adversarial",
        action="store_true",
        help="run only the team, concurrency and odd-file trials and replace their section",
    )
    parser.add_argument("--no-tests", action="store_true", help="skip running the scenario tests")
    args = parser.parse_args(argv)
    if args.quick:
        for name in ("examples", "tagger_examples", "import_examples", "span_examples", "damaged", "big"):
            setattr(args, name, max(10, getattr(args, name) // 10))
        args.hostile_trials, args.safety_scale = 1, args.safety_scale / 5
        args.adversarial_scale /= 10
    command = "python benchmarks/reliability.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.only_adversarial:
        with tempfile.TemporaryDirectory() as tmp:
            lines, failed = adversarial(Path(tmp), args.seed, args.adversarial_scale)
        print("\n".join(lines))
        RESULT.write_text(
            replace_section(RESULT.read_text(encoding="utf-8"), lines, command.strip(), _machine()), encoding="utf-8"
        )
        return 1 if failed else 0

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        readers = fuzz_readers(folder, args.examples, args.seed)
        imports = fuzz_imports(folder, args.import_examples, args.seed)
        taggers = fuzz_tagger(folder, args.tagger_examples, args.seed)
        damage, size = damaged_projects(folder, args.damaged, args.seed)
        full = disk_filling_up(folder, rounds=10)
        cost, big_size = open_check_cost(folder, args.big)
        hostile = hostile_sizes(folder / "hostile", args.hostile_trials)
        span_tallies = fuzz_spans(folder, args.span_examples, args.seed)
        counts = trial_counts(args.safety_scale)
        safety, safety_failed = file_safety(folder / "safety", counts, args.seed)
        team, team_failed = adversarial(folder / "adversarial", args.seed, args.adversarial_scale)
    tests = [] if args.no_tests else scenario_tests()

    everything = readers + imports + taggers
    lines = [
        "# Reliability: hostile input and faults",
        "",
        f"Command: `{command.strip()}`",
        "",
        *_machine(),
        "",
        "## Fuzzed readers and loader",
        "",
        "Inputs from the generators of `tests/fuzz/` (the CI tests run the same ones, 40 examples each, "
        "25 for the project imports): "
        "mutated valid files (bit flips, truncation, lines inserted, deleted, duplicated or swapped, a field "
        "added or dropped, CRLF/CR line ends, byte-order marks, NUL bytes, invalid UTF-8, odd and huge "
        "unicode), token soup made of every format's syntax, random bytes and text, structured JSON "
        "mutations; each read as UTF-8, Latin-1, CP-1252, UTF-16 or UTF-8-SIG, with or without a label "
        "schema. `read_corpus` and `iter_sentences` must agree and `detect_format` must name a format. "
        "Tagger files: valid taggers with zip members removed, duplicated, renamed or replaced, other "
        "compression, encryption flags, `meta.json` values of the wrong type, `weights.npz` arrays of the "
        "wrong shape or dtype, NaN, pickled objects, damaged `.npy` headers; an accepted tagger must tag. "
        f"Hypothesis seed {args.seed}.",
        "",
        *TABLE,
        *[t.row() for t in everything],
        "",
    ]
    failures = [(t.name, kind, tb) for t in everything for kind, tb in t.failures.items()]
    if failures:
        lines += ["Failures other than the named error (first of each kind):", ""]
        for name, kind, tb in failures:
            lines += [f"- {name}: {kind}", "", "```", tb.strip(), "```", ""]
    lines += [
        "## Fault scenarios",
        "",
        f"Damaged copies of a {size // 1024} KiB project (300 sentences, edits, a stored model), each opened "
        "read-write and read-only: refused with a `ProjectError` naming the file, the file byte-identical "
        "and no side file left; or, for damage inside a value no check can see, opened and read in full "
        "(every sentence, annotation, summary, log entry and model) with no error but a `TagtoolError`.",
        "",
        "| damage | tries (each copy opened read-write, then read-only) | refused, file untouched "
        "| opened, read in full "
        "| other failures (target 0) |",
        "|---|---|---|---|---|",
        *damage,
        "",
        f"A disk filling up {full['rounds']} times under a stream of edits (`PRAGMA max_page_count` "
        "at the file's size; then room made, the refused edit tried again and 100 more edits): "
        f'{full["refused"]} edits refused with "the disk is full", {full["retried"]} retries saved, '
        f"{full['saved']} tokens saved in all; reopened, {full['kept']} of those {full['saved']} are in "
        f"the file as saved ({'✓' if full['kept'] == full['saved'] else '✗'}).",
        "",
        f"What the open-time checks cost on a project of {args.big} sentences × 20 tokens "
        f"({big_size:.0f} MB; best of 3):",
        "",
        "| check | time |",
        "|---|---|",
        *cost,
        "",
    ]
    lines += [
        "## Hostile sizes",
        "",
        "Each file run through `tagtool` in a child process limited to "
        f"{ADDRESS_LIMIT // 1024:,} kB of address space (`ulimit -v`) and {TIME_LIMIT} s; the outcome "
        "must be a one-line error naming the file (and the line, for corpora), or the file processed. "
        "Corpora go through `tagtool tag` (a tagger of two features; its counting pass reads the whole "
        "file first) or, for labels and tables, `tagtool import`.",
        "",
        *HOSTILE_HEADER,
        *hostile,
        "",
    ]
    lines += [
        "## Span-record readers",
        "",
        "doccano and Label Studio records from the fixtures of `tests/data` (`doccano_v1.jsonl`, "
        "`doccano_entities.jsonl`, `labelstudio_full.json`, `labelstudio_min.json`) with span offsets moved "
        "anywhere (into a token, off the text, before their start, odd types), JSON values replaced, bytes "
        "mutated, or noise; read as for the readers above. A span that cannot be placed is skipped with a "
        "warning that names the file (an error with `strict`); every warning was checked to name it.",
        "",
        *spans.SPAN_HEADER,
        *[spans.span_row(t) for t in span_tallies],
        "",
    ]
    failures = [(t.name, kind, tb) for t in span_tallies for kind, tb in t.failures.items()]
    for name, kind, tb in failures:
        lines += [f"- {name}: {kind}", "", "```", tb.strip(), "```", ""]
    lines += [
        "## File safety (cases 1–5, 8, 9)",
        "",
        "Randomized trials through `tagtool` (in this process, or in child processes for 4 and 9); every "
        "trial checks the case's promise, and a failed one is printed. Special files are made inside the "
        "temporary folder (the device node by `os.mknod`, never a real device). A read-only folder is "
        "simulated as `tests/store/test_project_readonly.py` does: the benchmark runs as root, whom "
        "`chmod` does not stop. Trial counts: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + f"; seed {args.seed}.",
        "",
        *safety,
    ]
    lines += ["", *team]
    if tests:
        lines += [
            "Tests of each scenario (`python -m pytest` on the ids below; passed/run):",
            "",
            "| scenario | outcome | tests |",
            "|---|---|---|",
            *tests,
            "",
        ]
    text = "\n".join(lines)
    print(text)
    write_keeping_analysis(RESULT, lines)
    others = sum(t.counts["other"] for t in everything + span_tallies) + sum("✗" in row for row in hostile)
    others += safety_failed + team_failed
    return 1 if others else 0


if __name__ == "__main__":
    sys.exit(main())
