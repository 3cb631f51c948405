"""What each corpus format is, in one place: its names, extensions, and who may write it.

:data:`CATALOG` is the one list of the formats' facts; everything else is
derived from it: format detection's extensions
(:data:`tagtool.store.formats.detect.EXTENSIONS`), the registry of readers
and writers (:data:`tagtool.store.formats.FORMATS`), the app's file-dialog
filters, the formats ``tagtool tag`` writes and how it counts an input's
sentences for its progress bar.  Adding a format is its module in
:mod:`tagtool.store.formats` plus one entry here.

The module imports nothing, so the command line's parser can offer the
formats without importing the readers (start-up of ``tagtool tag``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FormatInfo:
    """The facts of one file format.

    Attributes
    ----------
    name : str
        The format's name (``--format``, :data:`tagtool.store.formats.FORMATS`).
    description : str
        One line for menus and ``--help``.
    streaming : bool
        Whether its reader holds only one sentence at a time in memory.
    extensions : tuple of str
        File extensions that mean this format (lower case, with the dot);
        the first is the one an export adds to a name without one.
    shown : tuple of str
        Further extensions the file dialogs list for it: files that are
        sniffed as this format (``.txt``).
    readable : bool
        False for a format that is only written (its files read back as
        another format).
    export_label : str or None
        The app's export dialog offers it under this name (None: not offered).
    tagged_output : bool
        ``tagtool tag`` can write it, and writes an input in it back in it.
    counted_by : {"line", "block", "block-docstart"} or None
        How ``tagtool tag`` counts an input's sentences from its lines alone
        (progress bar): a non-blank line each, a run of non-blank lines each,
        or runs that ``-DOCSTART-`` lines also end; None: not counted.
    """

    name: str
    description: str
    streaming: bool
    extensions: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    readable: bool = True
    export_label: str | None = None
    tagged_output: bool = False
    counted_by: str | None = None


CATALOG: dict[str, FormatInfo] = {
    f.name: f
    for f in (
        FormatInfo(
            "conll",
            "CoNLL column file (one token a line)",
            True,
            (".conll", ".iob", ".iob2", ".bio", ".bioes"),
            (".txt",),
            export_label="CoNLL column file",
            tagged_output=True,
            counted_by="block-docstart",
        ),
        FormatInfo(
            "conllu",
            "CoNLL-U (Universal Dependencies)",
            True,
            (".conllu",),
            export_label="CoNLL-U",
            tagged_output=True,
            counted_by="block",
        ),
        FormatInfo(
            "text",
            "plain text: raw text tokenised and split into sentences",
            True,
            (),
            (".txt",),
            tagged_output=True,
            counted_by="line",
        ),
        FormatInfo(
            "jsonl",
            "JSON Lines, token or span records",
            True,
            (".jsonl", ".ndjson", ".json"),
            export_label="JSON Lines (token records)",
            tagged_output=True,
            counted_by="line",
        ),
        FormatInfo("csv", "CSV table, one token a row", False, (".csv",)),
        FormatInfo("tsv", "TSV table, one token a row", False, (".tsv",), export_label="TSV table"),
        FormatInfo(
            "doccano",
            "doccano JSONL span records (jsonl --spans)",
            True,
            (".jsonl",),
            readable=False,
            export_label="doccano JSONL (spans)",
        ),
        FormatInfo(
            "labelstudio",
            "Label Studio JSON tasks, one annotation per annotator",
            False,
            (".json",),
            readable=False,
            export_label="Label Studio JSON (tasks)",
        ),
    )
}

#: The formats ``tagtool tag`` writes, in catalog order.
TAG_FORMATS: tuple[str, ...] = tuple(f.name for f in CATALOG.values() if f.tagged_output)


def extension_formats() -> dict[str, str]:
    """Extension → the readable format it means (format detection's first rule)."""
    return {ext: f.name for f in CATALOG.values() if f.readable for ext in f.extensions}


def _patterns(extensions) -> str:
    return " ".join(f"*{ext}" for ext in dict.fromkeys(extensions))


def open_filter(label: str) -> str:
    """A file-dialog filter listing every extension of the readable formats, then all files."""
    extensions = [ext for f in CATALOG.values() if f.readable for ext in (*f.shown, *f.extensions)]
    return f"{label} ({_patterns(extensions)});;All files (*)"


def export_filters() -> dict[str, str]:
    """The app's export dialog: filter text → format (each format's own extension, and those shown for it)."""
    return {
        f"{f.export_label} ({_patterns((f.extensions[0], *f.shown))})": f.name
        for f in CATALOG.values()
        if f.export_label is not None
    }


def export_suffix(name: str) -> str:
    """The extension an export in format ``name`` adds to a file name without one."""
    return CATALOG[name].extensions[0]
