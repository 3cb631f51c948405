"""Sample corpora and hand-built old project files for the project-store tests.

Imported by ``test_project*.py`` and by the ``crash_editor.py`` subprocess.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tagtool.core import Corpus, Document, LabelSet, Sentence

LABELS = LabelSet(["O", "B-NP", "I-NP", "B-VP", "I-VP"])


def ann(*names: str) -> frozenset:
    return frozenset(names)


def sample_corpus() -> Corpus:
    """Two documents with full, partial and missing labels, columns and meta.

    Tokens hold the characters a JSON or SQL layer could mangle.
    """
    s1 = Sentence(
        ("Confidence", "in", "the", "pound"),
        (ann("B-NP"), ann("O", "B-VP"), ann(), ann("I-NP")),
        {"pos": ("NN", "IN", "DT", "NN"), "lemma": ("confidence", "in", "the", "pound")},
        {"sent_id": "wsj-1", "text": "Confidence in the pound"},
    )
    s2 = Sentence(
        ('"quoted"', "back\\slash", "tab\there", "ünï©ødé", "50%", "a_b", "[]{},:"),
        (ann(),) * 7,
        {"pos": ("``", "NN", "NN", "NN", "CD", "NN", ":")},
    )
    s3 = Sentence(("One",), (ann("O"),))
    s4 = Sentence(
        ("is", "widely", "expected"),
        (ann("B-VP"), ann("I-VP", "I-NP", "O"), ann("I-VP")),
        {"pos": ("VBZ", "RB", "VBN")},
        {"sent_id": "wsj-2"},
    )
    return Corpus(LABELS, (Document("wsj_0001", (s1, s2)), Document("wsj_0002", (s3, s4))))


def plain_corpus(n_sentences: int, n_tokens: int, labels: LabelSet = LABELS) -> Corpus:
    """Unannotated sentences ``w<i>_<t>`` in one document."""
    sentences = [Sentence(tuple(f"w{i}_{t}" for t in range(n_tokens))) for i in range(n_sentences)]
    return Corpus(labels, (Document("plain", sentences),))


def write_v1_project(path: Path, corpus: Corpus) -> None:
    """Write ``corpus`` as tagtool's first schema version stored it.

    Uses the frozen version-1 statements and plain SQL, as the version-1 code
    wrote files (no ``sentences.text`` column, no ``sentences_list`` index),
    plus one logged edit and one model.
    """
    from tagtool.store import schema

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN")
    schema.create_schema(conn, version=1)
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [("created", "2024-01-01T00:00:00+00:00"), ("tagtool_version", "0.0.1"), ("name", "old")],
    )
    conn.executemany(
        "INSERT INTO labels (name, position, color, shortcut) VALUES (?, ?, ?, ?)",
        [(n, i, "#aabbcc", str(i + 1)) for i, n in enumerate(corpus.labels)],
    )
    sid = 0
    for d, doc in enumerate(corpus.documents):
        conn.execute("INSERT INTO documents (id, name, position) VALUES (?, ?, ?)", (d + 1, doc.name, d))
        for p, s in enumerate(doc.sentences):
            sid += 1
            n_full = sum(len(a) == 1 for a in s.annotations)
            n_partial = sum(len(a) > 1 for a in s.annotations)
            conn.execute(
                "INSERT INTO sentences (id, document_id, position, n_tokens, n_full, n_partial, "
                "tokens, columns, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    d + 1,
                    p,
                    len(s),
                    n_full,
                    n_partial,
                    json.dumps(list(s.tokens)),
                    json.dumps({k: list(v) for k, v in s.columns.items()}),
                    json.dumps(dict(s.meta)),
                ),
            )
            for t, a in enumerate(s.annotations):
                if a:
                    text = "|".join(sorted(a, key=corpus.labels.index))
                    conn.execute(
                        "INSERT INTO annotations VALUES (?, ?, ?, 'import', 1700000000.0)",
                        (sid, t, text),
                    )
    conn.execute(
        "INSERT INTO annotation_log (sentence_id, token, old, new, annotator, time) "
        "VALUES (1, 0, '_', 'B-NP', 'user', 1700000001.0)"
    )
    conn.execute(
        "INSERT INTO models (learner, params, metrics, created, note, size, data) "
        "VALUES ('crf', '{}', '{\"f1\": 0.5}', 1700000002.0, 'old', 3, x'000102')"
    )
    conn.execute("COMMIT")
    conn.close()
