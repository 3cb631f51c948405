"""The learner interface every algorithm implements (docs/design.md#learner-interface).

scikit-learn's estimator rules (STYLE.md): ``__init__`` only stores
hyper-parameters, named exactly as its arguments and declared in the class's
:attr:`Learner.params` table (type, range or choices, default, help, old
names), from which :meth:`Learner.get_params` lists them, ``--set`` parses
them and the app builds its settings form; :meth:`fit` validates, trains on
an immutable :class:`~tagtool.core.snapshot.Snapshot`, and returns a fitted
:class:`~tagtool.learn.chain.ChainModel`.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from tagtool.core.params import ParamTable, SettingError
from tagtool.core.snapshot import Snapshot
from tagtool.errors import TagtoolError
from tagtool.learn.chain import ChainModel, scheme_decoding
from tagtool.learn.progress import ProgressCallback, StopCallback, TrainingMonitor

logger = logging.getLogger(__name__)

#: The three kinds of sentence annotation (docs/design.md#allowed-sets), by snapshot status code.
SENTENCE_KINDS = {2: "full", 1: "partial", 0: "none"}
_KIND_PHRASE = {"full": "fully labeled", "partial": "partially labeled", "none": "unlabeled"}


class NothingToLearnError(TagtoolError):
    """The snapshot holds no sentence this learner can learn from."""


class InvalidParameterError(SettingError):
    """A learner parameter that does not exist, or a value outside its range (raised when it is set)."""


class Learner(ABC):
    """Base class: parameters, the fit contract, and notes on ignored data.

    Subclasses set :attr:`name`, :attr:`uses` (which sentence kinds —
    ``"full"``, ``"partial"``, ``"none"`` — the algorithm learns from),
    :attr:`two_view`, :attr:`params` (the declared table of their
    parameters, whose common names :data:`~tagtool.core.params.MAX_ITER`
    and :data:`~tagtool.core.params.RANDOM_STATE` say which counts passes
    and which seeds), and where they have them
    :attr:`gives_confidences` and :attr:`default_features`; they implement
    :meth:`_fit` and, for constraints between parameters, :meth:`_check_params`.
    These class attributes
    are the only record of what a learner offers: the command line, the app,
    the queue strategies and the tests read them (a learner is one module
    plus its entry in :data:`tagtool.learn.REGISTRY`).
    """

    name: ClassVar[str] = ""
    uses: ClassVar[frozenset[str]] = frozenset({"full"})
    two_view: ClassVar[bool] = False
    description: ClassVar[str] = ""
    #: The declared parameters: names (``__init__``'s arguments, in order), types, ranges or choices,
    #: defaults, help and old names (:mod:`tagtool.core.params`); the constructor's defaults equal the
    #: table's (a test checks it), and everything that lists, parses or checks a parameter reads it.
    params: ClassVar[ParamTable] = ParamTable()
    #: Whether :meth:`candidate_confidences` gives per-candidate confidences of partially labeled
    #: tokens (WD-PSL, Lu & Chow): the guidance's confidences and the ``confidence`` queue strategy.
    gives_confidences: ClassVar[bool] = False
    #: Feature-extractor settings this learner works best with (keyword
    #: arguments of :class:`~tagtool.core.features.FeatureExtractor`); the
    #: training pipeline applies them under the user's own settings.
    default_features: ClassVar[dict] = {}

    # -- parameters (scikit-learn convention) ---------------------------

    @classmethod
    def param_names(cls) -> list[str]:
        return cls.params.names()

    @classmethod
    def param_defaults(cls) -> dict:
        return cls.params.defaults()

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in self.param_names()}

    def set_params(self, **params) -> Learner:
        """Set parameters, checked as they are set against :attr:`params` and :meth:`check_params`.

        An old name (``epochs``) sets the current one (``max_iter``) with a
        logged deprecation warning.

        Raises
        ------
        InvalidParameterError
            An unknown name, or a value of the wrong type or out of range;
            the learner keeps its previous values.
        """
        try:
            params = self.params.check(params)
        except SettingError as exc:
            raise InvalidParameterError(self._prefixed(str(exc))) from None
        before = dict(vars(self))
        for key, value in params.items():
            setattr(self, key, value)
        try:
            self.check_params()
        except InvalidParameterError:
            vars(self).clear()
            vars(self).update(before)
            raise
        return self

    def check_params(self) -> None:
        """:class:`InvalidParameterError` naming the learner and the first value out of range.

        Called when parameters are set (:meth:`set_params`) and again by
        :meth:`fit` (``__init__`` only stores, by scikit-learn's rule), so a
        bad value stops a run before any data are read.
        """
        try:
            for param in self.params:
                param.check(getattr(self, param.name))
            self._check_params()
        except (ValueError, TypeError) as exc:
            raise InvalidParameterError(self._prefixed(str(exc))) from exc

    def _prefixed(self, message: str) -> str:
        return message if message.startswith(f"{self.name}:") else f"{self.name}: {message}"

    def _check_params(self) -> None:
        """Raise ValueError for values that do not go together (each value's range is in :attr:`params`)."""
        return

    @staticmethod
    def candidate_confidences(model: ChainModel, snapshot: Snapshot) -> np.ndarray | None:
        """Per-token confidences ``[N, L]`` of the candidates (None: :attr:`gives_confidences` is False)."""
        return None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- fitting --------------------------------------------------------

    def fit(
        self,
        snapshot: Snapshot,
        *,
        warm_start: ChainModel | None = None,
        progress: ProgressCallback | None = None,
        should_stop: StopCallback | None = None,
    ) -> ChainModel:
        """Train on ``snapshot`` and return a new model.

        Parameters
        ----------
        snapshot : Snapshot
            Sentences with their allowed sets; sentences of a kind this
            learner does not use are left out and said so in
            ``model.info["notes"]`` (and the log).
        warm_start : ChainModel, optional
            A previous model of the same labels and features to start from
            (never modified).
        progress : callable(fraction, message), optional
        should_stop : callable() -> bool, optional
            Polled at least once per sentence; True raises
            :class:`~tagtool.errors.Cancelled`.

        Returns
        -------
        ChainModel
            Decoding with the BIO constraint unless the annotations look
            like IOB1 (:func:`~tagtool.learn.chain.scheme_decoding`).  The
            learner keeps nothing of the fit (it can be fitted again, as the
            app does after every edit): passes, convergence and the collapse
            guard's check are in the model's ``info``, which is saved, and
            objects only this process can use (the SVMs' support vectors,
            the guard's other model) in its ``extras``, which is not.
        """
        self.check_params()
        monitor = TrainingMonitor(progress, should_stop)
        used, notes = self.select_sentences(snapshot)
        if warm_start is not None:
            warm_start.check_compatible(snapshot)
            if warm_start.n_views != (2 if self.two_view else 1) or warm_start.learner != self.name:
                notes.append(f"warm start from a {warm_start.learner or 'different'} model ignored")
                warm_start = None
        started = time.perf_counter()
        model = self._fit(snapshot.subset(used), warm_start.copy() if warm_start else None, monitor)
        model.learner = self.name
        model.params = _jsonable(self.get_params())
        model.info.setdefault("notes", []).extend(notes)
        model.info["train_seconds"] = time.perf_counter() - started
        model.info["sentences"] = {kind: int(n) for kind, n in self.kind_counts(snapshot).items()}
        model.bio_constraint, scheme_note = scheme_decoding(snapshot)
        if scheme_note:
            logger.warning(scheme_note)
            model.info["notes"].append(scheme_note)
        monitor.done()
        return model

    def select_sentences(self, snapshot: Snapshot) -> tuple[np.ndarray, list[str]]:
        """Indices of the sentences this learner uses, and notes on the others."""
        status = snapshot.sentence_status()
        keep = np.zeros(snapshot.n_sentences, dtype=bool)
        notes = []
        for code, kind in SENTENCE_KINDS.items():
            here = status == code
            if kind in self.uses:
                keep |= here
            elif here.any():
                notes.append(f"{self.name} cannot use {_KIND_PHRASE[kind]} sentences: {int(here.sum())} left out")
        for note in notes:
            logger.warning(note)
        if not keep.any():
            raise NothingToLearnError(
                f"{self.name} learns from {', '.join(sorted(self.uses))} sentences and the data has none"
            )
        return np.flatnonzero(keep), notes

    @staticmethod
    def kind_counts(snapshot: Snapshot) -> dict[str, int]:
        status = snapshot.sentence_status()
        return {kind: int(np.sum(status == code)) for code, kind in SENTENCE_KINDS.items()}

    @abstractmethod
    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        """Train on the sentences this learner uses; call ``monitor.check()`` per sentence."""


def _jsonable(params: dict) -> dict:
    out = {}
    for key, value in params.items():
        if isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out
