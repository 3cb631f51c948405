"""File-safety case 8, as randomized trials: no bare tracebacks.

* a project edited outside tagtool (``sqlite3``): a sentence's tokens,
  columns or attributes replaced by other JSON, annotation rows past their
  sentence or with odd labels, label rows renamed or deleted: every read
  and ``tagtool export`` end in a ``ProjectError`` naming the file, or read
  in full;
* a 5,000-digit JSON integer anywhere in a record of every JSON reader
  (token records, doccano, Label Studio full and JSON-MIN) and in a tagger's
  ``meta.json``: the named error, or a valid result;
* a disk that fills while a project is created (``Project.create`` and
  ``tagtool import``): a ``ProjectError`` saying so, nothing left behind.
"""

from __future__ import annotations

import io
import json
import os
import random
import sqlite3
import zipfile
from pathlib import Path

from _safety_trials import DATA, Trials, cli, fresh_folder, need

from tests.fuzz.inputs import json_paths

HUGE = "9" * 5000
ODD_JSON = [
    "[1, 2, 3, 4, 5, 6]",
    "[]",
    "null",
    "5",
    '"text"',
    "{}",
    '["a", null]',
    '[["a"]]',
    "[true]",
    f"[{HUGE}]",
    HUGE,
    "not json",
    '{"pos": 5}',
    '{"pos": [1, 2]}',
    '{"pos": "x"}',
    "[1e999]",
    '{"a": {"b": []}}',
    '["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"]',
    '[""]',
]
ODD_LABELS = ["ZZZ", "O|ZZZ", "|", "O||B-NP", "\x00", "é", HUGE[:50]]


def _edit(conn: sqlite3.Connection, rng: random.Random, n_sentences: int) -> str:
    """One random change made outside tagtool; what it was."""
    sid = rng.randint(1, n_sentences)
    kind = rng.choice(
        ["tokens", "columns", "meta", "annotation", "annotation label", "label row", "annotator labels", "model params"]
    )
    if kind in ("tokens", "columns", "meta"):
        value = rng.choice(ODD_JSON)
        conn.execute(f"UPDATE sentences SET {kind} = ? WHERE id = ?", (value, sid))
        return f"{kind} := {value[:40]}"
    if kind in ("annotation", "annotator labels"):
        token = rng.choice([-1, 0, 5, 11, 12, 13, 99, 2**40])
        label = rng.choice(["O", "B-NP", *ODD_LABELS])
        table = (
            "annotations VALUES (?, ?, ?, 'someone', 0)"
            if kind == "annotation"
            else "annotator_labels VALUES (?, ?, 'someone', ?)"
        )
        try:
            conn.execute(f"INSERT OR REPLACE INTO {table}", (sid, token, label))
        except sqlite3.IntegrityError:
            return f"{kind}: token {token} refused by the schema"
        return f"{kind} at token {token}: {label[:20]!r}"
    if kind == "annotation label":
        label = rng.choice(ODD_LABELS)
        conn.execute("UPDATE annotations SET labels = ? WHERE sentence_id = ?", (label, sid))
        return f"annotation labels := {label[:20]!r}"
    if kind == "label row":
        if rng.random() < 0.5:
            conn.execute("DELETE FROM labels WHERE name = 'B-NP'")
            return "label B-NP deleted from the label set"
        conn.execute("UPDATE labels SET name = ? WHERE name = 'I-NP'", (rng.choice(ODD_LABELS),))
        return "label I-NP renamed in the label set"
    value = rng.choice(ODD_JSON)
    conn.execute("UPDATE models SET params = ?, metrics = ?", (value, value))
    return f"model params := {value[:40]}"


def edited_projects(base: Path, n: int, rng: random.Random) -> list[Trials]:
    from project_samples import LABELS, plain_corpus

    from tagtool.store.project import Project

    trials = Trials("8 project edited outside tagtool", "random `sqlite3` edits; every read and `export`")
    template = base / "template.tagproj"
    with Project.create(template, plain_corpus(30, 12)) as p:
        for sid in p.sentence_ids()[:20]:
            p.set_annotations(sid, {t: {LABELS.names[(sid + t) % len(LABELS)]} for t in range(0, 12, 2)})
        p.stored.add_model("perceptron", {"max_iter": 2}, {"f1": 0.5}, b"model")
    for _ in range(n):
        folder = fresh_folder(base, "edited")
        path = folder / "e.tagproj"
        path.write_bytes(template.read_bytes())
        conn = sqlite3.connect(path)
        edits = [_edit(conn, rng, 30) for _ in range(rng.randint(1, 3))]
        conn.commit()
        conn.close()
        trials.run("; ".join(edits), lambda: _read_edited(path, folder, rng))
    return [trials]


def _read_edited(path: Path, folder: Path, rng: random.Random) -> str:
    from project_damage import read_everything

    from tagtool.errors import ProjectError
    from tagtool.store.project import Project

    outcome = "read in full"
    try:
        with Project.open(path, readonly=rng.random() < 0.5) as p:
            read_everything(p)
            p.corpus()
    except ProjectError as exc:
        need(str(path) in str(exc), f"the error does not name the file: {exc}")
        outcome = "ProjectError"
    out = folder / "out.conll"
    code, _, err = cli("export", path, "-o", out)
    if code == 0:
        return outcome + ", exported"
    need(code == 1 and err.startswith("tagtool: error: ") and err.count("\n") == 1, f"export: {err!r}")
    need(not out.exists(), "a partial export")
    if err.startswith(f"tagtool: error: {path}"):
        return outcome + ", export refused"
    # a value the project can hold but a column file cannot (an empty token)
    need(err.startswith(f"tagtool: error: {out}: document"), f"export: {err!r}")
    return outcome + ", export refused by the output format"


# ---------------------------------------------------------------------------
# a 5,000-digit integer


def _with_huge(value, path: tuple):
    """``value`` with the value at ``path`` replaced by a marker the text then swaps for the integer."""
    if not path:
        return "@@HUGE@@"
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _with_huge(value[path[0]], path[1:])
    return copy


def _dump(value, lines: bool) -> str:
    if lines:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in value)
    else:
        text = json.dumps(value, ensure_ascii=False, indent=1)
    return text.replace('"@@HUGE@@"', HUGE)


JSON_FILES = {  # reader: (fixture, JSON Lines?, reader options)
    "token records (jsonl)": ("inline", True, {}),
    "doccano 1.x": (DATA / "doccano_v1.jsonl", True, {}),
    "doccano entities": (DATA / "doccano_entities.jsonl", True, {}),
    "Label Studio full": (DATA / "labelstudio_full.json", False, {"annotator": "all"}),
    "Label Studio JSON-MIN": (DATA / "labelstudio_min.json", False, {}),
}


def huge_integers(base: Path, n: int, rng: random.Random) -> list[Trials]:
    from tagtool.errors import FormatError
    from tagtool.store.formats import read_corpus

    trials = []
    for name, (fixture, lines, options) in JSON_FILES.items():
        if fixture == "inline":
            records = [
                {
                    "tokens": ["EU", "rejects", "it"],
                    "labels": ["B-ORG", "O", "O"],
                    "id": 7,
                    "pos": ["NNP", "VBZ", "PRP"],
                }
            ]
        elif lines:
            records = [json.loads(line) for line in fixture.read_text(encoding="utf-8").splitlines() if line]
        else:
            records = json.loads(fixture.read_text(encoding="utf-8"))
        places = [p for p in json_paths(records) if p]
        t = Trials("8 5,000-digit JSON integer", f"{name}: anywhere in a record")
        for _ in range(n):
            where = rng.choice(places)
            path = fresh_folder(base, "huge") / ("in.jsonl" if lines else "in.json")
            path.write_text(_dump(_with_huge(records, where), lines), encoding="utf-8")

            def attempt(path=path):
                try:
                    corpus = read_corpus(path, format="jsonl", **options)
                except FormatError as exc:
                    need(exc.path == str(path), f"the error does not name the file: {exc}")
                    return "FormatError"
                need(len(corpus) > 0, "an empty corpus")
                return "read (value not used)"

            t.run(f"at {where}", attempt)
        trials.append(t)
    trials.append(_huge_in_tagger(base, n, rng))
    return trials


def _huge_in_tagger(base: Path, n: int, rng: random.Random) -> Trials:
    from _hostile import _tiny_tagger_bytes

    from tagtool.tagger.file_format import TaggerFileError
    from tagtool.tagger.model import load_tagger

    data = _tiny_tagger_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["meta.json"])
    places = [p for p in json_paths(meta) if p]
    t = Trials("8 5,000-digit JSON integer", "tagger `meta.json`: anywhere")
    for _ in range(n):
        where = rng.choice(places)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in members.items():
                if name == "meta.json":
                    content = _dump(_with_huge(meta, where), False).encode()
                archive.writestr(name, content)
        path = fresh_folder(base, "huge") / "m.tagger"
        path.write_bytes(out.getvalue())

        def attempt(path=path):
            try:
                load_tagger(path)
            except TaggerFileError as exc:
                need(str(path) in str(exc), f"the error does not name the file: {exc}")
                return "TaggerFileError"
            return "loaded (value not used)"

        t.run(f"at {where}", attempt)
    return t


# ---------------------------------------------------------------------------
# disk full during create


def disk_full_create(base: Path, n: int, rng: random.Random) -> list[Trials]:
    from tagtool.errors import ProjectError
    from tagtool.store import lifecycle
    from tagtool.store.project import Project

    real = lifecycle.insert_corpus
    trials = {way: Trials("8 disk full during create", way) for way in ("`Project.create`", "`tagtool import`")}
    for i in range(n):
        way = list(trials)[i % 2]
        size = (rng.choice([1, 10, 100, 1000, 3000]), rng.randint(1, 30))
        room = rng.choice([0, 0, 1, 5, 50, 500])

        def insert(conn, *args, room=room, **kwargs):  # the disk fills while the rows are written
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages + room}")
            return real(conn, *args, **kwargs)

        def attempt(way=way, size=size):
            folder = fresh_folder(base, "full")
            path = folder / "new.tagproj"
            lifecycle.insert_corpus = insert
            try:
                return _create_on_full_disk(way, folder, path, size, Project, ProjectError)
            finally:
                lifecycle.insert_corpus = real

        trials[way].run(f"{size[0]}×{size[1]} tokens, {room} pages of room", attempt)
    return list(trials.values())


def _create_on_full_disk(way, folder, path, size, Project, ProjectError) -> str:
    from project_samples import plain_corpus

    if way == "`Project.create`":
        try:
            Project.create(path, plain_corpus(*size)).close()
        except ProjectError as exc:
            need(f"{path}: the project could not be created (the disk is full)" in str(exc), str(exc))
            need(os.listdir(folder) == [], f"left: {os.listdir(folder)}")
            return "refused, nothing left"
        with Project.open(path, readonly=True) as p:
            need(len(p.sentence_ids()) == size[0], "sentences lost")
        return "fits, created"
    corpus = folder / "c.conll"
    corpus.write_text("".join("".join(f"w{t} O\n" for t in range(size[1])) + "\n" for _ in range(size[0])))
    code, _, err = cli("import", corpus, "-p", path)
    if code == 0:
        return "fits, created"
    need(code == 1 and "disk is full" in err and err.count("\n") == 1, f"exit {code}: {err!r}")
    need(os.listdir(folder) == ["c.conll"], f"left: {os.listdir(folder)}")
    return "refused, nothing left"
