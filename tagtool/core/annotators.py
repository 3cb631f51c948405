"""Several annotators' answers for the same tokens: names, the training label, who gave it.

The data model of team work (docs/design.md#team-answers), which the importers, the store and a
merge of annotators' projects share:

* each annotator's own answer for a token (a full label ``A``, a candidate
  set ``A|B``, or nothing) is kept apart, in ``Sentence.annotator_labels``
  and the project's ``annotator_labels`` table;
* the token's *training label* (``Sentence.annotations``, the
  ``annotations`` table: what learners read) is computed from the answers by
  :func:`combine` — the answer of a strict majority of them (all when
  they agree, two of three), else the candidate set of their answers (a
  partial label), as the learners of
  partial labels expect (Tsuboi et al. 2008; Cour et al. 2011: the true
  label is one of the candidates); an annotator who left a token
  unlabeled gave no answer for it;
* the training label's ``annotator`` column names who gave it
  (:func:`giver`).

Nothing here touches a file: :mod:`tagtool.store.annotators` is the one
module that writes this rule into a project (imports of annotators' files,
``tagtool merge``), and :mod:`tagtool.store.team` keeps the tokens an
adjudicator resolved, which it leaves alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet

#: Joins the names of the annotators who gave one training label together
#: (``alice+bob``: both answered ``B-PER``, or their answers made the set).
JOINER = "+"

#: Givers whose training labels are the project's own, not an annotator's answers: the person working
#: in the app under no name of their own (the app's and the store's default editor, ``user``) and labels
#: imported as training labels from a file that names nobody (``import``). Like a curated document in
#: INCEpTION or a ground-truth annotation in Label Studio, such a label stands beside the annotators'
#: answers rather than being one of them (:mod:`tagtool.store.annotators`); a person who wants their
#: edits counted as answers edits under a name of their own.
PROJECT_GIVERS = frozenset({"user", "import"})


def check_name(name: object) -> str:
    """An annotator's name, trimmed; ValueError if it is not a non-empty string.

    Names are free text (an email, a Label Studio user id, ``alice``); only
    an empty name is refused, since it could not be told from "nobody".
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"an annotator's name must be a non-empty text, got {name!r}")
    return name.strip()


def combine(answers: Iterable[frozenset[str]], labels: LabelSet | None = None) -> frozenset[str]:
    """The training label of a token from its annotators' answers: THE rule of team work.

    Parameters
    ----------
    answers : iterable of frozenset of str
        The annotators' answers. An empty one (an annotator who left the
        token unlabeled) is no answer, as in the ``annotator_labels`` table,
        which has no row for it.
    labels : LabelSet, optional
        Normalises the result (a set naming every label is no label,
        :func:`tagtool.core.annotation.make_annotation`).

    Returns
    -------
    frozenset of str
        The answer of a strict majority of those who answered (all of
        them when they agree, two of three); else the union of their
        answers, the candidate set one of whose labels is right when one
        annotator is (a partial label: Cour et al. 2011, JMLR 12); no label
        when nobody answered.

    Notes
    -----
    Why a majority before the set: with three annotators the majority of
    three is nearly the truth, and the union of all three answers throws
    that away; with two annotators who disagree there is no majority, and
    the set is better than either label.  Measured on simulated teams, see
    benchmarks/results/design-measurements.md ("combine").

    Examples
    --------
    >>> sorted(combine([frozenset({"B-PER"}), frozenset({"B-ORG"}), frozenset()]))
    ['B-ORG', 'B-PER']
    >>> sorted(combine([frozenset({"B-PER"}), frozenset({"B-ORG"}), frozenset({"B-PER"})]))
    ['B-PER']
    """
    given = [a for a in answers if a]
    if not given:
        return EMPTY
    votes = Counter(given)
    answer, count = votes.most_common(1)[0]
    chosen = answer if 2 * count > len(given) else frozenset().union(*given)
    return chosen if labels is None else make_annotation(chosen, labels)


def giver(answers: Mapping[str, frozenset[str]], label: frozenset[str], default: str) -> str:
    """Who gave a training label, for the ``annotations.annotator`` column.

    The annotators whose answer *is* the label (those who agree, or the one
    annotator who labeled the token); else those whose answers made the
    candidate set; else ``default`` (the import's or the editor's name).
    Several names are joined by :data:`JOINER` in sorted order.
    """
    same = sorted(name for name, answer in answers.items() if answer and answer == label)
    if not same:
        same = sorted(name for name, answer in answers.items() if answer)
    return JOINER.join(same) if same else default


def attribute(corpus: Corpus, name: str) -> Corpus:
    """``corpus`` with every labeled sentence that names no annotator given to ``name``.

    For files that do not say who labeled them (a CoNLL file, a doccano
    export of one user): their labels become ``name``'s answers
    (``Sentence.annotator_labels``), the training labels unchanged. A
    sentence without any label is nobody's answer and is left alone, as is
    a sentence whose file named its annotators.
    """
    name = check_name(name)

    def own(sentence: Sentence) -> Sentence:
        if sentence.annotator_labels or not any(sentence.annotations):
            return sentence
        return Sentence(
            sentence.tokens, sentence.annotations, sentence.columns, sentence.meta, {name: sentence.annotations}
        )

    documents = [Document(d.name, [own(s) for s in d.sentences]) for d in corpus.documents]
    return Corpus(corpus.labels, documents, corpus.warnings)
