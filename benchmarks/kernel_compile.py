"""Where a first start's compilation goes: each kernel the default learner's warm-up compiles, and how long.

Runs :func:`tagtool.services.warmup.warm_kernels` in a child process on an
empty numba cache (``NUMBA_CACHE_DIR`` a new folder) with a listener on
numba's ``numba:compile`` events, and lists every compilation of a tagtool
kernel that no other kernel's compilation holds (its callees' compilations
included in its seconds), with its argument types shortened, and the
process's CPU seconds in all. Two compilations of one kernel whose
arguments differ only in being read-only or literal are marked: one
compilation could serve both.

Run: ``python benchmarks/kernel_compile.py`` (writes ``benchmarks/results/kernel_compile.md``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_name, load_average, write_keeping_analysis

OUT = Path(__file__).resolve().parent / "results" / "kernel_compile.md"

CHILD = r"""
import json, resource, time
from numba.core import event, types

stack, out = [], []


class Listener(event.Listener):
    def on_start(self, ev):
        stack.append(time.perf_counter())

    def on_end(self, ev):
        started = stack.pop()
        d = ev.data["dispatcher"]
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        if name.startswith("tagtool"):
            out.append((len(stack), name, [str(a) for a in ev.data["args"]],
                        [("array", str(a.dtype), a.ndim) if isinstance(a, types.Array) else str(types.unliteral(a))
                         for a in ev.data["args"]], time.perf_counter() - started))


event.register("numba:compile", Listener())
started = time.perf_counter()
from tagtool.services.warmup import warm_kernels

warm_kernels()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - started, "cpu": usage.ru_utime + usage.ru_stime, "compiled": out}))
"""


def _short(args: list[str]) -> str:
    text = ", ".join(args).replace("aligned=True", "").replace("Array(", "A(").replace(", )", ")")
    return text if len(text) <= 90 else text[:87] + "..."


def main() -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="kernel-compile-")}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # depth 0: compiled when called from Python, not as a callee inside another kernel's compilation
    rows, seen = [], set()
    for depth, name, args, plain, seconds in report["compiled"]:
        key = (name, json.dumps(plain))
        rows.append((depth == 0, name, _short(args), seconds, key in seen))
        seen.add(key)
    lines = [
        "# Kernel compilation of a first start (the default learner's warm-up, empty numba cache)",
        "",
        f"`python benchmarks/kernel_compile.py`; {cpu_name()}, {os.cpu_count()} cores, load average "
        f"{load_average()} at the end (other jobs were running).",
        "",
        f"Warm-up: {report['wall']:.1f} s wall, {report['cpu']:.1f} s CPU of its process (imports included).",
        "",
        "| kernel | arguments | seconds (callees included) | twin of an earlier one |",
        "| --- | --- | ---: | --- |",
        *(
            f"| {'**' if outer else ''}{name.removeprefix('tagtool.')}{'**' if outer else ''} | `{args}` | "
            f"{seconds:.2f} | {'yes' if twin else ''} |"
            for outer, name, args, seconds, twin in rows
        ),
        "",
        "Bold: compiled for itself, not as a callee of another kernel being compiled.",
    ]
    for line in lines[4:]:
        print(line)
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    main()
