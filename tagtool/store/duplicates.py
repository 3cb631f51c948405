"""Texts of a corpus that a project already holds, before they are added again.

Adding a file to a project appends its sentences; adding the file the
project was made from (or the same texts from another tool) would hold
every text twice. A corpus is cut into *texts* and each is looked for:

- sentences read from span records or raw text keep their record's text
  (:mod:`tagtool.store.formats.spans`): one text per record, the same when
  the record's text is the same, however it was tokenized or split;
- other sentences (CoNLL, token records): one text per document, the same
  when its sentences have the same tokens (a single common sentence such
  as ``-DOCSTART-`` does not make a document a copy).

The caller says what to do with those found (the command line's
``--duplicates add|skip``, the app's question).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.store.formats.spans import META_FULL, META_START, META_TEXT
from tagtool.store.sentence_rows import ORDERED_SENTENCES

#: ``(document name, tokens, meta)`` of each sentence, in order.
Row = tuple[str, tuple[str, ...], dict]


def _units(rows: Iterable[Row]) -> Iterator[tuple[object, list[int]]]:
    """``(key, positions of its sentences)`` of each text (module doc)."""
    key: object = None
    members: list[int] = []
    document = None
    for n, (name, tokens, meta) in enumerate(rows):
        text = meta.get(META_TEXT)
        if isinstance(text, str):
            if META_FULL in meta or META_START not in meta or not (isinstance(key, tuple) and key[0] == "text"):
                if members:
                    yield key, members
                key, members = ("text", meta.get(META_FULL, text)), []
            members.append(n)
        else:
            if not (isinstance(key, tuple) and key[0] == "tokens" and name == document):
                if members:
                    yield key, members
                key, members = ("tokens", ()), []
            key = ("tokens", key[1] + (tokens,))
            members.append(n)
        document = name
    if members:
        yield key, members


def project_keys(conn) -> set:
    """The keys of every text the project holds."""
    rows = (
        (name, tuple(json.loads(tokens)), json.loads(meta))
        for name, tokens, meta in conn.execute(
            f"SELECT d.name, s.tokens, s.meta {ORDERED_SENTENCES} ORDER BY d.position, s.position"
        )
    )
    return {key for key, _ in _units(rows)}


@dataclass(frozen=True)
class Held:
    """What of a corpus a project holds: ``texts`` of ``total`` texts, ``sentences`` of them; ``rest`` the corpus
    without them."""

    texts: int
    total: int
    sentences: int
    rest: Corpus


def held_texts(project, corpus: Corpus) -> Held:
    """The texts of ``corpus`` that ``project`` holds already (module doc)."""
    with project.read_transaction():
        ours = project_keys(project._db)
    flat: list[tuple[str, Sentence]] = [(d.name, s) for d in corpus.documents for s in d.sentences]
    held, total, dropped = 0, 0, set()
    for key, members in _units((name, s.tokens, s.meta) for name, s in flat):
        total += 1
        if key in ours:
            held += 1
            dropped.update(members)
    groups: list[tuple[str, list[Sentence]]] = []
    for n, (name, sentence) in enumerate(flat):
        if n in dropped:
            continue
        if not groups or groups[-1][0] != name:
            groups.append((name, []))
        groups[-1][1].append(sentence)
    documents = [Document(name, sentences) for name, sentences in groups]
    rest = Corpus(corpus.labels, documents, warnings=corpus.warnings) if dropped else corpus
    return Held(held, total, len(dropped), rest)
