"""Queue strategies and token questions in the window, driven by key presses."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

from tagtool.gui.main_window import MainWindow
from tagtool.gui.questions import QueuePlan, build_plan
from tagtool.services import guidance, strategies
from tagtool.services.strategies import Evidence, Tokens

TIMEOUT = 60_000


def train(window, qtbot, learner="mv-perceptron", **params):
    panel, loop = window.model_panel, window.model_loop
    panel.select_learner(learner, {"max_iter": 2, **params} if "perceptron" in learner else params)
    panel.folds.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    loop.auto = False  # the queue stays the model's while the test answers its questions
    return loop.result


def asking_on(window):
    """Ctrl+Shift+Q, as the user turns the token-question mode on."""
    QTest.keyClick(window.editor, Qt.Key_Q, Qt.ControlModifier | Qt.ShiftModifier)
    assert window.model_loop.questions.asking and window.queue_menu.asking_action.isChecked()
    return window.model_loop.questions.plan


def first_torn(plan, session) -> tuple[int, int]:
    """``(sentence id, token)`` of the first open question in queue order whose model is torn between two labels."""
    torn = next(
        (
            (sid, t)
            for sid in plan.queue
            for t in plan.open_questions(sid, session.project.annotations(sid))
            if plan.pair(sid, t) is not None
        ),
        None,
    )
    assert torn is not None, "a 2-epoch model is torn somewhere"
    return torn


def open_questions(window, plan: QueuePlan) -> list[tuple[int, int]]:
    """Every open question, in the queue's order."""
    project = window.session.project
    return [(sid, t) for sid in plan.queue for t in plan.open_questions(sid, project.annotations(sid))]


# ---------------------------------------------------------------------------
# the menu is the registry


def test_the_go_menu_lists_the_registry_and_disables_what_the_learner_lacks(window):
    menu = window.queue_menu
    # the strategies, then (after a separator) the measured-costs switch, the line saying which costs are used
    # and the near-duplicates switch
    listed = menu.strategy_menu.actions()[: len(strategies.REGISTRY)]
    assert tuple(a.data() for a in listed) == strategies.names()
    assert [a.text() for a in listed] == [s.label for s in strategies.REGISTRY.values()]
    assert menu.strategy_menu.actions()[len(listed)].isSeparator()
    assert menu.strategy_menu.actions()[len(listed) + 1 :] == [
        menu.measured_costs_action,
        menu.costs_action,
        menu.near_duplicates_action,
    ]
    checked = [a.data() for a in listed if a.isChecked()]
    assert checked == [strategies.DEFAULT_STRATEGY]
    window.model_panel.select_learner("crf", {})
    menu.update_state()
    actions = menu.strategy_actions
    assert not actions["disagreement"].isEnabled() and "two-view" in actions["disagreement"].toolTip()
    assert not actions["confidence"].isEnabled() and "wdpsl" in actions["confidence"].toolTip().lower()
    assert actions["gain"].isEnabled() and actions["uncertainty"].isEnabled()
    window.model_panel.select_learner("mv-perceptron", {"max_iter": 2})
    menu.update_state()
    assert actions["disagreement"].isEnabled() and not actions["confidence"].isEnabled()


def test_the_choice_is_kept_in_the_settings(tmp_path, chunk_project, qtbot):
    settings = QSettings(str(tmp_path / "kept.ini"), QSettings.IniFormat)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    assert window.open_project(chunk_project)
    window.queue_menu.strategy_actions["uncertainty"].trigger()
    window.queue_menu.asking_action.trigger()
    assert window.model_loop.questions.strategy == "uncertainty" and window.model_loop.questions.asking
    window.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.open_project(chunk_project)
    assert again.queue_menu.strategy_actions["uncertainty"].isChecked()
    assert again.queue_menu.asking_action.isChecked()
    assert again.model_loop.questions.strategy == "uncertainty" and again.model_loop.questions.asking


def test_the_strategy_orders_j_and_the_info_column(window, qtbot):
    result = train(window, qtbot)
    loop, session = window.model_loop, window.session
    default = loop.questions.plan
    assert default is result.plan, "the worker planned the queue: the GUI thread only swapped it in"
    assert default.strategy.name == strategies.DEFAULT_STRATEGY and session.queue == default.queue
    window.queue_menu.strategy_actions["uncertainty"].trigger()
    plan = loop.questions.plan
    # the mean over tokens of the uncertainty (docs/design.md#guidance), of the model's analysis
    a = result.analysis
    mean = strategies.mean_question(a.evidence.uncertainty, a.tokens, strategies.Showing())
    assert plan.scores == dict(zip(result.guidance, mean.tolist()))
    assert session.queue == plan.queue != default.queue
    panel = window.list_panel
    panel.sort_by_informativeness()
    assert panel.model.data(panel.model.index(0, 0), Qt.UserRole) == plan.queue[0]
    assert "Most uncertain" in panel.model.info_tip
    session.go_to(session.project.sentence_ids()[0])
    QTest.keyClick(window.editor, Qt.Key_J)
    assert session.current_id == plan.queue[0]
    # random: a fixed permutation, no scores
    window.queue_menu.strategy_actions["random"].trigger()
    assert loop.questions.plan.scores == {} and sorted(session.queue) == sorted(plan.queue)
    assert session.queue != sorted(session.queue)


# ---------------------------------------------------------------------------
# token questions


def test_tab_visits_the_questions_in_queue_order_across_sentences(window, qtbot):
    train(window, qtbot)
    plan = asking_on(window)
    assert plan.mode == "tokens"
    expected = open_questions(window, plan)
    sentences = list(dict.fromkeys(sid for sid, _ in expected))
    assert len(sentences) >= 3, "a 2-epoch model has questions in several sentences"
    # in tokens mode the sentences with questions come first in the queue (the others would cost nothing)
    assert set(plan.queue[: len(sentences)]) == set(sentences)
    assert all(plan.scores[a] > 0 >= plan.scores[b] for a in sentences[-1:] for b in plan.queue[len(sentences) :])
    session, editor = window.session, window.editor
    session.go_to(session.project.sentence_ids()[0])  # fully labeled: no question here
    visited = []
    n = min(len(expected), 40)
    for _ in range(n):
        QTest.keyClick(editor, Qt.Key_Tab)
        visited.append((session.current_id, editor.focus))
    assert visited == expected[:n]
    assert editor.hints.get(editor.focus).question, "the focused question is marked"
    # Shift+Tab goes back the same way
    QTest.keyClick(editor, Qt.Key_Backtab)
    assert (session.current_id, editor.focus) == expected[n - 2]
    assert editor.hasFocus(), "Tab did not move the keyboard focus away from the editor"


def test_answering_the_questions_leaves_the_confident_tokens_unlabeled(window, qtbot):
    train(window, qtbot)
    plan = asking_on(window)
    session, editor = window.session, window.editor
    session.go_to(session.project.sentence_ids()[0])
    QTest.keyClick(editor, Qt.Key_J)  # the queue's head: in tokens mode, a sentence with questions
    sid = session.current_id
    assert sid == plan.queue[0]
    asked = plan.open_questions(sid, session.annotations)
    assert asked and editor.focus == asked[0], "the sentence opens on its first question"
    suggestions = {t: editor.hints.get(t).suggestion for t in range(len(editor.tokens))}
    label_key = getattr(Qt, f"Key_{session.style.shortcut('O')}")
    for t in asked:
        assert editor.focus == t, "answering a question moves on to the next one"
        QTest.keyClick(editor, label_key)
    anns = session.annotations
    assert all(anns[t] == {"O"} for t in asked)
    confident = [t for t in range(len(anns)) if t not in asked]
    assert confident, "some tokens the model is sure of"
    assert all(anns[t] == frozenset() for t in confident), "confident tokens stay unlabeled"
    assert all(editor.hints.get(t).suggestion == suggestions[t] for t in confident), "and keep their suggestion"
    assert not any(editor.hints.get(t).question for t in confident)
    # the sentence has no question left: Tab goes on to the next sentence of the queue that has one
    QTest.keyClick(editor, Qt.Key_Tab)
    following = [s for s in plan.queue if s != sid and plan.open_questions(s, session.project.annotations(s))]
    assert session.current_id == following[0]


def test_tab_passes_over_a_skipped_sentence(window, qtbot):
    train(window, qtbot)
    plan = asking_on(window)
    session, editor = window.session, window.editor
    expected = open_questions(window, plan)
    sentences = list(dict.fromkeys(sid for sid, _ in expected))
    session.go_to(sentences[1])
    QTest.keyClick(editor, Qt.Key_K, Qt.ControlModifier)  # skip it (the sentence ops' key)
    assert sentences[1] in session.edits.skipped and sentences[1] not in session.queue
    session.go_to(sentences[0])
    last = [t for sid, t in expected if sid == sentences[0]][-1]
    editor.set_focus(last)
    QTest.keyClick(editor, Qt.Key_Tab)
    assert session.current_id == sentences[2], "the skipped sentence asks nothing"


def test_shift_space_gives_the_two_labels_the_model_is_torn_between(window, qtbot):
    result = train(window, qtbot)
    plan = asking_on(window)
    session, editor = window.session, window.editor
    sid, t = first_torn(plan, session)
    session.go_to(sid)
    editor.set_focus(t)
    pair = plan.pair(sid, t)
    a = result.analysis
    rows = plan.rows(sid)
    assert a.torn[rows][t] >= strategies.DEFAULT_CLOSE and pair[0] != pair[1]
    assert editor.hints.get(t).pair == pair
    QTest.keyClick(editor, Qt.Key_Space, Qt.ShiftModifier)
    assert session.annotations[t] == frozenset(pair), "a partial label: the two candidates"
    assert len(session.annotations[t]) == 2
    assert session.project.actions()[-1].kind == "candidate", "the action log counts it as a candidate set"
    # where the model is not torn, nothing changes and the status line says why
    calm = next(u for u in range(len(editor.tokens)) if plan.pair(sid, u) is None and not session.annotations[u])
    editor.set_focus(calm)
    messages = []
    editor.message.connect(messages.append)
    QTest.keyClick(editor, Qt.Key_Space, Qt.ShiftModifier)
    assert session.annotations[calm] == frozenset() and "not torn" in messages[-1]


def test_no_model_no_question(window):
    messages = []
    window.editor.message.connect(messages.append)
    QTest.keyClick(window.editor, Qt.Key_Tab)
    assert "come with a model" in messages[-1]
    assert window.session.index_of(window.session.current_id) == 0


def test_the_shortcuts_help_names_the_keys_and_modes():
    from tagtool.gui.keys import KEYS, MODES_NOTE

    keys = {row.label: row.what for row in KEYS}
    assert "Tab  Shift+Tab" in keys and "Shift+Space" in keys and "Ctrl+Shift+Q" in keys
    for mode in strategies.MODES:
        assert f"{mode} (" in MODES_NOTE


# ---------------------------------------------------------------------------
# the plan without a window


def _plan(asked_rows, queue_scores):
    """Three sentences of 3 tokens; ``asked_rows``: the tokens with q 0.9 (the rest 0.1)."""
    q = np.full(9, 0.1)
    q[list(asked_rows)] = 0.9
    analysis = guidance.Analysis(
        Evidence(q),
        Tokens.from_allowed(np.ones((9, 4), bool), np.array([0, 3, 6, 9])),
        False,
        np.zeros(9, int),
        np.ones(9, int),
        np.where(q > 0.5, 0.95, 0.2),
        ("O", "B-X", "I-X", "B-Y"),
    )
    return build_plan((10, 11, 12), analysis, {10: "none", 11: "none", 12: "none"}, strategies.get("gain"), "tokens")


def test_next_question_goes_round_the_queue():
    plan = _plan([1, 3, 5, 7], None)
    empty = {sid: (frozenset(),) * 3 for sid in (10, 11, 12)}
    anns = empty.__getitem__
    order = [(sid, t) for sid in plan.queue for t in plan.open_questions(sid, anns(sid))]
    assert sorted(order) == [(10, 1), (11, 0), (11, 2), (12, 1)]
    walk, here = [], (None, -1)
    for _ in range(5):
        here = plan.next_question(here[0], here[1], anns)
        walk.append(here)
    assert walk == order + order[:1], "forward round the queue, wrapping"
    back = plan.next_question(order[0][0], order[0][1], anns, direction=-1)
    assert back == order[-1], "backward wraps the other way"
    # answered questions are skipped; none left: None
    done = {sid: (frozenset({"O"}),) * 3 for sid in (10, 11, 12)}
    assert plan.next_question(10, 0, done.__getitem__) is None
    assert plan.pair(11, 0) == ("O", "B-X") and plan.pair(11, 1) is None


def test_a_strategy_the_model_cannot_serve_falls_back_to_the_default():
    from tagtool.gui.questions import Questions

    questions = Questions("disagreement")
    assert questions.effective("crf", two_view=False).name == strategies.DEFAULT_STRATEGY
    assert questions.effective("mv-perceptron", two_view=True).name == "disagreement"
    plan = _plan([1, 3], None)
    analysis = guidance.Analysis(
        Evidence(plan.q),
        Tokens.from_allowed(np.ones((9, 4), bool), plan.offsets),
        False,
        plan.best,
        plan.runner_up,
        np.zeros(9),
        plan.labels,
    )
    made = questions.update((10, 11, 12), analysis, {}, "crf", False)
    assert made.strategy.name == strategies.DEFAULT_STRATEGY and questions.strategy == "disagreement"
    assert Questions("no-such").strategy == strategies.DEFAULT_STRATEGY
