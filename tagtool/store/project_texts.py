"""The project's texts as written, with each token's character offsets in them.

A project made from span records (doccano, Label Studio, ``{"text": ...}``
JSON Lines, or plain text read through the tokenizer) keeps each record's
text in its sentences' meta (:mod:`tagtool.store.formats.spans`): ``text``
(the sentence's text), ``text_start`` (its offset in the record's text
when the record was split into sentences) and ``record_text`` (the whole
text, first sentence only). This module puts the records back together:
one :class:`ProjectText` per record, its sentences in order, and every
token's ``[start, end)`` in the record's text, so that spans given by
character offsets on the same text can be placed on the project's tokens
whatever sentence split or tokenization either side used.

Token offsets are not stored: each token is found again in its sentence's
text, in order, whitespace between tokens skipped. A token merged in the
app across a space (``U.S`` + ``.`` of ``U.S .``) is still found (spaces
inside it are skipped too). A record whose tokens cannot be found in its
text (edited outside the app) is left out and logged.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field

from tagtool.store.formats.spans import META_FULL, META_START, META_TEXT
from tagtool.store.sentence_rows import ORDERED_SENTENCES

logger = logging.getLogger(__name__)


@dataclass
class TextSentence:
    """One project sentence of a text: id, where (for messages), tokens and their offsets in the text."""

    id: int
    where: str
    tokens: tuple[str, ...]
    offsets: list[tuple[int, int]]


@dataclass
class ProjectText:
    """One record's text as the project holds it, with its sentences."""

    document: str
    text: str
    sentences: list[TextSentence] = field(default_factory=list)

    @property
    def n_tokens(self) -> int:
        return sum(len(s.tokens) for s in self.sentences)

    def flat(self) -> tuple[list[int], list[int], list[int]]:
        """Every token's start and end in the text, and the index of its sentence (computed once)."""
        cached = getattr(self, "_flat", None)
        if cached is None or len(cached[0]) != self.n_tokens:
            starts = [s for sent in self.sentences for s, _ in sent.offsets]
            ends = [e for sent in self.sentences for _, e in sent.offsets]
            owner = [n for n, sent in enumerate(self.sentences) for _ in sent.offsets]
            cached = self._flat = (starts, ends, owner)
        return cached


def align(tokens: tuple[str, ...], text: str, start: int = 0) -> list[tuple[int, int]] | None:
    """``[start, end)`` of each token in ``text`` from ``start``, whitespace skipped; None if they are not there."""
    out, pos, n = [], start, len(text)
    for token in tokens:
        first = None
        for char in token:
            if char.isspace():
                continue
            while pos < n and text[pos].isspace() and text[pos] != char:
                pos += 1
            if pos >= n or text[pos] != char:
                return None
            first = pos if first is None else first
            pos += 1
        if first is None:  # a token of spaces only: nothing to find
            first = pos
        out.append((first, pos))
    return out


def project_texts(conn: sqlite3.Connection) -> list[ProjectText]:
    """Every record text of the project, in document order (module doc); sentences without text are left out."""
    texts: list[ProjectText] = []
    current: ProjectText | None = None
    broken = False
    rows = conn.execute(
        f"SELECT s.id, d.name, s.position, s.tokens, s.meta {ORDERED_SENTENCES} ORDER BY d.position, s.position"
    )
    for sid, document, position, tokens, meta in rows:
        meta = json.loads(meta)
        text = meta.get(META_TEXT)
        if not isinstance(text, str):
            current = None
            continue
        starts_record = META_FULL in meta or META_START not in meta
        if starts_record:
            current = ProjectText(document, meta.get(META_FULL, text))
            broken = False
            texts.append(current)
        elif current is None or current.document != document or broken:
            continue
        try:
            start = int(meta.get(META_START, 0))
        except ValueError:
            start = -1
        tokens = tuple(json.loads(tokens))
        offsets = align(tokens, current.text, start) if 0 <= start <= len(current.text) else None
        if offsets is None:
            logger.info(
                "document %r, sentence %d: its tokens are not in its text; not attachable by offsets",
                document,
                position + 1,
            )
            texts.remove(current)
            current, broken = None, True
            continue
        current.sentences.append(TextSentence(sid, f"document {document!r}, sentence {position + 1}", tokens, offsets))
    return texts


def has_texts(conn: sqlite3.Connection) -> bool:
    """Whether any sentence of the project keeps its text (span records can be attached by offsets)."""
    # LIKE finds the candidates (no JSON1 needed: some SQLite builds lack it); json checks them.
    rows = conn.execute("SELECT meta FROM sentences WHERE meta LIKE '%\"text\":%' LIMIT 100")
    return any(isinstance(json.loads(meta).get(META_TEXT), str) for (meta,) in rows)
