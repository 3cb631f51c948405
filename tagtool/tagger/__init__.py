"""The exported tagger: the model file (:mod:`~tagtool.tagger.model`), the
input columns it needs (:mod:`~tagtool.tagger.inputs`) and the bounds a
tagger file is read within (:mod:`~tagtool.tagger.limits`)."""
