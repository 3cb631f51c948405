"""Batch-tag in the app: plain text gets the tokenizer, sentence splitting and document unit, as ``tagtool tag``
does."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from tagtool.gui.batch_dialog import BatchTagDialog, BatchTagging
from tests.gui.helpers import DATA_DIR

TIMEOUT = 60_000
TEXT = "Mr. Smith went to Washington. He stayed there, happily.\nI don't know!\n"


def _dialog(qtbot, monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    dialog = BatchTagDialog(True, "perceptron")
    qtbot.addWidget(dialog)
    dialog.browse_input()
    return dialog


def _visible(dialog, widget) -> bool:
    return dialog.form.isRowVisible(widget) and not widget.isHidden()


def test_the_text_choices_appear_for_plain_text_and_not_for_conll(qtbot, monkeypatch, tmp_path):
    raw = tmp_path / "raw.txt"
    raw.write_text(TEXT)
    dialog = _dialog(qtbot, monkeypatch, raw)
    options = dialog.text_options
    assert all(_visible(dialog, w) for w in (options.tokenizer, options.split, options.document))
    assert not _visible(dialog, options.annotator)
    assert dialog.choice()["reader_options"] == {
        "tokenizer": "default",
        "sentence_split": True,
        "document_unit": "auto",
    }
    dialog.input.setText(str(DATA_DIR / "conll2000_train_head.txt"))
    assert not any(_visible(dialog, w) for w in (options.tokenizer, options.split, options.document))
    assert dialog.choice()["reader_options"] == {}  # nothing a CoNLL file would refuse


def _tag(qtbot, dialog, tagger) -> list[list[str]]:
    """Tag as File › Batch-tag does; the output's sentences as their tokens."""
    choice = dialog.choice()
    batch = BatchTagging(dialog)
    with qtbot.waitSignal(batch.done, timeout=TIMEOUT):  # a tokens-only input for a chunker read with POS
        batch.start(
            tagger,
            choice["input"],
            choice["output"],
            choice["format"],
            choice["label_field"],
            True,
            choice["reader_options"],
        )
    batch.shutdown()
    lines = [line for line in choice["output"].read_text(encoding="utf-8").splitlines() if line.strip()]
    return [[item.rsplit("/", 1)[0] for item in line.split(" ")] for line in lines]


def test_whitespace_without_splitting_tags_one_sentence_a_line(qtbot, monkeypatch, tmp_path, tagger):
    raw = tmp_path / "raw.txt"
    raw.write_text(TEXT)
    dialog = _dialog(qtbot, monkeypatch, raw)
    options = dialog.text_options
    options.tokenizer.setCurrentIndex(options.tokenizer.findData("whitespace"))
    options.split.setChecked(False)
    assert _tag(qtbot, dialog, tagger) == [line.split() for line in TEXT.splitlines()]


def test_the_defaults_tag_tokenised_sentences(qtbot, monkeypatch, tmp_path, tagger):
    raw = tmp_path / "raw.txt"
    raw.write_text(TEXT)
    dialog = _dialog(qtbot, monkeypatch, raw)
    sentences = _tag(qtbot, dialog, tagger)
    assert sentences[0] == ["Mr.", "Smith", "went", "to", "Washington", "."]
    assert sentences[1] == ["He", "stayed", "there", ",", "happily", "."]
    assert len(sentences) == 3 and sentences[2][-1] == "!"
