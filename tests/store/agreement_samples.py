"""Projects holding several annotators' own answers (``annotator_labels``), for the agreement tests."""

from __future__ import annotations

from pathlib import Path

from tagtool.core import Corpus, LabelSet
from tagtool.core.corpus import Sentence
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

DATA = Path(__file__).resolve().parent.parent / "data"
NER_SLICE = DATA / "conll2002_esp_train_head.txt"

#: One sentence two annotators labeled; its agreement is worked out by hand in tests/test_agreement.py.
HAND_TOKENS = tuple("w0 w1 w2 w3 w4 w5 w6 w7 w8 w9".split())
HAND_A = ("O", "O", "O", "B-X", "B-X", "I-X", "O", "B-X", "I-X", "O")
HAND_B = ("O", "O", "B-X", "B-X", "B-X", "I-X", "O", "O", "I-X", "O")


def training_labels(*answers) -> tuple[frozenset, ...]:
    """The design's training label of each token: the common answer, else the union (a candidate set)."""
    return tuple(frozenset().union(*column) for column in zip(*answers))


def team_sentence(tokens, by_name: dict[str, tuple]) -> Sentence:
    """A sentence with each annotator's answers (labels as text, ``None`` for no answer)."""
    answers = {
        name: tuple(frozenset() if a is None else frozenset(a.split("|")) for a in labels)
        for name, labels in by_name.items()
    }
    return Sentence(tokens, training_labels(*answers.values()), annotator_labels=answers)


def hand_project(path: Path) -> Path:
    """The hand-computed sentence as a project: annotators ``ana`` (a) and ``ben`` (b)."""
    sentence = team_sentence(HAND_TOKENS, {"ana": HAND_A, "ben": HAND_B})
    corpus = Corpus.from_sentences([sentence], labels=LabelSet(["O", "B-X", "I-X"]))
    with Project.create(path, corpus):
        pass
    return path


def noisy(labels: tuple[str, ...], every: int) -> tuple[str, ...]:
    """``labels`` with every ``every``-th entity token's type changed (a type confusion)."""
    out, seen = [], 0
    for label in labels:
        if label != "O":
            seen += 1
            if seen % every == 0:
                label = label[:2] + ("ORG" if label[2:] != "ORG" else "PER")
        out.append(label)
    return tuple(out)


def ner_team_project(path: Path, n_sentences: int = 40) -> Path:
    """The CoNLL-2002 slice: ``ana`` gives the gold labels of every sentence, ``ben`` labels the
    first half with a type confusion every 5th entity token; the second half stays ``ana``'s alone."""
    gold = read_corpus(NER_SLICE, format="conll").sentences[:n_sentences]
    sentences = []
    for i, s in enumerate(gold):
        ana = tuple(next(iter(a)) for a in s.annotations)
        by_name = {"ana": ana} if i >= n_sentences // 2 else {"ana": ana, "ben": noisy(ana, 5)}
        sentences.append(team_sentence(s.tokens, by_name))
    labels = read_corpus(NER_SLICE, format="conll").labels
    with Project.create(path, Corpus.from_sentences(sentences, labels=labels)):
        pass
    return path


#: The one 14-token task of :func:`crowd_project` and the labels its crowd chooses among.
CROWD_GOLD = ("B-PER", "I-PER", "O", "O", "B-LOC", "O", "O", "O", "O", "B-PER", "O", "O", "O", "O")
CROWD_LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")


def crowd_project(path: Path, n: int, seed: int = 0) -> Path:
    """``n`` annotators (``a00000``, …) all answering one 14-token sentence, each label wrong with chance 0.1."""
    import random

    rng = random.Random(seed)
    answers = {
        f"a{i:05d}": tuple(g if rng.random() > 0.1 else rng.choice(CROWD_LABELS) for g in CROWD_GOLD) for i in range(n)
    }
    sentence = team_sentence(tuple(f"w{i}" for i in range(len(CROWD_GOLD))), answers)
    with Project.create(path, Corpus.from_sentences([sentence], labels=LabelSet(list(CROWD_LABELS)))):
        pass
    return path
