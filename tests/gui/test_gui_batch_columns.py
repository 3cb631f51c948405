"""Batch-tag in the app: a file lacking the tagger's input column is refused, or tagged with a warning when allowed."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QWidget

from tagtool.gui.batch_dialog import BatchTagDialog, BatchTagging
from tests.gui.helpers import DATA_DIR

TIMEOUT = 60_000


def tokens_only(tmp_path):
    """The CoNLL-2000 head with only its token column: no POS (col1) for the chunker."""
    lines = (DATA_DIR / "conll2000_train_head.txt").read_text().splitlines()[:60]
    path = tmp_path / "plain.txt"
    path.write_text("\n".join(line.split(" ")[0] for line in lines) + "\n")
    return path


def test_dialog_offers_the_allow_missing_columns_box_unchecked(qtbot, monkeypatch, tmp_path):
    dialog = BatchTagDialog(True, "perceptron")
    qtbot.addWidget(dialog)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path / "in.txt"), ""))
    dialog.browse_input()
    assert dialog.choice()["allow_missing_columns"] is False
    dialog.allow_missing.setChecked(True)
    assert dialog.choice()["allow_missing_columns"] is True


def test_batch_tagging_refuses_a_file_without_the_pos_column(qtbot, tagger, tmp_path):
    parent = QWidget()
    qtbot.addWidget(parent)
    batch = BatchTagging(parent)
    source, output = tokens_only(tmp_path), tmp_path / "tagged.conll"
    with qtbot.waitSignal(batch.failed, timeout=TIMEOUT) as failed:
        batch.start(tagger, source, output, "conll")
    message = failed.args[0]
    assert "plain.txt" in message and "'col1'" in message and "expected loss" in message
    assert not output.exists()
    batch.shutdown()


def test_batch_tagging_with_the_box_checked_tags_and_warns(qtbot, tagger, tmp_path):
    parent = QWidget()
    qtbot.addWidget(parent)
    batch = BatchTagging(parent)
    source, output = tokens_only(tmp_path), tmp_path / "tagged.conll"
    with qtbot.waitSignal(batch.done, timeout=TIMEOUT) as done:
        batch.start(tagger, source, output, "conll", allow_missing_columns=True)
    result = done.args[0]
    assert result.n_sentences > 0 and output.exists()
    assert len(result.warnings) == 1 and "'col1'" in result.warnings[0] and "without" in result.warnings[0]
    batch.shutdown()
