"""warm_kernels compiles every kernel the app's first model of the default learner needs: after it, the
first training run and its suggestions compile nothing more (checked in a fresh process: a kernel loaded
from numba's cache counts as compiled, so the check holds on a warm cache too), and no kernel twice for
arguments that differ only in being read-only or literal. The child process that fills numba's cache
before the window opens, and the warm-up that waits for it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"

SCRIPT = textwrap.dedent("""
    import json, sys, types
    import numba.core.registry
    from numba.core.dispatcher import Dispatcher
    from tagtool.services.warmup import warm_kernels

    def compiled():
        seen = {}
        for name, module in list(sys.modules.items()):
            if not name.startswith("tagtool") or not isinstance(module, types.ModuleType):
                continue
            for attr, value in vars(module).items():
                if isinstance(value, Dispatcher):
                    seen[f"{value.py_func.__module__}.{value.py_func.__qualname__}"] = len(value.signatures)
        return seen

    def twins():
        # kernels compiled twice for arguments that differ only in being read-only or a literal constant
        from numba.core import types as nbt
        def plain(t):
            if isinstance(t, nbt.Array):
                return ("array", str(t.dtype), t.ndim, t.layout)
            return str(nbt.unliteral(t))
        found = []
        for name, module in list(sys.modules.items()):
            if not name.startswith("tagtool") or not isinstance(module, types.ModuleType):
                continue
            for attr, value in vars(module).items():
                if isinstance(value, Dispatcher):
                    shapes = [tuple(map(plain, sig)) for sig in value.signatures]
                    if len(set(shapes)) < len(shapes):
                        found.append(f"{value.py_func.__module__}.{value.py_func.__qualname__}")
        return sorted(set(found))

    warm_kernels()
    before = compiled()
    doubled = twins()
    from tagtool.core import Corpus
    from tagtool.gui.training import TrainingInputs, run_training
    from tagtool.store.formats import read_corpus
    gold = read_corpus(sys.argv[1])
    sentences = tuple(s if i < 3 else s.unlabeled() for i, s in enumerate(gold))

    class State:
        def progress(self, fraction, message=""): pass
        def should_stop(self): return False
        def model_ready(self, result): pass

    inputs = TrainingInputs(tuple(range(len(sentences))), sentences, gold.labels)
    result = run_training(inputs, "mv-perceptron", {}, None, State())
    assert result.guidance
    again = run_training(inputs, "mv-perceptron", {}, result.tagger, State(), overrides={"max_iter": 3})
    after = compiled()
    new = {k: (before.get(k, 0), n) for k, n in after.items() if n > before.get(k, 0)}
    print(json.dumps({"new": new, "warm": sum(before.values()), "twins": doubled}))
""")


def test_after_warm_kernels_the_first_model_compiles_nothing():
    from tagtool.learn import DEFAULT_LEARNER

    assert DEFAULT_LEARNER == "mv-perceptron"  # the script trains it by name
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(DATA / "conll2000_train_head.txt")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["warm"] > 0
    assert report["new"] == {}, f"compiled by the first model after the warm-up: {report['new']}"
    # One compilation serves training and decoding: the decoders pass read-only masks as the snapshot's are,
    # and no kernel passes a literal where an int64 serves. span_wide alone takes the perceptron's own
    # writable masks (the unconstrained and the gated one) beside the snapshot's. (A callee loaded inside
    # its caller from numba's cache lists no signature of its own: on a filled cache fewer are seen.)
    assert set(report["twins"]) <= {"tagtool.decode._viterbi.span_wide"}, report["twins"]


def _cached(env) -> str:
    check = "from tagtool.services.warmup import default_kernels_cached as c; print(c())"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_the_child_process_fills_an_empty_cache(tmp_path):
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    assert _cached(env) == "False"
    done = subprocess.run(
        [sys.executable, "-m", "tagtool.services.warmup"], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _cached(env) == "True"


class _Child:
    """Stands for the cache-filling process: ``wait`` returns once the test lets it."""

    def __init__(self, code: int):
        import threading

        self.code, self.go, self.returncode = code, threading.Event(), None

    def wait(self):
        self.go.wait(60)
        self.returncode = self.code
        return self.code


def test_the_warm_up_waits_for_the_child_and_a_training_waits_for_the_warm_up(monkeypatch):
    import threading

    from tagtool.services import warmup

    order = []
    monkeypatch.setattr(warmup, "warm_kernels", lambda name=None: order.append(("warm", name)))
    monkeypatch.setattr(warmup, "default_kernels_cached", lambda: False)  # a cold cache: the child compiles
    for code in (0, 1):  # a child that failed: the kernels compile here all the same
        order.clear()
        child = _Child(code)
        thread = threading.Thread(target=warmup.warm_up, args=("mv-perceptron", child))
        thread.start()
        waiter = threading.Thread(target=lambda: (warmup.wait_for_warm_up(), order.append("trained")))
        while warmup._idle.is_set():  # the warm-up has begun
            pass
        waiter.start()
        assert order == []  # nothing before the child ends
        child.go.set()
        thread.join(60)
        waiter.join(60)
        assert order == [("warm", "mv-perceptron"), "trained"]
    warmup.wait_for_warm_up()  # none running: at once


def test_the_frozen_app_starts_itself_with_the_hidden_argument_as_the_child(monkeypatch):
    import tagtool._runtime as runtime
    from tagtool.services import warmup

    started = []
    monkeypatch.setattr(runtime, "is_frozen", lambda: True)
    monkeypatch.setattr(runtime, "jit_cache_enabled", lambda: True)  # a writable cache folder
    monkeypatch.setattr(sys, "executable", "/opt/tagtool/tagtool")
    monkeypatch.setattr(warmup.subprocess, "Popen", lambda args, **_: started.append(args) or "child")
    assert warmup.start_filling_cache() == "child"
    # The frozen executable is the app, not an interpreter: "-m <module>" would be a command-line option.
    assert started == [["/opt/tagtool/tagtool", warmup.FILL_CACHE_ARG]]
    monkeypatch.setattr(runtime, "is_frozen", lambda: False)
    assert warmup.fill_cache_command() == ["/opt/tagtool/tagtool", "-m", "tagtool.services.warmup"]


def test_no_child_without_a_cache_folder(monkeypatch):
    import tagtool._runtime as runtime
    from tagtool.services import warmup

    monkeypatch.setattr(runtime, "jit_cache_enabled", lambda: False)
    monkeypatch.setattr(warmup.subprocess, "Popen", lambda *_, **__: pytest.fail("no child without a cache"))
    assert warmup.start_filling_cache() is None


def test_the_bundle_entry_fills_the_cache_on_the_hidden_argument_and_runs_the_cli_otherwise(monkeypatch):
    import runpy

    import tagtool.cli.main as cli
    from tagtool.services import warmup

    entry = Path(__file__).resolve().parent.parent / "packaging" / "tagtool_main.py"
    calls = []
    monkeypatch.setattr(warmup, "fill_cache", lambda: calls.append("fill") or 0)
    monkeypatch.setattr(cli, "run", lambda: calls.append("cli"))
    monkeypatch.setattr(sys, "argv", ["tagtool", warmup.FILL_CACHE_ARG])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(entry), run_name="__main__")
    assert ended.value.code == 0 and calls == ["fill"]
    calls.clear()
    monkeypatch.setattr(sys, "argv", ["tagtool", "info"])
    runpy.run_path(str(entry), run_name="__main__")
    assert calls == ["cli"]
