"""Decoders for first-order linear chains: numba kernels behind checked wrappers.

All decoders take ``emit[T, L]``, ``trans[L, L]``, ``start[L]``, ``end[L]``
and an optional boolean ``allowed[T, L]`` mask (docs/design.md#decoders); see
:mod:`tagtool.decode.max_product` (best paths, max-marginals) and
:mod:`tagtool.decode.sum_product` (sums over paths).  :mod:`tagtool.decode.reference`
holds the pure-numpy versions used as test oracle and benchmark baseline;
:mod:`tagtool.decode.constraints` turns forbidden transitions (a tagging
scheme's rules) into scores these decoders take.  Nothing here imports Qt.
"""

from typing import TYPE_CHECKING

from tagtool._lazy import lazy_getattr

if TYPE_CHECKING:  # what the type checker sees; at run time they are imported on first use
    from tagtool.decode.constraints import forbid_transitions, transition_penalty
    from tagtool.decode.errors import DecoderInputError
    from tagtool.decode.max_product import kbest_viterbi, loss_augmented_viterbi, max_marginals, viterbi, viterbi_batch
    from tagtool.decode.results import EntropyResult, ForwardBackwardResult
    from tagtool.decode.sum_product import entropy_and_gradient, forward_backward, log_partition

# The kernels' modules import numba, whose loading (half a second) a short
# ``tagtool tag`` run need not pay for (see :mod:`tagtool.decode.vectorised`):
# every name is imported from its module on first use.
_LAZY = {
    **dict.fromkeys(
        ("kbest_viterbi", "loss_augmented_viterbi", "max_marginals", "viterbi", "viterbi_batch"),
        "tagtool.decode.max_product",
    ),
    **dict.fromkeys(("entropy_and_gradient", "forward_backward", "log_partition"), "tagtool.decode.sum_product"),
    "forbid_transitions": "tagtool.decode.constraints",
    "transition_penalty": "tagtool.decode.constraints",
    "DecoderInputError": "tagtool.decode.errors",
    "EntropyResult": "tagtool.decode.results",
    "ForwardBackwardResult": "tagtool.decode.results",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)


__all__ = [
    "DecoderInputError",
    "EntropyResult",
    "ForwardBackwardResult",
    "entropy_and_gradient",
    "forbid_transitions",
    "forward_backward",
    "kbest_viterbi",
    "log_partition",
    "loss_augmented_viterbi",
    "max_marginals",
    "transition_penalty",
    "viterbi",
    "viterbi_batch",
]
