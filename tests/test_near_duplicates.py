"""Near-duplicate groups, the queue rule, and ``tagtool simulate --skip-near-duplicates``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tagtool.cli.simulating import SIMILARITY as CLI_SIMILARITY
from tagtool.cli.simulating import SKIP_NEAR_DUPLICATES
from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.services import near_duplicates as nd
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR

#: 20 tokens: one word changed leaves 17 of 23 3-grams shared (Jaccard 0.74).
LONG = "the patient had a mutation in the gene and no sign of the disease at all , as the others .".split()


def _groups(*sentences: str, **kw) -> list[tuple[int, ...]]:
    return sorted(nd.group_sentences([s.split() for s in sentences], **kw).members.values())


def test_equal_sentences_group():
    assert _groups("a b c", "x y", "a b c", "a b c") == [(0, 2, 3)]


def test_case_and_digits_do_not_separate_sentences():
    assert _groups("Madrid , 23 may ( EFE ) .", "MADRID , 25 May ( efe ) .", "Madrid , mayo") == [(0, 1)]
    assert _groups("Fees 1 3/4 .", "fees 2 1/4 .") == [(0, 1)]


def test_a_long_sentence_with_one_word_changed_is_near_and_a_short_one_is_not():
    changed = LONG.copy()
    changed[5] = "variant"
    assert nd.jaccard(LONG, changed) >= nd.SIMILARITY
    assert _groups(" ".join(LONG), " ".join(changed)) == [(0, 1)]
    # a dateline naming another city: the entity is what differs, and it is what the model must learn
    assert nd.jaccard("Madrid , 23 may ( EFE ) .".split(), "Barcelona , 23 may ( EFE ) .".split()) < nd.SIMILARITY
    assert _groups("Madrid , 23 may ( EFE ) .", "Barcelona , 23 may ( EFE ) .") == []


def test_unrelated_sentences_and_shared_words_in_another_order_do_not_group():
    assert _groups(" ".join(LONG), " ".join(reversed(LONG)), "something else entirely") == []


def test_the_cut_above_one_groups_equal_normalised_sentences_only():
    changed = LONG.copy()
    changed[5] = "variant"
    assert _groups(" ".join(LONG), " ".join(changed), similarity=2.0) == []
    assert _groups(" ".join(LONG), " ".join(LONG).upper(), similarity=2.0) == [(0, 1)]


def test_groups_join_chains_and_name_the_given_ids():
    a = LONG
    b = a[:-1] + ["today"]
    c = b[:-2] + ["now", "today"]
    groups = nd.group_sentences([a, ["x"], b, c], ids=[10, 11, 12, 13])
    assert groups.members == {10: (10, 12, 13)}
    assert groups.key == {10: 10, 12: 10, 13: 10} and groups.size(12) == 3 and groups.size(11) == 1
    assert groups.repeats == 2


def _brute_force(tokens, t):
    sets = [nd.shingles(nd.normalise(s)) for s in tokens]
    parent = list(range(len(tokens)))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(tokens)):
        for j in range(i):
            if nd.normalise(tokens[i]) == nd.normalise(tokens[j]) or len(sets[i] & sets[j]) >= t * len(
                sets[i] | sets[j]
            ):
                a, b = find(i), find(j)
                parent[max(a, b)] = min(a, b)
    out: dict[int, list[int]] = {}
    for i in range(len(tokens)):
        out.setdefault(find(i), []).append(i)
    return {k: tuple(v) for k, v in out.items() if len(v) > 1}


@pytest.mark.parametrize("t", [0.5, nd.SIMILARITY, 0.9])
def test_prefix_filtering_finds_every_pair_a_comparison_of_all_pairs_finds(t):
    rng = random.Random(3)
    words = "a b c d e f g h".split()
    tokens = []
    for _ in range(150):
        base = [rng.choice(words) for _ in range(rng.randint(1, 12))]
        tokens.append(base)
        if rng.random() < 0.5:  # an edited copy
            copy = base.copy()
            copy[rng.randrange(len(copy))] = rng.choice(words)
            tokens.append(copy)
    assert nd.group_sentences(tokens, similarity=t).members == _brute_force(tokens, t)


def test_the_corpus_slice_groups_as_all_pairs_do():
    tokens = [s.tokens for s in read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")]
    assert nd.group_sentences(tokens).members == _brute_force(tokens, nd.SIMILARITY) != {}


def test_the_queue_passes_over_a_near_duplicate_of_a_sentence_shown_since_the_model():
    groups = nd.group_sentences([["-"], LONG, ["-"], ["other"], LONG, ["-"]], ids=[1, 2, 3, 4, 5, 6])
    queue = [5, 3, 1, 4, 2, 6]
    assert nd.pass_over(queue, groups, []) == queue
    assert nd.pass_over(queue, groups, [3]) == [5, 3, 4, 2]  # 1 and 6 repeat 3; the shown one stays
    assert nd.pass_over(queue, groups, [3, 2]) == [3, 4, 2]
    assert nd.pass_over(queue, groups, [4]) == queue  # no near-duplicate
    assert nd.pass_over(queue, nd.NONE, [3]) == queue  # the rule off
    # after a retrain nothing is shown since the model: every sentence is back
    assert nd.pass_over(queue, groups, set()) == queue


def test_within_a_step_a_near_duplicate_of_a_shown_sentence_is_passed_over():
    groups = nd.group_sentences([["-"], LONG, ["-"], LONG])
    step = nd.StepShown(groups)
    assert not step.passes(0) and not step.passes(2)
    step.add(0)
    assert step.passes(2) and not step.passes(0) and not step.passes(1)
    assert not nd.StepShown(groups).passes(2)  # the next step: the next model decides again


def test_the_cli_and_app_defaults_are_the_services(tmp_path):
    from PySide6.QtCore import QSettings

    from tagtool.gui.settings import GuiSettings

    app = GuiSettings(QSettings(str(tmp_path / "gui.ini"), QSettings.IniFormat)).skip_near_duplicates
    assert SKIP_NEAR_DUPLICATES == nd.DEFAULT_SKIP == SimulationConfig("hmm").skip_near_duplicates == app
    assert CLI_SIMILARITY == nd.SIMILARITY


@pytest.fixture(scope="module")
def twins():
    """Twenty sentences, each twice (the copy upper-cased), and a test set."""
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    first = list(gold.sentences[2:22])
    upper = [Sentence(tuple(t.upper() for t in s.tokens), s.annotations) for s in first]
    pool = Corpus.from_sentences(first + upper, labels=gold.labels)
    return pool, Corpus.from_sentences(gold.sentences[60:], labels=gold.labels)


def _simulation(data, test, mode, skip, **kw):
    # threshold 0.7 (the margin learners' former default): at it this 40-sentence pool's queue meets the twins
    config = SimulationConfig(
        threshold=0.7,
        learner="mv-perceptron",
        params={"max_iter": 3},
        strategy="gain",
        mode=mode,
        step=60.0,
        growth=1.5,
        budget=200.0,
        full_data_f1=1.0,
        skip_near_duplicates=skip,
        **kw,
    )
    return Simulation(config, data, test)


def _twins_shown_together(sim, n: int) -> int:
    """Two steps of ``sim``; how many sentences were shown in the same step as their twin (``i`` and ``i + n``)."""
    model, together = None, 0
    for step in (60.0, 90.0):
        before = sim.oracle.allowed.copy()
        status = sim.oracle.sentence_status()
        sim.annotate_step(sim.questions(model, status), status, step)
        rows = [sim.oracle.rows(i) for i in range(2 * n)]
        changed = {i for i, r in enumerate(rows) if (sim.oracle.allowed[r] != before[r]).any()}
        together += sum(1 for i in changed if i < n and i + n in changed)
        model, _ = sim.train(model, None)
    return together


@pytest.mark.parametrize("mode", ["tokens", "review"])
def test_the_simulator_shows_no_two_twins_in_one_step(twins, mode):
    pool, test = twins
    on = _simulation(pool, test, mode, True)
    assert _twins_shown_together(on, len(pool) // 2) == 0
    assert any(note.startswith("near-duplicates: 19 groups, 21 sentences") for note in on.notes), on.notes
    assert _twins_shown_together(_simulation(pool, test, mode, False), len(pool) // 2) > 0


def test_the_simulated_session_differs_with_the_rule_off(twins):
    pool, test = twins
    on, off = (_simulation(pool, test, "review", skip) for skip in (True, False))
    on.run(), off.run()
    assert not np.array_equal(on.oracle.allowed, off.oracle.allowed)
