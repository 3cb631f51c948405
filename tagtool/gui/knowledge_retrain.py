"""The model loop follows the project's knowledge: it retrains when word vectors, a dictionary or patterns change.

:func:`follow` wires a :class:`~tagtool.gui.knowledge.KnowledgeController` to the
window's :class:`~tagtool.gui.model_loop.ModelLoop`: something added or removed
retrains as an edit does (a cold start: the features changed); the stored
knowledge read on opening retrains only when the model in use was made
without it.
"""

from __future__ import annotations

from tagtool.gui.knowledge import KnowledgeController


def _labeled(loop) -> bool:
    counts = loop.session.counts.token_counts()
    return bool(counts["full"] + counts["partial"])


def model_uses_current(loop, controller: KnowledgeController) -> bool:
    """Whether the model in use reads the project's vectors and dictionaries as they are (or no model yet)."""
    from tagtool.gui.warm_start import same_knowledge

    return loop.tagger is None or same_knowledge(loop.tagger.extractor, **controller.for_training())


def retrain_after_change(loop, controller: KnowledgeController) -> None:
    """Knowledge was added or removed: the model loop retrains as after an edit (a cold start: new features)."""
    if not _labeled(loop):
        return
    if loop.auto:
        loop.train()
    else:
        controller.message.emit("The next training (Model › Train now) uses the project's knowledge as it is now.")


def retrain_when_loaded(loop, controller: KnowledgeController) -> None:
    """The stored knowledge was read on opening: retrain only if the model in use was made without it."""
    if loop.auto and _labeled(loop) and not loop.busy and not model_uses_current(loop, controller):
        loop.train()


def follow(controller: KnowledgeController, loop, window) -> None:
    """Wire ``controller`` to the model ``loop`` (retraining) and to ``window``'s status bar and messages."""
    loop.knowledge = controller
    controller.knowledge_changed.connect(lambda: retrain_after_change(loop, controller))
    # a dictionary or patterns file added or removed: its matches are suggested (or withdrawn) at once
    controller.knowledge_changed.connect(lambda: loop.string_suggestions.check_knowledge())
    controller.ready.connect(lambda: retrain_when_loaded(loop, controller))
    controller.message.connect(window._report)
    controller.failed.connect(window.show_error)
