"""The desktop application (PySide6): the only package that imports Qt.

A thin layer over :mod:`tagtool.store` (docs/design.md#layout): :mod:`.session` holds the
open project, current sentence and undo stack; widgets bind to it.
Start it with :func:`tagtool.gui.app.run`.
"""
