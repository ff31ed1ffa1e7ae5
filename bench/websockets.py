"""`python -m bench.websockets`: how many status-websocket clients one daphne process holds
with updates flowing.

On a private Postgres and Redis (as `python -m bench`), one daphne serves `config.asgi` as
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
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import math
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from bench import report
from bench.services import BASE_DIR, Server, Services, manage, start_services

STEPS = (50, 100, 150, 200, 250, 300, 400, 600, 1000, 2000)
QUICK_STEPS = (20, 50, 100)
SECTION = "bench-websockets"
# A step stops the ramp when any of these is crossed; a step "holds" below the second set.
STOP_P99_MS = 2000.0
STOP_DELIVERED = 0.90
HOLD_P99_MS = 1000.0
# The job's progress total; progress_done carries the push's sequence number.
PROGRESS_TOTAL = 1_000_000
# Handshakes in flight at once, as pages reconnecting together after a restart would.
# (With redis-py's default pool of 100 connections, more than about 100 got 500s; the
# channel layer's pool now allows 1000: config/settings.py.)
CONNECT_CONCURRENCY = 100
CONNECT_TIMEOUT = 15.0
TICK = 0.02  # the pusher's granularity: pushes due within a tick go in one UPDATE
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SEQ = re.compile(rb">(\d+) / (\d+)<")
DOC = re.compile(rb'id="doc-([0-9a-f-]{36})"')


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.websockets", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument("--quick", action="store_true", help="small steps (a smoke run)")
    parser.add_argument(
        "--steps", help=f"comma list of client counts ({','.join(map(str, STEPS))})"
    )
    parser.add_argument("--per-user", type=int, default=10, help="clients per user (10)")
    parser.add_argument("--documents", type=int, default=5, help="processing documents per user")
    parser.add_argument("--rate", type=float, default=1.0, help="pushes per user per second (1)")
    parser.add_argument("--seconds", type=float, help="pushing time per step (10; quick 3)")
    parser.add_argument(
        "--connect-concurrency",
        type=int,
        default=CONNECT_CONCURRENCY,
        help=f"handshakes in flight at once ({CONNECT_CONCURRENCY})",
    )
    parser.add_argument("--section", default=SECTION, help="marked section of BENCHMARKS.md")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    if args.steps:
        args.steps = sorted({int(n) for n in args.steps.split(",") if n})
    else:
        args.steps = list(QUICK_STEPS if args.quick else STEPS)
    args.seconds = args.seconds or (3.0 if args.quick else 10.0)
    args.drain = 3.0 if args.quick else 5.0  # how long stragglers may take after the pushes
    if args.per_user < 1 or args.documents < 1 or args.rate <= 0 or not args.steps:
        parser.error("--per-user, --documents, --rate and --steps must be positive")
    return args


# --------------------------------------------------------------------------- set-up

SETUP_SCRIPT = """
import json, uuid
from importlib import import_module
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model
from django.utils import timezone
from documents.models import Document
from jobs.models import Job, JobStatus

SessionStore = import_module(settings.SESSION_ENGINE).SessionStore
now = timezone.now()
users = []
for number in range({users}):
    user = get_user_model().objects.create_user(f"ws-bench{{number}}")
    session = SessionStore()  # what a sign-in stores
    session[SESSION_KEY] = user._meta.pk.value_to_string(user)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    documents = Document.objects.bulk_create(
        Document(owner=user, filename=f"report-{{n}}.pdf", size=250_000 + n,
                 sha256=uuid.uuid4().hex * 2, storage_key=f"bench/{{user.pk}}/{{n}}.pdf",
                 page_count=12)
        for n in range({documents})
    )
    jobs = Job.objects.bulk_create(
        Job(document=d, owner=user, version=1, storage_key=d.storage_key,
            status=JobStatus.PROCESSING, attempts=1, progress_total={total},
            started_at=now, heartbeat_at=now, worker="bench")
        for d in documents
    )
    for document, job in zip(documents, jobs):
        document.current_job = job
    Document.objects.bulk_update(documents, ["current_job"])
    users.append(dict(id=user.pk, session=session.session_key,
                      documents=[[str(d.id), str(j.id)] for d, j in zip(documents, jobs)]))
print(json.dumps(dict(cookie=settings.SESSION_COOKIE_NAME, users=users)))
"""


@dataclass
class User:
    id: int
    session: str
    documents: list[tuple[str, str]]  # (document id, job id)
    clients: list[Client] = field(default_factory=list)
    pushed: int = 0


def prepare(env: dict[str, str], users: int, documents: int) -> tuple[str, list[User]]:
    """Migrate; `users` signed-in users, each with `documents` processing documents."""
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    script = SETUP_SCRIPT.format(users=users, documents=documents, total=PROGRESS_TOTAL)
    data = json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])
    made = [
        User(u["id"], u["session"], [tuple(pair) for pair in u["documents"]]) for u in data["users"]
    ]
    return data["cookie"], made


class Daphne(Server):
    """One daphne serving config.asgi as the Procfile's `ws` process (start/stop as Server)."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        from config import embedded

        self.label = "daphne"
        self.port = embedded.free_port()
        self.command = [sys.executable, "-m", "daphne"]
        self.command += ["--bind", "127.0.0.1", "--port", str(self.port), "--proxy-headers"]
        self.command += ["config.asgi:application"]
        # As the Procfile's `ws` line: no per-call health check (see README, Serving).
        self.env = dict(env, DATABASE_CONN_HEALTH_CHECKS="false")
        self.log = logs / "daphne.log"
        self.process = None


# --------------------------------------------------------------------------- the clients


def _frame(opcode: int, payload: bytes = b"") -> bytes:
    """A masked client frame with a short payload (pong, close)."""
    mask = os.urandom(4)
    body = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload[:125]))
    return bytes([0x80 | opcode, 0x80 | len(body)]) + mask + body


class Client:
    """One browser tab's status socket."""

    def __init__(self, number: int, user: User) -> None:
        self.number = number
        self.user = user
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task[None] | None = None
        self.open = False
        self.closed_why = ""

    async def connect(self, port: int, cookie: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
        self.reader, self.writer = reader, writer
        key = base64.b64encode(os.urandom(16))
        writer.write(
            b"GET /ws/status/ HTTP/1.1\r\n"
            b"Host: 127.0.0.1:%d\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
            b"Origin: http://127.0.0.1\r\n"
            b"Cookie: %s=%s\r\n\r\n" % (port, key, cookie.encode(), self.user.session.encode())
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise ConnectionError(status.decode(errors="replace"))
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        if accept.lower() not in head.lower():
            raise ConnectionError("bad Sec-WebSocket-Accept")
        self.open = True

    async def listen(self, on_message: Any) -> None:
        """Read frames until the socket closes; text messages go to on_message."""
        reader, writer = self.reader, self.writer
        assert reader is not None
        assert writer is not None
        parts: list[bytes] = []
        try:
            while True:
                first, second = await reader.readexactly(2)
                opcode, length = first & 0x0F, second & 0x7F
                if length == 126:
                    length = int.from_bytes(await reader.readexactly(2), "big")
                elif length == 127:
                    length = int.from_bytes(await reader.readexactly(8), "big")
                mask = await reader.readexactly(4) if second & 0x80 else b""
                payload = await reader.readexactly(length) if length else b""
                if mask:
                    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                if opcode == 0x9:  # ping (daphne sends one every 20 s)
                    writer.write(_frame(0xA, payload))
                elif opcode == 0x8:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.closed_why = f"closed by the server ({code})"
                    writer.write(_frame(0x8, payload[:2]))
                    break
                elif opcode in (0x0, 0x1, 0x2):
                    parts.append(payload)
                    if first & 0x80:
                        on_message(self, b"".join(parts), time.monotonic())
                        parts = []
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            self.closed_why = self.closed_why or f"connection lost ({type(exc).__name__})"
        except asyncio.CancelledError:
            self.closed_why = self.closed_why or "stopped"
            raise
        finally:
            self.open = False
            writer.transport.abort()


# --------------------------------------------------------------------------- measuring


@dataclass
class Push:
    seq: int
    user: User
    document: str
    sent: float  # monotonic, after the commit, before group_send
    expected: int  # the user's clients open at that moment


def _cpu(pid: int | None) -> float:
    """CPU seconds so far of a process and its descendants, those that exited too: the
    root's reaped children count in its children_* times (Postgres backends come and go)."""
    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        times = root.cpu_times()
        total = times.user + times.system + times.children_user + times.children_system
        for child in root.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                times = child.cpu_times()
                total += times.user + times.system
    except psutil.Error:
        return 0.0
    return total


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _ms(values: list[float], q: float) -> float:
    return report.percentile(values, q) * 1000.0


class Bench:
    def __init__(
        self,
        args: argparse.Namespace,
        services: Services,
        daphne: Daphne,
        cookie: str,
        users: list[User],
    ) -> None:
        self.args = args
        self.services = services
        self.daphne = daphne
        self.cookie = cookie
        self.users = users
        self.clients: list[Client] = []
        self.pushes: dict[int, Push] = {}
        self.receipts: list[tuple[Client, bytes, float]] = []
        self.seq = 0
        self.results: list[dict[str, Any]] = []
        self.layer: Any = None
        self.db: Any = None
        self.opened_early: tuple[int, list[str], float] | None = None

    # ---- set-up and tear-down (inside the event loop)

    async def open(self) -> None:
        import django
        import psycopg

        os.environ.update(self.services.env, DJANGO_SETTINGS_MODULE="config.settings")
        django.setup()
        from channels.layers import get_channel_layer

        self.layer = get_channel_layer()  # settings.CHANNEL_LAYERS, as workers use
        url = self.services.env["DATABASE_URL"]
        self.db = await psycopg.AsyncConnection.connect(url, autocommit=True)

    async def close(self) -> None:
        for client in self.clients:
            if client.task is not None:
                client.task.cancel()
            if client.writer is not None:
                client.writer.transport.abort()
        await asyncio.gather(*(c.task for c in self.clients if c.task), return_exceptions=True)
        if self.db is not None:
            await self.db.close()
        if self.layer is not None:
            with contextlib.suppress(Exception):
                await self.layer.close_pools()

    # ---- clients

    def on_message(self, client: Client, text: bytes, received: float) -> None:
        self.receipts.append((client, text, received))

    async def add_clients(self, total: int) -> tuple[int, list[str], float]:
        """Open clients until `total` exist; (how many opened, failures, seconds taken)."""
        new = []
        while len(self.clients) + len(new) < total:
            number = len(self.clients) + len(new)
            user = self.users[number // self.args.per_user]
            new.append(Client(number, user))
        gate = asyncio.Semaphore(self.args.connect_concurrency)
        failures: list[str] = []

        async def connect(client: Client) -> None:
            async with gate:
                try:
                    await asyncio.wait_for(
                        client.connect(self.daphne.port, self.cookie), CONNECT_TIMEOUT
                    )
                except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                    failures.append(f"{type(exc).__name__}: {exc}"[:200])
                    if client.writer is not None:
                        client.writer.transport.abort()
                    return
            client.user.clients.append(client)
            client.task = asyncio.create_task(client.listen(self.on_message))

        started = time.monotonic()
        await asyncio.gather(*(connect(client) for client in new))
        self.clients.extend(new)
        return len(new), failures, time.monotonic() - started

    # ---- pushing, as jobs.notify does after the commit

    async def push(self, batch: list[User]) -> None:
        from jobs.notify import JobChanged, user_group

        pushes, job_ids = [], []
        for user in batch:
            self.seq += 1
            document, job = user.documents[user.pushed % len(user.documents)]
            user.pushed += 1
            pushes.append((user, document, job, self.seq))
            job_ids.append(job)
        await self.db.execute(
            "UPDATE jobs_job AS j SET progress_done = v.seq, heartbeat_at = now() "
            "FROM unnest(%s::uuid[], %s::int[]) AS v(id, seq) WHERE j.id = v.id",
            (job_ids, [seq for *_, seq in pushes]),
        )
        sent = time.monotonic()
        sends = []  # (group, payload)
        for user, document, job, seq in pushes:
            expected = sum(1 for client in user.clients if client.open)
            self.pushes[seq] = Push(seq, user, document, sent, expected)
            payload = JobChanged(
                type="job.changed",
                job_id=job,
                document_id=document,
                status="processing",
                done=seq,
                total=PROGRESS_TOTAL,
            )
            sends.append((user_group(user.id), payload))
        # At most 50 at once: this process's redis-py pool, like daphne's, holds 100.
        for start in range(0, len(sends), 50):
            chunk = sends[start : start + 50]
            await asyncio.gather(*(self.layer.group_send(g, p) for g, p in chunk))

    async def push_for(self, users: list[User], seconds: float) -> list[int]:
        """Push to each user `rate` times a second, spread evenly; the sequences pushed."""
        rate, count = self.args.rate, len(users)
        start = time.monotonic() + TICK
        rounds = max(1, round(seconds * rate))
        due = [
            (start + (k + u / count) / rate, users[u]) for k in range(rounds) for u in range(count)
        ]
        first = self.seq + 1
        index = 0
        while index < len(due):
            now = time.monotonic()
            if due[index][0] > now:
                await asyncio.sleep(min(TICK, due[index][0] - now))
                continue
            batch = []
            while index < len(due) and due[index][0] <= now:
                batch.append(due[index][1])
                index += 1
            await self.push(batch)
        return list(range(first, self.seq + 1))

    async def wait_for(self, seqs: list[int], limit: float) -> None:
        """Until as many messages arrived as seqs owe (parsed later), or `limit` seconds."""
        wanted = sum(self.pushes[s].expected for s in seqs)
        deadline = time.monotonic() + limit
        while len(self.receipts) < wanted and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    # ---- a step

    def service_pids(self) -> tuple[int, int]:
        postgres = self.services.postgres.get_postmaster_info().pid  # type: ignore[union-attr]
        redis_pid = self.services.redis.process.pid  # type: ignore[union-attr]
        return postgres, redis_pid

    async def counters(self) -> dict[str, Any]:
        import redis.asyncio

        row = await (
            await self.db.execute(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                "WHERE datname = current_database()"
            )
        ).fetchone()
        client = redis.asyncio.Redis.from_url(self.services.env["REDIS_URL"])
        try:
            commands = (await client.info("stats"))["total_commands_processed"]
        finally:
            await client.aclose()
        postgres, redis_pid = self.service_pids()
        daphne = self.daphne.process.pid if self.daphne.process else None
        return dict(
            time=time.monotonic(),
            daphne=_cpu(daphne),
            postgres=_cpu(postgres),
            redis=_cpu(redis_pid),
            client=_self_cpu(),
            transactions=float(row[0]),
            redis_commands=float(commands),
        )

    async def step(self, target: int) -> dict[str, Any]:
        load = os.getloadavg()[0]
        opened, failures, connect_seconds = await self.add_clients(target)
        if self.opened_early is not None:  # the first step's clients, opened before warming up
            opened, failures, connect_seconds = self.opened_early
            self.opened_early = None
        await asyncio.sleep(1.0)  # let the last group_add and accept settle
        users = [user for user in self.users if user.clients]
        self.receipts = []
        before = await self.counters()
        seqs = await self.push_for(users, self.args.seconds)
        pushing = max(1, round(self.args.seconds * self.args.rate)) / self.args.rate
        await self.wait_for(seqs, self.args.drain)
        after = await self.counters()
        receipts, self.receipts = self.receipts, []
        return self.summarize(
            target, seqs, receipts, before, after, pushing, opened, failures, connect_seconds, load
        )

    def summarize(
        self,
        target: int,
        seqs: list[int],
        receipts: list[tuple[Client, bytes, float]],
        before: dict[str, Any],
        after: dict[str, Any],
        pushing: float,
        opened: int,
        failures: list[str],
        connect_seconds: float,
        load: float,
    ) -> dict[str, Any]:
        ours = set(seqs)
        latencies, seen, stale, wrong = [], set(), 0, 0
        per_client: dict[int, int] = {}
        for client, text, received in receipts:
            match, doc = SEQ.search(text), DOC.search(text)
            seq = int(match.group(1)) if match else -1
            if seq not in ours:
                stale += 1  # a late answer to an earlier step's push
                continue
            push = self.pushes[seq]
            if (
                doc is None
                or doc.group(1).decode() != push.document
                or push.user is not client.user
            ):
                wrong += 1
                continue
            if (client.number, seq) in seen:
                stale += 1  # read a newer row than its push: the consumer lagged a rotation
                continue
            seen.add((client.number, seq))
            latencies.append(received - push.sent)
            per_client[client.number] = per_client.get(client.number, 0) + 1
        expected = sum(self.pushes[s].expected for s in seqs)
        owed: dict[int, int] = {}
        for s in seqs:
            push = self.pushes[s]
            for client in push.user.clients:
                owed[client.number] = owed.get(client.number, 0) + 1
        short = sum(1 for number, n in owed.items() if per_client.get(number, 0) < n)
        wall = after["time"] - before["time"]
        rss = 0.0
        with contextlib.suppress(psutil.Error, IndexError):
            rss = psutil.Process(self.daphne.pids()[0]).memory_info().rss / 2**20
        delivered = len(latencies)
        drops = [c.closed_why for c in self.clients if c.task is not None and not c.open]
        return dict(
            clients=target,
            connected=sum(1 for c in self.clients if c.open),
            opened=opened,
            connect_failures=len(failures),
            first_failure=failures[0] if failures else "",
            drops=len(drops),
            first_drop=drops[0] if drops else "",
            rss_per_client_kib=math.nan,
            connect_s=round(connect_seconds, 2),
            users=len({s.user.id for s in (self.pushes[q] for q in seqs)}),
            pushes=len(seqs),
            push_s=round(pushing, 2),
            expected=expected,
            delivered=delivered,
            delivered_pct=100.0 * delivered / expected if expected else math.nan,
            clients_short=short,
            stale=stale,
            wrong=wrong,
            sent_per_s=expected / pushing if pushing else math.nan,
            delivered_per_s=delivered / pushing if pushing else math.nan,
            p50=_ms(latencies, 50),
            p95=_ms(latencies, 95),
            p99=_ms(latencies, 99),
            max=max(latencies, default=math.nan) * 1000.0,
            daphne_cpu=100.0 * (after["daphne"] - before["daphne"]) / wall,
            daphne_rss_mib=rss,
            postgres_cpu=100.0 * (after["postgres"] - before["postgres"]) / wall,
            redis_cpu=100.0 * (after["redis"] - before["redis"]) / wall,
            client_cpu=100.0 * (after["client"] - before["client"]) / wall,
            daphne_cpu_ms_per_delivery=(
                1000.0 * (after["daphne"] - before["daphne"]) / delivered if delivered else math.nan
            ),
            # Approximate: Postgres publishes other sessions' counts about once a second.
            sql_per_delivery=(
                (after["transactions"] - before["transactions"] - self.db_writes(seqs)) / delivered
                if delivered
                else math.nan
            ),
            redis_per_delivery=(
                (after["redis_commands"] - before["redis_commands"]) / delivered
                if delivered
                else math.nan
            ),
            load_1min=load,
            latencies_ms=[round(v * 1000.0, 2) for v in latencies],
        )

    def db_writes(self, seqs: list[int]) -> int:
        """The benchmark's own transactions in a step: one UPDATE per batch (an estimate:
        the batches are about one per tick) plus the two counter reads."""
        if not seqs:
            return 2
        span = self.pushes[seqs[-1]].sent - self.pushes[seqs[0]].sent
        return min(len(seqs), int(span / TICK) + 1) + 2

    async def warm_up(self) -> None:
        """One round of pushes to the first step's users, not measured (templates, plans)."""
        users = [user for user in self.users if user.clients]
        seqs = await self.push_for(users, 1.0 / self.args.rate)
        await self.wait_for(seqs, self.args.drain)
        self.receipts = []

    async def run(self) -> None:
        await self.open()
        try:
            for number, target in enumerate(self.args.steps):
                if number == 0:
                    self.opened_early = await self.add_clients(target)
                    await asyncio.sleep(0.5)
                    await self.warm_up()
                result = await self.step(target)
                if self.results:
                    first = self.results[0]
                    grown = result["daphne_rss_mib"] - first["daphne_rss_mib"]
                    more = result["connected"] - first["connected"]
                    result["rss_per_client_kib"] = 1024 * grown / more if more > 0 else math.nan
                self.results.append(result)
                print(line(result), flush=True)
                reason = stop_reason(result)
                if reason:
                    print(f"  stopping the ramp: {reason}", flush=True)
                    break
        finally:
            await self.close()


def stop_reason(r: dict[str, Any]) -> str:
    if r["connect_failures"]:
        return f"{r['connect_failures']} clients failed to connect ({r['first_failure']})"
    if r["drops"]:
        return f"{r['drops']} clients were dropped ({r['first_drop']})"
    if not r["p99"] <= STOP_P99_MS:
        return f"delivery p99 {r['p99']:.0f} ms > {STOP_P99_MS:.0f} ms"
    if not r["delivered_pct"] >= 100 * STOP_DELIVERED:
        return f"only {r['delivered_pct']:.1f} % of the updates arrived"
    return ""


def holds(r: dict[str, Any]) -> bool:
    return (
        r["connect_failures"] == 0
        and r["drops"] == 0
        and r["delivered"] == r["expected"] > 0
        and r["p99"] < HOLD_P99_MS
    )


def line(r: dict[str, Any]) -> str:
    text = (
        f"  {r['connected']:>5} clients: {r['delivered_per_s']:7.1f} updates/s delivered "
        f"({r['delivered_pct']:.1f} %), p50 {r['p50']:7.1f}  p95 {r['p95']:7.1f}  "
        f"p99 {r['p99']:7.1f} ms; daphne {r['daphne_cpu']:5.1f} % CPU, "
        f"{r['daphne_rss_mib']:.0f} MiB; {r['opened']} opened in {r['connect_s']:.1f} s; "
        f"failures {r['connect_failures']}, drops {r['drops']}"
    )
    if r["stale"] or r["wrong"]:
        text += f"; {r['stale']} late or repeated rows, {r['wrong']} rows not matching the push"
    return text


# --------------------------------------------------------------------------- the report


def _f(value: float, digits: int = 0) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def markdown(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        f"Run {meta['date']} with `{meta['command']}`, code {meta['code']}.",
        "",
        f"Machine: {meta['machine']}. Load average (1, 5, 15 min): {meta['load']}.",
        f"Workload: {meta['counts']}. No Dramatiq workers ran.",
        "",
        "| clients | users | updates/s sent / delivered | delivered | latency p50 / p95 / p99 / "
        "max ms | daphne CPU % | daphne RSS MiB | daphne CPU ms per update | Postgres / Redis / "
        "bench CPU % | SQL / Redis commands per update | new clients opened in s | connect "
        "failures / drops | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        latency = " / ".join(_f(r[key]) for key in ("p50", "p95", "p99", "max"))
        lines.append(
            f"| {r['connected']} | {r['users']} | {_f(r['sent_per_s'])} / "
            f"{_f(r['delivered_per_s'])} | {_f(r['delivered_pct'], 1)} % | {latency} | "
            f"{_f(r['daphne_cpu'])} | {_f(r['daphne_rss_mib'])} | "
            f"{_f(r['daphne_cpu_ms_per_delivery'], 2)} | {_f(r['postgres_cpu'])} / "
            f"{_f(r['redis_cpu'])} / {_f(r['client_cpu'])} | {_f(r['sql_per_delivery'], 1)} / "
            f"{_f(r['redis_per_delivery'], 1)} | {r['opened']} in {r['connect_s']:.1f} | "
            f"{r['connect_failures']} / {r['drops']} | "
            f"{r['load_1min']:.2f} |"
        )
    lines += ["", verdict(results, meta)]
    return "\n".join(lines) + "\n"


def verdict(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    held = [r for r in results if holds(r)]
    if held:
        best = max(held, key=lambda r: r["clients"])
        text = (
            f"**One daphne process held {best['connected']} clients** ({best['users']} users x "
            f"{meta['per_user']} tabs, {_f(best['delivered_per_s'])} updates/s) with every update "
            f"delivered and p99 {_f(best['p99'])} ms (< {HOLD_P99_MS:.0f} ms)"
        )
    else:
        best = None
        text = f"**No step held** (every update delivered, p99 < {HOLD_P99_MS:.0f} ms)"
    beyond = [
        r for r in results if not holds(r) and (best is None or r["clients"] > best["clients"])
    ]
    if beyond:
        first = beyond[0]
        why = stop_reason(first) or (
            f"p99 {_f(first['p99'])} ms, {_f(first['delivered_pct'], 1)} % delivered"
        )
        text += f"; at {first['clients']} clients: {why}."
    elif results and results[-1]["clients"] == max(meta["steps"]):
        text += "; that is the largest step: the ramp did not reach the limit."
    else:
        text += "."
    grown = [r["rss_per_client_kib"] for r in results if not math.isnan(r["rss_per_client_kib"])]
    if grown:
        text += (
            f" daphne's memory grew by about {grown[-1]:.0f} KiB per client "
            f"from the first step to the last."
        )
    return text


def describe(env: dict[str, str]) -> str:
    import channels
    import channels_redis
    import daphne
    import twisted

    machine = report.describe_machine(env).split("; client and servers")[0]
    machine = re.sub(r", gunicorn [^,;]*", "", machine)
    return (
        f"{machine}, daphne {daphne.__version__}, Twisted {twisted.__version__}, "
        f"channels {channels.__version__}, channels_redis {channels_redis.__version__}; "
        "clients, pusher and servers on the same machine over loopback"
    )


def metadata(args: argparse.Namespace, services: Services, load_before: str) -> dict[str, Any]:
    now = datetime.now(UTC)
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    return dict(
        load=f"{load_before} at the start, {load} at the end",
        date=now.strftime("%Y-%m-%d %H:%M UTC"),
        stamp=now.strftime("%Y%m%d-%H%M%S"),
        command=" ".join(["python -m bench.websockets", *sys.argv[1:]]),
        machine=describe(services.env),
        code=report.code_version(),
        steps=args.steps,
        per_user=args.per_user,
        counts=(
            f"steps of {', '.join(map(str, args.steps))} clients, {args.per_user} per user, "
            f"{args.documents} processing documents per user; {args.rate:g} push per user per "
            f"second (rotating over the documents) for {args.seconds:g} s per step, then up to "
            f"{args.drain:g} s for stragglers; new clients opened {args.connect_concurrency} "
            "at a time"
        ),
    )


# --------------------------------------------------------------------------- main


def _raise_fd_limit(clients: int) -> None:
    """Each client holds a socket here and one in daphne (which inherits the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = clients + 1024
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        if new < wanted:
            print(f"Warning: only {new} file descriptors allowed; large steps will fail.")


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    _raise_fd_limit(max(args.steps))
    root = Path(tempfile.mkdtemp(prefix="ingest-ws-bench-"))
    services = Services(root=root)
    daphne: Daphne | None = None
    bench: Bench | None = None
    started = time.monotonic()
    load_before = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    if os.getloadavg()[0] > 0.5:
        print(f"Warning: the machine is busy (load {load_before}); figures will be noisy.")
    try:
        print("Starting a private Postgres and Redis; migrating; signing users in...", flush=True)
        services = start_services(root)
        users = -(-max(args.steps) // args.per_user)
        cookie, made = prepare(services.env, users, args.documents)
        daphne = Daphne(services.env, root / "logs").start()
        print(f"daphne on port {daphne.port}; steps {args.steps}", flush=True)
        bench = Bench(args, services, daphne, cookie, made)
        asyncio.run(bench.run())
        meta = metadata(args, services, load_before)
    except KeyboardInterrupt:
        print("\nInterrupted: stopping daphne, Postgres and Redis of this run.", flush=True)
        return 130
    finally:
        if daphne is not None:
            daphne.stop()
        services.stop()
        logs = BASE_DIR / "var" / "bench" / "logs-websockets"
        shutil.rmtree(logs, ignore_errors=True)
        if (root / "logs").exists():
            shutil.copytree(root / "logs", logs)
        shutil.rmtree(root, ignore_errors=True)
    text = markdown(bench.results, meta)
    print("\n" + text)
    if not args.no_write:
        report.write_section(BASE_DIR / "BENCHMARKS.md", args.section, text)
    path = report.write_json(
        BASE_DIR / "var" / "bench",
        f"websockets-{meta['stamp']}",
        dict(meta=meta, results=bench.results),
    )
    print(f"Raw results: {path.relative_to(BASE_DIR)}; took {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
