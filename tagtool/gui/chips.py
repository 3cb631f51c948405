"""Token chips: their sizes, the flow layout that wraps them, and their painting.

A chip has two bands: the token on top and its annotation below.

* full label: the whole chip in the label's colour, the label's name below;
* partial label: the candidates side by side in the lower band, each a
  segment in its own colour with its name (label-set order);
* no label: a neutral chip in the palette's colours, the lower band empty
  or showing the model's suggestion, faded and in italics.

Model marks (docs/design.md#guidance): the token band of a token not fully labeled is
tinted amber in proportion to the model's uncertainty; a dotted red line
under the token marks view disagreement; under each candidate of a partial
token a thin bar as long as its WD-PSL confidence (every bar of a chip on one
scale, whatever its segment's width), and the model's best candidate is
outlined.

String-match suggestions (:mod:`tagtool.gui.match_hints`) are painted as
the model's, their band outlined with a teal dashed line; where their
evidence conflicts the band shows the candidate set ("B-ORG | B-PER").

Token questions (the token-question mode): a token the model asks about
gets a violet outline and a "?" badge on its corner (the chips of a span question are joined by a
violet bar: one question); where the model is
torn between two labels its lower band shows both ("B-ORG | B-PER", the
candidate set Shift+Space gives) instead of the one suggestion.

The focused token gets an outline in the highlight colour; every selected
token gets a bar under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen

from tagtool.gui.hints import TokenHint
from tagtool.gui.style import LabelStyle

PAD_X, PAD_Y = 8.0, 3.0
GAP_X, GAP_Y = 6.0, 12.0
MARGIN = 10.0
SEGMENT_PAD = 4.0
RADIUS = 5.0
#: Tint of an uncertain token (alpha grows with the uncertainty).
UNCERTAINTY_COLOR = "#f0a030"
#: Dotted line of view disagreement.
DISAGREEMENT_COLOR = "#d62728"
#: Dashed outline of a string-match suggestion (a span labeled elsewhere, a dictionary or a pattern).
MATCH_COLOR = "#0f9d8a"
#: Outline and badge of a token question (readable on light and dark palettes).
QUESTION_COLOR = "#8b5cf6"
BADGE_RADIUS = 6.5
#: Width a question's badge takes at the right of its token band.
BADGE_ROOM = 2 * BADGE_RADIUS + 2


@dataclass(frozen=True)
class ChipState:
    focused: bool = False
    selected: bool = False


class ChipPainter:
    """Measures, lays out and paints chips with one font and one label style."""

    def __init__(self, font: QFont, style: LabelStyle, palette: QPalette):
        self.font = QFont(font)
        self.small = QFont(font)
        self.small.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
        self.style, self.palette = style, palette
        self.fm, self.sfm = QFontMetricsF(self.font), QFontMetricsF(self.small)
        self.token_band = self.fm.height() + 2 * PAD_Y
        self.label_band = self.sfm.height() + 2 * PAD_Y
        self.height = self.token_band + self.label_band

    # ------------------------------------------------------------------
    # geometry

    def ordered(self, ann: frozenset) -> list[str]:
        names = self.style.names
        return sorted(ann, key=lambda n: names.index(n) if n in names else len(names))

    def _segment_widths(self, ann: frozenset) -> list[float]:
        return [self.sfm.horizontalAdvance(n) + 2 * SEGMENT_PAD for n in self.ordered(ann)]

    def chip_width(self, token: str, ann: frozenset, hint: TokenHint | None = None) -> float:
        width = self.fm.horizontalAdvance(token) + 2 * PAD_X
        if len(ann) == 1:
            width = max(width, self.sfm.horizontalAdvance(next(iter(ann))) + 2 * PAD_X)
        elif ann:
            width = max(width, sum(self._segment_widths(ann)))
        elif _shown_suggestion(hint):
            width = max(width, self.sfm.horizontalAdvance(_shown_suggestion(hint)) + 2 * PAD_X)
        if hint is not None and hint.question:
            width = max(width, self.fm.horizontalAdvance(token) + 2 * PAD_X + BADGE_ROOM)  # the badge beside the token
        return max(width, 2 * RADIUS + 8)

    def layout(
        self,
        tokens: Sequence[str],
        annotations: Sequence[frozenset],
        width: float,
        hints=None,
    ) -> tuple[list[QRectF], float]:
        """Chip rectangles wrapped to ``width``, and the total height needed."""
        rects, x, y = [], MARGIN, MARGIN
        for t, (token, ann) in enumerate(zip(tokens, annotations)):
            w = self.chip_width(token, ann, hints.get(t) if hints else None)
            if x > MARGIN and x + w > width - MARGIN:
                x, y = MARGIN, y + self.height + GAP_Y
            rects.append(QRectF(x, y, w, self.height))
            x += w + GAP_X
        return rects, y + self.height + MARGIN + 4

    # ------------------------------------------------------------------
    # painting

    def paint(
        self,
        p: QPainter,
        rect: QRectF,
        token: str,
        ann: frozenset,
        state: ChipState,
        hint: TokenHint | None = None,
    ) -> None:
        pal = self.palette
        text_color = pal.color(QPalette.Text)
        border = pal.color(QPalette.Mid)
        p.setPen(Qt.NoPen)
        if len(ann) == 1:
            label = next(iter(ann))
            p.setBrush(self.style.color(label))
            p.drawRoundedRect(rect, RADIUS, RADIUS)
            text_color = self.style.text_color(label)
            self._text(p, self._label_rect(rect), label, text_color, self.small)
            border = self.style.color(label).darker(140)
        else:
            p.setBrush(pal.color(QPalette.AlternateBase if not ann else QPalette.Base))
            p.drawRoundedRect(rect, RADIUS, RADIUS)
            if hint is not None and hint.uncertainty:
                self._paint_uncertainty(p, rect, hint.uncertainty)
            if ann:
                self._paint_candidates(p, rect, ann, hint)
            elif _shown_suggestion(hint):
                self._paint_suggestion(p, rect, hint)
        asking = hint is not None and hint.question
        token_rect = self._token_rect(rect).adjusted(0, 0, -BADGE_ROOM if asking else 0, 0)
        self._text(p, token_rect, token, text_color, self.font)
        p.setBrush(Qt.NoBrush)
        if asking:
            p.setPen(QPen(QColor(QUESTION_COLOR), 2.0))
        else:
            p.setPen(QPen(border, 1.0, Qt.SolidLine if ann else Qt.DashLine))
        p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
        if hint is not None and hint.disagreement:
            self._paint_disagreement(p, rect)
        if asking:
            self._paint_badge(p, rect)
        self._paint_state(p, rect, state)

    def _token_rect(self, rect: QRectF) -> QRectF:
        return QRectF(rect.left(), rect.top(), rect.width(), self.token_band)

    def _label_rect(self, rect: QRectF) -> QRectF:
        return QRectF(rect.left(), rect.top() + self.token_band, rect.width(), self.label_band)

    def _text(self, p: QPainter, rect: QRectF, text: str, color: QColor, font: QFont) -> None:
        p.setFont(font)
        p.setPen(color)
        p.drawText(rect, Qt.AlignCenter, text)

    def candidate_geometry(
        self, rect: QRectF, ann, hint: TokenHint | None = None
    ) -> list[tuple[str, QRectF, QRectF | None]]:
        """Each candidate's segment in the lower band and its WD-PSL confidence bar (None without one).

        Segments are as wide as their names, so a bar filling its own segment
        made a less likely "B-MISC" longer than a likelier "O"; every bar is measured
        against one width, the narrowest segment's, so the longer bar is the
        higher confidence.
        """
        band = self._label_rect(rect).adjusted(1, 0, -1, -1)
        names, widths = self.ordered(ann), self._segment_widths(ann)
        scale = band.width() / sum(widths)
        full = min(widths) * scale - 4  # a bar at full confidence: fits in every segment
        confidences = hint.candidate_confidence if hint is not None else {}
        out, x = [], band.left()
        for name, w in zip(names, widths):
            seg = QRectF(x, band.top(), w * scale, band.height())
            bar = None
            if name in confidences:
                share = max(0.0, min(1.0, confidences[name]))
                bar = QRectF(seg.left() + 2, seg.bottom() - 3.5, full * share, 3.0)
            out.append((name, seg, bar))
            x += seg.width()
        return out

    def _paint_candidates(self, p: QPainter, rect: QRectF, ann, hint: TokenHint | None) -> None:
        p.save()
        clip = QRectF(rect).adjusted(1, 1, -1, -1)
        p.setClipRect(self._label_rect(rect).adjusted(1, 0, -1, -1))
        for name, seg, bar in self.candidate_geometry(rect, ann, hint):
            p.setPen(Qt.NoPen)
            p.setBrush(self.style.color(name))
            p.drawRoundedRect(seg.intersected(clip), 3, 3)
            self._text(p, seg, name, self.style.text_color(name), self.small)
            if bar is not None:  # WD-PSL: a bar as long as the candidate's confidence
                p.setBrush(self.style.text_color(name))
                p.drawRect(bar)
            if hint is not None and hint.suggestion == name:  # the model's pick
                p.setBrush(Qt.NoBrush)
                p.setPen(QPen(self.palette.color(QPalette.Text), 1.5))
                p.drawRoundedRect(seg.intersected(clip).adjusted(1, 1, -1, -1), 3, 3)
        p.restore()

    def _paint_uncertainty(self, p: QPainter, rect: QRectF, uncertainty: float) -> None:
        color = QColor(UNCERTAINTY_COLOR)
        color.setAlphaF(0.6 * max(0.0, min(1.0, uncertainty)))
        band = self._token_rect(rect).adjusted(1, 1, -1, 0)
        p.save()
        p.setPen(Qt.NoPen)
        p.setBrush(color)
        p.drawRoundedRect(band, RADIUS - 1, RADIUS - 1)
        p.restore()

    def _paint_suggestion(self, p: QPainter, rect: QRectF, hint: TokenHint) -> None:
        band = self._label_rect(rect).adjusted(2, 0, -2, -2)
        p.setPen(Qt.NoPen)
        names = suggested_names(hint)
        x = band.left()
        for name in names:  # the suggestion, or the labels the model is torn between (or a match's set), side by side
            part = QRectF(x, band.top(), band.width() / len(names), band.height())
            color = QColor(self.style.color(name))
            color.setAlphaF(0.35)
            p.setBrush(color)
            p.drawRoundedRect(part.adjusted(0, 0, -1 if len(names) > 1 else 0, 0), 3, 3)
            x += part.width()
        if hint.source:  # a string match: outlined, so it stands apart from the model's own suggestions
            p.setBrush(Qt.NoBrush)
            p.setPen(QPen(QColor(MATCH_COLOR), 1.5, Qt.DashLine))
            p.drawRoundedRect(band.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        italic = QFont(self.small)
        italic.setItalic(True)
        text = QColor(self.palette.color(QPalette.Text))
        text.setAlphaF(0.7)
        self._text(p, band, " | ".join(names), text, italic)

    def _paint_badge(self, p: QPainter, rect: QRectF) -> None:
        """The token question's "?" on the chip's upper right corner."""
        band = self._token_rect(rect)
        centre = QPointF(rect.right() - PAD_X / 2 - BADGE_RADIUS, band.center().y())
        p.save()
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(QUESTION_COLOR))
        p.drawEllipse(centre, BADGE_RADIUS, BADGE_RADIUS)
        font = QFont(self.small)
        font.setBold(True)
        disc = QRectF(centre.x() - BADGE_RADIUS, centre.y() - BADGE_RADIUS, 2 * BADGE_RADIUS, 2 * BADGE_RADIUS)
        self._text(p, disc, "?", QColor("white"), font)
        p.restore()

    def _paint_disagreement(self, p: QPainter, rect: QRectF) -> None:
        y = rect.top() + self.token_band - 3
        p.setPen(QPen(QColor(DISAGREEMENT_COLOR), 2.0, Qt.DotLine))
        p.drawLine(QPointF(rect.left() + PAD_X, y), QPointF(rect.right() - PAD_X, y))

    def _paint_state(self, p: QPainter, rect: QRectF, state: ChipState) -> None:
        highlight = self.palette.color(QPalette.Highlight)
        if state.selected or state.focused:
            p.setPen(Qt.NoPen)
            p.setBrush(highlight)
            p.drawRoundedRect(QRectF(rect.left(), rect.bottom() + 3, rect.width(), 4), 2, 2)
        if state.focused:
            p.setBrush(Qt.NoBrush)
            p.setPen(QPen(highlight, 2.5))
            p.drawRoundedRect(rect.adjusted(-2, -2, 2, 2), RADIUS + 2, RADIUS + 2)


def suggested_names(hint: TokenHint) -> tuple[str, ...]:
    """The labels an unlabeled token's lower band shows: a string match's candidate set, the pair a
    question is torn between, or the one suggestion."""
    if hint.candidates:
        return hint.candidates
    if hint.question and hint.pair:
        return hint.pair
    return (hint.suggestion,) if hint.suggestion else ()


def _shown_suggestion(hint: TokenHint | None) -> str | None:
    """The text of an unlabeled token's lower band: the suggestion, "A | B" where a question is torn
    or a string match's evidence conflicts."""
    names = suggested_names(hint) if hint is not None else ()
    return " | ".join(names) if names else None


def paint_span_links(p: QPainter, rects: Sequence[QRectF], asked: Sequence[int]) -> None:
    """Join the chips of each span question (:mod:`tagtool.gui.span_plan`): a bar in the question colour across
    the gap between two asked chips side by side, so that the span reads as one question."""
    marked = set(asked)
    p.save()
    p.setPen(QPen(QColor(QUESTION_COLOR), 3.0))
    for t in sorted(marked):
        if t + 1 in marked and t + 1 < len(rects) and abs(rects[t].top() - rects[t + 1].top()) < 1.0:
            y = rects[t].top() + rects[t].height() / 3
            p.drawLine(QPointF(rects[t].right(), y), QPointF(rects[t + 1].left(), y))
    p.restore()
