"""The installed PySide6 keeps reference counts of None and True intact.

PySide6 6.12.0 on CPython 3.11 drops a reference to ``None`` each time Qt
calls a Python override returning None and one to ``True`` at each signal
emission to a Python slot, until the interpreter aborts ("deallocating
None").  pyproject.toml therefore keeps PySide6 below 6.12; this test fails
if a build with that bug is installed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None and bools are immortal from 3.12")
def test_qt_callbacks_leave_none_and_true_counts_unchanged():
    code = (
        "import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6.QtCore import QAbstractTableModel, QObject, Qt, Signal\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "class M(QAbstractTableModel):\n"
        "    def rowCount(self, p=None): return 1\n"
        "    def columnCount(self, p=None): return 1\n"
        "    def data(self, i, role=Qt.DisplayRole): return None\n"
        "class S(QObject):\n"
        "    sig = Signal(int)\n"
        "m, s = M(), S(); s.sig.connect(lambda x: None); index = m.index(0, 0)\n"
        "before = sys.getrefcount(None), sys.getrefcount(True)\n"
        "for _ in range(2000): index.data(); s.sig.emit(1)\n"
        "after = sys.getrefcount(None), sys.getrefcount(True)\n"
        "print(after[0] - before[0], after[1] - before[1])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    none_delta, true_delta = map(int, done.stdout.split())
    assert abs(none_delta) < 50 and abs(true_delta) < 50, (none_delta, true_delta)
