"""Erasing the large account while another account uploads: how long the erasure takes
(`manage.py erase_user`, a process of its own as an operator runs it), and the other
account's upload acknowledgements before and during it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from tests.bench.report import percentile
from tests.bench.scale.writes import pdf_file
from tests.bench.services import manage

BEFORE = 60


@dataclass
class Erasure:
    seconds: float
    documents: int
    before_ms: list[float]
    during_ms: list[float]

    def row(self, which: str) -> tuple[float, float, float]:
        times = self.before_ms if which == "before" else self.during_ms
        return len(times), percentile(times, 50), percentile(times, 95)


def erase_while_uploading(env: dict[str, str], username: str, uploader: str) -> Erasure:
    """Run in a process whose Django settings point at the same database as env."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from documents.models import Document
    from tests.factories import make_pdf

    users = get_user_model().objects
    documents = Document.objects.filter(owner__username=username).count()
    client = APIClient(HTTP_HOST="localhost")
    client.force_authenticate(users.get(username=uploader))
    seeds = iter(range(10**6, 10**7))

    def upload() -> float:
        pdf = make_pdf(pages=1, words_per_page=60, seed=next(seeds))  # not a duplicate
        began = time.perf_counter()
        answer = client.post("/api/documents/", {"file": pdf_file(pdf, "during")})
        assert answer.status_code == 202, answer.content
        return (time.perf_counter() - began) * 1000

    before = [upload() for _ in range(BEFORE)]
    took: list[float] = []

    def erase() -> None:
        began = time.monotonic()
        manage(env, "erase_user", username, "--yes")
        took.append(time.monotonic() - began)

    eraser = threading.Thread(target=erase)
    eraser.start()
    during = []
    while eraser.is_alive():
        during.append(upload())
        time.sleep(0.1)  # a steady trickle, not a flood: what another account would send
    eraser.join()
    assert took, "the erasure failed (its output is above)"
    assert not users.filter(username=username).exists()
    return Erasure(took[0], documents, before, during)
