"""tagtool: token annotation with full, partial and no labels, and
semi-supervised structured learners in the loop.

Importing this package (and everything outside :mod:`tagtool.gui`) never
imports Qt, so the command line and the Python API run without a display.
The Python API is loaded on first use, so ``import tagtool`` stays light::

    import tagtool
    tagger = tagtool.train_tagger(corpus, "mv-perceptron")
    tagger.save("ner.tagger")
    tagtool.load_tagger("ner.tagger").tag([["EU", "rejects", "German", "call"]])
"""

from tagtool._runtime import configure_numba_cache as _configure_numba_cache

# The frozen app's numba cache folder must be set before anything imports
# numba; outside a frozen app this does nothing.
_configure_numba_cache()

__version__ = "0.1.0"

#: Public names imported lazily (module attribute -> "module:name").
_LAZY = {
    "load_tagger": "tagtool.tagger.model:load_tagger",
    "Tagger": "tagtool.tagger.model:Tagger",
    "TaggerFileError": "tagtool.tagger.file_format:TaggerFileError",
    "train_tagger": "tagtool.services.pipeline:train_tagger",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'tagtool' has no attribute {name!r}")
    import importlib

    module_name, attr = target.split(":")
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
