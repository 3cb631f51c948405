"""First labeled sentence to first suggestions, in the real app on an X display, driven by key presses.

Usage::

    Xvfb :129 -screen 0 1280x800x24 &
    python benchmarks/first_suggestions.py --display :129 [--bundle packaging/dist/tagtool] [--wheel tagtool]

Each run starts the program (``tagtool gui <project>``, the installed
console script and/or the PyInstaller bundle) with a fresh home folder
(``HOME`` and every ``XDG_*`` folder; the installed package's numba cache
in a fresh ``NUMBA_CACHE_DIR``, the bundle's under ``XDG_CACHE_HOME`` as
it puts it) on a copy of the sample corpus with nothing labeled.  Once the
window is on the display it waits ``read`` seconds (a person reading the
window), then labels the first sentence the way a person does: the label
key of each token in turn (``xdotool key``, one key every 0.15 s).  It
times from the last key to the first suggestions, which the app's log file
records ("suggestions of a … model shown"), and reads from the log when the
background warm-up had the kernels ready.  "Warm" runs start again on the
cache the cold run before them filled.  Checks that the project then holds
the first sentence's gold labels.  Writes
``benchmarks/results/first_suggestions.md`` (analysis kept across runs).
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_name, load_average, write_keeping_analysis

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "first_suggestions.md"
#: (cache, seconds of reading before the first key): the runs of each program, in order.
RUNS = (("cold", 0.0), ("warm", 0.0), ("cold", 10.0), ("cold", 20.0), ("warm", 10.0))
KEY_DELAY_MS = 150
TIMEOUT = 600


def fresh_project(folder: Path) -> tuple[Path, list[str], list[str]]:
    """A copy of the sample corpus with no label; the first sentence's gold labels and their xdotool keys."""
    from tagtool.core import Corpus
    from tagtool.paths import SAMPLE_CORPUS, resource
    from tagtool.store.colors import default_shortcuts
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    gold = read_corpus(resource(SAMPLE_CORPUS))
    path = folder / "fresh.tagproj"
    unlabeled = Corpus.from_sentences([s.unlabeled() for s in gold], labels=gold.labels)
    Project.create(path, unlabeled, name="fresh").close()
    keys = dict(zip(gold.labels.names, default_shortcuts(gold.labels)))
    labels = [next(iter(a)) for a in next(iter(gold)).annotations]
    return path, labels, [keys[label].replace("Shift+", "shift+") for label in labels]


def environment(home: str, display: str, numba_cache: str | None) -> dict[str, str]:
    """The app's variables: fresh user folders under ``home``, the X display (paths as the app sees them)."""
    env = {"HOME": home, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
    for name in ("DATA", "CONFIG", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = f"{home}/{name.lower()}"
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache
    return env


def launch(program: list[str], args: list[str], env: dict[str, str], root: Path | None, errors) -> subprocess.Popen:
    """``program args`` on the host (with the host's environment less numba's, Qt's and the user folders), or
    in the chroot ``root`` with ``env`` only (``benchmarks/_chroot.py``)."""
    if root is None:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "QT_", "XDG_", "PYTHON"))}
        return subprocess.Popen([*program, *args], env={**keep, **env}, stdout=subprocess.DEVNULL, stderr=errors)
    from _chroot import BASE_ENV

    variables = [f"{k}={v}" for k, v in {**BASE_ENV, **env}.items()]
    command = ["chroot", str(root), "/usr/bin/env", "-i", *variables, *program, *args]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)


def xdotool(env: dict, *args: str, timeout: float = TIMEOUT) -> str:
    done = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=timeout)
    return done.stdout.strip()


def log_times(log: Path, text: str) -> list[float]:
    """Wall-clock times of the log file's records that contain ``text``."""
    times = []
    if log.is_file():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if text in line:
                stamp = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
                times.append(stamp.timestamp())
    return times


def one_run(program: list[str], home: Path, display: str, numba: bool, read: float, root: Path | None = None) -> dict:
    """Start the app, label the first sentence ``read`` s after the window shows; the times.

    ``home``: a folder on the host, inside the chroot ``root`` if given; ``numba``: give the app a
    ``NUMBA_CACHE_DIR`` there (an installed package; the bundle keeps its kernels under ``XDG_CACHE_HOME``).
    """
    from tagtool.store.project import Project

    def inside(path: Path) -> str:
        return str(path) if root is None else "/" + str(path.relative_to(root))

    env = environment(inside(home), display, inside(home / "cache" / "numba-installed") if numba else None)
    work = Path(tempfile.mkdtemp(dir=home))
    project, labels, keys = fresh_project(work)
    log = home / "state" / "tagtool" / "tagtool.log"
    host = {**os.environ, "DISPLAY": display}
    before = len(log_times(log, "suggestions of a"))
    started = time.time()
    errors = (work / "stderr.txt").open("w")
    proc = launch(program, ["gui", inside(project)], env, root, errors)
    try:
        window = xdotool(host, "search", "--sync", "--onlyvisible", "--name", "fresh — tagtool").split()[0]
        shown = time.time()
        time.sleep(max(0.0, shown + read - time.time()))
        xdotool(host, "windowfocus", "--sync", window)
        xdotool(host, "key", "--delay", str(KEY_DELAY_MS), *keys)
        edited = time.time()
        while len(log_times(log, "suggestions of a")) <= before:
            if proc.poll() is not None or time.time() - edited > TIMEOUT:
                raise RuntimeError(f"no suggestions: exit {proc.returncode}, see {work / 'stderr.txt'}")
            time.sleep(0.05)
        suggested = [t for t in log_times(log, "suggestions of a")[before:] if t >= edited - 0.01]
    finally:
        proc.terminate()
        proc.wait(60)
        errors.close()
    ready = [t for t in log_times(log, "kernels of") if t >= started]
    stored = Project.open(project, readonly=True)
    try:
        sid = stored.sentence_ids()[0]
        labeled = [next(iter(a), None) for a in stored.annotations(sid)] == labels
    finally:
        stored.close()
    return {
        "window": shown - started,
        "typing": edited - shown - read,
        "suggestions": (suggested[0] if suggested else float("nan")) - edited,
        "kernels": (ready[0] - shown) if ready else float("nan"),
        "labeled": labeled,
    }


def measure(name: str, program: list[str], display: str, numba: bool, runs=RUNS, root: Path | None = None) -> list[str]:
    """``runs`` (:data:`RUNS`) for one program, on the host or in the chroot ``root``; table rows."""
    rows = []
    home = None
    for cache, read in runs:
        if cache == "cold":
            base = Path(tempfile.gettempdir()) if root is None else root / "root"
            home = Path(tempfile.mkdtemp(prefix=f"first-suggestions-{name.replace(' ', '-')}-", dir=base))
        got = one_run(program, home, display, numba, read, root)
        print(name, cache, read, got, file=sys.stderr, flush=True)
        kernels = "—" if got["kernels"] != got["kernels"] else f"{got['kernels']:.1f}"
        rows.append(
            f"| {name} | {cache} | {read:.0f} | {got['window']:.1f} | {got['typing']:.1f} | "
            f"**{got['suggestions']:.1f}** | {kernels} | {'yes' if got['labeled'] else 'NO'} |"
        )
    if home is not None and root is None:
        shutil.rmtree(home, ignore_errors=True)
    return rows


#: The head of :func:`measure`'s table.
HEADER = [
    "| program | numba cache | reading before the first key (s) | start → window (s) | typing (s) "
    "| last key → first suggestions (s) | kernels ready, from window shown (s) | sentence stored |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--display", required=True, help="an X display with nothing else on it, e.g. :129")
    parser.add_argument("--wheel", default=shutil.which("tagtool"), help="the installed tagtool console script")
    parser.add_argument("--bundle", type=Path, help="the built bundle folder (packaging/dist/tagtool)")
    args = parser.parse_args(argv)
    rows = []
    if args.wheel:
        rows += measure("installed package", [args.wheel], args.display, numba=True)
    if args.bundle is not None:
        rows += measure("bundle", [str(args.bundle.resolve() / "tagtool")], args.display, numba=False)
    lines = [
        "# First labeled sentence to first suggestions: the app on an X display, labeled by key presses",
        "",
        f"`python benchmarks/first_suggestions.py`; {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
        f"{cpu_name()}, {os.cpu_count()} logical cores; Xvfb, no window manager; load average at the end "
        f"{load_average()}.",
        "",
        "Each cold run on a fresh home folder and numba cache; each warm run on the cache the run before filled. "
        f"Keys one every {KEY_DELAY_MS} ms; the sample corpus's first sentence (37 tokens) labeled.",
        "",
        *HEADER,
        *rows,
    ]
    write_keeping_analysis(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
