"""The dashboard's SVG charts (jobs.ops.dashboard.charts): axes in round units, time ticks on round
minutes, gaps where a reading is missing, legends inside the chart, text escaped."""

import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from jobs.ops.dashboard.charts import (
    CHAR,
    HEIGHT,
    LEGEND_ROW,
    WIDTH,
    Series,
    Unit,
    bar_chart,
    line_chart,
    time_ticks,
)

MINUTE = timedelta(minutes=1)
START = datetime(2026, 11, 30, 14, 37, tzinfo=UTC)
HOUR = [START + MINUTE * i for i in range(60)]


def test_a_duration_axis_counts_in_round_seconds_minutes_or_hours():
    unit = Unit("waiting", "seconds")

    assert unit.ticks(250) == [0, 120, 240, 360]
    assert [unit.format(t) for t in unit.ticks(250)] == ["0 s", "2 min", "4 min", "6 min"]
    assert [unit.format(t) for t in unit.ticks(40)] == ["0 s", "10 s", "20 s", "30 s", "40 s"]
    assert unit.format(5400) == "1.5 h"


def test_a_count_axis_steps_by_one_two_or_five_and_a_rate_may_be_fractional():
    assert Unit("jobs").ticks(37) == [0, 10, 20, 30, 40]
    assert Unit("jobs").ticks(1) == [0, 1]
    rate = Unit("documents per minute", "rate")
    assert [rate.format(t) for t in rate.ticks(0.13)] == ["0", "0.1", "0.2"]


def test_time_ticks_fall_on_round_minutes_within_the_window():
    ticks = time_ticks(HOUR, MINUTE)

    assert [f"{t:%H:%M}" for t in ticks] == ["14:40", "14:50", "15:00", "15:10", "15:20", "15:30"]


def test_a_missing_reading_breaks_the_line_instead_of_drawing_zero():
    values = [1, 2, None, 3, 4, None, 5] + [None] * 53

    svg = line_chart(HOUR, MINUTE, [Series("fast", values, "#000")], Unit("jobs"))

    assert svg.count("<polyline") == 2
    assert svg.count("<circle") == 1  # the lone 5


def test_bars_stack_and_every_slot_reads_out_its_values():
    fast, batch = [2] * 60, [3] * 60

    svg = bar_chart(
        HOUR, MINUTE, [Series("fast", fast, "#111"), Series("batch", batch, "#222")], Unit("jobs")
    )

    assert svg.count('fill="#111"') == svg.count('fill="#222"') == 60 + 1  # bars and legend
    assert "<title>14:37 UTC: fast 2 · batch 3</title>" in svg
    assert re.findall(r">(\d+)</text>", svg)[-4:] == ["0", "2", "4", "6"]  # above the stack of 5


def test_an_empty_chart_says_so():
    svg = bar_chart(HOUR, MINUTE, [Series("retries", [0] * 60, "#000")], Unit("jobs"), empty="none")

    assert re.search(r'class="ops-chart-empty">none<', svg)


def test_a_long_legend_wraps_below_the_caption_and_stays_inside():
    codes = [Series(f"error_code_number_{n}", [1] * 60, "#000") for n in range(6)]

    svg = bar_chart(HOUR, MINUTE, codes, Unit("jobs failed per minute"))

    entries = re.findall(
        r'<text x="([\d.]+)" y="([\d.]+)" text-anchor="start" class="">(\w+)<', svg
    )
    assert len(entries) == 6
    assert {float(y) for _, y, _ in entries} == {32.0, 49.0, 66.0}  # rows under the caption
    assert all(float(x) + len(label) * CHAR <= WIDTH for x, _, label in entries)
    # The rows add height rather than take it from the plot.
    assert f'viewBox="0 0 {WIDTH} {HEIGHT + 3 * LEGEND_ROW}"' in svg


def test_time_labels_that_would_overlap_are_left_out_and_their_ticks_kept():
    # 14:41 to 15:41, as the dashboard draws it a minute past 15:40: the tick at 15:40 is
    # at the right edge, its label pulled left into 15:30's.
    times = [START + MINUTE * (i + 4) for i in range(60)]
    svg = line_chart(times, MINUTE, [Series("fast", [1] * 60, "#000")], Unit("jobs"))

    labels = [
        (float(x), anchor)
        for x, anchor in re.findall(
            r'<text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)" class="">\d\d:\d\d<', svg
        )
    ]
    starts = [x - (5 * CHAR if anchor == "end" else 5 * CHAR / 2) for x, anchor in labels]
    assert all(b >= a + 5 * CHAR for a, b in pairwise(starts)), "no label on another"
    assert len(labels) < svg.count('class="axis"/>') - 1, "a tick kept without its label"


def test_labels_are_escaped():
    svg = line_chart(
        HOUR, MINUTE, [Series("<b>x</b>", [1] * 60, "#000")], Unit("a & b"), legend=True
    )

    assert "<b>" not in svg
    assert "&lt;b&gt;x&lt;/b&gt;" in svg
    assert 'aria-label="a &amp; b"' in svg
