"""Split and merge on CoNLL-U sentences keep a valid tree and a true ``# text`` (rules:
:mod:`tagtool.store.retokenize_conllu`); every export is parsed by the ``conllu`` package and checked."""

from __future__ import annotations

import random
from pathlib import Path

import conllu
import pytest
from conllu_checks import problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.store import sentence_rows
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.project import Project
from tagtool.store.retokenize import TokenState, merge_state, split_state
from tagtool.store.retokenize_conllu import SPLIT_RELATION

DATA = Path(__file__).resolve().parent.parent / "data"
SLICES = ("ewt_test_slice.conllu", "ud_en_ewt_train_head.conllu")
CORPORA = {name: read_corpus(DATA / name) for name in SLICES}


def state_of(sentence: Sentence) -> TokenState:
    annotations = tuple((t, "|".join(sorted(a)), "file", 0.0) for t, a in enumerate(sentence.annotations) if a)
    return TokenState(
        sentence.tokens, {k: list(v) for k, v in sentence.columns.items()}, dict(sentence.meta), annotations, ()
    )


def sentence_of(state: TokenState, n: int) -> Sentence:
    annotations = [frozenset()] * len(state.tokens)
    for t, text, _, _ in state.annotations:
        annotations[t] = sentence_rows.parse_stored(text)
    return Sentence(state.tokens, annotations, state.columns, state.meta)


def exported(corpus: Corpus, sentences: list[Sentence], tmp_path: Path) -> str:
    out = tmp_path / "out.conllu"
    write_corpus(Corpus(corpus.labels, [Document(corpus.documents[0].name, sentences)]), out)
    return out.read_text(encoding="utf-8")


def near_multiword(state: TokenState, rng: random.Random) -> int:
    """A token at, inside or beside a multiword token when the sentence has one, else any."""
    ranges = [line.split("\t", 1)[0] for line in state.meta["conllu:lines"].split("\n") if "-" in line.split("\t")[0]]
    spots = [t for r in ranges for a, b in [map(int, r.split("-"))] for t in range(a - 2, b + 1)]
    spots = [t for t in spots if 0 <= t < len(state.tokens)]
    return rng.choice(spots) if spots and rng.random() < 0.7 else rng.randrange(len(state.tokens))


def apply(state: TokenState, corpus: Corpus, rng: random.Random) -> TokenState:
    t = near_multiword(state, rng)
    long = len(state.tokens[t]) > 1
    if (rng.random() < 0.5 or not long) and len(state.tokens) > 1:
        return merge_state(state, min(t, len(state.tokens) - 2), corpus.labels, "me", 1.0)
    if not long:
        return state
    return split_state(state, t, rng.randrange(1, len(state.tokens[t])), corpus.labels, "me", 1.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(SLICES), seed=st.integers(0, 2**32 - 1), n_ops=st.integers(1, 6))
def test_random_splits_and_merges_export_valid_trees_and_text(tmp_path, name, seed, n_ops):
    corpus = CORPORA[name]
    rng = random.Random(seed)
    with_ranges = [s for s in corpus.sentences if "-" in s.meta["conllu:lines"]]
    picked = rng.sample(with_ranges, min(3, len(with_ranges))) + rng.sample(list(corpus.sentences), 3)
    states = [state_of(s) for s in picked]
    for _ in range(n_ops):
        k = rng.randrange(len(states))
        states[k] = apply(states[k], corpus, rng)
    text = exported(corpus, [sentence_of(s, k) for k, s in enumerate(states)], tmp_path)
    assert problems(text) == []
    assert len(conllu.parse(text)) == len(states)


def _sentence(corpus: Corpus, sent_id: str) -> TokenState:
    return state_of(next(s for s in corpus.sentences if s.meta.get("sent_id") == sent_id))


def _check(corpus: Corpus, state: TokenState, tmp_path: Path) -> conllu.TokenList:
    text = exported(corpus, [sentence_of(state, 0)], tmp_path)
    assert problems(text) == []
    return conllu.parse(text)[0]


def test_merging_a_dependent_into_the_root_keeps_the_root(tmp_path):
    corpus = CORPORA["ewt_test_slice.conllu"]
    state = next(state_of(s) for s in corpus.sentences if s.tokens[:3] == ("The", "Dow", "topped"))
    assert state.columns["head"][1:3] == ["3", "0"]  # Dow depends on the root, topped
    merged = merge_state(state, 1, corpus.labels, "me", 1.0)  # Dow + topped
    assert merged.tokens[1] == "Dowtopped" and merged.columns["head"][:3] == ["2", "0", "2"]
    assert merged.columns["deprel"][1] == "root" and merged.columns["lemma"][1] == "top"
    assert merged.columns["deps"][0] == "2:det"  # the's head was Dow: re-attached to the merged word
    assert merged.meta["text"].startswith("The Dowtopped out")
    _check(corpus, merged, tmp_path)


def test_splitting_the_root_attaches_the_second_half_to_the_first(tmp_path):
    corpus = CORPORA["ewt_test_slice.conllu"]
    state = next(state_of(s) for s in corpus.sentences if s.tokens[0] == "Think")
    split = split_state(state, 0, 3, corpus.labels, "me", 1.0)  # Thi + nk
    assert split.tokens[:2] == ("Thi", "nk")
    assert split.columns["head"][:2] == ["0", "1"] and split.columns["deprel"][1] == SPLIT_RELATION
    assert split.columns["deps"][1] == f"1:{SPLIT_RELATION}"
    parsed = _check(corpus, split, tmp_path)
    assert parsed.metadata["text"] == state.meta["text"]  # Thi has SpaceAfter=No


def test_merging_across_a_space_rewrites_the_text(tmp_path):
    corpus = CORPORA["ud_en_ewt_train_head.conllu"]
    state = next(state_of(s) for s in corpus.sentences if "in Mosul," in s.meta.get("text", ""))
    t = state.tokens.index("Mosul") - 1
    merged = merge_state(state, t, corpus.labels, "me", 1.0)
    assert merged.tokens[t] == "inMosul" and "inMosul," in merged.meta["text"]
    parsed = _check(corpus, merged, tmp_path)
    assert parsed[t]["head"] == int(state.columns["head"][t + 1])  # Mosul is the head of "in"
    assert parsed[t]["deprel"] == "obl"


def test_merges_across_a_multiword_tokens_edge_grow_it(tmp_path):
    corpus = CORPORA["ewt_test_slice.conllu"]
    state = next(state_of(s) for s in corpus.sentences if "i wasn't that drunk" in s.meta.get("text", ""))
    t = state.tokens.index("n't")  # n't + that: "wasn't" 6-7 grows to "wasn'tthat"
    merged = merge_state(state, t, corpus.labels, "me", 1.0)
    assert "wasn'tthat drunk" in merged.meta["text"]
    assert merged.meta["conllu:lines"].startswith("6-7\twasn'tthat\t")
    before = merge_state(state, t - 2, corpus.labels, "me", 1.0)  # i + was: 6-7 becomes 5-6 "iwasn't"
    assert "5-6\tiwasn't\t" in before.meta["conllu:lines"] and "iwasn't that" in before.meta["text"]
    inside = merge_state(state, t - 1, corpus.labels, "me", 1.0)  # was + n't: the range goes
    assert inside.tokens[t - 1] == "wasn't" and not inside.meta["conllu:lines"].startswith("6-7")
    for s in (merged, before, inside):
        _check(corpus, s, tmp_path)


def test_empty_nodes_of_merged_words_do_not_collide():
    from tagtool.store import retokenize_conllu

    meta = {"conllu:lines": "1.1\ta\t_\t_\t_\t_\t_\t_\t2:x\t_\n2.1\tb\t_\t_\t_\t_\t_\t_\t1.1:y\t_", "text": "p q"}
    columns = {"head": ["0", "1"], "deps": ["0:root|2.1:z", "1:dep"], "misc": ["_", "_"]}
    before = {k: list(v) for k, v in columns.items()}
    merged = {k: [v[0]] for k, v in columns.items()}
    retokenize_conllu.merge(("p", "q"), before, ("pq",), merged, meta, 0)
    assert meta["conllu:lines"].split("\n") == [
        "1.1\ta\t_\t_\t_\t_\t_\t_\t1:x\t_",
        "1.2\tb\t_\t_\t_\t_\t_\t_\t1.1:y\t_",
    ]
    assert merged["deps"] == ["0:root|1.2:z"] and meta["text"] == "pq"


@pytest.mark.parametrize("name", SLICES)
def test_through_a_project_every_merge_and_split_exports_valid(tmp_path, name):
    """Each word of a few sentences merged with the next and split, in the project; the export is valid."""
    corpus = read_corpus(DATA / name)
    with Project.create(tmp_path / "p.tagproj", corpus) as p:
        for sid in p.sentence_ids()[:8]:
            for t in range(0, len(p.sentence(sid)) - 1, 3):
                p.review.merge_tokens(sid, t)
                word = p.sentence(sid).tokens[t]
                if len(word) > 1:
                    p.review.split_token(sid, t, len(word) // 2)
        out = tmp_path / "out.conllu"
        write_corpus(p.review.export_corpus(), out)
    assert problems(out.read_text(encoding="utf-8")) == []


def synthetic(rng: random.Random) -> str:
    """A random valid CoNLL-U sentence: a random tree, multiword tokens, empty nodes, DEPS naming them."""
    n = rng.randint(2, 9)
    order = rng.sample(range(1, n + 1), n)
    heads = {order[0]: 0}
    for k, w in enumerate(order[1:], 1):
        heads[w] = rng.choice(order[:k])
    forms = ["".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 4))) for _ in range(n)]
    starts, w = {}, 1
    while w < n:
        if rng.random() < 0.3:
            end = min(n, w + rng.randint(1, 2))
            starts[w] = end
            w = end + 1
        else:
            w += 1
    nodes = {k: rng.randint(0, 2) for k in range(0, n + 1)}
    misc = {i: "SpaceAfter=No" if rng.random() < 0.3 else "_" for i in range(1, n + 1)}
    lines, text, covered = [], [], 0
    for k in range(nodes[0]):
        lines.append(f"0.{k + 1}\tE\t_\t_\t_\t_\t_\t_\t{rng.randint(1, n)}:orphan\t_")
    for i in range(1, n + 1):
        if i in starts:
            form = "".join(forms[j - 1] for j in range(i, starts[i] + 1))
            rmisc = "SpaceAfter=No" if rng.random() < 0.3 else "_"
            lines.append(f"{i}-{starts[i]}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{rmisc}")
            text += [form, "" if rmisc != "_" else " "]
            covered = starts[i]
        elif i > covered:
            text += [forms[i - 1], "" if misc[i] != "_" else " "]
        inside = any(a <= i <= b for a, b in starts.items())
        deps = f"{heads[i]}:{'root' if heads[i] == 0 else 'dep'}"
        if nodes[i - 1] and rng.random() < 0.5:
            deps += f"|{i - 1}.1:ref" if i - 1 else ""
        lines.append(
            f"{i}\t{forms[i - 1]}\t_\tX\t_\t_\t{heads[i]}\t{'root' if heads[i] == 0 else 'dep'}\t{deps}\t"
            f"{'_' if inside else misc[i]}"
        )
        for k in range(nodes[i]):
            lines.append(f"{i}.{k + 1}\tE\t_\t_\t_\t_\t_\t_\t{i}:orphan\t_")
    return f"# text = {''.join(text[:-1])}\n" + "\n".join(lines) + "\n\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n_ops=st.integers(1, 5))
def test_random_operations_on_synthetic_trees_with_ranges_and_empty_nodes(tmp_path, seed, n_ops):
    rng = random.Random(seed)
    path = tmp_path / "in.conllu"
    path.write_text(synthetic(rng), encoding="utf-8")
    assert problems(path.read_text(encoding="utf-8")) == []
    corpus = read_corpus(path)
    state = state_of(corpus.sentences[0])
    for _ in range(n_ops):
        state = apply(state, corpus, rng)
    text = exported(corpus, [sentence_of(state, 0)], tmp_path)
    assert problems(text) == [], text
    out = tmp_path / "out.conllu"
    assert read_corpus(out).sentences[0].tokens == state.tokens  # tagtool's own reader takes it back
