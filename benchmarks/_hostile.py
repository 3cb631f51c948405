"""Full-size hostile inputs (file-safety cases 6 and 7), each run as ``tagtool`` in a child process.

Tagger files (``tagtool tag HOSTILE.tagger small.txt``): a ``meta.json``
announcing ``window = 10**9`` or ``n_hash = 2**31``, a 2 GB ``meta.json``,
a nested zip bomb of a few KB that inflates to 4 GiB.  Corpora
(``tagtool tag`` for lines, sentences and tokens; ``tagtool import`` for
labels and tables, which ``tag`` does not read): a 100 MB line, a
35-million-token sentence, a 50 MB token, 10,000 distinct labels, a 40 MB
CSV.  Every child runs under an address-space limit (``ulimit -v``) and a
time limit; its outcome, wall time and peak RSS (``wait4``) are recorded.
"""

from __future__ import annotations

import io
import json
import os
import resource
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Address space of a child (bytes): as ``ulimit -v 6000000``.
ADDRESS_LIMIT = 6_000_000 * 1024
TIME_LIMIT = 120
_MAIN = "import sys; from tagtool.cli.main import main; sys.exit(main(sys.argv[1:]))"


# ---------------------------------------------------------------------------
# tagger files


def _tiny_tagger_bytes(**features) -> bytes:
    import numpy as np

    from tagtool.core.corpus import Corpus, Sentence
    from tagtool.core.features import FeatureExtractor
    from tagtool.learn.chain import ChainModel
    from tagtool.tagger.model import Tagger

    corpus = Corpus.from_sentences([Sentence(("a", "b"), (frozenset({"X"}), frozenset({"Y"})))])
    extractor = FeatureExtractor(min_count=1, **features).fit(corpus)
    model = ChainModel.zeros(corpus.labels, extractor.n_features_, np.zeros(extractor.n_features_, np.int8), 1)
    return Tagger(corpus.labels, extractor, None, model).to_bytes()


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def _with_params(data: bytes, **params) -> bytes:
    members = _members(data)
    meta = json.loads(members["meta.json"])
    meta["features"]["params"].update(params)
    members["meta.json"] = json.dumps(meta).encode()
    return _zip(members)


def _deflate_stream(head: bytes, n_fill: int, fill: bytes, tail: bytes = b"") -> tuple[bytes, int, int]:
    """Raw deflate of ``head + fill * n_fill + tail`` made in chunks: (compressed, crc, size)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts, crc = [compressor.compress(head)], zlib.crc32(head)
    chunk = fill * (2**20 // len(fill))
    left = n_fill * len(fill)
    while left:
        piece = chunk[: min(left, len(chunk))]
        parts.append(compressor.compress(piece))
        crc, left = zlib.crc32(piece, crc), left - len(piece)
    parts += [compressor.compress(tail), compressor.flush()]
    return b"".join(parts), zlib.crc32(tail, crc), len(head) + n_fill * len(fill) + len(tail)


def _raw_zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of already deflated members ``(name, compressed, crc, size)`` (sizes below 4 GiB)."""
    body, central = b"", b""
    for name, deflated, crc, size in entries:
        name_b = name.encode()
        fields = (8, 0, 0x21, crc, len(deflated), size, len(name_b))
        central += struct.pack("<4s4H2H3L5H2L", b"PK\x01\x02", 20, 20, 0, *fields, 0, 0, 0, 0, 0, len(body)) + name_b
        body += struct.pack("<4s3H2H3L2H", b"PK\x03\x04", 20, 0, *fields, 0) + name_b + deflated
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(body), 0)
    return body + central + end


def _zip_bomb(tagger: bytes) -> bytes:
    """The tagger with a weights.npy of 4 GiB - 1 KiB of zeros, deflated inside the deflated npz."""
    import numpy as np

    header = io.BytesIO()
    n = (4 * 2**30 - 1024) // 8
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
    npy = _deflate_stream(header.getvalue(), n * 8, b"\0")
    members = _members(tagger)
    inner = _members(members["weights.npz"])
    entries = [(k, *_deflate_stream(v, 0, b"\0")) if k != "weights.npy" else (k, *npy) for k, v in inner.items()]
    members["weights.npz"] = _raw_zip(entries)
    return _zip(members)


def _huge_meta(tagger: bytes, size: int = 2 * 10**9) -> bytes:
    """The tagger with a valid ``meta.json`` of ``size`` bytes (padded with a long string)."""
    members = _members(tagger)
    meta = members["meta.json"]
    head, tail = meta[: meta.rindex(b"}")] + b', "padding": "', b'"}'
    stream = _deflate_stream(head, size - len(head) - len(tail), b" ", tail)
    weights = _deflate_stream(members["weights.npz"], 0, b"\0")
    return _raw_zip([("meta.json", *stream), ("weights.npz", *weights)])


def tagger_inputs(folder: Path) -> list[tuple[str, Path]]:
    tiny = _tiny_tagger_bytes()
    files = {
        "tagger: `meta.json` says `window = 10**9`": _with_params(tiny, window=10**9),
        "tagger: hashing, `n_hash = 2**31`, weights of 2 rows": _with_params(
            _tiny_tagger_bytes(hashing=True, n_hash=2), n_hash=2**31
        ),
        "tagger: nested zip bomb (`.npy` of 4 GiB, deflated twice)": _zip_bomb(tiny),
        "tagger: `meta.json` of 2 GB": _huge_meta(tiny),
    }
    out = []
    for i, (name, data) in enumerate(files.items()):
        path = folder / f"hostile{i}.tagger"
        path.write_bytes(data)
        out.append((f"{name} ({_size(len(data))} file)", path))
    return out


# ---------------------------------------------------------------------------
# corpora


def _write_repeated(path: Path, head: bytes, fill: bytes, n: int, tail: bytes = b"") -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        chunk = fill * max(1, 2**20 // len(fill))
        per = len(chunk) // len(fill)
        for _ in range(n // per):
            fh.write(chunk)
        fh.write(fill * (n % per) + tail)
    return path


def corpus_inputs(folder: Path) -> list[tuple[str, str, Path]]:
    """``(description, command, path)``: command is ``tag`` or ``import``."""
    mb = 10**6
    return [
        ("100 MB line (text)", "tag", _write_repeated(folder / "line.txt", b"a\n", b"w ", 50 * mb, b"\n")),
        (
            "35-million-token sentence (column file)",
            "tag",
            _write_repeated(folder / "sentence.conll", b"", b"w\n", 35 * mb),
        ),
        ("50 MB token (column file)", "tag", _write_repeated(folder / "token.conll", b"a\n\n", b"x", 50 * mb, b"\n")),
        (
            "10,000 distinct labels (column file)",
            "import",
            _write_repeated(folder / "labels.conll", "".join(f"w L{i}\n\n" for i in range(10_000)).encode(), b"\n", 1),
        ),
        ("40 MB CSV", "import", _table(folder / "table.csv", 40 * mb)),
    ]


def _table(path: Path, size: int) -> Path:
    """A valid CSV table of about ``size`` bytes: sentences of 20 tokens, 50 labels."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("sentence,token,label\n")
        i = 0
        while fh.tell() < size:
            fh.write("".join(f"{(i + k) // 20},w{(i + k) % 997},L{(i + k) % 50}\n" for k in range(10_000)))
            i += 10_000
    return path


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


# ---------------------------------------------------------------------------
# running


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def run_child(argv: list[str], cwd: Path, named: str) -> tuple[str, float, int]:
    """Run ``tagtool argv``: (outcome, seconds, peak RSS in bytes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _MAIN, *argv],
        cwd=cwd,
        env=env,
        preexec_fn=_limit,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _, err = child.communicate(timeout=TIME_LIMIT)
        timed_out = False
    except subprocess.TimeoutExpired:
        child.kill()
        _, err = child.communicate()
        timed_out = True
    seconds = time.perf_counter() - started
    rss = _peak_rss(child)
    text = err.decode("utf-8", "replace").strip().replace(f"{cwd}/", "")
    last = text.splitlines()[-1] if text else ""
    if timed_out:
        outcome = f"other: killed after {TIME_LIMIT} s"
    elif "Traceback" in text or "MemoryError" in text:
        outcome = f"other: {last[:120]}"
    elif child.returncode == 0:
        outcome = "processed"
    elif last.startswith("tagtool: error:") and named in last:
        outcome = f"named error: {last.removeprefix('tagtool: error: ')[:160]}"
    else:
        outcome = f"other (exit {child.returncode}): {last[:120]}"
    return outcome, seconds, rss


def _peak_rss(child: subprocess.Popen) -> int:
    # communicate() already reaped the child; its rusage went to RUSAGE_CHILDREN, whose
    # ru_maxrss is the largest of any child so far: the rows run smallest first.
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def hostile_sizes(folder: Path, trials: int) -> list[str]:
    """One table row per hostile input: trials, outcome, time and peak RSS (worst of the trials)."""
    folder.mkdir(parents=True, exist_ok=True)
    small = folder / "small.txt"
    small.write_text("a b\n", encoding="utf-8")
    cases = [
        (name, ["tag", str(path), str(small), "-o", str(folder / "out.txt")], path.name)
        for name, path in tagger_inputs(folder)
    ]
    good = folder / "good.tagger"
    good.write_bytes(_tiny_tagger_bytes())
    cases.insert(
        0,
        (
            "baseline: a valid tagger (1 KiB), `tagtool tag` of one line",
            ["tag", str(good), str(small), "-o", str(folder / "out.txt")],
            good.name,
        ),
    )
    for name, command, path in corpus_inputs(folder):
        argv = (
            ["tag", str(good), str(path), "-o", str(folder / "out.txt")]
            if command == "tag"
            else ["import", str(path), "-p", str(folder / f"p{len(cases)}.tagproj")]
        )
        cases.append((f"{name} ({_size(path.stat().st_size)}), `tagtool {command}`", argv, path.name))
    rows = []
    for name, argv, named in cases:
        results = [_isolated(argv, folder, named) for _ in range(trials)]
        outcomes = sorted({r[0] for r in results})
        ok = all(o.startswith(("named error", "processed")) for o in outcomes)
        worst_time, worst_rss = max(r[1] for r in results), max(r[2] for r in results)
        rows.append(
            f"| {name} | {trials} | {'<br>'.join(outcomes)} {'✓' if ok else '✗'} "
            f"| {worst_time:.2f} s | {worst_rss / 2**20:.0f} MiB |"
        )
        print(rows[-1], file=sys.stderr)
    return rows


def _isolated(argv: list[str], folder: Path, named: str) -> tuple[str, float, int]:
    """:func:`run_child` from a fresh process, so that the peak RSS is this child's alone."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from _hostile import run_child; "
        "from pathlib import Path; print(json.dumps(run_child(sys.argv[4:], Path(sys.argv[2]), sys.argv[3])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent), str(folder), named, *argv],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    outcome, seconds, rss = json.loads(out.stdout.strip().splitlines()[-1])
    return outcome, seconds, rss


HEADER = ["| hostile input | trials | outcome | time (worst) | peak RSS (worst) |", "|---|---|---|---|---|"]
