from collections.abc import Iterator

import pytest

from search.embedding.ratelimit import shared_limiter
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
        yield server
        shared_limiter().clear()
