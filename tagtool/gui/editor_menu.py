"""The sentence editor's context menu: labels, candidates, the model's suggestions and pair, the token commands.

Each entry names its key (the editor's keys: :mod:`tagtool.gui.editor`), so
the menu also teaches them; the window's token commands (split, merge:
:attr:`TokenEditor.token_actions`) follow at the end.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMenu

from tagtool.gui.label_picker import swatch


def token_menu(editor) -> QMenu:
    """The menu of ``editor``'s (a :class:`~tagtool.gui.editor.TokenEditor`) selection and focused token."""
    menu = QMenu(editor)
    style = editor.session.style
    full = menu.addMenu("Set label")
    candidates = menu.addMenu("Toggle candidate")
    current = editor.annotations[editor.focus] if editor.tokens else frozenset()
    for name in style.names:
        hint = f"\t{style.shortcut(name)}" if style.shortcut(name) else ""
        full.addAction(swatch(style.color(name)), name + hint).triggered.connect(
            lambda _=False, n=name: editor.apply_full(n)
        )
        action = candidates.addAction(swatch(style.color(name)), name)
        action.setCheckable(True)
        action.setChecked(name in current)
        action.triggered.connect(lambda _=False, n=name: editor.toggle_candidate(n))
    suggested = editor.suggested_changes(editor.selection())
    if suggested:
        names = sorted({"|".join(sorted(a)) for a in suggested.values()})
        menu.addAction(f"Accept suggestion {', '.join(names)}\tSpace").triggered.connect(
            lambda: editor.accept_suggestions(editor.selection())
        )
    if editor.suggested_changes():
        menu.addAction("Accept all suggestions of the sentence\tEnter").triggered.connect(
            lambda: editor.accept_suggestions()
        )
    pair = editor.questions.pair(editor.session.current_id, editor.focus) if editor.questions is not None else None
    if pair is not None:
        menu.addAction(f"Candidates {pair[0]} | {pair[1]} (the model is torn)\tShift+Space").triggered.connect(
            editor.give_pair
        )
    menu.addAction("Next token question\tTab").triggered.connect(lambda: editor.next_question(1))
    menu.addAction("Clear\t0").triggered.connect(editor.clear_selection)
    menu.addAction("Pick label…\t/").triggered.connect(editor.open_picker)
    if editor.token_actions:
        menu.addSeparator()
        menu.addActions(editor.token_actions)
    return menu
