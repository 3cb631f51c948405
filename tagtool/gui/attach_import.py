"""File › Import annotations of a doccano or Label Studio file made on the project's own text.

When the project keeps the text its sentences were read from and the file
holds span records, the spans are placed by character offsets on that
text (:meth:`tagtool.store.project_attach.SpansPart.attach`), whatever the
tokenization and sentence split either side used. The user says how they
go in: as training labels (only tokens without a label, or replacing the
labels of the tokens the file covers) or as each annotator's answers
(records naming nobody are the annotator typed in; the default when the
file names its annotators). Spans crossing a
sentence boundary of the project are listed first with an offer to join
those sentences. What was moved or left out is listed afterwards.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QMessageBox, QWidget

from tagtool.errors import TagtoolError
from tagtool.gui.span_import import SHOWN, warnings_box
from tagtool.store.formats.labelstudio import annotators_in
from tagtool.store.project_attach import NewLabelsError
from tagtool.store.span_attach import is_span_file, read_span_records

USES = (
    ("Training labels, only for tokens without one", "fill"),
    ("Training labels, replacing those of the tokens the file covers", "replace"),
    ("Each annotator's answers (the training label follows them)", "answers"),
)


def attaches(session, path: Path) -> bool:
    """Whether importing ``path`` into the session's project places spans by text (module doc)."""
    return is_span_file(path) and session.project.spans.has_texts()


class AttachDialog(QDialog):
    """How the file's spans go in, whose they are, which annotators are read."""

    def __init__(self, path: Path, annotator: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Attach {path.name} to the project's text")
        form = QFormLayout(self)
        self.use = QComboBox(self)
        for text, data in USES:
            self.use.addItem(text, data)
        self.owner = QLineEdit(annotator, self)
        self.owner.setToolTip("The annotator of records that name nobody")
        self.only = QComboBox(self)
        self.only.addItem("All annotators", None)
        try:
            names = annotators_in(path)
        except (TagtoolError, OSError):  # the import itself says what is wrong
            names = []
        for name in names:
            self.only.addItem(f"Only {name}", name)
        if names:  # a file that says who labeled what: their answers, by default
            self.use.setCurrentIndex(self.use.findData("answers"))
        form.addRow("Use the spans as", self.use)
        form.addRow("Annotator of unnamed records", self.owner)
        form.addRow("Annotators", self.only)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


def ask_join(parent: QWidget | None, placed) -> bool | None:
    """Join the sentences the spans cross? True, False (leave the spans out) or None (cancel)."""
    crossing = [note for note in placed.notes if "crosses the boundary" in note]
    shown = "\n".join(crossing[:SHOWN]) + (f"\n… and {len(crossing) - SHOWN} more" if len(crossing) > SHOWN else "")
    box = QMessageBox(
        QMessageBox.Question,
        "Spans across sentences",
        f"{len(placed.crossing)} span(s) cross a sentence boundary of the project:\n\n{shown}\n\n"
        "Join those sentences so the spans can be attached, or leave the spans out?",
        parent=parent,
    )
    box.setObjectName("crossing_question")
    join = box.addButton("Join sentences", QMessageBox.AcceptRole)
    leave = box.addButton("Leave them out", QMessageBox.RejectRole)
    box.addButton(QMessageBox.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return True if clicked is join else False if clicked is leave else None


def attach_import(session, parent: QWidget | None, path: Path, confirm_new_labels) -> tuple[str | None, bool]:
    """Ask how, attach, list what was left out; ``(status message or None, sentences were joined)``."""
    dialog = AttachDialog(path, session.annotator, parent)
    if not dialog.exec():
        return None, False
    use, only = dialog.use.currentData(), dialog.only.currentData()
    owner = dialog.owner.text().strip() or None
    try:
        records = read_span_records(path, annotator=only)
        placed = session.project.spans.plan(path, records)
        join = ask_join(parent, placed) if placed.crossing else False
        if join is None:
            return None, False
        options = dict(
            mode=None if use == "answers" else use,
            answers=use == "answers",
            owner=owner,
            merge_crossing=join,
            annotator=session.annotator,
        )
        try:
            done = session.project.spans.attach(path, records, **options)
        except NewLabelsError as e:
            if not confirm_new_labels(parent, e):
                return None, False
            done = session.project.spans.attach(path, records, add_labels=True, **options)
            session.labels_edited(annotations_changed=False)
    except (TagtoolError, OSError, ValueError) as e:
        QMessageBox.warning(parent, "Import annotations", str(e))
        return None, False
    session.undo_stack.clear()
    if not done.joined:  # joined sentences: the window opens the project afresh (its sentence list changed)
        session.reload()  # the open sentence shows the labels the spans gave it
    listing = warnings_box(parent, "Import annotations", done.placed.notes)
    if listing is not None:
        listing.exec()
    counts = done.counts
    what = (
        f"{done.changed} training labels changed"
        if counts is None
        else f"answers for {counts.sentences} sentences, {counts.changed} training labels changed"
        + (f" ({counts.candidate_sets} to candidate sets of differing answers)" if counts.candidate_sets else "")
    )
    if counts is not None and use != "answers":  # training labels, and the answers a tagtool export keeps
        what = f"{done.changed} training labels changed; {what}"
    joined = f", {done.joined} sentence(s) joined" if done.joined else ""
    return (
        f"Attached {done.placed.found} of {done.placed.records} records by their text: {what}{joined}",
        bool(done.joined),
    )
