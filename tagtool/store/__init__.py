"""Storage: the SQLite project file and the corpus import/export formats.

``tagtool.store.formats`` is imported on demand (it pulls in conllu, and
pandas when a table is read or written), so importing this package stays
cheap.
"""

# The project store is light (sqlite3 and the core model only), so it is
# imported eagerly; the formats stay on demand.
from tagtool.store.project import NewerSchemaWarning, NotFoundError, Project

__all__ = ["NewerSchemaWarning", "NotFoundError", "Project"]
