"""`python -m tests.bench.websockets`: how many status-websocket clients one daphne process holds
with updates flowing.

On a private Postgres and Redis (as `python -m tests.bench`), one daphne serves `config.asgi` as
the Procfile's `ws` process does. The benchmark opens N websocket clients to /ws/status/,
each signed in by a session cookie (`--per-user` clients per user, like open tabs), then
pushes progress the way workers do: commit a job's new `progress_done`, then `group_send` a
`job.changed` to the owner's group, one push per user per second. Every client reads the
row the consumer renders from the database; the progress shown in it says which push it
answers, so delivery latency is the receive time minus the time of that push's commit.
N is ramped (the clients of a step stay for the next) until delivery p99 exceeds 2 s, a
client fails to connect or drops, or under 90 % of the updates arrive.

The clients are a minimal RFC 6455 client on asyncio (handshake, unmasked server frames,
masked pong and close), all in this process, which also pushes.

Modules: `setup` (users, sessions, documents, daphne), `client` (the websocket client),
`measure` (the ramp and its pushes), `summary` (the table and verdict), `__main__` (the
command line). The constants below are shared by them.
"""

import re

STEPS = (50, 100, 150, 200, 250, 300, 400, 600, 1000, 2000)
QUICK_STEPS = (20, 50, 100)
SECTION = "bench-websockets"
# A step stops the ramp when any of these is crossed; a step "holds" below the second set.
STOP_P99_MS = 2000.0
STOP_DELIVERED = 0.90
HOLD_P99_MS = 1000.0
# The job's progress total; progress_done carries the push's sequence number. Each job is
# embedding, its PAGES pages read, so its row says "Embedding chunks <seq> / <total>".
PROGRESS_TOTAL = 1_000_000
PAGES = 12
# Handshakes in flight at once, as pages reconnecting together after a restart would.
# (With redis-py's default pool of 100 connections, more than about 100 got 500s; the
# channel layer's pool now allows 1000: config/settings.py.)
CONNECT_CONCURRENCY = 100
CONNECT_TIMEOUT = 15.0
TICK = 0.02  # the pusher's granularity: pushes due within a tick go in one UPDATE
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SEQ = re.compile(rb"Embedding chunks (\d+) / (\d+)<")
DOC = re.compile(rb'id="doc-([0-9a-f-]{36})"')
