"""Suggestions that hold still: the open sentence keeps what it showed until the annotator leaves or asks.

:class:`SuggestionHold` is the ``hold`` part of :class:`~tagtool.gui.model_loop.ModelLoop`
(as :class:`~tagtool.gui.queue_steering.QueueSteering` is its ``queue``).  A new model
arrives every second or so while a person edits (a quick retrain after each
edit); replacing the open sentence's suggestions then would change what
Enter accepts under the person's eyes.  So the loop keeps, for the sentence
in the editor, the guidance and token questions it showed, and a newer
model's are *waiting*:

* they are shown when the person leaves the sentence (another sentence
  opens with the model in use) or asks for them
  (``loop.hold.show_new_suggestions()``, Model › Show new
  suggestions, F5 or Ctrl+R);
* meanwhile the ``suggestionsWaiting(True)`` signal lets the editor's
  header and the status bar say so;
* a sentence that showed no suggestion takes the first ones at once (there
  is nothing to hold, and nothing Enter could accept by mistake), and a
  newer model whose suggestions are the same is taken silently;
* a split or merge of the sentence's tokens drops what it held (it names
  the old tokens);
* Tab and Shift+Space follow the questions and torn pairs on screen
  within the sentence, then the newer plan across the others.

The rest of the project (the list's Info column, the queue, other
sentences' hints) follows each new model at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tagtool.services.guidance import SentenceGuidance

if TYPE_CHECKING:
    from tagtool.gui.questions import Questions
    from tagtool.gui.session import Session


class SuggestionHold:
    """What the open sentence shows, kept still (module doc).

    Parameters
    ----------
    session : Session
        Its open sentence's annotations (the questions still unlabeled).
    guidance : callable
        ``guidance(sid)``: the model in use's :class:`SentenceGuidance` of a sentence, or None.
    questions : Questions
        The queue choice and the plan of the model in use (its token questions).
    refresh : callable
        Refreshes the editor's hints (which asks :meth:`shown` again).
    waiting : Signal
        The loop's ``suggestionsWaiting(bool)``, emitted when :attr:`suggestions_waiting` changes.
    """

    def __init__(
        self,
        session: Session,
        guidance: Callable[[int | None], SentenceGuidance | None],
        questions: Questions,
        refresh: Callable[[], None],
        waiting: Any,
    ):
        self.session, self.guidance, self.questions = session, guidance, questions
        self._refresh, self._waiting_signal = refresh, waiting
        self._held_sid: int | None = None
        self._held_guidance: SentenceGuidance | None = None
        self._held_questions = None
        #: A newer model's suggestions for the open sentence are waiting (not shown yet).
        self.suggestions_waiting = False

    def shown(self, sid: int | None):
        """``(guidance, questions)`` the editor shows for ``sid``: held for the open sentence.

        Called on each refresh of the hints; takes the model's current ones
        when another sentence opened, when nothing was shown, or when they
        suggest the same labels, and otherwise keeps what was shown and
        marks the new ones as waiting.
        """
        guidance = self.guidance(sid)
        plan = self.questions.plan
        questions = plan.sentence(sid) if plan is not None and sid is not None else None
        if sid != self._held_sid or self._held_guidance is None or guidance is None or guidance is self._held_guidance:
            return self._take(sid, guidance, questions)
        if _same_suggestions(guidance, self._held_guidance):
            return self._take(sid, guidance, questions)
        self._set_waiting(True)
        return self._held_guidance, self._held_questions

    def _take(self, sid, guidance, questions):
        self._held_sid, self._held_guidance, self._held_questions = sid, guidance, questions
        self._set_waiting(False)
        return guidance, questions

    def show_new_suggestions(self) -> bool:
        """Show the model's suggestions for the open sentence now; False if none were waiting."""
        if not self.suggestions_waiting:
            return False
        self._held_guidance = None  # the next refresh takes the current ones
        self._refresh()
        return True

    def drop_held(self, sid: int) -> None:
        """Forget what ``sid`` showed (its tokens were split or merged)."""
        if sid == self._held_sid:
            self._held_guidance = self._held_questions = None
            self._set_waiting(False)

    def held_pair(self, sid: int | None, token: int):
        """The torn pair of ``token`` as the open sentence shows it; ``...`` when ``sid`` is not held."""
        if sid is None or sid != self._held_sid or self._held_guidance is None:
            return ...
        return None if self._held_questions is None else self._held_questions.pairs.get(token)

    def held_open_questions(self, sid: int | None) -> list[int] | None:
        """The open sentence's shown questions still unlabeled, while newer ones wait; None otherwise.

        Tab follows them (what the editor marks), not the newer plan's.
        """
        if not self.suggestions_waiting or sid is None or sid != self._held_sid:
            return None
        asked = self._held_questions.asked if self._held_questions is not None else ()
        annotations = self.session.annotations
        return sorted(t for t in asked if not annotations[t])

    def _set_waiting(self, waiting: bool) -> None:
        if waiting != self.suggestions_waiting:
            self.suggestions_waiting = waiting
            self._waiting_signal.emit(waiting)


def _same_suggestions(a: SentenceGuidance, b: SentenceGuidance) -> bool:
    return tuple(a.suggestions) == tuple(b.suggestions)
