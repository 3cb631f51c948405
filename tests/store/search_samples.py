"""Projects and answers for the search index tests.

The schema version that adds the index is read from the migration list, not
written down: migrations of other work may come before it.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from project_samples import LABELS, write_v1_project

from tagtool.core import Corpus, Document, Sentence
from tagtool.store import schema

#: The migration that adds ``sentences_fts``, and the version it makes.
SEARCH_MIGRATION = schema.migrate_6_to_7
SEARCH_VERSION = schema.MIGRATIONS.index(SEARCH_MIGRATION) + 2

#: Characters that have tripped substring searches: LIKE's wildcards and
#: escape, quotes (SQL and FTS5 syntax), letters whose case LIKE does not
#: fold (Ñ/ñ, É/é), letters whose Unicode case folding lands on ASCII (the
#: Kelvin sign K → k, long s ſ → s, dotted İ), ß, an emoji, digits.
TRICKY = "aAbBnNeEsSkK %_\\'\"Ññéɲ\u212a\u017f\u0130ß😀0-.,"


def tricky_sentences(n: int, seed: int = 0) -> list[Sentence]:
    """``n`` sentences of 1–6 tokens drawn from :data:`TRICKY` (no spaces inside a token)."""
    rng = random.Random(seed)
    letters = TRICKY.replace(" ", "")
    sentences = []
    for _ in range(n):
        tokens = tuple("".join(rng.choice(letters) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 6)))
        sentences.append(Sentence(tokens))
    return sentences


def tricky_corpus(n: int = 300, seed: int = 0) -> Corpus:
    """Tricky sentences in three documents, plus some plain words."""
    sentences = tricky_sentences(n, seed)
    sentences += [
        Sentence(tuple(text.split()))
        for text in (
            "The pound rose",
            "THE POUND FELL",
            "50 % of the shares",
            "a_b and a%b",
            "back\\slash",
            "Ñandú grande",
            "un ñandú",
            "École normale",
            "une école",
            'don\'t "quote" me',
            "KELVIN \u212aelvin",
        )
    ]
    third = len(sentences) // 3
    parts = [sentences[:third], sentences[third : 2 * third], sentences[2 * third :]]
    return Corpus(LABELS, tuple(Document(f"doc{i}", part) for i, part in enumerate(parts)))


def like_fold(text: str) -> str:
    """Lower-case ASCII letters only: how SQLite's ``LIKE`` compares letters."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def expected_search(project, search: str) -> list[int]:
    """The ids a substring search must return, computed in Python, in document order: the sentences
    holding the search as typed or as the default tokenizer splits it (``search_forms``)."""
    from tagtool.store.search_index import search_forms

    wanted = [like_fold(form) for form in search_forms(search)]
    return [
        s.id
        for s in project.listing.sentence_summaries(preview_chars=10_000)
        if any(w in like_fold(s.preview) for w in wanted)
    ]


def write_pre_index_project(path: Path, corpus: Corpus) -> None:
    """``corpus`` in a file of the version just before the search index.

    Written as version 1 wrote files, then migrated with the real migrations
    up to that version.
    """
    write_v1_project(path, corpus)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for migration in schema.MIGRATIONS[: SEARCH_VERSION - 2]:
            migration(conn)
        schema.set_version(conn, SEARCH_VERSION - 1)
        conn.execute("COMMIT")
    finally:
        conn.close()


def index_in_step(conn: sqlite3.Connection) -> bool:
    """Whether the index holds exactly the trigrams of the sentences' text now.

    FTS5's ``integrity-check`` with a rank of 1 compares an external-content
    index with its content table.
    """
    try:
        conn.execute("INSERT INTO sentences_fts (sentences_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def index_objects(conn: sqlite3.Connection) -> set[str]:
    """The search index's table and triggers present in the file."""
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE name = 'sentences_fts' "
        "OR (type = 'trigger' AND name LIKE 'sentences\\_fts\\_%' ESCAPE '\\')"
    )
    return {name for (name,) in rows}
