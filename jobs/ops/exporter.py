"""GET /metrics: the Prometheus text format, from prometheus_client itself.

What every process counted (config.common.metrics, in PROMETHEUS_MULTIPROC_DIR) added up by its
MultiProcessCollector, and the gauges the database answers (jobs.ops.collector). Open to
loopback (a direct request: no proxy's forwarding header), to INGEST_METRICS_ALLOW_CIDRS,
and to `Authorization: Bearer <INGEST_METRICS_TOKEN>`; anyone else gets 403.
"""

import ipaddress
import logging
from collections.abc import Iterator

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from config.common.metrics_files import MultiProcessCollector
from config.http import proxies
from jobs.ops.collector import DatabaseCollector
from jobs.ops.worker_metrics import bearer_matches

log = logging.getLogger(__name__)


def _from_allowed_address(request: HttpRequest) -> bool:
    """By the client's address as config.http.proxies reads it: a forwarded header counts only
    from a trusted proxy, so nobody can claim an allowed address by writing one."""
    try:
        address = ipaddress.ip_address(proxies.client_address(request.META) or "")
    except ValueError:
        return False
    # A proxy on this machine makes every visitor look like loopback: a request it
    # forwarded (it says whom for) is judged by the token or the allowed networks only.
    if address.is_loopback and not proxies.forwarded_by_stranger(request.META):
        return True
    return any(address in network for network in settings.INGEST_METRICS_ALLOW_CIDRS)


def _has_token(request: HttpRequest) -> bool:
    return bearer_matches(request.headers.get("Authorization", ""))


class _Guarded(Collector):
    """The database's gauges, or, while it does not answer, none of them and
    ingest_metrics_database_up 0: the process counters still reach Prometheus."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            families = list(DatabaseCollector().collect())
            up = 1
        except DatabaseError:
            log.warning("/metrics: the database did not answer", exc_info=True)
            if not connection.in_atomic_block:
                connection.close()
            families, up = [], 0
        yield from families
        yield GaugeMetricFamily(
            "ingest_metrics_database_up",
            "1 when this scrape could read the database's gauges, else 0.",
            value=up,
        )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not (_from_allowed_address(request) or _has_token(request)):
        return HttpResponse(
            "Metrics are open to loopback, INGEST_METRICS_ALLOW_CIDRS, or a bearer token.\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    registry.register(_Guarded())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
