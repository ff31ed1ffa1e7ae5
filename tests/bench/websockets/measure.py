"""The ramp: clients connect step by step while pushes flow; what each step measured."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import resource
import time
from dataclasses import dataclass
from typing import Any

import psutil

from tests.bench import report
from tests.bench.services import Services
from tests.bench.websockets import CONNECT_TIMEOUT, DOC, PAGES, PROGRESS_TOTAL, SEQ, TICK
from tests.bench.websockets.client import Client, User
from tests.bench.websockets.setup import Daphne
from tests.bench.websockets.summary import line, stop_reason

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
        new: list[Client] = []
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
        from jobs.models import Stage
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
                stage=Stage.EMBEDDING,
                pages_done=PAGES,
                pages_total=PAGES,
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
