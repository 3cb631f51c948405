"""warm_kernels compiles every kernel the app's first model of the default learner needs: after it, the
first training run and its suggestions compile nothing more (checked in a fresh process: a kernel loaded
from numba's cache counts as compiled, so the check holds on a warm cache too)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

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

    warm_kernels()
    before = compiled()
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
    print(json.dumps({"new": new, "warm": sum(before.values())}))
""")


def test_after_warm_kernels_the_first_model_compiles_nothing():
    from tagtool.learn import DEFAULT_LEARNER

    assert DEFAULT_LEARNER == "mv-perceptron"  # the script trains it by name
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(DATA / "conll2000_train_head.txt")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["warm"] > 0
    assert report["new"] == {}, f"compiled by the first model after the warm-up: {report['new']}"
