"""Text pasted into the app, read as a plain text file of that text is (:mod:`.text`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tagtool.core.corpus import Corpus
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError

#: What errors about pasted text name instead of a file.
PASTED = "pasted text"


def read_text(text: str, name: str, labels: LabelSet | None = None, **options) -> Corpus:
    """The corpus of raw ``text``, one document called ``name``.

    ``options`` are the plain text reader's (``tokenizer``, ``sentence_split``,
    ``document_unit``, read limits). The text goes through a file in a
    temporary folder (removed at once) so that it is read exactly as the same
    text saved as ``name`` would be; errors name "pasted text" and its line.
    """
    from tagtool.store.formats import read_corpus

    if not text.strip():
        raise FormatError(PASTED, None, "nothing pasted: the text is empty")
    with tempfile.TemporaryDirectory(prefix="tagtool-pasted-") as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        try:
            return read_corpus(path, "text", labels=labels, label_column=None, **options)
        except FormatError as exc:
            raise FormatError(PASTED, exc.line, exc.message) from None
