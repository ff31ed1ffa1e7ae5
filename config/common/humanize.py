"""Durations and sizes the way a person reads them, one convention for the whole service:
durations in seconds, then "about" whole minutes or hours; sizes in binary units
(1 KiB = 1024 bytes), the units of the upload limits people set and are refused by."""

from __future__ import annotations

import math

SIZE_UNITS = ("KiB", "MiB", "GiB", "TiB")


def duration(seconds: float, *, decimals: int = 0) -> str:
    """ "4 s" (under a minute, rounded up, never 0; with `decimals`, "2.5 s"),
    "about 2 minutes" (under an hour and a half), "about 3 hours"."""
    if seconds < 60:
        if decimals:
            return f"{seconds:.{decimals}f} s"
        return f"{max(1, math.ceil(seconds))} s"
    if seconds < 90 * 60:
        minutes = math.ceil(seconds / 60)
        return f"about {minutes} minute{'s' if minutes > 1 else ''}"
    return f"about {round(seconds / 3600)} hours"


def size(count: float) -> str:
    """ "999 bytes", "19.5 KiB", "10 MiB" (one decimal, none when it is 0), up to TiB."""
    if count < 1024:
        return f"{count:.0f} bytes"
    for unit in SIZE_UNITS:
        count /= 1024
        if count < 1024 or unit == SIZE_UNITS[-1]:
            break
    return f"{count:.1f}".rstrip("0").rstrip(".") + f" {unit}"
