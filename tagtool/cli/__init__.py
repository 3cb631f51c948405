"""The ``tagtool`` command line (:func:`tagtool.cli.main.run`): the parser (:mod:`~tagtool.cli.parser`), one
module per group of commands, and the options and helpers they share."""
