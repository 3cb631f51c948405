"""What the command line and the app both call, above the learners and the store.

Training a tagger from a project (:mod:`~tagtool.services.pipeline`; its
features, views and seed :mod:`~tagtool.services.training_setup`; ``--set``
strings :mod:`~tagtool.services.settings`), scoring and ranking what to label
next (:mod:`~tagtool.services.uncertainty`, :mod:`~tagtool.services.guidance`,
:mod:`~tagtool.services.chunked_guidance`, :mod:`~tagtool.services.strategies`),
tagging files in batches (:mod:`~tagtool.services.batch`), cross-validation,
experiments (:mod:`~tagtool.services.experiment`), the annotation simulator
(:mod:`~tagtool.services.simulate`), word representations, annotation costs
and annotator agreement. Nothing here imports Qt.
"""
