"""String-match suggestions kept up to date edit by edit, for the app.

INCEpTION's string-matching recommender (Klie et al. 2018, "The INCEpTION
platform", COLING demos) suggests a labeled string wherever it recurs, and
updates with every annotation; this is its index for tagtool's app.

:func:`tagtool.services.string_matches.string_matches` scans the whole
project, too slow to repeat after every edit of a big one
(benchmarks/results/string_match_index.md); the app needs the suggestions of the
open sentence after every edit.  :class:`MatchIndex` holds the same evidence
and updates it per edited sentence:

* ``evidence[key][type]``: the sentences that labeled the string ``key`` as
  a span of ``type`` (:func:`~tagtool.services.string_matches.labeled_spans`,
  the same case rule and sentence-start forms);
* ``outside[key]``: the sentences where an occurrence of ``key`` has all its
  tokens labeled ``O`` (counter-evidence);
* ``postings[token]``: the sentences holding a token (a sentence's first
  token also under its lowercased-initial form), so a string labeled for the
  first time finds its occurrences in the sentences that hold its first token
  only.

An edit of one sentence costs time linear in its length, plus, for a string
labeled for the first time, a scan of the sentences holding its first token.
:meth:`MatchIndex.matches` gives one sentence's suggestions exactly as
:func:`~tagtool.services.string_matches.string_matches` gives them for it
(longest first, never on a labeled token; a candidate set where the evidence
conflicts), and :meth:`MatchIndex.occurrences` every open recurrence of a
string, for "Label all occurrences".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from seqeval.metrics.sequence_labeling import get_entities

from tagtool import pacing
from tagtool.core.corpus import Sentence
from tagtool.services.string_matches import (
    OUTSIDE,
    Key,
    StringMatch,
    _decapitalised,
    _forms,
    _longest_first,
    _suggestion,
    agrees,
    labeled_spans,
    span_tags,
)


def person_spans(sentence: Sentence, fixed_ends: bool = False) -> list[tuple[str, int, int]]:
    """The person's spans: :func:`labeled_spans`, or with ``fixed_ends`` False every span all of whose tokens
    carry a full label, whatever the tokens around it carry."""
    if fixed_ends:
        return labeled_spans(sentence)
    labels = [next(iter(a)) if len(a) == 1 else None for a in sentence.annotations]
    if not any(label not in (None, OUTSIDE) for label in labels):
        return []
    spans = get_entities(span_tags(labels))
    return [(kind, first, last + 1) for kind, first, last in spans if None not in labels[first : last + 1]]


def _spans(tokens: Sequence[str], annotations: Sequence[frozenset], fixed_ends: bool) -> set[tuple[Key, str]]:
    """The ``(key, type)`` pairs a sentence's full labels give as evidence."""
    sentence = Sentence(tuple(tokens), tuple(annotations))
    found = set()
    for kind, start, end in person_spans(sentence, fixed_ends):
        rest = tuple(tokens[start + 1 : end])
        for first in _forms(tokens, start):
            found.add(((first, *rest), kind))
    return found


def _starts(tokens: Sequence[str], key: Key) -> list[int]:
    """Every start where ``key`` occurs in ``tokens`` (a sentence's first token in either form)."""
    n, k = len(tokens), len(key)
    out = []
    for start in range(n - k + 1):
        if tuple(tokens[start + 1 : start + k]) == key[1:] and key[0] in _forms(tokens, start):
            out.append(start)
    return out


class MatchIndex:
    """The project's string-match evidence, updated per edited sentence (module doc).

    Parameters
    ----------
    sentences : iterable of Sentence
        The project's sentences in document order; positions in it name them.
    names : sequence of str, optional
        The label set's names (suggestions are written in its scheme).
    min_support : int
        Sentences that must have labeled a string before it is suggested.
    fixed_ends : bool
        Count a span only where the labels around it fix its ends, as
        :func:`~tagtool.services.string_matches.string_matches` does.  The app
        counts every span whose tokens carry full labels (False): a person who
        labels a selection as a span means that span, and should the next token
        later continue it, the edit replaces the string.
    """

    def __init__(
        self,
        sentences: Iterable[Sentence],
        names: Sequence[str] | None = None,
        *,
        min_support: int = 1,
        fixed_ends: bool = False,
    ):
        self.names, self.min_support, self.fixed_ends = names, min_support, fixed_ends
        self.tokens: list[tuple[str, ...]] = []
        self.annotations: list[tuple[frozenset, ...]] = []
        self.spans: list[set[tuple[Key, str]]] = []
        self.outside_keys: list[set[Key]] = []
        self.evidence: dict[Key, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        self.outside: dict[Key, set[int]] = defaultdict(set)
        self.postings: dict[str, set[int]] = defaultdict(set)
        self.trie: dict = {}
        for i, sentence in enumerate(sentences):
            if i % pacing.EVERY == 0:
                pacing.checkpoint()  # a worker building it lets the window have its turns
            self.tokens.append(tuple(sentence.tokens))
            self.annotations.append(tuple(sentence.annotations))
            self._post(i, add=True)
            self.spans.append(_spans(sentence.tokens, sentence.annotations, fixed_ends))
            for key, kind in self.spans[i]:
                self.evidence[key][kind].add(i)
            self.outside_keys.append(set())
        for key in self.evidence:
            self._trie_add(key)
        for i in range(len(self.tokens)):
            if i % pacing.EVERY == 0:
                pacing.checkpoint()
            self._set_outside(i)

    def __len__(self) -> int:
        return len(self.tokens)

    # ------------------------------------------------------------------
    # updates

    def set_annotations(self, i: int, changes: Mapping[int, frozenset]) -> None:
        """Sentence ``i``'s tokens ``changes`` now carry these annotations."""
        anns = list(self.annotations[i])
        for t, ann in changes.items():
            anns[t] = frozenset(ann)
        self._update(i, self.tokens[i], tuple(anns))

    def replace(self, i: int, sentence: Sentence) -> None:
        """Sentence ``i`` is now ``sentence`` (its tokens split or merged, or read again)."""
        self._update(i, tuple(sentence.tokens), tuple(sentence.annotations))

    def _update(self, i: int, tokens: tuple[str, ...], annotations: tuple[frozenset, ...]) -> None:
        if tokens != self.tokens[i]:
            self._post(i, add=False)
            self.tokens[i] = tokens
            self._post(i, add=True)
        self.annotations[i] = annotations
        old, new = self.spans[i], _spans(tokens, annotations, self.fixed_ends)
        self.spans[i] = new
        for key, kind in old - new:
            kinds = self.evidence[key]
            kinds[kind].discard(i)
            if not kinds[kind]:
                del kinds[kind]
            if not kinds:
                del self.evidence[key]
                self._trie_remove(key)
                for j in self.outside.pop(key, ()):
                    self.outside_keys[j].discard(key)
        for key, kind in new - old:
            fresh = key not in self.evidence
            self.evidence[key][kind].add(i)
            if fresh:
                self._trie_add(key)
                self._scan_outside(key)
        self._set_outside(i)

    def _post(self, i: int, add: bool) -> None:
        tokens = self.tokens[i]
        forms = set(tokens) | ({_decapitalised(tokens[0])} if tokens else set())
        for token in forms:
            if add:
                self.postings[token].add(i)
            else:
                self.postings[token].discard(i)

    def _trie_add(self, key: Key) -> None:
        node = self.trie
        for token in key:
            node = node.setdefault(token, {})
        node[None] = key

    def _trie_remove(self, key: Key) -> None:
        path, node = [], self.trie
        for token in key:
            path.append((node, token))
            node = node[token]
        del node[None]
        for parent, token in reversed(path):
            if parent[token]:
                break
            del parent[token]

    def _found(self, i: int) -> list[tuple[int, int, Key]]:
        """Every ``(start, end, key)`` where an indexed string occurs in sentence ``i``."""
        tokens, found = self.tokens[i], []
        n = len(tokens)
        for start in range(n):
            for first in _forms(tokens, start):
                node = self.trie.get(first)
                end = start + 1
                while node is not None:
                    if None in node:
                        found.append((start, end, node[None]))
                    node = node.get(tokens[end]) if end < n else None
                    end += 1
        return found

    def _all_outside(self, i: int, start: int, end: int) -> bool:
        anns = self.annotations[i]
        return all(anns[t] == {OUTSIDE} for t in range(start, end))

    def _set_outside(self, i: int) -> None:
        """Sentence ``i``'s occurrences labeled all ``O``, as counter-evidence of their strings."""
        now = (
            {key for start, end, key in self._found(i) if self._all_outside(i, start, end)}
            if any(self.annotations[i])
            else set()
        )
        for key in self.outside_keys[i] - now:
            self.outside[key].discard(i)
        for key in now - self.outside_keys[i]:
            self.outside[key].add(i)
        self.outside_keys[i] = now

    def _scan_outside(self, key: Key) -> None:
        """A string newly labeled: its counter-evidence in the sentences holding its first token."""
        for j in self.postings.get(key[0], ()):
            if any(self.annotations[j]) and any(
                self._all_outside(j, s, s + len(key)) for s in _starts(self.tokens[j], key)
            ):
                self.outside[key].add(j)
                self.outside_keys[j].add(key)

    # ------------------------------------------------------------------
    # questions

    def keys(self) -> int:
        """How many strings are labeled somewhere."""
        return len(self.evidence)

    def suggestion(self, i: int, start: int, end: int, key: Key) -> StringMatch | None:
        """The suggestion of ``key`` at ``[start, end)`` of sentence ``i`` (None below the minimum support)."""
        evidence = dict(self.evidence.get(key, {}))
        if not evidence:
            return None
        if self.outside.get(key):
            evidence[OUTSIDE] = self.outside[key]
        if sum(len(ids) for kind, ids in evidence.items() if kind != OUTSIDE) < self.min_support:
            return None
        return _suggestion(i, start, end, evidence, self.names)

    def matches(self, i: int) -> list[StringMatch]:
        """Sentence ``i``'s suggestions, by start (as ``string_matches`` gives them for it)."""
        anns = self.annotations[i]
        shown = {}
        for start, end, key in self._found(i):
            if all(anns[start:end]):
                continue
            match = self.suggestion(i, start, end, key)
            if match is not None and agrees(anns, start, match.allowed):
                shown[(start, end, key)] = match
        return [shown[found] for found in _longest_first(list(shown))]

    def occurrences(self, keys: Sequence[Key]) -> dict[int, list[int]]:
        """Every open recurrence of the strings ``keys`` (one string's forms: equally long).

        ``{sentence: [start, …]}``, none touching a labeled token; occurrences in one
        sentence do not overlap (leftmost first).
        """
        out: dict[int, list[int]] = {}
        k = len(keys[0])
        holding = set().union(*(self.postings.get(key[0], set()) for key in keys))
        for j in sorted(holding):
            anns, starts, free_from = self.annotations[j], [], 0
            for s in sorted({s for key in keys for s in _starts(self.tokens[j], key)}):
                if s >= free_from and not any(anns[s : s + k]):
                    starts.append(s)
                    free_from = s + k
            if starts:
                out[j] = starts
        return out
