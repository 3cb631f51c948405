"""Hostile inputs for the importers: valid seed files, mutations, random data.

Shared by the fuzz tests (``tests/fuzz/``, a moderate number of examples)
and by ``benchmarks/reliability.py`` (thousands per reader), so both try
the same kinds of input. Everything here is a hypothesis strategy; nothing
runs a reader.

Inputs come in three kinds, mixed by :func:`corpus_file`:

* a **mutated seed**: a valid file of the format with one to four
  mutations (bit flips, truncation, lines inserted, deleted, duplicated or
  swapped, a field added or dropped, CRLF or CR line ends, byte-order
  marks, NUL bytes, invalid UTF-8, odd or huge unicode, random bytes);
* **token soup**: lines built from the syntax of every format (``#``
  comments, ``-DOCSTART-``, CoNLL-U ids, ``A|B`` cells, JSON brackets,
  quotes, separators), which gets further into the readers than noise;
* **random bytes** and **random text**.

JSON files also get structured mutations (:func:`json_records`): a value
somewhere in a record replaced by a value of another type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[1] / "data"


def _head(path: Path, n_sentences: int) -> bytes:
    """The first ``n_sentences`` blank-line-separated blocks of a column file."""
    blocks = path.read_bytes().split(b"\n\n")[:n_sentences]
    return b"\n\n".join(blocks) + b"\n\n"


# ---------------------------------------------------------------------------
# valid seed files, one list per format

CONLL_SEEDS = [
    _head(DATA / "conll2000_train_head.txt", 3),
    _head(DATA / "conll2002_esp_train_head.txt", 3),
    _head(DATA / "ptb_wsj_sample_head.txt", 2),
    b"-DOCSTART- -X- O\n\nEU NNP B-ORG\nrejects VBZ O\nGerman JJ B-MISC|O\ncall NN _\n\n"
    b"-DOCSTART- -X- O\n\nPeter NNP B-PER\nBlackburn NNP I-PER\n\n",
    b"Only\ntokens\nhere\n\nand\nthere\n\n",
]

CONLL_TAB_SEEDS = [
    b"EU\tNNP\tB-ORG\nrejects\t\tO\nGerman\tJJ\tB-MISC|O\n\ncall\tNN\t_\n",
]

CONLLU_SEEDS = [
    b"# newdoc id = doc1\n# sent_id = 1\n# text = The cats sleep.\n"
    b"1\tThe\tthe\tDET\tDT\tDefinite=Def\t2\tdet\t_\t_\n"
    b"2\tcats\tcat\tNOUN\tNNS\tNumber=Plur\t3\tnsubj\t_\tNER=O\n"
    b"3\tsleep\tsleep\tVERB\tVBP\t_\t0\troot\t_\tSpaceAfter=No\n"
    b"4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n\n"
    b"# sent_id = 2\n# a comment without equals\n"
    b"1-2\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
    b"1\tde\tde\tADP\t_\t_\t2\tcase\t_\tNER=B-LOC\n"
    b"2\tel\tel\tDET|PRON\t_\t_\t0\troot\t_\tNER=I-LOC\n"
    b"2.1\tvisto\tver\tVERB\t_\t_\t_\t_\t0:root\t_\n\n",
]

TEXT_SEEDS = [
    "EU rejects German call to boycott British lamb .\nPeter Blackburn\n\n"
    'Don\'t stop state-of-the-art "quotes", naïve 東京 😀.\n'.encode(),
]

TAGGED_TEXT_SEEDS = [
    b"EU/B-ORG rejects/O German/B-MISC|O call/_\nhttp://x/y/O 1/2/CD\n",
]

_TOKEN_RECORDS = [
    {
        "tokens": ["EU", "rejects", "German"],
        "labels": ["B-ORG", ["O", "B-MISC"], None],
        "pos": ["NNP", "VBZ", "JJ"],
        "document": "d1",
        "id": 7,
    },
    {"tokens": ["Peter", "Blackburn"], "labels": ["B-PER", "I-PER|O"], "source": {"a": [1, 2]}},
    {"tokens": ["unlabeled", "tokens"]},
]
_SPAN_RECORDS = [
    {"text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]},
    {"text": "Peter Blackburn spoke", "entities": [{"start_offset": 0, "end_offset": 15, "label": "PER"}]},
    {
        "data": {"text": "Paris is nice"},
        "annotations": [
            {
                "result": [
                    {"value": {"start": 0, "end": 5, "labels": ["LOC"]}, "type": "labels"},
                    {"type": "relation", "from_id": "a"},
                ]
            }
        ],
    },
]
#: Records the JSON seeds are made of (structured mutations start from them).
JSON_RECORDS = _TOKEN_RECORDS + _SPAN_RECORDS


def _jsonl(records: list) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


JSONL_SEEDS = [_jsonl(_TOKEN_RECORDS), _jsonl(_SPAN_RECORDS), b"\n" + _jsonl(_TOKEN_RECORDS[:1]) + b"\n\n"]
JSON_SEEDS = [
    json.dumps(JSON_RECORDS, indent=2, ensure_ascii=False).encode(),
    b"".join(json.dumps(r, indent=1).encode() + b"\n" for r in _SPAN_RECORDS),
    b"[]",
]

CSV_SEEDS = [
    b'document,sentence,token,label,pos\nd1,1,EU,B-ORG,NNP\nd1,1,rejects,O,VBZ\nd1,1,"a,b",_,NN\n'
    b'd1,2,German,B-MISC|O,JJ\n\nd2,1,"say ""hi""",,NN\n',
    b"sentence,token\ns1,NA\ns1,null\ns2,1e5\n",
]
TSV_SEEDS = [
    b'sentence\ttoken\tlabel\tlemma\n1\tEU\tB-ORG\teu\n1\trejects\tO\treject\n2\t"quoted"\tB-MISC|O\t_\n',
]


# ---------------------------------------------------------------------------
# reader cases


@dataclass(frozen=True)
class ReaderCase:
    """One way of reading a file: format, options, file suffix, seed files.

    ``format=None`` leaves the format to :func:`detect_format`.
    """

    name: str
    format: str | None
    suffix: str
    seeds: tuple[bytes, ...]
    options: dict = field(default_factory=dict)

    def kwargs(self) -> dict:
        return {"format": self.format, **self.options}


_ALL_SEEDS = tuple(
    CONLL_SEEDS
    + CONLL_TAB_SEEDS
    + CONLLU_SEEDS
    + TEXT_SEEDS
    + TAGGED_TEXT_SEEDS
    + JSONL_SEEDS
    + JSON_SEEDS
    + CSV_SEEDS
    + TSV_SEEDS
)

READER_CASES: dict[str, ReaderCase] = {
    case.name: case
    for case in (
        ReaderCase("conll", "conll", ".txt", tuple(CONLL_SEEDS)),
        ReaderCase("conll-tab", "conll", ".txt", tuple(CONLL_TAB_SEEDS + CONLL_SEEDS[:1]), {"sep": "\t"}),
        ReaderCase("conllu", "conllu", ".conllu", tuple(CONLLU_SEEDS)),
        ReaderCase("conllu-misc", "conllu", ".conllu", tuple(CONLLU_SEEDS), {"label_field": "misc:NER"}),
        ReaderCase("text", "text", ".txt", tuple(TEXT_SEEDS)),
        ReaderCase(
            "text-pretokenized", "text", ".txt", tuple(TEXT_SEEDS), {"tokenizer": "whitespace", "sentence_split": False}
        ),
        ReaderCase("text-paragraphs", "text", ".txt", tuple(TEXT_SEEDS), {"document_unit": "paragraph"}),
        ReaderCase("text-tagged", "text", ".txt", tuple(TAGGED_TEXT_SEEDS), {"tagged": True}),
        ReaderCase("jsonl", "jsonl", ".jsonl", tuple(JSONL_SEEDS)),
        ReaderCase("json", "jsonl", ".json", tuple(JSON_SEEDS)),
        ReaderCase("csv", "csv", ".csv", tuple(CSV_SEEDS)),
        ReaderCase("tsv", "tsv", ".tsv", tuple(TSV_SEEDS)),
        ReaderCase("detected", None, ".txt", _ALL_SEEDS),
    )
}


# ---------------------------------------------------------------------------
# byte and line mutations

#: Bytes that break decoders: lone continuation and lead bytes, an encoded
#: surrogate, a code point past U+10FFFF, an overlong slash.
INVALID_UTF8 = [b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xfe\xff"]
BOMS = [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]
ODD_TEXT = [
    "\u2028",
    "\u2029",
    "\u0085",
    "\u00a0",
    "\u200b",
    "\ufeff",
    "\U0010ffff",
    "e\u0301\u0301\u0301",
    "\u202e",
    "😀",
    "東京",
    "\x1c",
    "\x0b",
    "\x0c",
    "\r",
    "\t",
    "\ufffd",
    "ǅ",
    "ß",
    "\u0130",
]
#: Pieces of every format's syntax, for token soup and inserted lines.
SYNTAX = [
    "-DOCSTART-",
    "-X-",
    "#",
    "# newdoc",
    "# newdoc id = d",
    "# sent_id = 1",
    "# text = a b",
    "1",
    "2",
    "0",
    "1-2",
    "1.1",
    "10",
    "_",
    "|",
    "A|B",
    "B-PER",
    "I-PER",
    "O",
    "B-",
    "-",
    "NN",
    "{",
    "}",
    "[",
    "]",
    '[[0, 2, "X"]]',
    '"',
    "'",
    ",",
    ":",
    "null",
    "true",
    "1e999",
    "-1",
    "NaN",
    '{"tokens": ["a"]}',
    '{"text": "a b"}',
    "sentence",
    "token",
    "label",
    "document",
    "x/y",
    "/",
    "//",
    "a/B",
    "\\",
    "=",
    "NER=B-X",
    "SpaceAfter=No",
]
SEPARATORS = [" ", "\t", ",", "  ", "\t\t", " \t", "|", "\u00a0", "\u3000"]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


@st.composite
def _line_index(draw, lines: list[bytes]) -> int:
    return draw(st.integers(0, max(len(lines) - 1, 0)))


@st.composite
def odd_bytes(draw) -> bytes:
    """A short run of troublesome bytes: invalid UTF-8, a BOM, NUL, odd or huge unicode."""
    kind = draw(st.sampled_from(["invalid", "bom", "nul", "odd", "huge", "noise", "syntax"]))
    if kind == "invalid":
        return draw(st.sampled_from(INVALID_UTF8))
    if kind == "bom":
        return draw(st.sampled_from(BOMS))
    if kind == "nul":
        return b"\x00"
    if kind == "odd":
        return "".join(draw(st.lists(st.sampled_from(ODD_TEXT), min_size=1, max_size=3))).encode()
    if kind == "huge":
        return draw(st.sampled_from(["x", "é", "😀", "a b", "\t", "["])).encode() * draw(
            st.sampled_from([1000, 70_000])
        )
    if kind == "syntax":
        return draw(st.sampled_from(SYNTAX)).encode()
    return draw(st.binary(min_size=1, max_size=16))


def _splice(data: bytes, at: int, insert: bytes = b"", delete: int = 0) -> bytes:
    return data[:at] + insert + data[at + delete :]


@st.composite
def mutation(draw, data: bytes) -> bytes:
    """``data`` with one mutation (see the module docstring)."""
    lines = _lines(data)
    op = draw(
        st.sampled_from(
            [
                "flip",
                "truncate",
                "insert",
                "delete",
                "delete_line",
                "duplicate_line",
                "swap_lines",
                "insert_line",
                "add_field",
                "drop_field",
                "newlines",
                "bom",
                "replace_line",
            ]
        )
    )
    at = draw(st.integers(0, len(data)))
    if op == "flip":
        if not data:
            return b"\x01"
        i = min(at, len(data) - 1)
        return _splice(data, i, bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]), 1)
    if op == "truncate":
        return data[:at]
    if op == "insert":
        return _splice(data, at, draw(odd_bytes()))
    if op == "delete":
        return _splice(data, at, delete=draw(st.integers(1, 64)))
    i = draw(_line_index(lines))
    if op == "delete_line":
        del lines[i]
    elif op == "duplicate_line":
        lines.insert(i, lines[i])
    elif op == "swap_lines":
        j = draw(_line_index(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op in ("insert_line", "replace_line"):
        new = draw(soup_line()).encode() + b"\n"
        if op == "insert_line":
            lines.insert(i, new)
        else:
            lines[i] = new
    elif op == "add_field":
        sep = draw(st.sampled_from(SEPARATORS)).encode()
        body = lines[i].rstrip(b"\r\n")
        lines[i] = body + sep + draw(st.sampled_from(SYNTAX)).encode() + lines[i][len(body) :]
    elif op == "drop_field":
        sep = draw(st.sampled_from([b" ", b"\t", b","]))
        body = lines[i].rstrip(b"\r\n")
        lines[i] = body.rsplit(sep, 1)[0] + lines[i][len(body) :]
    elif op == "newlines":
        ending = draw(st.sampled_from([b"\r\n", b"\r", b"\n\n", b"\x85", "\u2028".encode()]))
        return data.replace(b"\n", ending)
    elif op == "bom":
        return draw(st.sampled_from(BOMS)) + data
    return b"".join(lines)


@st.composite
def mutated(draw, seeds: tuple[bytes, ...]) -> bytes:
    """A seed file with one to four mutations."""
    data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        data = draw(mutation(data))
    return data


# ---------------------------------------------------------------------------
# token soup, random data


@st.composite
def soup_line(draw) -> str:
    """A line of syntax pieces and odd text joined by one separator."""
    pieces = st.one_of(st.sampled_from(SYNTAX), st.sampled_from(ODD_TEXT), st.text(max_size=5))
    sep = draw(st.sampled_from(SEPARATORS))
    return sep.join(draw(st.lists(pieces, min_size=0, max_size=12)))


@st.composite
def token_soup(draw) -> bytes:
    """A file of soup lines, blank lines between some of them."""
    lines = draw(st.lists(st.one_of(soup_line(), st.just("")), min_size=1, max_size=30))
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return ending.join(lines).encode("utf-8", "surrogatepass")


def random_text() -> st.SearchStrategy[bytes]:
    """Any unicode text, UTF-8 encoded (surrogates as the invalid bytes they become)."""
    return st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------------------
# structured JSON mutations

JSON_ODD_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10**30,
    float("nan"),
    float("inf"),
    "",
    "x",
    "B-X",
    "a b",
    "\x00",
    "_",
    [],
    {},
    [None],
    [[]],
    [[0, 2]],
    [[0, 2, 3]],
    [[2, 0, "X"]],
    [[0, 99, "X"]],
    [[True, 2, "X"]],
    [{"start": 0}],
    [{"value": []}],
    [1, 2, 3],
    ["a", ["b"]],
    {"text": 5},
    {"result": {}},
    [{"result": [{"value": {"start": 0, "end": 1, "labels": ["A", "B"]}}]}],
    [[[[[[[[[[]]]]]]]]]],
]


def json_values() -> st.SearchStrategy:
    """A JSON value of any type, odd ones included (NaN, huge ints, deep lists)."""
    leaves = st.one_of(st.sampled_from(JSON_ODD_VALUES), st.text(max_size=8), st.integers(), st.floats())
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=8,
    )


def json_paths(value, prefix=()) -> list[tuple]:
    """Every path into a JSON value (dict keys and list indices)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += json_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += json_paths(child, (*prefix, i))
    return out


def _replace(value, path: tuple, new, delete: bool = False):
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    if delete and not rest:
        del copy[head]
    else:
        copy[head] = _replace(value[head], rest, new, delete)
    return copy


@st.composite
def json_tree_mutation(draw, value):
    """``value`` with a value somewhere replaced by another, or a key or item deleted."""
    path = draw(st.sampled_from(json_paths(value)))
    if path and draw(st.booleans()) and draw(st.booleans()):
        return _replace(value, path, None, delete=True)
    return _replace(value, path, draw(json_values()))


@st.composite
def json_records(draw) -> bytes:
    """Seed records with structured mutations, as JSON Lines or a JSON array."""
    records = draw(st.lists(st.sampled_from(JSON_RECORDS), min_size=1, max_size=4))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(records) - 1))
        records[i] = draw(json_tree_mutation(records[i]))
    if draw(st.booleans()):
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    return json.dumps(records, indent=draw(st.sampled_from([None, 1]))).encode()


# ---------------------------------------------------------------------------
# what a reader is fed


#: Encodings a file is read as (most examples use UTF-8, the default).
ENCODINGS = ["utf-8"] * 6 + ["latin-1", "cp1252", "utf-16", "utf-8-sig"]


def corpus_file(case: ReaderCase) -> st.SearchStrategy[bytes]:
    """Content of a file fed to ``case``: mostly mutated seeds, some soup and noise."""
    kinds = [mutated(case.seeds), mutated(case.seeds), token_soup(), st.binary(max_size=300), random_text()]
    if case.suffix in (".jsonl", ".json") or case.format is None:
        kinds.append(json_records())
    return st.one_of(*kinds)
