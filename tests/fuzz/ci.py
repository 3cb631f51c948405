"""Settings of the fuzz tests in CI: few examples, always the same ones.

``derandomize=True`` draws the examples from a seed fixed by each test's
name and ``database=None`` keeps no failures between runs, so every CI
run tries exactly the same inputs. ``benchmarks/reliability.py`` runs the
same strategies with thousands of examples per reader.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

from hypothesis import HealthCheck, settings

#: Examples per fuzz test in CI (keep tests/fuzz under ~30 s in all).
EXAMPLES = 40

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


#: For the slower pipelines (a project import per example).
FUZZ_PIPELINE = settings(FUZZ, max_examples=25)


@contextmanager
def warnings_as_errors():
    """Warnings become failures: pandas warns where it silently drops data.

    numpy's RuntimeWarnings stay warnings: extreme but finite weights that
    overflow in a sum make a poor model, not a broken loader.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
