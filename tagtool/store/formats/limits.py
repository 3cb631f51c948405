"""Upper limits of what a corpus reader accepts, so memory stays bounded on hostile files.

Every reader stops at the first line, sentence, token or label set beyond a
limit with a :class:`~tagtool.errors.FormatError` naming the file and line,
before the offending input is held in memory whole: lines are read at most
``max_line_chars + 1`` characters at a time, and a sentence's rows are
counted as they come.  The defaults (:data:`DEFAULT_LIMITS`) are far above
real corpora and far below what exhausts memory:

``max_line_chars`` = 16 Mi (16,777,216)
    Characters in one line (a JSONL record, a text-format sentence).
``max_sentence_tokens`` = 100,000
    Tokens in one sentence.  Featurising costs a few kB per token, so a
    35-million-token "sentence" (a file without blank lines) would need
    tens of gigabytes; split it into sentences instead.
``max_token_chars`` = 4,096
    Characters in one token.  The default features take every letter
    n-gram of a token, so a 50 MB token would make 150 million features.
``max_labels`` = 1,000
    Distinct labels of a file read without a schema.  A model holds
    labels × labels transitions and features × labels weights; raise it for
    large tag sets (Czech positional XPOS has some 1,500).
``max_table_bytes`` = 32 MiB
    Size of a CSV/TSV table, which pandas loads whole (about 15 times its
    size in memory): convert larger tables to a column file, which streams.

Change them with keyword arguments of
:func:`~tagtool.store.formats.read_corpus` and
:func:`~tagtool.store.formats.iter_sentences` (``max_sentence_tokens=10**6``)
or a whole :class:`ReadLimits` (``limits=ReadLimits(...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from tagtool.errors import FormatError


@dataclass(frozen=True)
class ReadLimits:
    """Upper limits of one read (see the module docstring for the defaults and why)."""

    max_line_chars: int = 16 * 2**20
    max_sentence_tokens: int = 100_000
    max_token_chars: int = 4096
    max_labels: int = 1000
    max_table_bytes: int = 32 * 2**20

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{f.name} must be a positive int, got {value!r}")

    @classmethod
    def from_options(cls, options: dict) -> ReadLimits:
        """The limits given as ``limits=`` and ``max_…=`` among reader ``options``, removed from them."""
        limits = options.pop("limits", None) or DEFAULT_LIMITS
        if not isinstance(limits, ReadLimits):
            raise TypeError(f"limits must be a ReadLimits, got {type(limits).__name__}")
        given = {f.name: options.pop(f.name) for f in fields(cls) if f.name in options}
        return replace(limits, **given) if given else limits


DEFAULT_LIMITS = ReadLimits()


def line_too_long(path, line: int, limit: int) -> FormatError:
    """The error for a line of ``path`` longer than ``limit`` characters.

    Parameters
    ----------
    path : str or Path
        The file read.
    line : int
        1-based number of the long line.
    limit : int
        ``max_line_chars`` of the :class:`ReadLimits` in force.

    Returns
    -------
    FormatError
        To raise; it names the file, the line and the limit to raise.
    """
    return FormatError(path, line, f"line longer than {limit:,} characters (max_line_chars); is this a corpus file?")


def sentence_too_long(path, line: int, limit: int) -> FormatError:
    """The error for a sentence of ``path`` with more than ``limit`` tokens.

    Parameters
    ----------
    path : str or Path
        The file read.
    line : int
        1-based line where the sentence starts.
    limit : int
        ``max_sentence_tokens`` of the :class:`ReadLimits` in force.

    Returns
    -------
    FormatError
        To raise; it names the file, the line and the limit to raise.
    """
    return FormatError(
        path, line,
        f"the sentence starting here has more than {limit:,} tokens (max_sentence_tokens); "
        "separate sentences with blank lines, or raise the limit",
    )  # fmt: skip


def check_tokens(
    path, tokens: Sequence[str], line: int, limits: ReadLimits, lines: Sequence[int] | None = None
) -> None:
    """Raise :class:`FormatError` for a sentence or token beyond ``limits``.

    ``line`` is the sentence's first line; ``lines[i]``, when given, token i's.
    """
    if len(tokens) > limits.max_sentence_tokens:
        raise sentence_too_long(path, line, limits.max_sentence_tokens)
    if tokens and max(map(len, tokens)) > limits.max_token_chars:
        i = next(i for i, t in enumerate(tokens) if len(t) > limits.max_token_chars)
        raise FormatError(
            path, lines[i] if lines is not None else line,
            f"token {i + 1} has {len(tokens[i]):,} characters, more than {limits.max_token_chars:,} "
            f"(max_token_chars): {tokens[i][:40]!r}…",
        )  # fmt: skip


def check_table_size(path, size: int, limits: ReadLimits) -> None:
    """Raise :class:`FormatError` for a table larger than ``limits.max_table_bytes``."""
    if size > limits.max_table_bytes:
        raise FormatError(
            path, 1,
            f"a {size / 2**20:.1f} MiB table: CSV/TSV files are loaded whole and may hold "
            f"{limits.max_table_bytes / 2**20:.0f} MiB (max_table_bytes); convert it to a column "
            "file (tagtool streams those) or raise the limit",
        )  # fmt: skip
