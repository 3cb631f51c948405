"""A learner's settings form, built from its parameters (``Learner.param_defaults``).

The widget of a parameter follows its default: a check box for a bool, a
spin box for an int, a line edit for a float or a free string, a combo box
when the class docstring lists the choices numpydoc-style
(``loss : {"hamming", "zero-one"}``).  The docstring's description becomes
the tooltip. The form sits in a scrolled panel: the mouse wheel changes a
combo or spin box only once it has the focus (:mod:`.wheel_guard`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLineEdit, QSpinBox, QWidget

from tagtool.gui.wheel_guard import guard_wheel
from tagtool.services.settings import parse_value

_HEADER = re.compile(r"^    ([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:\s*(.*)$")


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: object
    choices: tuple = ()
    help: str = ""


def _docs(cls) -> dict[str, tuple[str, str]]:
    """``name -> (type text, description)`` from the numpydoc Parameters section."""
    doc = cls.__doc__ or ""
    if "Parameters" not in doc:
        return {}
    section = doc.split("Parameters", 1)[1]
    section = re.split(r"\n    (?:Notes|References|Attributes|Examples|Returns)\n", section)[0]
    out, current = {}, []
    for line in section.splitlines():
        match = _HEADER.match(line)
        if match:
            current = [n.strip() for n in match.group(1).split(",")]
            for name in current:
                out[name] = (match.group(2), "")
        elif line.startswith("        ") and current:
            for name in current:
                kind, text = out[name]
                out[name] = (kind, (text + " " + line.strip()).strip())
    return out


def _choices(kind: str, default) -> tuple:
    match = re.search(r"\{([^}]*)\}", kind)
    if not match:
        return ()
    values = []
    for part in match.group(1).split(","):
        text = part.strip().strip("'\"")
        try:
            values.append(type(default)(text) if default is not None and not isinstance(default, bool) else text)
        except ValueError:
            return ()
    return tuple(values) if default in values else ()


def param_specs(cls) -> list[ParamSpec]:
    """The parameters of a learner class, with choices and help from its docstring."""
    docs = _docs(cls)
    specs = []
    for name, default in cls.param_defaults().items():
        kind, text = docs.get(name, ("", ""))
        choices = () if isinstance(default, bool) else _choices(kind, default)
        specs.append(ParamSpec(name, default, choices, text))
    return specs


class SettingsForm(QWidget):
    """Editable parameters of one learner; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.specs: list[ParamSpec] = []
        self.widgets: dict[str, QWidget] = {}
        self.learner_cls = None

    def set_learner(self, cls, values: dict | None = None) -> None:
        while self.layout_.rowCount():
            self.layout_.removeRow(0)
        self.learner_cls, self.specs, self.widgets = cls, param_specs(cls), {}
        for spec in self.specs:
            widget = self._widget(spec, (values or {}).get(spec.name, spec.default))
            widget.setToolTip(spec.help)
            widget.setObjectName(f"param_{spec.name}")
            self.widgets[spec.name] = widget
            self.layout_.addRow(spec.name, widget)

    def _widget(self, spec: ParamSpec, value) -> QWidget:
        if isinstance(spec.default, bool):
            w = QCheckBox(self)
            w.setChecked(bool(value))
            w.toggled.connect(self.changed)
        elif spec.choices:
            w = QComboBox(self)
            for choice in spec.choices:
                w.addItem(str(choice), choice)
            w.setCurrentIndex(max(0, w.findData(value)))
            w.currentIndexChanged.connect(self.changed)
        elif isinstance(spec.default, int):
            w = QSpinBox(self)
            w.setRange(-10**9, 10**9)
            w.setValue(int(value))
            w.valueChanged.connect(self.changed)
        else:
            w = QLineEdit("none" if value is None else repr(value) if isinstance(value, float) else str(value), self)
            w.editingFinished.connect(self.changed)
        if isinstance(w, (QComboBox, QSpinBox)):
            guard_wheel(w)
        return w

    def values(self) -> dict:
        """The parameters as typed values, checked by the learner (``set_params``):
        :class:`TagtoolError` names a bad entry or a value out of range."""
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
                out[spec.name] = parse_value(spec.name, w.text().strip(), spec.default)
        if self.learner_cls is not None:
            self.learner_cls().set_params(**out)  # InvalidParameterError, a TagtoolError, names the value
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
            w.setText(str(value))
            self.changed.emit()
