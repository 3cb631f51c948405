"""Sentences, documents and corpora: the immutable text + annotation model.

Readers in :mod:`tagtool.store.formats` produce a :class:`Corpus`; the project
store imports and exports one; features and learners consume one through a
:class:`~tagtool.core.snapshot.Snapshot`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from tagtool.core.annotation import EMPTY, allowed_mask, annotation_status, make_annotation
from tagtool.core.labels import LabelSet


def _freeze_columns(columns: Mapping[str, Sequence[str]] | None, n_tokens: int) -> Mapping[str, tuple[str, ...]]:
    frozen = {}
    for name, values in (columns or {}).items():
        values = values if type(values) is tuple else tuple(values)
        if len(values) != n_tokens:
            raise ValueError(f"column {name!r} has {len(values)} values for {n_tokens} tokens")
        frozen[name] = values
    return MappingProxyType(frozen)


#: The meta or annotator labels of a sentence without any (read-only, so one serves them all).
_NO_ENTRIES: Mapping = MappingProxyType({})


def _by_annotator(annotator_labels: Mapping | None, n_tokens: int) -> Mapping[str, tuple[frozenset[str], ...]]:
    if not annotator_labels:
        return _NO_ENTRIES
    by_annotator = {}
    for name, labels in annotator_labels.items():
        labels = tuple(frozenset(a) for a in labels)
        if len(labels) != n_tokens:
            raise ValueError(f"annotator {name!r} has {len(labels)} labels for {n_tokens} tokens")
        by_annotator[name] = labels
    return MappingProxyType(by_annotator)


@dataclass(frozen=True, eq=True)
class Sentence:
    """One tokenised sentence with its per-token annotations.

    Parameters
    ----------
    tokens : sequence of str
        The token strings.
    annotations : sequence of frozenset of str, optional
        Allowed set of each token (see :mod:`tagtool.core.annotation`);
        defaults to no label anywhere.
    columns : mapping of str to sequence of str, optional
        Extra per-token input columns (e.g. ``"pos"``), one value a token.
        They become features; they are never predicted.
    meta : mapping of str to str, optional
        Free-form sentence attributes kept through import and export
        (CoNLL-U comments such as ``sent_id``).
    annotator_labels : mapping of str to sequence of frozenset of str, optional
        Each annotator's own labels, one per token, when the source had
        several (a Label Studio task with several annotations);
        ``annotations`` then holds what they agree on (their candidate set
        where they differ). Empty for single-source data.
    """

    tokens: tuple[str, ...]
    annotations: tuple[frozenset[str], ...] = ()
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    meta: Mapping[str, str] = field(default_factory=dict)
    annotator_labels: Mapping[str, tuple[frozenset[str], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A reader makes one per sentence of a file: the common case (a tuple
        # of tokens, no meta, no annotators) takes the shortest way.
        tokens = self.tokens if type(self.tokens) is tuple else tuple(self.tokens)
        if not tokens:
            raise ValueError("a sentence needs at least one token")
        annotations = tuple(map(frozenset, self.annotations)) or (EMPTY,) * len(tokens)
        if len(annotations) != len(tokens):
            raise ValueError(f"{len(annotations)} annotations for {len(tokens)} tokens")
        put = object.__setattr__
        put(self, "tokens", tokens)
        put(self, "annotations", annotations)
        put(self, "columns", _freeze_columns(self.columns, len(tokens)))
        put(self, "meta", MappingProxyType(dict(self.meta)) if self.meta else _NO_ENTRIES)
        put(self, "annotator_labels", _by_annotator(self.annotator_labels, len(tokens)))

    __hash__ = None  # mappings inside; compare with ==, never hash

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def status(self) -> str:
        """``"full"``, ``"partial"`` or ``"none"``."""
        return annotation_status(self.annotations)

    def allowed(self, label_set: LabelSet):
        """Boolean ``[T, L]`` allowed mask of this sentence."""
        return allowed_mask(self.annotations, label_set)

    def with_annotations(self, annotations: Sequence[Iterable[str]]) -> Sentence:
        """A copy with other annotations (normalised, not checked against a label set)."""
        return replace(self, annotations=tuple(make_annotation(a) for a in annotations))

    def unlabeled(self) -> Sentence:
        """A copy with every annotation removed."""
        return replace(self, annotations=(), annotator_labels={})


@dataclass(frozen=True)
class Document:
    """A named run of sentences (a file, or a ``-DOCSTART-`` section)."""

    name: str
    sentences: tuple[Sentence, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "sentences", tuple(self.sentences))

    __hash__ = None


#: :attr:`ReadWarning.kind` of a span (doccano, Label Studio) that could not be placed.
SKIPPED_SPAN = "skipped_span"


class ReadWarning(str):
    """One line of ``Corpus.warnings``, with its kind.

    A ``str`` (printed and listed as it is) that also says what it is
    about, so that callers count skipped spans by :attr:`kind`
    (:data:`SKIPPED_SPAN`) instead of searching the text.
    """

    kind: str

    def __new__(cls, text: str, kind: str = "note") -> ReadWarning:
        warning = super().__new__(cls, text)
        warning.kind = kind
        return warning

    def __reduce__(self):
        return ReadWarning, (str(self), self.kind)


def skipped_spans(warnings: Iterable[str]) -> int:
    """How many of ``warnings`` are spans that could not be placed (:data:`SKIPPED_SPAN`)."""
    return sum(getattr(w, "kind", None) == SKIPPED_SPAN for w in warnings)


@dataclass(frozen=True)
class Corpus:
    """Documents plus the label set their annotations are drawn from.

    Parameters
    ----------
    labels : LabelSet
        The label schema Σ. Every annotation must use only these labels.
    documents : sequence of Document
    warnings : sequence of str, optional
        What the reader skipped or changed without failing (a span off the
        text, a span snapped to token boundaries), one line each, naming
        file and line; readers give :class:`ReadWarning` lines, whose kind
        :attr:`skipped_spans` counts. Not part of equality.
    """

    labels: LabelSet
    documents: tuple[Document, ...]
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "documents", tuple(self.documents))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        for sentence in self.sentences:
            for ann in sentence.annotations:
                for name in ann:
                    self.labels.index(name)

    __hash__ = None

    @property
    def skipped_spans(self) -> int:
        """Spans of span records the reader could not place and skipped (listed in ``warnings``)."""
        return skipped_spans(self.warnings)

    @classmethod
    def from_sentences(
        cls, sentences: Iterable[Sentence], labels: LabelSet | None = None, name: str = "document"
    ) -> Corpus:
        """One-document corpus; the label set defaults to the labels observed."""
        sentences = tuple(sentences)
        if labels is None:
            labels = LabelSet.from_observed(n for s in sentences for a in s.annotations for n in a)
        return cls(labels, (Document(name, sentences),))

    @property
    def sentences(self) -> tuple[Sentence, ...]:
        """All sentences of all documents, in order."""
        return tuple(s for d in self.documents for s in d.sentences)

    def __iter__(self) -> Iterator[Sentence]:
        for d in self.documents:
            yield from d.sentences

    def __len__(self) -> int:
        return sum(len(d.sentences) for d in self.documents)

    @property
    def n_tokens(self) -> int:
        return sum(len(s) for s in self)

    @property
    def column_names(self) -> tuple[str, ...]:
        """Extra column names, in first-seen order."""
        seen: dict[str, None] = {}
        for s in self:
            for name in s.columns:
                seen.setdefault(name, None)
        return tuple(seen)


def merge_corpora(corpora: Iterable[Corpus]) -> Corpus:
    """One corpus holding the documents of all, with the union of their labels."""
    corpora = list(corpora)
    if not corpora:
        raise ValueError("nothing to merge")
    labels = corpora[0].labels
    for corpus in corpora[1:]:
        labels = labels.union(corpus.labels)
    return Corpus(labels, tuple(d for c in corpora for d in c.documents), tuple(w for c in corpora for w in c.warnings))
