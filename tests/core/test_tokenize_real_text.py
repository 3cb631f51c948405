"""The default tokenizer and sentence splitter on what real text holds: web addresses, abbreviations,
initials, numbers with separators, emoji, hashtags and @mentions."""

from __future__ import annotations

import pytest

from tagtool.core.tokenize import split_sentences, tokenize


def _words(text: str) -> list[str]:
    return [text[s:e] for s, e in tokenize(text)]


def _sentences(text: str) -> list[str]:
    offsets = tokenize(text)
    return [text[offsets[a][0] : offsets[b - 1][1]] for a, b in split_sentences(text, offsets)]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("See https://example.com/a?b=1&c=2.", ["See", "https://example.com/a?b=1&c=2", "."]),
        ("(http://x.org/wiki/A_(b))", ["(", "http://x.org/wiki/A_(b)", ")"]),
        ("at www.tagtool.dev/docs, then", ["at", "www.tagtool.dev/docs", ",", "then"]),
        ("HTTPS://EXAMPLE.COM!", ["HTTPS://EXAMPLE.COM", "!"]),
    ],
)
def test_urls_stay_whole(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("mail john.doe+tag@mail.example.co.uk.", ["mail", "john.doe+tag@mail.example.co.uk", "."]),
        ("<ana@uni.edu>", ["<", "ana@uni.edu", ">"]),
    ],
)
def test_email_addresses_stay_whole(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Order on amazon.co.uk or Example.com.", ["Order", "on", "amazon.co.uk", "or", "Example.com", "."]),
        ("google.de, bbc.co.uk!", ["google.de", ",", "bbc.co.uk", "!"]),
        # not a domain: a sentence end without a space before a known word
        ("the end.Then", ["the", "end", ".", "Then"]),
    ],
)
def test_domain_names_stay_whole(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("New Haven, Conn. and Mad. Ave.", ["New", "Haven", ",", "Conn.", "and", "Mad.", "Ave."]),
        ("Dr. Lee, e.g. today, i.e. now, etc.", ["Dr.", "Lee", ",", "e.g.", "today", ",", "i.e.", "now", ",", "etc."]),
        # a capitalised-only abbreviation is a word when lower-case
        ("I was mad. So", ["I", "was", "mad", ".", "So"]),
        ("Calif. Inc. Corp.", ["Calif.", "Inc.", "Corp."]),
    ],
)
def test_abbreviations(text, tokens):
    assert _words(text) == tokens


def test_initials():
    assert _words("J. R. R. Tolkien and J.R.R. Martin") == ["J.", "R.", "R.", "Tolkien", "and", "J.R.R.", "Martin"]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("$1,000.50 at 3:30 for 10-15 people", ["$", "1,000.50", "at", "3:30", "for", "10-15", "people"]),
        ("1.000,50 € and 1/2 and 2024-05-01", ["1.000,50", "€", "and", "1/2", "and", "2024-05-01"]),
        ("up 3.5%.", ["up", "3.5", "%", "."]),
    ],
)
def test_numbers_with_separators(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Loved it😀👍🏽!", ["Loved", "it", "😀", "👍🏽", "!"]),
        ("family 👨‍👩‍👧 time", ["family", "👨‍👩‍👧", "time"]),
        ("so good 😂😂", ["so", "good", "😂😂"]),
    ],
)
def test_emoji(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("#foodie @alice_b: great!", ["#foodie", "@alice_b", ":", "great", "!"]),
        ("(@bob) #NYC2024.", ["(", "@bob", ")", "#NYC2024", "."]),
        ("#1 costs £5, PTB's #5", ["#", "1", "costs", "£", "5", ",", "PTB", "'s", "#", "5"]),
        ("# not a tag", ["#", "not", "a", "tag"]),
    ],
)
def test_hashtags_and_mentions(text, tokens):
    assert _words(text) == tokens


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "We ate in New Haven, Conn. and loved it. The pizza was great.",
            ["We ate in New Haven, Conn. and loved it.", "The pizza was great."],
        ),
        # an abbreviation ends a sentence only before a word that usually starts one
        ("We ate in Hartford, Conn. The pizza was great.", ["We ate in Hartford, Conn.", "The pizza was great."]),
        ("Walk down Mad. Ave. It is busy.", ["Walk down Mad. Ave.", "It is busy."]),
        ("Ask Dr. Lee. She knows.", ["Ask Dr. Lee.", "She knows."]),
        ("Ask Dr. Who knows.", ["Ask Dr. Who knows."]),  # a title never ends one
        ("Read J. R. R. Tolkien. Then sleep.", ["Read J. R. R. Tolkien.", "Then sleep."]),
        ("Fruit, e.g. Apples. Pears too.", ["Fruit, e.g. Apples.", "Pears too."]),
        (
            "See https://example.com. It works. Mail a@b.org. Done.",
            ["See https://example.com.", "It works.", "Mail a@b.org.", "Done."],
        ),
        ("It cost $1,000.50. At 3:30 we left.", ["It cost $1,000.50.", "At 3:30 we left."]),
        ("Best night ever!!! 😀 #fun @ana. Back soon.", ["Best night ever!!! 😀 #fun @ana.", "Back soon."]),
        # web text starts sentences lower-case after ! and ?, but a quotation goes on
        ("They were fantastic! they fixed it. ok? yes.", ["They were fantastic!", "they fixed it. ok?", "yes."]),
        ('"Stop!" he said. "Why?" she asked.', ['"Stop!" he said.', '"Why?" she asked.']),
    ],
)
def test_sentences_of_real_text(text, sentences):
    assert _sentences(text) == sentences
