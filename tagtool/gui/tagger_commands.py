"""The main window's commands that take the model out of the app: Export tagger and Batch-tag file.

:class:`TaggerCommands` is part of :class:`~tagtool.gui.main_window.MainWindow`
(as :class:`~tagtool.gui.window_menus.WindowMenus` is): File › Export tagger
writes the open project's tagger to a file, File › Batch-tag file runs it (or
a tagger file) over a corpus file in the background (the window's ``batch``,
:class:`~tagtool.gui.batch_dialog.BatchTagging`).  Neither may write over the
open project or the input it reads (:func:`tagtool.store.outputs.check_not_input`).
"""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from tagtool.errors import TagtoolError
from tagtool.gui.batch_dialog import TAGGER_FILTER, BatchTagDialog
from tagtool.gui.model_panel import export_note
from tagtool.store.outputs import check_not_input


class TaggerCommands:
    """Export tagger and Batch-tag file of a :class:`~tagtool.gui.main_window.MainWindow` (module doc)."""

    def export_tagger(self) -> None:
        tagger = self.model_loop.tagger if self.model_loop else None
        if tagger is None:
            self.show_error("Export tagger", "No model yet: train one first (Model › Train now).")
            return
        folders = self.folders()
        start = folders.start("export", f"{tagger.learner}.tagger")
        path, _ = QFileDialog.getSaveFileName(self, "Export tagger", start, TAGGER_FILTER)
        if not path:
            return
        folders.remember("export", path)
        try:
            check_not_input(path, {"open project": self.session.project.path}, "tagger file")
            tagger.save(path)
        except (TagtoolError, OSError) as e:
            self.show_error("Export tagger", str(e))
            return
        self._report(f"Tagger written to {path}. {export_note(tagger)}".strip())

    def batch_tag(self) -> None:
        tagger = self.model_loop.tagger if self.model_loop else None
        dialog = BatchTagDialog(tagger is not None, tagger.learner if tagger else "", self, self.folders())
        if not dialog.exec():
            return
        choice = dialog.choice()
        source = choice["tagger"] if choice["tagger"] is not None else tagger
        try:
            check_not_input(choice["output"], {"open project": self.session.project.path})
        except TagtoolError as e:
            self.show_error("Batch-tag", str(e))
            return
        self.batch.start(
            source,
            choice["input"],
            choice["output"],
            choice["format"],
            choice["label_field"],
            choice["allow_missing_columns"],
            choice["reader_options"],
        )

    def _batch_done(self, result) -> None:
        self._report(
            f"Batch-tagged {result.n_sentences} sentences ({result.n_tokens} tokens) in {result.seconds:.1f} s."
        )
        if result.warnings:
            self.show_error("Batch-tag", "Tagged, but:\n" + "\n".join(result.warnings))
