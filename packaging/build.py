"""Build the one-folder desktop app with PyInstaller and smoke-test the built program.

Usage (from anywhere)::

    python packaging/build.py               # build, then smoke-test
    python packaging/build.py --skip-build  # smoke-test packaging/dist/tagtool as it is
    python packaging/build.py --clean       # also clear PyInstaller's cache first

Installs the ``packaging`` extra of ``pyproject.toml`` (PyInstaller) if it is
missing, builds ``packaging/tagtool.spec`` into ``packaging/dist/tagtool/``
(work files in ``packaging/build/``), then runs the built ``tagtool`` offscreen
(``QT_QPA_PLATFORM=offscreen``) with its own per-user folders under
``packaging/build/smoke/`` and from a scratch working directory:

1. ``--version`` and ``info`` on the built-in sample project;
2. ``gui --quit-after``: the sample project's window opens, offers every
   learner, and closes with status 0 (again on a real X server under
   ``xvfb-run`` with the ``xcb`` plugin, when ``xvfb-run`` is installed);
3. ``train`` a perceptron on a slice of ``tests/data`` and ``tag`` a held-out
   file (also with ``--workers 2`` when the command has it); the output must
   equal the source tree's output byte for byte, and ``evaluate`` scores it;
   a CRF (its fastmath kernels) and a short structured SVM (cvxopt) train too;
4. the same train and tag a second time: numba must load every kernel from
   the cache folder the first run wrote (``NUMBA_DEBUG_CACHE`` lines) and
   compile none;
5. the child process ``tagtool gui`` starts to compile the default learner's
   kernels (the bundle itself with the hidden ``--fill-numba-cache``), on a
   cache folder of its own: the first run saves kernels there, a second one
   finds them and saves none.

Prints each step's result and a summary; exits 1 if any step failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DIST = PACKAGING / "dist"
WORK = PACKAGING / "build"
APP = DIST / "tagtool"
SMOKE = WORK / "smoke"
CORPUS = ROOT / "tests" / "data" / "conll2000_train_head.txt"
#: Sentences of CORPUS to train on; the rest are tagged.
TRAIN_SENTENCES = 80
#: Seconds before a step counts as hung.
STEP_TIMEOUT = 900


@dataclass
class Step:
    name: str
    ok: bool
    seconds: float
    detail: str
    lines: list[str] = field(default_factory=list)


class SmokeTest:
    """Runs the built program step by step and keeps the results."""

    def __init__(self, executable: Path, verbose: bool = False):
        self.executable = executable
        self.verbose = verbose
        self.steps: list[Step] = []
        self.env = smoke_environment()

    def run(self, *args: str, env: dict | None = None, wrapper: tuple[str, ...] = ()):
        """Run the built program; returns (completed process, seconds)."""
        start = time.perf_counter()
        proc = subprocess.run(
            [*wrapper, str(self.executable), *args],
            cwd=SMOKE / "cwd",
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
        )
        return proc, time.perf_counter() - start

    def record(self, name: str, ok: bool, seconds: float, detail: str, proc=None) -> bool:
        step = Step(name, ok, seconds, detail)
        self.steps.append(step)
        print(f"[{'PASS' if ok else 'FAIL'}] {name} ({seconds:.1f} s): {detail}", flush=True)
        if proc is not None and (not ok or self.verbose):
            for stream in (proc.stdout, proc.stderr):
                tail = stream.strip().splitlines()[-15:]
                for line in tail:
                    print(f"       | {line}")
        return ok

    def skip(self, name: str, reason: str) -> None:
        print(f"[SKIP] {name}: {reason}", flush=True)


def smoke_environment() -> dict:
    """Offscreen Qt and fresh per-user folders, so that the test neither reads nor
    changes the user's own settings, sample project or caches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "QT_", "PYTHON"))}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        XDG_DATA_HOME=str(SMOKE / "data"),
        XDG_CONFIG_HOME=str(SMOKE / "config"),
        XDG_CACHE_HOME=str(SMOKE / "cache"),
        NUMBA_DEBUG_CACHE="1",  # numba reports each cache load and save on stdout
    )
    return env


# ---------------------------------------------------------------------------
# build


def ensure_pyinstaller() -> None:
    if importlib.util.find_spec("PyInstaller") is not None:
        return
    with open(ROOT / "pyproject.toml", "rb") as fh:
        requirements = tomllib.load(fh)["project"]["optional-dependencies"]["packaging"]
    print(f"installing {' '.join(requirements)} (the 'packaging' extra)", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", *requirements], check=True)


def build(clean: bool) -> float:
    """Run PyInstaller on the spec; returns the seconds it took."""
    ensure_pyinstaller()
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(DIST),
        "--workpath",
        str(WORK),
        str(PACKAGING / "tagtool.spec"),
    ]
    if clean:
        cmd.insert(3, "--clean")
    print("$ " + " ".join(cmd), flush=True)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    return time.perf_counter() - start


def folder_size(folder: Path) -> tuple[int, int]:
    """Bytes and number of files under ``folder`` (links not followed)."""
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
            count += 1
    return total, count


# ---------------------------------------------------------------------------
# smoke-test steps


def last_json(stdout: str) -> dict:
    """The JSON object a ``--json`` command printed last (numba's cache messages may come first)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return {}
    return {}


def check_version(t: SmokeTest) -> None:
    from tagtool import __version__

    proc, s = t.run("--version")
    out = proc.stdout.strip()
    t.record("tagtool --version", proc.returncode == 0 and out == f"tagtool {__version__}", s, out, proc)


def check_info(t: SmokeTest) -> None:
    proc, s = t.run("info", "--json")
    info = last_json(proc.stdout)
    ok = proc.returncode == 0 and info.get("sentences") == 400 and info.get("name") == "CoNLL-2000 sample"
    detail = (
        (
            f"sample project {info.get('project')}: {info.get('sentences')} sentences, "
            f"{info.get('tokens')} tokens, {len(info.get('labels', []))} labels"
        )
        if info
        else "no JSON"
    )
    t.record("tagtool info (sample project)", ok, s, detail, proc)


def check_gui(t: SmokeTest, platform: str = "offscreen", wrapper: tuple[str, ...] = ()) -> None:
    from tagtool.learn import REGISTRY

    env = dict(t.env, QT_QPA_PLATFORM=platform)
    proc, s = t.run("-v", "gui", "--quit-after", "2000", env=env, wrapper=wrapper)
    match = re.search(r"smoke test: window '(.*)' shows (\d+) sentences; learners offered: (.*)", proc.stderr)
    offered = match.group(3).split(", ") if match else []
    ok = (
        proc.returncode == 0
        and match is not None
        and match.group(1) == "CoNLL-2000 sample — tagtool"
        and match.group(2) == "400"
        and sorted(offered) == sorted(REGISTRY)
    )
    detail = (
        (
            f"window {match.group(1)!r}, {match.group(2)} sentences, {len(offered)}/{len(REGISTRY)} "
            f"learners offered, exit {proc.returncode}"
        )
        if match
        else f"exit {proc.returncode}, no window report"
    )
    t.record(f"tagtool gui --quit-after 2000 ({platform})", ok, s, detail, proc)


def write_slices() -> tuple[Path, Path]:
    """Train and held-out files cut from the tests/data slice (sentences end with a blank line)."""
    sentences = CORPUS.read_text(encoding="utf-8").strip("\n").split("\n\n")
    train, test = SMOKE / "train.txt", SMOKE / "heldout.txt"
    train.write_text("\n\n".join(sentences[:TRAIN_SENTENCES]) + "\n\n", encoding="utf-8")
    test.write_text("\n\n".join(sentences[TRAIN_SENTENCES:]) + "\n\n", encoding="utf-8")
    return train, test


def train_and_tag(t: SmokeTest, train: Path, test: Path, run: str) -> tuple[Path | None, float, str]:
    """``tagtool train`` then ``tagtool tag`` with the built program; returns the output file
    (None on failure), the seconds both took, and numba's cache messages."""
    model, out = SMOKE / f"perceptron-{run}.tagger", SMOKE / f"tagged-{run}.txt"
    p1, s1 = t.run("train", str(train), "--learner", "perceptron", "--seed", "0", "-o", str(model))
    ok = t.record(
        f"tagtool train --learner perceptron ({run})",
        p1.returncode == 0 and model.is_file(),
        s1,
        p1.stdout.strip().splitlines()[-1] if p1.stdout.strip() else f"exit {p1.returncode}",
        p1,
    )
    if not ok:
        return None, s1, p1.stdout
    p2, s2 = t.run("tag", str(model), str(test), "-o", str(out), "--format", "conll")
    tagged = p2.stderr.strip().splitlines()[-1] if p2.stderr.strip() else f"exit {p2.returncode}"
    ok = t.record(f"tagtool tag ({run})", p2.returncode == 0 and out.is_file(), s2, tagged, p2)
    return (out if ok else None), s1 + s2, p1.stdout + p2.stdout


def reference_output(train: Path, test: Path) -> bytes:
    """The same train and tag run from the source tree, to compare with."""
    model, out = SMOKE / "reference.tagger", SMOKE / "reference.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_DEBUG")}
    for args in (
        ["train", str(train), "--learner", "perceptron", "--seed", "0", "-o", str(model)],
        ["tag", str(model), str(test), "-o", str(out), "--format", "conll"],
    ):
        subprocess.run(
            [sys.executable, "-m", "tagtool.cli", *args],
            check=True,
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=STEP_TIMEOUT,
        )
    return out.read_bytes()


def check_tagged(t: SmokeTest, out: Path, test: Path, reference: bytes, name: str) -> None:
    """The built program's output: one more column than the input, same tokens, same bytes as
    the source tree's output."""
    got = out.read_text(encoding="utf-8").strip("\n").splitlines()
    gold = test.read_text(encoding="utf-8").strip("\n").splitlines()
    aligned = len(got) == len(gold) and all(
        (not g and not o) or (g and o.split()[:-1] == g.split()) for g, o in zip(gold, got)
    )
    tokens = [(g.split()[-1], o.split()[-1]) for g, o in zip(gold, got) if g and o]
    accuracy = sum(a == b for a, b in tokens) / max(len(tokens), 1)
    same = out.read_bytes() == reference
    t.record(
        name,
        aligned and same,
        0.0,
        f"{len(tokens)} tokens, input columns kept: {aligned}, identical to the source tree's output: {same}, "
        f"token accuracy against gold {accuracy:.1%}",
    )


def check_evaluate(t: SmokeTest, test: Path) -> None:
    proc, s = t.run("evaluate", str(SMOKE / "perceptron-first.tagger"), str(test), "--json")
    scores = last_json(proc.stdout)
    flat = {k: v for k, v in scores.items() if isinstance(v, (int, float))}
    t.record(
        "tagtool evaluate",
        proc.returncode == 0 and bool(scores),
        s,
        ", ".join(f"{k} {v:.4g}" for k, v in list(flat.items())[:5]) or "no JSON",
        proc,
    )


def check_other_learners(t: SmokeTest, train: Path) -> None:
    """A CRF (its own L-BFGS over the fastmath kernels) and a structured SVM (cvxopt's QP solver),
    kept short: a few sentences and epochs for the SVM."""
    sentences = train.read_text(encoding="utf-8").split("\n\n")
    small = SMOKE / "train-small.txt"
    small.write_text("\n\n".join(sentences[:10]) + "\n\n", encoding="utf-8")
    for learner, data, settings in (("crf", train, ()), ("svm", small, ("--set", "max_iter=2"))):
        model = SMOKE / f"{learner}.tagger"
        proc, s = t.run("train", str(data), "--learner", learner, *settings, "-o", str(model))
        wrote = [line for line in proc.stdout.splitlines() if line.startswith("wrote ")]
        t.record(
            f"tagtool train --learner {learner}",
            proc.returncode == 0 and model.is_file() and bool(wrote),
            s,
            wrote[-1] if wrote else f"exit {proc.returncode}",
            proc,
        )


def check_workers(t: SmokeTest, test: Path, reference: bytes) -> None:
    help_text, _ = t.run("tag", "--help")
    if "--workers" not in help_text.stdout:
        t.skip("tagtool tag --workers 2", "this tagtool has no --workers option")
        return
    out = SMOKE / "tagged-workers.txt"
    proc, s = t.run(
        "tag", str(SMOKE / "perceptron-first.tagger"), str(test), "-o", str(out), "--format", "conll", "--workers", "2"
    )
    same = out.is_file() and out.read_bytes() == reference
    t.record(
        "tagtool tag --workers 2",
        proc.returncode == 0 and same,
        s,
        f"exit {proc.returncode}, identical to the single-process output: {same}",
        proc,
    )


def cache_summary(folder: Path) -> str:
    files = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []
    size = sum(p.stat().st_size for p in files)
    index = sum(p.suffix == ".nbi" for p in files)
    return f"{index} index files, {len(files) - index} compiled files, {size / 1e6:.1f} MB in {folder}"


def check_cache(t: SmokeTest, first: tuple[float, str], second: tuple[float, str]) -> None:
    """The first run saved compiled kernels; the second loaded them all and compiled none."""
    folders = sorted((SMOKE / "cache" / "tagtool" / "numba").glob("*"))
    saved1, loaded1 = first[1].count("data saved to"), first[1].count("data loaded from")
    saved2, loaded2 = second[1].count("data saved to"), second[1].count("data loaded from")
    outside = [
        line
        for line in (first[1] + second[1]).splitlines()
        if line.startswith("[cache]") and str(SMOKE / "cache") not in line
    ]
    ok = len(folders) == 1 and saved1 > 0 and saved2 == 0 and loaded2 > 0 and not outside
    where = cache_summary(folders[0]) if folders else "no cache folder"
    t.record(
        "numba cache written, then reused",
        ok,
        first[0] + second[0],
        f"first run saved {saved1} / loaded {loaded1} kernels in {first[0]:.1f} s; second run saved {saved2} "
        f"/ loaded {loaded2} in {second[0]:.1f} s; {len(outside)} cache lines elsewhere; {where}",
    )


def check_fill_cache(t: SmokeTest) -> None:
    """The warm-up's child (``tagtool.services.warmup.start_filling_cache``) in the bundle, on an empty cache."""
    from tagtool.services.warmup import FILL_CACHE_ARG

    env = dict(t.env, XDG_CACHE_HOME=str(SMOKE / "fill-cache"))
    runs = [t.run(FILL_CACHE_ARG, env=env) for _ in range(2)]
    saved = [proc.stdout.count("data saved to") for proc, _ in runs]
    outside = [
        line
        for proc, _ in runs
        for line in proc.stdout.splitlines()
        if line.startswith("[cache]") and str(SMOKE / "fill-cache") not in line
    ]
    ok = all(proc.returncode == 0 for proc, _ in runs) and saved[0] > 0 and saved[1] == 0 and not outside
    t.record(
        f"tagtool {FILL_CACHE_ARG} (the warm-up's child)",
        ok,
        runs[0][1] + runs[1][1],
        f"exit {runs[0][0].returncode}, {saved[0]} kernels saved in {runs[0][1]:.1f} s; again: exit "
        f"{runs[1][0].returncode}, {saved[1]} saved in {runs[1][1]:.1f} s; {len(outside)} cache lines elsewhere",
        runs[0][0] if not ok else None,
    )


def check_xcb(t: SmokeTest) -> None:
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        t.skip("tagtool gui --quit-after 2000 (xcb)", "xvfb-run is not installed")
        return
    check_gui(t, "xcb", (xvfb, "-a", "-s", "-screen 0 1280x800x24"))


def smoke_test(verbose: bool) -> list[Step]:
    executable = APP / "tagtool"
    if not executable.is_file():
        raise SystemExit(f"{executable}: not built (run without --skip-build)")
    shutil.rmtree(SMOKE, ignore_errors=True)
    (SMOKE / "cwd").mkdir(parents=True)
    t = SmokeTest(executable, verbose)
    check_version(t)
    check_info(t)
    check_gui(t)
    check_xcb(t)
    train, test = write_slices()
    reference = reference_output(train, test)
    out, *first = train_and_tag(t, train, test, "first")
    if out is not None:
        check_tagged(t, out, test, reference, "tagged output (first run)")
        check_evaluate(t, test)
        check_workers(t, test, reference)
        check_other_learners(t, train)
        out2, *second = train_and_tag(t, train, test, "second")
        if out2 is not None:
            check_tagged(t, out2, test, reference, "tagged output (second run)")
            check_cache(t, tuple(first), tuple(second))
    check_fill_cache(t)
    return t.steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-build", action="store_true", help="smoke-test the existing packaging/dist/tagtool")
    parser.add_argument("--clean", action="store_true", help="clear PyInstaller's cache before building")
    parser.add_argument("--verbose", action="store_true", help="show the output of every step")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # tagtool's version and learner names, from this source tree

    build_seconds = None if args.skip_build else build(args.clean)
    size, count = folder_size(APP)
    print(
        f"bundle {APP}: {size / 2**20:.0f} MiB in {count} files"
        + (f", built in {build_seconds:.0f} s" if build_seconds is not None else ""),
        flush=True,
    )
    steps = smoke_test(args.verbose)
    failed = [s for s in steps if not s.ok]
    print(
        f"\nsummary: {len(steps) - len(failed)} passed, {len(failed)} failed"
        + (f" ({', '.join(s.name for s in failed)})" if failed else "")
        + f"; bundle {size / 2**20:.0f} MiB"
        + (f", build {build_seconds:.0f} s" if build_seconds is not None else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
