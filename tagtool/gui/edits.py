"""What a key press does to the annotations of a token selection (no Qt here).

Each function returns the changes ``{token: annotation}`` one edit makes, so
the caller can write them with :meth:`Project.set_annotations` as one
transaction and push them as one undo command.

Span schemes (BIO, BIOES, BILOU)
--------------------------------
Labeling a selection of several tokens with a span label ``B-X`` or ``I-X``
labels the span with its type ``X``: ``B-X`` on the first token, ``I-X`` on the
others (``E-X``/``L-X`` on the last one when the scheme has it).  A single
token gets exactly the label asked for, so ``I-X`` can continue a span.

Toggling a candidate on a multi-token selection says "this span may be an
``X``": the first token's candidate set gains ``B-X`` and the others' ``I-X``
(or all lose them, when the focused token already allows its part).
``O`` and labels of other schemes toggle as they are.

Candidate sets are built from nothing: toggling a label on an unlabeled token
gives that one label (a full label), toggling a second makes a candidate set,
toggling the last one off again gives no label.
"""

from __future__ import annotations

from collections.abc import Sequence

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.labels import LabelSet
from tagtool.services.string_matches import span_labels as whole_span

Changes = dict[int, frozenset]


def span_type(name: str) -> str | None:
    """Type ``X`` of a span label ``B-X``/``I-X``/…, None for ``O`` and others."""
    if len(name) > 2 and name[1] == "-" and name[0] in "BIESLU":
        return name[2:]
    return None


def span_labels(labels: LabelSet, label: str, n_tokens: int) -> list[str]:
    """The label of each token of an ``n_tokens`` span labeled ``label``.

    Outside a span scheme, for ``O`` and for a single token: ``label`` itself.
    A span of several tokens is written as every span of the project is
    (:func:`tagtool.services.string_matches.span_labels`: ``B-X I-X …``, with
    ``E-X``/``L-X`` last where the scheme has them).  The one difference is
    the single token: a string match or a dictionary entry of one token is a
    whole span (``S-X`` in BIOES), while a key pressed on one token gives
    exactly its label, so that ``I-X`` can continue a span token by token.
    """
    kind = span_type(label) if labels.is_span_scheme else None
    if kind is None or n_tokens == 1:
        return [label] * n_tokens
    return whole_span(kind, n_tokens, labels.names)


def set_full(labels: LabelSet, tokens: Sequence[int], label: str) -> Changes:
    """Give the selected tokens a full label (a span in span schemes)."""
    labels.index(label)
    return {t: frozenset([name]) for t, name in zip(tokens, span_labels(labels, label, len(tokens)))}


def clear(tokens: Sequence[int]) -> Changes:
    """Remove every annotation of the selected tokens."""
    return {t: EMPTY for t in tokens}


def toggle_candidate(
    labels: LabelSet,
    annotations: Sequence[frozenset],
    tokens: Sequence[int],
    label: str,
    focus: int,
) -> Changes:
    """Add ``label`` to, or remove it from, the candidate sets of the selection.

    The focused token decides: if its set already holds its part of the span,
    every selected token loses its part, else every one gains it.
    """
    labels.index(label)
    parts = dict(zip(tokens, span_labels(labels, label, len(tokens))))
    key = focus if focus in parts else tokens[0]
    remove = parts[key] in annotations[key]
    changes = {}
    for t, part in parts.items():
        current = annotations[t]
        changed = current - {part} if remove else current | {part}
        changes[t] = make_annotation(changed, labels)
    return changes


def select_range(anchor: int, focus: int) -> list[int]:
    """Token indices between ``anchor`` and ``focus``, both included, in order."""
    lo, hi = sorted((anchor, focus))
    return list(range(lo, hi + 1))


def suggested_span(suggestions: Sequence[str | None], token: int) -> list[int]:
    """The tokens of the suggested span that holds ``token`` (a click on a suggestion accepts them).

    ``suggestions``: each token's suggested label, None where there is none
    (a labeled token, or no model).  In span schemes a span runs from its
    ``B-``/``S-``/``U-`` (or an ``I-`` after another type) over the ``I-``,
    ``E-``, ``L-`` of the same type that follow it; ``O`` and labels of other
    schemes are one token each.  Empty when ``token`` has no suggestion.
    """
    if not 0 <= token < len(suggestions) or not suggestions[token]:
        return []
    kind = span_type(suggestions[token])
    if kind is None:
        return [token]

    def continues(t: int) -> bool:
        """Token ``t`` carries on the span of token ``t - 1``."""
        here, before = suggestions[t], suggestions[t - 1]
        return (
            bool(here)
            and bool(before)
            and span_type(here) == kind == span_type(before)
            and here[0] in "IEL"
            and before[0] not in "ELSU"
        )

    first = token
    while first > 0 and continues(first):
        first -= 1
    last = token
    while last + 1 < len(suggestions) and continues(last + 1):
        last += 1
    return list(range(first, last + 1))
