"""Progress written to a pipe or a file: plain lines, not a terminal bar."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from tagtool.cli.progress import PLAIN_EVERY, progress_bar

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_on_each_phase_and_every_few_seconds_only():
    stream, clock = io.StringIO(), Clock()
    with progress_bar("training crf", stream=stream, clock=clock) as report:
        report(0.0, "reading")
        for i in range(1, 50):  # many reports within one phase and 4.9 s: one line
            clock.now += 0.1
            report(i / 100, f"iteration {i}/100")
        clock.now += PLAIN_EVERY
        report(0.6, "iteration 60/100")
        report(0.9, "iteration 90/100")  # no line: the next phase's line follows at once
        report(1.0, "writing")
    assert stream.getvalue().splitlines() == [
        "training crf: 0% reading (0 s)",
        "training crf: 1% iteration 1/100 (0 s)",
        "training crf: 60% iteration 60/100 (10 s)",
        "training crf: 100% writing (10 s)",
        "training crf: 100% done (10 s)",
    ]


def test_the_last_message_is_shown_before_the_closing_line():
    stream, clock = io.StringIO(), Clock()
    with progress_bar("tagging x.txt", stream=stream, clock=clock) as report:
        report(0.09, "9 of 100 sentences")
        report(1.0, "100 of 100 sentences")
    assert stream.getvalue().splitlines()[-2:] == [
        "tagging x.txt: 100% 100 of 100 sentences (0 s)",
        "tagging x.txt: 100% done (0 s)",
    ]


def test_train_to_a_pipe_writes_readable_lines(tmp_path):
    data = ROOT / "tests" / "data" / "conll2000_train_head.txt"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "tagtool.cli",
        "train",
        str(data),
        "--learner",
        "perceptron",
        "-o",
        str(tmp_path / "m"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "\r" not in result.stderr and "\x1b[" not in result.stderr
    assert any(line.startswith("training perceptron: ") for line in lines)
    assert lines[-1].startswith("training perceptron: 100% done")
