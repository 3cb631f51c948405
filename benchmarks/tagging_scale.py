"""Batch tagging at scale: tokens/s and peak memory of ``tagtool tag`` against the input's size.

Usage::

    python benchmarks/tagging_scale.py [--sizes 10000,100000,1000000,3000000] [--workers 1,2]
                                       [--dask-sizes SIZES] [--folder DIR]

Builds CoNLL column files of about 10k, 100k, 1M and 3M tokens from
``../shared/data/conll2000`` (train then test, repeated whole sentences
until the size is reached), trains a perceptron on CoNLL-2000 train with
``tagtool train``, then runs ``tagtool tag MODEL INPUT -o OUT --workers N``
as a fresh subprocess per size and worker count (and with ``--dask`` on a
``distributed.LocalCluster`` of 2 worker processes for ``--dask-sizes``).

Measured per run:

- CPU seconds (user + system) of the command and its descendants
  (sampled with psutil);
- wall seconds of the whole command (interpreter start, model loading and
  the sentence-counting pass included) and the command's own tagging
  seconds and tokens/s (its stderr summary: from opening the runner to the
  last byte written);
- peak RSS of the main process: the kernel's high-water mark ``VmHWM`` of
  its memory, read every 20 ms. Not ``ru_maxrss`` from ``wait4``: a child
  started by vfork + exec inherits the parent's high-water mark, so it
  reported this benchmark's own growing peak instead;
- peak RSS of the process tree: the sum of RSS over the command and all its
  descendants (for dask: plus the cluster's worker processes), sampled
  every 20 ms with psutil (shared library pages are counted once per
  process, so the sum overstates what the tree really holds). Without
  psutil both memory columns are left empty and CPU seconds are those of
  the main process (``wait4``).

Every run's output is hashed: all worker counts and dask must write the
same bytes for a size. Prints a markdown table and writes it to
``benchmarks/results/tagging_scale.md``. Memory must not grow with the
input: once the pipeline is full (a few batches of 2000 sentences in
flight, about 200k tokens) and the workers are warm, the 1M- and 3M-token
rows should match.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _results import load_average, machine_lines, write_keeping_analysis

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCES = (SHARED_DATA / "conll2000" / "train.txt", SHARED_DATA / "conll2000" / "test.txt")
TRAIN = SHARED_DATA / "conll2000" / "train.txt"
RESULT = Path(__file__).resolve().parent / "results" / "tagging_scale.md"
SUMMARY = re.compile(r"tagged (\d+) sentences, (\d+) tokens in ([0-9.]+) s")
SAMPLE_SECONDS = 0.02
#: The environment of the tagtool commands, taken before a LocalCluster starts:
#: distributed sets MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, PYTHONHASHSEED, ...
#: in os.environ for its workers, and the commands must not inherit them.
CLEAN_ENV = dict(os.environ)


def _int_list(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def _sentences(path: Path):
    """Raw sentence blocks (lines up to a blank line) and their token counts."""
    block: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.strip():
            block.append(line)
        elif block:
            yield "".join(block) + "\n", len(block)
            block = []
    if block:
        yield "".join(block) + "\n", len(block)


def build_input(path: Path, n_tokens: int) -> tuple[int, int]:
    """Write whole sentences of :data:`SOURCES`, repeated, until ``n_tokens`` is reached."""
    blocks = [b for source in SOURCES for b in _sentences(source)]
    written_tokens = written_sentences = 0
    with open(path, "w", encoding="utf-8") as fh:
        while written_tokens < n_tokens:
            for text, size in blocks:
                fh.write(text)
                written_tokens, written_sentences = written_tokens + size, written_sentences + 1
                if written_tokens >= n_tokens:
                    break
    return written_sentences, written_tokens


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _tagtool(*args) -> list[str]:
    return [sys.executable, "-m", "tagtool.cli", *map(str, args)]


class TreeSampler:
    """Peak of the summed RSS of a process, its descendants and ``extra`` pids (psutil).

    Also the CPU seconds each process used while sampled (``cpu``: pid ->
    seconds; an ``extra`` process counts from the first sample on).
    """

    def __init__(self, pid: int, extra: tuple[int, ...] = ()):
        self.pid, self.extra, self.peak = pid, extra, 0
        self.cpu: dict[int, float] = {}
        self.main_hwm = 0  # kernel's peak RSS of the main process (VmHWM), bytes
        self._cpu_start: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        import psutil

        try:
            root = psutil.Process(self.pid)
            extra = [psutil.Process(p) for p in self.extra]
        except psutil.Error:
            return
        while not self._stop.is_set():
            total = 0
            try:
                processes = [root, *root.children(recursive=True), *extra]
            except psutil.Error:
                break
            for process in processes:
                try:
                    total += process.memory_info().rss
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                used = times.user + times.system
                if process.pid in self.extra:
                    used -= self._cpu_start.setdefault(process.pid, used)
                self.cpu[process.pid] = used
            self.peak = max(self.peak, total)
            self.main_hwm = max(self.main_hwm, _vm_hwm(self.pid))
            time.sleep(SAMPLE_SECONDS)


def _vm_hwm(pid: int) -> int:
    """The kernel's high-water mark of a process's RSS, in bytes (Linux; 0 elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _have_psutil() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


def run_tag(model: Path, source: Path, out: Path, options: list[str], extra_pids=()) -> dict:
    """One ``tagtool tag`` subprocess: times, peak memory, output hash."""
    started = time.perf_counter()
    process = subprocess.Popen(
        _tagtool("tag", model, source, "-o", out, *options),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=CLEAN_ENV,
    )
    sampler = TreeSampler(process.pid, tuple(extra_pids)) if _have_psutil() else None
    if sampler:
        sampler.__enter__()
    # Read stderr before waiting, so a full pipe cannot block the command.
    err = process.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    # (usage.ru_maxrss is not the command's peak: see the module docstring)
    wall = time.perf_counter() - started
    if sampler:
        sampler.__exit__(None, None, None)
    if process.returncode != 0:
        raise SystemExit(f"tagtool tag {' '.join(options)} failed ({process.returncode}):\n{err}")
    match = SUMMARY.search(err)
    sentences, tokens, seconds = int(match[1]), int(match[2]), float(match[3])
    digest = _sha256(out)
    out.unlink()
    return {
        "sentences": sentences,
        "tokens": tokens,
        "wall": wall,
        "seconds": seconds,
        "tokens_per_s": tokens / seconds,
        "tree_mb": sampler.peak / 2**20 if sampler else None,
        "sha": digest,
        "hwm_mb": sampler.main_hwm / 2**20 if sampler else None,
        "cpu": sum(sampler.cpu.values()) if sampler else usage.ru_utime + usage.ru_stime,
    }


def _local_cluster():
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("distributed not installed: no dask rows", file=sys.stderr)
        return None
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(cluster) as client:
        pids = tuple(client.run(os.getpid).values())
    return cluster, pids


def _machine() -> list[str]:
    return machine_lines(f"; load average at start {load_average()}: the machine is shared, so seconds are noisy")


def _row(size: int, mode: str, r: dict, identical: str) -> str:
    tree = f"{r['tree_mb']:.0f}" if r["tree_mb"] is not None else "–"
    hwm = f"{r['hwm_mb']:.0f}" if r["hwm_mb"] else "–"
    return (
        f"| {size:,} | {mode} | {r['sentences']:,} | {r['tokens']:,} | {r['wall']:.1f} | {r['seconds']:.1f} | "
        f"{r['tokens_per_s']:,.0f} | {r['cpu']:.1f} | {hwm} | {tree} | {identical} |"
    )


def steady_state(by_mode: dict[str, dict[int, dict]]) -> list[str]:
    """Tokens/s between the two largest sizes of each mode: start-up costs cancel out."""
    lines = [
        "Steady-state throughput: extra tokens over extra tagging seconds (and over extra CPU seconds) "
        "between the two largest inputs of a mode: process start, model loading and JIT compilation "
        "cancel out.",
        "",
        "| mode | between | tokens/s | tokens per CPU s |",
        "|---|---|---:|---:|",
    ]
    for mode, runs in by_mode.items():
        if len(runs) < 2:
            continue
        small, big = sorted(runs)[-2:]
        a, b = runs[small], runs[big]
        extra = b["tokens"] - a["tokens"]
        rate = extra / max(b["seconds"] - a["seconds"], 1e-9)
        per_cpu = extra / max(b["cpu"] - a["cpu"], 1e-9)
        lines.append(f"| {mode} | {small:,} and {big:,} tokens | {rate:,.0f} | {per_cpu:,.0f} |")
    return lines


def measure(args: argparse.Namespace, folder: Path) -> tuple[str, list[str], dict, bool]:
    """Train the tagger, build the inputs in ``folder`` and run every size and mode."""
    model = folder / "perceptron.tagger"
    print(f"training the tagger ({TRAIN}) ...", file=sys.stderr)
    train = subprocess.run(
        _tagtool("train", TRAIN, "--learner", "perceptron", "--set", f"max_iter={args.epochs}", "-o", model),
        capture_output=True,
        text=True,
        check=True,
    )
    trained = train.stdout.strip().removeprefix(f"wrote {model}: ")

    cluster = _local_cluster() if args.dask_sizes else None
    rows, hashes_ok, by_mode = [], True, {}
    try:
        for size in args.sizes:
            source = folder / f"input_{size}.txt"
            build_input(source, size)
            results = []
            for workers in args.workers:
                print(f"{size:,} tokens, {workers} worker(s) ...", file=sys.stderr)
                results.append(
                    (
                        f"{workers} worker{'s' if workers > 1 else ''}",
                        run_tag(model, source, folder / "out.txt", ["--workers", str(workers)]),
                    )
                )
            if cluster and size in args.dask_sizes:
                print(f"{size:,} tokens, dask ...", file=sys.stderr)
                results.append(
                    (
                        "dask LocalCluster (2 processes)",
                        run_tag(
                            model, source, folder / "out.txt", ["--dask", cluster[0].scheduler_address], cluster[1]
                        ),
                    )
                )
            reference = results[0][1]["sha"]
            for mode, result in results:
                by_mode.setdefault(mode, {})[size] = result
                same = result["sha"] == reference
                hashes_ok &= same
                rows.append(
                    _row(size, mode, result, "reference" if result is results[0][1] else ("✓" if same else "✗ DIFFERS"))
                )
                print(rows[-1])
    finally:
        if cluster:
            cluster[0].close()
    return trained, rows, by_mode, hashes_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_int_list, default=[10_000, 100_000, 1_000_000, 3_000_000])
    parser.add_argument("--workers", type=_int_list, default=[1, 2])
    parser.add_argument(
        "--dask-sizes",
        type=_int_list,
        default=None,
        help="sizes also run on a dask LocalCluster of 2 processes (default: every size; '' for none)",
    )
    parser.add_argument("--epochs", type=int, default=5, help="perceptron epochs of the tagger (default 5)")
    parser.add_argument("--folder", type=Path, default=None, help="keep inputs and model here")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    if args.dask_sizes is None:
        args.dask_sizes = args.sizes

    if args.folder is not None:
        args.folder.mkdir(parents=True, exist_ok=True)
        trained, rows, by_mode, hashes_ok = measure(args, args.folder)
    else:
        with tempfile.TemporaryDirectory(prefix="tagging_scale-") as folder:
            trained, rows, by_mode, hashes_ok = measure(args, Path(folder))

    command = "python benchmarks/tagging_scale.py" + (f" {' '.join(argv)}" if argv else "")
    lines = [
        "# Batch tagging at scale: `tagtool tag` against input size and workers",
        "",
        f"Command: `{command}`",
        "",
        *_machine(),
        "",
        f"Tagger: `tagtool train ../shared/{TRAIN.relative_to(SHARED_DATA.parent)} --learner perceptron "
        f"--set max_iter={args.epochs}` — {trained}.",
        "",
        "Inputs: whole sentences of CoNLL-2000 train then test (3 columns), repeated until the size is "
        "reached. Each row is one fresh `python -m tagtool.cli tag MODEL INPUT -o OUT [--workers N | "
        "--dask ADDRESS]` subprocess (default batch size 2000 sentences; the progress bar's counting pass "
        "included). *wall s*: the whole command; *tag s* and *tokens/s*: the command's own summary "
        "(runner start, counting pass, tagging, writing). *CPU s*: user + system seconds summed over the "
        "command and its descendants (dask: plus what the cluster workers used during the run), sampled with "
        "psutil: on a shared machine the wall times depend on the other load, this does not. "
        "*peak RSS, main*: the kernel's high-water mark of "
        "the `tagtool` process's RSS (`VmHWM` of /proc/PID/status, read every 20 ms; not `ru_maxrss`, which "
        "a vfork-started child inherits from its parent, here this benchmark). "
        "With workers the main process only reads, ships and writes, and never "
        "loads the tagger. *peak RSS, tree*: the "
        "sum over the command and its descendants sampled every 20 ms with psutil (dask rows: plus the two "
        "cluster worker processes, which hold the tagger); a shared page counts in every process that maps "
        "it. *output*: "
        "sha256 of the output equal to the 1-worker run's.",
        "",
        "| tokens | mode | sentences | tokens read | wall s | tag s | tokens/s | CPU s | peak RSS, main (MB) "
        "| peak RSS, tree (MB) | output |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
        *steady_state(by_mode),
    ]
    print("\n".join(lines[-len(rows) - 2 :]))
    write_keeping_analysis(args.out, lines)
    if not hashes_ok:
        print("error: outputs differ between modes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
