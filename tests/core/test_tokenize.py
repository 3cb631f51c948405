"""The rule-based tokenizer and sentence splitter for span records."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tagtool.core.tokenize import get_tokenizer, split_sentences, tokenize, whitespace_tokenize


def _words(text: str) -> list[str]:
    return [text[s:e] for s, e in tokenize(text)]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("EU rejects German call.", ["EU", "rejects", "German", "call", "."]),
        ("the U.S. and the U.K.", ["the", "U.S.", "and", "the", "U.K."]),
        (
            "It costs 3.5 or 1,000.50 at 12:30, 1/2 off",
            ["It", "costs", "3.5", "or", "1,000.50", "at", "12:30", ",", "1/2", "off"],
        ),
        ("don't can't it's we're I'd", ["do", "n't", "ca", "n't", "it", "'s", "we", "'re", "I", "'d"]),
        ("O'Brien's state-of-the-art lab", ["O'Brien", "'s", "state-of-the-art", "lab"]),
        ("Dr. Smith, Ph.D., e.g. here", ["Dr.", "Smith", ",", "Ph.D.", ",", "e.g.", "here"]),
        ("Wait... what?!", ["Wait", "...", "what", "?", "!"]),
        ('"Quoted" (and bracketed)', ['"', "Quoted", '"', "(", "and", "bracketed", ")"]),
        ("J. R. R. Tolkien", ["J.", "R.", "R.", "Tolkien"]),
        ("Größe 5km², naïve café", ["Größe", "5km²", ",", "naïve", "café"]),
        ("snake_case __init__", ["snake", "_", "case", "__", "init", "__"]),
    ],
)
def test_default_tokenizer_rules(text, tokens):
    assert _words(text) == tokens


@given(st.text(max_size=80))
def test_offsets_cover_every_non_space_character_in_order(text):
    for tokenizer in (tokenize, whitespace_tokenize):
        offsets = tokenizer(text)
        assert all(s < e for s, e in offsets)
        assert all(a[1] <= b[0] for a, b in zip(offsets, offsets[1:]))
        covered = "".join(text[s:e] for s, e in offsets)
        assert covered == "".join(text.split())


def test_tokenizer_by_name():
    assert get_tokenizer("whitespace")("a,b c") == [(0, 3), (4, 5)]
    with pytest.raises(ValueError, match="default, whitespace"):
        get_tokenizer("nltk")


def _sentences(text: str, tokenizer=tokenize, keep=()) -> list[str]:
    offsets = tokenizer(text)
    return [text[offsets[a][0] : offsets[b - 1][1]] for a, b in split_sentences(text, offsets, keep)]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One here. Two there! Three? 4 left.", ["One here.", "Two there!", "Three?", "4 left."]),
        # an abbreviation ends a sentence before a word that usually starts one; a title never does
        ("Mr. Smith met Dr. Jones in the U.S. They talked.", ["Mr. Smith met Dr. Jones in the U.S.", "They talked."]),
        ("Mr. Smith met Dr. Jones in the U.S. Senate.", ["Mr. Smith met Dr. Jones in the U.S. Senate."]),
        ("It ended. and went on.", ["It ended. and went on."]),  # no capital after the dot
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("Version 3.5 is out.Really", ["Version 3.5 is out.Really"]),  # no space
        ("Wait... What now?", ["Wait...", "What now?"]),
        ("J. Smith came.", ["J. Smith came."]),
        ("Llegó. ¿Quién era? «Nadie», dijo.", ["Llegó.", "¿Quién era?", "«Nadie», dijo."]),
    ],
)
def test_sentence_splitter(text, sentences):
    assert _sentences(text) == sentences


def test_sentence_splitter_with_whitespace_tokens_and_kept_breaks():
    text = "Anna left Oslo. Berg stayed. Then rain."
    assert _sentences(text, whitespace_tokenize) == ["Anna left Oslo.", "Berg stayed.", "Then rain."]
    assert _sentences(text, whitespace_tokenize, keep={3}) == ["Anna left Oslo. Berg stayed.", "Then rain."]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("met 👨🏻\u200d🚒 Anna", ["met", "👨🏻\u200d🚒", "Anna"]),  # skin tone and ZWJ sequence
        ("Hi 👍🏽!", ["Hi", "👍🏽", "!"]),
        ("Cafe\u0301. E\u0301l", ["Cafe\u0301", ".", "E\u0301l"]),  # decomposed accents
        ("हिन्दी भाषा।", ["हिन्दी", "भाषा", "।"]),  # vowel signs and virama
    ],
)
def test_marks_and_joiners_stay_in_their_token(text, tokens):
    assert _words(text) == tokens
