"""The statistics dock's agreement panel and per-annotator progress (tagtool.gui.agreement_panel)."""

from __future__ import annotations

import json

import pytest

from tagtool.cli.main import main
from tagtool.store.actions import Action
from tests.gui.helpers import statistics_shown
from tests.store.agreement_samples import hand_project, ner_team_project


def _shown(window, qtbot):
    panel = statistics_shown(window)
    with qtbot.waitSignal(panel.team.shown, timeout=10_000):
        panel.refresh()
    return panel.team


def test_two_annotators_agreement_and_progress_as_the_command_gives_them(open_window, tmp_path, qtbot, capsys):
    path = ner_team_project(tmp_path / "ner.tagproj")
    assert main(["agreement", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    team = _shown(open_window(path), qtbot)
    pair = team.result.agreement.pairs[0]
    assert (pair.a, pair.b) == ("ana", "ben")
    assert pair.kappa == pytest.approx(doc["pairs"][0]["cohen_kappa"])
    assert pair.alpha == pytest.approx(doc["pairs"][0]["krippendorff_alpha"])
    text = team.body.text()
    assert f"{pair.kappa:.3f}" in text and f"{100 * pair.spans.f1:.1f}" in text and "Disagree most on" in text
    assert [p.name for p in team.result.progress] == ["ana", "ben"]
    assert [p.sentences for p in team.result.progress] == [40, 20]


def test_speed_of_the_app_annotator_and_the_one_annotator_message(open_window, tmp_path, qtbot):
    path = hand_project(tmp_path / "hand.tagproj")
    window = open_window(path)
    team = _shown(window, qtbot)
    assert team.result.agreement.pairs[0].kappa == pytest.approx(0.42 / 0.62)  # tests/test_agreement.py
    project = window.session.project
    sid = project.sentence_ids()[0]
    project.apply_action(sid, {0: {"B-X"}, 1: {"I-X"}}, Action("full", 2, 0.0, 20.0, 20.0), "user")
    team = _shown(window, qtbot)
    user = next(p for p in team.result.progress if p.name == "user")
    # speed from the action log; the two tokens have ana's and ben's answers, so the edit is not (yet)
    # an answer of user's (the team rule makes it one at the next merge or import)
    assert user.tokens_per_minute == pytest.approx(6.0) and user.tokens == 0
    assert "user" in team.body.text()


def test_a_project_without_annotators_answers_says_what_agreement_needs(window, qtbot):
    team = _shown(window, qtbot)
    assert team.result.agreement is None and "two annotators or more" in team.body.text()


def test_nothing_is_computed_while_the_dock_is_hidden(open_window, tmp_path, qtbot, monkeypatch):
    path = hand_project(tmp_path / "hand.tagproj")
    calls = []
    import tagtool.gui.agreement_panel as module

    real = module.ProjectQuery.of
    monkeypatch.setattr(module.ProjectQuery, "of", classmethod(lambda cls, p: calls.append(p) or real(p)))
    window = open_window(path)
    window.stats_dock.hide()
    qtbot.wait(100)
    calls.clear()  # what opening the window did while the dock was on screen
    window.stats_panel.schedule()
    window.session.project.log_action(Action("full", 1, 0.0, 1.0, 1.0), None, "user")
    qtbot.wait(1000)
    assert calls == []


def test_a_read_only_old_file_is_computed_on_the_gui_thread(open_window, tmp_path, qtbot, monkeypatch):
    import tagtool.gui.agreement_panel as module

    monkeypatch.setattr(module.ProjectQuery, "of", classmethod(lambda cls, p: None))
    window = open_window(hand_project(tmp_path / "hand.tagproj"))
    team = _shown(window, qtbot)
    assert team.result.agreement.pairs[0].compared == 10


def test_closing_the_project_stops_the_computation(open_window, tmp_path, qtbot, monkeypatch):
    import time

    import tagtool.services.agreement.progress as progress
    from tagtool.errors import Cancelled

    def endless(rows, labels, checkpoint):  # runs until told to stop
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if checkpoint():
                raise Cancelled
            time.sleep(0.005)
        raise AssertionError("never told to stop")

    monkeypatch.setattr(progress, "collect", endless)
    window = open_window(hand_project(tmp_path / "hand.tagproj"))
    team = window.stats_panel.team
    team.refresh(window.session.project)
    qtbot.wait(100)
    runner = team._runner
    start = time.monotonic()
    window.close_project()
    assert runner.wait(30_000) and time.monotonic() - start < 5
    assert team.result is None


def test_requests_during_a_computation_make_one_more_and_errors_are_shown(open_window, tmp_path, qtbot, monkeypatch):
    import time

    import tagtool.services.agreement.progress as progress

    real, calls = progress.collect, []

    def slow(rows, labels, checkpoint):
        calls.append(time.monotonic())
        time.sleep(0.3)
        return real(rows, labels, checkpoint)

    monkeypatch.setattr(progress, "collect", slow)
    window = open_window(hand_project(tmp_path / "hand.tagproj"))
    team = window.stats_panel.team
    project = window.session.project
    with qtbot.waitSignal(team.shown, timeout=10_000):
        team.refresh(project)
        for _ in range(5):
            team.refresh(project)  # while it runs: one more afterwards
    with qtbot.waitSignal(team.shown, timeout=10_000):
        pass
    qtbot.wait(500)
    assert len(calls) == 2 and calls[1] - calls[0] >= 4 * 0.3  # after the pause
    monkeypatch.setattr(progress, "collect", lambda *a: 1 / 0)
    team.refresh(project)
    qtbot.waitUntil(lambda: "Could not compute the agreement: ZeroDivisionError" in team.body.text(), timeout=10_000)


def test_a_big_team_shows_clipped_tables_and_the_computation_reports_progress(
    open_window, tmp_path, qtbot, monkeypatch
):
    """60 annotators on one task: 1,770 pairs and 60 progress rows would be a long label laid out on the GUI
    thread; the dock shows DOCK_ROWS of each and says where the rest are.  Above the pair limit only the
    overall figures; the worker's progress reaches the panel."""
    import tagtool.gui.agreement_panel as module
    import tagtool.services.agreement.progress as progress
    from tests.store.agreement_samples import crowd_project

    path = crowd_project(tmp_path / "crowd.tagproj", 60)
    seen = []
    real_of_project = progress.of_project

    def recording(project, checkpoint=None, report=None, *rest):
        return real_of_project(project, checkpoint, lambda f, m="": (seen.append(f), report(f, m)), *rest)

    monkeypatch.setattr(progress, "of_project", recording)
    team = _shown(open_window(path), qtbot)
    text = team.body.text()
    assert seen and seen[-1] == 1.0
    assert team.result.agreement.pairs == [] and team.result.agreement.alpha is not None
    assert "60 annotators: more than 50, so no per-pair measures" in text
    assert text.count("<tr>") == 1 + 1 + 1 + module.DOCK_ROWS  # header and "all"; header and the annotators
    assert "30 more annotators: tagtool agreement lists them all" in text
