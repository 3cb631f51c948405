"""The ``tagtool`` command line (:func:`tagtool.cli.commands.run`)."""
