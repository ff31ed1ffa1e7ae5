"""Small SVG charts over time for the ops dashboard, rendered on the server: lines or
stacked bars, with a y axis in the chart's unit (counts, rates or durations), time ticks
on round minutes or hours, a legend, and a tooltip per time slot. No JavaScript and no
chart library: the markup is the chart, and it scales with its box (viewBox).

The drawing is as narrow as a phone's column (360 units for about 320 px), so its 12-unit
labels are drawn at 10 px or more there, and at 12 to 14 px in a wide screen's three
columns: a wider drawing would shrink its labels below reading on a phone."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 360, 196  # the height with one row of caption and legend; more rows add
LEFT, RIGHT, BOTTOM = 58, 10, 26
TOP, LEGEND_ROW = 32, 17  # the plot's top under one row of caption and legend
CHAR = 7.0  # units per character of the 12-unit labels, a generous average for system-ui
MAX_TIME_TICKS = 6  # "HH:MM" labels that keep a gap between them in WIDTH
TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720)  # minutes between time ticks
DURATION_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600)


@dataclass(frozen=True)
class Series:
    label: str
    values: Sequence[float | None]  # one per time slot; None: no reading (a gap)
    color: str
    dashed: bool = False


@dataclass(frozen=True)
class Unit:
    """What the y axis counts: its caption, and how a value is written."""

    caption: str
    kind: str = "count"  # "count" (whole), "rate" (may be fractional) or "seconds"

    def ticks(self, top: float) -> list[float]:
        if self.kind == "seconds":
            step = next((s for s in DURATION_STEPS if top / s <= 4), _nice(top / 4, 3600))
        else:
            step = _nice(top / 4, 1 if self.kind == "count" else 0.1)
        return [step * i for i in range(math.ceil(top / step - 1e-9) + 1)]

    def format(self, value: float) -> str:
        if self.kind == "seconds":
            return short_duration(value)
        if abs(value) >= 10_000:
            return f"{value / 1000:.0f}k"
        if self.kind == "rate" and value != int(value):
            return f"{value:.2f}".rstrip("0").rstrip(".")
        return f"{value:.0f}"


def _nice(raw: float, smallest: float) -> float:
    """The least of 1, 2, 5 x 10^n (and at least `smallest`) that is >= raw."""
    if raw <= smallest:
        return smallest
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def short_duration(seconds: float) -> str:
    """Axis labels: "45 s", "2 min", "1.5 h"."""
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 1 or seconds == 0 else f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f}".rstrip("0").rstrip(".") + " min"
    return f"{seconds / 3600:.1f}".rstrip("0").rstrip(".") + " h"


def line_chart(
    times: Sequence[datetime],
    step: timedelta,
    series: Sequence[Series],
    unit: Unit,
    *,
    empty: str = "nothing yet",
    legend: bool | None = None,
) -> SafeString:
    """Lines through the slots' middles, broken where a reading is missing. The legend
    shows by default when there is more than one series."""
    return _Chart(times, step, series, unit, empty, legend).render(bars=False)


def bar_chart(
    times: Sequence[datetime],
    step: timedelta,
    series: Sequence[Series],
    unit: Unit,
    *,
    empty: str = "nothing yet",
    legend: bool | None = None,
) -> SafeString:
    """Bars stacked in the order of `series`, bottom first."""
    return _Chart(times, step, series, unit, empty, legend).render(bars=True)


class _Chart:
    def __init__(
        self,
        times: Sequence[datetime],
        step: timedelta,
        series: Sequence[Series],
        unit: Unit,
        empty: str,
        legend: bool | None,
    ) -> None:
        self.times, self.step, self.series, self.unit, self.empty = times, step, series, unit, empty
        # One series needs no legend by default: the chart's caption names it.
        shown = len(series) > 1 if legend is None else legend
        self.legend = self._lay_out_legend() if shown and series else []
        rows = 1 + max((y - 15) // LEGEND_ROW for _, _, y in self.legend) if self.legend else 1
        # Legend rows below the caption add height, so every plot is as tall.
        self.top = TOP + LEGEND_ROW * (rows - 1)
        self.height = HEIGHT + LEGEND_ROW * (rows - 1)
        self.slot = (WIDTH - LEFT - RIGHT) / max(1, len(times))

    def _lay_out_legend(self) -> list[tuple[Series, float, int]]:
        """(series, x, baseline) of each legend entry: on the caption's row, flush right,
        when all fit there; else on rows of their own below it, wrapping as needed."""
        widths = [len(s.label) * CHAR + 30 for s in self.series]
        caption = len(self.unit.caption) * CHAR + 24
        if caption + sum(widths) <= WIDTH - RIGHT:
            x = WIDTH - RIGHT - sum(widths)
            placed = []
            for s, width in zip(self.series, widths, strict=True):
                placed.append((s, x, 15))
                x += width
            return placed
        placed, x, y = [], 4.0, 15 + LEGEND_ROW
        for s, width in zip(self.series, widths, strict=True):
            if x > 4 and x + width > WIDTH - RIGHT:
                x, y = 4.0, y + LEGEND_ROW
            placed.append((s, x, y))
            x += width
        return placed

    def render(self, *, bars: bool) -> SafeString:
        highest = max(self._stack_tops() if bars else self._values(), default=0.0)
        self.ticks = self.unit.ticks(highest or 1)
        self.ymax = self.ticks[-1]
        parts = [*self._frame(), *(self._bars() if bars else self._lines())]
        if not highest:
            parts.append(
                self._text(
                    (LEFT + WIDTH - RIGHT) / 2,
                    self._y(self.ymax / 2),
                    self.empty,
                    "middle",
                    "ops-chart-empty",
                )
            )
        parts += [*self._legend(bars), *self._tooltips()]
        label = escape(self.unit.caption)
        # Every text in `parts` went through escape(); numbers and colours are ours.
        return mark_safe(
            f'<svg class="ops-chart" viewBox="0 0 {WIDTH} {self.height}" role="img" '
            f'aria-label="{label}" xmlns="http://www.w3.org/2000/svg">' + "".join(parts) + "</svg>"
        )

    # -- geometry
    def _x(self, slot: float) -> float:
        return LEFT + slot * self.slot

    def _y(self, value: float) -> float:
        bottom = self.height - BOTTOM
        return bottom - (value / self.ymax) * (bottom - self.top)

    def _values(self) -> list[float]:
        return [v for s in self.series for v in s.values if v is not None]

    def _stack_tops(self) -> list[float]:
        return [sum(s.values[i] or 0 for s in self.series) for i in range(len(self.times))]

    # -- pieces
    def _text(self, x: float, y: float, text: str, anchor: str, cls: str = "") -> str:
        return (
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{cls}">'
            f"{escape(text)}</text>"
        )

    def _frame(self) -> list[str]:
        bottom, right = self.height - BOTTOM, WIDTH - RIGHT
        parts = [self._text(4, 15, self.unit.caption, "start", "ops-chart-unit")]
        for value in self.ticks:
            y = self._y(value)
            parts.append(f'<line x1="{LEFT}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
            parts.append(self._text(LEFT - 6, y + 4, self.unit.format(value), "end"))
        parts.append(f'<line x1="{LEFT}" x2="{right}" y1="{bottom}" y2="{bottom}" class="axis"/>')
        label = 5 * CHAR  # "HH:MM"
        last_end = -math.inf
        for when in time_ticks(self.times, self.step):
            x = self._x((when - self.times[0]) / self.step)
            parts.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}" class="axis"/>'
            )
            # The last label is pulled left to stay inside; one that would then run into
            # its neighbour is left out (its tick stays).
            anchor = "end" if x > right - label / 2 else "middle"
            start = x - label if anchor == "end" else x - label / 2
            if start < last_end + 4:
                continue
            parts.append(self._text(x, self.height - 7, f"{when:%H:%M}", anchor))
            last_end = start + label
        return parts

    def _lines(self) -> list[str]:
        parts = []
        for s in self.series:
            dash = ' stroke-dasharray="5 3"' if s.dashed else ""
            for run in _runs(s.values):
                points = [(self._x(i + 0.5), self._y(v)) for i, v in run]
                if len(points) == 1:
                    ((x, y),) = points
                    parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{s.color}"/>')
                    continue
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
                parts.append(
                    f'<polyline points="{path}" fill="none" stroke="{s.color}" '
                    f'stroke-width="2" stroke-linejoin="round"{dash}/>'
                )
        return parts

    def _bars(self) -> list[str]:
        parts, width = [], max(1.0, self.slot * 0.78)
        for i in range(len(self.times)):
            base = 0.0
            for s in self.series:
                value = s.values[i] or 0
                if value <= 0:
                    continue
                top, bottom = self._y(base + value), self._y(base)
                parts.append(
                    f'<rect x="{self._x(i) + (self.slot - width) / 2:.1f}" y="{top:.1f}" '
                    f'width="{width:.1f}" height="{max(bottom - top, 0.5):.1f}" fill="{s.color}"/>'
                )
                base += value
        return parts

    def _legend(self, bars: bool) -> list[str]:
        parts = []
        for s, x, y in self.legend:
            if bars:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y - 9}" width="14" height="10" fill="{s.color}"/>'
                )
            else:
                dash = ' stroke-dasharray="5 3"' if s.dashed else ""
                parts.append(
                    f'<line x1="{x:.1f}" x2="{x + 16:.1f}" y1="{y - 4}" y2="{y - 4}" '
                    f'stroke="{s.color}" stroke-width="2.5"{dash}/>'
                )
            parts.append(self._text(x + 22, y, s.label, "start"))
        return parts

    def _tooltips(self) -> list[str]:
        """A transparent column per slot whose title reads out its values on hover."""
        parts, height = [], self.height - BOTTOM - self.top
        for i, when in enumerate(self.times):
            readings = " · ".join(f"{s.label} {self._reading(s.values[i])}" for s in self.series)
            parts.append(
                f'<rect x="{self._x(i):.1f}" y="{self.top}" width="{self.slot:.1f}" '
                f'height="{height}" class="slot"><title>{when:%H:%M} UTC: '
                f"{escape(readings)}</title></rect>"
            )
        return parts

    def _reading(self, value: float | None) -> str:
        return "none" if value is None else self.unit.format(value)


def _runs(values: Sequence[float | None]) -> list[list[tuple[int, float]]]:
    """The stretches of consecutive readings, split where one is missing."""
    runs: list[list[tuple[int, float]]] = [[]]
    for i, value in enumerate(values):
        if value is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((i, value))
    return [run for run in runs if run]


def time_ticks(times: Sequence[datetime], step: timedelta) -> list[datetime]:
    """Round times (on the minute, 10 minutes, hours...) within the chart, at most
    MAX_TIME_TICKS."""
    if not times:
        return []
    start, end = times[0], times[-1] + step
    span_minutes = (end - start) / timedelta(minutes=1)
    every = next((m for m in TIME_STEPS if span_minutes / m <= MAX_TIME_TICKS), TIME_STEPS[-1])
    first = start.replace(second=0, microsecond=0)
    first += timedelta(minutes=-(first.hour * 60 + first.minute) % every)
    ticks, when = [], first
    while when <= end:
        if when >= start:
            ticks.append(when)
        when += timedelta(minutes=every)
    return ticks
