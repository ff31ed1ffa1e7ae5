"""The `openai` provider: OpenAI's embeddings API, or any server that speaks it.

Every call is paced by the shared rate limiter first. The client's own retries are off:
a failure becomes one of search.pipeline.errors at once, and the job layer decides when
to try again (honouring Retry-After), so there is one retry policy, not two stacked.

    429                              RateLimited (retry_after; every process cools down)
    5xx, 409, unreachable            ProviderUnavailable
    no answer in time, 408           Timeout
    other 4xx (400, 401, 403, 404)   PermanentError "embedding_rejected"
    wrong vector size or count       PermanentError "embedding_dimension_mismatch"
"""

import email.utils
import functools
import logging
import math
import re
import time
from collections.abc import Mapping, Sequence

import openai
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from openai.types import EmbeddingCreateParams

from search.embedding import stats
from search.embedding.ratelimit import estimate_tokens, search_limiter, shared_limiter
from search.pipeline.errors import (
    PermanentError,
    ProviderUnavailable,
    RateLimited,
    Timeout,
    TransientError,
)

log = logging.getLogger(__name__)

# How long everyone pauses after a 429 that does not say (no Retry-After header).
DEFAULT_COOL_DOWN_SECONDS = 5.0

# API keys in a provider's error message ("Incorrect API key provided: sk-ab***yz").
_KEY_LIKE = re.compile(r"\b(sk|key)-[\w*-]+", re.IGNORECASE)


def embed(
    texts: Sequence[str],
    *,
    max_wait: float | None = None,
    timeout: float | None = None,
    searching: bool = False,
) -> list[list[float]]:
    """Embed `texts` in one request, vectors in input order, each checked for length.

    Waits for the shared rate limiter first, at most `max_wait` seconds (default
    INGEST_EMBED_MAX_WAIT_SECONDS), and for the answer at most `timeout` (default
    INGEST_EMBED_TIMEOUT_SECONDS): a search passes shorter ones than a worker. Raises
    RateLimited, ProviderUnavailable or Timeout (transient) or PermanentError with code
    "embedding_rejected" (the provider refused the request: key, model, input) or
    "embedding_dimension_mismatch". `searching`: a query's embedding, which also keeps
    within INGEST_SEARCH_EMBED_SHARE of the limit.
    """
    tokens = estimate_tokens(texts)
    if searching:  # a query: within the searches' share first (ratelimit.search_limiter)
        search_limiter(max_wait or 0.0).acquire(tokens)
    stats.note_wait(shared_limiter(max_wait).acquire(tokens))
    client = _client(
        settings.OPENAI_BASE_URL,
        settings.OPENAI_API_KEY,
        float(settings.INGEST_EMBED_TIMEOUT_SECONDS),
    )
    if timeout is not None:
        client = client.with_options(timeout=timeout)
    try:
        response = client.embeddings.create(**_request(texts))
    except openai.APIError as exc:
        limited = isinstance(exc, openai.RateLimitError)
        stats.note_request("rate_limited" if limited else "error")
        raise _translate(exc) from exc
    stats.note_request("ok")
    return _vectors(response, count=len(texts), dimensions=settings.INGEST_EMBED_DIMENSIONS)


@functools.lru_cache(maxsize=1)
def _client(base_url: str | None, api_key: str, timeout: float) -> openai.OpenAI:
    """One client (and connection pool) per process for the configuration in force."""
    if not api_key:
        raise ImproperlyConfigured(
            "INGEST_EMBED_PROVIDER is 'openai' but OPENAI_API_KEY is empty. Set it (any "
            "value, for a local server that needs none) or use INGEST_EMBED_PROVIDER=hashing."
        )
    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)


def _request(texts: Sequence[str]) -> EmbeddingCreateParams:
    request: EmbeddingCreateParams = {
        "model": settings.INGEST_EMBED_MODEL,
        "input": list(texts),
        # The client asks for base64 unless told; not every compatible server has it.
        "encoding_format": "float",
    }
    if settings.INGEST_EMBED_SEND_DIMENSIONS:
        request["dimensions"] = settings.INGEST_EMBED_DIMENSIONS
    return request


def _vectors(
    response: openai.types.CreateEmbeddingResponse, *, count: int, dimensions: int
) -> list[list[float]]:
    """The response's vectors in input order; PermanentError if their count or size is off."""
    data = sorted(response.data or [], key=lambda item: item.index)
    if len(data) != count:
        raise PermanentError(
            f"The embedding provider returned {len(data)} vectors for {count} texts.",
            code="embedding_dimension_mismatch",
        )
    wrong = next((len(item.embedding) for item in data if len(item.embedding) != dimensions), None)
    if wrong is not None:
        raise PermanentError(
            f"The embedding provider returned {wrong}-dimensional vectors; "
            f"INGEST_EMBED_DIMENSIONS is {dimensions}. Configure the model for "
            f"{dimensions} dimensions, or change INGEST_EMBED_DIMENSIONS and the column.",
            code="embedding_dimension_mismatch",
        )
    return [list(item.embedding) for item in data]


def _translate(exc: openai.APIError) -> Exception:
    """The pipeline error for a failed call, as the module docstring's table says."""
    if isinstance(exc, openai.APITimeoutError):
        return Timeout(
            f"The embedding provider did not answer within "
            f"{settings.INGEST_EMBED_TIMEOUT_SECONDS:g} s (INGEST_EMBED_TIMEOUT_SECONDS)."
        )
    if isinstance(exc, openai.APIConnectionError):
        return ProviderUnavailable(f"Could not reach the embedding provider at {_where()}.")
    if isinstance(exc, openai.RateLimitError):
        return _rate_limited(exc)
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc)
    # A 200 answer the client could not read: most likely a server that is not an
    # embeddings API at all, or one having a bad moment; let the retries find out.
    return ProviderUnavailable(f"The embedding provider's answer could not be read: {exc}")


def _rate_limited(exc: openai.RateLimitError) -> RateLimited:
    """Make every process wait out the provider's Retry-After, then report it."""
    retry_after = retry_after_seconds(exc.response.headers)
    try:
        shared_limiter().cool_down(retry_after or DEFAULT_COOL_DOWN_SECONDS)
    except TransientError:
        log.warning("could not record the embedding cool-down in Redis", exc_info=True)
    wait = f"; it asks to wait {retry_after:g} s" if retry_after is not None else ""
    return RateLimited(
        _sentences(f"The embedding provider is rate limiting us (HTTP 429){wait}.", _said(exc)),
        retry_after=retry_after,
    )


def _status_error(exc: openai.APIStatusError) -> Exception:
    status, said = exc.status_code, _said(exc)
    if status >= 500:
        failed = f"The embedding provider failed (HTTP {status})."
        return ProviderUnavailable(_sentences(failed, said))
    if status == 408:
        return Timeout(_sentences("The embedding provider timed out the request (HTTP 408).", said))
    if status == 409:  # OpenAI's "try again": a conflicting request in progress
        return ProviderUnavailable(_sentences("The embedding provider is busy (HTTP 409).", said))
    refused = f"The embedding provider refused the request (HTTP {status})."
    detail = _sentences(refused, said, _remedy(status, said))
    return PermanentError(detail, code="embedding_rejected")


def _remedy(status: int, said: str) -> str:
    if status == 401:
        return "Check OPENAI_API_KEY."
    if status == 403:
        return "Check that the API key may use INGEST_EMBED_MODEL."
    if status == 404:
        return "Check INGEST_EMBED_MODEL and OPENAI_BASE_URL."
    if settings.INGEST_EMBED_SEND_DIMENSIONS and "dimension" in said.lower():
        return "If the server does not accept `dimensions`, set INGEST_EMBED_SEND_DIMENSIONS=false."
    return ""


def _sentences(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _said(exc: openai.APIStatusError) -> str:
    """What the provider said, without anything that looks like an API key."""
    body = exc.body if isinstance(exc.body, Mapping) else {}
    message = str(body.get("message") or "").strip()
    if not message:
        return ""
    if settings.OPENAI_API_KEY:
        message = message.replace(settings.OPENAI_API_KEY, "[key]")
    message = _KEY_LIKE.sub("[key]", message)
    message = message[:300]
    return f"It said: {message}" + ("" if message.endswith((".", "!", "?")) else ".")


def _where() -> str:
    return settings.OPENAI_BASE_URL or "the OpenAI API"


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date), if usable."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        seconds: float | None
        try:
            seconds = float(raw) * scale
        except ValueError:
            seconds = _seconds_until(raw)
        if seconds is not None and math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


def _seconds_until(http_date: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
