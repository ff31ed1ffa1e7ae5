"""Read /metrics as Prometheus does: prometheus_client's own parser."""

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families


def scrape(client: Client | None = None, **headers: str) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} of one scrape from loopback."""
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def delta(before: dict, after: dict, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)
