"""The one way the service writes durations and sizes for people."""

import pytest

from config.common.humanize import duration, size


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "1 s"),
        (0.2, "1 s"),
        (4, "4 s"),
        (45.1, "46 s"),
        (59.5, "60 s"),
        (60, "about 1 minute"),
        (61, "about 2 minutes"),
        (120, "about 2 minutes"),
        (89 * 60, "about 89 minutes"),
        (90 * 60, "about 2 hours"),
        (3 * 3600 + 600, "about 3 hours"),
    ],
)
def test_durations_are_seconds_then_about_minutes_then_about_hours(seconds, text):
    assert duration(seconds) == text


def test_a_measured_duration_keeps_its_decimals_under_a_minute():
    assert duration(2.5, decimals=1) == "2.5 s"
    assert duration(0.04, decimals=1) == "0.0 s"
    assert duration(75, decimals=1) == "about 2 minutes"


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1 KiB"),
        (1500, "1.5 KiB"),
        (20_000, "19.5 KiB"),
        (10 * 1024**2, "10 MiB"),
        (1_234_567, "1.2 MiB"),
        (5 * 10**9, "4.7 GiB"),
        (3 * 1024**4, "3 TiB"),
        (5000 * 1024**4, "5000 TiB"),
    ],
)
def test_sizes_are_in_binary_units(count, text):
    assert size(count) == text
