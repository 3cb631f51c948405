"""tagtool.services.batch_count: the progress bar's sentence count, block by block."""

from __future__ import annotations

import random

import pytest

import tagtool.services.batch_count as batch_count
from tagtool.services.batch_count import quick_count


def _by_lines(text: str, rule: str) -> int:
    """The rule read line by line: what :func:`quick_count` must give."""
    total, in_block = 0, False
    for line in text.split("\n") if not text.endswith("\n") else text[:-1].split("\n"):
        blank = not line.strip()
        if rule == "line":
            total += not blank
        elif blank or (rule == "block-docstart" and line.lstrip("\ufeff").startswith("-DOCSTART-")):
            in_block = False
        elif not in_block:
            total, in_block = total + 1, True
    return total


PIECES = [
    "EU NNP B-NP",
    "rejects VBZ O",
    "",
    "  ",
    "\t",
    "\u3000",
    "\u2028 ",
    "-DOCSTART- -X- O",
    "\ufeff-DOCSTART-",
    " -DOCSTART-",
    "x-DOCSTART-",
    "\ufeffa B",
    "é è",
    "word " * 30,
    "-DOCSTART-" * 8,
    "\x85",
]


@pytest.mark.parametrize("block", [1, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("seed", range(6))
def test_quick_count_agrees_with_line_by_line_counting_across_block_boundaries(tmp_path, monkeypatch, block, seed):
    monkeypatch.setattr(batch_count, "_BLOCK", block)
    rng = random.Random(seed)
    text = "\n".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60))) + rng.choice(["", "\n", "\n\n"])
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    for fmt, rule in (("conll", "block-docstart"), ("conllu", "block"), ("text", "line")):
        assert quick_count(path, fmt, "utf-8") == _by_lines(text, rule), (fmt, text)


def test_a_huge_line_spanning_blocks_counts_once(tmp_path, monkeypatch):
    monkeypatch.setattr(batch_count, "_BLOCK", 1000)
    path = tmp_path / "in.txt"
    text = "a B\n\n-DOCSTART-" + " x" * 50_000 + "\nc D\n" + "y" * 10_000 + "\n\n" + " " * 5000 + "\nz"
    path.write_text(text, "utf-8")
    assert quick_count(path, "conll", "utf-8") == 3  # "a"; "c" and "y"; "z" (the -DOCSTART- line ends one and is none)
    assert quick_count(path, "text", "utf-8") == 5
    assert quick_count(path, "csv", "utf-8") is None
