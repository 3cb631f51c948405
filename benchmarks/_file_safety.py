"""The file-safety cases 1–5, 8 and 9 as randomized trials: run them all, one table.

Cases 6 and 7 (hostile sizes) are :mod:`_hostile`'s. Each trial's promise
is in the module that runs it: :mod:`_safety_outputs` (1, 2, 3, 5),
:mod:`_safety_edited` (8), :mod:`_safety_procs` (4, 9).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import _safety_edited as edited
import _safety_outputs as outputs
import _safety_procs as procs
from _safety_trials import Trials, report, small_inputs

#: Trials per kind in a default run; ``--quick`` takes about a fifth.
DEFAULT_TRIALS = {
    "one-label": 250,
    "over-input": 400,
    "special": 100,
    "read-only": 100,
    "two-processes": 10,
    "edited": 1000,
    "huge-integer": 100,
    "disk-full": 200,
    "killed": 15,
    "upgrade": 20,
    "ctrl-c": 8,
}


def trial_counts(scale: float) -> dict[str, int]:
    return {k: max(2, round(v * scale)) for k, v in DEFAULT_TRIALS.items()}


def file_safety(base: Path, counts: dict[str, int], seed: int) -> tuple[list[str], int]:
    """Every case's trials; the table lines and the number of failed trials."""
    rng = random.Random(seed)
    files = small_inputs(base / "inputs")
    steps = [
        lambda: outputs.one_label_corpora(base, counts["one-label"], rng),
        lambda: outputs.outputs_over_inputs(base / "inputs", files, counts["over-input"], rng),
        lambda: outputs.special_files(base, files, counts["special"], rng),
        lambda: procs.two_processes(base, counts["two-processes"], rng),
        lambda: outputs.read_only_folders(base, counts["read-only"], rng),
        lambda: edited.edited_projects(base, counts["edited"], rng),
        lambda: edited.huge_integers(base, counts["huge-integer"], rng),
        lambda: edited.disk_full_create(base, counts["disk-full"], rng),
        lambda: procs.killed_writes(base, files, counts["killed"], rng),
        lambda: procs.killed_upgrades(base, counts["upgrade"], rng),
        lambda: procs.second_ctrl_c(base, files, counts["ctrl-c"], rng),
    ]
    everything: list[Trials] = []
    for step in steps:
        trials = step()
        for t in trials:
            print(f"{t.case} / {t.name}: {dict(t.notes)}, {len(t.failures)} failed, {t.seconds:.0f} s", file=sys.stderr)
        everything += trials
    return report(everything), sum(len(t.failures) for t in everything)


def _ids(module: str, *names: str) -> list[str]:
    return [f"{module}::{name}" for name in names]


#: The pytest tests of each file-safety case (appended to the fault scenarios of ``reliability.py``).
SAFETY_SCENARIOS = [
    (
        "(h) one-label corpus keeps its labels (case 1)",
        _ids("store/test_one_label_corpus.py", "test_one_label_corpus_import_keeps_full_labels"),
    ),
    (
        "(i) no output over an input (case 2)",
        _ids(
            "test_cli_safety.py",
            "test_export_over_its_project_is_refused",
            "test_export_over_a_hard_link_or_symlink_of_its_project_is_refused",
            "test_train_over_any_of_its_inputs_is_refused",
            "test_tag_over_its_tagger_or_its_input_is_refused",
            "test_experiment_and_simulate_outputs_over_their_inputs_are_refused",
            "test_import_into_one_of_its_corpus_files_is_refused",
            "test_check_not_input_compares_files_not_spellings",
        )
        + _ids(
            "gui/test_gui_file_safety.py",
            "test_export_over_the_open_project_is_refused",
            "test_batch_tag_over_its_input_or_its_tagger_fails_and_keeps_them",
            "test_batch_tag_and_export_tagger_over_the_open_project_are_refused",
        ),
    ),
    (
        "(j) special files never replaced (case 3)",
        _ids(
            "store/test_atomic_write.py",
            "test_a_symlink_is_written_through_and_stays_a_link",
            "test_a_dangling_symlink_creates_its_target",
            "test_a_fifo_is_written_directly_not_replaced",
            "test_a_device_node_is_written_directly_not_replaced",
            "test_a_folder_is_refused",
            "test_project_create_over_a_symlink_writes_its_target_and_refuses_a_fifo",
        )
        + _ids(
            "test_cli_safety.py",
            "test_tag_to_a_device_node_writes_to_it_and_keeps_it",
            "test_an_output_folder_is_refused_before_any_work",
        ),
    ),
    (
        "(k) two processes: no dead label written (case 4)",
        _ids(
            "store/test_project_labels_version.py",
            "test_label_removed_elsewhere_is_not_written",
            "test_label_renamed_elsewhere_is_not_written",
            "test_label_added_elsewhere_is_seen",
            "test_candidate_set_normalised_against_current_labels",
        ),
    ),
    (
        "(l) read-only folder opens read-only, no -wal/-shm left (case 5)",
        _ids(
            "store/test_project_readonly.py",
            "test_read_only_info_and_export_leave_no_side_files",
            "test_closing_a_read_only_open_keeps_the_side_files_another_connection_uses",
            "test_a_project_in_a_read_only_folder_opens_read_only_and_says_why",
        ),
    ),
    (
        "(m) projects edited outside tagtool, disk full at create: named errors (case 8)",
        _ids(
            "store/test_project_edited_outside.py",
            "test_every_read_of_a_broken_sentence_is_a_project_error_naming_file_and_sentence",
            "test_attributes_that_are_not_an_object_are_refused_at_opening",
            "test_export_of_an_edited_project_is_one_line",
            "test_a_full_disk_while_creating_a_project_is_a_project_error_and_leaves_nothing",
            "test_a_full_disk_during_import_to_a_new_project_is_one_line",
            "test_a_failing_disk_at_the_final_sync_is_a_project_error",
            "test_a_label_outside_the_label_set_is_a_project_error_naming_file_and_sentence",
            "test_a_label_row_renamed_to_an_invalid_name_is_a_project_error_naming_the_file",
        ),
    ),
    (
        "(n) leftovers of killed writes and upgrades, second Ctrl-C (case 9)",
        _ids(
            "store/test_atomic_write.py",
            "test_temporary_files_of_a_killed_write_are_removed_by_the_next_write",
            "test_a_killed_writer_leaves_a_temp_file_that_the_next_write_removes",
        )
        + _ids(
            "store/test_project_leftovers.py",
            "test_opening_a_project_removes_the_temp_files_of_a_killed_creation",
            "test_a_killed_upgrade_leaves_no_partial_backup_after_the_next_open",
        )
        + _ids("test_cli_interrupt.py", "test_a_second_ctrl_c_exits_with_130_even_while_cleanup_blocks"),
    ),
]
