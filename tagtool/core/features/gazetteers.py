"""Dictionaries (gazetteers) as token features: the ``gaz`` feature set.

A :class:`Gazetteers` holds, for each entity type, the entries of a
dictionary the user brought (one entry a line, multiword entries as token
tuples; :mod:`tagtool.services.dictionaries` reads the files) and finds them
in sentences:

``"gaz"``
    Every token inside a match of an entry of type ``TYPE`` gets
    ``g=TYPE:B`` (the match's first token) or ``g=TYPE:I`` (the others),
    copied to the neighbours of the extractor's window (``-1:g=PER:B``) as
    every other set's features are.  Dictionary-membership features with the
    position in the matched entry are the classic gazetteer features of
    sequence taggers (Ratinov & Roth 2009, §5; Kazama & Torisawa 2007).

Matching (documented in docs/labeling.md, "Dictionaries and patterns"):

* Case rule: an entry with an upper-case letter matches exactly (``May``
  never matches ``may``); an entry written all in lower case matches
  whatever the case (``aspirin`` matches ``Aspirin`` and ``ASPIRIN``).  At a
  sentence start the first token is also tried with its first letter
  lower-cased, as :mod:`tagtool.services.string_matches` does.
* Within one type, overlapping matches are resolved longest first, then
  leftmost; matches of different types may overlap (each gives its own
  features).

The features are sentence-level (a token's features depend on its
neighbours), so the set gives them through
:attr:`~tagtool.core.features.templates.FeatureSet.sentence_features`
instead of word by word.  The tagger file keeps the entries as plain JSON
(``gazetteers.json``, :meth:`Gazetteers.to_json`); the extractor names them
by :attr:`Gazetteers.fingerprint`.

References
----------
.. [1] L. Ratinov, D. Roth. Design challenges and misconceptions in named
   entity recognition. CoNLL 2009, §5 (gazetteers as features).
.. [2] J. Kazama, K. Torisawa. Exploiting Wikipedia as external knowledge
   for named entity recognition. EMNLP-CoNLL 2007 (B/I dictionary features).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from tagtool.core.features.templates import BOS, EOS, GROUP_SURFACE, GROUP_TOKEN, FeatureError, FeatureSet, Template

#: Names of the feature sets that read dictionaries.
GAZ_SETS = ("gaz",)

#: ``format`` of :meth:`Gazetteers.to_json`, and its version.
JSON_FORMAT = "tagtool-gazetteers"
JSON_VERSION = 1

Entry = tuple[str, ...]
Match = tuple[Any, int, int]  # (kind, start, end), end exclusive; a kind is a type name for the features


def decapitalised(token: str) -> str:
    """``token`` with its first letter lower-cased (the form tried at a sentence start)."""
    return token[:1].lower() + token[1:]


def folds_case(entry: Sequence[str]) -> bool:
    """True if ``entry`` is written all in lower case, so it matches whatever the case."""
    return all(token == token.lower() for token in entry)


class EntryTrie:
    """Entries (token tuples) of several kinds, each kept under an exact or a case-folded key.

    A node maps a token to the next node; its ``None`` entry holds the
    kinds whose entry ends there.  :meth:`occurrences` applies the case rule
    of the module docstring.
    """

    def __init__(self) -> None:
        self.exact: dict = {}
        self.folded: dict = {}

    def add(self, entry: Sequence[str], kind: Hashable) -> None:
        """Index ``entry`` under ``kind`` (an empty entry is ignored)."""
        if not entry:
            return
        folded = folds_case(entry)
        node = self.folded if folded else self.exact
        for token in entry:
            node = node.setdefault(token, {})
        node.setdefault(None, set()).add(kind)

    def __bool__(self) -> bool:
        return bool(self.exact or self.folded)

    def occurrences(self, tokens: Sequence[str]) -> set[Match]:
        """Every ``(kind, start, end)`` where an entry occurs in ``tokens``."""
        found: set[Match] = set()
        exact, folded = self.exact, self.folded
        if tokens and exact:
            first = decapitalised(tokens[0])
            if first != tokens[0] and first in exact:
                _walk(exact[first], tokens, 0, found)
            for start, token in enumerate(tokens):
                if token in exact:
                    _walk(exact[token], tokens, start, found)
        if folded:
            lower = [t.lower() for t in tokens]
            for start, token in enumerate(lower):
                if token in folded:
                    _walk(folded[token], lower, start, found)
        return found


def _walk(node: dict, tokens: Sequence[str], start: int, found: set[Match]) -> None:
    """Add every entry that ends on the path from ``node`` (the trie node of ``tokens[start]``) along ``tokens``."""
    n, end = len(tokens), start + 1
    while True:
        kinds = node.get(None)
        if kinds:
            found.update((kind, start, end) for kind in kinds)
        if end >= n:
            return
        node = node.get(tokens[end])  # type: ignore[assignment]
        if node is None:
            return
        end += 1


def longest_first(candidates: Iterable[Match]) -> list[Match]:
    """Non-overlapping matches, taken longest first, then leftmost (by start)."""
    taken: list[Match] = []
    used: set[int] = set()
    for kind, start, end in sorted(candidates, key=lambda c: (c[1] - c[2], c[1], c[0])):
        if used.isdisjoint(range(start, end)):
            taken.append((kind, start, end))
            used.update(range(start, end))
    return sorted(taken, key=lambda c: (c[1], c[0]))


class Gazetteers:
    """The entries of one dictionary per entity type, and the ``gaz`` features they give.

    Parameters
    ----------
    entries : mapping of str to iterable of token sequences
        For each entity type, its entries (already tokenised).
    sources : mapping of str to str, optional
        For each type, where its entries came from (a file name), kept for
        the model panel and ``tagtool info``.
    """

    def __init__(self, entries: Mapping[str, Iterable[Sequence[str]]], sources: Mapping[str, str] | None = None):
        self.entries: dict[str, tuple[Entry, ...]] = {}
        for kind in sorted(entries):
            if not kind or any(c.isspace() for c in kind):
                raise FeatureError(f"a dictionary's entity type must be a word, got {kind!r}")
            self.entries[kind] = tuple(sorted({tuple(map(str, e)) for e in entries[kind] if len(e)}))
        self.sources = {kind: str((sources or {}).get(kind, "")) for kind in self.entries}
        self.trie = EntryTrie()
        for kind, kind_entries in self.entries.items():
            for entry in kind_entries:
                self.trie.add(entry, kind)
        self._fingerprint: str | None = None

    def __repr__(self) -> str:
        sizes = ", ".join(f"{kind}: {len(e)}" for kind, e in self.entries.items())
        return f"Gazetteers({sizes}; {self.fingerprint})"

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.entries)

    def matches(self, tokens: Sequence[str]) -> list[Match]:
        """The ``(type, start, end)`` matches in ``tokens``: per type longest first, then leftmost."""
        if not self.trie or not tokens:
            return []
        by_kind: dict[Any, list[Match]] = {}
        for match in self.trie.occurrences(tokens):
            by_kind.setdefault(match[0], []).append(match)
        return sorted((m for found in by_kind.values() for m in longest_first(found)), key=lambda m: (m[1], m[0]))

    def sentence_features(self, tokens: Sequence[str]) -> list[tuple[str, ...]]:
        """The ``gaz`` base features of every token of one sentence (``g=TYPE:B``, ``g=TYPE:I``)."""
        features: list[list[str]] = [[] for _ in tokens]
        for kind, start, end in self.matches(tokens):
            features[start].append(f"g={kind}:B")
            for t in range(start + 1, end):
                features[t].append(f"g={kind}:I")
        return [tuple(sorted(f)) for f in features]

    def feature_set(self, name: str = "gaz") -> FeatureSet:
        """The ``gaz`` :class:`FeatureSet` of these dictionaries."""
        if name not in GAZ_SETS:
            raise FeatureError(f"{name!r} is not a dictionary feature set ({', '.join(GAZ_SETS)})")
        templates = (Template("g", GROUP_TOKEN), Template(BOS, GROUP_SURFACE), Template(EOS, GROUP_SURFACE))
        return FeatureSet(
            name=name,
            templates=MappingProxyType({t.tag: t for t in templates}),
            word_features=_no_features,
            column_features=lambda column, value: [],
            column_policy="none",
            sentence_features=self.sentence_features,
        )

    # -- storage ---------------------------------------------------------------

    def to_json(self) -> dict:
        """Plain JSON: ``{"format", "version", "types": {TYPE: {"source", "entries": [[token, ...], ...]}}}``."""
        types = {
            kind: {"source": self.sources[kind], "entries": [list(e) for e in es]} for kind, es in self.entries.items()
        }
        return {"format": JSON_FORMAT, "version": JSON_VERSION, "types": types}

    @classmethod
    def from_json(cls, data: object) -> Gazetteers:
        """Inverse of :meth:`to_json`; :class:`FeatureError` saying what is wrong otherwise."""
        if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
            raise FeatureError(f"not a dictionary file of tagtool (format {JSON_FORMAT!r})")
        if data.get("version") != JSON_VERSION:
            raise FeatureError(f"dictionary format version {data.get('version')!r} is not supported ({JSON_VERSION})")
        types = data.get("types")
        if not isinstance(types, dict):
            raise FeatureError("the dictionaries have no 'types'")
        entries, sources = {}, {}
        for kind, value in types.items():
            listed = value.get("entries") if isinstance(value, dict) else None
            if not isinstance(listed, list) or not all(
                isinstance(e, list) and e and all(isinstance(t, str) and t for t in e) for e in listed
            ):
                raise FeatureError(f"the dictionary {kind!r} is not a list of entries (lists of tokens)")
            entries[kind] = listed
            sources[kind] = str(value.get("source", ""))
        return cls(entries, sources)

    @property
    def fingerprint(self) -> str:
        """SHA-256 (first 16 hex digits) of the entries: names the dictionaries a tagger was fitted with."""
        if self._fingerprint is None:
            text = json.dumps(self.entries, ensure_ascii=False, sort_keys=True)
            self._fingerprint = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return self._fingerprint


def _no_features(word: str) -> list[str]:
    return []


def gazetteer_feature_set(name: str, gazetteers: Gazetteers | None) -> FeatureSet:
    """The ``gaz`` set of ``gazetteers``; a :class:`FeatureError` saying what is missing without them."""
    if gazetteers is None:
        raise FeatureError(
            f"the {name!r} feature set needs dictionaries (train --gazetteer TYPE=FILE, or a project's "
            "stored dictionaries)"
        )
    return gazetteers.feature_set(name)
