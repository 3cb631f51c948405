"""Pure data: labels, allowed sets, corpus, features, views, snapshots, metrics.

Nothing here imports Qt.
"""

from tagtool.core.annotation import (
    EMPTY,
    allowed_mask,
    annotation_status,
    format_annotation,
    parse_annotation,
    sentence_weight,
    token_information,
)
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet

__all__ = [
    "EMPTY",
    "Corpus",
    "Document",
    "LabelSet",
    "Sentence",
    "allowed_mask",
    "annotation_status",
    "format_annotation",
    "parse_annotation",
    "sentence_weight",
    "token_information",
]
