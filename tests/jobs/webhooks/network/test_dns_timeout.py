"""A webhook URL whose name never resolves holds no thread past the DNS timeout: checked at
upload (400 webhook_dns_timeout, nothing stored) and within a delivery attempt's budget.
The DNS server is the test's own: a UDP socket that takes queries and never answers,
named by INGEST_DNS_SERVERS."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from jobs.webhooks.models import Delivery
from jobs.webhooks.network import addresses, client
from jobs.webhooks.network.addresses import WebhookDNSTimeout
from jobs.webhooks.sending.delivery import Claim, _attempt
from tests.fakes.webhook_receiver import end_job
from tests.jobs.webhooks.conftest import DNS_TIMEOUT as TIMEOUT

SLACK = 2.0  # how late past the timeout a refusal may come on two busy cores
NAME = "hooks.never-answers.example"


def test_a_name_that_never_resolves_is_refused_after_the_timeout(silent_dns):
    started = time.monotonic()
    with pytest.raises(WebhookDNSTimeout, match="did not resolve within 1 s"):
        addresses.check(f"https://{NAME}/hook")
    took = time.monotonic() - started

    assert TIMEOUT * 0.9 <= took <= TIMEOUT + SLACK
    silent_dns.settimeout(1)
    query, _ = silent_dns.recvfrom(512)  # it asked our server, not the system's
    assert b"never-answers" in query


def test_many_checks_at_once_each_end_at_the_timeout_and_leave_no_thread_behind(silent_dns):
    threads_before = threading.active_count()

    def check(n: int) -> float:
        started = time.monotonic()
        with pytest.raises(WebhookDNSTimeout):
            addresses.check(f"https://h{n}.{NAME}/hook")
        return time.monotonic() - started

    with ThreadPoolExecutor(max_workers=20) as pool:
        took = list(pool.map(check, range(20)))

    assert max(took) <= TIMEOUT + SLACK
    # The resolver's own event thread is the one thread it keeps, whatever it was asked.
    assert threading.active_count() <= threads_before + 1


@pytest.mark.django_db
def test_an_attempt_spends_its_budget_on_dns_too(alice, silent_dns, settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True
    end_job(alice, webhook_url=f"https://{NAME}/hook")
    delivery = Delivery.objects.select_related("event", "endpoint").get()
    limits = client.Limits(connect=0.5, total=1.5)

    started = time.monotonic()
    answer = _attempt(Claim(delivery, 1, ("whsec_x",)), limits)

    assert time.monotonic() - started <= limits.total + SLACK
    assert answer.status_code is None
    assert answer.error.startswith("DNS: ")
    assert "did not resolve" in answer.error
