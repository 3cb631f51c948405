"""The exported tagger: the :class:`~tagtool.tagger.model.Tagger` and its tagging (:mod:`~tagtool.tagger.model`),
its file (layout and writing :mod:`~tagtool.tagger.file_format`, checked reading :mod:`~tagtool.tagger.reading`
and :mod:`~tagtool.tagger.arrays`, bounds :mod:`~tagtool.tagger.limits`) and the input columns it needs
(:mod:`~tagtool.tagger.inputs`)."""
