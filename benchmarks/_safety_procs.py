"""File-safety cases 4 and 9, as randomized trials of real processes.

4. Two processes on one project: a writer edits annotations in a loop from
   a label list it refreshes only now and then (so it often holds a dead
   label) while another process adds, renames and removes labels; at the
   end the project exports and holds no label outside its label set.
9. Killed writes: ``tagtool tag`` and ``tagtool export`` killed (SIGKILL) at
   random moments, then run again (the output is never partial, the rerun
   leaves no ``.NAME.*.tmp``); a schema upgrade killed at random moments,
   then opened again; Ctrl-C twice at random moments exits with 130.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from _safety_trials import CHILD_ENV, CONLL, Trials, cli, fresh_folder, need

WRITER = """
import random, sys, time
from tagtool.errors import LabelError, ProjectError
from tagtool.store.project import Project
path, seed, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng, edits, refused, busy = random.Random(seed), 0, 0, 0
with Project.open(path) as p:
    ids, names = p.sentence_ids(), list(p.labels.names)
    print("ready", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if rng.random() < 0.1:
            names = list(p.labels.names)
        labels = rng.sample(names, min(len(names), rng.randint(1, 2)))
        try:
            p.set_annotations(rng.choice(ids), {rng.randrange(8): set(labels)})
            edits += 1
        except LabelError:
            refused += 1
        except ProjectError as e:
            if "busy" not in str(e) and "locked" not in str(e):
                raise
            busy += 1
        time.sleep(0.001)  # room for the other process's label changes
print(edits, refused, busy)
"""

LABELLER = """
import random, sys, time
from tagtool.errors import LabelError, ProjectError
from tagtool.store.project import Project
path, seed, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng, changes = random.Random(seed), 0
with Project.open(path) as p:
    print("ready", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        names, op = list(p.labels.names), rng.choice(["add", "rename", "remove"])
        try:
            if op == "add":
                p.label_set.add_label(f"L{changes}")
            elif op == "rename":
                p.label_set.rename_label(rng.choice(names), f"R{changes}")
            elif len(names) > 2:
                p.label_set.remove_label(rng.choice(names), force=True)
            changes += 1
        except (LabelError, ProjectError):
            pass
        time.sleep(rng.uniform(0, 0.05))
print(changes)
"""


def _python(code: str, *args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CHILD_ENV,
        **kwargs,
    )


def two_processes(base: Path, n: int, rng: random.Random, seconds: float = 3.0) -> list[Trials]:
    trials = Trials("4 two processes", f"writer with stale labels ∥ label changes, {seconds:.0f} s each")
    totals = {"edits": 0, "refused": 0, "busy": 0, "changes": 0}
    for i in range(n):
        trials.run(f"seed {i}", lambda: _two(fresh_folder(base, "two"), rng.randrange(10**6), seconds, totals))
    trials.name += (
        f" ({totals['edits']} edits saved, {totals['refused']} refused for a dead label, "
        f"{totals['busy']} busy, {totals['changes']} label changes)"
    )
    return [trials]


def _two(folder: Path, seed: int, seconds: float, totals: dict) -> str:
    from project_samples import plain_corpus

    from tagtool.store.project import Project

    path = folder / "p.tagproj"
    Project.create(path, plain_corpus(50, 8)).close()
    children = [_python(WRITER, path, seed, seconds), _python(LABELLER, path, seed + 1, seconds)]
    outs = [c.communicate(timeout=seconds + 60) for c in children]
    for child, (_, err) in zip(children, outs):
        need(child.returncode == 0, f"a child failed: {err[-500:]}")
    edits, refused, busy = map(int, outs[0][0].split()[-3:])
    totals["edits"] += edits
    totals["refused"] += refused
    totals["busy"] += busy
    totals["changes"] += int(outs[1][0].split()[-1])
    with Project.open(path, readonly=True) as p:
        corpus = p.corpus()  # a label outside the set is a ProjectError here
        used = {name for s in corpus for a in s.annotations for name in a}
        need(used <= set(p.labels.names), f"labels outside the set: {used - set(p.labels.names)}")
    code, _, err = cli("export", path, "-o", folder / "out.conll")
    need(code == 0, f"export: {err!r}")
    return "exported, no dead label"


# ---------------------------------------------------------------------------
# case 9


def _tagtool(*argv, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tagtool.cli", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CHILD_ENV,
        **kwargs,
    )


def killed_writes(base: Path, files: dict[str, Path], n: int, rng: random.Random) -> list[Trials]:
    folder = fresh_folder(base, "killed-inputs")
    big = folder / "big.conll"
    rows = [" ".join(line.split()[:2]) for line in CONLL.read_text(encoding="utf-8").splitlines()]
    big.write_text("\n".join(rows * 20) + "\n", encoding="utf-8")
    bigger = folder / "bigger.conll"  # export writes faster than tag: a larger project
    bigger.write_text("\n".join(rows * 120) + "\n", encoding="utf-8")
    project = folder / "big.tagproj"
    code, _, err = cli("import", bigger, "-p", project)
    need(code == 0, err)
    commands = {"tag": ["tag", files["model"], big, "-o"], "export": ["export", project, "-o"]}
    trials = []
    for name, argv in commands.items():
        out = fresh_folder(base, "killed") / "out.conll"
        started = time.perf_counter()
        done = _tagtool(*argv, out)
        _, err = done.communicate()
        need(done.returncode == 0, err)
        duration, reference = time.perf_counter() - started, out.read_bytes()
        t = Trials("9 killed write", f"`{name}` killed (SIGKILL) in 0–{duration:.1f} s, then run again")
        for _ in range(n):
            delay, keep = duration * rng.uniform(0.2, 1.05), rng.random() < 0.3
            t.run(
                f"killed at {delay:.2f} s, previous output {'kept' if keep else 'removed'}",
                lambda: _kill_and_rerun([*argv, out], out, reference, delay, keep),
            )
        trials.append(t)
    return trials


def _temps(out: Path) -> list[str]:
    return sorted(
        p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.") and p.name.endswith(".tmp")
    )


def _kill_and_rerun(argv: list, out: Path, reference: bytes, delay: float, keep: bool) -> str:
    for p in out.parent.iterdir():
        if not (keep and p == out):
            p.unlink()
    if keep:
        out.write_bytes(reference)
    child = _tagtool(*argv)
    time.sleep(delay)
    child.kill()
    child.communicate()
    left = _temps(out)
    need(not out.exists() or out.read_bytes() == reference, "a partial output after the kill")
    rerun = _tagtool(*argv)
    _, err = rerun.communicate(timeout=300)
    need(rerun.returncode == 0, f"rerun: {err[-300:]!r}")
    need(out.read_bytes() == reference, "the rerun's output differs")
    need(_temps(out) == [], f"temp files left after the rerun: {_temps(out)}")
    if child.returncode == 0:
        return "finished before the kill"
    return "killed, a temp file left, removed by the rerun" if left else "killed before any temp file"


UPGRADE = "import sys\nfrom tagtool.store.project import Project\nProject.open(sys.argv[1]).close()\n"


def killed_upgrades(base: Path, n: int, rng: random.Random) -> list[Trials]:
    from project_samples import plain_corpus, write_v1_project

    template = fresh_folder(base, "v1") / "old.tagproj"
    corpus = plain_corpus(40_000, 12)
    write_v1_project(template, corpus)
    folder = fresh_folder(base, "upgrade")
    shutil.copy(template, folder / "old.tagproj")
    started = time.perf_counter()
    child = _python(UPGRADE, folder / "old.tagproj")
    child.communicate()
    duration = time.perf_counter() - started
    t = Trials("9 killed schema upgrade", f"upgrade of a v1 project killed in 0–{duration:.1f} s, opened again")
    for _ in range(n):
        delay = duration * rng.uniform(0.1, 1.05)
        t.run(
            f"killed at {delay:.2f} s",
            lambda: _kill_upgrade(template, fresh_folder(base, "upgrade"), delay, len(corpus.sentences)),
        )
    return [t]


def _fingerprint(path: Path) -> tuple:
    """What a v1 project holds, as SQL sees it (a backup is a copy by SQLite, not of the bytes)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return tuple(
            conn.execute(
                "SELECT (SELECT count(*) FROM sentences), (SELECT sum(length(tokens)) FROM sentences), "
                "(SELECT count(*) FROM annotations), (SELECT group_concat(key || '=' || value) FROM meta)"
            ).fetchone()
        )
    finally:
        conn.close()


def _kill_upgrade(template: Path, folder: Path, delay: float, n_sentences: int) -> str:
    from tagtool.store.project import Project

    path = folder / "old.tagproj"
    shutil.copy(template, path)
    original = _fingerprint(template)
    child = _python(UPGRADE, path)
    time.sleep(delay)
    child.kill()
    child.communicate()
    backup_before = path.with_name("old.tagproj.bak-v1").exists()
    with Project.open(path) as p:
        need(len(p.sentence_ids()) == n_sentences, "sentences lost")
        upgraded_now = p.migrated_from == 1
    backups = sorted(name for name in os.listdir(folder) if name.startswith("old.tagproj.bak-v1"))
    need(
        sorted(os.listdir(folder)) == ["old.tagproj", *backups] and backups[:1] == ["old.tagproj.bak-v1"],
        f"left: {os.listdir(folder)}",
    )
    need(all(_fingerprint(folder / b) == original for b in backups), "a backup does not hold the original data")
    if child.returncode == 0:
        return "finished before the kill"
    if len(backups) > 1:  # the killed run's backup was complete; the next open never overwrites one
        return "killed after its backup, a second backup on the next open"
    return (
        "killed, upgraded on the next open"
        if upgraded_now
        else ("killed after the upgrade committed" if backup_before else "killed, backup finished on the next open")
    )


def second_ctrl_c(base: Path, files: dict[str, Path], n: int, rng: random.Random) -> list[Trials]:
    folder = fresh_folder(base, "sigint")
    big = folder / "big.conll"
    rows = [" ".join(line.split()[:2]) for line in CONLL.read_text(encoding="utf-8").splitlines()]
    big.write_text("\n".join(rows * 80) + "\n", encoding="utf-8")
    t = Trials("9 second Ctrl-C", "`tag` / `train`: SIGINT twice at random moments")
    for i in range(n):
        command = (
            ["tag", files["model"], big, "-o", folder / "out.conll"]
            if i % 2 == 0
            else ["train", big, "--learner", "perceptron", "-o", folder / "m.tagger"]
        )
        first, second = rng.uniform(0.8, 2.0), rng.uniform(0.05, 0.5)
        t.run(
            f"`{command[0]}`: Ctrl-C at {first:.2f} s and {second:.2f} s later", lambda: _twice(command, first, second)
        )
    return [t]


def _twice(command: list, first: float, second: float) -> str:
    # SIGINT may be ignored where the benchmark runs in the background: the
    # child starts with the default disposition, as under a terminal.
    child = _tagtool(*command, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(first)
    child.send_signal(signal.SIGINT)
    time.sleep(second)
    stopped_at_first = child.poll() is not None
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        code = child.wait(20)
    finally:
        if child.poll() is None:
            child.kill()
    _, err = child.communicate()
    # -2: ended by the signal itself (the handler already gone, the process
    # exiting); a shell reports that as 130 too
    need(code in (130, -signal.SIGINT), f"exit {code}: {err[-300:]!r}")
    need(time.monotonic() - sent < 10, "slow to stop")
    last = err.strip().splitlines()[-1] if err.strip() else ""
    need("Traceback" not in err, f"stderr: {err[-300:]!r}")
    if "interrupted" not in err:
        return "finished, then ended by the signal"
    need(last.startswith("tagtool: interrupted"), f"stderr: {err[-300:]!r}")
    return f"{'130' if code == 130 else 'SIGINT'} at the {'first' if stopped_at_first else 'second'} Ctrl-C"
