"""Unlabeled sentences that cannot make a learner worse: balance and collapse guard.

Shared by the semi-supervised learners ``cosvm``, ``mv-perceptron`` and
``entropy-crf``, so that none of them collapses at its defaults
(docs/design.md#unlabeled-sentences).  At the cold start of a project — a handful of labeled sentences
and hundreds of unlabeled ones — an unlabeled term that is harmless at the
papers' ratios can swamp the labels: the views of a co-trained learner
agree by predicting the majority label everywhere, an entropy-minimising CRF
becomes sure of a wrong labeling.  Two safeguards:

**Balance** (:func:`balanced_weight`), before training.  The weight of the
unlabeled term is scaled by ``min(1, balance · n_l / n_u)`` — ``n_l`` the
tokens of labeled and partially labeled sentences, ``n_u`` those of
unlabeled ones — so that at most ``balance`` unlabeled tokens count per
labeled one.  The papers tune their weight for one ratio (Brefeld &
Scheffer 2006: U = 5 L; Jiao et al. 2006: fixed γ); in an annotation tool
the ratio runs from 1:100 to 10:1 as labeling goes on.

**Collapse guard** (:func:`check_unlabeled`, :func:`choose_model`), after
training.  The learner also fits its *supervised solution* on the labeled
and partially labeled sentences only — ``mv-perceptron`` itself, ``svm`` for
``cosvm``, for ``entropy-crf`` the γ = 0 start it computes anyway — and the two models
are compared on the training sentences themselves, so no labeled sentence
is held out (at L = 5 there is none to spare) and the cost is one
supervised fit plus two predictions:

* *fit* — token accuracy on the labeled tokens.  The unlabeled text may
  not overrule the annotator: the semi-supervised model must reproduce the
  given labels within :data:`FIT_TOLERANCE` of the supervised one.
* *drift* — on the unlabeled sentences' tokens, take the label the
  semi-supervised model predicts most often; the share of tokens either
  model tags with any *other* label.  Collapse, the failure
  benchmarks/robustness.py measured (``cosvm`` tagging everything ``O`` on NER, ``entropy-crf`` on
  UD part-of-speech), shows as the other labels vanishing: the guard fires
  when the semi-supervised model's share falls below ``1 −
  DRIFT_TOLERANCE`` times the supervised model's (``1 −
  ENTROPY_DRIFT_TOLERANCE`` for ``entropy-crf``: the entropy term should
  sharpen the supervised model's predictions, not shift its label
  proportions; 0.10 for ``cosvm``, ``CoSVM.guard_drift_tolerance``).  Each
  learner's tolerance is its attribute ``guard_drift_tolerance``.

When either fires the learner returns its supervised solution, logs a
warning and records why in ``model.info["unlabeled"]``
(:attr:`~tagtool.learn.chain.ChainModel.guard_fired`,
:attr:`~tagtool.learn.chain.ChainModel.unlabeled_weight_used`) and in a
note the CLI and the app print.

Why a guard and not the alternatives (cross-validating the weight, a schedule):

* *Cross-validating the weight on the labeled sentences* needs labeled
  sentences to spare — at 5 there are none (a fold of one sentence says
  little) — and costs a fit per fold and candidate weight, where the app
  must train in seconds.
* *A schedule* the learners already have (``cosvm``'s ``C_u`` ramp, the
  supervised start of ``entropy-crf``), and they collapse anyway at the
  cold start, even with a tiny unlabeled weight, because every unlabeled
  sentence pushes the same parameters (transitions, frequent features)
  the same way.
* The guard needs no held-out labels, costs one supervised fit (the
  labeled part, small at the cold start where the guard matters), and its
  fallback is the supervised twin: the γ = 0 start of ``entropy-crf``
  (``crf``), ``svm`` for ``cosvm`` (its two views trained on the labeled
  sentences alone sum to a weaker tagger than one SVM on all features),
  and ``mv-perceptron`` without unlabeled sentences.
  Its tolerances were chosen on the development suite, see
  benchmarks/results/design-measurements.md ("collapse guard").

References
----------
.. [1] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §5 (C_u and its schedule).
.. [2] F. Jiao et al. Semi-supervised conditional random fields for
   improved sequence segmentation and labeling. ACL 2006, §3 (γ; starting
   from the supervised solution).
.. [3] A. Blum, T. Mitchell. Combining labeled and unlabeled data with
   co-training. COLT 1998.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.learn.chain import ChainModel

logger = logging.getLogger(__name__)

#: Labeled-token accuracy the semi-supervised model may lose against the supervised one.
FIT_TOLERANCE = 0.02
#: Relative loss of predictions other than the favoured label, on unlabeled tokens, that counts as drift.
DRIFT_TOLERANCE = 0.25
#: The same for entropy minimisation, which is known to shift label proportions towards the majority
#: rather than only sharpen predictions (the reason Krause et al. 2010 add a class-balance term): there
#: any drift the guard lets pass costs F1, hence a much smaller tolerance.
ENTROPY_DRIFT_TOLERANCE = 0.01

_STATUS_NONE = 0
#: Progress-message prefixes of the two fits of a guarded learner.
SUPERVISED_RUN = "without the unlabeled sentences: "
SEMI_RUN = "with the unlabeled sentences: "


def token_counts(snapshot: Snapshot) -> tuple[int, int]:
    """``(n_l, n_u)``: tokens of labeled or partially labeled sentences, and of unlabeled ones."""
    lengths = np.diff(snapshot.offsets)
    unlabeled = snapshot.sentence_status() == _STATUS_NONE
    return int(lengths[~unlabeled].sum()), int(lengths[unlabeled].sum())


def balanced_weight(weight: float, snapshot: Snapshot, balance: float | None) -> float:
    """``weight · min(1, balance · n_l / n_u)``; ``weight`` when ``balance`` is None or nothing is unlabeled."""
    if balance is None:
        return float(weight)
    check_balance(balance)
    n_l, n_u = token_counts(snapshot)
    return float(weight) * min(1.0, float(balance) * n_l / n_u) if n_u else float(weight)


def check_balance(balance: float | None) -> None:
    """ValueError unless ``balance`` is None or positive (the learners check it when it is set)."""
    if balance is not None and not balance > 0:
        raise ValueError(f"balance must be > 0 or None, got {balance}")


def has_unlabeled(snapshot: Snapshot) -> bool:
    return bool(np.any(snapshot.sentence_status() == _STATUS_NONE))


def supervised_part(snapshot: Snapshot) -> Snapshot:
    """The labeled and partially labeled sentences (what the supervised solution trains on)."""
    return snapshot.subset(np.flatnonzero(snapshot.sentence_status() != _STATUS_NONE))


@dataclass(frozen=True)
class GuardCheck:
    """The guard's comparison of a semi-supervised and a supervised model on the training sentences.

    Attributes
    ----------
    fired : bool
    reasons : tuple of str
        One sentence per failed check (empty when not fired).
    favoured : str
        The label the semi-supervised model predicts most on the unlabeled tokens.
    labeled_tokens, unlabeled_tokens : int
    fit_supervised, fit_semi : float
        Token accuracy of each model on the labeled tokens.
    other_supervised, other_semi : float
        Share of the unlabeled tokens each model tags with a label other than ``favoured``.
    """

    fired: bool
    reasons: tuple[str, ...]
    favoured: str
    labeled_tokens: int
    unlabeled_tokens: int
    fit_supervised: float
    fit_semi: float
    other_supervised: float
    other_semi: float

    def to_info(self) -> dict:
        out = asdict(self)
        out["reasons"] = list(self.reasons)
        return out


def check_unlabeled(
    snapshot: Snapshot,
    supervised_pred: np.ndarray,
    semi_pred: np.ndarray,
    fit_tolerance: float = FIT_TOLERANCE,
    drift_tolerance: float = DRIFT_TOLERANCE,
) -> GuardCheck | None:
    """Compare two label predictions of every token of ``snapshot`` (module docstring).

    Returns None when there is nothing to compare: no token with one
    label, or no unlabeled sentence.
    """
    sizes = snapshot.allowed.sum(axis=1)
    labeled = sizes == 1
    status = np.repeat(snapshot.sentence_status(), np.diff(snapshot.offsets))
    unlabeled = status == _STATUS_NONE
    if not labeled.any() or not unlabeled.any():
        return None
    gold = np.argmax(snapshot.allowed, axis=1)
    favoured = int(np.bincount(semi_pred[unlabeled], minlength=snapshot.n_labels).argmax())
    fit_sup = float(np.mean(supervised_pred[labeled] == gold[labeled]))
    fit_semi = float(np.mean(semi_pred[labeled] == gold[labeled]))
    other_sup = float(np.mean(supervised_pred[unlabeled] != favoured))
    other_semi = float(np.mean(semi_pred[unlabeled] != favoured))
    name = snapshot.labels[favoured]
    reasons = guard_reasons(fit_sup, fit_semi, other_sup, other_semi, name, fit_tolerance, drift_tolerance)
    return GuardCheck(
        bool(reasons),
        tuple(reasons),
        name,
        int(labeled.sum()),
        int(unlabeled.sum()),
        fit_sup,
        fit_semi,
        other_sup,
        other_semi,
    )


def guard_reasons(
    fit_supervised: float,
    fit_semi: float,
    other_supervised: float,
    other_semi: float,
    favoured: str,
    fit_tolerance: float = FIT_TOLERANCE,
    drift_tolerance: float = DRIFT_TOLERANCE,
) -> list[str]:
    """The failed checks of :func:`check_unlabeled`, one sentence each, from its numbers (:class:`GuardCheck`)."""
    reasons = []
    if fit_semi < fit_supervised - fit_tolerance:
        reasons.append(
            f"it reproduces {100 * fit_semi:.1f} % of the labeled tokens against {100 * fit_supervised:.1f} % "
            "without the unlabeled sentences"
        )
    if other_semi < (1.0 - drift_tolerance) * other_supervised:
        reasons.append(
            f"it tags {100 * other_semi:.1f} % of the unlabeled tokens with a label other than {favoured!r} against "
            f"{100 * other_supervised:.1f} % without the unlabeled sentences (drift towards one label)"
        )
    return reasons


def choose_model(
    snapshot: Snapshot,
    semi: ChainModel,
    supervised: ChainModel | Callable[[], ChainModel] | None,
    *,
    learner: str,
    weight: float,
    weight_used: float,
    drift_tolerance: float = DRIFT_TOLERANCE,
    fit_tolerance: float = FIT_TOLERANCE,
) -> tuple[ChainModel, ChainModel | None]:
    """The model a semi-supervised learner returns, with ``info["unlabeled"]`` filled in, and the other one.

    Parameters
    ----------
    snapshot : Snapshot
        The training sentences (all kinds).
    semi : ChainModel
        Trained with the unlabeled sentences.
    supervised : ChainModel, callable returning one, or None
        The supervised solution; None switches the guard off.  A callable
        is called only when the snapshot has unlabeled sentences.
    learner : str
        For the log.
    weight, weight_used : float
        The unlabeled weight asked for and the one trained with (after
        :func:`balanced_weight`).
    drift_tolerance, fit_tolerance : float
        Of the drift and fit checks (:func:`check_unlabeled`).

    Returns
    -------
    chosen : ChainModel
        ``semi``, or the supervised model when the guard fired.
    other : ChainModel or None
        The one not chosen (None when there was no comparison), also kept
        as ``chosen.extras["alternative"]`` so that a benchmark can score both.
    """
    record = {
        "weight": float(weight),
        "weight_used": float(weight_used),
        "guard": supervised is not None,
        "guard_fired": False,
        "backed_off": False,
    }
    if supervised is None or not has_unlabeled(snapshot):
        semi.info["unlabeled"] = record
        return semi, None
    sup_model = supervised() if callable(supervised) else supervised
    check = check_unlabeled(
        snapshot,
        sup_model.predict(snapshot),
        semi.predict(snapshot),
        fit_tolerance=fit_tolerance,
        drift_tolerance=drift_tolerance,
    )
    if check is not None:
        record["check"] = check.to_info()
    if check is None or not check.fired:
        semi.info["unlabeled"] = record
        semi.extras["alternative"] = sup_model
        return semi, sup_model
    logger.warning(
        "%s: unlabeled sentences ignored, the model trained without them is used: %s", learner, "; ".join(check.reasons)
    )
    record.update(guard_fired=True, backed_off=True, weight_used=0.0)
    sup_model.info["unlabeled"] = record
    sup_model.info.setdefault("notes", []).append(
        f"the unlabeled sentences were ignored (collapse guard): {'; '.join(check.reasons)}"
    )
    sup_model.extras["alternative"] = semi
    return sup_model, semi
