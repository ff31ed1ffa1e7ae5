import os
import socket
import subprocess
import sys
import time

import pytest
from django.core.exceptions import ImproperlyConfigured

from search.embedding import embed
from search.pipeline.errors import PermanentError, ProviderUnavailable, RateLimited, Timeout
from tests.fakes.openai_server import vector_for

TEXTS = ["the first chunk", "a second one", "and a third"]


def test_a_batch_is_one_request_and_its_vectors_come_back_in_input_order(openai_server):
    vectors = embed(TEXTS)

    assert vectors == [vector_for(text, 384) for text in TEXTS]
    assert (openai_server.calls, openai_server.inputs) == (1, 3)
    [request] = openai_server.requests
    assert request["model"] == "text-embedding-3-small"
    assert request["dimensions"] == 384


def test_dimensions_are_not_sent_when_configured_so(openai_server, settings):
    settings.INGEST_EMBED_SEND_DIMENSIONS = False
    settings.INGEST_EMBED_DIMENSIONS = 1536  # the model's own size

    [vector] = embed(["text"])

    assert len(vector) == 1536
    assert "dimensions" not in openai_server.requests[0]


def test_no_texts_make_no_request(openai_server):
    assert embed([]) == []
    assert openai_server.calls == 0


def test_a_429_is_rate_limited_with_the_providers_retry_after(openai_server):
    openai_server.script(["429:2"])

    with pytest.raises(RateLimited) as caught:
        embed(TEXTS)

    assert caught.value.retry_after == 2.0
    assert "HTTP 429" in caught.value.detail
    assert openai_server.calls == 1  # the client's own retries are off


def test_a_retry_after_in_milliseconds_is_understood(openai_server):
    openai_server.script(["429ms:1500"])

    with pytest.raises(RateLimited) as caught:
        embed(TEXTS)

    assert caught.value.retry_after == 1.5


def test_after_a_429_the_next_call_waits_out_the_shared_cool_down(openai_server):
    openai_server.script(["429:1"])
    with pytest.raises(RateLimited):
        embed(TEXTS)

    started = time.monotonic()
    embed(TEXTS)

    assert 0.8 <= time.monotonic() - started < 2.0
    assert openai_server.calls == 2


def test_a_cool_down_longer_than_the_max_wait_fails_at_once_without_a_request(
    openai_server, settings
):
    settings.INGEST_EMBED_MAX_WAIT_SECONDS = 0.5
    openai_server.script(["429:30"])
    with pytest.raises(RateLimited):
        embed(TEXTS)

    started = time.monotonic()
    with pytest.raises(RateLimited) as caught:
        embed(TEXTS)

    assert time.monotonic() - started < 0.5
    assert 28 < caught.value.retry_after <= 30
    assert openai_server.calls == 1


def test_a_500_is_provider_unavailable_after_one_request(openai_server):
    openai_server.script(["500"])

    with pytest.raises(ProviderUnavailable, match="HTTP 500"):
        embed(TEXTS)

    assert openai_server.calls == 1


def test_an_answer_slower_than_the_timeout_is_a_timeout(openai_server, settings):
    settings.INGEST_EMBED_TIMEOUT_SECONDS = 0.3
    openai_server.delay = 2.0

    started = time.monotonic()
    with pytest.raises(Timeout) as caught:
        embed(TEXTS)

    assert time.monotonic() - started < 1.5
    assert caught.value.code == "timeout"
    assert openai_server.calls == 1


def test_a_server_that_does_not_answer_at_all_is_provider_unavailable(openai_server, settings):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{port}/v1"

    with pytest.raises(ProviderUnavailable, match="Could not reach"):
        embed(TEXTS)


def test_vectors_of_the_wrong_size_are_a_permanent_dimension_mismatch(openai_server):
    openai_server.dimension = 1536

    with pytest.raises(PermanentError) as caught:
        embed(TEXTS)

    assert caught.value.code == "embedding_dimension_mismatch"
    assert "returned 1536-dimensional vectors; INGEST_EMBED_DIMENSIONS is 384" in (
        caught.value.detail
    )


def test_fewer_vectors_than_texts_are_a_permanent_mismatch(openai_server):
    openai_server.script(["short"])

    with pytest.raises(PermanentError) as caught:
        embed(TEXTS)

    assert caught.value.code == "embedding_dimension_mismatch"
    assert "2 vectors for 3 texts" in caught.value.detail


def test_a_wrong_api_key_is_rejected_for_good_without_repeating_the_key(openai_server, settings):
    settings.OPENAI_API_KEY = "sk-wrong-secret-key"

    with pytest.raises(PermanentError) as caught:
        embed(TEXTS)

    assert caught.value.code == "embedding_rejected"
    assert "HTTP 401" in caught.value.detail
    assert "OPENAI_API_KEY" in caught.value.detail
    assert "sk-" not in caught.value.detail
    assert "secret" not in caught.value.detail


def test_an_unknown_model_is_rejected_for_good_saying_what_to_check(openai_server, settings):
    settings.INGEST_EMBED_MODEL = "no-such-model"

    with pytest.raises(PermanentError) as caught:
        embed(TEXTS)

    assert caught.value.code == "embedding_rejected"
    assert "no-such-model" in caught.value.detail
    assert "INGEST_EMBED_MODEL" in caught.value.detail


def test_the_openai_provider_without_a_key_is_a_configuration_error(openai_server, settings):
    settings.OPENAI_API_KEY = ""

    with pytest.raises(ImproperlyConfigured, match="OPENAI_API_KEY is empty"):
        embed(TEXTS)


@pytest.mark.parametrize(("api_key", "provider"), [("", "local"), ("sk-something", "openai")])
def test_the_default_provider_is_openai_exactly_when_an_api_key_is_set(api_key, provider):
    env = {**os.environ, "OPENAI_API_KEY": api_key}
    env.pop("INGEST_EMBED_PROVIDER", None)
    read = "from django.conf import settings; print(settings.INGEST_EMBED_PROVIDER)"

    result = subprocess.run(
        [sys.executable, "-c", read],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        check=True,
    )

    assert result.stdout.strip() == provider
