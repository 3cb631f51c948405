"""The source distribution holds what it takes to install tagtool and to run its tests.

Builds the sdist of this tree (offline: ``python -m build --sdist
--no-isolation``), checks that it holds every file git tracks and the
licence, installs it into a fresh virtual environment (which borrows this
one's dependencies through a ``.pth`` line, so nothing is downloaded) and
runs a quick subset of the tests from the unpacked sdist against the
installed package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Quick tests that read tests/data, resources/ and packaging/ from the unpacked sdist.
SUBSET = ("tests/test_packaging.py", "tests/store/test_formats_conll.py", "tests/test_cli_tag.py")


def _tracked_files() -> set[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return {name for name in out.decode().split("\0") if name and (ROOT / name).is_file()}


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    work = tmp_path_factory.mktemp("tree")
    # Build from a copy: setuptools writes tagtool.egg-info into the tree it builds.
    tree = work / "tagtool"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", "site"))
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(tree)],
        check=True,
        capture_output=True,
    )
    (archive,) = out.glob("tagtool-*.tar.gz")
    return archive


def test_sdist_holds_every_tracked_file_and_the_licence(sdist):
    with tarfile.open(sdist) as tar:
        names = {name.partition("/")[2] for name in tar.getnames()}
    missing = sorted(_tracked_files() - names)
    assert not missing, f"{len(missing)} tracked files are not in the sdist, e.g. {missing[:5]}"
    assert {"LICENSE", "tests/conftest.py", "packaging/build.py", "packaging/tagtool.spec"} <= names
    assert any(name.startswith("docs/screenshots/") for name in names)
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)
    with tarfile.open(sdist) as tar:
        (pkg_info,) = (m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"))
        metadata = tar.extractfile(pkg_info).read().decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata


def _borrowing_venv(folder: Path) -> Path:
    """A virtual environment whose site-packages also lists this environment's (no download)."""
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(own, "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_the_unpacked_sdist_installs_and_its_tests_pass(sdist, tmp_path):
    with tarfile.open(sdist) as tar:
        # The "data" filter where Python has it (3.11.4+); the archive is the one built above either way.
        tar.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (unpacked,) = tmp_path.glob("tagtool-*")
    python = _borrowing_venv(tmp_path / "venv")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    install = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(unpacked)]
    subprocess.run(install, check=True, capture_output=True, env=env)
    where = subprocess.run(
        [
            str(python),
            "-P",
            "-c",
            "import tagtool, tagtool.paths as p; print(tagtool.__file__); print(p.resources_dir())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    ).stdout.splitlines()
    assert all(Path(line).is_relative_to(tmp_path / "venv") for line in where), where
    # -P: the unpacked tree must not shadow the installed package; -p no:cacheprovider: no .pytest_cache in it.
    tests = [str(python), "-P", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SUBSET]
    result = subprocess.run(tests, capture_output=True, text=True, cwd=unpacked, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
