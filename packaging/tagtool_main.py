"""Entry script of the bundled app: the ``tagtool`` console script (``tagtool.cli.main:run``)."""

import multiprocessing

from tagtool.cli.main import run

if __name__ == "__main__":
    # Worker processes of a frozen app re-run this executable; this hands
    # them to multiprocessing instead of to the command line.
    multiprocessing.freeze_support()
    run()
