"""Storage: the SQLite project file and the corpus import/export formats.

``tagtool.store.formats`` is imported on demand (it pulls in conllu, and
pandas when a table is read or written), so importing this package stays
cheap.
"""

from tagtool._lazy import lazy_getattr

# The project store is imported on first use too: it pulls in the feature
# extractor (numpy, scipy), which ``tagtool tag`` reading a file through
# ``tagtool.store.formats`` need not pay for.
__all__ = ["NewerSchemaWarning", "NotFoundError", "Project"]


__getattr__ = lazy_getattr(
    __name__,
    globals(),
    {
        "NewerSchemaWarning": "tagtool.store.lifecycle",
        "NotFoundError": "tagtool.store.record_types",
        "Project": "tagtool.store.project",
    },
)
