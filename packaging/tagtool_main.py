"""Entry script of the bundled app: the ``tagtool`` console script (``tagtool.cli.main:run``).

With the one hidden argument ``--fill-numba-cache``
(:data:`tagtool.services.warmup.FILL_CACHE_ARG`) it is the child process that
``tagtool gui`` starts to compile the default learner's kernels into numba's
cache (:func:`tagtool.services.warmup.start_filling_cache`): a frozen
executable cannot run ``python -m tagtool.services.warmup``.
"""

import multiprocessing
import sys

from tagtool.services.warmup import FILL_CACHE_ARG, fill_cache


def main() -> None:
    # Worker processes of a frozen app re-run this executable; this hands
    # them to multiprocessing instead of to the command line.
    multiprocessing.freeze_support()
    if sys.argv[1:] == [FILL_CACHE_ARG]:
        sys.exit(fill_cache())
    from tagtool.cli.main import run

    run()


if __name__ == "__main__":
    main()
