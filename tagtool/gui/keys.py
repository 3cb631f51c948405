"""The app's keys: the one table the editor, the window's menus, Help › Keyboard shortcuts and the docs read.

Each :class:`Key` row names the keys (Qt's portable text: ``"Ctrl+Shift+Q"``,
``"Left"``, ``"/"``), what they do, and who binds them: the editor's key
handler (:data:`EDITOR`, dispatched by :attr:`Key.command`), the window's
menus (:data:`MENU`, found by :attr:`Key.name`) or the adjudication view's
table (:data:`ADJUDICATION`).  Label keys are a scheme, not fixed keys
(:data:`KEY_SCHEME`): their rows have no keys and are described by
:attr:`Key.shown`.  A menu row may name a Qt standard key
(:attr:`Key.standard`, e.g. ``"Undo"``), whose platform bindings the menu
uses; its :attr:`Key.keys` are the bindings on Linux and Windows.

This module imports no Qt, so the documentation's build reads it
(``docs/hooks.py`` renders the keyboard reference from it), and
``tests/gui/test_gui_keys.py`` checks that the editor and the menus bind
exactly the keys listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

EDITOR, MENU, ADJUDICATION = "editor", "menu", "adjudication view"


@dataclass(frozen=True)
class Key:
    """One row of the key table.

    Parameters
    ----------
    name : str
        What the menus and other modules look the row up by.
    keys : tuple of str
        The keys bound, in Qt's portable text; empty for a scheme (label keys).
    what : str
        What they do, one line for Help and the docs.
    section : str
        The heading Help and the docs group the row under.
    by : tuple of str
        Who binds the keys: :data:`EDITOR`, :data:`MENU`, :data:`ADJUDICATION`.
    command : str
        The editor's command the keys run (:meth:`tagtool.gui.editor.TokenEditor.keyPressEvent`).
    shown : str
        How Help and the docs write the keys, when not just the keys joined.
    standard : str
        A ``QKeySequence`` standard key whose platform bindings a menu uses.
    """

    name: str
    keys: tuple[str, ...]
    what: str
    section: str
    by: tuple[str, ...] = (EDITOR,)
    command: str = ""
    shown: str = ""
    standard: str = ""

    @property
    def label(self) -> str:
        """The keys as Help and the docs show them."""
        return self.shown or "  ".join(self.keys)


MOVING, LABELING, MODEL, SENTENCES, REVIEW, TEAM, WINDOW = (
    "Moving",
    "Labeling",
    "Suggestions and the model",
    "Sentences",
    "Review",
    "Team work",
    "Window",
)

#: Every key of the app, in the order Help and the docs list them.
KEYS = (
    Key("move", ("Left", "Right"), "move to the previous / next token", MOVING, command="move"),
    Key("ends", ("Home", "End"), "first / last token", MOVING, command="move"),
    Key(
        "extend",
        ("Shift+Left", "Shift+Right", "Shift+Home", "Shift+End"),
        "extend the selection",
        MOVING,
        command="move",
        shown="Shift+←  Shift+→",
    ),
    Key("collapse", ("Esc",), "collapse the selection", MOVING, command="collapse"),
    Key(
        "full label",
        (),
        "full label (the label's key) on the selection, then move on; in span schemes the "
        "type's B- label (a selection of several tokens: the whole span)",
        LABELING,
        shown="1 … 9",
    ),
    Key("inside label", (), "the type's I- label (inside a span), in span schemes", LABELING, shown="Shift+1 … 9"),
    Key(
        "candidate",
        (),
        "add / remove that label in the candidate set (partial label); with Shift, the type's I- label",
        LABELING,
        shown="Ctrl+1 … 9, Alt+1 … 9",
    ),
    Key("clear", ("0", "Del", "Backspace"), "clear the selection's labels", LABELING, command="clear"),
    Key(
        "picker",
        ("/", "Shift+/", "Ctrl+L"),
        "pick a label from a searchable list (Ctrl+Enter: as candidate)",
        LABELING,
        command="picker",
        shown="/  Ctrl+L",
    ),
    Key(
        "label all",
        ("Ctrl+Shift+L",),
        "label all occurrences: the labeled span or the suggestion at the focused token, wherever its text recurs "
        "on unlabeled tokens of the project (Edit menu; one undo step)",
        LABELING,
        by=(MENU,),
    ),
    Key("next", ("N",), "next sentence", SENTENCES, by=(EDITOR, MENU), command="navigate"),
    Key("previous", ("P",), "previous sentence", SENTENCES, by=(EDITOR, MENU), command="navigate"),
    Key(
        "unfinished",
        ("J",),
        "the first sentence of the queue (Go › Queue strategy) that is not fully labeled "
        "(without a model: document order, or the random order under Random order)",
        SENTENCES,
        by=(EDITOR, MENU),
        command="navigate",
    ),
    Key("find", ("Ctrl+F",), "search the sentence list", SENTENCES, by=(MENU,), standard="Find"),
    Key(
        "accept",
        ("Return", "Enter"),
        "accept the model's suggestions on screen for the whole sentence (one undo "
        "step); once the sentence is fully labeled, the queue's next sentence opens (Edit › Preferences)",
        MODEL,
        command="accept",
        shown="Enter",
    ),
    Key(
        "accept token",
        ("Space",),
        "accept the suggestion on the selected token(s), then move on",
        MODEL,
        command="accept token",
    ),
    Key(
        "question",
        ("Tab", "Backtab", "Shift+Tab", "Shift+Backtab"),
        "the next / previous token the model asks about (a token question; a span question is selected whole, "
        "Go › Ask whole spans), across sentences in the queue's order",
        MODEL,
        command="question",
        shown="Tab  Shift+Tab",
    ),
    Key(
        "pair",
        ("Shift+Space",),
        "give the focused token the two labels the model is torn between, as a candidate set",
        MODEL,
        command="pair",
    ),
    Key(
        "token questions",
        ("Ctrl+Shift+Q",),
        "token questions mode: mark the tokens the model asks about; a "
        "sentence opens on its first question and answering one moves on to the next (kept in the project; the "
        "status bar shows the mode, a click switches it)",
        MODEL,
        by=(MENU,),
    ),
    Key(
        "train",
        ("Ctrl+T",),
        "train the model now, with the learner's full settings (after an edit it retrains by itself with a few passes)",
        MODEL,
        by=(MENU,),
    ),
    Key("cancel training", ("Ctrl+.",), "cancel the training run", MODEL, by=(MENU,)),
    Key(
        "new suggestions",
        ("F5", "Ctrl+R"),
        "show the latest model's suggestions for the open sentence (they "
        "wait, marked above the editor, until you leave the sentence or ask)",
        MODEL,
        by=(MENU,),
    ),
    Key(
        "flag",
        ("Ctrl+Shift+F",),
        "flag the sentence for review with a comment (again: edit the comment or remove the flag)",
        REVIEW,
        by=(MENU,),
    ),
    Key(
        "skip",
        ("Ctrl+K",),
        "skip the sentence: it leaves the queue and is not trained on; go on to the next (again: un-skip)",
        REVIEW,
        by=(MENU,),
    ),
    Key("next flagged", ("Ctrl+G",), "the next sentence flagged for review", REVIEW, by=(MENU,)),
    Key("split", ("Ctrl+Shift+S",), "split the focused token in two (a dialog asks where)", REVIEW, by=(MENU,)),
    Key("merge", ("Ctrl+Shift+M",), "merge the focused token with the next one", REVIEW, by=(MENU,)),
    Key(
        "adjudication",
        ("Ctrl+Shift+A",),
        "the adjudication view: each annotator's answer per token where several annotators answered",
        TEAM,
        by=(MENU,),
    ),
    Key(
        "pick answer",
        (),
        "resolve the token with annotator k's answer (a full label, or their set)",
        TEAM,
        by=(ADJUDICATION,),
        shown="1 … 9 (adjudication view)",
    ),
    Key(
        "keep set",
        ("K",),
        "resolve the token keeping the candidate set of the answers",
        TEAM,
        by=(ADJUDICATION,),
        shown="K (adjudication view)",
    ),
    Key(
        "take back",
        ("Backspace", "Del"),
        "take the token's resolution back",
        TEAM,
        by=(ADJUDICATION,),
        shown="Backspace (adjudication view)",
    ),
    Key(
        "next dispute",
        ("Tab", "Shift+Tab"),
        "the next / previous unresolved disagreement, across sentences most disputed first",
        TEAM,
        by=(ADJUDICATION,),
        shown="Tab  Shift+Tab (adjudication view)",
    ),
    Key("undo", ("Ctrl+Z",), "undo", WINDOW, by=(MENU,), standard="Undo"),
    Key("redo", ("Ctrl+Shift+Z",), "redo", WINDOW, by=(MENU,), standard="Redo"),
    Key(
        "side panels",
        ("F9",),
        "hide the side panels (Legend, Statistics, Model) for a wider editor, and bring them back",
        WINDOW,
        by=(MENU,),
    ),
    Key("new project", ("Ctrl+N",), "a new project (File › New project)", WINDOW, by=(MENU,), standard="New"),
    Key("open", ("Ctrl+O",), "open a project", WINDOW, by=(MENU,), standard="Open"),
    Key("export", ("Ctrl+E",), "export the annotations (File › Export annotations)", WINDOW, by=(MENU,)),
    Key("help", ("F1",), "this list of keys (Help › Keyboard shortcuts)", WINDOW, by=(MENU,), standard="HelpContents"),
    Key(
        "preferences",
        ("Ctrl+,",),
        "Edit › Preferences: your annotator name, the theme, what Enter does",
        WINDOW,
        by=(MENU,),
        standard="Preferences",
    ),
    Key("quit", ("Ctrl+Q",), "quit", WINDOW, by=(MENU,), standard="Quit"),
)

_BY_NAME = {key.name: key for key in KEYS}


def key(name: str) -> Key:
    """The row called ``name``."""
    return _BY_NAME[name]


def first(name: str) -> str:
    """The first key of row ``name``: the one messages and menus mention."""
    return _BY_NAME[name].keys[0]


#: The token-question mode's key, and the keys Help and messages name.
TOKEN_QUESTIONS_KEY = first("token questions")
NEW_SUGGESTIONS_KEYS = key("new suggestions").keys
FLAG_KEY, SKIP_KEY, NEXT_FLAGGED_KEY = first("flag"), first("skip"), first("next flagged")
VIEW_KEY, KEEP_KEY = first("adjudication"), first("keep set")

#: The mouse, for Help and the docs (the editor's press, drag and release: :mod:`tagtool.gui.editor_mouse`).
MOUSE = (
    ("Click", "focus a token"),
    ("Drag", "press on a token, move, release on another: the tokens between are selected (a span)"),
    ("Shift+click", "extend the selection from its first token to the clicked one"),
    (
        "Label palette",
        "the buttons above the editor, each with its key: a click labels the selection as the key "
        "does (a span type's button: B- on the first token, I- on the rest); Shift+click the I- "
        "label; Ctrl+click adds the label to the candidate set or removes it; Clear removes the "
        "labels",
    ),
    (
        "Click a suggestion",
        "a click on the faded suggestion under an unlabeled token accepts the suggested span "
        "it belongs to (B-X I-X … together), as Space does, a string match's as the model's; where the model "
        "is torn (A | B), or a string match's evidence conflicts, the part clicked is the label given. A click "
        "on the word only focuses the token",
    ),
    ("Right-click", "the menu of the selection: set a label, toggle a candidate, accept the suggestion"),
)

MODES_NOTE = (
    "Ways of working, named as tagtool simulate --mode names them: full (label every token), "
    f"tokens (only the token questions: {TOKEN_QUESTIONS_KEY}, then J or Tab and a label key; confident tokens "
    "keep their suggestion and stay unlabeled), partial (as tokens, with Shift+Space where the model is torn between "
    "two labels), review (correct the wrong suggestions, Enter accepts the rest). The queue's order "
    "(J, Tab, the list's Info column) is the strategy picked in Go › Queue strategy."
)

KEY_SCHEME = (
    "the same in every project with the same labels: 1 is O, then 2, 3, … the types in alphabetical "
    "order (B-X on the digit, I-X on Shift + the digit; B- and I- of a type share its colour). Types "
    "after the ninth key take a letter of their name (chunking's VP: v, Shift+v). Labels without a key "
    "are one / away: the picker lists every label with its key."
)

SPAN_NOTE = (
    "In BIO schemes a selection of several tokens labeled with a B-X or I-X "
    "label becomes a span: B-X, I-X, …  A candidate toggle on such a selection "
    "adds (or removes) B-X on its first token and I-X on the others."
)


def sections() -> dict[str, list[Key]]:
    """The rows grouped under their section, in table order."""
    grouped: dict[str, list[Key]] = {}
    for row in KEYS:
        grouped.setdefault(row.section, []).append(row)
    return grouped
