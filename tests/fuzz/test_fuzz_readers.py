"""Every importer on hostile files: a valid corpus or a FormatError naming the file, nothing else.

Each reader case (format and options, see :data:`READER_CASES`) gets
mutated seed files, token soup, random bytes and text, read as UTF-8 or
another encoding, with or without a label schema; ``read_corpus`` and
``iter_sentences`` must agree, and ``detect_format`` must name a format.
The regression tests below are inputs the fuzzers found.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus
from tests.fuzz.checks import try_detect, try_read, write_input
from tests.fuzz.ci import FUZZ, warnings_as_errors
from tests.fuzz.inputs import ENCODINGS, READER_CASES, corpus_file


@pytest.mark.parametrize("name", list(READER_CASES))
def test_reader_accepts_or_raises_format_error(name, folder):
    case = READER_CASES[name]

    @FUZZ
    @given(data=corpus_file(case), encoding=st.sampled_from(ENCODINGS), schema=st.booleans())
    def read(data, encoding, schema):
        path = write_input(folder, case, data)
        with warnings_as_errors():
            try_read(case, path, encoding, schema)
            try_detect(path)

    read()


@FUZZ
@given(data=st.binary(max_size=2000), suffix=st.sampled_from(["", ".txt", ".train", ".dat", ".CONLL", ".Json"]))
def test_detect_format_names_a_format_for_any_bytes(data, suffix, folder):
    path = folder / f"any{suffix}"
    path.write_bytes(data)
    try_detect(path)


# ---------------------------------------------------------------------------
# what the fuzzers found


@pytest.mark.parametrize(
    ("case", "data", "encoding", "message"),
    [
        # the UTF-16 codec raises a bare UnicodeError for a stream without a BOM
        ("text", b"EU rejects\n", "utf-16", r":1: cannot decode the file as utf-16 .*does not start with BOM"),
        ("csv", b"sentence,token\n1,a\n", "utf-16", r":1: cannot decode the file as utf-16"),
        ("conllu", b"1\tx\n", "utf-16", r"cannot decode the file as utf-16"),
        # an exact separator keeps empty cells: an empty token was accepted
        ("conll-tab", b"\tNNP\tB-ORG\nrejects\tVBZ\tO\n", "utf-8", r":1: empty token"),
        # pandas dropped the extra cells of a first row longer than the header, with a warning
        (
            "csv",
            b"sentence,token\ns1,NA2,1e5\ns1,x\n",
            "utf-8",
            r":2: malformed table: 3 fields where the header has 2",
        ),
        ("tsv", b"sentence\ttoken\n1\ta\tb\n", "utf-8", r":2: malformed table: 3 fields"),
    ],
    ids=["utf16-text", "utf16-csv", "utf16-conllu", "empty-token", "long-first-row", "long-first-row-tsv"],
)
def test_inputs_the_fuzzers_found_raise_a_format_error(folder, case, data, encoding, message):
    case = READER_CASES[case]
    path = write_input(folder, case, data)
    with warnings_as_errors(), pytest.raises(FormatError, match=message) as info:
        read_corpus(path, **case.kwargs(), encoding=encoding)
    assert info.value.path == str(path)
