"""WD-PSL: weak disambiguation for partial structured output learning (docs/design.md#wd-psl).

Pieces
    Each sentence is cut into pieces of two adjacent tokens ``(t − 1, t)``,
    one transition factor each (Lu & Chow, §IV-A, Fig. 4b).  A piece's
    candidate outputs are ``C = A_{t−1} × A_t``; a piece whose two tokens are
    both unlabeled carries no supervision and is left out; an unlabeled
    token next to a constrained one contributes ``Σ``.  A sentence of one
    token has no piece.

Energy and weights
    ``E(x, (a, c)) = ω·f(x, (a, c)) + b`` (Eq. 3) with
    ``f = φ(x_{t−1}) ⊗ e_a + φ(x_t) ⊗ e_c + e_{(a,c)}``: the state features
    of both tokens and the transition feature.  **The same state weights
    ``W`` serve both positions of a piece**, so a token's emission score is
    one number ``u_t[y] = Σ_{k ∈ φ(x_t)} W[k, y]`` wherever it appears.  The
    fitted :class:`~tagtool.learn.chain.ChainModel` is therefore one view
    with ``weights = W`` (each token's state factor counted once, as in the
    chain), ``trans = T`` and zero start/end; the bias ``b`` shifts every
    output of a piece alike, changes no Viterbi path and is kept only in
    ``model.info["bias"]``.  ``b`` is regularised like ``ω`` (an extra
    constant feature): left free, it would grow without bound, since with
    Eq. 9 it enters the Eq. 18 margin of a piece as ``(|C| − 1) b``.

Objective (Eq. 17–21), for fixed candidate confidences ``P``::

    min ½‖ω‖² + C1/n Σ_i ξ_i + C2/n Σ_i Σ_{j ∈ C_i} P_ij ν_ij
    s.t. Δ(C_i, y'') + E(x_i, y'') − E(x_i, C_i) ≤ ξ_i   ∀ y''    (18)
         E(x_i, y_j) ≥ 1 − ν_ij                         ∀ j ∈ C_i (20)

with ``E(x_i, C_i) = Σ_{y ∈ C_i} E(x_i, y)`` (Eq. 9) and ``Δ = |C_i|`` for
non-candidates, 0 for candidates (Eq. 13); ``n`` = number of pieces.

Solver
    Algorithm 1 alternates the QP for fixed ``P`` with Eq. 22, starting from
    Eq. 23 (``k`` nearest pieces), until the relative change of ``J`` is
    below ``tol``.  The QP is solved by the n-slack cutting-plane method
    (Joachims et al. 2009; the paper's "2n-slack": one ``ξ_i`` per piece
    plus the ``ν_ij``): every round finds each piece's most violated
    output of Eq. 18 (``argmax`` over the ``L²`` pair outputs, numba) and
    its violated candidates of Eq. 20, adds them to the piece's working set,
    and re-optimises the restricted dual.  The restricted dual is
    separable into blocks, one per piece (its multipliers ``α_i`` with
    ``Σ α_i ≤ C1/n`` and ``0 ≤ β_ij ≤ C2 P_ij / n``), coupled only through
    ``ω = Σ α δf + Σ β f``; it is solved by **dual block-coordinate
    ascent** — each block solved exactly with the other pieces'
    multipliers fixed, exactly the per-example working sets of structural
    SVMs — keeping ``ω`` explicitly.  Blocks already satisfying their KKT
    conditions (to ``qp_tol``) are skipped.  Block-coordinate ascent on a
    convex QP with separable constraints converges to the restricted QP's
    optimum; the tests compare it with a single dense cvxopt solve.

    Two block solvers reach the same optimum (``qp_solver``):

    * ``"smo"`` (default): one numba call per pass over all pieces
      (:func:`.piecewise._block_kernels.block_pass`).  A block's Gram matrix is
      built in closed form from ``|φ_{t−1}|²``, ``|φ_t|²``,
      ``⟨φ_{t−1}, φ_t⟩`` and the allowed sets, and the block QP is solved
      exactly by alternating closed-form steps on each β (a box) with
      pairwise SMO steps on the α simplex (as :mod:`.structsvm._dual_kernels`' SMO
      solver, extended to the β boxes), with no Python per block.
    * ``"cvxopt"``: a Python loop over the pieces, each block QP by
      :func:`tagtool.learn.qp.solve_qp` (the reference solver).

    The tests check the closed-form blocks against the explicit vectors,
    the SMO block solutions against cvxopt and the KKT conditions, one
    numba pass against one cvxopt pass, and whole fits of both.
    Entries whose multiplier stayed 0 for ``drop_after`` rounds leave the
    working sets (no effect on ``ω``; re-added when violated again).

Confidences for the UI
    :func:`candidate_confidences` recomputes ``P`` for a snapshot's pieces
    from a saved model's energies by Eq. 22, sums each token's ``P`` mass per
    label over the pieces containing it, and normalises over the token's
    allowed set (0 outside it; a full token gets 1 on its label).

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 3, 9, 13, 17–23, Algorithm 1, §IV-B.
.. [2] T. Joachims, T. Finley, C.-N. J. Yu. Cutting-plane training of
   structural SVMs. Machine Learning 77, 2009 (n-slack algorithm).
.. [3] I. Tsochantaridis et al. Large margin methods for structured and
   interdependent output variables. JMLR 6, 2005 (per-example working sets).
.. [4] C. Sutton, A. McCallum. Piecewise training for structured
   prediction. Machine Learning 77, 2009.
"""

from __future__ import annotations

import logging

import numpy as np

from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner, NothingToLearnError
from tagtool.learn.chain import ChainModel
from tagtool.learn.piecewise import _piece_kernels
from tagtool.learn.piecewise.dual import Dual, primal_objective
from tagtool.learn.piecewise.pieces import Pieces, build_pieces, eq22, eq23, nearest_pieces, piece_energies
from tagtool.learn.progress import TrainingMonitor

logger = logging.getLogger(__name__)


class WDPSL(Learner):
    """Weak disambiguation for partial structured outputs (Lu & Chow), piecewise.

    Parameters
    ----------
    c1 : float
        ``C1`` of Eq. 17 (candidates vs. non-candidates, Eq. 18), divided by
        the number of pieces as in the paper.
    c2 : float
        ``C2`` of Eq. 17 (confidence-weighted candidate margins, Eq. 20).
        The defaults ``C1 = 100``, ``C2 = 1`` lie inside the paper's range
        (0.01–100) and were chosen on training data only
        (benchmarks/results/design-measurements.md, "wdpsl").
    k_neighbours : int
        ``K`` of Eq. 23 (the paper's k = 10).
    tol : float
        ``ε`` of Algorithm 1: stop when ``|ΔJ / J| < tol``.
    max_iter : int
        Bound on Algorithm 1's iterations (alternations: a QP, then Eq. 22),
        the outer loop that ``tol`` stops.
    epsilon : float
        Cutting-plane tolerance: a constraint joins a working set when it is
        violated by more than ``epsilon`` beyond the current slack (margins
        are ≥ 1, so 0.05 is small against them; smaller values cost time
        without raising F1).
    max_rounds : int
        Bound on cutting-plane rounds per QP (inside one iteration: a
        different loop from ``max_iter``, hence its own name).
    qp_tol : float
        KKT tolerance of the block-coordinate solution of a restricted QP.
    max_passes : int
        Bound on block-coordinate passes per cutting-plane round.
    bias : bool
        Learn the regularised bias ``b`` of Eq. 3.
    max_df : float
        Features in more than this share of pieces are ignored by Eq. 23's
        neighbour search.
    qp_solver : {"smo", "cvxopt"}
        Solver of the block QPs.  ``"smo"`` (default): one numba call per
        pass over all pieces, each block solved exactly by closed-form β
        steps and pairwise (SMO) α steps to ``qp_tol / 10``;
        ``"cvxopt"``: a Python loop, each block an interior-point cvxopt QP
        (the reference solver; the tests check both reach the same
        restricted optimum).
    drop_after : int
        A working-set entry whose multiplier stayed 0 for more than this
        many cutting-plane rounds is dropped (0: never); it returns if
        violated again.
    """

    name = "wdpsl"
    uses = frozenset({"full", "partial"})
    two_view = False
    gives_confidences = True
    description = "WD-PSL: piecewise max-margin learning from candidate label sets (Lu & Chow)"
    params = ParamTable(
        Param("c1", float, 100.0, "C1 of Eq. 17: candidates against non-candidates (Eq. 18)", low=0.0, low_open=True),
        Param("c2", float, 1.0, "C2 of Eq. 17: confidence-weighted candidate margins (Eq. 20)", low=0.0, low_open=True),
        Param("k_neighbours", int, 10, "K of Eq. 23: neighbours giving a piece its first confidences", low=1),
        Param("tol", float, 1e-3, "epsilon of Algorithm 1: stop when |dJ / J| < tol", low=0.0),
        Param(
            "max_iter",
            int,
            10,
            "bound on Algorithm 1's iterations (a QP, then Eq. 22)",
            low=1,
            aliases=("max_alternations",),
        ),
        Param(
            "epsilon",
            float,
            0.05,
            "a constraint joins a working set when violated by more than this",
            low=0.0,
            low_open=True,
        ),
        Param("max_rounds", int, 30, "bound on cutting-plane rounds per QP (inside one iteration)", low=1),
        Param(
            "qp_tol",
            float,
            1e-2,
            "KKT tolerance of the block-coordinate solution of a restricted QP",
            low=0.0,
            low_open=True,
        ),
        Param("max_passes", int, 5, "bound on block-coordinate passes per cutting-plane round", low=1),
        Param("bias", bool, True, "learn the regularised bias b of Eq. 3"),
        Param(
            "max_df",
            float,
            0.01,
            "features in more than this share of pieces are ignored by Eq. 23",
            low=0.0,
            low_open=True,
            high=1.0,
        ),
        Param("qp_solver", str, "smo", "solver of the block QPs", choices=("smo", "cvxopt")),
        Param("drop_after", int, 3, "drop a working-set entry idle for more than this many rounds (0: never)", low=0),
        owner="wdpsl",
    )

    def __init__(
        self,
        c1: float = 100.0,
        c2: float = 1.0,
        k_neighbours: int = 10,
        tol: float = 1e-3,
        max_iter: int = 10,
        epsilon: float = 0.05,
        max_rounds: int = 30,
        qp_tol: float = 1e-2,
        max_passes: int = 5,
        bias: bool = True,
        max_df: float = 0.01,
        qp_solver: str = "smo",
        drop_after: int = 3,
    ):
        self.c1 = c1
        self.c2 = c2
        self.k_neighbours = k_neighbours
        self.tol = tol
        self.max_iter = max_iter
        self.epsilon = epsilon
        self.max_rounds = max_rounds
        self.qp_tol = qp_tol
        self.max_passes = max_passes
        self.bias = bias
        self.max_df = max_df
        self.qp_solver = qp_solver
        self.drop_after = drop_after

    # -- public extras ---------------------------------------------------

    @staticmethod
    def candidate_confidences(model: ChainModel, snapshot: Snapshot) -> np.ndarray:
        """Per-token candidate confidences ``[N, L]``; see :func:`candidate_confidences`."""
        return candidate_confidences(model, snapshot)

    # -- fitting -----------------------------------------------------------

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        pieces = build_pieces(snapshot)
        if pieces.n_pieces == 0:
            raise NothingToLearnError("wdpsl learns from pieces of two adjacent tokens and the data has none")
        notes = _piece_notes(snapshot, pieces)
        dual = Dual(snapshot, pieces, self.c1, self.c2, self.bias)
        dual.conf = self._initial_confidences(snapshot, pieces, warm_start, dual, monitor)
        history: list[float] = []
        rounds_total = 0
        for alternation in range(self.max_iter):
            dual.rescale_boxes()
            rounds_total += self._cutting_plane(dual, monitor, alternation)
            j = primal_objective(dual)[0]
            history.append(j)
            logger.info("wdpsl alternation %d: J = %.6g", alternation + 1, j)
            if len(history) > 1 and abs(history[-1] - history[-2]) <= self.tol * abs(history[-1]):
                break
            dual.conf = eq22(pieces, piece_energies(pieces, dual.emissions(), dual.T, dual.bias_value))
        model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views=1)
        model.weights[...] = dual.W
        model.trans[0] = dual.T
        model.info.update(
            objective=history,
            alternations=len(history),
            cutting_plane_rounds=rounds_total,
            pieces=pieces.n_pieces,
            working_set=dual.n_entries(),
            bias=dual.b,
            notes=notes,
        )
        return model

    def _initial_confidences(self, snapshot, pieces, warm_start, dual, monitor) -> np.ndarray:
        """Eq. 23 from the k nearest pieces, or Eq. 22 from a warm-start model.

        A warm start also seeds every working set with the outputs the
        previous model violates most, which usually are the final active ones.
        """
        if warm_start is None:
            monitor.report(0.0, "finding nearest pieces (Eq. 23)")
            return eq23(snapshot, pieces, nearest_pieces(snapshot, pieces, self.k_neighbours, self.max_df, monitor))
        emit, trans, _, _ = warm_start.chain_scores(snapshot)
        b = float(warm_start.info.get("bias", 0.0)) if self.bias else 0.0
        conf = eq22(pieces, piece_energies(pieces, emit, trans[...], b))
        dual.conf = conf
        self._add_violators(dual, emit=emit, trans=trans, bias=b)
        return conf

    def _cutting_plane(self, dual: Dual, monitor: TrainingMonitor, alternation: int) -> int:
        """n-slack cutting-plane loop for fixed ``P`` (Joachims et al. 2009); returns the rounds run."""
        for rnd in range(self.max_rounds):
            frac = (alternation + rnd / self.max_rounds) / self.max_iter
            monitor.report(
                frac, f"alternation {alternation + 1}/{self.max_iter}, cutting-plane round {rnd + 1}/{self.max_rounds}"
            )
            added = self._add_violators(dual)
            converged = self._optimise_restricted(dual, monitor)
            logger.debug(
                "wdpsl round %d: %d entries added, %d in the working sets, restricted QP %s",
                rnd + 1,
                added,
                dual.n_entries(),
                "solved" if converged else "not solved",
            )
            if added == 0 and converged:
                return rnd + 1
            if self.drop_after > 0:
                dual.drop_inactive(self.drop_after)
        logger.info("wdpsl: cutting plane stopped after %d rounds", self.max_rounds)
        return self.max_rounds

    def _add_violators(self, dual: Dual, emit=None, trans=None, bias=None) -> int:
        """Add each piece's most violated Eq. 18 output and violated Eq. 20 candidates."""
        emit = dual.emissions() if emit is None else emit
        trans = dual.T if trans is None else trans
        bias = dual.bias_value if bias is None else bias
        return dual.add_violators(emit, np.asarray(trans, dtype=np.float64).reshape(dual.T.shape), bias, self.epsilon)

    def _optimise_restricted(self, dual: Dual, monitor: TrainingMonitor) -> bool:
        """Block-coordinate passes over the pieces; True once no block needed an update."""
        for _ in range(self.max_passes):
            if self.qp_solver == "cvxopt":
                changed = dual.python_pass(self.qp_tol, monitor)
            else:
                changed = dual.numba_pass(self.qp_tol, monitor)
            logger.debug("wdpsl pass: %d blocks changed", changed)
            monitor.check()
            if changed == 0:
                return True
        return False


def _piece_notes(snapshot: Snapshot, pieces: Pieces) -> list[str]:
    """Notes on the tokens no piece covers (all-unlabeled stretches, one-token sentences)."""
    covered = np.zeros(snapshot.n_tokens, dtype=bool)
    covered[pieces.left] = True
    covered[pieces.left + 1] = True
    notes = []
    n_out = int((~covered).sum())
    if n_out:
        notes.append(
            f"wdpsl learns from pieces of two adjacent tokens, not both unlabeled: {n_out} tokens are in no piece"
        )
    return notes


def candidate_confidences(model: ChainModel, snapshot: Snapshot) -> np.ndarray:
    """Confidence of each allowed label of each token, ``float64[N, L]`` (docs/design.md#wd-psl).

    ``P`` is recomputed for the snapshot's pieces from the model's energies
    by Eq. 22 (over each piece's candidates; invariant to the bias, so
    the saved arrays suffice).  A token's confidence in label ``y`` is the
    ``P`` mass of the candidates giving it ``y``, summed over the pieces
    containing it and normalised over its allowed set.  Labels outside the
    allowed set get 0; a full token gets 1 on its label; a token in no piece
    (all-unlabeled neighbourhood, one-token sentence) and a token whose mass
    is all zero get the uniform ``1 / |A_t|``.

    References
    ----------
    .. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
       output learning. Eq. 22.
    """
    model.check_compatible(snapshot)
    pieces = build_pieces(snapshot)
    emit, trans, _, _ = model.chain_scores(snapshot)
    conf = eq22(pieces, piece_energies(pieces, emit, trans))
    mass = np.zeros((snapshot.n_tokens, snapshot.n_labels))
    _piece_kernels.token_confidence_mass(
        conf, pieces.cand_ptr, pieces.cand_a, pieces.cand_c, pieces.left, snapshot.n_tokens, snapshot.n_labels, mass
    )
    allowed = snapshot.allowed
    mass = np.where(allowed, mass, 0.0)
    total = mass.sum(axis=1, keepdims=True)
    uniform = allowed / allowed.sum(axis=1, keepdims=True)
    return np.where(total > 0, mass / np.where(total > 0, total, 1.0), uniform)
