"""Storage: the SQLite project file and the corpus import/export formats.

``tagtool.store.formats`` is imported on demand (it pulls in conllu, and
pandas when a table is read or written), so importing this package stays
cheap.
"""

import importlib

# The project store is imported on first use too: it pulls in the feature
# extractor (numpy, scipy), which ``tagtool tag`` reading a file through
# ``tagtool.store.formats`` need not pay for.
__all__ = ["NewerSchemaWarning", "NotFoundError", "Project"]


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("tagtool.store.project"), name)
    globals()[name] = value
    return value
