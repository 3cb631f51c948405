"""What a fuzzed reader or loader may do: succeed with a valid result, or raise the named error.

Each ``try_*`` function feeds one input and returns ``"accepted"`` or
``"refused"`` (the named error was raised); any other exception, or an
accepted result that breaks an invariant (:class:`InvalidResult`),
propagates. The fuzz tests let it fail the test; ``benchmarks/reliability.py``
counts it.
"""

from __future__ import annotations

from pathlib import Path

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import FORMATS, detect_format, iter_sentences, read_corpus
from tagtool.tagger.file_format import TaggerFileError
from tagtool.tagger.model import Tagger, load_tagger
from tests.fuzz.inputs import ReaderCase

#: A label schema some reads are checked against (labels outside it are errors).
SCHEMA = LabelSet(["O", "B-ORG", "I-ORG", "B-PER", "I-PER", "B-MISC", "I-MISC", "B-LOC", "I-LOC", "NN", "NNP"])


class InvalidResult(AssertionError):
    """An input was accepted, but what came back breaks an invariant."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidResult(message)


def check_sentence(sentence: Sentence, labels: LabelSet | None) -> None:
    """Tokens, annotations, columns and meta of the types the store expects."""
    _require(isinstance(sentence, Sentence) and len(sentence) > 0, "a sentence without tokens")
    _require(all(isinstance(t, str) and t for t in sentence.tokens), f"bad tokens {sentence.tokens!r}")
    for ann in sentence.annotations:
        _require(all(isinstance(n, str) for n in ann), f"bad annotation {ann!r}")
        if labels is not None:
            _require(all(n in labels for n in ann), f"annotation {ann!r} outside {labels}")
    for name, values in sentence.columns.items():
        _require(isinstance(name, str) and all(isinstance(v, str) for v in values), f"bad column {name!r}")
        _require(len(values) == len(sentence), f"column {name!r} of the wrong length")
    _require(all(isinstance(k, str) and isinstance(v, str) for k, v in sentence.meta.items()), "bad meta")


def check_corpus(corpus: Corpus) -> None:
    """A corpus a project can import: at least one sentence, every one valid."""
    _require(isinstance(corpus, Corpus) and len(corpus) > 0, "an empty corpus was accepted")
    _require(all(isinstance(d.name, str) for d in corpus.documents), "a document name that is no string")
    for sentence in corpus:
        check_sentence(sentence, corpus.labels)


def write_input(folder: Path, case: ReaderCase, data: bytes) -> Path:
    path = Path(folder) / f"input{case.suffix}"
    path.write_bytes(data)
    return path


def try_read(case: ReaderCase, path: Path, encoding: str = "utf-8", schema: bool = False) -> str:
    """``read_corpus`` and ``iter_sentences`` on ``path``; they must agree.

    ``iter_sentences`` may yield sentences before it reaches an error; up to
    there it yields what ``read_corpus`` would have read.
    """
    labels = SCHEMA if schema else None
    kwargs = {**case.kwargs(), "encoding": encoding, "labels": labels}
    try:
        corpus = read_corpus(path, **kwargs)
    except FormatError as exc:
        _check_error(exc, path)
        streamed = []
        try:
            for sentence in iter_sentences(path, **kwargs):
                streamed.append(sentence)
        except FormatError:
            return "refused"
        raise InvalidResult(
            f"read_corpus refused the file ({exc}), iter_sentences read {len(streamed)} sentences"
        ) from exc
    check_corpus(corpus)
    streamed = list(iter_sentences(path, **kwargs))
    _require([s.tokens for s in streamed] == [s.tokens for s in corpus], "iter_sentences and read_corpus differ")
    return "accepted"


def _check_error(exc: FormatError, path: Path) -> None:
    _require(exc.path == str(path), f"the error does not name the file: {exc}")
    _require(exc.line is None or (isinstance(exc.line, int) and exc.line >= 1), f"bad line number in {exc}")
    _require(isinstance(exc.message, str) and bool(exc.message), "an error without a message")


def try_detect(path: Path) -> str:
    """``detect_format`` never raises on a readable file and names a known format."""
    name = detect_format(path)
    _require(name in FORMATS, f"detect_format gave {name!r}")
    return "accepted"


def try_import(project, path: Path, case: ReaderCase) -> str:
    """Read a file and import it into ``project``: the whole pipeline of ``tagtool import``."""
    try:
        corpus = read_corpus(path, **case.kwargs())
    except FormatError:
        return "refused"
    before = project.n_sentences
    ids = project.imports.import_corpus(corpus, add_labels=True)
    _require(len(ids) == len(corpus) and project.n_sentences == before + len(corpus), "import lost sentences")
    for sid, sentence in zip(ids[:3], corpus):
        _require(project.sentence(sid).tokens == sentence.tokens, "imported tokens differ")
    return "accepted"


def try_import_annotations(project, path: Path, case: ReaderCase, mode: str, match: str) -> str:
    """Read a file against the project's labels and take its annotations.

    Refused (any :class:`~tagtool.errors.TagtoolError`) means nothing changed.
    """
    from tagtool.errors import TagtoolError

    before = [project.annotations(sid) for sid in project.sentence_ids()]
    try:
        corpus = read_corpus(path, **{**case.kwargs(), "labels": project.labels})
        project.imports.import_annotations(corpus, mode=mode, match=match)
    except TagtoolError:
        after = [project.annotations(sid) for sid in project.sentence_ids()]
        _require(after == before, "a refused import changed annotations")
        return "refused"
    return "accepted"


def try_load_tagger(path: Path) -> str:
    """``load_tagger``: a tagger that tags, or :class:`TaggerFileError`."""
    try:
        tagger = load_tagger(path)
    except TaggerFileError as exc:
        _require(str(path) in str(exc), f"the error does not name the file: {exc}")
        return "refused"
    check_tagger(tagger)
    return "accepted"


def try_tagger_bytes(data: bytes) -> str:
    """``Tagger.from_bytes`` (stored models in a project)."""
    try:
        tagger = Tagger.from_bytes(data, "model 1")
    except TaggerFileError:
        return "refused"
    check_tagger(tagger)
    return "accepted"


SAMPLE = [["EU", "rejects", "German", "call"], ["x"], ["Peter", "Blackburn", "1996-08-22", "."]]


def check_tagger(tagger: Tagger) -> None:
    """A loaded tagger tags, scores and (two views) compares views without error."""
    tags = tagger.tag(SAMPLE, allow_missing_columns=True)  # token lists: no extra columns
    _require([len(t) for t in tags] == [len(s) for s in SAMPLE], "wrong number of predictions")
    _require(all(label in tagger.labels for t in tags for label in t), "a prediction outside the labels")
    scores = tagger.score_tokens(SAMPLE)
    _require([s.shape for s in scores] == [(len(s), len(tagger.labels)) for s in SAMPLE], "bad score shapes")
    if tagger.two_view:
        tagger.disagreement(SAMPLE)
