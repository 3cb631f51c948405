"""What input a tagger needs: the extra columns its features read, and what losing one costs.

A tagger trained with an input column (the POS column of CoNLL-2000, given
to a chunker) reads it at tagging time; a file without it is tagged from
the tokens alone, and badly (benchmarks/results/design-measurements.md,
"Missing input columns").  So the tagger records
its columns (``meta.json`` ``"input_columns"``)::

    {"required": ["col1"],
     "check": {"sentences": 300, "tokens": 7012, "accuracy": 0.991,
               "accuracy_without": {"col1": 0.573}}}

``required`` are the columns the features read (the extractor's
``columns_``).  ``check`` is the *expected loss*, measured when the tagger
is trained (:func:`measure_column_loss`): token accuracy on an evenly
spaced sample of at most :data:`LOSS_SAMPLE` of its own training sentences,
as they are and with each column removed (``"*"``: all of them, when there
are several).  Training sentences make the level optimistic; the *drop* is
what the number is for, and it matches the held-out one closely.  It costs two
taggings of at most 300 sentences per column, and nothing for taggers
that read no column.
A tagger trained in the app with cross-validation records the loss
measured on the held-out sentences of its folds instead (``"held_out":
true``, :func:`tagtool.services.crossval.column_check`): on a small project the
training-sentence sample hides it (a chunker trained on a few sentences
fits them with or without POS).
Tagger files from before this record load with ``required`` inferred from
the extractor's columns and ``check`` None (loss unknown).

Tagging input that lacks a required column raises :class:`TaggerInputError`
(naming the column, the file and the expected loss) unless the caller
allows it explicitly, in which case the same text is a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from tagtool.errors import TagtoolError

#: Training sentences tagged (with and without each column) to measure the expected loss.
LOSS_SAMPLE = 300


class TaggerInputError(TagtoolError):
    """Input to tag lacks an extra column the tagger's features read."""


def record_for(columns: Sequence[str], check: Mapping | None = None) -> dict:
    """The ``input_columns`` record of a tagger whose features read ``columns``."""
    return {"required": list(columns), "check": None if check is None else dict(check)}


def read_record(value: object, columns: Sequence[str]) -> dict:
    """The record of a tagger file's meta (``value``; None in files written before it existed).

    Raises
    ------
    ValueError
        A record that is not one (the tagger reader turns it into a
        :class:`~tagtool.tagger.file_format.TaggerFileError`).
    """
    if value is None:
        return record_for(columns)
    if not isinstance(value, dict) or not isinstance(value.get("required"), list):
        raise ValueError("input_columns must be an object with a 'required' list")
    required = value["required"]
    if not all(isinstance(c, str) for c in required) or not set(required) <= set(columns):
        raise ValueError(f"input_columns.required must name feature columns, got {required!r:.100}")
    check = value.get("check")
    if check is not None and not isinstance(check, dict):
        raise ValueError("input_columns.check must be an object or null")
    return record_for(required, check)


def missing_columns(required: Sequence[str], sentences: Iterable) -> list[str]:
    """The required columns that at least one of ``sentences`` lacks (token lists lack them all)."""
    missing: dict[str, None] = {}
    for sentence in sentences:
        columns = getattr(sentence, "columns", {})
        missing.update((c, None) for c in required if c not in columns)
        if len(missing) == len(required):
            break
    return list(missing)


def loss_text(record: Mapping, column: str) -> str:
    """The expected loss of tagging without ``column``, as one clause."""
    check = record.get("check")
    without = (check or {}).get("accuracy_without", {})
    if column not in without:
        return "expected loss unknown (the tagger file does not record it)"
    where = (
        f"on {check['sentences']} held-out sentences (cross-validation)"
        if check.get("held_out")
        else f"on {check['sentences']} of its training sentences"
    )
    return (
        f"expected loss: token accuracy {100 * check['accuracy']:.1f} % with it, "
        f"{100 * without[column]:.1f} % without, {where}"
    )


def input_message(record: Mapping, missing: Sequence[str], source: str) -> str:
    """One line naming the file (``source``, if any), the missing columns and what tagging without them costs."""
    names = ", ".join(map(repr, missing))
    key = missing[0] if len(missing) == 1 else "*"
    where = f"{source}: " if source else ""
    return f"{where}lacks the column(s) {names} the tagger was trained with; {loss_text(record, key)}"


def check_input(record: Mapping, sentences: Iterable, source: str, allow: bool) -> list[str]:
    """Warnings for ``sentences`` (empty when they have every column); an error unless ``allow``.

    Raises
    ------
    TaggerInputError
        A required column is missing and ``allow`` is False.
    """
    missing = missing_columns(record["required"], sentences) if record["required"] else []
    if not missing:
        return []
    message = input_message(record, missing, source)
    if not allow:
        raise TaggerInputError(
            f"{message} (give a file that has them, or allow tagging without them: "
            f"--allow-missing-columns, or the batch dialog's checkbox)"
        )
    return [message]


def _without(sentences: Sequence, columns: Iterable[str]) -> list:
    drop = set(columns)
    return [replace(s, columns={k: v for k, v in s.columns.items() if k not in drop}) for s in sentences]


def _accuracy(tagger, sentences: Sequence, gold: list[tuple[int, int, str]]) -> float:
    predicted = tagger.tag(sentences, allow_missing_columns=True)
    return sum(predicted[i][t] == label for i, t, label in gold) / len(gold)


def measure_column_loss(tagger, sentences: Sequence, limit: int = LOSS_SAMPLE) -> dict | None:
    """Token accuracy of ``tagger`` on a sample of ``sentences`` with and without each required column.

    Parameters
    ----------
    tagger : Tagger
    sentences : sequence of Sentence
        Its training sentences; only tokens with one label are scored.
    limit : int
        At most this many sentences, evenly spaced.

    Returns
    -------
    dict or None
        The record's ``check`` (module docstring); None when the tagger
        reads no column or no token has a full label.
    """
    required = list(tagger.extractor.columns_)
    labeled = [s for s in sentences if any(len(a) == 1 for a in s.annotations)]
    if not required or not labeled:
        return None
    step = max(1, len(labeled) // limit)
    sample = [s.unlabeled() for s in labeled[::step][:limit]]
    gold = [
        (i, t, next(iter(a)))
        for i, s in enumerate(labeled[::step][:limit])
        for t, a in enumerate(s.annotations)
        if len(a) == 1
    ]
    without = {c: _accuracy(tagger, _without(sample, [c]), gold) for c in required}
    if len(required) > 1:
        without["*"] = _accuracy(tagger, _without(sample, required), gold)
    return {
        "sentences": len(sample),
        "tokens": len(gold),
        "accuracy": round(_accuracy(tagger, sample, gold), 4),
        "accuracy_without": {c: round(a, 4) for c, a in without.items()},
    }


def tagger_record(tagger) -> dict:
    """The record of a :class:`~tagtool.tagger.model.Tagger`, or of a tagger file read without its weights.

    Raises
    ------
    TaggerFileError
        The file is not a readable tagger file.
    """
    if hasattr(tagger, "input_columns"):
        return tagger.input_columns
    from tagtool.tagger.file_format import META_MEMBER, TaggerFileError
    from tagtool.tagger.reading import read_meta

    meta = read_meta(tagger)
    try:
        return read_record(meta.get("input_columns"), meta["features"]["columns_"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TaggerFileError(f"{tagger}: {META_MEMBER} is malformed ({type(exc).__name__}: {exc})") from None
