"""The structural SVMs' machinery, shared by ``svm`` and ``cosvm``, one module a job.

* :mod:`.layout` -- the flat weight vector ``θ`` over a chain model's arrays;
* :mod:`._joint_kernels` -- joint-feature kernels (token kernel, Gram entries, updates ``θ += a δΦ``);
* :mod:`.search` -- losses and the most violating output (loss-augmented search);
* :mod:`.subqp` -- the dual QP of one example and its solvers (cvxopt, SMO);
* :mod:`._dual_kernels` -- the SMO solver and one cutting-plane round in numba;
* :mod:`.trainer` -- working sets and the example-by-example trainer of one view;
* :mod:`.coviews` -- ``cosvm``'s two views: the peer's targets, one- vs two-view models.

Nothing is imported here: the learners import what they use from the modules.
"""
