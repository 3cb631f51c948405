"""CoNLL-U trials: split and merge near multiword tokens, invalid IDs and fields, byte-exact BOM/CRLF round trips.

``run(folder, seed, scale)`` returns the markdown lines of one subsection
and the number of failed trials (target 0):

* random splits and merges (at scale 1.0, 300 of each per UD slice) in a
  project made from ``tests/data/ewt_test_slice.conllu`` and
  ``tests/data/ud_en_ewt_train_head.conllu``, most of them at, inside or
  beside a multiword token, on sentences already changed by earlier ones
  (a sentence is put back by the app's undo after four changes); after
  each, the changed sentence is exported, parsed by the ``conllu`` package
  and checked (``tests/store/conllu_checks.py``: one root, no cycle, heads
  in range, multiword tokens in place, ``# text`` equal to the words with
  their ``SpaceAfter``) and read back by tagtool's own reader;
* each invalid ID or field, injected at a random place of a random UD
  sentence: refused with a ``FormatError`` naming the file and the line
  injected; a line with another line ending: read with a warning naming it;
* BOM, CRLF and CR variants of random runs of UD sentences: ``tagtool
  import`` then ``tagtool export`` gives the same bytes.

Run alone: ``python benchmarks/_adv_conllu.py [--scale X] [--seed S]``.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "store")]

from conllu_checks import problems  # noqa: E402

from tagtool.core.corpus import Corpus, Document  # noqa: E402
from tagtool.errors import FormatError  # noqa: E402
from tagtool.store.formats import read_corpus, write_corpus  # noqa: E402
from tagtool.store.project import Project  # noqa: E402

DATA = ROOT / "tests" / "data"
SLICES = ("ewt_test_slice.conllu", "ud_en_ewt_train_head.conllu")
#: Operations of each kind per slice, invalid files per kind, round trips per variant, at scale 1.0.
OPS, INVALID_TRIALS, ROUND_TRIPS = 300, 30, 12


class Row:
    """Outcomes of one kind of trial."""

    def __init__(self, what: str):
        self.what, self.notes, self.failures, self.seconds = what, Counter(), [], 0.0

    def run(self, label: str, trial: Callable[[], str]) -> None:
        started = time.perf_counter()
        try:
            self.notes[trial()] += 1
        except Exception as exc:  # noqa: BLE001 — every failure is counted and printed
            self.failures.append(f"{self.what} / {label}: {type(exc).__name__}: {str(exc)[:300]}")
            print(f"FAILED trial: {self.failures[-1]}", file=sys.stderr)
        finally:
            self.seconds += time.perf_counter() - started

    def line(self) -> str:
        tried = sum(self.notes.values()) + len(self.failures)
        notes = ", ".join(f"{k} {v}" for k, v in sorted(self.notes.items()))
        return f"| {self.what} | {tried} | {notes} | {len(self.failures)} | {self.seconds:.1f} s |"


def need(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


# ---------------------------------------------------------------------------
# split and merge


def _ranges(meta: dict) -> list[tuple[int, int]]:
    out = []
    for line in str(meta.get("conllu:lines", "")).split("\n"):
        start, dash, end = line.split("\t", 1)[0].partition("-")
        if dash and start.isdigit() and end.isdigit():
            out.append((int(start), int(end)))
    return out


def _place(tokens: tuple[str, ...], meta: dict, rng: random.Random) -> tuple[int, bool]:
    """A 0-based token at, inside or beside a multiword token (70 % when there is one), else any."""
    spots = sorted({t for a, b in _ranges(meta) for t in range(a - 2, b + 1) if 0 <= t < len(tokens)})
    if spots and rng.random() < 0.7:
        return rng.choice(spots), True
    return rng.randrange(len(tokens)), False


def _possible(p: Project, kind: str, sids: list[int], rng: random.Random) -> int:
    """A sentence of ``sids`` where ``kind`` can be done: two tokens to merge, or a token of two characters."""
    while True:
        sid = rng.choice(sids)
        tokens = p.sentence(sid).tokens
        if (len(tokens) > 1) if kind == "merge" else any(len(w) > 1 for w in tokens):
            return sid


def _operate(p: Project, sid: int, kind: str, rng: random.Random, out: Path, labels, history: dict) -> str:
    """One split or merge near a multiword token, its export checked; ``history[sid]``: the changes, for undo."""
    s = p.sentence(sid)
    t, near = _place(s.tokens, dict(s.meta), rng)
    if kind == "merge":
        t = min(t, len(s.tokens) - 2)
        done = p.review.merge_tokens(sid, t)
    else:
        longer = [k for k in range(max(0, t - 2), min(len(s.tokens), t + 3)) if len(s.tokens[k]) > 1]
        t = rng.choice(longer or [k for k, w in enumerate(s.tokens) if len(w) > 1])
        done = p.review.split_token(sid, t, rng.randrange(1, len(s.tokens[t])))
    history.setdefault(sid, []).append((done, t))
    changed = p.sentence(sid)
    write_corpus(Corpus(labels, [Document("out.conllu", [changed])]), out)
    text = out.read_text(encoding="utf-8")
    found = problems(text)
    need(not found, f"{kind} at token {t + 1} of {changed.meta.get('sent_id')}: {found[:3]}")
    need(read_corpus(out).sentences[0].tokens == changed.tokens, "the export does not read back")
    return f"valid ({'near a multiword token' if near else 'elsewhere'})"


def retokenize_trials(folder: Path, rng: random.Random, scale: float) -> list[Row]:
    rows = []
    for name in SLICES:
        corpus = read_corpus(DATA / name)
        with Project.create(folder / f"{name}.tagproj", corpus) as p:
            sids = p.sentence_ids()
            pool = [sid for sid, s in zip(sids, corpus.sentences) if _ranges(dict(s.meta))]
            history: dict = {}
            for kind in ("split", "merge"):
                row, changes = Row(f"{kind}, {name}"), Counter()
                for k in range(max(1, round(OPS * scale))):
                    sid = _possible(p, kind, pool if rng.random() < 0.8 else sids, rng)
                    row.run(f"#{k}", lambda: _operate(p, sid, kind, rng, folder / "out.conllu", corpus.labels, history))
                    changes[sid] += 1
                    if changes[sid] % 4 == 0:  # the app's undo, change by change, back to the file's words
                        for done, t in reversed(history.pop(sid, [])):
                            p.review.restore_tokens(sid, done.before, t, expected=done.after)
                rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# invalid CoNLL-U


def _extra(ident: str, form: str = "x") -> str:
    return "\t".join([ident, form, "_", "_", "_", "_", "_", "_", "_", "_"])


def _blank(line: str, field: int) -> str:
    fields = line.split("\t")
    fields[field] = ""
    return "\t".join(fields)


def _inject(kind: str, words: list[str], rng: random.Random) -> tuple[list[str], int, str]:
    """The sentence's lines with one invalid line (or two), the 0-based index of the one to blame, the message."""
    n, lines = len(words), list(words)
    a = rng.randrange(1, n - 1)  # words a, a+1, a+2 exist (n >= 3)
    before = lines.index(words[a - 1])
    if kind == "overlapping ranges":
        lines[before + 1 : before + 1] = [_extra(f"{a + 1}-{a + 2}")]
        lines[before:before] = [_extra(f"{a}-{a + 1}")]
        return lines, before + 2, "overlaps"
    if kind == "nested ranges":
        lines[before:before] = [_extra(f"{a}-{a + 2}"), _extra(f"{a}-{a + 1}")]
        return lines, before + 1, "overlaps"
    if kind == "range past the sentence":
        end = rng.choice([n + rng.randint(1, 9), 99999999999])
        lines[before:before] = [_extra(f"{a}-{end}")]
        return lines, before, "goes past"
    if kind == "single-word range":
        lines[before:before] = [_extra(f"{a}-{a}")]
        return lines, before, "two or more words"
    if kind == "misplaced range":
        at = rng.choice([k for k in range(n + 1) if k != a - 1])  # before any word but its first, or last
        lines[at:at] = [_extra(f"{a}-{a + 1}")]
        return lines, at, "out of place" if at < n else "at the end" if a == n + 1 else "out of place"
    if kind == "empty node past its word":
        major = rng.randint(a + 1, n + 5)
        lines[before + 1 : before + 1] = [_extra(f"{major}.1")]
        return lines, before + 1, "empty node"
    if kind == "empty node misnumbered":
        lines[before + 1 : before + 1] = [_extra(f"{a}.{rng.randint(2, 9)}")]
        return lines, before + 1, "was expected"
    field = 1 if kind == "empty FORM" else rng.randint(2, 9)
    lines[before] = _blank(lines[before], field)
    return lines, before, "empty"


INVALID_KINDS = (
    "overlapping ranges",
    "nested ranges",
    "range past the sentence",
    "single-word range",
    "misplaced range",
    "empty node past its word",
    "empty node misnumbered",
    "empty FORM",
    "empty other field",
)


def _plain_sentences() -> list[list[str]]:
    """Word lines (no ranges, no empty nodes) of every UD sentence of three or more words."""
    out = []
    for name in SLICES:
        for block in (DATA / name).read_text(encoding="utf-8").strip().split("\n\n"):
            words = [w for w in block.split("\n") if w and not w.startswith("#") and w.split("\t")[0].isdigit()]
            if len(words) >= 3:
                out.append(words)
    return out


def _refused(folder: Path, kind: str, sentences: list[list[str]], rng: random.Random) -> str:
    lines, bad, message = _inject(kind, rng.choice(sentences), rng)
    head = rng.choice(sentences)
    text = "# sent_id = first\n" + "\n".join(head) + "\n\n# sent_id = bad\n" + "\n".join(lines) + "\n\n"
    path = folder / "bad.conllu"
    path.write_text(text, encoding="utf-8")
    line = len(head) + 4 + bad  # 1 comment + words + blank + comment, then the sentence's lines
    try:
        read_corpus(path)
    except FormatError as exc:
        need(exc.path == str(path) and exc.line == line, f"refused at {exc.path}:{exc.line}, not line {line}: {exc}")
        need(message in str(exc), f"message {str(exc)!r} does not say {message!r}")
        return "refused naming file and line"
    raise AssertionError(f"accepted: {lines[bad]!r}")


def _mixed_ending(folder: Path, sentences: list[list[str]], rng: random.Random) -> str:
    words = rng.choice(sentences)
    odd = rng.randrange(1, len(words))
    data = "".join(w + ("\n" if k == odd else "\r\n") for k, w in enumerate(words)) + "\r\n"
    path = folder / "mixed.conllu"
    path.write_bytes(data.encode("utf-8"))
    corpus = read_corpus(path)
    need(any(f"{path}:{odd + 1}:" in w for w in corpus.warnings), f"no warning names line {odd + 1}")
    write_corpus(corpus, folder / "out.conllu")
    need(
        (folder / "out.conllu").read_bytes() == data.replace("\n", "\r\n").replace("\r\r", "\r").encode(),
        "not written back with the sentence's CRLF",
    )
    return "repaired with a warning naming the line"


def invalid_trials(folder: Path, rng: random.Random, scale: float) -> list[Row]:
    sentences, n = _plain_sentences(), max(1, round(INVALID_TRIALS * scale))
    rows = []
    for kind in INVALID_KINDS:
        row = Row(f"invalid: {kind}")
        for k in range(n):
            row.run(f"#{k}", lambda: _refused(folder, kind, sentences, rng))
        rows.append(row)
    row = Row("a line ending unlike its sentence's")
    for k in range(n):
        row.run(f"#{k}", lambda: _mixed_ending(folder, sentences, rng))
    return [*rows, row]


# ---------------------------------------------------------------------------
# BOM and line endings


VARIANTS = {
    "LF": lambda b: b,
    "CRLF": lambda b: b.replace(b"\n", b"\r\n"),
    "CR": lambda b: b.replace(b"\n", b"\r"),
    "BOM": lambda b: codecs.BOM_UTF8 + b,
    "BOM+CRLF": lambda b: codecs.BOM_UTF8 + b.replace(b"\n", b"\r\n"),
}


def _round_trip(folder: Path, variant: str, rng: random.Random) -> str:
    from tagtool.cli.main import main

    blocks = (DATA / rng.choice(SLICES)).read_bytes().split(b"\n\n")[:-1]
    start = rng.randrange(len(blocks))
    data = VARIANTS[variant](b"".join(b + b"\n\n" for b in blocks[start : start + rng.randint(1, 30)]))
    path, project, out = folder / "in.conllu", folder / "rt.tagproj", folder / "rt.conllu"
    path.write_bytes(data)
    project.unlink(missing_ok=True)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        need(main(["import", str(path), "-p", str(project)]) == 0, "import failed")
        need(main(["export", str(project), "-o", str(out)]) == 0, "export failed")
    need(out.read_bytes() == data, "export differs from the file imported")
    return "same bytes"


def round_trip_trials(folder: Path, rng: random.Random, scale: float) -> list[Row]:
    rows = []
    for variant in VARIANTS:
        row = Row(f"import + export, {variant}")
        for k in range(max(1, round(ROUND_TRIPS * scale))):
            row.run(f"#{k}", lambda: _round_trip(folder, variant, rng))
        rows.append(row)
    return rows


def run(folder: Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Every CoNLL-U trial in ``folder``; the subsection's lines and the number of failed trials."""
    rng = random.Random(seed)
    rows = (
        retokenize_trials(folder, rng, scale)
        + invalid_trials(folder, rng, scale)
        + round_trip_trials(folder, rng, scale)
    )
    failures = [f for r in rows for f in r.failures]
    lines = [
        "### CoNLL-U: split and merge near multiword tokens, invalid files, BOM and CRLF",
        "",
        f"Random splits and merges ({OPS} of each per UD slice at scale 1.0, most at, inside or beside a "
        "multiword token, on sentences already changed; undone every four changes) in a project, each "
        "followed by an export of the sentence that the `conllu` package parses and that must have one root, "
        "no cycle, heads in range, multiword tokens in place and `# text` equal to its words with their "
        "`SpaceAfter`; invalid IDs and fields injected at random places of UD sentences, which must be "
        "refused naming the file and the line; BOM, CRLF and CR variants of runs of UD sentences, which "
        "`tagtool import` then `tagtool export` must give back byte for byte "
        f"(seed {seed}, scale {scale}).",
        "",
        "| trial | trials | outcomes | failed (target 0) | time |",
        "|---|---|---|---|---|",
        *[r.line() for r in rows],
        "",
    ]
    if failures:
        lines += ["Failed trials:", "", *[f"- {f}" for f in failures[:30]], ""]
    return lines, len(failures)


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__)
