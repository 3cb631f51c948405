"""What a valid CoNLL-U sentence is, checked on the ``conllu`` package's parse of a file.

Shared by the retokenization tests and ``benchmarks/_adv_conllu.py``:
:func:`problems` lists what is wrong with each sentence of a CoNLL-U text
(empty when it is valid): word ids 1..n, exactly one root (HEAD 0), no
cycle, heads and enhanced heads in range, multiword-token ranges of two or
more words that do not overlap and stand before their first word, empty
nodes inside the sentence, and ``# text`` equal to the forms (a multiword
token's instead of its words') joined by their ``SpaceAfter``.
"""

from __future__ import annotations

import conllu


def _space(misc) -> str:
    return "" if misc and misc.get("SpaceAfter") == "No" else " "


def surface(sentence: conllu.TokenList) -> str:
    out, covered = [], 0
    for token in sentence:
        ident = token["id"]
        if isinstance(ident, tuple) and ident[1] == "-":
            out += [token["form"], _space(token["misc"])]
            covered = ident[2]
        elif isinstance(ident, int) and ident > covered:
            out += [token["form"], _space(token["misc"])]
    return "".join(out[:-1])


def _tree_problems(words: list, n: int) -> list[str]:
    heads = {w["id"]: w["head"] for w in words}
    if any(h is None for h in heads.values()):
        return []  # a sentence without a basic tree: nothing to check
    out = []
    roots = [i for i, h in heads.items() if h == 0]
    if len(roots) != 1:
        out.append(f"{len(roots)} roots ({roots})")
    for i, h in heads.items():
        if not 0 <= h <= n or h == i:
            out.append(f"word {i} has head {h}")
    for i in heads:
        seen, j = set(), i
        while j != 0 and j in heads and j not in seen:
            seen.add(j)
            j = heads[j]
        if j != 0:
            out.append(f"word {i} is on a cycle or points outside")
            break
    return out


def _deps_problems(sentence: conllu.TokenList, n: int) -> list[str]:
    nodes = {t["id"] for t in sentence if isinstance(t["id"], tuple) and t["id"][1] == "."}
    out = []
    for token in sentence:
        deps = token["deps"]
        if not isinstance(deps, list):
            continue
        for _rel, head in deps:
            ok = head in nodes if isinstance(head, tuple) else 0 <= head <= n
            if not ok or head == token["id"]:
                out.append(f"{token['id']} has enhanced head {head}")
    return out


def sentence_problems(sentence: conllu.TokenList) -> list[str]:
    """What is wrong with one parsed sentence (empty: nothing)."""
    words = [t for t in sentence if isinstance(t["id"], int)]
    n = len(words)
    out = []
    if [w["id"] for w in words] != list(range(1, n + 1)):
        out.append("word ids are not 1..n")
    out += _tree_problems(words, n)
    out += _deps_problems(sentence, n)
    end = 0
    for k, token in enumerate(sentence):
        ident = token["id"]
        if isinstance(ident, tuple) and ident[1] == "-":
            a, b = ident[0], ident[2]
            following = sentence[k + 1]["id"] if k + 1 < len(sentence) else None
            if not 1 <= a < b <= n or a <= end or following != a:
                out.append(f"multiword token {a}-{b} is out of place or range")
            end = b
        elif isinstance(ident, tuple) and not 0 <= ident[0] <= n:
            out.append(f"empty node {ident} is outside the sentence")
    text = sentence.metadata.get("text")
    if text is not None and text != surface(sentence):
        out.append(f"# text {text!r} but the words read {surface(sentence)!r}")
    return out


def problems(text: str) -> list[str]:
    """Every problem of every sentence of a CoNLL-U text, each with its sentence's ``sent_id``."""
    out = []
    for k, sentence in enumerate(conllu.parse(text)):
        name = sentence.metadata.get("sent_id", f"sentence {k + 1}")
        out += [f"{name}: {p}" for p in sentence_problems(sentence)]
    return out
