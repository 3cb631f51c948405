"""Drivers of the app for the tests, the benchmarks and the documentation's screenshots; not part of the package.

They run from the repository's root (``python -m tools.screenshots``; pytest and the benchmarks put the root on
``sys.path``) and import :mod:`tagtool` as a user would.  None ships in a wheel or in the desktop bundle.
"""
