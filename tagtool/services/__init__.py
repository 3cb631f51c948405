"""What the command line and the app both call, above the learners and the store.

Training a tagger from a project (:mod:`~tagtool.services.pipeline`), scoring
and ranking what to label next (:mod:`~tagtool.services.guidance`,
:mod:`~tagtool.services.strategies`), tagging files in batches
(:mod:`~tagtool.services.batch`), cross-validation, experiments, the
annotation simulator, word representations, annotation costs and annotator
agreement. Nothing here imports Qt.
"""
