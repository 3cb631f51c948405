"""Decoders for first-order linear chains: numba kernels behind checked wrappers.

All decoders take ``emit[T, L]``, ``trans[L, L]``, ``start[L]``, ``end[L]``
and an optional boolean ``allowed[T, L]`` mask (DESIGN §4); see
:mod:`tagtool.decode.api`.  :mod:`tagtool.decode.reference` holds the
pure-numpy versions used as test oracle and benchmark baseline;
:mod:`tagtool.decode.constraints` turns forbidden transitions (a tagging
scheme's rules) into scores these decoders take.  Nothing here imports Qt.
"""

from tagtool.decode.api import (
    entropy_and_gradient,
    forward_backward,
    kbest_viterbi,
    log_partition,
    loss_augmented_viterbi,
    max_marginals,
    viterbi,
    viterbi_batch,
)
from tagtool.decode.constraints import forbid_transitions, transition_penalty
from tagtool.decode.errors import DecoderInputError
from tagtool.decode.results import EntropyResult, ForwardBackwardResult

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
