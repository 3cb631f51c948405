"""Full and read-only disks as randomized trials on real small file systems.

Each trial mounts a tmpfs of a random size inside the caller's folder (root
only; where ``mount`` is refused the project-side cases run in a child that
may not grow a file past 16 KiB instead, and the others are reported as not
run), fills it to a random point and runs the commands in this process
(:func:`_safety_trials.cli`):

* an intact project, with two annotators' answers and their files, on a full
  disk: ``info``, ``export``, ``agreement`` and ``assign`` (into another
  folder) succeed, ``merge`` says the disk is full and names the project
  (or merges, where the fill left room), the project is unchanged and no
  side file is left beside it;
* ``assign`` onto a disk too small for all the files: every file or none,
  the folder it made removed, and the same command run again (without
  ``--force``) once there is room writes them all; with ``--force`` over
  earlier files, those are kept unchanged when the new ones do not fit;
* ``export`` onto a disk too small: the file whole, or an error naming it
  and saying the disk is full, an earlier file unchanged, no temporary file;
* a read-only folder (the tmpfs remounted read-only): the project is read,
  ``merge``, ``assign`` and ``export`` into it say the folder is read-only.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "store"), str(ROOT / "benchmarks")]

from _safety_trials import CHILD_ENV, CONLL, Trials, cli, digest, need, report  # noqa: E402

TITLE = "### Full and read-only disks (a real tmpfs per trial)"
#: Trials per case at scale 1.0.
COUNTS = {"project": 40, "assign": 40, "export": 60, "read-only": 30}
SIDES = ("-wal", "-shm", "-journal", ".tmp")
SIZES = (12, 40, 100)  # sentences of the projects


# ----------------------------------------------------------------------
# small file systems


def can_mount(folder: Path) -> bool:
    probe = folder / "probe"
    probe.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    if done.returncode != 0:
        return False
    subprocess.run(["umount", str(probe)], check=True, timeout=30)
    return True


@contextlib.contextmanager
def tmpfs(folder: Path, size: int):
    """A tmpfs of ``size`` bytes (rounded up to pages) mounted at ``folder`` for the block."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True, timeout=30)
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], timeout=30).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], timeout=30)


def remount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True, timeout=30)


def fill(folder: Path, leave: int) -> int:
    """Fill ``folder``'s file system but ``leave`` bytes (about); the bytes left."""
    st = os.statvfs(folder)
    free = st.f_bfree * st.f_frsize
    with open(folder / "fill", "wb") as f:
        with contextlib.suppress(OSError):
            f.write(b"\0" * max(0, free - leave))
    st = os.statvfs(folder)
    return st.f_bfree * st.f_frsize


def leftovers(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(SIDES))


def files_size(*paths: Path) -> int:
    return sum(p.stat().st_size for p in paths)


# ----------------------------------------------------------------------
# the projects: answers of two annotators merged, their files kept


def team_projects(base: Path) -> dict[int, tuple[Path, list[Path]]]:
    from team_samples import answer_file, unlabeled_project

    made = {}
    for n in SIZES:
        folder = base / f"team{n}"
        folder.mkdir(parents=True)
        project, gold = unlabeled_project(folder / "p.tagproj", n)
        project.close()
        code, _, err = cli(
            "assign", project.path, "--annotators", "ana,ben", "--overlap", "0.5", "-o", folder / "files"
        )
        need(code == 0, err)
        files = sorted((folder / "files").glob("*.tagproj"))
        for seed, file in enumerate(files):
            answer_file(file, gold, noise=0.2, seed=seed, skip=0.3)  # some tokens left: open sentences stay
        code, _, err = cli("merge", project.path, *files)
        need(code == 0, err)
        made[n] = (project.path, files)
    return made


# ----------------------------------------------------------------------
# an intact project on a full disk


def project_on_full_disk(base: Path, teams, count: int, rng: random.Random) -> list[Trials]:
    rows = {
        name: Trials("intact project on a full disk", name)
        for name in ("info", "export", "agreement", "merge", "assign")
    }
    for i in range(count):
        n = rng.choice(SIZES)
        source, files = teams[n]
        extra, leave = rng.randrange(16, 256) * 1024, rng.choice([0, rng.randrange(0, 60 * 1024)])
        with tmpfs(base / f"full{i}", files_size(source, *files) + extra) as disk:
            project = Path(shutil.copy(source, disk))
            copies = [Path(shutil.copy(f, disk)) for f in files]
            left = fill(disk, leave)
            label = f"{n} sentences, {left} bytes free"
            before = digest(project)
            out = base / f"full{i}-out"

            def reads(argv, name):
                def trial():
                    code, stdout, err = cli(*argv)
                    need(code == 0 and "damaged" not in err, f"{name}: {code} {err[-300:]!r}")
                    need(digest(project) == before and leftovers(disk) == [], f"{leftovers(disk)}")
                    return "read"

                rows[name].run(label, trial)

            reads(["info", project], "info")
            reads(["export", project, "-o", out.with_suffix(".jsonl")], "export")
            reads(["agreement", project], "agreement")
            reads(["assign", project, "--annotators", "cy,dan", "-o", out], "assign")

            def merge():
                code, _, err = cli("merge", project, *copies)
                need(leftovers(disk) == [], f"{leftovers(disk)}")
                if code == 0:
                    return "merged (the fill left room)"
                need(
                    code == 1 and str(project) in err and "the disk is full" in err and "damaged" not in err,
                    f"{code} {err[-300:]!r}",
                )
                need(digest(project) == before, "the project changed")
                return "refused: the disk is full"

            rows["merge"].run(label, merge)
    return list(rows.values())


def project_on_full_disk_simulated(base: Path, teams, count: int, rng: random.Random) -> list[Trials]:
    """Without mount: a child that may not grow a file past 16 KiB (SQLite's -shm needs 32)."""
    child = (
        "import resource, sys; s, h = resource.getrlimit(resource.RLIMIT_FSIZE); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (16384, h)); "
        "from tagtool.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    rows = {name: Trials("intact project, simulated full disk", name) for name in ("info", "agreement", "merge")}
    for i in range(count):
        source, files = teams[rng.choice(SIZES)]
        before = digest(source)
        for name, argv in (
            ("info", ["info", source]),
            ("agreement", ["agreement", source]),
            ("merge", ["merge", source, *files]),
        ):

            def trial():
                done = subprocess.run(
                    [sys.executable, "-c", child, *map(str, argv)],
                    env=CHILD_ENV,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                ok = (
                    done.returncode == 0
                    if name != "merge"
                    else (done.returncode == 1 and "the disk is full" in done.stderr and str(source) in done.stderr)
                )
                need(ok and "damaged" not in done.stderr, f"{done.returncode} {done.stderr[-300:]!r}")
                need(digest(source) == before and leftovers(source.parent) == [], "changed or left files")
                return "as promised"

            rows[name].run(f"trial {i}", trial)
    return list(rows.values())


# ----------------------------------------------------------------------
# assign and export onto a full disk


def assign_onto_full_disk(base: Path, teams, count: int, rng: random.Random) -> list[Trials]:
    fresh, forced = Trials("assign onto a full disk", "new files"), Trials("assign onto a full disk", "--force")
    for i in range(count):
        n = rng.choice(SIZES)
        source, _ = teams[n]
        k = rng.randint(2, 6)
        names = ",".join(f"a{j}" for j in range(k))
        size = rng.randrange(64, 200 * k + 64) * 1024
        with tmpfs(base / f"assign{i}", size) as disk:
            argv = ["assign", source, "--annotators", names, "-o", disk / "team"]

            def new_files():
                code, _, err = cli(*argv)
                if code == 0:
                    need(len(os.listdir(disk / "team")) == k, "not every file")
                    return "all written"
                need(code == 1 and "the disk is full" in err and str(disk / "team") in err, f"{code} {err!r}")
                need(os.listdir(disk) == [], f"left {os.listdir(disk)}")
                remount(disk, f"size={size + 400 * k * 1024}")
                code, _, err = cli(*argv)  # the same command, no --force
                need(code == 0 and len(os.listdir(disk / "team")) == k, f"rerun: {code} {err!r}")
                return "none written, the rerun wrote all"

            fresh.run(f"{k} annotators, {size} bytes", new_files)

            def over_old():
                before = {p.name: digest(p) for p in (disk / "team").iterdir()}
                fill(disk, rng.randrange(0, 250 * k) * 1024)
                code, _, err = cli(*argv, "--seed", str(i + 1), "--force")
                after = {p.name: digest(p) for p in (disk / "team").iterdir()}
                need(leftovers(disk / "team") == [], "temporary files left")
                if code == 0:
                    need(after.keys() == before.keys(), "not every file")
                    return "all replaced"
                need(code == 1 and "the disk is full" in err, f"{code} {err!r}")
                need(after == before, "an earlier file changed")
                return "refused, earlier files kept"

            forced.run(f"{k} annotators", over_old)
    return [fresh, forced]


def export_onto_full_disk(base: Path, teams, count: int, rng: random.Random) -> list[Trials]:
    rows = Trials("export onto a full disk", "export -o")
    reference = {}
    for i in range(count):
        n = rng.choice(SIZES)
        source, _ = teams[n]
        ext = rng.choice([".jsonl", ".conll", ".conllu"])
        if (n, ext) not in reference:
            ref = base / f"ref{n}{ext}"
            need(cli("export", source, "-o", ref)[0] == 0, "reference export")
            reference[n, ext] = ref.read_bytes()
        size = rng.randrange(4, max(8, len(reference[n, ext]) // 1024 * 2)) * 1024
        with tmpfs(base / f"export{i}", size) as disk:
            out = disk / f"out{ext}"
            old = b"an earlier export\n" if rng.random() < 0.5 else None
            if old is not None:
                out.write_bytes(old)

            def trial():
                code, _, err = cli("export", source, "-o", out)
                need(leftovers(disk) == [], "temporary file left")
                if code == 0:
                    need(out.read_bytes() == reference[n, ext], "partial file")
                    return "written whole"
                need(code == 1 and f"{out}: cannot be written: the disk is full" in err, f"{code} {err!r}")
                need((out.read_bytes() if out.exists() else None) == old, "the earlier file changed")
                return "refused, named" + (", earlier file kept" if old else "")

            rows.run(f"{ext}, {size} bytes", trial)
    return [rows]


# ----------------------------------------------------------------------
# a read-only folder


def read_only_folder(base: Path, teams, count: int, rng: random.Random) -> list[Trials]:
    reads, writes = Trials("read-only folder", "project in it read"), Trials("read-only folder", "writes refused")
    for i in range(count):
        source, files = teams[rng.choice(SIZES)]
        with tmpfs(base / f"ro{i}", files_size(source, *files) + 256 * 1024) as disk:
            project = Path(shutil.copy(source, disk))
            copies = [Path(shutil.copy(f, disk)) for f in files]
            remount(disk, "ro")
            listing = sorted(os.listdir(disk))

            def read():
                for argv in (
                    ["info", project],
                    ["agreement", project],
                    ["export", project, "-o", base / "ro.jsonl"],
                    ["assign", project, "--annotators", "x,y", "-o", base / f"ro-out{i}"],
                ):
                    code, _, err = cli(*argv)
                    need(code == 0, f"{argv[0]}: {err!r}")
                need(sorted(os.listdir(disk)) == listing, "the folder changed")
                return "read"

            reads.run(f"trial {i}", read)

            def write():
                target = rng.choice([disk, disk / "team"])
                cases = [
                    (["merge", project, *copies], "read-only"),
                    (["assign", project, "--annotators", "x,y", "-o", target], f"the folder {disk} is read-only"),
                    (["export", project, "-o", disk / "x.conll"], f"the folder {disk} is read-only"),
                    (["import", "-p", disk / "new.tagproj", CONLL], f"the folder {disk} is read-only"),
                ]
                for argv, words in cases:
                    code, _, err = cli(*argv)
                    need(code == 1 and words in err and "Errno" not in err and ".tmp" not in err, f"{argv[0]}: {err!r}")
                need(sorted(os.listdir(disk)) == listing, "the folder changed")
                return "refused, named"

            writes.run(f"trial {i}", write)
    return [reads, writes]


# ----------------------------------------------------------------------


def run(folder: Path, seed: int, scale: float = 1.0) -> tuple[list[str], int]:
    """Every case's trials in ``folder``: the subsection's lines and the number of failed trials."""
    import logging

    logging.disable(logging.WARNING)  # the refused writes log what the trials check
    rng = random.Random(seed)
    counts = {k: max(2, round(v * scale)) for k, v in COUNTS.items()}
    folder = Path(folder)
    started = time.perf_counter()
    teams = team_projects(folder / "teams")
    mounted = can_mount(folder / "mnt")
    if mounted:
        trials = [
            *project_on_full_disk(folder / "mnt", teams, counts["project"], rng),
            *assign_onto_full_disk(folder / "mnt", teams, counts["assign"], rng),
            *export_onto_full_disk(folder / "mnt", teams, counts["export"], rng),
            *read_only_folder(folder / "mnt", teams, counts["read-only"], rng),
        ]
        how = (
            "Each trial mounted a tmpfs of a random size (root, `mount -t tmpfs -o size=N`), filled it to a "
            "random point with a file of zeros (0–60 KiB left; SQLite's `-shm` index needs 32 KiB), and ran "
            "the commands in one process; the read-only cases remounted it `ro`."
        )
    else:
        trials = project_on_full_disk_simulated(folder, teams, counts["project"], rng)
        how = (
            "`mount` was refused here, so a full disk under the project was simulated: a child process that "
            "may not grow any file past 16 KiB (`RLIMIT_FSIZE`). The assign, export and read-only cases "
            "need a real small file system and were not run (their tests simulate them)."
        )
    lines = [
        TITLE,
        "",
        f"An intact project on a full disk, `assign` and `export` onto one, and a read-only folder ({how} "
        f"{time.perf_counter() - started:.0f} s in all.)",
        "",
        *report(trials),
    ]
    return lines, sum(len(t.failures) for t in trials)


if __name__ == "__main__":
    from _adversarial import run_alone

    run_alone(run, __doc__)
