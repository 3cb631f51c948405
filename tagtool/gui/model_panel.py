"""The model panel: learner, its settings, train/cancel, progress and the last metrics."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tagtool.core.features.stacking import stack_text
from tagtool.errors import TagtoolError
from tagtool.gui.knowledge_dialog import KnowledgeBox
from tagtool.gui.knowledge_text import knowledge_rows
from tagtool.gui.model_loop import ModelLoop
from tagtool.gui.representations import RepresentationsBox
from tagtool.gui.run_plan import phase_progress
from tagtool.gui.settings_form import SettingsForm
from tagtool.gui.wheel_guard import guard_wheel
from tagtool.learn import available_learners


def _score(m: dict, key: str) -> str:
    """``80.3 ± 2.0 %`` (the SE when the metrics have one: older stored models have none)."""
    se = m.get(f"{key}_se")
    return f"{100 * m[key]:.1f} ± {100 * se:.1f} %" if se is not None else f"{100 * m[key]:.1f} %"


def cv_rows(m: dict) -> list[tuple[str, str]]:
    """Model-panel rows of cross-validation metrics (:mod:`tagtool.services.crossval`).

    F1 and accuracy with their bootstrap standard errors, for text the
    model has not seen (held-out blocks of sentences, features refitted per
    fold), and what each input column is worth: the held-out F1 without it,
    which is what a file lacking the column gets.
    """
    new_text = str(m.get("cv_protocol", "")).startswith("new-text")
    what = f"{m['cv_folds']}-fold, {'new text' if new_text else 'project text'}"
    rows = [(f"CV span F1 ({what})", _score(m, "f1")), ("CV accuracy", _score(m, "token_accuracy"))]
    for column, scores in (m.get("cv_without") or {}).items():
        name = "all input columns" if column == "*" else f"column {column}"
        rows.append((f"CV span F1 without {name}", f"{100 * scores['f1']:.1f} % (files to tag need it)"))
    if m.get("questions"):  # the queue's cold start or the question threshold (tagtool.services.question_threshold)
        rows.append(("Questions", str(m["questions"])))
    return rows


def export_note(tagger) -> str:
    """What the app measured for an exported tagger on new text, for the status bar after Export tagger."""
    m = tagger.metrics or {}
    parts = []
    if "f1" in m and "cv_folds" in m:
        parts.append(
            f"Expected span F1 on new text {_score(m, 'f1')} ({m['cv_folds']}-fold CV"
            f"{' of a full fit; this model is a quick retrain' if m.get('retrain') else ''})."
        )
    required = (tagger.input_columns or {}).get("required") or []
    if required:
        without = (m.get("cv_without") or {}).get(required[0] if len(required) == 1 else "*")
        cost = f" (without: {100 * without['f1']:.1f} %)" if without else ""
        parts.append(f"Files to tag need the column(s) {', '.join(required)}{cost}.")
    return " ".join(parts)


def _phase_text(report) -> str:
    """The panel's first status line: what runs, so the learner's "epoch 19/30" below it is not misread."""
    if report.phase == "cross-validation":
        return f"cross-validation, {report.step} (full settings; the suggestions are already updated)"
    return report.step


class ModelPanel(QWidget):
    """Controls of a :class:`ModelLoop` (the dock "Model")."""

    def __init__(self, loop: ModelLoop, parent: QWidget | None = None):
        super().__init__(parent)
        self.loop = loop
        self.learners = available_learners()
        settings_box = self._make_controls(loop)
        self._lay_out(loop, settings_box)
        self._connect(loop)
        self._phase = "training"
        self._elapsed = QTimer(self, interval=250)
        self._elapsed.timeout.connect(self._tick)
        self.select_learner(loop.learner_name, loop.params)

    def _make_controls(self, loop: ModelLoop) -> QGroupBox:
        """The learner, its settings (in the box returned), the run options, the buttons, bar and labels."""
        self.learner = QComboBox(self)
        for name, cls in self.learners.items():
            self.learner.addItem(name, name)
            self.learner.setItemData(self.learner.count() - 1, cls.description, Qt.ToolTipRole)
        self.form = SettingsForm(self)
        settings_box = QGroupBox("Settings", self)
        box_layout = QVBoxLayout(settings_box)
        scroll = QScrollArea(settings_box)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.NoFrame)
        scroll.setWidget(self.form)
        scroll.setMinimumHeight(120)
        box_layout.addWidget(scroll)
        self.auto = QCheckBox("Retrain after edits", self)
        self.auto.setChecked(loop.auto)
        self.warm = QCheckBox("Warm start from the last model", self)
        self.warm.setChecked(loop.warm_start)
        self.retrain = QSpinBox(self)
        self.retrain.setObjectName("retrain_epochs")
        self.retrain.setRange(0, 1000)
        self.retrain.setValue(loop.retrain_epochs)
        self.retrain.setSpecialValueText("full")
        self.retrain.setToolTip(
            "Passes over the data when the model retrains by itself after an edit (0: the learner's full "
            "settings).\nThat run starts from the last model (warm start), so a few passes (max_iter: epochs of a "
            "perceptron or SVM, iterations of a CRF, outer iterations of WD-PSL) bring the edit into the suggestions "
            "within about a second; Train now always fits with the full settings."
        )
        self.folds = QSpinBox(self)
        self.folds.setRange(0, 10)
        self.folds.setValue(loop.cv_folds)
        self.folds.setSpecialValueText("off")
        self.folds.setToolTip(
            "k-fold cross-validation over the fully labeled sentences after each run (k more trainings; off is "
            "fastest).\nIt estimates the F1 on new text: each fold holds out a contiguous block of sentences, "
            "trains on the others only (features refitted) with the full settings, and the ± is the bootstrap "
            "standard error over the held-out sentences."
        )
        guard_wheel(self.learner, self.retrain, self.folds)  # the panel scrolls: no wheel edits unfocused
        self.train_button = QPushButton("Train now", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.status = QLabel("No model yet.", self)
        self.status.setWordWrap(True)
        self.metrics = QLabel(self)
        self.metrics.setTextFormat(Qt.RichText)
        self.metrics.setWordWrap(True)
        self.metrics.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.metrics.setTextInteractionFlags(Qt.TextSelectableByMouse)
        return settings_box

    def _lay_out(self, loop: ModelLoop, settings_box: QGroupBox) -> None:
        """The controls in one scrolling column, the word representations' box above the settings."""
        top = QFormLayout()
        top.addRow("Learner", self.learner)
        top.addRow("Passes after an edit", self.retrain)
        top.addRow("Cross-validation", self.folds)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_button)
        buttons.addWidget(self.cancel_button)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.addLayout(top)
        layout.addWidget(self.auto)
        layout.addWidget(self.warm)
        layout.addLayout(buttons)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addWidget(self.metrics)
        self.representations = None
        if loop.representations is not None:
            self.representations = RepresentationsBox(loop.representations, self)
            layout.addWidget(self.representations)
        self.knowledge = KnowledgeBox(loop.knowledge, self) if loop.knowledge is not None else None
        if self.knowledge is not None:
            layout.addWidget(self.knowledge)
        layout.addWidget(settings_box, 1)
        outer = QScrollArea(self)
        outer.setWidgetResizable(True)
        outer.setFrameShape(QScrollArea.NoFrame)
        outer.setWidget(body)
        whole = QVBoxLayout(self)
        whole.setContentsMargins(0, 0, 0, 0)
        whole.addWidget(outer)

    def _connect(self, loop: ModelLoop) -> None:
        """The controls set the loop's options and start or stop its runs; its signals update the panel."""
        self.learner.currentIndexChanged.connect(self._learner_changed)
        self.form.changed.connect(self._settings_changed)
        self.auto.toggled.connect(lambda on: setattr(loop, "auto", on))
        self.warm.toggled.connect(lambda on: setattr(loop, "warm_start", on))
        self.retrain.valueChanged.connect(lambda n: setattr(loop, "retrain_epochs", n))
        self.folds.valueChanged.connect(lambda k: setattr(loop, "cv_folds", k))
        self.train_button.clicked.connect(self.train)
        self.cancel_button.clicked.connect(loop.cancel)
        loop.started.connect(self._started)
        loop.waiting.connect(self._waiting)
        loop.progress.connect(self._progress)
        loop.modelChanged.connect(self._model_changed)
        loop.finished.connect(self._finished)
        loop.failed.connect(self._failed)
        loop.cancelled.connect(self._cancelled)

    # ------------------------------------------------------------------

    def select_learner(self, name: str, params: dict | None = None) -> None:
        index = self.learner.findData(name)
        if index < 0:
            return
        self.learner.blockSignals(True)
        self.learner.setCurrentIndex(index)
        self.learner.blockSignals(False)
        self.form.set_learner(self.learners[name], params)
        self._apply()

    def _learner_changed(self) -> None:
        self.form.set_learner(self.learners[self.learner.currentData()])
        self._apply()

    def _settings_changed(self) -> None:
        self._apply()

    def _apply(self) -> bool:
        try:
            params = self.form.values()
        except TagtoolError as exc:
            self.status.setText(f"Setting not valid: {exc}")
            return False
        if self.loop.set_learner(self.learner.currentData(), params) and self.loop.result is not None:
            self.status.setText(
                "Learner settings changed: retraining with them…"
                if self.loop.auto
                else "Learner settings changed: Train now (Ctrl+T) makes a model with them."
            )
        return True

    def train(self) -> None:
        if self._apply():
            self.loop.train()

    # ------------------------------------------------------------------
    # run feedback

    def _started(self, name: str) -> None:
        self._phase = "quick retrain" if self.loop.run_overrides else "training"
        self.bar.setValue(0)
        self.cancel_button.setEnabled(True)
        self.status.setText(f"Training {name}{self._budget()}…")
        self._elapsed.start()

    def _waiting(self, message: str) -> None:
        self.cancel_button.setEnabled(True)
        self.status.setText(message)

    def _budget(self) -> str:
        """`` (retrain: max_iter=3)`` for a capped run after an edit, else nothing."""
        overrides = self.loop.run_overrides
        return f" (retrain: {', '.join(f'{k}={v}' for k, v in overrides.items())})" if overrides else ""

    def _tick(self) -> None:
        if self.loop.busy:
            self._bar_text()

    def _bar_text(self) -> None:
        seconds = time.perf_counter() - self.loop.run_started
        # The running phase and its own share done (the folds of a cross-validation together), and the time.
        self.bar.setFormat(f"{self._phase.capitalize()} %p % · {seconds:.0f} s")
        self.bar.setTextVisible(True)

    def _progress(self, fraction: float, message: str) -> None:
        seconds = time.perf_counter() - self.loop.run_started
        report = phase_progress(message)
        if report is None:
            self.bar.setValue(int(1000 * fraction))
            self.status.setText(f"{self.loop.learner_name}, {message} ({seconds:.1f} s)")
            return
        self._phase = report.phase
        self.bar.setValue(int(1000 * report.fraction))
        self._bar_text()
        self.status.setText(
            f"{self.loop.learner_name} — {_phase_text(report)}"
            + (f"\n{report.detail}" if report.detail else "")
            + f" ({seconds:.1f} s)"
        )

    def _idle(self, text: str) -> None:
        self._elapsed.stop()
        self.bar.setTextVisible(False)
        self.cancel_button.setEnabled(False)
        self.status.setText(text)

    def _model_changed(self, result) -> None:
        self.show_metrics(result)
        if self.loop.busy:
            self.status.setText(f"Suggestions updated; cross-validating {result.learner}…")

    def _finished(self, result) -> None:
        self.bar.setValue(1000)
        self._idle(f"Model ready ({result.learner}).")
        self.show_metrics(result)

    def _failed(self, message: str, _traceback: str) -> None:
        self._idle(f"Training failed: {message}")

    def _cancelled(self) -> None:
        self.bar.setValue(0)
        self._idle("Training cancelled; the previous model stays in use.")

    def show_metrics(self, result) -> None:
        m = result.metrics
        rows = [("Learner", result.learner)]
        counts = m.get("sentences")
        if counts:
            rows.append(
                (
                    "Trained on",
                    f"{counts.get('full', 0)} full · {counts.get('partial', 0)} partial · "
                    f"{counts.get('none', 0)} unlabeled sentences",
                )
            )
        if "train_seconds" in m:
            rows.append(("Training time", f"{m['train_seconds']:.2f} s"))
        extractor = result.tagger.extractor
        rows.append(
            (
                "Features",
                # a break after each "+": a long stack of sets wraps in the narrow panel
                stack_text(str(extractor.feature_set)).replace("+", "+\u200b")
                + (" (with word representations)" if extractor.uses_representations else ""),
            )
        )
        rows.extend(knowledge_rows(extractor))
        if m.get("retrain"):
            passes = ", ".join(f"{k}={v}" for k, v in m["retrain"].items())
            rows.append(("Retrained after an edit", f"warm start, {passes}"))
        if "token_accuracy" in m:
            rows.extend(cv_rows(m))
        elif "cv" in m:
            rows.append(("Cross-validation", str(m["cv"])))
        notes = result.tagger.model.info.get("notes") or []
        if m.get("retrain") and "f1" in m:
            notes = ["The cross-validation measures a full fit (Train now); this model is a quick retrain.", *notes]
        body = "".join(
            f"<tr><td style='padding-right:8px'>{html.escape(k)}</td><td><b>{html.escape(v)}</b></td></tr>"
            for k, v in rows
        )
        extra = "".join(f"<br><small>{html.escape(n)}</small>" for n in notes[:3])
        self.metrics.setText(f"<table>{body}</table>{extra}")
