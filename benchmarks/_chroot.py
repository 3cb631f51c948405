"""A minimal Debian chroot for ``benchmarks/bare_desktop.py``: built once with ``debootstrap``, used through overlays.

The base (``debootstrap --variant=minbase``, then ``python3.11``,
``python3-venv``, a virtual environment at ``/opt/venv`` holding the wheel's
dependencies, and the ``.deb`` files of the packages under test downloaded
but not installed) lives under ``/var/tmp/tagtool-bare/base`` and is reused
by later runs; each check runs in an overlay on top of it, so the base
stays bare.  Inside, only ``/proc``, a tmpfs on ``/dev/shm``, the X
server's socket folder (read-only) and pip's cache are mounted; the
device nodes are the chroot's own, made by ``debootstrap`` (the host's
``/dev`` is never mounted).  Every mount is undone on the way out, and no
folder is deleted while something is mounted under it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

CACHE = Path("/var/tmp/tagtool-bare")
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
VENV = "/opt/venv"
#: The environment commands see inside: nothing from the host's.
BASE_ENV = {
    "PATH": f"{VENV}/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "DEBIAN_FRONTEND": "noninteractive",
}
#: The host's certificate authorities (pip in the chroot trusts what the host's pip trusts, e.g. a proxy's).
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
PIP_ENV = {"PIP_CERT": "/opt/host-ca.pem", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def mounts_under(path: Path) -> list[str]:
    """Mount points at or below ``path`` (from ``/proc/self/mountinfo``)."""
    prefix = str(path.resolve())
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point == prefix or point.startswith(prefix + "/"):
            found.append(point)
    return found


def remove_tree(path: Path) -> None:
    """``rm -rf path``, refused while anything is mounted under it."""
    if not path.exists():
        return
    busy = mounts_under(path)
    if busy:
        raise RuntimeError(f"{path}: still mounted under it: {busy}; not deleting")
    shutil.rmtree(path)


def unmount(point: Path) -> None:
    if subprocess.run(["umount", str(point)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


@contextlib.contextmanager
def mounted(root: Path, pip_cache: Path | None = None) -> Iterator[Path]:
    """``/proc``, ``/dev/shm`` (tmpfs), ``/tmp/.X11-unix`` (read-only bind) and pip's cache in ``root``."""
    done: list[Path] = []
    try:
        for kind, source, target, extra in (
            ("proc", "proc", root / "proc", []),
            ("tmpfs", "tmpfs", root / "dev" / "shm", ["-o", "mode=1777,size=512m"]),
        ):
            target.mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "-t", kind, *extra, source, str(target)], check=True)
            done.append(target)
        binds = [(Path("/tmp/.X11-unix"), root / "tmp" / ".X11-unix", True)]
        if pip_cache is not None:
            binds.append((pip_cache, root / "root" / ".cache" / "pip", False))
        for source, target, read_only in binds:
            source.mkdir(parents=True, exist_ok=True)
            target.mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "--bind", str(source), str(target)], check=True)
            done.append(target)
            if read_only:
                subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], check=True)
        yield root
    finally:
        for target in reversed(done):
            unmount(target)


def run(root: Path, command: list[str], env: dict[str, str] | None = None, timeout: float = 1800, check=False):
    """``command`` in the chroot ``root`` with :data:`BASE_ENV` (plus ``env``) only; output captured."""
    environment = [f"{k}={v}" for k, v in {**BASE_ENV, **(env or {})}.items()]
    done = subprocess.run(
        ["chroot", str(root), "/usr/bin/env", "-i", *environment, *command],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} -> {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done


def _debootstrap(target: Path) -> None:
    tarball = CACHE / f"debootstrap-{SUITE}.tgz"
    if not tarball.exists():
        log(f"downloading the {SUITE} minbase packages (once) to {tarball}")
        work = CACHE / "tarball-work"
        subprocess.run(
            ["debootstrap", "--variant=minbase", f"--make-tarball={tarball}", SUITE, str(work), MIRROR], check=True
        )
        remove_tree(work)
    log(f"debootstrap --variant=minbase {SUITE} {target}")
    subprocess.run(
        ["debootstrap", "--variant=minbase", f"--unpack-tarball={tarball}", SUITE, str(target), MIRROR],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def build_base(wheel: Path, packages: list[str]) -> Path:
    """The cached base chroot (built when missing): Python, the venv with ``wheel``'s dependencies, ``.deb`` files.

    The ``.deb`` files of ``packages`` and of what they depend on are
    downloaded into apt's cache, not installed.
    """
    base = CACHE / "base"
    stamp = base / "opt" / "tagtool-bare-ready"
    if stamp.exists():
        return base
    remove_tree(base)
    _debootstrap(base)
    shutil.copy("/etc/resolv.conf", base / "etc" / "resolv.conf")
    if HOST_CA.exists():
        shutil.copy(HOST_CA, base / "opt" / "host-ca.pem")
    with mounted(base, CACHE / "pip-cache"):
        log("apt-get install python3.11 python3-venv")
        run(base, ["apt-get", "update"], check=True)
        run(base, ["apt-get", "install", "-y", "--no-install-recommends", "python3.11", "python3-venv"], check=True)
        log("apt-get install --download-only " + " ".join(packages))
        run(base, ["apt-get", "install", "-y", "--no-install-recommends", "--download-only", *packages], check=True)
        log("the virtual environment and the wheel's dependencies (pip, from PyPI)")
        run(base, ["python3.11", "-m", "venv", VENV], check=True)
        shutil.copy(wheel, base / "opt" / wheel.name)
        run(base, [f"{VENV}/bin/pip", "install", "-q", f"/opt/{wheel.name}"], env=PIP_ENV, check=True)
        run(base, [f"{VENV}/bin/pip", "uninstall", "-y", "-q", "tagtool"], check=True)
    stamp.write_text("ready\n")
    return base


@contextlib.contextmanager
def overlay(base: Path, name: str) -> Iterator[Path]:
    """A writable copy of ``base`` (an overlay mount) for one check, mounted with :func:`mounted`; gone after."""
    work = CACHE / "runs" / name
    remove_tree(work)
    upper, scratch, merged = work / "upper", work / "work", work / "root"
    for folder in (upper, scratch, merged):
        folder.mkdir(parents=True)
    options = f"lowerdir={base},upperdir={upper},workdir={scratch}"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, str(merged)], check=True)
    try:
        with mounted(merged, CACHE / "pip-cache"):
            yield merged
    finally:
        unmount(merged)
        remove_tree(work)


@contextlib.contextmanager
def x_server() -> Iterator[str]:
    """An ``Xvfb`` on the host on a free display number (its socket reaches the chroot); yields ``:N``."""
    number = next(n for n in range(140, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    process = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                break
            time.sleep(0.1)
        yield f":{number}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def is_root() -> bool:
    return os.geteuid() == 0
