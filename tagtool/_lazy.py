"""Package attributes imported on first use (PEP 562), so importing a package stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, namespace: dict, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``modules[name]`` and caches it in ``namespace``.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (for the error message).
    namespace : dict
        The package's ``globals()``: a name is imported once.
    modules : mapping of str to str
        Attribute name → the module that defines it.
    """

    def __getattr__(name: str):
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
