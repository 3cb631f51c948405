"""Fuzz cases for the span-record readers (doccano, Label Studio full and JSON-MIN).

The readers' generator of ``tests/fuzz/inputs.py`` holds three short span
records among its JSON seeds; these cases start from the real-layout
fixtures of ``tests/data`` (every annotation of a Label Studio task,
``completed_by``, ``was_cancelled``, doccano ``meta``) and add span
mutations: offsets anywhere from before the text to past its end, swapped,
inside tokens, overlapping, of odd types. A mutated file must give a
``FormatError`` naming the file or a valid corpus; with ``strict=False``
every span that cannot be placed is a warning naming the file, counted here.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import strategies as st

from tagtool.store.formats import read_corpus
from tests.fuzz import checks
from tests.fuzz.inputs import DATA, ENCODINGS, ReaderCase, json_tree_mutation, mutated, random_text, token_soup

FIXTURES = {
    "doccano": [DATA / "doccano_v1.jsonl", DATA / "doccano_entities.jsonl"],
    "labelstudio": [DATA / "labelstudio_full.json"],
    "labelstudio-min": [DATA / "labelstudio_min.json"],
}
#: name -> (fixtures, suffix, reader options)
CASES = {
    "doccano": ("doccano", ".jsonl", {}),
    "doccano (whitespace tokenizer, no sentence split)": (
        "doccano",
        ".jsonl",
        {"tokenizer": "whitespace", "sentence_split": False},
    ),
    "doccano (strict)": ("doccano", ".jsonl", {"strict": True}),
    "Label Studio full (all annotators)": ("labelstudio", ".json", {"annotator": "all"}),
    "Label Studio full (one annotator)": ("labelstudio", ".json", {"annotator": "ben@example.com"}),
    "Label Studio JSON-MIN": ("labelstudio-min", ".json", {}),
}
OFFSET_KEYS = {"start", "end", "start_offset", "end_offset"}


def _records(path: Path) -> list:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def _offset_paths(value, prefix=()) -> list[tuple]:
    """Paths to the offsets of every span: ``start``/``end`` keys and the first two items of ``[s, e, label]``."""
    out = []
    if isinstance(value, dict):
        for key, child in value.items():
            if key in OFFSET_KEYS:
                out.append((*prefix, key))
            out += _offset_paths(child, (*prefix, key))
    elif isinstance(value, list):
        if len(value) == 3 and all(isinstance(v, int) for v in value[:2]) and isinstance(value[2], str):
            out += [(*prefix, 0), (*prefix, 1)]
        for i, child in enumerate(value):
            out += _offset_paths(child, (*prefix, i))
    return out


def _set(value, path: tuple, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _set(value[path[0]], path[1:], new)
    return copy


def _get(value, path: tuple):
    for key in path:
        value = value[key]
    return value


@st.composite
def span_mutation(draw, records: list) -> list:
    """An offset moved anywhere (into a token, off the text, before its start), or swapped with its pair."""
    paths = _offset_paths(records)
    if not paths:
        return records
    path = draw(st.sampled_from(paths))
    old = _get(records, path)
    old = old if type(old) is int else 0  # an earlier mutation may have left another type
    new = draw(
        st.one_of(
            st.integers(-3, 120),
            st.just(old + 1),
            st.just(old - 1),
            st.just(-old - 1),
            st.sampled_from([0, 1, 10**6, 1.5, "3", None, True, [], float("nan")]),
        )
    )
    return _set(records, path, new)


@st.composite
def span_file(draw, fixture: str, suffix: str) -> bytes:
    """A fixture with span and JSON-tree mutations, or a fixture's bytes mutated, or noise."""
    seeds = FIXTURES[fixture]
    kind = draw(st.sampled_from(["spans", "spans", "tree", "bytes", "soup"]))
    if kind == "bytes":
        return draw(mutated(tuple(p.read_bytes() for p in seeds)))
    if kind == "soup":
        return draw(st.one_of(token_soup(), random_text()))
    records = _records(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        if kind == "spans":
            records = draw(span_mutation(records))
        elif records:
            i = draw(st.integers(0, len(records) - 1))
            records = _set(records, (i,), draw(json_tree_mutation(records[i])))
    if suffix == ".jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    return json.dumps(records, ensure_ascii=False, indent=draw(st.sampled_from([None, 1]))).encode()


def strategies(name: str) -> dict:
    fixture, suffix, _ = CASES[name]
    return {"data": span_file(fixture, suffix), "encoding": st.sampled_from(ENCODINGS), "schema": st.booleans()}


def attempt_for(name: str, folder: Path, tally_counts) -> callable:
    """What one example does: read through the fuzz checks; an accepted read's warnings counted."""
    fixture, suffix, options = CASES[name]
    case = ReaderCase(name, "jsonl", suffix, (), options)

    def attempt(data, encoding, schema):
        path = checks.write_input(folder, case, data)
        outcome = checks.try_read(case, path, encoding, schema)
        if outcome == "accepted":
            corpus = read_corpus(path, **case.kwargs(), encoding=encoding, labels=checks.SCHEMA if schema else None)
            bad = [w for w in corpus.warnings if not w.startswith(str(path))]
            checks._require(not bad, f"a warning that does not name the file: {bad[:1]}")
            tally_counts["warned"] += bool(corpus.warnings)
            tally_counts["warnings"] += len(corpus.warnings)
        return outcome

    return attempt


SPAN_HEADER = [
    "| span reader (options) | tried | refused (`FormatError`) | accepted (valid corpus) "
    "| accepted with skipped-span warnings (warnings) | other failures (target 0) | time |",
    "|---|---|---|---|---|---|---|",
]


def span_row(tally) -> str:
    c = tally.counts
    return (
        f"| {tally.name} | {c['tried']} | {c['refused']} | {c['accepted']} | {c['warned']} ({c['warnings']}) "
        f"| {c['other']} {'✓' if c['other'] == 0 else '✗'} | {tally.seconds:.0f} s |"
    )
