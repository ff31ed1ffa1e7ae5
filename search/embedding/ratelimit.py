"""One rate limit on embedding calls, shared by every worker process through Redis.

Each call first asks the limiter for a slot (`acquire`), so 50 workers pace themselves
below the provider's limits instead of discovering them through a storm of 429s. A 429
that happens anyway records a shared cool-down (`cool_down`) that every process waits out.

Why a token bucket, and in its GCRA form. Providers state limits per minute but enforce
them over shorter spans; a bucket that holds about one second's worth lets a small burst
through and then spreads calls evenly, where a one-minute sliding window would let the
whole minute's budget go in its first second. GCRA keeps each bucket as one timestamp
(when it will be full again), so the script is a few arithmetic steps with no per-request
entries to trim, and it hands out future slots: a caller reserves its slot in one round
trip and sleeps once, instead of polling Redis until a window has room. The clock is
Redis' own (TIME), so machines with skewed clocks still share one schedule.
"""

import functools
import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import redis
from django.conf import settings

from config.common import redis_clients
from search.pipeline.errors import RateLimited, TransientError

# Returns {1, wait_ms} after reserving a slot that starts in wait_ms, or {0, wait_ms}
# (nothing reserved) when wait_ms is longer than the caller will wait.
_PACE = """
-- KEYS[1]: hash {requests, tokens} = when each bucket is full again (ms, Redis clock)
-- KEYS[2]: the cool-down; it exists, with a TTL, while a provider's Retry-After runs
-- ARGV: ms per request, bucket size (requests), ms per token, bucket size (tokens),
--       this call's tokens, longest wait (ms)
local clock = redis.call('TIME')
local now = clock[1] * 1000 + clock[2] / 1000
local req_ms, req_size = tonumber(ARGV[1]), tonumber(ARGV[2])
local tok_ms, tok_size = tonumber(ARGV[3]), tonumber(ARGV[4])
local tokens, max_wait = tonumber(ARGV[5]), tonumber(ARGV[6])
local req_full = tonumber(redis.call('HGET', KEYS[1], 'requests')) or now
local tok_full = tonumber(redis.call('HGET', KEYS[1], 'tokens')) or now
-- When a bucket holds `cost` units; a call larger than the bucket waits for a full one.
local function ready(full, ms, size, cost)
  return math.max(full, now) - (size - math.min(cost, size)) * ms
end
local start = math.max(now, now + redis.call('PTTL', KEYS[2]),
  ready(req_full, req_ms, req_size, 1), ready(tok_full, tok_ms, tok_size, tokens))
local wait = start - now
if wait > max_wait then
  return {0, string.format('%.3f', wait)}
end
req_full = math.max(req_full, start) + req_ms
tok_full = math.max(tok_full, start) + tokens * tok_ms
redis.call('HSET', KEYS[1], 'requests', string.format('%.3f', req_full),
  'tokens', string.format('%.3f', tok_full))
-- A full bucket and a missing key mean the same, so the key may go once both are full.
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(req_full, tok_full) - now) + 1000)
return {1, string.format('%.3f', wait)}
"""

# Lengthens the cool-down to ARGV[1] ms from now; never shortens a longer one.
_COOL_DOWN = """
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
"""

# OpenAI's rule of thumb for English text. An estimate is enough: the bucket only has to
# keep us under the provider's limit, and a 429 that slips through still cools everyone.
CHARS_PER_TOKEN = 4


def estimate_tokens(texts: Sequence[str]) -> int:
    """About how many tokens `texts` cost: ~len(text)/4 each, at least 1."""
    return sum(max(1, math.ceil(len(text) / CHARS_PER_TOKEN)) for text in texts)


@contextmanager
def _redis_errors() -> Iterator[None]:
    """A Redis failure is transient for the job: it is retried later, never failed for it."""
    try:
        yield
    except redis.RedisError as exc:
        raise TransientError(
            f"The embedding rate limiter could not reach Redis ({type(exc).__name__}: {exc}).",
            code="connection",
        ) from exc


class RateLimiter:
    """Requests and tokens per minute for one model, shared by every process on one Redis.

    `name` identifies the limit (the model: providers count per model); limiters with
    the same name on the same Redis share their state, whichever process they live in.
    """

    def __init__(
        self, client: redis.Redis, *, name: str, rpm: int, tpm: int, max_wait: float
    ) -> None:
        # One hash tag, so both keys live on one node of a Redis Cluster too.
        self._keys = [f"ingest:embed:{{{name}}}:pace", f"ingest:embed:{{{name}}}:cooldown"]
        self._client = client
        self._pace = client.register_script(_PACE)
        self._cool_down = client.register_script(_COOL_DOWN)
        # Each bucket holds one second's worth, and at least one call.
        self._requests = (60_000 / rpm, max(1, rpm // 60))
        self._tokens = (60_000 / tpm, max(1, tpm // 60))
        self.max_wait = max_wait

    def acquire(self, tokens: int) -> float:
        """Wait until one call costing `tokens` may start; return the seconds waited.

        The slot is reserved before sleeping, so waiting callers start in turn. Raises
        RateLimited (retry_after: when a slot would be free) without reserving anything
        when the wait would pass `max_wait`, so a job is retried later instead of holding
        a worker; TransientError (code "connection") when Redis fails.
        """
        args = [*self._requests, *self._tokens, tokens, self.max_wait * 1000]
        with _redis_errors():
            granted, wait_ms = self._pace(keys=self._keys, args=args)
        wait = float(wait_ms) / 1000
        if not granted:
            raise RateLimited(
                f"The embedding rate limit shared by all workers has no free slot for "
                f"{wait:.0f} s, longer than INGEST_EMBED_MAX_WAIT_SECONDS "
                f"({self.max_wait:g}); the job will try again later.",
                retry_after=wait,
            )
        if wait > 0:
            time.sleep(wait)
        return wait

    def cool_down(self, seconds: float) -> None:
        """Make every process wait at least `seconds` from now before its next call."""
        with _redis_errors():
            self._cool_down(keys=self._keys[1:], args=[max(1, math.ceil(seconds * 1000))])

    def clear(self) -> None:
        """Forget all pacing and any cool-down: the next call starts at once."""
        with _redis_errors():
            self._client.delete(*self._keys)


@functools.lru_cache(maxsize=8)  # a worker's, a search's and the searches' share
def _limiter(url: str, name: str, rpm: int, tpm: int, max_wait: float) -> RateLimiter:
    # Short timeouts: a Redis that hangs should fail the attempt, not hold the worker.
    client = redis_clients.client(url, connect_timeout=2, timeout=5)
    return RateLimiter(client, name=name, rpm=rpm, tpm=tpm, max_wait=max_wait)


def shared_limiter(max_wait: float | None = None) -> RateLimiter:
    """This process's limiter for the configured model (built once per configuration).

    `max_wait` (default INGEST_EMBED_MAX_WAIT_SECONDS): the longest this caller will wait
    for a slot; a search waits less than a worker. The budget is the same either way."""
    if max_wait is None:
        max_wait = settings.INGEST_EMBED_MAX_WAIT_SECONDS
    return _limiter(
        settings.REDIS_URL,
        settings.INGEST_EMBED_MODEL,
        settings.INGEST_EMBED_RPM,
        settings.INGEST_EMBED_TPM,
        float(max_wait),
    )


def search_limiter(max_wait: float) -> RateLimiter:
    """The searches' own bucket, INGEST_SEARCH_EMBED_SHARE of the shared limit: a query
    embedding takes a slot here first, then one of the shared limiter, so that people
    searching can never take more than that share of the workers' budget."""
    share = settings.INGEST_SEARCH_EMBED_SHARE
    return _limiter(
        settings.REDIS_URL,
        f"{settings.INGEST_EMBED_MODEL}:searches",
        max(1, int(settings.INGEST_EMBED_RPM * share)),
        max(1, int(settings.INGEST_EMBED_TPM * share)),
        float(max_wait),
    )
