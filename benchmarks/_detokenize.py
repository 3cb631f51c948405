"""Raw text from tokenised corpora: a rule-based detokenizer that keeps the gold offsets.

No raw text of CoNLL-2000, CoNLL-2002, the PTB sample or NCBI disease
exists, so it is rebuilt from the tokens by the spelling rules of written
English and Spanish (those of the Moses detokenizer), never by looking at
a tokenizer's output:

- PTB escapes are written as the characters they stand for: ``-LRB-`` ``(``,
  ``-RRB-`` ``)``, ``-LSB-`` ``[``, ``-RSB-`` ``]``, ``-LCB-`` ``{``,
  ``-RCB-`` ``}``, `````` and ``''`` ``"``, ````` ``'``, ``\\/`` ``/``, ``\\*`` ``*``;
- no space before ``, . ; : ! ? % ) ] } ...`` and closing quotes, nor
  before the clitics ``n't 's 're 've 'll 'd 'm`` (``do n't`` → ``don't``);
- no space after ``( [ { ¿ ¡ $ #`` and opening quotes;
- a straight double quote opens and closes in turn (per document);
- every other pair of tokens is separated by one space; sentences of a
  document by one space.

Each gold token is kept as its ``(start, end)`` in the text (an escape is
measured on the character written for it), each sentence as the offset of
its first token. The rules glue punctuation to words as writers do, which
a whitespace tokenizer cannot undo; they follow no tokenizer's conventions
(the corpora's own: PTB's ``do n't``, ``$ 100``, CoNLL-2002's ``¿``).
"""

from __future__ import annotations

from collections.abc import Sequence

ESCAPES = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
    "`": "'",
}
NO_SPACE_BEFORE = frozenset(", . ; : ! ? % ) ] } ... '' '".split())
NO_SPACE_AFTER = frozenset("( [ { ¿ ¡ $ # ``".split())
CLITICS = frozenset("n't 's 're 've 'll 'd 'm".split())


def detokenize(sentences: Sequence[Sequence[str]]) -> tuple[str, list[tuple[int, int]], list[int]]:
    """The text of one document, each token's ``(start, end)`` in it, and each sentence's start."""
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    starts: list[int] = []
    pos, glue_next, open_quote = 0, True, False
    for sentence in sentences:
        for t, token in enumerate(sentence):
            written = ESCAPES.get(token, token).replace("\\/", "/").replace("\\*", "*")
            if token == '"':
                glue_before, glue_after, open_quote = open_quote, not open_quote, not open_quote
            else:
                glue_before = token in NO_SPACE_BEFORE or token.lower() in CLITICS
                glue_after = token in NO_SPACE_AFTER
            if pieces and not (glue_next or glue_before) or (pieces and t == 0):
                pieces.append(" ")
                pos += 1
            if t == 0:
                starts.append(pos)
            offsets.append((pos, pos + len(written)))
            pieces.append(written)
            pos += len(written)
            glue_next = glue_after
    return "".join(pieces), offsets, starts
