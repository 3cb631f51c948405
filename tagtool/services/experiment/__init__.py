"""The resampling experiments of the papers (``tagtool experiment``).

The modules, one job each: :mod:`.config` (what to run), :mod:`.draws` (the pool and each
repeat's draw), :mod:`.runner` (featurise, train and score every repeat:
:func:`~tagtool.services.experiment.runner.run_experiment`) and :mod:`.results` (means and
standard errors, the ``--json`` record).

Protocol (Brefeld et al. 2005, §6; Brefeld et al. 2006, §5.2):

* **Pool**: the first ``pool`` fully labeled sentences of the data whose
  length lies in ``[min_length, max_length]`` tokens (CoNLL-2002 Spanish:
  3,100 sentences of 10–40 tokens).
* **Settings**: ``labeled`` and ``unlabeled`` pair up element-wise, as in
  Table 2 of the 2006 paper (L = 5 with U = 25, L = 10 with U = 50,
  L = 20 with U = 100); a single ``unlabeled`` value applies to every L, and
  no ``unlabeled`` means U = 0.
* **Per repeat**: draw L labeled, U unlabeled and ``holdout`` sentences
  from the pool without replacement.  "We assure that each label occurs at
  least once in the labeled training data; otherwise, we discard and draw
  again": the labeled set is redrawn (up to ``max_redraws`` times) until it
  holds every label of the pool; when it never does, the last draw is used
  and the result says how many repeats lacked a label.  Redrawing only the
  labeled set and then drawing the others from the rest gives the same
  distribution as redrawing everything, since the condition concerns the
  labeled set alone.  With ``test`` the holdout is that file instead.
  Unlabeled sentences lose their labels; learners that cannot use them
  (``"none"`` not in ``learner.uses``) are trained without them (said once).
* **Features** (``fit_features``): ``"train"`` (default) fits the extractor
  on the repeat's training text (labeled + unlabeled), so the model never
  sees holdout text, as in the papers; ``"pool"`` fits it once on the pool
  (and the test file) and takes every repeat's arrays with
  :meth:`~tagtool.core.snapshot.Snapshot.subset` — faster, with a
  vocabulary that includes holdout text (no labels).
* **Views**: two-view learners get a fresh random split per repeat ("we
  utilize a distinct random split of the attributes in two views for each
  repetition", 2006 §5.2) unless the caller fixes ``views``.
* **WD-PSL protocol** (``partial_share`` P, ``candidates`` K; Lu & Chow §V):
  a share P of the labeled training tokens (chosen uniformly, exactly
  ``round(P · tokens)``) keeps its gold label; every other token gets K
  candidate labels, the gold one plus K − 1 others drawn uniformly (K ≥ L
  means no label).
* **Scores**: token error in percent and span F1 (conlleval rules via
  seqeval; token accuracy for non-span label sets) of the joint model's
  unconstrained Viterbi labels on the holdout; mean and standard error
  (``std(ddof=1) / sqrt(R)``) over the repeats; learner training seconds.

A seed fixes everything: draws depend on (seed, L, repeat) only — never on
the learner or on U — so two learners run with one seed see the same
sentences, and runs with U = 0 and U > 0 share their labeled and holdout
sets (the unlabeled ones are the first U of the rest), a paired comparison.

References
----------
.. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6.
.. [2] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §5.2 and Table 2.
.. [3] Lu, Chow. Weak disambiguation for partial structured output
   learning, §V (random candidate generation).
"""
