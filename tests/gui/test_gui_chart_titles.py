"""A bar chart's title wraps to the chart's width: in a narrow dock (a 1280 px window) the statistics panel's
long titles show whole, on two lines, above the bars."""

from __future__ import annotations

from PySide6.QtGui import QFontMetricsF

from tagtool.gui.charts import BarChart


def test_a_long_title_wraps_and_the_chart_grows_to_hold_it(qtbot):
    chart = BarChart("Annotation speed: tokens per minute by action (gaps over 60 s count as 60 s)")
    qtbot.addWidget(chart)
    chart.show()  # a hidden widget gets its resize events when shown
    chart.set_items([("full", 12.0, "#3a3", "12"), ("partial", 3.0, "#aa3", "3")])
    row = QFontMetricsF(chart.font()).height() + 4
    chart.resize(2000, chart.height())
    one_line = chart.height()
    assert one_line == int(row + 2 * row + 8)
    chart.resize(272, chart.height())
    assert chart.height() >= one_line + row - 4  # a second line of title
    chart.resize(2000, chart.height())
    assert chart.height() == one_line
