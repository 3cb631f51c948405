"""File-safety cases 1, 2, 3 and 5, as randomized trials through ``tagtool`` in this process.

1. one-label corpora in every format: import, then export; every label kept;
2. an output that names an input (same path, relative, ``./x``, ``sub/../x``,
   symlink, hard link, symlinked folder) of export, import, train, tag,
   experiment and simulate: refused in one line, the input unchanged;
3. outputs that are special files (symlink, dangling symlink, FIFO with a
   reader, a character device node made inside the temporary folder,
   folder): the target stays what it was;
5. a project in a read-only folder (simulated: root ignores file modes) and
   read-only commands: opened read-only, no ``-wal``/``-shm`` left.
"""

from __future__ import annotations

import os
import random
import stat
import threading
from pathlib import Path

from _safety_trials import Trials, cli, cwd, digest, fresh_folder, need, one_line_error

WORDS = ["a", "b", "Paris", "naïve", "東京", "1.5", "-", "'s", "x_y", "rose", "It", "%", "Ünïcode", "end."]
ONE_LABELS = ["O", "NN", "X", "PER", "é", "label-with-dash", "B-NP"]
#: Format, file suffix, writer options of the one-label trials.
FORMATS = [
    ("conll", ".conll", {}),
    ("conllu", ".conllu", {}),
    ("jsonl", ".jsonl", {}),
    ("csv", ".csv", {}),
    ("tsv", ".tsv", {}),
]


# ---------------------------------------------------------------------------
# case 1


def one_label_corpora(base: Path, n: int, rng: random.Random) -> list[Trials]:
    trials = {name: Trials("1 one-label corpus", f"`{name}`: import, set again, export") for name, _, _ in FORMATS}
    for i in range(n):
        fmt, suffix, options = FORMATS[i % len(FORMATS)]
        label = rng.choice(ONE_LABELS)
        sizes = [rng.randint(1, 6) for _ in range(rng.randint(1, 5))]
        trials[fmt].run(
            f"label {label!r}, sentences {sizes}",
            lambda: _one_label(fresh_folder(base, "one"), fmt, suffix, options, label, sizes, rng),
        )
    return list(trials.values())


def _one_label(folder: Path, fmt: str, suffix: str, options: dict, label: str, sizes: list[int], rng) -> str:
    from tagtool.core import Corpus, LabelSet, Sentence
    from tagtool.store.formats import read_corpus, write_corpus
    from tagtool.store.project import Project

    sentences = [
        Sentence(tuple(rng.choice(WORDS) for _ in range(k)), tuple(frozenset({label}) for _ in range(k))) for k in sizes
    ]
    data = folder / f"one{suffix}"
    write_corpus(Corpus.from_sentences(sentences, labels=LabelSet([label])), data, fmt, **options)
    project = folder / "one.tagproj"
    code, _, err = cli("import", data, "-p", project)
    need(code == 0, err)
    with Project.open(project) as p:
        need(p.listing.annotation_counts()["full"] == sum(sizes), f"{p.listing.annotation_counts()} after import")
        sid = p.sentence_ids()[0]
        p.set_annotation(sid, 0, [])
        p.set_annotation(sid, 0, [label])
        need(p.annotations(sid)[0] == frozenset({label}), "setting the label again did nothing")
    out = folder / f"out{suffix}"
    code, _, err = cli("export", project, "-o", out)
    need(code == 0, err)
    back = read_corpus(out, format=fmt)
    need([s.tokens for s in back] == [s.tokens for s in sentences], "tokens changed")
    need(all(a == frozenset({label}) for s in back for a in s.annotations), "a label was lost")
    return "every label kept"


# ---------------------------------------------------------------------------
# case 2

#: command -> (argv with OUT for the output, the inputs OUT may name)
COMMANDS = {
    "export": (["export", "{project}", "-o", "OUT"], ["project"]),
    "import": (["import", "{data}", "-p", "OUT"], ["data"]),
    "train": (
        ["train", "{data}", "--learner", "perceptron", "--unlabeled", "{text}", "--warm-start", "{model}", "-o", "OUT"],
        ["data", "text", "model"],
    ),
    "tag": (["tag", "{model}", "{text}", "-o", "OUT"], ["model", "text"]),
    "experiment --json": (["experiment", "--learner", "perceptron", "--data", "{data}", "--json", "OUT"], ["data"]),
    "simulate --json": (
        [
            "simulate",
            "--learner",
            "perceptron",
            "--data",
            "{data}",
            "--test",
            "{text}",
            "--strategy",
            "random",
            "--json",
            "OUT",
        ],
        ["data", "text"],
    ),
    "simulate --plot": (
        [
            "simulate",
            "--learner",
            "perceptron",
            "--data",
            "{data}",
            "--test",
            "{text}",
            "--strategy",
            "random",
            "--plot",
            "OUT",
        ],
        ["data", "text"],
    ),
}
NAMINGS = [
    "same path",
    "absolute for relative",
    "relative for absolute",
    "./x",
    "sub/../x",
    "symlink",
    "hard link",
    "symlinked folder",
]


def outputs_over_inputs(folder: Path, files: dict[str, Path], n: int, rng: random.Random) -> list[Trials]:
    trials = {c: Trials("2 output over an input", f"`{c}`") for c in COMMANDS}
    (folder / "sub").mkdir(exist_ok=True)
    alias = folder.parent / "alias"
    if not alias.is_symlink():
        alias.symlink_to(folder)
    for _ in range(n):
        command = rng.choice(list(COMMANDS))
        victim = rng.choice(COMMANDS[command][1])
        naming = rng.choice(NAMINGS)
        trials[command].run(
            f"output names {victim} by {naming}", lambda: _over_input(folder, files, command, victim, naming)
        )
    return list(trials.values())


def _spell(folder: Path, files: dict[str, Path], victim: str, naming: str) -> tuple[dict, str, list[Path]]:
    """How the inputs and the output are written on the command line, and links to remove after."""
    relative = {k: p.name for k, p in files.items()}
    absolute = {k: str(p) for k, p in files.items()}
    name, made = files[victim].name, []
    if naming == "same path":
        return absolute, absolute[victim], made
    if naming == "absolute for relative":
        return relative, absolute[victim], made
    if naming == "relative for absolute":
        return absolute, name, made
    if naming == "./x":
        return relative, f"./{name}", made
    if naming == "sub/../x":
        return absolute, f"sub/../{name}", made
    if naming == "symlinked folder":
        return absolute, str(folder.parent / "alias" / name), made
    link = folder / f"link-{name}"
    os.symlink(files[victim], link) if naming == "symlink" else os.link(files[victim], link)
    return absolute, link.name, [link]


def _over_input(folder: Path, files: dict[str, Path], command: str, victim: str, naming: str) -> str:
    before = {p.name: digest(p) for p in folder.iterdir() if p.is_file()}
    inputs, out, made = _spell(folder, files, victim, naming)
    argv = [inputs.get(a[1:-1], a) if a.startswith("{") else (out if a == "OUT" else a) for a in COMMANDS[command][0]]
    try:
        with cwd(folder):
            code, _, err = cli(*argv)
        one_line_error(code, err, "would overwrite")
        for link in made:
            need(os.path.islink(link) == (naming == "symlink"), f"{link} changed kind")
    finally:
        for link in made:
            link.unlink()
    after = {p.name: digest(p) for p in folder.iterdir() if p.is_file()}
    need(after == before, f"files changed: {set(after.items()) ^ set(before.items())}")
    return "refused, inputs unchanged"


# ---------------------------------------------------------------------------
# case 3

TARGETS = ["symlink", "dangling symlink", "FIFO", "device node", "folder"]
SPECIAL_COMMANDS = ["tag", "export", "train", "import"]


def special_files(base: Path, files: dict[str, Path], n: int, rng: random.Random) -> list[Trials]:
    references = _references(base / "reference", files)
    trials = {t: Trials("3 special file as output", t) for t in TARGETS}
    for i in range(n):
        target = TARGETS[i % len(TARGETS)]
        if target == "device node" and os.geteuid() != 0:
            continue  # mknod of a device needs root
        command = rng.choice(SPECIAL_COMMANDS)
        trials[target].run(
            f"`{command}` -o {target}",
            lambda: _special(fresh_folder(base, "special"), files, references, command, target),
        )
    return [t for t in trials.values() if t.tried]


def _argv(command: str, files: dict[str, Path], out) -> list:
    return {
        "tag": ["tag", files["model"], files["text"], "-o", out],
        "export": ["export", files["project"], "-o", out, "--format", "conll"],
        "train": ["train", files["text"], "--learner", "perceptron", "--set", "max_iter=1", "-o", out],
        "import": ["import", files["text"], "-p", out],
    }[command]


def _references(folder: Path, files: dict[str, Path]) -> dict[str, bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    refs = {}
    for command in ("tag", "export"):
        out = folder / f"{command}.out"
        code, _, err = cli(*_argv(command, files, out))
        need(code == 0, err)
        refs[command] = out.read_bytes()
    return refs


def _make_target(folder: Path, target: str) -> tuple[Path, Path | None]:
    """The special output and, for links, the file it points to."""
    out = folder / "out"
    if target in ("symlink", "dangling symlink"):
        (folder / "real").mkdir()
        real = folder / "real" / "file"
        if target == "symlink":
            real.write_bytes(b"old content\n")
        out.symlink_to(real)
        return out, real
    if target == "FIFO":
        os.mkfifo(out)
    elif target == "device node":
        os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of its own, never /dev/null
    else:
        out.mkdir()
        (out / "inside").write_text("kept")
    return out, None


def _special(folder: Path, files: dict[str, Path], refs: dict, command: str, target: str) -> str:
    out, real = _make_target(folder, target)
    before = os.lstat(out)
    received: list[bytes] = []
    reader = None
    if target == "FIFO":
        reader = threading.Thread(target=lambda: received.append(out.read_bytes()), daemon=True)
        reader.start()
    code, _, err = cli(*_argv(command, files, out))
    if reader is not None:
        _release(out, reader)
    after = os.lstat(out)
    need(stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode), f"{target} became {stat.filemode(after.st_mode)}")
    need(after.st_ino == before.st_ino, f"{target} was replaced (new inode)")
    if target in ("symlink", "dangling symlink"):
        need(os.readlink(out) == str(real), "the link points elsewhere")
        need(
            sorted(os.listdir(folder)) == ["out", "real"] and os.listdir(folder / "real") == ["file"],
            f"left: {os.listdir(folder)} {os.listdir(folder / 'real')}",
        )
    else:
        need(os.listdir(folder) == ["out"], f"left beside it: {os.listdir(folder)}")
    return _special_outcome(command, target, code, err, real, received, refs, out)


def _release(fifo: Path, reader: threading.Thread) -> None:
    """A reader still waiting for a writer gets an empty one (the command never opened the FIFO)."""
    reader.join(0.2)
    if reader.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        reader.join(10)
    need(not reader.is_alive(), "the FIFO reader hangs")


def _whole(command: str, data: bytes) -> bool:
    """A tagger file that loads (train), or a project file (import)."""
    if command == "train":
        from tagtool.tagger.model import Tagger

        Tagger.from_bytes(data)
        return True
    return data.startswith(b"SQLite format 3\x00")


def _special_outcome(command, target, code, err, real, received, refs, out) -> str:
    if target == "folder":
        one_line_error(code, err)
        need(os.listdir(out) == ["inside"], "the folder's contents changed")
        return "refused, folder kept"
    if command == "import" and target in ("FIFO", "device node"):
        one_line_error(code, err, "not a file")
        return "refused, node kept"
    if command == "import" and target == "symlink":  # it names a file that is no project: not imported into
        one_line_error(code, err, "not a tagtool project")
        need(real.read_bytes() == b"old content\n", "the link's target changed")
        return "refused, target kept"
    need(code == 0, f"exit {code}: {err[-300:]!r}")
    if target in ("symlink", "dangling symlink"):
        data = real.read_bytes()
        need(data == refs[command] if command in refs else _whole(command, data), "the target holds other bytes")
        return "written through the link"
    if target == "FIFO":
        need(
            received == [refs[command]] if command in refs else _whole(command, received[0] if received else b""),
            f"the reader got {len(received[0]) if received else 'nothing'}",
        )
        return "written into the FIFO"
    return "written to the device"


# ---------------------------------------------------------------------------
# case 5


def read_only_folders(base: Path, n: int, rng: random.Random) -> list[Trials]:
    trials = {kind: Trials("5 read-only", kind) for kind in ("folder cannot be written", "read-only command")}
    for i in range(n):
        kind = list(trials)[i % 2]
        ops = ["info", "export", "open readonly"] + (["open"] if kind.startswith("folder") else [])
        op = rng.choice(ops)
        size = (rng.randint(1, 200), rng.randint(1, 20))
        trials[kind].run(
            f"{op} of a project of {size} sentences×tokens",
            lambda: _read_only(fresh_folder(base, "ro"), kind, op, size, rng),
        )
    return list(trials.values())


def _read_only(folder: Path, kind: str, op: str, size: tuple[int, int], rng) -> str:
    from project_samples import LABELS, plain_corpus

    from tagtool.errors import ProjectError
    from tagtool.store import dbfile
    from tagtool.store.project import Project

    path = folder / "p" / "p.tagproj"
    path.parent.mkdir()
    with Project.create(path, plain_corpus(*size)) as p:
        for sid in rng.sample(p.sentence_ids(), min(5, size[0])):
            p.set_annotation(sid, 0, [rng.choice(LABELS.names)])
    before = digest(path)
    mocked = kind == "folder cannot be written"
    real_writable, real_access = dbfile.writable, os.access
    if mocked:  # as tests/store/test_project_readonly.py: root ignores modes, so the probe says no
        inside = str(path.parent)
        dbfile.writable = lambda p: False if str(p).startswith(inside) else real_writable(p)
        os.access = lambda p, mode, **kw: mode != os.W_OK if str(p).startswith(inside) else real_access(p, mode, **kw)
    try:
        outcome = _read_only_op(path, op, mocked, folder, Project, ProjectError)
    finally:
        dbfile.writable, os.access = real_writable, real_access
    need(os.listdir(path.parent) == ["p.tagproj"], f"left beside it: {os.listdir(path.parent)}")
    need(digest(path) == before, "the project file changed")
    return outcome


def _read_only_op(path: Path, op: str, mocked: bool, folder: Path, Project, ProjectError) -> str:
    if op in ("info", "export"):
        argv = ["info", path] if op == "info" else ["export", path, "-o", folder / "out.conll"]
        code, _, err = cli(*argv)
        need(code == 0 and "damaged" not in err, f"exit {code}: {err[-300:]!r}")
        return f"`{op}` ran"
    with Project.open(path, readonly=op == "open readonly") as p:
        need(p.readonly, "opened read-write")
        if mocked and op == "open":
            need("cannot be written" in (p.readonly_reason or ""), f"reason {p.readonly_reason!r}")
        p.corpus()
        try:
            p.set_annotation(p.sentence_ids()[0], 0, ["O"])
        except ProjectError:
            return "opened read-only, edit refused"
        raise AssertionError("an edit of a read-only project went through")
