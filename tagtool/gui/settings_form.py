"""A learner's settings form, built from its declared parameters (``Learner.params``, :mod:`tagtool.core.params`).

The widget of a parameter follows its declaration: a check box for a bool,
a combo box for choices (with ``none`` when the parameter is optional), a
spin box bounded by the range for an int, a line edit for a float, a text
or an optional int (typed ``none`` where that is allowed).  The help line,
type and range become the tooltip.  The form sits in a scrolled panel: the
mouse wheel changes a combo or spin box only once it has the focus
(:mod:`.wheel_guard`).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLineEdit, QSpinBox, QWidget

from tagtool.core.params import Param, format_value
from tagtool.gui.wheel_guard import guard_wheel

#: QSpinBox holds a C int.
_SPIN_LIMIT = 2**31 - 1


def tooltip(param: Param) -> str:
    """The help line, then what the parameter takes."""
    text = param.help + (f" (none: {param.none_means})" if param.none_means else "")
    return f"{text}\n{param.type_text}" + (f", {param.range_text}" if param.range_text else "")


def _spin_box(param: Param, value, parent: QWidget) -> QSpinBox:
    w = QSpinBox(parent)
    low = -_SPIN_LIMIT if param.low is None else max(-_SPIN_LIMIT, int(param.low) + int(param.low_open))
    high = _SPIN_LIMIT if param.high is None else min(_SPIN_LIMIT, int(param.high) - int(param.high_open))
    w.setRange(low, high)
    w.setValue(int(value))
    return w


class SettingsForm(QWidget):
    """Editable parameters of one learner; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.specs: list[Param] = []
        self.widgets: dict[str, QWidget] = {}
        self.learner_cls = None

    def set_learner(self, cls, values: dict | None = None) -> None:
        """Rows for ``cls.params``, showing ``values`` (old names read as the current ones) over the defaults."""
        while self.layout_.rowCount():
            self.layout_.removeRow(0)
        self.learner_cls, self.specs, self.widgets = cls, list(cls.params), {}
        values = cls.params.rename(values or {})
        for spec in self.specs:
            widget = self._widget(spec, values.get(spec.name, spec.default))
            widget.setToolTip(tooltip(spec))
            widget.setObjectName(f"param_{spec.name}")
            self.widgets[spec.name] = widget
            self.layout_.addRow(spec.name, widget)

    def _widget(self, spec: Param, value) -> QWidget:
        if spec.type is bool:
            w = QCheckBox(self)
            w.setChecked(bool(value))
            w.toggled.connect(self.changed)
        elif spec.choices:
            w = QComboBox(self)
            for choice in (*spec.choices, *((None,) if spec.optional else ())):
                w.addItem(format_value(choice), choice)
            w.setCurrentIndex(max(0, w.findData(value)))
            w.currentIndexChanged.connect(self.changed)
        elif spec.type is int and not spec.optional and isinstance(value, int):
            w = _spin_box(spec, value, self)
            w.valueChanged.connect(self.changed)
        else:
            w = QLineEdit(repr(value) if isinstance(value, float) else format_value(value), self)
            w.editingFinished.connect(self.changed)
        if isinstance(w, (QComboBox, QSpinBox)):
            guard_wheel(w)
        return w

    def values(self) -> dict:
        """The parameters as typed values, checked by their table and the learner (``set_params``).

        Raises
        ------
        TagtoolError
            :class:`~tagtool.core.params.SettingError` naming a bad entry and what it takes.
        """
        out = {}
        for spec in self.specs:
            w = self.widgets[spec.name]
            if isinstance(w, QCheckBox):
                out[spec.name] = w.isChecked()
            elif isinstance(w, QComboBox):
                out[spec.name] = w.currentData()
            elif isinstance(w, QSpinBox):
                out[spec.name] = w.value()
            else:
                out[spec.name] = spec.parse(w.text(), f"{self.learner_cls.name}: {spec.name}")
        if self.learner_cls is not None:
            self.learner_cls().set_params(**out)  # what goes together; InvalidParameterError names it
        return out

    def set_value(self, name: str, value) -> None:
        w = self.widgets[name]
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(max(0, w.findData(value)))
        elif isinstance(w, QSpinBox):
            w.setValue(int(value))
        else:
            w.setText(format_value(value))
            self.changed.emit()
