"""The ``tagtool`` console script: parse, run the command, and turn failures into one line and an exit status.

Output for people goes to stdout, progress and errors to stderr.  Errors
are one line and a non-zero exit status; Ctrl-C exits with status 130.
Every command calls the same core functions the desktop app calls (the
commands: :mod:`tagtool.cli.parser`).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tagtool.cli.parser import build_parser
from tagtool.cli.progress import EXIT_INTERRUPTED, interrupt_only_inside
from tagtool.cli.projects import open_sample
from tagtool.core.params import SettingError
from tagtool.errors import Cancelled, TagtoolError

EXIT_ERROR = 1
#: A setting its table refuses (``--set``, a stored setting): a usage error, as argparse's own.
EXIT_USAGE = 2


def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING - 10 * min(verbosity, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tagtool`` console script."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # a Ctrl-C while an error or a cancel was being reported
        print("tagtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


#: Arguments naming what a command reads, for the out-of-memory message.
_INPUT_ARGS = ("files", "data", "input", "gold", "test", "project")


def _inputs_of(args: argparse.Namespace) -> str:
    """The existing files ``args`` names, comma-separated ('' if none)."""
    names: list[str] = []
    for name in _INPUT_ARGS:
        value = getattr(args, name, None)
        # existing files only: import's project may be the new file it writes
        names += [str(v) for v in (value if isinstance(value, list) else [value]) if v is not None and v.exists()]
    return ", ".join(names)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    try:
        if args.command is None:
            return open_sample()
        return args.func(args)
    except KeyboardInterrupt:
        print("tagtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout left (``tagtool tag ... | head``): stop quietly,
        # and keep Python's final flush from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except MemoryError:  # numpy's _ArrayMemoryError too: a file beyond the read limits, or a small machine
        print(
            f"tagtool: error: out of memory reading {_inputs_of(args) or 'the input'}: a file, record or "
            "sentence too large for this machine's memory; split it, or refuse it early with a lower "
            "--limit NAME=N",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except Cancelled:
        print("tagtool: interrupted: training cancelled, nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SettingError as exc:
        print(f"tagtool: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except TagtoolError as exc:
        print(f"tagtool: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        print(f"tagtool: error: {_os_error(exc)}", file=sys.stderr)
        return EXIT_ERROR


def _os_error(exc: OSError) -> str:
    """An OSError no command turned into words: a full disk or a read-only place said so, with the file."""
    from tagtool.store import disk

    filename = exc.filename if isinstance(exc.filename, (str, os.PathLike)) else None
    why = disk.problem(exc, Path(filename or "."))
    if why is None:
        return str(exc)
    return f"{filename}: {why}" if filename else f"{why} ({exc.strerror or exc})"


def run() -> None:
    """The ``tagtool`` console script: :func:`main`, then exit with its status.

    A Ctrl-C after the command returned (while Python shuts down) exits at
    once with 130 instead of printing a traceback.
    """
    interrupt_only_inside(main)
    sys.exit(main())


if __name__ == "__main__":
    run()
