"""``python -m tagtool.cli``: the ``tagtool`` command."""

from tagtool.cli.main import run

if __name__ == "__main__":
    run()
