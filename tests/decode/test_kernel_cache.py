"""The kernels' on-disk cache (tagtool.decode._jit): a kernel calling a kernel of another module
sees that module's edits after a cache hit, and kernels still run when nothing can be cached.

Each step runs in a fresh interpreter (numba reads its cache at the first call of a kernel), on a
small kernel package written to ``tmp_path``: ``kpkg._caller.twice`` calls ``kpkg._callee.bump``.
With numba's own ``cache=True`` the second run after editing ``_callee.py`` loads the caller's
stale machine code (``bump`` compiled in as it was); with :data:`tagtool.decode._jit._njit` it
recompiles.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

CALLEE = """from tagtool.decode._jit import _njit


@_njit
def bump(x):
    return x + {step}
"""

CALLER = """from tagtool.decode._jit import _njit

from kpkg._callee import bump


@_njit
def twice(x):
    return 2 * bump(x)
"""

SCRIPT = r"""
import json, sys
from kpkg._caller import twice
value = twice(1)
stats = twice.stats
print(json.dumps({"value": int(value), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def write_package(folder: pathlib.Path, step: int) -> None:
    package = folder / "kpkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "_callee.py").write_text(CALLEE.format(step=step), encoding="utf-8")
    (package / "_caller.py").write_text(CALLER, encoding="utf-8")


def run(folder: pathlib.Path, **env_vars) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(env_vars)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=folder, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_a_cached_caller_sees_its_callees_edit(tmp_path):
    cache = str(tmp_path / "numba-cache")
    write_package(tmp_path, step=1)
    first, _ = run(tmp_path, NUMBA_CACHE_DIR=cache)
    assert first == {"value": 4, "hits": 0, "misses": 1}
    second, _ = run(tmp_path, NUMBA_CACHE_DIR=cache)
    assert second == {"value": 4, "hits": 1, "misses": 0}  # the cache is in use
    write_package(tmp_path, step=2)  # only the callee's module changes
    third, _ = run(tmp_path, NUMBA_CACHE_DIR=cache)
    assert third["value"] == 6, "the caller ran a stale copy of the callee"
    assert third == {"value": 6, "hits": 0, "misses": 1}
    fourth, _ = run(tmp_path, NUMBA_CACHE_DIR=cache)
    assert fourth == {"value": 6, "hits": 1, "misses": 0}


def test_kernels_run_uncached_when_no_folder_can_be_written(tmp_path):
    write_package(tmp_path, step=1)
    blocker = tmp_path / "a-file"
    blocker.write_text("no folder can be made below a file", encoding="utf-8")
    # numba's candidates: NUMBA_CACHE_DIR, the package's __pycache__, the user-wide folder
    (tmp_path / "kpkg" / "__pycache__").write_text("not a folder", encoding="utf-8")
    result, stderr = run(
        tmp_path,
        NUMBA_CACHE_DIR=str(blocker / "numba"),
        XDG_CACHE_HOME=str(blocker / "xdg"),
        HOME=str(blocker / "home"),
    )
    assert result["value"] == 4 and result["hits"] == 0
    assert "will not be cached" in stderr
    assert not any(tmp_path.rglob("*.nbi"))
