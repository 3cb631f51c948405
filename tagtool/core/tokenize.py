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

    - URLs (``https://…``, ``www.…``; punctuation that ends the sentence
      after them, and a closing bracket they did not open, stay out), e-mail
      addresses (``ana@uni.edu``) and domain names under a known top-level
      domain (``amazon.co.uk``, ``Example.com``) are one token;
    - ``@mentions`` and ``#hashtags`` are one token;
    - abbreviations with inner dots stay one token: ``U.S.``, ``e.g.``,
      ``Ph.D.`` (letters alternating with dots, ending in a dot); so do a
      known abbreviation and its dot (:data:`ABBREVIATIONS`: ``Dr.``,
      ``Conn.``, ``Mad.``; ``Mad.`` only capitalised, ``mad.`` is a word)
      and an initial (``J.`` before a space);
    - numbers keep their decimal point, thousands separators and sign-less
      fractions: ``3.5``, ``1,000.50``, ``12:30``, ``1/2`` (a ``.``, ``,``,
      ``:`` or ``/`` between two digits), and ranges and dates joined by
      hyphens stay one token as hyphenated words do (``10-15``);
    - emoji are tokens of their own, a sequence joined by a zero-width
      joiner or with a skin tone one token (a run of the same emoji one);
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
with an upper-case letter, a digit, an opening quote or bracket, ``¿``,
``¡`` or a dash (after a bare ``!`` or ``?``, not closing a quotation, a
lower-case letter too: web text writes "great! they fixed it"), and there
is whitespace in between. A title ending in a dot
(:data:`TITLES`: ``Dr.``, ``Mr.``, ``e.g.``) never ends a sentence; another
known abbreviation (:data:`ABBREVIATIONS`: ``etc.``, ``Inc.``, ``Conn.``,
``Mad.``), an initial (``J.``) or a dotted abbreviation (``U.S.``) ends one
only when the next word is one that usually starts a sentence
(:data:`SENTENCE_STARTERS`: ``The``, ``It``, ``But``, ...), so ``J. R. R.
Tolkien`` and ``Hartford, Conn. Avenue`` stay together while ``in the U.S.
The`` breaks. Callers may forbid breaks (a span crossing them keeps its
sentences together).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection

Offsets = list[tuple[int, int]]

#: Titles: tokens ending in a dot that never end a sentence (compared lower-cased).
TITLES = frozenset(
    """mr. mrs. ms. messrs. mme. dr. prof. st. mt. ft. gen. col. lt. sgt. capt. rev. gov. sen. rep. pres.
    supt. hon. fr. sr. jr. maj. sens. reps. adm. cmdr. cpl. pvt. vs. e.g. i.e. cf.""".split()
)
#: Tokens ending in a dot that do not end a sentence unless the next word
#: usually starts one (:data:`SENTENCE_STARTERS`; compared lower-cased).
ABBREVIATIONS = TITLES | frozenset(
    """etc. al. fig. figs. vol. vols. pp. inc. ltd. co. corp. dept. univ. assn. bros. jan. feb. mar. apr.
    jun. jul. aug. sep. sept. oct. nov. dec. mon. tue. tues. wed. thu. thur. thurs. fri. sat. u.s. u.k.
    a.m. p.m. ave. blvd. rd. hwy. apt. approx. est. hrs. mins. secs. lbs. oz. tsp. tbsp. dist. intl.
    ala. ariz. ark. calif. colo. conn. del. fla. ga. ill. ind. kan. kans. ky. md. mass. mich. minn.
    miss. mo. mont. neb. nev. okla. ore. pa. penn. tenn. tex. va. vt. wash. wis. wyo. mad.""".split()
)
#: Abbreviations that are also common words when not capitalised (``ill.``, ``mad.``, ``wash.``):
#: only their capitalised spelling is an abbreviation.
CAPITALISED_ONLY = frozenset("ill. ind. mad. mass. miss. mo. wash. pa. ga. del. sat. sun. wed. est. ore.".split())
#: Words that start a sentence after an abbreviation that can end one
#: (``... in Hartford, Conn. The food ...``), compared lower-cased.
SENTENCE_STARTERS = frozenset(
    """the a an this that these those it its i we you he she they my our your his her their there here
    but and so or if when while after before then now however also in on at for as what how why where
    who not no yes all some one our thanks""".split()
)
# Plain words match fast; abbreviation dots and clitics are settled in
# Python afterwards (regex look-aheads at every character cost 3x).
_TOKEN = re.compile(
    r"""
    (?i:https?://|ftp://|www\.)[^\s<>"]+          # URLs
    | [\w.+\-]+@[^\W_](?:[\w\-]*[^\W_])?(?:\.[^\W_](?:[\w\-]*[^\W_])?)+  # e-mail addresses
    | [@\#][^\W\d_]\w*                      # @mentions, #hashtags (a letter first: "# 5", "#1" are not)
    | (?:[^\W_](?:[\w\-]*[^\W_])?\.)+(?:com|org|net|edu|gov|mil|int|info|biz|io|ai|app|dev|me|tv|co
        |uk|us|ca|au|de|fr|es|it|nl|eu|ru|jp|cn|in|br|mx|ch|se|no|at|be|dk|fi|ie|nz|pl|pt)(?![\w@])
                                             # domain names: example.com, amazon.co.uk
    | (?:[^\W\d_]\.){2,}                    # U.S.  e.g.  (letter-dot pairs)
    | [^\W\d_]+\.(?:[^\W\d_]+\.)+           # Ph.D.
    | \d+(?:[.,:/]\d+)+                      # 3.5  1,000  1,000.50  12:30  1/2
    | [^\W_]+(?:['’\-][^\W_]+)*              # words, O'Brien, state-of-the-art, don't, 10-15
    | ([^\w\s])\1*                           # punctuation, runs of one character
    | _+
    """,
    re.VERBOSE,
)
#: Characters a URL does not end with (sentence punctuation after it), unless it opened them.
_URL_TAIL = ".,;:!?'\"”’»"
_URL_CLOSERS = {")": "(", "]": "["}
_CLITIC = re.compile(r"(?i:n['’]t|['’](?:s|re|ve|ll|d|m))\Z")
_NON_SPACE = re.compile(r"\S+")

_ENDS = frozenset(".!?")
_CLOSERS = frozenset("\"'”’)]}»")
_END_CHARS = _ENDS | _CLOSERS
#: What may start a sentence besides a capital or a digit.
_OPENERS = frozenset("\"“‘'([¿¡«-–—")


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
        if text[start] in "hHfFwW" and _URL_START.match(text, start):
            end = _url_end(text, start, end)
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


_URL_START = re.compile(r"https?://|ftp://|www\.", re.IGNORECASE)


def _url_end(text: str, start: int, end: int) -> int:
    """Where a URL matched as ``text[start:end]`` ends: without the punctuation that follows it in the sentence."""
    while end > start + 1:
        last = text[end - 1]
        opener = _URL_CLOSERS.get(last)
        if last in _URL_TAIL or (opener is not None and text.count(opener, start, end) < text.count(last, start, end)):
            end -= 1
            continue
        break
    return end


def is_abbreviation(token: str) -> bool:
    """Whether ``token`` (ending in a dot) is a known abbreviation in this spelling."""
    lower = token.lower()
    if lower not in ABBREVIATIONS:
        return False
    return lower not in CAPITALISED_ONLY or token[:1].isupper()


def _dotted(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` keeps the dot after it (abbreviation, initial)."""
    word = text[start:end]
    if len(word) == 1:
        return word.isupper() and (end + 1 == len(text) or text[end + 1].isspace())
    return is_abbreviation(word + ".")


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


def _ends_sentence(token: str) -> bool | None:
    """Whether ``token`` (closing quotes and brackets stripped) ends a sentence.

    None: an abbreviation or an initial that may end one, where the next
    word says (:data:`SENTENCE_STARTERS`).
    """
    core = token.rstrip("".join(_CLOSERS))
    if not core or core[-1] not in _ENDS:
        return False
    word = core.rstrip(".!?")
    if not word or core[-1] != ".":
        return True
    # A word glued to its dot: the default tokenizer keeps only abbreviations
    # so; the whitespace tokenizer keeps every sentence-final word so.
    if core.lower() in TITLES:
        return False
    if is_abbreviation(core) or (len(word) == 1 and word.isupper()):
        return None
    if re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]", word):  # U.S. e.g. Ph.D.
        return None
    return True


_WORD_START = re.compile(r"[^\W_]+")


def split_sentences(text: str, tokens: Offsets, keep_together: Collection[int] = ()) -> list[tuple[int, int]]:
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
        ends = _ends_sentence(text[tokens[j][0] : tokens[i - 1][1]])
        if ends is False:
            continue
        nxt = text[start]
        if ends is None:
            word = _WORD_START.match(text, start)
            ends = nxt.isupper() and word is not None and word.group().lower() in SENTENCE_STARTERS
        # web text starts sentences lower-case after ! and ? ("great! they fixed it"),
        # but not after a quotation ('"Stop!" he said')
        bang = j == i - 1 and text[prev_end - 1] in "!?"
        if ends and (nxt.isupper() or nxt.isdigit() or nxt in _OPENERS or (bang and nxt.islower())):
            ranges.append((first, i))
            first = i
    ranges.append((first, len(tokens)))
    return ranges
