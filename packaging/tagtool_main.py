"""Entry script of the bundled app: the ``tagtool`` console script (``tagtool.cli:main``)."""

import multiprocessing
import sys

from tagtool.cli import main

if __name__ == "__main__":
    # Worker processes of a frozen app re-run this executable; this hands
    # them to multiprocessing instead of to the command line.
    multiprocessing.freeze_support()
    sys.exit(main())
