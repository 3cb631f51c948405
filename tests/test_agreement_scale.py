"""Agreement of many annotators: the same numbers as the pair-by-pair definition, work in proportion to
the answers and to the pairs that share tokens, a limit, progress reports."""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
import pytest

import tagtool.services.agreement.measures as measures
from tagtool.cli.main import main
from tagtool.services.agreement import collect, compute
from tagtool.services.agreement.answers import MISSING
from tagtool.services.agreement.pairs import pair_agreement
from tagtool.services.agreement.progress import AgreementLimitError, of_project
from tagtool.store.project import Project
from tests.store.agreement_samples import crowd_project

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def random_rows(seed: int, annotators: int, sentences: int = 30):
    """Answers with whole sentences skipped, tokens left out and candidate sets."""
    rng = np.random.default_rng(seed)
    rows = []
    for sid in range(sentences):
        length = int(rng.integers(1, 12))
        gold = rng.integers(0, len(LABELS), size=length)
        for k in range(annotators):
            if rng.random() < 0.3:
                continue  # this annotator never saw the sentence
            for t in range(length):
                draw = rng.random()
                if draw < 0.05:
                    continue
                if draw < 0.1:
                    ann = {LABELS[gold[t]], LABELS[rng.integers(len(LABELS))]}
                elif draw < 0.3:
                    ann = {LABELS[rng.integers(len(LABELS))]}
                else:
                    ann = {LABELS[gold[t]]}
                rows.append((sid, t, f"n{k}", frozenset(ann)))
    return rows


def brute_force(answers, span_scheme: bool) -> dict:
    """Every pair of annotators one by one on the whole token × annotator table (what compute did before
    it looked only at the pairs sharing tokens), and the overall figures summed from the pairs."""
    found = []
    for a, b in combinations(range(len(answers.annotators)), 2):
        if measures.pair_tokens(answers, a, b):
            found.append(pair_agreement(answers, a, b, span_scheme))
    confusion = {}
    for pair in found:
        for (x, y), n in pair.confusion.items():
            key = (x, y) if x <= y else (y, x)
            confusion[key] = confusion.get(key, 0) + n
    table = np.where(answers.codes >= 0, answers.codes, np.nan).T  # sets count as missing
    kappas = [p.kappa for p in found if p.kappa is not None]
    return {
        "pairs": found,
        "kappa": float(np.mean(kappas)) if kappas else None,
        "confusion": confusion,
        "alpha": krippendorff.alpha(reliability_data=table, level_of_measurement="nominal"),
        "observed": sum(p.observed * p.compared for p in found if p.compared) / sum(p.compared for p in found),
        "compared": int(((answers.codes >= 0).sum(axis=1) >= 2).sum()),
    }


@pytest.mark.parametrize("seed, annotators", [(0, 2), (1, 3), (2, 6), (3, 9)])
def test_the_same_numbers_as_every_pair_one_by_one(seed, annotators):
    answers = collect(random_rows(seed, annotators), LABELS)
    expected = brute_force(answers, span_scheme=True)
    got = compute(answers, span_scheme=True)
    assert [(p.a, p.b) for p in got.pairs] == [(p.a, p.b) for p in expected["pairs"]]
    for mine, theirs in zip(got.pairs, expected["pairs"]):
        assert (mine.tokens, mine.compared, mine.set_tokens, mine.sets_compatible, mine.confusion) == (
            theirs.tokens,
            theirs.compared,
            theirs.set_tokens,
            theirs.sets_compatible,
            theirs.confusion,
        )
        assert (mine.observed, mine.kappa, mine.alpha) == pytest.approx((theirs.observed, theirs.kappa, theirs.alpha))
        assert mine.spans == theirs.spans and mine.spans.spans_a > 0
    assert got.kappa == pytest.approx(expected["kappa"]) and got.alpha == pytest.approx(expected["alpha"])
    assert got.confusion == expected["confusion"] and got.compared == expected["compared"]
    assert got.observed == pytest.approx(expected["observed"])


def test_above_the_pair_limit_the_overall_figures_stay_and_no_pair_is_looked_at(monkeypatch):
    answers = collect(random_rows(4, 8), LABELS)
    full = compute(answers, span_scheme=True)
    looked = []
    monkeypatch.setattr(measures, "pair_tokens", lambda *a: looked.append(a) or 0)
    fresh = collect(random_rows(4, 8), LABELS)
    overall = compute(fresh, span_scheme=True, pair_limit=7)
    assert looked == [] and "codes" not in fresh.__dict__  # no pair and no token × annotator table
    assert (overall.pairs, overall.kappa, overall.spans, overall.pairs_computed) == ([], None, None, False)
    assert (overall.alpha, overall.observed) == pytest.approx((full.alpha, full.observed))
    assert (overall.confusion, overall.compared) == (full.confusion, full.compared)


def test_only_the_pairs_that_share_a_token_are_compared(monkeypatch):
    """Ten annotators in five couples, each couple on its own sentence: five pairs, not forty-five."""
    rows = [
        (couple, t, f"n{2 * couple + k}", frozenset([LABELS[(t + k * (t % 3 == 0)) % 5]]))
        for couple in range(5)
        for k in range(2)
        for t in range(6)
    ]
    answers = collect(rows, LABELS)
    looked = []
    real = measures.pair_tokens
    monkeypatch.setattr(measures, "pair_tokens", lambda *a: looked.append(a) or real(*a))
    result = compute(answers, span_scheme=True)
    assert len(looked) == 5
    assert [(p.a, p.b) for p in result.pairs] == [(f"n{2 * c}", f"n{2 * c + 1}") for c in range(5)]


def test_three_thousand_annotators_without_a_table_of_them(tmp_path):
    """The adversarial case, small enough for a test: one 14-token task, every annotator answered all of it."""
    path = crowd_project(tmp_path / "crowd.tagproj", 3000)
    with Project.open(path, readonly=True) as project:
        answers = collect(project.team.annotator_answers(shared=True), project.labels.names)
        result = compute(answers, project.labels.is_span_scheme)
    assert "codes" not in answers.__dict__ and len(answers.unit) == 3000 * 14
    assert result.compared == 14 and not result.pairs_computed and 0.5 < result.alpha < 1.0
    counts = np.zeros((14, len(answers.labels)), dtype=int)
    np.add.at(counts, (answers.unit, answers.code), 1)
    alike = (counts * (counts - 1) // 2).sum()
    assert result.observed == pytest.approx(alike / (14 * 3000 * 2999 // 2))


def test_the_limit_refuses_before_reading_and_names_project_count_and_option(tmp_path, capsys, monkeypatch):
    path = crowd_project(tmp_path / "crowd.tagproj", 12)
    with Project.open(path, readonly=True) as project:
        monkeypatch.setattr(project.team, "annotator_answers", lambda **k: pytest.fail("read past the limit"))
        with pytest.raises(AgreementLimitError) as caught:
            of_project(project, limit=11)
    assert caught.value.annotators == 12 and caught.value.limit == 11
    assert main(["agreement", str(path), "--limit", "11"]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "12 annotators" in err and "limit of 11" in err and "--limit 12" in err
    assert main(["agreement", str(path), "--limit", "12", "--json"]) == 0
    assert len(capsys.readouterr().out) > 0


def test_the_default_limit_refuses_a_crowd_of_1001(tmp_path, capsys):
    path = crowd_project(tmp_path / "crowd.tagproj", 1001)
    assert main(["agreement", str(path)]) == 1
    assert "1,001 annotators have answers of their own, more than the limit of 1,000" in capsys.readouterr().err


def test_progress_is_reported_from_reading_to_the_end(tmp_path, monkeypatch):
    import tagtool.services.agreement.progress as progress_module

    monkeypatch.setattr(progress_module, "ROWS_PER_REPORT", 10)
    path = crowd_project(tmp_path / "crowd.tagproj", 30)
    seen = []
    with Project.open(path, readonly=True) as project:
        of_project(project, progress=lambda f, m="": seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(seen) > 40
    assert any(m.startswith("reading answers") for _, m in seen) and any(m.startswith("pair ") for _, m in seen)


def test_the_command_shows_a_progress_bar_once_it_takes_time(tmp_path, monkeypatch):
    from contextlib import contextmanager

    import tagtool.cli.agreement as command
    import tagtool.cli.progress as cli_progress

    bars = []

    @contextmanager
    def recording_bar(description):
        bars.append([description])
        yield lambda fraction, message="": bars[-1].append(fraction)

    monkeypatch.setattr(cli_progress, "progress_bar", recording_bar)
    path = crowd_project(tmp_path / "crowd.tagproj", 5)
    assert main(["agreement", str(path), "--json"]) == 0
    assert bars == []  # quick: no bar
    monkeypatch.setattr(command, "BAR_AFTER", 0.0)
    assert main(["agreement", str(path), "--json"]) == 0
    ((description, *fractions),) = bars
    assert description == "agreement crowd.tagproj" and fractions[-1] == 1.0 and len(fractions) > 3


def test_pairs_up_to_and_the_table_note(tmp_path, capsys):
    path = crowd_project(tmp_path / "crowd.tagproj", 4)
    assert main(["agreement", str(path), "--pairs-up-to", "3"]) == 0
    out = capsys.readouterr().out
    assert "4 annotators: more than 3, so no per-pair measures" in out
    assert main(["agreement", str(path), "--json", "--pairs-up-to", "4"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert len(doc["pairs"]) == 6 and doc["overall"]["pairs_computed"] is True
    assert doc["overall"]["observed_agreement"] == pytest.approx(
        sum(p["observed_agreement"] * p["compared"] for p in doc["pairs"]) / sum(p["compared"] for p in doc["pairs"])
    )


def test_missing_answers_are_not_entries():
    answers = collect(random_rows(5, 4), LABELS)
    assert len(answers.unit) == int((answers.codes != MISSING).sum())


def test_ctrl_c_stops_the_command_with_status_130(tmp_path, capsys, monkeypatch):
    from contextlib import contextmanager

    import tagtool.cli.progress as cli_progress

    @contextmanager
    def stopped():
        yield lambda: True

    monkeypatch.setattr(cli_progress, "stop_on_sigint", stopped)
    assert main(["agreement", str(crowd_project(tmp_path / "crowd.tagproj", 3))]) == cli_progress.EXIT_INTERRUPTED
    captured = capsys.readouterr()
    assert "agreement cancelled" in captured.err and captured.out == ""


def test_the_pairs_sharing_tokens_are_counted_slice_by_slice(monkeypatch):
    import tagtool.services.agreement.pairs as pairs_module

    answers = collect(random_rows(6, 7, sentences=60), LABELS)
    whole = pairs_module.sharing_pairs(answers)
    monkeypatch.setattr(pairs_module, "CO_OCCURRENCE_ROWS", 7)
    assert pairs_module.sharing_pairs(answers) == whole and len(whole) == 21
