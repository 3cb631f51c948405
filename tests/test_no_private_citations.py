"""Code, tests, benchmarks and the documentation speak for themselves or link into docs/.

The design notes and the issue tracker the project grew from do not ship with the
repository, so a reader cannot follow "DESIGN §2", "DESIGN.md" or "issue 12".  What such a
citation meant is either said where it stands or linked: ``docs/design.md#allowed-sets``.
This test fails on any such citation, and on a link into docs/design.md whose anchor is
not one of its headings (anchors as mkdocs makes them from the heading text).

benchmarks/results/*.md are checked as well: a dated record of measurements says what
changed, not which issue, session or branch changed it.  A third-party project's issue is
cited by its URL (``.../issues/123`` is fine).
"""

from __future__ import annotations

import pathlib
import re
import unicodedata

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DESIGN_PAGE = ROOT / "docs" / "design.md"

#: What is scanned: (folder or file, file name patterns).
SCANNED = (
    ("tagtool", ("*.py", "*.md", "*.txt")),
    ("tests", ("*.py", "*.md")),
    ("benchmarks", ("*.py",)),
    ("benchmarks/results", ("*.md",)),
    ("packaging", ("*",)),
    ("docs", ("*.md",)),
    ("README.md", ("*",)),
    ("pyproject.toml", ("*",)),
)
#: "DESIGN §5.3", "DESIGN.md", "DESIGN 2" (the private design notes).
DESIGN_CITATION = re.compile(r"\bDESIGN(\.md\b|\s*§|\s+\d)")
#: "issue 12", "Issue #3", "issues 11 and 12", "issue_13" (the private tracker); not ".../issues/123".
ISSUE_CITATION = re.compile(r"\b[Ii]ssues?[\s_-]*#?\d+")
#: A link into the design page, with its anchor.
DESIGN_LINK = re.compile(r"docs/design\.md#([\w-]+)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def scanned_files() -> list[pathlib.Path]:
    files = set()
    for name, patterns in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.add(path)
        elif path.is_dir():
            for pattern in patterns:
                files.update(p for p in path.rglob(pattern) if p.is_file())
    this = pathlib.Path(__file__).resolve()
    built = (ROOT / "packaging" / "dist", ROOT / "packaging" / "build")  # packaging/build.py's output (git-ignored)
    return sorted(
        p
        for p in files
        if p.resolve() != this
        and "__pycache__" not in p.parts
        and p.suffix not in {".png", ".pyc"}
        and not any(p.is_relative_to(folder) for folder in built)
    )


def _lines(path: pathlib.Path):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    yield from enumerate(text.splitlines(), start=1)


def slugify(heading: str) -> str:
    """The anchor mkdocs (Python-Markdown's ``toc``) gives a heading."""
    text = re.sub(r"[`*]", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def design_anchors() -> list[str]:
    anchors, fenced = [], False
    for _, line in _lines(DESIGN_PAGE):
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            anchors.append(slugify(match.group(1)))
    return anchors


@pytest.mark.parametrize("pattern", [DESIGN_CITATION, ISSUE_CITATION], ids=["design-notes", "issue-tracker"])
def test_nothing_cites_what_does_not_ship(pattern):
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
        for path in scanned_files()
        for number, line in _lines(path)
        if pattern.search(line)
    ]
    assert not found, "say what is meant, or link into docs/ (e.g. docs/design.md#allowed-sets):\n" + "\n".join(found)


def test_design_page_headings_are_unique():
    anchors = design_anchors()
    assert anchors, "docs/design.md has no headings"
    assert len(anchors) == len(set(anchors)), sorted(a for a in anchors if anchors.count(a) > 1)


def test_links_into_the_design_page_name_its_headings():
    anchors = set(design_anchors())
    broken = [
        f"{path.relative_to(ROOT)}:{number}: #{anchor}"
        for path in scanned_files()
        for number, line in _lines(path)
        for anchor in DESIGN_LINK.findall(line)
        if anchor not in anchors
    ]
    assert not broken, "no such heading in docs/design.md:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("(DESIGN §5.3)", True),
        ("see DESIGN.md", True),
        ("(issue 12)", True),
        ("Issue #3 asks", True),
        ("issue_13", True),
        ("https://github.com/numba/numba/issues/9999", False),
        ("the issue's goal", False),
        ("tissue 5", False),
        ("docs/design.md#allowed-sets", False),
    ],
)
def test_the_patterns_flag_citations_and_nothing_else(text, flagged):
    assert bool(DESIGN_CITATION.search(text) or ISSUE_CITATION.search(text)) == flagged


def test_slugify_matches_mkdocs_anchors():
    assert slugify("Entropy-regularised CRF") == "entropy-regularised-crf"
    assert slugify("WD-PSL") == "wd-psl"
    assert slugify("Full, partial and no labels") == "full-partial-and-no-labels"
