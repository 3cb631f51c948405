"""BIO-constrained decoding (forbidden transitions as a penalty) against brute force over the valid paths."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import enumerate_paths, make_chain, make_mask, path_score

from tagtool.core.labels import bio_transitions
from tagtool.decode import forbid_transitions, forward_backward, max_marginals, viterbi, viterbi_batch

LABEL_SETS = {
    "one type": ("O", "B-X", "I-X"),
    "two types": ("O", "B-X", "I-X", "B-Y", "I-Y"),
    "no O": ("B-A", "I-A", "B-B", "I-B"),
    "I-only type": ("O", "B-X", "I-X", "I-Z"),  # I-Z has no B-Z: left free
    "I before B": ("I-X", "O", "B-X"),
}
# 17 labels: the vectorised Viterbi step (tagtool.decode._viterbi._WIDE_LABELS)
WIDE = ("O",) + tuple(f"{p}-T{k}" for k in range(8) for p in "BI")


def _penalised(chain, rules, offsets=None):
    emit, trans, start, end = chain
    start_ok, trans_ok = rules
    offsets = np.array([0, len(emit)]) if offsets is None else offsets
    trans2, start2 = forbid_transitions(emit, offsets, trans, start, end, trans_ok, start_ok)
    return emit, trans2, start2, end


def _violations(paths, rules):
    start_ok, trans_ok = rules
    return (~start_ok[paths[:, 0]]).astype(int) + (~trans_ok[paths[:, :-1], paths[:, 1:]]).sum(axis=1)


def _cases(names, lengths, mask_kinds=("none", "random")):
    n_labels = len(names)
    for n_tokens in lengths:
        for kind in mask_kinds:
            for seed in range(3):
                for scale in (1.0, 500.0):
                    rng = np.random.default_rng([seed, n_tokens, n_labels, int(scale), len(kind)])
                    yield make_chain(rng, n_tokens, n_labels, scale), make_mask(rng, n_tokens, n_labels, kind)


@pytest.mark.parametrize("names", [*LABEL_SETS.values(), WIDE], ids=[*LABEL_SETS, "wide"])
def test_constrained_viterbi_is_the_best_valid_path(names):
    rules = bio_transitions(names)
    lengths = range(1, 4) if len(names) > 10 else range(1, 6)
    checked = 0
    for chain, allowed in _cases(names, lengths):
        enum = enumerate_paths(*chain, allowed)
        valid = _violations(enum.paths, rules) == 0
        if not valid.any():
            continue
        best = np.argmax(np.where(valid, enum.scores, -np.inf))
        path, score = viterbi(*_penalised(chain, rules), allowed=allowed)
        np.testing.assert_array_equal(path, enum.paths[best])
        assert score == pytest.approx(float(enum.scores[best]), rel=1e-12, abs=1e-9)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("names", LABEL_SETS.values(), ids=LABEL_SETS)
def test_without_a_valid_path_the_fewest_forbidden_steps_win(names):
    rules = bio_transitions(names)
    seen = 0
    for chain, allowed in _cases(names, range(1, 6), ("random", "single_path")):
        enum = enumerate_paths(*chain, allowed)
        violations = _violations(enum.paths, rules)
        # lexicographic: fewest violations first, then the highest score
        key = violations.astype(float) * 1e9 - enum.scores.astype(float) / (1 + np.abs(enum.scores).max())
        path, _ = viterbi(*_penalised(chain, rules), allowed=allowed)
        np.testing.assert_array_equal(path, enum.paths[np.argmin(key)])
        seen += violations.min() > 0
    assert seen > 0, "no case forced a forbidden step"


@pytest.mark.parametrize("names", LABEL_SETS.values(), ids=LABEL_SETS)
def test_constrained_batch_equals_each_sentence_alone(names):
    rules = bio_transitions(names)
    rng = np.random.default_rng(3)
    lengths = [1, 4, 2, 5, 3]
    emit, trans, start, end = make_chain(rng, sum(lengths), len(names), 50.0)
    emit[:4] *= 20  # one sentence with a much larger score range sets the penalty for all
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    _, trans2, start2, _ = _penalised((emit, trans, start, end), rules, offsets)
    paths, _ = viterbi_batch(emit, offsets, trans2, start2, end)
    for i in range(len(lengths)):
        rows = slice(offsets[i], offsets[i + 1])
        enum = enumerate_paths(emit[rows], trans, start, end)
        valid = _violations(enum.paths, rules) == 0
        np.testing.assert_array_equal(paths[rows], enum.paths[np.argmax(np.where(valid, enum.scores, -np.inf))])


@pytest.mark.parametrize("names", LABEL_SETS.values(), ids=LABEL_SETS)
def test_constrained_max_marginals_and_marginals_are_over_valid_paths(names):
    rules = bio_transitions(names)
    for chain, allowed in _cases(names, range(1, 5)):
        enum = enumerate_paths(*chain, allowed)
        valid = _violations(enum.paths, rules) == 0
        if not valid.any():
            continue
        paths, scores = enum.paths[valid], enum.scores[valid]
        penalised = _penalised(chain, rules)
        mm = max_marginals(*penalised, allowed=allowed)
        n_tokens, n_labels = chain[0].shape
        for t in range(n_tokens):
            for b in range(n_labels):
                here = paths[:, t] == b
                if here.any():
                    assert mm[t, b] == pytest.approx(float(scores[here].max()), rel=1e-12, abs=1e-9)
                else:  # only reachable through a forbidden step, or masked
                    assert mm[t, b] < scores.min() - 1.0
        top = scores.max()
        probs = np.exp(scores - top) / np.exp(scores - top).sum()
        expected = np.einsum("p,ptl->tl", probs, np.eye(n_labels)[paths]).astype(float)
        result = forward_backward(*penalised, allowed=allowed)
        np.testing.assert_allclose(result.marginals, expected, atol=1e-9)
        log_z = float(top + np.log(np.exp(scores - top).sum()))
        assert result.log_z == pytest.approx(log_z, rel=1e-12, abs=1e-9)


def test_valid_paths_keep_their_score_and_forbidden_steps_cost_more_than_any_range():
    names = LABEL_SETS["two types"]
    rules = bio_transitions(names)
    rng = np.random.default_rng(11)
    chain = make_chain(rng, 5, len(names), 500.0)
    penalised = _penalised(chain, rules)
    enum = enumerate_paths(*chain)
    violations = _violations(enum.paths, rules)
    spread = float(enum.scores.max() - enum.scores.min())
    for path, n_bad in zip(enum.paths[::37], violations[::37]):
        drop = path_score(path, *chain) - path_score(path, *penalised)
        assert drop == pytest.approx(0.0, abs=1e-9) if n_bad == 0 else drop > n_bad * spread
