"""The parser of the ``tagtool`` command line: every command's options, gathered from the command modules.

Each command module adds its own subcommands (``add_*_command(s)``); this
module only orders them.  Building the parser imports no heavy library
(numpy, numba, Qt, ...): a command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse

from tagtool import __version__
from tagtool.cli.agreement import add_agreement_command
from tagtool.cli.desktop import add_desktop_command
from tagtool.cli.experiments import add_experiment_command
from tagtool.cli.knowledge import add_knowledge_commands
from tagtool.cli.learning import add_evaluate_command, add_train_command
from tagtool.cli.mode import add_mode_command
from tagtool.cli.projects import add_project_commands
from tagtool.cli.settings import add_settings_command
from tagtool.cli.simulating import add_simulate_command
from tagtool.cli.tagging import add_tag_command
from tagtool.cli.team import add_team_commands
from tagtool.cli.text import add_text_commands
from tagtool.cli.vectors import add_vectors_command


def build_parser() -> argparse.ArgumentParser:
    """The ``tagtool`` parser; each subcommand's ``func`` default runs it."""
    parser = argparse.ArgumentParser(
        prog="tagtool",
        description="Token annotation with full, partial and no labels. "
        "Without a command: open the built-in sample project.",
    )
    parser.add_argument("--version", action="version", version=f"tagtool {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (
        add_project_commands,
        add_train_command,
        add_tag_command,
        add_evaluate_command,
        add_experiment_command,
        add_simulate_command,
        add_mode_command,
        add_text_commands,
        add_vectors_command,
        add_knowledge_commands,
        add_agreement_command,
        add_team_commands,
        add_settings_command,
        add_desktop_command,
    ):
        add(sub)
    return parser
