"""How far ``tagtool agreement`` and the Statistics dock go by default.

Kept apart from :mod:`tagtool.services.agreement` (which loads numpy) so
that building the command line's parser, whose help shows these defaults,
stays light.
"""

#: Most annotators with answers ``tagtool agreement`` computes without ``--limit``.
ANNOTATOR_LIMIT = 1_000
#: Most annotators for which the per-pair measures are computed by default: 1,225 pairs.
PAIR_ANNOTATORS = 50
