"""Dictionaries (gazetteers) and patterns a user brings: reading, project storage, suggestions.

A *dictionary* is a UTF-8 text file of one entity type, one entry a line
(docs/labeling.md, "Dictionaries and patterns"):

* an entry may span several words; it is tokenised with the tokenizer of
  raw text (:mod:`tagtool.core.tokenize`, ``"default"`` unless named), so
  ``New York-based`` is the tokens a sentence would have;
* lines starting with ``#`` (after spaces) and blank lines are skipped;
  leading and trailing spaces are dropped;
* case rule (:mod:`tagtool.core.features.gazetteers`): an entry with an
  upper-case letter matches exactly, an entry all in lower case matches
  whatever the case, and a sentence's first token is also tried with its
  first letter lower-cased.

Dictionaries give the ``gaz`` features to every learner
(:class:`~tagtool.core.features.gazetteers.Gazetteers`) and, with patterns
(:mod:`tagtool.services.patterns`), suggestions before any model exists
(:func:`knowledge_matches`).  A project keeps them in its resources table
(:mod:`tagtool.store.resources`): kind ``gazetteer`` named by the entity
type, kind ``patterns`` named by the file's name, the text as read.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tagtool.core.corpus import Sentence
from tagtool.core.features.gazetteers import EntryTrie, Gazetteers, longest_first
from tagtool.services.patterns import (
    KnowledgeFileError,
    Pattern,
    Patterns,
    TokenPatternIndex,
    decode_text,
    parse_patterns,
    read_file_text,
    read_patterns,
    tokenise_phrase,
)
from tagtool.services.string_matches import OUTSIDE, StringMatch, span_labels

__all__ = [
    "Dictionary",
    "KnowledgeFileError",
    "Patterns",
    "check_entity_type",
    "gazetteers_of",
    "knowledge_matches",
    "parse_dictionary",
    "project_dictionaries",
    "project_gazetteers",
    "project_patterns",
    "read_dictionary",
    "read_patterns",
    "remove_dictionary",
    "remove_patterns",
    "resource_of",
    "store_dictionary",
    "store_patterns",
]

logger = logging.getLogger(__name__)

GAZETTEER_KIND = "gazetteer"
PATTERNS_KIND = "patterns"


@dataclass(frozen=True)
class Dictionary:
    """The entries of one entity type, read from a file.

    Attributes
    ----------
    entity_type : str
    entries : tuple of tuple of str
        The entries' tokens, in file order (repeats dropped).
    source : str
        The file's name (what notes and the model panel show).
    text : str
        The file's text, as the project stores it.
    tokenizer : str
        The tokenizer the entries were split with.
    """

    entity_type: str
    entries: tuple[tuple[str, ...], ...]
    source: str
    text: str = ""
    tokenizer: str = "default"

    def __len__(self) -> int:
        return len(self.entries)


def check_entity_type(entity_type: str) -> str:
    """``entity_type`` if it names one (a word other than ``O``), else :class:`KnowledgeFileError`."""
    prefixed = entity_type[1:2] == "-" and entity_type[:1] in "BIESLU"
    if not entity_type or entity_type == OUTSIDE or any(c.isspace() for c in entity_type) or prefixed:
        raise KnowledgeFileError(f"{entity_type!r} is not an entity type (a word such as PER, without B-/I-)")
    return entity_type


def parse_dictionary(text: str, entity_type: str, source: str, tokenizer: str = "default") -> Dictionary:
    """The :class:`Dictionary` of a file's ``text`` (module docstring); ``source`` names it in errors."""
    check_entity_type(entity_type)
    entries: dict[tuple[str, ...], None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "\x00" in line:
            raise KnowledgeFileError(f"{source}:{number}: a NUL character (is this a text file?)")
        tokens = tokenise_phrase(line, tokenizer)
        if tokens:
            entries.setdefault(tokens, None)
    return Dictionary(entity_type, tuple(entries), Path(source).name, text, tokenizer)


def read_dictionary(path: str | Path, entity_type: str, *, tokenizer: str = "default") -> Dictionary:
    """Read a dictionary file of ``entity_type`` (module docstring).

    Raises
    ------
    KnowledgeFileError
        The file cannot be read, or is not UTF-8 text (the message names
        the file and line); or ``entity_type`` is not one.
    """
    path = Path(path)
    dictionary = parse_dictionary(read_file_text(path), entity_type, str(path), tokenizer)
    if not dictionary.entries:
        raise KnowledgeFileError(f"{path}: no entry in the file (one entry a line; # starts a comment)")
    return dictionary


def gazetteers_of(dictionaries: Iterable[Dictionary]) -> Gazetteers | None:
    """The ``gaz`` features' :class:`Gazetteers` of ``dictionaries`` (two of one type are merged); None if none."""
    entries: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    sources: dict[str, list[str]] = defaultdict(list)
    for d in dictionaries:
        entries[d.entity_type] += d.entries
        sources[d.entity_type].append(d.source)
    if not entries:
        return None
    return Gazetteers(entries, {kind: ", ".join(names) for kind, names in sources.items()})


# -- the project's dictionaries and patterns (tagtool.store.resources) ---------


def resource_of(item: Dictionary | Patterns) -> tuple[str, str, bytes, dict]:
    """``(kind, name, data, info)`` of a dictionary or patterns file as the project stores it.

    What :func:`store_dictionary` / :func:`store_patterns` keep; a worker
    thread passes it to :func:`tagtool.store.resources.put_in_file`.
    """
    if isinstance(item, Dictionary):
        info: dict = {"source": item.source, "entries": len(item), "tokenizer": item.tokenizer}
        return GAZETTEER_KIND, item.entity_type, item.text.encode("utf-8"), info
    info = {"source": item.name, "patterns": len(item), "labels": list(item.labels)}
    return PATTERNS_KIND, item.name, item.text.encode("utf-8"), info


def store_dictionary(stored, dictionary: Dictionary) -> None:
    """Keep ``dictionary`` in the project (``project.stored``), replacing one of the same entity type."""
    stored.add_resource(*resource_of(dictionary))


def project_dictionaries(stored) -> list[Dictionary]:
    """The project's dictionaries, by entity type."""
    out = []
    for record in stored.resources(GAZETTEER_KIND):
        data = stored.resource_data(GAZETTEER_KIND, record.name) or b""
        source = str(record.info.get("source") or record.name)
        text = decode_text(data, f"the stored dictionary {record.name} ({source})")
        out.append(parse_dictionary(text, record.name, source, str(record.info.get("tokenizer") or "default")))
    return out


def project_gazetteers(stored) -> Gazetteers | None:
    """The :class:`Gazetteers` of the project's dictionaries; None if it has none."""
    return gazetteers_of(project_dictionaries(stored))


def remove_dictionary(stored, entity_type: str) -> bool:
    """Remove the project's dictionary of ``entity_type``; False if it had none."""
    return bool(stored.remove_resource(GAZETTEER_KIND, entity_type))


def store_patterns(stored, patterns: Patterns) -> None:
    """Keep ``patterns`` in the project under their file's name, replacing a file of the same name."""
    stored.add_resource(*resource_of(patterns))


def project_patterns(stored) -> list[Patterns]:
    """The project's patterns files, by name."""
    out = []
    for record in stored.resources(PATTERNS_KIND):
        data = stored.resource_data(PATTERNS_KIND, record.name) or b""
        out.append(parse_patterns(decode_text(data, record.name), record.name))
    return out


def remove_patterns(stored, name: str) -> bool:
    """Remove the project's patterns file called ``name``; False if it had none."""
    return bool(stored.remove_resource(PATTERNS_KIND, name))


# -- suggestions before any model exists -----------------------------------------


def type_in_labels(kind: str, names: Sequence[str]) -> bool:
    """True if the label set ``names`` has labels for spans of ``kind`` (``B-kind`` …, or ``kind`` itself)."""
    return any(name == kind or (name[1:2] == "-" and name[2:] == kind and name[0] in "BIESLU") for name in names)


def _labels_of(kind: str, length: int, names: Sequence[str]) -> list[str]:
    if kind in names and not any(n[1:2] == "-" and n[2:] == kind for n in names):
        return [kind] * length  # a label set without prefixes: every token of the match
    return span_labels(kind, length, names)


@dataclass(frozen=True)
class _Source:
    kind: str
    note: str


def _sources(dictionaries, patterns, names) -> tuple[EntryTrie, TokenPatternIndex]:
    """The trie of dictionary entries and phrase patterns, and the token patterns, of types in ``names``."""
    trie = EntryTrie()
    token_patterns: list[tuple[Pattern, _Source]] = []
    skipped: dict[str, str] = {}
    for d in dictionaries:
        if not type_in_labels(d.entity_type, names):
            skipped.setdefault(d.entity_type, f"the dictionary {d.source}")
            continue
        source = _Source(d.entity_type, f"in the dictionary {d.entity_type} ({d.source})")
        for entry in d.entries:
            trie.add(entry, source)
    for file in patterns:
        for p in file.patterns:
            if not type_in_labels(p.label, names):
                skipped.setdefault(p.label, f"{file.name} line {p.line}")
                continue
            source = _Source(p.label, f"pattern {p.label} ({file.name} line {p.line})")
            if p.phrase:
                trie.add(p.phrase, source)
            else:
                token_patterns.append((p, source))
    for kind, where in skipped.items():
        logger.warning("no label of the type %s in the label set: %s gives no suggestion", kind, where)
    return trie, TokenPatternIndex(token_patterns)


def _candidates(tokens: Sequence[str], trie: EntryTrie, token_patterns: TokenPatternIndex) -> dict:
    """Sources by ``(start, end)`` of every match in ``tokens``."""
    found: dict[tuple[int, int], list] = defaultdict(list)
    for source, start, end in trie.occurrences(tokens) if trie else ():
        found[(start, end)].append(source)
    for start, end, source in token_patterns.matches(tokens) if token_patterns else ():
        found[(start, end)].append(source)
    return found


def _template(sources: tuple, length: int, names: Sequence[str]) -> StringMatch:
    """A match of ``length`` tokens from ``sources`` (distinct), placed at sentence 0, token 0."""
    counts: dict[str, int] = defaultdict(int)
    for s in sources:
        counts[s.kind] += 1
    evidence = tuple(sorted(counts.items(), key=lambda c: (-c[1], c[0])))
    per_kind = [_labels_of(kind, length, names) for kind, _ in evidence]
    allowed = tuple(frozenset(labels[t] for labels in per_kind) for t in range(length))
    return StringMatch(0, 0, length, allowed, evidence, source="; ".join(s.note for s in sources))


def knowledge_matches(
    sentences: Sequence[Sentence],
    dictionaries: Iterable[Dictionary],
    patterns: Iterable[Patterns],
    label_names: Sequence[str],
) -> list[StringMatch]:
    """Suggestions from dictionaries and patterns, before any model exists.

    Every match of a dictionary entry or a pattern on tokens nobody labeled
    (no token of it has a label or a candidate set), written in the label
    scheme of ``label_names`` (:func:`~tagtool.services.string_matches.span_labels`).
    Overlapping matches in one sentence are resolved longest first, then
    leftmost, as :func:`~tagtool.services.string_matches.string_matches`
    does; where several sources match the same tokens with different types,
    each token gets the candidate set of their labels.  Types with no label
    in ``label_names`` give nothing (a warning in the log says so).

    Returns
    -------
    list of StringMatch
        By sentence, then start.  ``evidence`` counts the sources (a
        dictionary, a pattern line) naming each type; ``note`` names them
        ("in the dictionary PER (people.txt)", "pattern ORG (patterns.jsonl line 3)").
    """
    names = list(label_names)
    trie, token_patterns = _sources(list(dictionaries), list(patterns), names)
    if not trie and not token_patterns:
        return []
    matches = []
    made: dict[tuple, StringMatch] = {}  # one suggestion per sources and length, placed at each match
    for i, sentence in enumerate(sentences):
        found = _candidates(sentence.tokens, trie, token_patterns)
        if any(sentence.annotations):
            found = {r: s for r, s in found.items() if not any(sentence.annotations[r[0] : r[1]])}
        for _, start, end in longest_first(("", start, end) for start, end in found):
            key = (tuple(dict.fromkeys(found[(start, end)])), end - start)
            if key not in made:
                made[key] = _template(*key, names)
            t = made[key]
            matches.append(StringMatch(i, start, end, t.allowed, t.evidence, t.source))
    return matches
