"""The command line imports only what a command needs: building the parser pulls in no heavy library."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "numba", "scipy", "pandas", "PySide6", "sklearn", "cvxopt")


def test_building_the_parser_and_asking_for_help_imports_no_heavy_library():
    code = (
        "import sys\nfrom tagtool.cli.parser import build_parser\n"
        "parser = build_parser()\nparser.format_help()\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_light_packages_import_their_heavy_names_on_first_use():
    code = (
        "import sys\nimport tagtool.learn, tagtool.store, tagtool.decode\n"
        "before = 'numba' in sys.modules or 'tagtool.store.project' in sys.modules\n"
        "from tagtool.learn import ChainModel, Learner\nfrom tagtool.store import Project\n"
        "from tagtool.decode import viterbi\n"
        "print(before, 'numba' in sys.modules, Project.__module__, ChainModel.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "tagtool.store.project", "tagtool.learn.chain"]


def test_the_parser_s_copy_of_the_match_modes_is_the_store_s():
    from tagtool.cli.answers import MATCH_MODES as parser_modes
    from tagtool.store.answer_files import MATCH_MODES

    assert parser_modes == MATCH_MODES
