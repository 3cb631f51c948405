"""A simulated annotator: what guidance and partial labels save (``tagtool simulate``).

The modules, one job each: :mod:`.config` (the settings and costs), :mod:`.pool` (the data
featurised once), :mod:`.oracle` (the annotator's state and what it pays), :mod:`.questions`
(a model's questions about the open sentences), :mod:`.suggestions` (string-match
suggestions in ``review``), :mod:`.loop` (annotate, retrain, score:
:func:`~tagtool.services.simulate.loop.simulate`), :mod:`.results` (the curve and its JSON) and
:mod:`.plot` (cost → F1 curves).

An oracle annotator who knows the gold labels works through the data in the
order a *strategy* of :mod:`tagtool.services.strategies` picks (the registry the
desktop app's queue reads too), with the queue the app uses
(:func:`tagtool.services.guidance.queue`); after every *step* the learner retrains,
warm-started from the previous step's model, and its span F1 on the test
sentences is recorded against the annotation *cost* spent so far.

Strategies (which sentence next; the per-token *question* ``q_t`` in [0, 1])
    ``sequential``  file order; ``q`` = the model's uncertainty.
    ``random``      a random order fixed by the seed; ``q`` = uncertainty.
    ``uncertainty`` most informative first (:func:`tagtool.services.uncertainty.informativeness`
                    with the token uncertainty: entropy / margin).
    ``disagreement`` two-view learners: share of open tokens where view 0's
                    and view 1's Viterbi labels differ; ``q`` = 1 there, else 0.
    ``confidence``  WD-PSL: every open token narrowed to the model's two best
                    labels (:func:`tagtool.services.uncertainty.contention_mask`) and
                    ``q`` = ``1 − (c₁ − c₂)`` of WD-PSL's candidate
                    confidences among them (Eq. 22).
    ``combined``    the desktop app's question (1 where the views disagree,
                    else the uncertainty; for WD-PSL the larger of the
                    uncertainty and the confidence question), ranked per unit
                    of cost: a sentence scores the questions it would ask,
                    ``Σ_{t asked} q_t``, over what showing it would cost in the
                    mode (asked tokens at ``full``, the other unlabeled ones at
                    ``skip``).  In ``full`` mode that is the mean question of
                    its tokens, as ``uncertainty``; in ``tokens`` mode it
                    prefers sentences whose few questions come cheap.
    ``gain``        as ``combined``, with a cost of opening each sentence in
                    the ranking (not charged; :func:`tagtool.services.strategies.gain_per_cost`).
    The other guided strategies score a sentence the mean over its tokens
    of ``(1 − info_t) · q_t`` (:func:`tagtool.services.uncertainty.informativeness`,
    docs/design.md#guidance).  Ties, and the order of ``sequential``/``random``, come from
    the order the queue is given.  The queue is recomputed after every step
    from the new model (batch-mode active learning).

Modes (what the annotator gives in a sentence it is shown)
    ``full``     every token its gold label.
    ``tokens``   only the unlabeled tokens with ``q_t ≥ threshold`` get a
                 gold label; the others stay unlabeled (not shown, but read:
                 cost ``skip``) — semi-supervised active learning (Tomanek &
                 Hahn 2009).  The default threshold depends on the scale of
                 the model's uncertainty (:data:`DEFAULT_THRESHOLD`).  An
                 asked token whose suggestion is gold is accepted (cost
                 ``accept``, the app's Space) unless ``accept_questions`` is
                 off, then typed (cost ``full``).  With
                 ``questions = spans`` each asked token grows to the mention
                 the model predicts around it, one span question whose tokens
                 each cost ``full`` (:mod:`tagtool.services.span_questions`).
    ``partial``  as ``tokens``, and where the model is torn between the gold
                 label and its strongest wrong label
                 (:func:`tagtool.services.uncertainty.pair_uncertainty` ≥ ``close``) the
                 annotator — simulated as unsure there — gives the candidate
                 set {gold, strongest wrong} instead (cost ``partial``).
    ``review``   the app's correction workflow (a mode beyond the first
                 three): the sentence is shown with the model's suggestions
                 (its Viterbi path under the annotations already there, as
                 the editor shows them); the annotator corrects every wrong
                 suggestion (cost ``full`` each) and accepts the rest with
                 Enter (cost ``skip`` each: read, not typed).  Every token of
                 the sentence ends up with its gold label.  The questions
                 only order the sentences, as in ``full``.  With
                 ``string_matches`` the spans labeled so far are suggested
                 wherever their string recurs, from the first label on and
                 beside the model's suggestions, and charged the same way
                 (:mod:`.suggestions`, which also states the precedence rule).
    In ``tokens``/``partial``, a sentence with nothing to ask (no unlabeled
    token with ``q ≥ threshold``) is not shown and costs nothing; a sentence can be shown
    again at a later step if the new model has a question about its
    remaining unlabeled tokens.  Tokens already labeled cost nothing.
    With ``string_matches``, the whole sentences of the first step and
    of the cold start carry the string matches' suggestions as in
    ``review``; a question shows the model's suggestion, as the app's does.  When
    no sentence has a question left before a step's cost is spent (the
    model is sure of every unlabeled token), the rest of the step labels
    whole sentences in queue order, as an annotator with nothing flagged
    would go on; a note says from which cost on.
    With ``skip_near_duplicates``, a sentence a near-duplicate of which
    was shown in the step is passed over until the next model
    (:mod:`tagtool.services.near_duplicates`: equal after lower-casing and
    mapping digits to 0, or token 3-grams with Jaccard ≥ 0.7), as the
    app's J and Tab pass over it.

Steps and cost
    The first step has no model to guide it: the annotator labels whole
    sentences in the strategy's tie order (:func:`tagtool.services.strategies.tie_order`:
    random order, file order for ``sequential``; the app's J goes in that
    order under ``random``).  A step shows sentences until its cost reaches
    ``step`` (the first) or ``growth`` times the previous step's target;
    the last sentence of a step may overshoot, the recorded cost is exact.
    The run ends when ``budget`` is spent, nothing is left to label, or —
    with ``until_95`` — at ``cost_to_95``.  Costs: ``full`` per full label,
    ``partial`` per candidate set, ``skip`` per unlabeled token read and
    left unlabeled, ``accept`` per suggestion read and accepted in
    ``review`` (defaults 1, 0.5, 0.1 and ``accept`` = ``skip``).
    ``tagtool simulate --costs-from PROJECT`` measures them in an app
    session's action log (:mod:`tagtool.services.annotation_costs`).

Training
    The data is featurised once (extractor fitted on the data text, as
    ``tagtool experiment --fit-features pool`` does with its pool, so one
    feature space serves every step and the warm start) and the test with
    the same extractor; each step trains on a subset of that snapshot with
    the oracle's allowed sets (:meth:`Snapshot.subset`), warm-started from
    the previous step's model.  Sentences without any label are left out,
    except for learners that use unlabeled sentences (``"none" in
    learner.uses``): they get at most ``max_unlabeled`` of them, the first
    still unlabeled ones of a fixed random order of the data (so steps stay
    fast and the sample changes only as the annotator labels its
    sentences; the app trains on all of them, as ``max_unlabeled`` at
    least the data's size does).  The training sentences are in document
    order, as the app's.  Test F1 is computed with :class:`F1Scorer` (seqeval's chunk
    rules on index arrays).

``cost_to_95``
    The cost of the first curve point whose F1 reaches 95 % of
    ``full_data_f1``: the same learner (same settings, cold start) trained on
    all of the data fully labeled and scored on the test sentences.

References
----------
.. [1] K. Tomanek, U. Hahn. Semi-supervised active learning for sequence
   labeling. ACL-IJCNLP 2009.
.. [2] B. Settles, M. Craven. An analysis of active learning strategies for
   sequence labeling tasks. EMNLP 2008.
"""
