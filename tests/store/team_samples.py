"""Projects, annotators' answers and table dumps for the team-work tests (assign, merge, adjudication).

Imported by ``test_team*.py``, ``test_concurrent_retokenize.py``, ``tests/test_cli_disk.py`` and by
the ``crash_merger.py`` subprocess.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from tagtool.core import Corpus, Document, LabelSet, Sentence
from tagtool.store.project import Project

LABELS = LabelSet(["O", "B-PER", "I-PER", "B-ORG", "I-ORG"])
_WORDS = ("Ana", "vio", "a", "Luis", "en", "la", "ONU", "ayer", "con", "Banco", "Sur", ".")


def gold_corpus(n_sentences: int = 40, seed: int = 0) -> Corpus:
    """Sentences of 3–12 tokens with gold labels (a name is ``B-PER I-PER``, an organisation ``B-ORG``)."""
    rng = random.Random(seed)
    sentences = []
    for i in range(n_sentences):
        n = rng.randint(3, 12)
        tokens = tuple(f"{rng.choice(_WORDS)}{i}_{t}" for t in range(n))
        labels = [rng.choice(["O", "O", "O", "B-PER", "B-ORG"]) for _ in range(n)]
        labels = [
            ("I-PER" if lab == "B-PER" and t and labels[t - 1] == "B-PER" else lab) for t, lab in enumerate(labels)
        ]
        sentences.append(
            Sentence(tokens, tuple(frozenset({lab}) for lab in labels), {"pos": ("X",) * n}, {"sent_id": f"s{i}"})
        )
    return Corpus(LABELS, (Document("a", sentences[: n_sentences // 2]), Document("b", sentences[n_sentences // 2 :])))


def unlabeled_project(path: Path, n_sentences: int = 40) -> tuple[Project, dict]:
    """A project of :func:`gold_corpus` without labels, and the gold labels by tokens."""
    gold = gold_corpus(n_sentences)
    project = Project.create(
        path,
        Corpus(gold.labels, tuple(Document(d.name, tuple(s.unlabeled() for s in d.sentences)) for d in gold.documents)),
    )
    return project, {s.tokens: s.annotations for s in gold}


def answer_file(path: Path, gold: dict, noise: float, seed: int, skip: float = 0.0) -> dict:
    """Label an annotator's file like a noisy annotator: ``B-PER`` read as ``B-ORG`` (and back)
    with probability ``noise``, a token left unlabeled with probability ``skip``.

    Returns ``{(source id, token): label}`` of the answers given.
    """
    from tagtool.store.merge import SOURCE_KEY

    rng = random.Random(seed)
    given = {}
    swap = {"B-PER": "B-ORG", "B-ORG": "B-PER"}
    with Project.open(path) as p:
        for sid in p.sentence_ids():
            sentence = p.sentence(sid)
            changes = {}
            for t, ann in enumerate(gold[sentence.tokens]):
                if rng.random() < skip:
                    continue
                label = next(iter(ann))
                if label in swap and rng.random() < noise:
                    label = swap[label]
                changes[t] = label
                given[(int(sentence.meta[SOURCE_KEY]), t)] = label
            p.set_annotations(sid, changes, "whoever")
    return given


def answered_team(
    path: Path, names: list[str], n_sentences: int, overlap: float = 0.1, noise: float = 0.2
) -> tuple[object, dict[str, Path]]:
    """A closed project of ``n_sentences`` at ``path``, assigned to ``names`` (files in the folder
    ``out`` beside it, :func:`tagtool.store.assign.write_files`), each file answered by
    :func:`answer_file` (seeds 0, 1, ...); the assignment and the files by annotator."""
    from tagtool.store import assign

    project, gold = unlabeled_project(path, n_sentences)
    plan = assign.plan(assign.open_sentences(project), list(names), overlap, seed=1)
    files = assign.write_files(project, plan, path.parent / "out")
    project.close()
    for i, f in enumerate(files.values()):
        answer_file(f, gold, noise=noise, seed=i)
    return plan, files


def dump(path: Path) -> dict:
    """Every table a merge or a resolution writes, as sorted rows (``time`` columns left out)."""
    conn = sqlite3.connect(path)
    try:
        return {
            "annotations": sorted(conn.execute("SELECT sentence_id, token, labels, annotator FROM annotations")),
            "annotator_labels": sorted(conn.execute("SELECT * FROM annotator_labels")),
            "adjudicated": sorted(conn.execute("SELECT sentence_id, token, labels, annotator FROM adjudicated")),
            "log": conn.execute("SELECT count(*) FROM annotation_log").fetchone()[0],
            "counts": sorted(conn.execute("SELECT id, n_full, n_partial FROM sentences")),
        }
    finally:
        conn.close()
