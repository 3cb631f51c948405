"""The numba cache of the frozen app (tagtool._runtime), with ``sys.frozen`` simulated in a
fresh interpreter: numba reads its cache folder once, when first imported."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

from tagtool import _runtime

ROOT = pathlib.Path(__file__).resolve().parents[1]

# argv: bundle folder ("-" for an unfrozen run), then "kernel" to compile and call one kernel.
SCRIPT = r"""
import json, os, sys
bundle, mode = sys.argv[1], sys.argv[2]
if bundle != "-":
    sys.frozen = True
    sys._MEIPASS = bundle
import tagtool  # sets the cache folder up before anything imports numba
result = {"numba_imported_by_tagtool": "numba" in sys.modules, "env": os.environ.get("NUMBA_CACHE_DIR")}
import numba
from tagtool.decode import _jit
result.update(config=numba.config.CACHE_DIR, cache=_jit.CACHE)
if mode == "kernel":
    import numpy as np
    from tagtool.decode._validate import _all_in_range
    result["value"] = bool(_all_in_range(np.arange(3, dtype=np.int64), 5))
    stats = _all_in_range.stats
    result.update(cache_path=stats.cache_path, hits=sum(stats.cache_hits.values()),
                  misses=sum(stats.cache_misses.values()))
print(json.dumps(result))
"""


def run(tmp_path, bundle="-", mode="", **env_vars):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.update(env_vars)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(bundle), mode],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def bundle_with_build_id(tmp_path, build_id):
    folder = tmp_path / "bundle"
    (folder / "tagtool").mkdir(parents=True)
    (folder / "tagtool" / _runtime.BUILD_ID_FILE).write_text(build_id + "\n", encoding="ascii")
    return folder


def test_outside_a_frozen_app_numba_keeps_its_default_cache(tmp_path):
    result, _ = run(tmp_path)
    assert result == {"numba_imported_by_tagtool": False, "env": None, "config": "", "cache": True}
    assert not (tmp_path / "cache").exists()


def test_frozen_app_caches_kernels_per_user_and_build_and_reuses_them(tmp_path):
    bundle = bundle_with_build_id(tmp_path, "build-1")
    folder = tmp_path / "cache" / "tagtool" / "numba" / "build-1"
    first, _ = run(tmp_path, bundle, "kernel")
    assert first["numba_imported_by_tagtool"] is False  # so the folder was set in time
    assert first["env"] == first["config"] == str(folder)
    assert first["cache"] is True and first["value"] is True
    assert pathlib.Path(first["cache_path"]).parent == folder
    assert (first["hits"], first["misses"]) == (0, 1)
    assert any(folder.rglob("*.nbi")) and any(folder.rglob("*.nbc"))
    second, _ = run(tmp_path, bundle, "kernel")
    assert (second["hits"], second["misses"]) == (1, 0)
    # a new build does not load the old build's kernels
    (bundle / "tagtool" / _runtime.BUILD_ID_FILE).write_text("build-2", encoding="ascii")
    third, _ = run(tmp_path, bundle, "kernel")
    assert third["env"] == str(folder.parent / "build-2")
    assert (third["hits"], third["misses"]) == (0, 1)


def test_unwritable_cache_folder_turns_caching_off_and_kernels_still_run(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go", encoding="utf-8")
    result, stderr = run(tmp_path, bundle_with_build_id(tmp_path, "b"), "kernel", XDG_CACHE_HOME=str(blocker))
    assert result["env"] is None and result["config"] == ""
    assert result["cache"] is False and result["value"] is True
    assert "compiled kernels will not be cached" in stderr and str(blocker) in stderr


def test_a_numba_cache_dir_set_by_the_user_is_kept(tmp_path):
    mine = tmp_path / "my numba cache"
    result, _ = run(tmp_path, bundle_with_build_id(tmp_path, "b"), NUMBA_CACHE_DIR=str(mine))
    assert result["env"] == result["config"] == str(mine) and result["cache"] is True
    assert mine.is_dir() and not (tmp_path / "cache").exists()


def test_build_id_is_the_bundles_or_else_derived_from_the_executable(tmp_path):
    assert _runtime.build_id(bundle_with_build_id(tmp_path, "0123abcd")) == "0123abcd"
    derived = _runtime.build_id(tmp_path / "nowhere")
    assert re.fullmatch(r"[0-9a-f]{16}", derived) and _runtime.build_id(tmp_path / "nowhere") == derived
    # a BUILD_ID that is not a plain name never becomes a path
    (tmp_path / "bundle" / "tagtool" / _runtime.BUILD_ID_FILE).write_text("../../elsewhere", encoding="ascii")
    assert _runtime.build_id(tmp_path / "bundle") == derived


def test_unfrozen_process_configures_nothing():
    assert not _runtime.is_frozen()
    assert _runtime.configure_numba_cache() is None and _runtime.jit_cache_enabled()
