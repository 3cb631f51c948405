"""The README's first two commands: what a newcomer types is what CI runs."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _bash_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command():
    first, second = _bash_blocks()[:2]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == second


def test_both_commands_make_their_own_virtual_environment():
    # A system Python that refuses global installs (PEP 668) must still work.
    for command in _bash_blocks()[:2]:
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e ")
    assert _bash_blocks()[0].endswith("&& tagtool")
