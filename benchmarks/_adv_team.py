"""Team work against the project's own changes, randomized: imports that keep every annotator, no
phantom annotators after token merges, edits and clears that re-merges respect, resolutions that
follow edits.

Four cases, each a run of small random projects (2–5 sentences of 3–9 tokens, 2–4 annotators
among names that include ``jo+tt@example.org``, a name holding the joiner ``+``), driven through
``tagtool import``, ``assign``, ``merge`` and the project's own edits, splits and merges:

``import``
    a JSONL token-record file (each annotator's labels, the training labels their candidate set)
    or a Label Studio task export (some annotators' results empty, others marking spans), imported
    without ``--labels`` and with the completed label set given; the trials favour files whose
    labels are O and B-X only, so that a token's candidate set names every label the file uses.
    Every annotator's answers must be in the project, the training labels the rule's
    (normalised against the project's labels), the two projects the same.
``phantom``
    answers merged (``tagtool merge``) or imported (``import --as-annotator``), then tokens merged
    in the project (and split back, for a later ``tagtool merge``), then one more annotator's
    answers: the project's annotators must be exactly the team.
``clear``
    after a merge, tokens cleared or edited in the project (by its own annotator or by one of the
    team); the same files merged again must report "0 tokens whose answers changed, 0 training
    labels changed" and keep every edit; a third merge changes nothing; an annotator's changed
    answer for an edited token brings the rule back there.
``resolved``
    disputed tokens resolved, some of them then edited or cleared (and, in some trials, a stale
    resolution of an older version written into the file); after the same files are merged again
    each resolution must say what the training label says, and the report's disagree/resolved
    counts must be those of the project.
"""

from __future__ import annotations

import collections
import json
import random
import re
import shutil
import sqlite3
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _safety_trials import cli, need  # noqa: E402

from tagtool.core import Corpus, LabelSet, Sentence  # noqa: E402
from tagtool.core.annotation import make_annotation  # noqa: E402
from tagtool.core.annotators import combine  # noqa: E402
from tagtool.core.labels import complete_scheme  # noqa: E402
from tagtool.store.merge import SOURCE_KEY  # noqa: E402
from tagtool.store.project import Project  # noqa: E402

#: Trials per case at scale 1.0.
TRIALS = {"import": 160, "phantom": 120, "clear": 120, "resolved": 120}
KINDS = ("PER", "ORG", "LOC")
LABELS = LabelSet(["O", *(f"{p}-{k}" for k in KINDS for p in "BI")])
TEAM = ("ana", "ben", "cy", "dee", "jo+tt@example.org")
WORDS = ("Anna", "met", "Ben", "in", "Oslo", "at", "Acme", "Bank", "and", "left", "for", "Paris", "on", "Monday")


class Tally:
    """One case's trials: outcomes, extra counts, failures, time."""

    def __init__(self, case: str):
        self.case, self.tried, self.seconds = case, 0, 0.0
        self.counts: collections.Counter = collections.Counter()
        self.failures: list[str] = []

    def run(self, trial, *args) -> None:
        self.tried += 1
        started = time.perf_counter()
        try:
            trial(self.counts, *args)
        except Exception as exc:  # noqa: BLE001 — every failure is counted and printed
            where = traceback.extract_tb(exc.__traceback__)[-1]
            text = (
                f"{self.case} trial {self.tried}: {type(exc).__name__}: {str(exc)[:300]} "
                f"({Path(where.filename).name}:{where.lineno})"
            )
            self.failures.append(text)
            print(f"FAILED {text}", file=sys.stderr)
        finally:
            self.seconds += time.perf_counter() - started

    def row(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        verdict = "✓" if not self.failures else "✗"
        return f"| {self.case} | {self.tried} | {counts} | {len(self.failures)} {verdict} | {self.seconds:.0f} s |"


# ---------------------------------------------------------------------------
# random material


def _tokens(rng: random.Random, i: int) -> tuple[str, ...]:
    return tuple(f"{rng.choice(WORDS)}{i}{t}" for t in range(rng.randint(3, 9)))


def _bio(rng: random.Random, n: int, kinds, long_spans: bool, rate: float = 0.35) -> list[str]:
    """Random BIO labels of ``n`` tokens: spans of ``kinds``, one token long unless ``long_spans``."""
    out, t = ["O"] * n, 0
    while t < n:
        if rng.random() < rate:
            kind, length = rng.choice(kinds), (rng.randint(1, 3) if long_spans else 1)
            out[t] = f"B-{kind}"
            for k in range(t + 1, min(n, t + length)):
                out[k] = f"I-{kind}"
            t += length
        else:
            t += 1
    return out


def _noisy(rng: random.Random, gold: list[str], noise: float) -> list[str]:
    """``gold`` with some labels replaced by a random one, some tokens left unlabeled ("_")."""
    return ["_" if rng.random() < 0.05 else rng.choice(LABELS.names) if rng.random() < noise else g for g in gold]


def _dump(path: Path) -> tuple:
    conn = sqlite3.connect(path)
    try:
        return tuple(
            sorted(conn.execute(f"SELECT * FROM {table}")) for table in ("annotator_labels", "adjudicated")
        ) + (sorted(conn.execute("SELECT sentence_id, token, labels, annotator FROM annotations")),)
    finally:
        conn.close()


def _names(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {n for (n,) in conn.execute("SELECT DISTINCT annotator FROM annotator_labels")}
    finally:
        conn.close()


def _team(folder: Path, rng: random.Random, names, n_sentences: int, noise: float):
    """A project of random sentences, assigned to ``names`` (each gets every sentence), and each
    annotator's noisy answers written into their file; (project, {name: file}, {name: {sid: labels}})."""
    path = folder / "p.tagproj"
    sentences = [Sentence(_tokens(rng, i)) for i in range(n_sentences)]
    Project.create(path, Corpus.from_sentences(sentences, LABELS)).close()
    code, out, err = cli(
        "assign",
        path,
        "--annotators",
        ",".join(names),
        "--overlap",
        "1",
        "--shared-by",
        len(names),
        "-o",
        folder / "out",
    )
    need(code == 0, f"assign failed: {err}")
    files = {name: Path(where) for name, where in re.findall(r"^  (.+?): .* -> (.+)$", out, re.M)}
    need(set(files) == set(names), f"assign wrote files for {sorted(files)}")
    gold = [_bio(rng, len(s), KINDS, True) for s in sentences]
    given = {}
    for name, file in files.items():
        given[name] = {}
        with Project.open(file) as f:
            for fid in f.sentence_ids():
                sid = int(f.sentence(fid).meta[SOURCE_KEY])
                labels = _noisy(rng, gold[sid - 1], noise)
                f.set_annotations(fid, dict(enumerate(labels)), name)
                given[name][sid] = labels
    return path, files, given


def _merge(path: Path, files) -> str:
    code, out, err = cli("merge", path, *files)
    need(code == 0, f"merge failed: {err}")
    return out


def _relabel(file: Path, sid: int, t: int, label: str) -> None:
    """Change one answer in an annotator's file (the file's sentence of source ``sid``)."""
    with Project.open(file) as f:
        fid = next(i for i in f.sentence_ids() if int(f.sentence(i).meta[SOURCE_KEY]) == sid)
        f.set_annotation(fid, t, label, "whoever")


# ---------------------------------------------------------------------------
# import


def _jsonl_file(folder: Path, rng: random.Random, names, kinds, long_spans: bool) -> tuple[Path, list]:
    """Token records with each annotator's labels; (file, [(tokens, {name: labels})])."""
    records, truth = [], []
    for i in range(rng.randint(1, 4)):
        tokens = _tokens(rng, i)
        answers = {name: _bio(rng, len(tokens), kinds, long_spans) for name in names}
        training = [sorted(combine([frozenset({a[t]}) for a in answers.values()])) for t in range(len(tokens))]
        records.append(
            {"tokens": list(tokens), "labels": [x[0] if len(x) == 1 else x for x in training], "annotators": answers}
        )
        truth.append((tokens, answers))
    path = folder / "a.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path, truth


def _label_studio_file(folder: Path, rng: random.Random, names, kinds, long_spans: bool) -> tuple[Path, list]:
    """Label Studio tasks, one annotation per annotator, some results empty; (file, truth)."""
    tasks, truth = [], []
    for i in range(rng.randint(1, 4)):
        tokens = _tokens(rng, i)
        starts = [sum(len(w) + 1 for w in tokens[:t]) for t in range(len(tokens))]
        answers, annotations = {}, []
        for k, _ in enumerate(names):
            labels = ["O"] * len(tokens) if rng.random() < 0.4 else _bio(rng, len(tokens), kinds, long_spans)
            answers[str(k + 1)] = labels
            result = []
            for t, label in enumerate(labels):
                if label.startswith("B-"):
                    end = t
                    while end + 1 < len(tokens) and labels[end + 1] == f"I-{label[2:]}":
                        end += 1
                    result.append(
                        {
                            "type": "labels",
                            "from_name": "label",
                            "to_name": "text",
                            "value": {"start": starts[t], "end": starts[end] + len(tokens[end]), "labels": [label[2:]]},
                        }
                    )
            annotations.append({"completed_by": k + 1, "result": result})
        tasks.append({"id": i + 1, "data": {"text": " ".join(tokens)}, "annotations": annotations})
        truth.append((tokens, answers))
    path = folder / "tasks.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path, truth


def _project_state(path: Path):
    """(answers {(sentence, token, name): labels}, training {(sentence, token): labels}, labels)."""
    with Project.open(path, readonly=True) as p:
        ids = p.sentence_ids()
        answers = {
            (i, t, name): labels
            for i, sid in enumerate(ids)
            for name, anns in p.team.annotator_labels(sid).items()
            for t, labels in enumerate(anns)
            if labels
        }
        training = {
            (i, t): labels for i, sid in enumerate(ids) for t, labels in enumerate(p.annotations(sid)) if labels
        }
        return answers, training, p.labels


def _import_trial(counts, folder: Path, rng: random.Random, fmt: str) -> None:
    names = rng.sample(TEAM, rng.randint(2, 4)) if fmt == "jsonl" else list(range(rng.randint(2, 3)))
    kinds, long_spans = rng.sample(KINDS, rng.randint(1, 2)), rng.random() < 0.3
    source, truth = (_jsonl_file if fmt == "jsonl" else _label_studio_file)(folder, rng, names, kinds, long_spans)
    observed = {label for _, answers in truth for labels in answers.values() for label in labels}
    final = complete_scheme(LabelSet(sorted(observed, key=LABELS.names.index)))[0]
    options = ["--tokenizer", "whitespace", "--no-sentence-split"] if fmt != "jsonl" else []
    guessed, given = folder / "guessed.tagproj", folder / "given.tagproj"
    for path, extra in ((guessed, []), (given, ["--labels", ",".join(final)])):
        code, _, err = cli("import", source, "-p", path, *options, *extra)
        need(code == 0, f"import failed: {err}")
    answers, training, labels = _project_state(guessed)
    need(list(labels) == list(final), f"labels {list(labels)}, expected {list(final)}")
    want_answers, want_training, full = {}, {}, 0
    for i, (tokens, by_name) in enumerate(truth):
        for t in range(len(tokens)):
            votes = [frozenset({a[t]}) for a in by_name.values()]
            full += len(frozenset().union(*votes)) == len(observed) > 1
            want_answers.update({(i, t, str(name)): frozenset({a[t]}) for name, a in by_name.items()})
            label = make_annotation(combine(votes), final)
            if label:
                want_training[(i, t)] = label
    need(answers == want_answers, f"{len(want_answers) - len(answers)} answers lost")
    need(training == want_training, "training labels are not the rule's")
    need(_project_state(given) == (answers, training, labels), "--labels gave another project")
    counts[f"{fmt} files"] += 1
    counts["sets of every label in the file"] += full
    counts["answers kept"] += len(answers)


# ---------------------------------------------------------------------------
# phantom annotators


def _phantom_merge(counts, folder: Path, rng: random.Random) -> None:
    names = rng.sample(TEAM, rng.randint(3, 4))
    path, files, _ = _team(folder, rng, names, rng.randint(2, 5), noise=0.3)
    _merge(path, [files[n] for n in names[:-1]])
    with Project.open(path) as p:
        for _ in range(rng.randint(1, 4)):
            sid = rng.choice(p.sentence_ids())
            tokens = p.sentence(sid).tokens
            t = rng.randrange(len(tokens) - 1)
            p.review.merge_tokens(sid, t)
            p.review.split_token(sid, t, len(tokens[t]))  # the files' tokens again
            counts["tokens merged and split back"] += 1
    _merge(path, [files[names[-1]]])
    found = _names(path)
    need(found == set(names), f"annotators {sorted(found)}, the team {sorted(names)}")
    counts["merge trials"] += 1


def _conll(path: Path, sentences, labels) -> Path:
    path.write_text(
        "".join("".join(f"{w} {x}\n" for w, x in zip(s, ls)) + "\n" for s, ls in zip(sentences, labels)),
        encoding="utf-8",
    )
    return path


def _phantom_import(counts, folder: Path, rng: random.Random) -> None:
    names = rng.sample(TEAM, rng.randint(3, 4))
    path = folder / "p.tagproj"
    sentences = [_tokens(rng, i) for i in range(rng.randint(2, 5))]
    Project.create(path, Corpus.from_sentences([Sentence(s) for s in sentences], LABELS)).close()
    gold = [_bio(rng, len(s), KINDS, True) for s in sentences]
    first = [_conll(folder / f"{n}.conll", sentences, [_noisy(rng, g, 0.3) for g in gold]) for n in names[:-1]]
    code, _, err = cli("import", *first, "-p", path, "--as-annotator", "--annotator-from-file-name")
    need(code == 0, f"import failed: {err}")
    with Project.open(path) as p:
        for _ in range(rng.randint(1, 3)):
            sid = rng.choice(p.sentence_ids())
            if len(p.sentence(sid)) > 1:
                p.review.merge_tokens(sid, rng.randrange(len(p.sentence(sid)) - 1))
                counts["tokens merged"] += 1
        now = [p.sentence(sid).tokens for sid in p.sentence_ids()]
    last = _conll(folder / "last.conll", now, [_bio(rng, len(s), KINDS, True) for s in now])
    code, _, err = cli("import", last, "-p", path, "--as-annotator", "--annotator", names[-1])
    need(code == 0, f"import failed: {err}")
    found = _names(path)
    need(found == set(names), f"annotators {sorted(found)}, the team {sorted(names)}")
    counts["import --as-annotator trials"] += 1


# ---------------------------------------------------------------------------
# clears and edits, then the same files again


def _edit_some(path: Path, rng: random.Random, names, counts) -> dict:
    """Clear or relabel 1–5 tokens in the project; ``{(sid, t): labels}`` as edited."""
    edits = {}
    with Project.open(path) as p:
        for _ in range(rng.randint(1, 5)):
            sid = rng.choice(p.sentence_ids())
            t = rng.randrange(len(p.sentence(sid)))
            label = "_" if rng.random() < 0.5 else rng.choice(LABELS.names)
            p.set_annotation(sid, t, label, rng.choice(["user", *names]))
            edits[(sid, t)] = p.annotations(sid)[t]
            counts["clears" if label == "_" else "edits"] += 1
    return edits


def _training(path: Path) -> dict:
    with Project.open(path, readonly=True) as p:
        return {sid: p.annotations(sid) for sid in p.sentence_ids()}


def _clear_trial(counts, folder: Path, rng: random.Random) -> None:
    names = rng.sample(TEAM, rng.randint(2, 3))
    path, files, given = _team(folder, rng, names, rng.randint(2, 4), noise=0.2)
    _merge(path, files.values())
    edits = _edit_some(path, rng, names, counts)
    before = _training(path)
    out = _merge(path, files.values())
    need("0 tokens whose answers changed, 0 training labels changed" in out, out.splitlines()[0])
    need(_training(path) == before, "a merge of unchanged files changed a training label")
    state = _dump(path)
    _merge(path, files.values())
    need(_dump(path) == state, "a third merge of the same files changed the project")
    counts["edits kept"] += len(edits)
    (sid, t), name = rng.choice(sorted(edits)), rng.choice(names)
    old = given[name][sid][t]
    _relabel(files[name], sid, t, rng.choice([x for x in LABELS.names if x != old]))
    _merge(path, [files[name]])
    with Project.open(path, readonly=True) as p:
        need(
            p.annotations(sid)[t] == combine(p.team.answers(sid)[t].values(), p.labels),
            "a changed answer did not bring the rule back",
        )
    counts["rule back after a changed answer"] += 1


# ---------------------------------------------------------------------------
# resolved tokens edited


def _resolve_and_edit(path: Path, rng: random.Random, counts) -> None:
    with Project.open(path) as p:
        disputed = [
            (sid, t) for sid in p.sentence_ids() for t, a in enumerate(p.team.answers(sid)) if len(set(a.values())) > 1
        ]
        for sid, t in rng.sample(disputed, max(1, len(disputed) // 2)):
            p.team.resolve_token(
                sid, t, rng.choice(sorted(frozenset().union(*p.team.answers(sid)[t].values()))), "judge"
            )
            counts["resolved"] += 1
            if rng.random() < 0.5:
                label = "_" if rng.random() < 0.3 else rng.choice(LABELS.names)
                p.set_annotation(sid, t, label, "editor")
                counts["resolved then cleared" if label == "_" else "resolved then edited"] += 1
        if rng.random() < 0.25:  # an older version's edit: the label changed, the resolution not
            row = p._db.execute("SELECT sentence_id, token FROM adjudicated LIMIT 1").fetchone()
            if row is not None:
                with p._write() as conn:
                    conn.execute(
                        "UPDATE annotations SET labels = 'O', annotator = 'editor' WHERE sentence_id = ? AND token = ?",
                        row,
                    )
                counts["stale resolutions of an older version"] += 1


def _resolved_trial(counts, folder: Path, rng: random.Random) -> None:
    names = rng.sample(TEAM, rng.randint(2, 3))
    path, files, _ = _team(folder, rng, names, rng.randint(2, 4), noise=0.5)
    out = _merge(path, files.values())
    if re.search(r", 0 disagree \(", out):
        counts["no disputed token (skipped)"] += 1
        return
    _resolve_and_edit(path, rng, counts)
    before = _training(path)
    out = _merge(path, files.values())
    report = re.search(r"(\d+) disagree \(training label.*?(\d+) disagree but were resolved", out)
    need(report is not None, out)
    disagree = resolved = 0
    with Project.open(path, readonly=True) as p:
        for sid in p.sentence_ids():
            resolutions, training = p.team.resolutions(sid), p.annotations(sid)
            need(training == before[sid], "a merge of unchanged files changed a training label")
            for t, r in resolutions.items():
                need(r.labels == training[t], f"resolution {sorted(r.labels)}, training label {sorted(training[t])}")
            for t, answers in enumerate(p.team.answers(sid)):
                if len(set(answers.values())) > 1:
                    resolved += t in resolutions
                    disagree += t not in resolutions
    need(
        (int(report[1]), int(report[2])) == (disagree, resolved),
        f"report says {report[1]} disagree, {report[2]} resolved; the project {disagree}, {resolved}",
    )
    counts["reports true"] += 1


# ---------------------------------------------------------------------------


def run(folder: Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Every case's trials in ``folder``; (markdown lines, failed trials)."""
    rng = random.Random(seed)
    n = {case: max(2, round(count * scale)) for case, count in TRIALS.items()}
    plan = [
        ("import", lambda c, f, r: _import_trial(c, f, r, r.choice(["jsonl", "labelstudio"]))),
        ("phantom", lambda c, f, r: (_phantom_merge if r.random() < 0.5 else _phantom_import)(c, f, r)),
        ("clear", _clear_trial),
        ("resolved", _resolved_trial),
    ]
    tallies = []
    for case, trial in plan:
        tally = Tally(case)
        for i in range(n[case]):
            trial_folder = Path(folder) / f"{case}-{i}"
            trial_folder.mkdir(parents=True)
            tally.run(trial, trial_folder, random.Random(rng.getrandbits(64)))
            shutil.rmtree(trial_folder, ignore_errors=True)
        print(f"{case}: {dict(tally.counts)}, {len(tally.failures)} failed, {tally.seconds:.0f} s", file=sys.stderr)
        tallies.append(tally)
    failed = [f for t in tallies for f in t.failures]
    lines = [
        "### Team work against the project's own changes (imports, joint givers, clears, resolutions)",
        "",
        "Random small projects (2–5 sentences, 2–4 annotators, one name holding the joiner `+`): imports of "
        "JSONL token records and Label Studio tasks whose candidate sets name every label of the file "
        "(without and with `--labels`); token merges (and splits back) before a further `tagtool merge` or "
        "`import --as-annotator`; clears and edits in the project before the same files are merged again; "
        "resolved tokens edited or cleared before a merge report.",
        "",
        "| case | trials | outcomes (all as promised) | failed trials (target 0) | time |",
        "|---|---|---|---|---|",
        *[t.row() for t in tallies],
        "",
    ]
    if failed:
        lines += ["Failed trials:", "", *[f"- {f}" for f in failed[:50]], ""]
    return lines, len(failed)


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__)
