"""tagtool.services.batch.tag_file: the batch tagging the CLI and the app share."""

from __future__ import annotations

import json
import weakref
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.errors import Cancelled
from tagtool.services.batch import BatchJob, output_format_for, tag_file
from tagtool.services.batch_job import BatchError, format_batch
from tagtool.services.batch_runners import ordered_results
from tagtool.store.formats import read_corpus

DATA = Path(__file__).parent / "data"
INPUT = DATA / "conll2000_train_head.txt"


def test_tag_file_writes_the_taggers_predictions(tagger, tmp_path):
    out = tmp_path / "tagged.txt"
    reports = []
    result = tag_file(tagger, INPUT, out, "conll", batch_size=30, progress=lambda f, m: reports.append(f))
    assert result.n_sentences == 100 and result.output_format == "conll"
    assert reports and reports[-1] == pytest.approx(1.0) and reports == sorted(reports)
    written = read_corpus(out, label_column=-1)
    source = read_corpus(INPUT, label_column=None)
    expected = tagger.tag(source.sentences)
    assert [s.tokens for s in written] == [s.tokens for s in source]
    assert [[next(iter(a)) for a in s.annotations] for s in written] == expected


def test_cancel_leaves_no_output(tagger, tmp_path):
    out = tmp_path / "tagged.txt"
    out.write_text("old\n")
    calls = iter([False, True])
    with pytest.raises(Cancelled):
        tag_file(tagger, INPUT, out, "conll", batch_size=10, should_stop=lambda: next(calls, True))
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tagged.txt"]


def test_output_format_defaults():
    assert output_format_for("conllu") == "conllu"  # the input's own format
    assert output_format_for("csv") == "conll"
    assert output_format_for("jsonl") == "jsonl"
    assert output_format_for("conll", "text") == "text"


# ---------------------------------------------------------------------------
# streaming, errors, the ordered pipeline


def write_jsonl(path, bad_at=None):
    """CONLL's sentences as JSONL token records with a column and a meta key; one bad token."""
    records = []
    for i, s in enumerate(read_corpus(INPUT, label_column=None)):
        tokens = list(s.tokens)
        if i == bad_at:
            tokens[1] = "New York"
        records.append(json.dumps({"tokens": tokens, "col1": list(s.columns["col1"]), "id": f"s{i}"}))
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    return path


def test_tag_file_takes_a_tagger_path_and_keeps_columns_and_meta(tagger, tmp_path):
    model = tmp_path / "m.tagger"
    tagger.save(model)
    source = write_jsonl(tmp_path / "in.jsonl")
    by_object, by_path = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    tag_file(tagger, source, by_object, batch_size=30)
    result = tag_file(model, source, by_path, batch_size=30)
    assert result.output_format == "jsonl" and by_path.read_bytes() == by_object.read_bytes()
    back = read_corpus(by_path)
    assert back.sentences[3].meta["id"] == "s3" and "col1" in back.sentences[3].columns
    assert [[next(iter(a)) for a in s.annotations] for s in back] == tagger.tag(read_corpus(source).sentences)


def test_a_sentence_that_cannot_be_written_names_input_and_sentence(tagger, tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", bad_at=37)
    out = tmp_path / "out.conll"
    with pytest.raises(BatchError) as caught:
        tag_file(tagger, source, out, "conll", batch_size=10)
    message = str(caught.value)
    assert message.startswith(f"{source}: sentence 38: cannot write it as conll:") and "'New York'" in message
    assert "\n" not in message and list(tmp_path.iterdir()) == [source]


def test_malformed_input_names_file_and_line_and_writes_nothing(tagger, tmp_path):
    from tagtool.errors import FormatError

    source = tmp_path / "in.txt"
    lines = INPUT.read_text().splitlines()
    lines[60] = lines[60] + " extra"
    source.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"in\.txt:61: "):
        tag_file(tagger, source, tmp_path / "out.txt", batch_size=5)
    assert list(tmp_path.iterdir()) == [source]


def test_counting_pass_polls_should_stop(tagger, tmp_path, monkeypatch):
    import tagtool.services.batch_count

    monkeypatch.setattr(tagtool.services.batch_count, "COUNT_POLL", 10)
    polls = []

    def stop():
        polls.append(1)
        return True

    with pytest.raises(Cancelled):
        tag_file(tagger, INPUT, tmp_path / "out.txt", progress=lambda f, m: None, should_stop=stop)
    assert len(polls) == 1 and list(tmp_path.iterdir()) == []


def test_sentences_do_not_accumulate_while_tagging(tagger, tmp_path, monkeypatch):
    """Memory stays flat: at each progress report at most a batch or two of sentences is alive."""
    refs = []
    post_init = Sentence.__post_init__

    def tracked(self):
        post_init(self)
        refs.append(weakref.ref(self))

    monkeypatch.setattr(Sentence, "__post_init__", tracked)
    alive = []
    tag_file(
        tagger,
        INPUT,
        tmp_path / "out.txt",
        batch_size=10,
        progress=lambda f, m: alive.append(sum(r() is not None for r in refs)),
    )
    # reading made them all (the counting pass reads lines only, and a
    # column file's batch is written column by column, without tagged
    # copies), yet only the batch being read (plus one sentence of the
    # reader's lookahead) survives
    assert len(refs) >= 100 and len(alive) == 10 and max(alive) <= 10 + 1


class Pending:
    """A future that completes when asked for its result; keeps nothing of its batch."""

    def __init__(self, log, first, n):
        self.log, self.first, self.n, self.cancelled = log, first, n, False

    def result(self):
        self.log.append(("result", self.first))
        return f"{self.first}+{self.n};"

    def cancel(self):
        self.cancelled = True
        return True


def numbered(n_batches, size, refs):
    first = 0
    for _ in range(n_batches):
        batch = [Sentence(("a",) * (1 + first % 3)) for _ in range(size)]
        refs.extend(weakref.ref(s) for s in batch)
        yield first, batch
        first += size


def test_ordered_results_keep_order_bound_in_flight_and_drop_batches():
    log, refs, futures = [], [], []

    def submit(batch, first):
        log.append(("submit", first))
        futures.append(Pending(log, first, len(batch)))
        return futures[-1]

    texts, live = [], []
    for _, _, text in ordered_results(submit, numbered(6, 4, refs), 3, lambda f, n: "x"):
        texts.append(text)
        live.append(sum(r() is not None for r in refs))
    assert "".join(texts) == "0+4;4+4;8+4;12+4;16+4;20+4;"
    # at most 3 submitted and not yet collected, at any time
    pending = 0
    for kind, _ in log:
        pending += 1 if kind == "submit" else -1
        assert pending <= 3
    assert max(live) <= 4  # only the batch the reader holds: pending futures keep none


def test_ordered_results_wrap_a_worker_failure_and_cancel_the_rest():
    class Broken(Pending):
        def result(self):
            raise RuntimeError("worker died")

    made = []

    def submit(batch, first):
        made.append((Broken if first == 4 else Pending)([], first, len(batch)))
        return made[-1]

    results = ordered_results(submit, numbered(5, 4, []), 3, lambda f, n: f"in.txt: sentences {f + 1}-{f + n}")
    assert next(results)[2] == "0+4;"
    with pytest.raises(BatchError, match=r"^in\.txt: sentences 5-8: RuntimeError: worker died$"):
        list(results)
    assert [f.cancelled for f in made] == [False, False, True, True]


def test_format_batch_is_what_tag_file_writes(tagger, tmp_path):
    out = tmp_path / "out.txt"
    tag_file(tagger, INPUT, out, "text", batch_size=1000)
    sentences = list(read_corpus(INPUT, label_column=None).sentences)
    assert format_batch(tagger, sentences, 0, BatchJob("text", str(out), str(INPUT))) == out.read_text()


@pytest.mark.parametrize(
    "name, text",
    [
        ("a.conll", "-DOCSTART- -X- O\n\nEU NNP\nrejects VBZ\n\n\n-DOCSTART- -X- O\nPeter NNP\n  \nx y\n"),
        ("b.conll", "\ufeffa B\nc D\n-DOCSTART- -X-\ne F\n"),
        ("c.txt", "one line\n\n  \ntwo words here\nthree\n"),
        ("d.jsonl", '{"tokens": ["a"]}\n\n{"tokens": ["b", "c"]}\n'),
        (
            "e.conllu",
            "# sent_id = 1\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n# -DOCSTART-\n1\tc\t_\t_\t_\t_\t_\t_\t_\t_\n\n",
        ),
    ],
)
def test_quick_count_agrees_with_the_readers(tmp_path, name, text):
    from tagtool.services.batch_count import count_sentences, quick_count
    from tagtool.store.formats import detect_format, iter_sentences

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    fmt = detect_format(path)
    # plain text: a line is a sentence when it is read one sentence a line (raw text is split: read to count)
    options = {"sentence_split": False} if fmt == "text" else {}
    sentences = iter_sentences(path, fmt, label_column=None, **options)
    assert quick_count(path, fmt, "utf-8") == count_sentences(sentences, None)


def test_raw_text_is_counted_by_reading_it(tmp_path):
    from tagtool.services.batch import _Source

    path = tmp_path / "raw.txt"
    path.write_text("One. Two.\nThree\n", encoding="utf-8")
    assert _Source(path, "text", "utf-8", 0, {}).count(None) == 3
    assert _Source(path, "text", "utf-8", 0, {"sentence_split": False}).count(None) == 2


def test_quick_count_matches_on_the_test_slices():
    from tagtool.services.batch_count import count_sentences, quick_count
    from tagtool.store.formats import detect_format, iter_sentences

    for path in [*(Path(__file__).parent / "data").glob("*.txt"), EWT]:
        fmt = detect_format(path)
        assert (
            quick_count(path, fmt, "utf-8") == count_sentences(iter_sentences(path, fmt, label_column=None), None) > 0
        )


# ---------------------------------------------------------------------------
# output in the input's own format

EWT = DATA / "ewt_test_slice.conllu"


def _train(corpus):
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger

    return train_tagger(
        Corpus.from_sentences(corpus.sentences, labels=corpus.labels), make_learner("perceptron", max_iter=1)
    )


@pytest.fixture(scope="module")
def upos_tagger():
    return _train(read_corpus(EWT))


def _word_line(line: str) -> bool:
    return bool(line) and not line.startswith("#") and line.split("\t")[0].isdigit()


def assert_only_field_changed(source: str, tagged: str, field: int, predictions: list[str]) -> None:
    """Every line as in ``source`` but word lines' ``field``, which holds ``predictions`` in order."""
    old, new = source.split("\n"), tagged.split("\n")
    assert len(old) == len(new)
    expected = iter(predictions)
    for a, b in zip(old, new):
        if not _word_line(a):
            assert b == a  # comments, blank lines, multiword ranges, empty nodes
            continue
        fa, fb = a.split("\t"), b.split("\t")
        assert fb[field] == next(expected)
        assert fa[:field] + fa[field + 1 :] == fb[:field] + fb[field + 1 :]
    assert next(expected, None) is None


def test_conllu_input_is_tagged_as_conllu_with_every_line_kept(upos_tagger, tmp_path):
    out = tmp_path / "out.conllu"
    result = tag_file(upos_tagger, EWT, out, batch_size=7)
    assert result.output_format == "conllu"
    predicted = upos_tagger.tag(read_corpus(EWT, label_column=None).sentences)
    assert_only_field_changed(
        EWT.read_text(encoding="utf-8"),
        out.read_text(encoding="utf-8"),
        3,
        [p for sentence in predicted for p in sentence],
    )


def test_conllu_prediction_goes_to_the_chosen_label_field(upos_tagger, tmp_path):
    out = tmp_path / "out.conllu"
    tag_file(upos_tagger, EWT, out, label_field="xpos", batch_size=50)
    predicted = upos_tagger.tag(read_corpus(EWT, label_column=None).sentences)
    assert_only_field_changed(
        EWT.read_text(encoding="utf-8"),
        out.read_text(encoding="utf-8"),
        4,
        [p for sentence in predicted for p in sentence],
    )


def test_span_records_are_tagged_as_span_records(tmp_path):
    source = tmp_path / "spans.jsonl"
    texts = [
        ("EU  rejects German call", [[0, 2, "ORG"], [12, 18, "MISC"]]),
        ("Peter Blackburn spoke", [[0, 15, "PER"]]),
        ("BRUSSELS said EU", [[0, 8, "LOC"], [14, 16, "ORG"]]),
    ]
    records = [{"id": f"r{i}", "text": text, "label": spans} for i, (text, spans) in enumerate(texts * 4)]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    tagger = _train(read_corpus(source))
    out = tmp_path / "out.jsonl"
    assert tag_file(tagger, source, out, batch_size=5).output_format == "jsonl"
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [sorted(r) for r in written] == [["id", "label", "text"]] * len(records)
    assert [(r["id"], r["text"]) for r in written] == [(r["id"], r["text"]) for r in records]
    for record in written:
        for start, end, _ in record["label"]:
            assert record["text"][start:end].strip() == record["text"][start:end] != ""
    back = read_corpus(out)
    assert [[next(iter(a)) for a in s.annotations] for s in back] == tagger.tag(read_corpus(source).sentences)


def _tab_file(path: Path) -> Path:
    """CONLL as ``index<TAB>word<TAB>POS<TAB>chunk``: the token in column 1, tabs between columns."""
    blocks = []
    for s in read_corpus(INPUT):
        rows = zip(s.tokens, s.columns["col1"], (next(iter(a)) for a in s.annotations))
        blocks.append("".join(f"{i}\t{w}\t{p}\t{c}\n" for i, (w, p, c) in enumerate(rows, 1)))
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return path


def test_column_file_keeps_its_layout_and_gets_the_prediction_appended(tmp_path):
    source = _tab_file(tmp_path / "in.txt")
    tagger = _train(read_corpus(source, token_column=1))
    out = tmp_path / "out.txt"
    assert tag_file(tagger, source, out, token_column=1, batch_size=30).output_format == "conll"
    predicted = iter(p for s in tagger.tag(read_corpus(source, token_column=1, label_column=None).sentences) for p in s)
    expected = [f"{line}\t{next(predicted)}" if line else "" for line in source.read_text().split("\n")]
    assert out.read_text().split("\n") == expected


def test_column_file_prediction_can_replace_a_column(tmp_path):
    source = _tab_file(tmp_path / "in.txt")
    tagger = _train(read_corpus(source, token_column=1))
    out = tmp_path / "out.txt"
    tag_file(tagger, source, out, token_column=1, label_column=-1, batch_size=30)
    predicted = iter(p for s in tagger.tag(read_corpus(source, token_column=1, label_column=None).sentences) for p in s)
    expected = [
        line.rsplit("\t", 1)[0] + f"\t{next(predicted)}" if line else "" for line in source.read_text().split("\n")
    ]
    assert out.read_text().split("\n") == expected
    with pytest.raises(BatchError, match="label column 7 does not exist"):
        tag_file(tagger, source, out, token_column=1, label_column=7)


def test_span_output_keeps_offsets_into_the_original_text(tmp_path):
    """Tokens split off punctuation (as a tokenizer does): the spans still point into meta["text"]."""
    from tagtool.store.formats import write_corpus

    text = "EU rejects  German call, Peter said."
    tokens = ["EU", "rejects", "German", "call", ",", "Peter", "said", "."]
    labels = ["B-ORG", "O", "B-MISC", "O", "O", "B-PER", "O", "O"]
    sentence = Sentence(tokens, [{label} for label in labels], meta={"text": text})
    out = tmp_path / "out.jsonl"
    write_corpus(Corpus.from_sentences([sentence]), out, spans=True)
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["text"] == text
    assert [text[start:end] for start, end, _ in record["label"]] == ["EU", "German", "Peter"]


# input columns: a chunker trained with POS on a tokens-only file


def tokens_only(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("\n".join(line.split(" ")[0] for line in INPUT.read_text().splitlines()) + "\n")
    return path


@pytest.mark.parametrize("by_path", [False, True], ids=["tagger", "tagger-file"])
def test_a_file_without_the_trained_column_is_refused_and_nothing_written(tagger, tmp_path, by_path):
    from tagtool.tagger.inputs import TaggerInputError

    source, out = tokens_only(tmp_path), tmp_path / "tagged.txt"
    model = tagger
    if by_path:
        model = tmp_path / "m.tagger"
        tagger.save(model)
    with pytest.raises(
        TaggerInputError,
        match=r"plain\.txt: lacks the column\(s\) 'col1' .*expected loss: token "
        r"accuracy [\d.]+ % with it, [\d.]+ % without",
    ):
        tag_file(model, source, out, "conll")
    assert not out.exists()


def test_allowed_missing_columns_tag_with_a_warning(tagger, tmp_path):
    source, out = tokens_only(tmp_path), tmp_path / "tagged.txt"
    result = tag_file(tagger, source, out, "conll", allow_missing_columns=True)
    assert result.n_sentences == 100 and len(result.warnings) == 1 and "'col1'" in result.warnings[0]
    written = read_corpus(out, label_column=-1)
    plain = read_corpus(source, label_column=None)
    assert [[next(iter(a)) for a in s.annotations] for s in written] == tagger.tag(
        plain.sentences, allow_missing_columns=True
    )


def test_a_file_with_the_column_gives_no_warning(tagger, tmp_path):
    assert tag_file(tagger, INPUT, tmp_path / "t.txt", "conll").warnings == ()


def test_a_later_sentence_without_the_column_fails_its_batch_naming_it(tagger, tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"tokens": ["a", "b"], "col1": ["DT", "NN"]}\n{"tokens": ["c"]}\n', encoding="utf-8")
    with pytest.raises(BatchError, match=r"in\.jsonl: sentence 2: lacks the column\(s\) 'col1'"):
        tag_file(tagger, path, tmp_path / "out.jsonl")


@pytest.mark.parametrize("label_column, sep", [(None, " "), (-1, "\t"), (1, " ")])
def test_a_column_files_batch_is_the_reference_writers_bytes(tagger, label_column, sep):
    """format_batch's column-wise path (one transform, flat labels) against tag_corpus + write_columns."""
    import io

    from tagtool.core.corpus import Document
    from tagtool.services.batch_output import LAYOUT, write_columns
    from tagtool.store.formats._common import WriteContext

    sentences = list(read_corpus(INPUT, label_column=None).sentences)
    job = BatchJob("conll", "out.txt", str(INPUT), ((LAYOUT, (0, label_column, sep)),))
    ctx = WriteContext(Path("out.txt"))
    tagged = tagger.tag_corpus(Corpus(tagger.labels, (Document(ctx.document_name, tuple(sentences)),)))
    reference = io.StringIO()
    write_columns(tagged, reference, ctx, token_column=0, label_column=label_column, sep=sep)
    assert format_batch(tagger, sentences, 0, job) == reference.getvalue()
    assert tagger.tag_flat(sentences, block=len(sentences)) == tagger.tag_flat(sentences, block=7)
