"""WD-PSL's parts, one module a job (the learner itself is :mod:`tagtool.learn.wdpsl`).

* :mod:`.pieces` -- two-token pieces, candidate energies, Eq. 22 and Eq. 23 confidences;
* :mod:`._piece_kernels` -- their numba kernels (and the most violated output of a piece);
* :mod:`.dual` -- the restricted dual: working sets, block QPs, the explicit weights;
* :mod:`._block_kernels` -- one block QP per piece and a pass over the pieces in numba;
* :mod:`._block_gram_kernels` -- a piece's block in numba: entries, bounds, closed-form Gram matrix;
* :mod:`._working_set_kernels` -- entries joining, leaving, and the β boxes in numba.

Nothing is imported here: :mod:`tagtool.learn.wdpsl` imports what it uses from the modules.
"""
