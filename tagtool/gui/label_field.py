"""The CoNLL-U label field chooser of the import, new-project and batch-tag dialogs.

CoNLL-U files hold several annotation layers; the user says which one holds
the labels (``upos``, ``xpos``, ``deprel`` or ``misc:KEY``), as
``--label-field`` does on the command line. The row is shown only while the
chosen file is CoNLL-U.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QFormLayout, QWidget

#: The choices offered; the box is editable for any other field or MISC key.
CHOICES = ("upos", "xpos", "deprel", "misc:NER")


def is_conllu(path_text: str, format: str | None) -> bool:
    """Whether the file (or the chosen format) is CoNLL-U; False for a missing file."""
    from tagtool.store.formats import detect_format

    if format is not None:
        return format == "conllu"
    path = Path(path_text.strip())
    if not path_text.strip() or not path.is_file():
        return path.suffix.lower() == ".conllu"
    try:
        return detect_format(path) == "conllu"
    except (OSError, ValueError):
        return False


class LabelFieldBox(QComboBox):
    """Editable combo box of label fields; :meth:`value` checks what was typed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditable(True)
        self.addItems(CHOICES)
        self.setToolTip("CoNLL-U: the field that holds the labels (misc:KEY for a KEY=VALUE entry of MISC)")

    def value(self) -> str:
        """The chosen field; raises ValueError for a name CoNLL-U does not have."""
        from tagtool.store.formats.conllu import LabelField

        text = self.currentText().strip()
        LabelField.parse(text)
        return text


def show_row(form: QFormLayout, box: LabelFieldBox, visible: bool) -> None:
    """Show or hide the form row that holds ``box`` (label included)."""
    form.setRowVisible(box, visible)
