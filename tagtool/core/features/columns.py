"""Which extra columns of a corpus become features: the inputs, never the answers.

A sentence's extra columns (:attr:`~tagtool.core.corpus.Sentence.columns`)
come from the file it was read from.  Some are *inputs*, present when a
new text is tagged (the POS column of CoNLL-2000, given to a chunker);
others are *annotation layers*, gold answers a human or a parser added
(every CoNLL-U field but FORM: LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL,
DEPS, MISC).  A feature read from an annotation layer leaks the answer:
training POS on UD English EWT with UPOS as label and XPOS/FEATS as
features scores a token accuracy no tagger reaches on raw text
(benchmarks/results/ud_pos.md).

The rule, the same for the CLI, the desktop app and the experiments:

* ``columns=None`` (the default) makes every extra column a feature
  **except** the annotation layers, recognised by name
  (:data:`ANNOTATION_COLUMNS`, the CoNLL-U field names — a column file's
  columns are called ``col1``, ``col2`` …, so its extra columns are inputs
  by default; the label column is never among them, the readers take it
  out).  The crfsuite set's default POS column is the first such column.
* A column named in the settings (``columns``, ``pos_column``) is used
  even if it is an annotation layer — the user said so, for files to tag
  that carry it — but it must exist in the training data
  (:func:`check_named_columns`), and :func:`annotation_column_warnings`
  says why the accuracy will be overstated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tagtool.core.features.templates import FeatureError

#: Column names that hold gold annotation layers, not inputs: the CoNLL-U
#: fields other than ID and FORM (``tagtool.store.formats.conllu.COLUMN_FIELDS``;
#: a test keeps the two equal without core importing the store).
ANNOTATION_COLUMNS = frozenset({"lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"})


def input_columns(seen: Iterable[str]) -> tuple[str, ...]:
    """The columns of ``seen`` that are features by default: every one but the annotation layers."""
    return tuple(c for c in seen if c not in ANNOTATION_COLUMNS)


def check_named_columns(named: Sequence[str], seen: Sequence[str], setting: str = "columns") -> None:
    """Raise :class:`~tagtool.core.features.FeatureError` for a named column the data lacks.

    Parameters
    ----------
    named : sequence of str
        Columns given in the settings.
    seen : sequence of str
        Extra columns of the training data, in first-seen order.
    setting : str
        The setting's name, for the message.
    """
    unknown = [c for c in named if c not in seen]
    if unknown:
        known = ", ".join(seen) if seen else "none: the data has only tokens"
        raise FeatureError(
            f"features.{setting}: unknown column(s) {', '.join(map(repr, unknown))} (columns of the training "
            f"data: {known}; column files name them col1, col2 … by position, CoNLL-U by field, and the "
            f"label column is never a feature)"
        )


def annotation_column_warnings(columns: Iterable[str]) -> list[str]:
    """One warning per feature column that is an annotation layer (read from a gold field)."""
    return [
        f"feature column {c!r} is a gold annotation layer (a CoNLL-U field), not an input at tagging time: "
        f"the accuracy measured on gold files overstates the accuracy on raw text, and files to tag must "
        f"carry {c!r}"
        for c in dict.fromkeys(columns)
        if c in ANNOTATION_COLUMNS
    ]
