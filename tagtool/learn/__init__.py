"""Learners (docs/design.md#learners): one interface, one progress/cancel contract.

The registry maps the CLI's learner names to their classes.  A learner is
offered (by the CLI and the GUI) only when its module exists and imports:
an unfinished learner is simply absent from :func:`available_learners`.
What a learner offers (its parameter table, the sentence kinds it uses,
two views, candidate confidences) are class attributes of
:class:`~tagtool.learn.base.Learner`: adding a learner is its module plus one
entry here, and the command line, the app and the tests follow.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

from tagtool._lazy import lazy_getattr
from tagtool.errors import TagtoolError

if TYPE_CHECKING:
    from tagtool.learn.base import Learner

logger = logging.getLogger(__name__)

#: Names re-exported from the submodules, imported on first use: the learners' kernels pull in
#: numba (half a second), which the registry, :data:`DEFAULT_LEARNER` and the command line's
#: parser need not pay for.
_LAZY = {
    "Learner": "tagtool.learn.base",
    "NothingToLearnError": "tagtool.learn.base",
    "InvalidParameterError": "tagtool.learn.base",
    "ChainModel": "tagtool.learn.chain",
    "ModelMismatchError": "tagtool.learn.chain",
    "TrainingMonitor": "tagtool.learn.progress",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)

#: name -> "module:Class"; the four the tool exists for first, then baselines.
REGISTRY: dict[str, str] = {
    "cosvm": "tagtool.learn.cosvm:CoSVM",
    "mv-perceptron": "tagtool.learn.perceptron:MultiViewPerceptron",
    "entropy-crf": "tagtool.learn.crf:EntropyCRF",
    "wdpsl": "tagtool.learn.wdpsl:WDPSL",
    "hmm": "tagtool.learn.hmm:HMM",
    "perceptron": "tagtool.learn.perceptron:Perceptron",
    "svm": "tagtool.learn.svm:HMSVM",
    "crf": "tagtool.learn.crf:CRF",
}

#: The learner the app starts with and the CLI uses without ``--learner``: the best across the
#: development suite at its defaults (benchmarks/results/robustness.md, "Which learner is best").
DEFAULT_LEARNER = "mv-perceptron"


class UnknownLearnerError(TagtoolError, KeyError):
    """A learner name that is not offered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def _load(name: str) -> type[Learner] | None:
    module_name, class_name = REGISTRY[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    return getattr(module, class_name, None)


def available_learners() -> dict[str, type[Learner]]:
    """The learners that exist, in registry order (the tool's own four first)."""
    found = {}
    for name in REGISTRY:
        cls = _load(name)
        if cls is not None:
            found[name] = cls
    return found


def find_learner(name: str) -> type[Learner] | None:
    """The class of learner ``name`` (a model's ``learner``), importing only its module; None if not offered."""
    return _load(name) if name in REGISTRY else None


def learner_names(**metadata) -> tuple[str, ...]:
    """The available learners whose class attributes equal ``metadata``, e.g. ``two_view=True``."""
    return tuple(
        name
        for name, cls in available_learners().items()
        if all(getattr(cls, key) == value for key, value in metadata.items())
    )


def get_learner(name: str) -> type[Learner]:
    """The learner class called ``name``; :class:`UnknownLearnerError` if not offered."""
    learners = available_learners()
    if name not in learners:
        raise UnknownLearnerError(f"unknown learner {name!r}; available: {', '.join(learners) or 'none'}")
    return learners[name]


def make_learner(name: str, **params) -> Learner:
    """An instance of learner ``name`` with ``params`` (validated names)."""
    cls = get_learner(name)
    learner = cls()
    learner.set_params(**params)
    return learner


__all__ = [
    "DEFAULT_LEARNER",
    "REGISTRY",
    "ChainModel",
    "InvalidParameterError",
    "Learner",
    "ModelMismatchError",
    "NothingToLearnError",
    "TrainingMonitor",
    "UnknownLearnerError",
    "available_learners",
    "find_learner",
    "get_learner",
    "learner_names",
    "make_learner",
]
