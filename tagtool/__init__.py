"""tagtool: token annotation with full, partial and no labels, and
semi-supervised structured learners in the loop.

Importing this package (and everything outside :mod:`tagtool.gui`) never
imports Qt, so the command line and the Python API run without a display.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
