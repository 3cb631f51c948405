"""The system packages the README lists, checked on a bare Debian 12: the wheel (and the bundle) on a minbase chroot.

Run by hand, as root, on a Linux machine with ``debootstrap``, ``Xvfb``, ``xdotool`` and
network access to a Debian mirror and PyPI (not part of the test suite)::

    sudo python benchmarks/bare_desktop.py [--bundle packaging/dist/tagtool]

It builds (once, cached under ``/var/tmp/tagtool-bare``, see
``benchmarks/_chroot.py``) a ``debootstrap --variant=minbase`` Debian 12 with
``python3.11``, ``python3-venv`` and a virtual environment, builds the wheel
of this tree and installs it there, and then, in an overlay so the base stays
bare:

1. with none of the listed packages, runs ``tagtool gui`` on an X display
   (an ``Xvfb`` on the host, its socket visible in the chroot) and offscreen,
   and records the one line the start-up check prints (a traceback or an
   abort fails the check);
2. installs exactly the packages ``README.md`` lists after ``sudo apt
   install`` (``--no-install-recommends``; their dependencies come along) and
   starts the app offscreen and on the X display (``tagtool gui
   --quit-after 3000``, exit status 0), and on a display where no X server
   answers;
3. removes each listed package in turn (``dpkg --remove --force-depends``),
   checks that the start-up check names a library of that package and the
   package, or that the app starts without it (the bundle carries some of
   those libraries), and puts it back; when it started without some, a fresh
   chroot with only the others must start too, without a word about fonts;
4. times the first window (``tagtool gui --quit-after 0`` and
   ``benchmarks/_first_start_probe.py window``) and the first suggestions
   (the probe's ``suggest none``) on a cold numba cache and again warm, and
   takes the resident memory (peak RSS) of the window with the sample open;
   then the first suggestions in the app as it starts, its first sentence
   labeled by key presses on the X display (``benchmarks/first_suggestions.py``,
   its warm-up on), cold and warm.

With ``--bundle``, the PyInstaller bundle (``packaging/build.py``) goes
through the same steps with the list ``packaging/README.md`` gives for it (no
probe: the bundle has no Python to run it with; the key presses come from the
host's ``xdotool``).  Writes ``benchmarks/results/bare_desktop.md``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _chroot
import first_suggestions
from _chroot import CACHE, VENV, log, run
from _results import load_average, machine_lines, write_keeping_analysis

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "bare_desktop.md"
PROBE = ROOT / "benchmarks" / "_first_start_probe.py"
#: The key-driven runs of step 4: (numba cache, seconds of reading before the first key).
KEY_RUNS = (("cold", 0.0), ("warm", 0.0), ("cold", 10.0))
#: Runs a command, then prints its wall time and its peak resident memory (kB) on the last line of stderr.
MEASURE = """import resource, subprocess, sys, time
t = time.perf_counter()
code = subprocess.run(sys.argv[1:]).returncode
wall = time.perf_counter() - t
print(f"measured {wall:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr)
sys.exit(code)
"""


def listed_packages() -> tuple[list[str], list[str]]:
    """The Debian packages ``README.md`` lists for the wheel and ``packaging/README.md`` for the bundle."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    bundle = " ".join((ROOT / "packaging" / "README.md").read_text(encoding="utf-8").split())
    wheel = re.search(r"`sudo apt install ([^`]+)`", readme)
    bare = re.search(r"bare Debian 12 install `([^`]+)`", bundle)
    if wheel is None or bare is None:
        raise SystemExit("README.md or packaging/README.md: no package list where this script looks for it")
    return wheel.group(1).split(), bare.group(1).split()


def build_wheel() -> Path:
    dist = CACHE / "dist"
    _chroot.remove_tree(dist)
    log("pip wheel --no-deps of this tree")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return next(dist.glob("tagtool-*.whl"))


class Runner:
    """Commands in one chroot: a program (the wheel's or the bundle's ``tagtool``), fresh user folders per run."""

    def __init__(self, root: Path, program: str, display: str):
        self.root, self.program, self.display, self.count = root, program, display, 0
        (root / "opt" / "measure.py").write_text(MEASURE)
        shutil.copy(PROBE, root / "opt" / "probe.py")

    def user(self, fresh: bool = True) -> dict[str, str]:
        """``XDG_*`` and ``NUMBA_CACHE_DIR`` folders: new ones, or (``fresh`` False) the last ones again."""
        self.count += fresh
        home = f"/root/run{self.count}"
        env = {f"XDG_{k}_HOME": f"{home}/{k.lower()}" for k in ("DATA", "CACHE", "CONFIG", "STATE")}
        if self.program.startswith(VENV):  # the bundle keeps its kernels under XDG_CACHE_HOME itself
            env["NUMBA_CACHE_DIR"] = f"{home}/numba"
        return env

    def gui(self, where: str, args=(), fresh=True, display: str | None = None) -> dict:
        """``tagtool gui ARGS`` offscreen (``where`` = "offscreen") or on the X display; what it did."""
        env = self.user(fresh)
        env.update({"QT_QPA_PLATFORM": "offscreen"} if where == "offscreen" else {"DISPLAY": display or self.display})
        command = ["/usr/bin/python3.11", "/opt/measure.py", self.program, "gui", *args]
        return outcome(run(self.root, command, env=env, timeout=900))

    def probe(self, kind: str, fresh=True) -> float:
        env = {**self.user(fresh), "QT_QPA_PLATFORM": "offscreen"}
        done = run(self.root, [f"{VENV}/bin/python", "/opt/probe.py", kind, "none"], env=env, timeout=900)
        words = [line.split() for line in done.stdout.splitlines() if line.startswith(("shown", "suggest"))]
        if done.returncode != 0 or not words:
            raise RuntimeError(f"probe {kind}: {done.returncode}\n{done.stderr[-3000:]}")
        return float(words[-1][1])


def outcome(done: subprocess.CompletedProcess) -> dict:
    """Exit status, wall seconds, peak RSS (MB), the messages (stderr without the measurement) of a run."""
    lines = done.stderr.splitlines()
    measured = [line.split() for line in lines if line.startswith("measured ")]
    wall, rss = (float(measured[-1][1]), float(measured[-1][2]) / 1024) if measured else (float("nan"),) * 2
    messages = [line for line in lines if not line.startswith("measured ")]
    return {
        "code": done.returncode,
        "wall": wall,
        "rss": rss,
        "stderr": "\n".join(messages).strip(),
        "stdout": done.stdout.strip(),
        "traceback": "Traceback" in done.stderr or done.returncode < 0 or done.returncode >= 128,
    }


def installed(root: Path) -> set[str]:
    out = run(root, ["dpkg-query", "-W", "-f", "${Package}\\n"], check=True).stdout
    return set(out.split())


def sonames(root: Path, package: str) -> list[str]:
    """The shared libraries (by soname, ``libX.so.N``) ``package`` installs."""
    files = run(root, ["dpkg", "-L", package], check=True).stdout.split()
    return sorted({Path(f).name for f in files if re.search(r"/lib[^/]*\.so\.\d+$", f)})


def bare_start(runner: Runner) -> list[dict]:
    """Step 1: nothing listed installed; the line for the X display and for offscreen."""
    rows = []
    for where in ("xcb", "offscreen"):
        got = runner.gui(where, ["--quit-after", "3000"])
        good = got["code"] == 1 and not got["traceback"] and got["stderr"].count("\n") == 0
        rows.append({"step": f"none of the packages, {where}", "ok": good, **got})
    return rows


def install_list(root: Path, packages: list[str]) -> list[str]:
    """Step 2's install (from the downloaded ``.deb`` files); returns every package it added."""
    before = installed(root)
    run(root, ["apt-get", "install", "-y", "--no-install-recommends", "--no-download", *packages], check=True)
    return sorted(installed(root) - before)


def with_list(runner: Runner) -> list[dict]:
    """Step 2's starts: offscreen, on the X display, and on a display where no X server answers."""
    rows = []
    for where in ("offscreen", "xcb"):
        got = runner.gui(where, ["--quit-after", "3000"])
        rows.append({"step": f"the list, {where}", "ok": got["code"] == 0 and not got["traceback"], **got})
    silent = ":" + str(next(n for n in range(200, 260) if not Path(f"/tmp/.X11-unix/X{n}").exists()))
    got = runner.gui("xcb", ["--quit-after", "3000"], display=silent)
    good = got["code"] == 1 and "no X server answers" in got["stderr"] and not got["traceback"]
    rows.append({"step": f"the list, DISPLAY={silent} (no X server)", "ok": good, **got})
    return rows


def each_removed(runner: Runner, packages: list[str]) -> list[dict]:
    """Step 3: each package out in turn (its dependencies stay) and back.

    As expected: the start-up check names a library of that package and the
    package, or the app starts without it (it carries that library itself:
    the row's ``needed`` is then False); never a traceback or an abort.
    """
    rows = []
    for package in packages:
        libraries = sonames(runner.root, package)
        run(runner.root, ["dpkg", "--remove", "--force-depends", package], check=True)
        try:
            got = runner.gui("xcb", ["--quit-after", "2000"])
        finally:
            debs = sorted((runner.root / "var/cache/apt/archives").glob(f"{package}_*.deb"))
            run(runner.root, ["dpkg", "-i", f"/var/cache/apt/archives/{debs[-1].name}"], check=True)
        named = [name for name in libraries if name in got["stderr"]]
        needed = bool(named) and f" {package}" in got["stderr"] and got["code"] == 1
        good = not got["traceback"] and (needed or got["code"] == 0)
        step = f"without {package} ({', '.join(libraries)})" + ("" if needed else ": started without it")
        rows.append({"step": step, "ok": good, "needed": needed, **got})
    return rows


def only_needed(base: Path, name: str, program: str, needed: list[str], setup) -> list[dict]:
    """Step 3b, when the app started without some listed packages: a fresh chroot with only the others.

    Enough when it starts offscreen and on the X display with no word from
    fontconfig or Qt's font database (a font-less system draws boxes); as
    expected as long as there is no traceback or abort.
    """
    with _chroot.overlay(base, name + "-needed") as root, _chroot.x_server() as display:
        setup(root)
        runner = Runner(root, program, display)
        install_list(root, needed)
        rows = []
        for where in ("offscreen", "xcb"):
            got = runner.gui(where, ["--quit-after", "3000"])
            fonts = any(word in got["stderr"] for word in ("Fontconfig", "QFontDatabase", "font"))
            enough = got["code"] == 0 and not got["traceback"] and not fonts
            step = f"only {' '.join(needed)}, {where}: " + ("enough" if enough else "**not enough**")
            rows.append({"step": step, "ok": not got["traceback"], "enough": enough, **got})
    return rows


def timings(runner: Runner, probe: bool) -> list[str]:
    """Step 4: first window and first suggestions, cold and warm numba cache; peak RSS with the sample open."""
    lines = ["| measurement | cold cache (s) | warm cache (s) | peak RSS (MB) |", "|---|---|---|---|"]
    for where in ("offscreen", "xcb"):
        cold = runner.gui(where, ["--quit-after", "0"])
        warm = runner.gui(where, ["--quit-after", "0"], fresh=False)
        open3 = runner.gui(where, ["--quit-after", "3000"], fresh=False)
        lines.append(
            f"| `tagtool gui --quit-after 0`, {where}: process start to exit | {cold['wall']:.2f} | "
            f"{warm['wall']:.2f} | {open3['rss']:.0f} (window open 3 s) |"
        )
    if probe:
        cold, warm = runner.probe("window"), runner.probe("window", fresh=False)
        lines.append(f"| first window shown (probe, offscreen) | {cold:.2f} | {warm:.2f} | |")
        cold, warm = runner.probe("suggest"), runner.probe("suggest", fresh=False)
        lines.append(f"| first labeled sentence to first suggestions (probe, no warm-up) | {cold:.2f} | {warm:.2f} | |")
    name = "wheel" if probe else "bundle"
    rows = first_suggestions.measure(name, [runner.program], runner.display, probe, KEY_RUNS, runner.root)
    return [
        *lines,
        "",
        "The app as it starts, the first sentence labeled by keys:",
        "",
        *first_suggestions.HEADER,
        *rows,
    ]


def check(base: Path, name: str, program: str, packages: list[str], setup=None) -> dict:
    """Steps 1-4 for one way of installing, in a fresh overlay on ``base``."""
    with _chroot.overlay(base, name) as root, _chroot.x_server() as display:
        if setup is not None:
            setup(root)
        runner = Runner(root, program, display)
        log(f"{name}: step 1, none of the packages")
        rows = bare_start(runner)
        log(f"{name}: step 2, apt-get install {' '.join(packages)}")
        added = install_list(root, packages)
        rows += with_list(runner)
        log(f"{name}: step 3, each package removed in turn")
        rows += each_removed(runner, packages)
        log(f"{name}: step 4, times and memory")
        times = timings(runner, probe=program.startswith(VENV))
    needed = [p for p in packages if not any(r.get("needed") is False and f"without {p} " in r["step"] for r in rows)]
    if needed != packages:
        log(f"{name}: step 3b, only {' '.join(needed)}")
        rows += only_needed(base, name, program, needed, setup)
    return {"name": name, "packages": packages, "added": added, "rows": rows, "times": times, "needed": needed}


def section(result: dict) -> list[str]:
    lines = [
        f"## {result['name']}",
        "",
        f"Listed: `{' '.join(result['packages'])}`",
        "",
        f"`apt-get install --no-install-recommends` of the list installed {len(result['added'])} packages: "
        f"`{' '.join(result['added'])}`",
        "",
        f"Named by the start-up check when missing: `{' '.join(result['needed'])}`",
        "",
        "| check | as expected | exit | what it printed (stderr, else stdout) |",
        "|---|---|---|---|",
    ]
    for row in result["rows"]:
        said = (row["stderr"] or row["stdout"]).replace("\n", " / ").replace("|", "\\|")
        lines.append(f"| {row['step']} | {'yes' if row['ok'] else '**no**'} | {row['code']} | {said} |")
    return [*lines, "", *result["times"], ""]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, help="the built bundle folder (packaging/dist/tagtool)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached base chroot")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not _chroot.is_root():
        raise SystemExit("run as root: debootstrap, chroot and mount need it")
    wheel_list, bundle_list = listed_packages()
    load_before = load_average()
    wheel = build_wheel()
    if args.rebuild:
        _chroot.remove_tree(CACHE / "base")
    base = _chroot.build_base(wheel, sorted({*wheel_list, *bundle_list}))

    def install_wheel(root: Path) -> None:
        shutil.copy(wheel, root / "opt" / wheel.name)
        run(root, [f"{VENV}/bin/pip", "install", "-q", f"/opt/{wheel.name}"], env=_chroot.PIP_ENV, check=True)

    results = [check(base, "wheel", f"{VENV}/bin/tagtool", wheel_list, install_wheel)]
    if args.bundle is not None:
        bundle = args.bundle.resolve()

        def copy_bundle(root: Path) -> None:
            shutil.copytree(bundle, root / "opt" / "tagtool", symlinks=True)

        results.append(check(base, "bundle", "/opt/tagtool/tagtool", bundle_list, copy_bundle))
    lines = ["# The system packages a bare Debian 12 needs: checked on a minbase chroot", "", *machine_lines()]
    lines += [
        f"- chroot: Debian {_chroot.SUITE} `debootstrap --variant=minbase` + python3.11 python3-venv",
        f"- load average (1, 5, 15 min) at the start: {load_before}; at the end: {load_average()}",
        "",
    ]
    for result in results:
        lines += section(result)
    if args.bundle is None:
        lines += ["The bundle was not checked in this run (`--bundle packaging/dist/tagtool` after building it).", ""]
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0 if all(row["ok"] for result in results for row in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
