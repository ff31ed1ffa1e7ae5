"""A process killed as it made its metrics file leaves it empty: /metrics still answers."""

from pathlib import Path

from django.conf import settings
from django.test import Client


def test_an_empty_metrics_file_does_not_break_the_scrape(db):
    empty = Path(settings.PROMETHEUS_MULTIPROC_DIR) / "histogram_999999.db"
    empty.write_bytes(b"")
    try:
        answer = Client().get("/metrics")
    finally:
        empty.unlink()

    assert answer.status_code == 200
    assert b"ingest_" in answer.content
