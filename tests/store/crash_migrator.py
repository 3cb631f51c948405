"""Open an old project and stop in the middle of the search index's migration, to be killed there.

Usage: ``python crash_migrator.py PROJECT MARKER``; used by
``test_search_index_migration.py``.  The real migration runs (the index is
built inside the open transaction), then the marker file is written and the
process waits to be killed before anything commits.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from search_samples import SEARCH_MIGRATION

from tagtool.store import schema
from tagtool.store.project import Project


def main(path: str, marker: str) -> None:
    def built_then_wait(conn):
        SEARCH_MIGRATION(conn)
        Path(marker).write_text("migrating\n")
        time.sleep(120)

    schema.MIGRATIONS = tuple(built_then_wait if m is SEARCH_MIGRATION else m for m in schema.MIGRATIONS)
    Project.open(path)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
