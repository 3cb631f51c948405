"""``tagtool tag``: progress on stderr, --workers, --dask, Ctrl-C and errors."""

from __future__ import annotations

import os
import pathlib
import signal

import pytest

import tagtool.services.batch_runners
from tagtool.cli.main import main

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(CONLL)
    path = tmp_path_factory.mktemp("model") / "m.tagger"
    train_tagger(
        Corpus.from_sentences(gold.sentences[:30], labels=gold.labels), make_learner("perceptron", max_iter=2)
    ).save(path)
    return path


@pytest.fixture(scope="module")
def expected(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "out.txt"
    assert main(["tag", str(model), str(CONLL), "-o", str(out), "--batch-size", "9"]) == 0
    return out.read_bytes()


def test_progress_and_summary_go_to_stderr(model, expected, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, stdout, err = run(capsys, "tag", model, CONLL, "-o", out, "--batch-size", "9")
    assert code == 0 and stdout == "" and out.read_bytes() == expected
    assert "tagging conll2000_train_head.txt" in err and "100 of 100 sentences" in err
    assert "tagged 100 sentences, 2440 tokens" in err


def test_output_to_stdout_stays_on_stdout_when_stderr_is_a_terminal(model, expected, capsys, monkeypatch):
    # On a terminal the progress bar swaps sys.stdout for a proxy that prints to stderr.
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, stdout, err = run(capsys, "tag", model, CONLL, "--batch-size", "9")
    assert code == 0 and stdout.encode() == expected
    assert "tagged 100 sentences" in err and CONLL.read_text().split()[0] not in err


def test_workers_give_the_same_output(model, expected, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, _, err = run(capsys, "tag", model, CONLL, "-o", out, "--batch-size", "9", "--workers", "2")
    assert code == 0, err
    assert out.read_bytes() == expected and "tagged 100 sentences" in err


def test_dask_gives_the_same_output(model, expected, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out.txt"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        code, _, err = run(
            capsys, "tag", model, CONLL, "-o", out, "--batch-size", "9", "--dask", cluster.scheduler_address
        )
    assert code == 0, err
    assert out.read_bytes() == expected


def test_ctrl_c_cancels_cleanly_and_writes_nothing(model, tmp_path, capsys, monkeypatch):
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where the test run itself was started in the background
    real = tagtool.services.batch_runners.format_batch
    calls = []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args)

    monkeypatch.setattr(tagtool.services.batch_runners, "format_batch", interrupted)
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    code, _, err = run(capsys, "tag", model, CONLL, "-o", out, "--batch-size", "5")
    assert code == 130 and "tagging cancelled, nothing written" in err
    assert len(calls) == 2 and out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    assert signal.getsignal(signal.SIGINT) is before, "the handler the command found is back"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--workers", "0"], "--workers: expected a positive integer, got 0"),
        (["--workers", "2", "--dask", "tcp://x:1"], "--dask: not allowed with argument --workers"),
        (["--batch-size", "none"], "--batch-size: expected a positive integer, got 'none'"),
    ],
)
def test_bad_options_are_usage_errors(model, capsys, options, message):
    with pytest.raises(SystemExit) as exit_:
        main(["tag", str(model), str(CONLL), *options])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_errors_are_one_line_and_exit_1(model, tmp_path, capsys):
    broken = tmp_path / "broken.tagger"
    broken.write_bytes(model.read_bytes()[:300])
    bad_input = tmp_path / "bad.txt"
    bad_input.write_text("a B\nb C D\n")
    for argv, message in [
        ((tmp_path / "none.tagger", CONLL), "none.tagger: no such file"),
        ((broken, CONLL), "broken.tagger: not a tagger file"),
        ((broken, CONLL, "--workers", "2"), "cannot load the tagger: "),
        ((model, bad_input, "-o", tmp_path / "o.txt"), "bad.txt:2: "),
    ]:
        code, _, err = run(capsys, "tag", *argv)
        lines = [line for line in err.splitlines() if line.startswith("tagtool:")]
        assert code == 1 and len(lines) == 1 and message in lines[0], err
        assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "broken.tagger"]


# ---------------------------------------------------------------------------
# output in the input's own format, -o -

EWT = DATA / "ewt_test_slice.conllu"


@pytest.fixture(scope="module")
def upos_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("upos") / "upos.tagger"
    assert main(["train", str(EWT), "--learner", "perceptron", "--set", "max_iter=1", "-o", str(path)]) == 0
    return path


def _differing_fields(source: str, tagged: str) -> set[int]:
    old, new = source.split("\n"), tagged.split("\n")
    assert len(old) == len(new)
    fields = set()
    for a, b in zip(old, new):
        if a != b:
            fa, fb = a.split("\t"), b.split("\t")
            assert len(fa) == len(fb) == 10 and fa[0] == fb[0] and fa[0].isdigit()
            fields |= {i for i, (x, y) in enumerate(zip(fa, fb)) if x != y}
    return fields


def test_conllu_input_gives_conllu_on_stdout_with_dash(upos_model, capsys):
    code, stdout, err = run(capsys, "tag", upos_model, EWT, "-o", "-", "--batch-size", "9")
    assert code == 0 and "tagged 50 sentences, 623 tokens" in err
    assert stdout.count("\n24.1\tleft\t") == 1 and "\n6-7\twasn't\t" in stdout
    assert _differing_fields(EWT.read_text(encoding="utf-8"), stdout) <= {3}  # only UPOS
    assert not (pathlib.Path.cwd() / "-").exists()


def test_label_field_chooses_where_the_prediction_goes(upos_model, tmp_path, capsys):
    out = tmp_path / "out.conllu"
    code, _, _ = run(capsys, "tag", upos_model, EWT, "-o", out, "--label-field", "misc:Pred")
    assert code == 0
    assert _differing_fields(EWT.read_text(encoding="utf-8"), out.read_text(encoding="utf-8")) == {9}
    serial = out.read_bytes()
    code, _, _ = run(
        capsys, "tag", upos_model, EWT, "-o", out, "--label-field", "misc:Pred", "--workers", "2", "--batch-size", "7"
    )
    assert code == 0 and out.read_bytes() == serial
    with pytest.raises(SystemExit):
        main(["tag", str(upos_model), str(EWT), "--label-field", "nonsense"])
    assert "label_field must be one of" in capsys.readouterr().err


def test_label_field_on_import_train_and_export(tmp_path, capsys):
    project, out = tmp_path / "p.tagproj", tmp_path / "y.conllu"
    assert main(["import", str(EWT), "-p", str(project), "--label-field", "deprel"]) == 0
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert out.read_bytes() == EWT.read_bytes()  # deprel labels went back to DEPREL
    model = tmp_path / "m.tagger"
    assert (
        main(
            [
                "train",
                str(EWT),
                "--learner",
                "perceptron",
                "--set",
                "max_iter=1",
                "-o",
                str(model),
                "--label-field",
                "deprel",
            ]
        )
        == 0
    )
    from tagtool.tagger.model import load_tagger

    assert "nsubj" in load_tagger(model).labels and "NOUN" not in load_tagger(model).labels
    code, _, err = run(capsys, "export", project, "-o", tmp_path / "y.txt", "--label-field", "xpos")
    assert code == 1 and "needs CoNLL-U output" in err


# a chunker trained with POS, given a file without the POS column


def without_pos(tmp_path, keep_label=False):
    """CONLL with its POS column (col1) removed: tokens only, or tokens and chunk labels."""
    rows = [line.split(" ") for line in CONLL.read_text().splitlines()]
    path = tmp_path / ("nopos.txt" if keep_label else "plain.txt")
    path.write_text("\n".join(" ".join([r[0], r[2]] if keep_label else r[:1]) if r[0] else "" for r in rows) + "\n")
    return path


def test_tag_refuses_a_file_without_the_pos_column(model, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, _, err = run(capsys, "tag", model, without_pos(tmp_path), "-o", out)
    assert code == 1 and not out.exists()
    assert f"tagtool: error: {tmp_path / 'plain.txt'}: lacks the column(s) 'col1'" in err
    assert "expected loss: token accuracy" in err and "--allow-missing-columns" in err


def test_tag_allow_missing_columns_tags_with_a_warning(model, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, _, err = run(capsys, "tag", model, without_pos(tmp_path), "-o", out, "--allow-missing-columns")
    assert code == 0 and out.exists()
    assert "warning: " in err and "lacks the column(s) 'col1'" in err and "% without" in err


def test_evaluate_refuses_or_warns_on_gold_without_the_pos_column(model, tmp_path, capsys):
    gold = without_pos(tmp_path, keep_label=True)
    code, _, err = run(capsys, "evaluate", model, gold)
    assert code == 1 and f"{gold}: lacks the column(s) 'col1'" in err
    code, out, err = run(capsys, "evaluate", model, gold, "--allow-missing-columns")
    assert code == 0 and "token accuracy" in out and f"warning: {gold}: lacks the column(s) 'col1'" in err


def _replaced(appended: bytes) -> str:
    """``expected`` (prediction appended to ``w POS chunk``) with the prediction in column 2 instead."""
    lines = appended.decode("utf-8").split("\n")
    return "\n".join(" ".join(line.split(" ")[:2] + line.split(" ")[3:]) if line else "" for line in lines)


def test_output_column_names_the_column_the_prediction_replaces(model, expected, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, _, err = run(capsys, "tag", model, CONLL, "-o", out, "--output-column", "2")
    assert code == 0 and "warning" not in err
    assert out.read_text(encoding="utf-8") == _replaced(expected)


def test_tag_label_column_is_a_hidden_deprecated_name_of_output_column(model, expected, tmp_path, capsys):
    out = tmp_path / "out.txt"
    code, _, err = run(capsys, "tag", model, CONLL, "-o", out, "--label-column", "2")
    assert code == 0 and "warning: tag --label-column is deprecated: it is --output-column" in err
    assert out.read_text(encoding="utf-8") == _replaced(expected)
    with pytest.raises(SystemExit):
        main(["tag", "--help"])
    help_text = capsys.readouterr().out
    assert "--output-column" in help_text and "--label-column" not in help_text
