"""Tokenising raw text with character offsets, and splitting it into sentences.

Span records (doccano, Label Studio) hold raw text and character spans; a
sentence needs tokens. Every function here returns ``(start, end)`` offsets
into the text, so spans can be placed on tokens and written back relative to
the original text.

Tokenizers
----------
``"default"`` (rule based, :func:`tokenize`)
    Runs of letters and digits are words; every other non-space character is
    a token of its own, with these exceptions, tried in order:

    - abbreviations with inner dots stay one token: ``U.S.``, ``e.g.``,
      ``Ph.D.`` (letters alternating with dots, ending in a dot);
    - numbers keep their decimal point, thousands separators and sign-less
      fractions: ``3.5``, ``1,000``, ``12:30``, ``1/2`` (a ``.``, ``,``,
      ``:`` or ``/`` between two digits);
    - English clitics split off the word: ``don't`` → ``do`` ``n't``,
      ``it's`` → ``it`` ``'s`` (also ``'re 've 'll 'd 'm``); other inner
      apostrophes and hyphens stay inside the word (``O'Brien``,
      ``state-of-the-art``);
    - a run of the same punctuation character is one token (``...``, ``--``,
      ``!!``).

``"whitespace"`` (:func:`whitespace_tokenize`)
    Tokens are the runs of non-space characters, nothing else.

Sentence splitting (:func:`split_sentences`)
--------------------------------------------
A sentence ends after a token ``.``, ``!`` or ``?`` (or a run of them,
optionally followed by closing quotes or brackets) when the next token starts
with an upper-case letter, a digit or an opening quote, bracket, ``¿`` or
``¡``, and there is whitespace in between; a
token ending in a dot that is a known abbreviation (:data:`ABBREVIATIONS`,
e.g. ``Dr.``, ``Mr.``, ``etc.``) or a single letter (``J.``) does not end a
sentence. Callers may forbid breaks (a span crossing them keeps its
sentences together).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection

Offsets = list[tuple[int, int]]

#: Tokens ending in a dot that do not end a sentence (compared lower-cased).
ABBREVIATIONS = frozenset(
    """mr. mrs. ms. dr. prof. sr. jr. st. mt. vs. etc. e.g. i.e. cf. al. fig.
    vol. pp. inc. ltd. co. corp. dept. univ. jan. feb. mar. apr. jun. jul. aug.
    sep. sept. oct. nov. dec. gen. col. lt. sgt. capt. rev. u.s. u.k. a.m. p.m.""".split()
)
# Plain words match fast; abbreviation dots and clitics are settled in
# Python afterwards (regex look-aheads at every character cost 3x).
_TOKEN = re.compile(
    r"""
    (?:[^\W\d_]\.){2,}                    # U.S.  e.g.  (letter-dot pairs)
    | [^\W\d_]+\.(?:[^\W\d_]+\.)+           # Ph.D.
    | \d+(?:[.,:/]\d+)+                      # 3.5  1,000  12:30  1/2
    | [^\W_]+(?:['’\-][^\W_]+)*              # words, O'Brien, state-of-the-art, don't
    | ([^\w\s])\1*                           # punctuation, runs of one character
    | _+
    """,
    re.VERBOSE,
)
_CLITIC = re.compile(r"(?i:n['’]t|['’](?:s|re|ve|ll|d|m))\Z")
_NON_SPACE = re.compile(r"\S+")

_ENDS = frozenset(".!?")
_CLOSERS = frozenset("\"'”’)]}»")
_END_CHARS = _ENDS | _CLOSERS
#: What may start a sentence besides a capital or a digit.
_OPENERS = frozenset("\"“‘'([¿¡«")


def tokenize(text: str) -> Offsets:
    """``(start, end)`` of each token of ``text`` by the default rules (module docstring)."""
    out = _tokens(text)
    return out if text.isascii() else _join_marks(text, out)


def _joiner(char: str) -> bool:
    """A character that belongs to the one before it: a combining mark, ZWJ/ZWNJ, a variation selector, a skin tone."""
    return (
        unicodedata.category(char).startswith("M")
        or char in "\u200c\u200d"
        or "\ufe00" <= char <= "\ufe0f"
        or "\U0001f3fb" <= char <= "\U0001f3ff"
    )


def _join_marks(text: str, tokens: Offsets) -> Offsets:
    """Tokens glued back where the regex split a character sequence.

    Python's ``\\w`` leaves out combining marks, so a decomposed accent,
    an Indic vowel sign or virama, or the pieces of an emoji sequence
    (skin tone, zero-width joiner) would each become a token of their own.
    """
    out: Offsets = []
    for start, end in tokens:
        if out and out[-1][1] == start:
            last = text[out[-1][1] - 1]
            if _joiner(text[start]) or last == "\u200d" or (_joiner(last) and text[start].isalnum()):
                out[-1] = (out[-1][0], end)
                continue
        out.append((start, end))
    return out


def _tokens(text: str) -> Offsets:
    out: Offsets = []
    search, pos = _TOKEN.search, 0
    while (m := search(text, pos)) is not None:
        start, end = m.span()
        pos = end
        if text[end : end + 1] == "." and text[start].isalpha() and _dotted(text, start, end):
            out.append((start, end + 1))  # "Dr." "J."
            pos = end + 1
            continue
        if "'" in text[start:end] or "’" in text[start:end]:
            clitic = _CLITIC.search(text, start, end)
            if clitic is not None and clitic.start() > start:
                out += [(start, clitic.start()), (clitic.start(), end)]
                continue
        out.append((start, end))
    return out


def _dotted(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` keeps the dot after it (abbreviation, initial)."""
    word = text[start:end]
    if len(word) == 1:
        return word.isupper() and (end + 1 == len(text) or text[end + 1].isspace())
    return word.lower() + "." in ABBREVIATIONS


def whitespace_tokenize(text: str) -> Offsets:
    """``(start, end)`` of each run of non-space characters."""
    return [m.span() for m in _NON_SPACE.finditer(text)]


#: Tokenizer names for ``--tokenizer`` and the app's import dialog.
TOKENIZERS: dict[str, Callable[[str], Offsets]] = {
    "default": tokenize,
    "whitespace": whitespace_tokenize,
}


def get_tokenizer(name: str) -> Callable[[str], Offsets]:
    """The tokenizer called ``name``; ``ValueError`` listing the known ones."""
    try:
        return TOKENIZERS[name]
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}") from None


def _ends_sentence(token: str) -> bool:
    """Whether ``token`` (closing quotes and brackets stripped) can end a sentence."""
    core = token.rstrip("".join(_CLOSERS))
    if not core or core[-1] not in _ENDS:
        return False
    word = core.rstrip(".!?")
    if not word or core[-1] != ".":
        return True
    # A word glued to its dot: the default tokenizer keeps only abbreviations
    # so; the whitespace tokenizer keeps every sentence-final word so.
    if core.lower() in ABBREVIATIONS or (len(word) == 1 and word.isupper()):
        return False
    return not re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]", word + "")


def split_sentences(
    text: str, tokens: Offsets, keep_together: Collection[int] = ()
) -> list[tuple[int, int]]:
    """Token index ranges ``(first, stop)`` of the sentences of ``text``.

    Parameters
    ----------
    text : str
    tokens : list of (int, int)
        Token offsets into ``text``, in order.
    keep_together : collection of int
        Token indices ``i`` where no sentence may start (a span runs from
        token ``i - 1`` into token ``i``).

    Returns
    -------
    list of (int, int)
        Consecutive half-open ranges covering every token.
    """
    ranges, first = [], 0
    for i in range(1, len(tokens)):
        start, prev_end = tokens[i][0], tokens[i - 1][1]
        if start == prev_end or text[prev_end - 1] not in _END_CHARS or i in keep_together:
            continue
        # The sentence end: the previous token, or the tokens glued before it
        # ('." ' is a dot token and a quote token).
        j = i - 1
        while j > first and tokens[j][0] == tokens[j - 1][1] and text[tokens[j][0]] in _CLOSERS:
            j -= 1
        if not _ends_sentence(text[tokens[j][0] : tokens[i - 1][1]]):
            continue
        nxt = text[start]
        if nxt.isupper() or nxt.isdigit() or nxt in _OPENERS:
            ranges.append((first, i))
            first = i
    ranges.append((first, len(tokens)))
    return ranges
