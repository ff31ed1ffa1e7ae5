import resource
from collections.abc import Iterator

import pytest

from search.embedding.ratelimit import search_limiter, shared_limiter
from search.pipeline.sandbox import process
from tests.fakes.openai_server import FakeOpenAI

API_KEY = "test-key"


@pytest.fixture
def openai_server(settings) -> Iterator[FakeOpenAI]:
    """A fake OpenAI embeddings API, with the `openai` provider pointed at it.

    Limits are generous so only the tests about pacing see any; the shared limiter's
    state (pacing, cool-down) is cleared before and after. The provider's cached client
    follows the settings by itself: it is keyed by base URL, key and timeout.
    """
    with FakeOpenAI(api_key=API_KEY) as server:
        settings.INGEST_EMBED_PROVIDER = "openai"
        settings.OPENAI_BASE_URL = server.url + "/v1"
        settings.OPENAI_API_KEY = API_KEY
        settings.INGEST_EMBED_MODEL = "text-embedding-3-small"
        settings.INGEST_EMBED_SEND_DIMENSIONS = True
        settings.INGEST_EMBED_TIMEOUT_SECONDS = 2.0
        settings.INGEST_EMBED_RPM = 1_000_000
        settings.INGEST_EMBED_TPM = 100_000_000
        settings.INGEST_EMBED_MAX_WAIT_SECONDS = 5.0
        shared_limiter().clear()
        search_limiter(0).clear()
        yield server
        shared_limiter().clear()
        search_limiter(0).clear()


@pytest.fixture
def patient_wall_clock(monkeypatch) -> None:
    """The reader's wall-clock bound far past its CPU bound, for tests about the CPU bound.

    On a machine busy with other work the child gets a fraction of a core, and the
    service's wall-clock bound (1.5 x the CPU budget) would end it first as a transient
    timeout: right for the service, but not what these tests are about."""
    monkeypatch.setattr(process, "WALL_CLOCK_FACTOR", 30.0)


def children_cpu_seconds() -> float:
    """CPU time of this process's children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
