"""One annotator's file of a project's sentences, matched to them (``tagtool import --as-annotator``).

An annotator labels a copy of the project's sentences elsewhere (a CoNLL,
CoNLL-U or TSV file written by ``tagtool export``, a doccano or Label
Studio export) and the file comes back: its labels are that annotator's
answers for the project's sentences, not new sentences. Reading one:

1. Every sentence is read with each token's line
   (:func:`tagtool.store.formats.iter_located`).
2. Whose answers: the annotators the file names (Label Studio, doccano),
   else ``owner`` (as :func:`tagtool.core.annotators.attribute` does); a file
   with labels and no name is an error. An unlabeled sentence is nobody's
   answer.
3. Each sentence is matched to a project sentence with the same tokens:
   ``"order"`` pairs the file's k-th sentence with the project's k-th (a
   whole copy of the project), ``"tokens"`` with the first project sentence
   not yet taken that has the same tokens (a part of the project, in any
   order). A sentence that does not match is a :class:`FormatError` naming
   the file and the line of the first token that differs. ``"text"``
   places span records by character offsets on the project's text instead
   (:meth:`tagtool.store.project_attach.SpansPart.attach`), whatever the
   tokens and sentence split: not read here.

Nothing is written here: the caller passes the answers, and the tokens they
were matched to, to :meth:`tagtool.store.project_team.TeamPart.add_answers`, one
transaction that checks those tokens again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tagtool.core.annotators import check_name
from tagtool.core.corpus import Sentence
from tagtool.errors import FormatError

MATCH_MODES = ("order", "tokens", "text")

#: ``(sentence id, description, {annotator: labels per token})``, as ``project.team.add_answers`` takes them.
Given = tuple[int, str, Mapping[str, Sequence[frozenset[str]]]]


@dataclass(frozen=True)
class _Ours:
    """A project sentence: id, where (for messages) and tokens."""

    id: int
    where: str
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class AnswerFile:
    """The answers of one file, matched.

    Attributes
    ----------
    given : list of Given
    annotators : list of str
        The annotators whose answers the file holds, sorted.
    labels : set of str
        Every label the answers use (to check against the project's).
    sentences : int
        Sentences read (labeled or not).
    tokens : dict of int to tuple of str
        The tokens of each answered project sentence when it was matched: ``add_answers``
        checks them again inside its transaction (another program may retokenize meanwhile).
    """

    given: list[Given]
    annotators: list[str]
    labels: set[str]
    sentences: int
    tokens: dict[int, tuple[str, ...]] = field(default_factory=dict)


def project_sentences(project) -> list[_Ours]:
    """The project's sentences in document order, each with its document and position
    (one read transaction: the tokens of one moment)."""
    ours = []
    with project.read_transaction():
        for document in project.documents():
            ids = project.sentence_ids(document.id)
            for position, (sid, sentence) in enumerate(zip(ids, project.sentences(ids)), 1):
                ours.append(_Ours(sid, f"sentence {position} of document {document.name!r}", sentence.tokens))
    return ours


def _difference(path: Path, ours: _Ours, theirs: Sentence, lines: Sequence[int]) -> FormatError:
    """The error for a file sentence whose tokens are not the project sentence's, at the first token that differs."""
    n = min(len(ours.tokens), len(theirs.tokens))
    t = next((i for i in range(n) if ours.tokens[i] != theirs.tokens[i]), n)
    line = lines[min(t, len(lines) - 1)]
    if t < n:
        what = f"token {t + 1} is {theirs.tokens[t]!r} here, {ours.tokens[t]!r} in the project's {ours.where}"
    else:
        what = f"{len(theirs.tokens)} tokens here, {len(ours.tokens)} in the project's {ours.where}"
    return FormatError(path, line, f"{what}; the file's sentences must be the project's (same tokens)")


def _owned(sentence: Sentence, annotator: str | None, path: Path, line: int) -> Mapping[str, Sequence]:
    """Whose answers a sentence holds (module doc, step 2)."""
    if sentence.annotator_labels:
        return sentence.annotator_labels
    if not any(sentence.annotations):
        return {}
    if annotator is None:
        raise FormatError(
            path,
            line,
            "the file does not say whose labels these are; name the annotator (tagtool import --annotator NAME)",
        )
    return {annotator: sentence.annotations}


def read_answer_file(project, path, match: str = "order", owner: str | None = None, **reader_options) -> AnswerFile:
    """The answers of one annotator's (or several annotators') file of ``project``'s sentences.

    Parameters
    ----------
    project : Project
    path : str or PathLike
    match : {"order", "tokens"}
        How the file's sentences find the project's (module doc, step 3).
    owner : str, optional
        Whose answers a file that names nobody holds.
    **reader_options
        Arguments of :func:`tagtool.store.formats.iter_located` (format,
        columns, span-record options; ``annotator`` reads only that
        annotator's labels of a file naming several).

    Raises
    ------
    FormatError
        Malformed input, a sentence that is not the project's, or labels of nobody.
    """
    from tagtool.store.formats import iter_located

    if match not in MATCH_MODES[:2]:
        raise ValueError(f"match must be 'order' or 'tokens' (text: project.spans.attach), got {match!r}")
    path = Path(path)
    owner = None if owner is None else check_name(owner)
    ours = project_sentences(project)
    pick = _in_order(ours, path) if match == "order" else _by_tokens(ours, path)
    given: list = []
    names: set[str] = set()
    labels: set[str] = set()
    n, tokens = 0, {}
    for _, sentence, lines in iter_located(path, **reader_options):
        n += 1
        mine = pick(sentence, lines)
        owned = _owned(sentence, owner, path, lines[0])
        if owned:
            given.append((mine.id, mine.where, dict(owned)))
            tokens[mine.id] = mine.tokens
            names.update(owned)
            labels.update(label for anns in owned.values() for ann in anns for label in ann)
    if match == "order" and n != len(ours):
        raise FormatError(
            path,
            None,
            f"{n} sentences, the project {len(ours)}: with --match order the file "
            "must hold all of the project's sentences in order (--match tokens takes a part)",
        )
    return AnswerFile(given, sorted(names), labels, n, tokens)


def _in_order(ours: list[_Ours], path: Path):
    """The k-th call gets the project's k-th sentence, checked."""
    position = iter(ours)

    def pick(sentence: Sentence, lines: Sequence[int]) -> _Ours:
        mine = next(position, None)
        if mine is None:
            raise FormatError(path, lines[0], f"more sentences than the project's {len(ours)}")
        if mine.tokens != sentence.tokens:
            raise _difference(path, mine, sentence, lines)
        return mine

    return pick


def _by_tokens(ours: list[_Ours], path: Path):
    """Each call gets the first project sentence with the same tokens not yet taken."""
    free: dict[tuple[str, ...], deque[_Ours]] = {}
    for mine in ours:
        free.setdefault(mine.tokens, deque()).append(mine)

    def pick(sentence: Sentence, lines: Sequence[int]) -> _Ours:
        same = free.get(sentence.tokens)
        if not same:
            text = " ".join(sentence.tokens)
            text = text if len(text) <= 60 else text[:57] + "..."
            taken = " (all taken by earlier sentences of the file)" if same is not None else ""
            raise FormatError(path, lines[0], f"no sentence of the project has the tokens {text!r}{taken}")
        return same.popleft()

    return pick
