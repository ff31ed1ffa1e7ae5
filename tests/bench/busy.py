"""`python -m tests.bench.busy`: do uploads stay fast while the workers are busy on one machine?

The web process and the Dramatiq workers share the machine's cores. The Procfile starts
the workers at a lower CPU priority (`nice`: WORKER_NICE 10, WORKER_BATCH_NICE 15), so
when both want the CPU, accepting an upload comes first and extraction waits its turn.
This measures what that buys, on a private stack started as the Procfile starts it
(gunicorn 2 x 8, 2 fast + 1 batch worker processes x 4 threads, the sweeper):

- **idle**: a burst of N uploads (one per user, released together) while no worker runs;
  the workers start after the last answer.
- **busy**: a few accounts first upload multi-page PDFs until every worker thread is
  extracting; then the same burst. Drain is the time from the burst to the last job
  (theirs and the burst's) finished.

Both rounds run twice, each pair on a fresh stack: with the Procfile's priorities and with
every process at the same priority (nice 0), to show that the workers' lower priority
speeds up the answers without slowing the drain. Targets (issue 13): busy burst p99 <= 1.5
x the idle burst p99 (with the Procfile's priorities), and the busy drain no more than 10 %
longer than at the same priority. Writes the `bench-busy` block of the results page
(docs/working/benchmark-results.md).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.bench.loadtest import client, payloads
from tests.bench.loadtest.payloads import CorpusFile, Upload
from tests.bench.loadtest.scenario import Params
from tests.bench.loadtest.stack import Environment, LoadStack
from tests.bench.report import RESULTS, code_version, describe_machine, percentile, write_section
from tests.bench.services import prepare_database

P99_LIMIT = 1.5  # busy burst p99 / idle burst p99, with the Procfile's priorities
DRAIN_LIMIT = 1.10  # busy drain with priorities / at the same priority
PRELOAD_ACCOUNTS = 4
BATCH_BYTES = 5 * 2**20 // 2  # over the fast lane's 2 MiB


@dataclass
class Round:
    name: str
    answers: list[client.Answer]
    drain: float  # burst start to the last job finished, seconds
    busy_at_burst: int  # jobs processing when the burst began

    def ack(self, q: float) -> float:
        return percentile([a.seconds for a in self.answers if a.accepted], q)

    @property
    def accepted(self) -> int:
        return sum(1 for a in self.answers if a.accepted)


def say(text: str) -> None:
    print(f"[tests.bench.busy {time.strftime('%H:%M:%S')}] {text}", flush=True)


def short_uploads(files: list[CorpusFile], count: int) -> list[Upload]:
    """The burst: 1-4 page files under 1 MB in turn, each body unique."""
    short = sorted((f for f in files if f.pages <= 4 and f.bytes < 1_000_000), key=lambda f: f.name)
    return [_unique(short[n % len(short)]) for n in range(count)]


def preload_uploads(files: list[CorpusFile], count: int) -> list[Upload]:
    """What keeps the workers busy: the 12+ page files in turn, every third one padded
    past INGEST_FAST_LANE_MAX_BYTES (2 MiB) so that the batch lane has work too."""
    long = sorted((f for f in files if f.pages >= 12), key=lambda f: f.pages)
    return [
        _unique(long[n % len(long)], padding_to=BATCH_BYTES if n % 3 == 2 else 0)
        for n in range(count)
    ]


def _unique(source: CorpusFile, padding_to: int = 0) -> Upload:
    body = payloads.with_comment(source.path.read_bytes(), payloads.nonce(), padding_to)
    return Upload(source.name, payloads.kind_by_size(len(body)), source.pages, body)


def _count(db: psycopg.Connection, sql: str) -> int:
    row = db.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _wait_for(db: psycopg.Connection, sql: str, done: int, timeout: float) -> float:
    """Seconds until `sql` counts `done`; raises after `timeout`."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if _count(db, sql) == done:
            return time.monotonic() - began
        time.sleep(0.25)
    raise RuntimeError(f"not done after {timeout:.0f} s: {sql}")


UNFINISHED = "SELECT count(*) FROM jobs_job WHERE status IN ('queued', 'processing')"
PROCESSING = "SELECT count(*) FROM jobs_job WHERE status = 'processing'"


def idle_round(
    stack: LoadStack, db: psycopg.Connection, tokens: list[str], uploads: list[Upload]
) -> Round:
    for worker in stack.workers:
        stack.held.add(worker.name)
        worker.stop()
    began = time.monotonic()
    answers = client.burst(stack.web_port, tokens, uploads)
    for worker in stack.workers:
        worker.start()
        stack.held.discard(worker.name)
    drain = _wait_for(db, UNFINISHED, 0, 900) + (time.monotonic() - began)
    return Round("idle", answers, drain, 0)


def busy_round(
    stack: LoadStack,
    db: psycopg.Connection,
    tokens: list[str],
    uploads: list[Upload],
    preload: list[Upload],
) -> Round:
    owners = tokens[-PRELOAD_ACCOUNTS:]
    for number, item in enumerate(preload):
        answer = client.upload(stack.web_port, owners[number % len(owners)], item, "preload")
        if not answer.accepted:
            raise RuntimeError(f"a preload upload was refused: {answer.status} {answer.code}")
    # Every worker thread extracting (the fair share lets four accounts fill both lanes).
    deadline = time.monotonic() + 30
    while _count(db, PROCESSING) < sum(stack.capacity.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    busy = _count(db, PROCESSING)
    began = time.monotonic()
    answers = client.burst(stack.web_port, tokens[: len(uploads)], uploads)
    drain = _wait_for(db, UNFINISHED, 0, 1800) + (time.monotonic() - began)
    return Round("busy", answers, drain, busy)


def run_pair(args: argparse.Namespace, nice: int | None) -> tuple[Round, Round, dict]:
    """The idle and the busy round on one fresh private stack."""
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-busy-"))
    params = Params(
        users=args.burst,
        workers=args.workers,
        threads=args.threads,
        lease=60,
        sweep_every=5,
        grace=900,
        gap=0,
        window_429=0,
        settle=0,
        drain_timeout=1800,
        pushers=0,
        backlog_extra=3 * args.burst,  # never refused: every upload is measured
        seed=9,
    )
    # The embedded default's provider, as `make run` has it: embeddings are computed in
    # the workers (at their priority), not by a fake server in this process.
    settings = params.settings() | {"INGEST_EMBED_PROVIDER": "hashing"}
    env = Environment(root, settings, workers=args.workers, threads=args.threads, nice=nice)
    try:
        service_env = env.start_services()
        tokens = prepare_database(service_env, args.burst + PRELOAD_ACCOUNTS)
        stack = env.start_stack(service_env, sweep_every=5)
        # One connection polls the job counts for the whole pair (Postgres stays up).
        with psycopg.connect(
            service_env["DATABASE_URL"], autocommit=True, connect_timeout=10
        ) as db:
            meta = {
                "machine": describe_machine(service_env),
                "capacity": sum(stack.capacity.values()),
            }
            files = payloads.corpus_files()
            client.warm_up(stack.web_port, tokens[:16])
            label = "the Procfile's priorities" if nice is None else f"every process at nice {nice}"
            say(f"{label}: idle round, a burst of {args.burst}")
            idle = idle_round(stack, db, tokens[: args.burst], short_uploads(files, args.burst))
            say(f"  p99 {idle.ack(99):.2f} s; busy round, {args.preload} documents first")
            busy = busy_round(
                stack,
                db,
                tokens,
                short_uploads(files, args.burst),
                preload_uploads(files, args.preload),
            )
            say(f"  p99 {busy.ack(99):.2f} s, drain {busy.drain:.1f} s")
            return idle, busy, meta
    finally:
        env.stop()


def report(pairs: dict[str, tuple[Round, Round]], args: argparse.Namespace, meta: dict) -> str:
    nice_idle, nice_busy = pairs["procfile"]
    same_idle, same_busy = pairs["same"]
    p99_ratio = nice_busy.ack(99) / nice_idle.ack(99)
    drain_ratio = nice_busy.drain / same_busy.drain
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        "`python -m tests.bench.busy`"
        f" (code {code_version()}): bursts of {args.burst} uploads of 1-4 page PDFs, one per "
        f"user; busy rounds start once {args.preload} documents of 12-117 pages from "
        f"{PRELOAD_ACCOUNTS} accounts hold the workers ({meta['capacity']} threads).",
        "",
        f"Machine: {meta['machine']}.",
        "",
        "| priorities | round | jobs processing at the burst | accepted | ack p50 / p95 / p99 s "
        "| drain s |",
        "|---|---|---|---|---|---|",
    ]
    for label, key in (("Procfile (workers nice 10/15)", "procfile"), ("all nice 0", "same")):
        for one in pairs[key]:
            lines.append(
                f"| {label} | {one.name} | {one.busy_at_burst} | {one.accepted}/{len(one.answers)}"
                f" | {one.ack(50):.2f} / {one.ack(95):.2f} / {one.ack(99):.2f} | {one.drain:.1f} |"
            )
    verdict = "PASS" if p99_ratio <= P99_LIMIT else "FAIL"
    drain_verdict = "PASS" if drain_ratio <= DRAIN_LIMIT else "FAIL"
    same_ratio = same_busy.ack(99) / same_idle.ack(99)
    lines += [
        "",
        "| target | measured | limit | result |",
        "|---|---|---|---|",
        f"| busy burst p99 / idle burst p99, Procfile priorities | {p99_ratio:.2f}x "
        f"| <= {P99_LIMIT}x | {verdict} |",
        f"| busy drain, Procfile priorities / all nice 0 | {drain_ratio:.2f}x "
        f"| <= {DRAIN_LIMIT:.2f}x | {drain_verdict} |",
        f"| busy burst p99 / idle burst p99, all nice 0 | {same_ratio:.2f}x | not judged "
        "| reference |",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.busy", description=__doc__)
    parser.add_argument("--burst", type=int, default=500)
    parser.add_argument("--preload", type=int, default=24)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    parser.add_argument(
        "--priorities",
        default="procfile,same",
        help="which pairs to run: procfile (the Procfile's nice levels), same (all nice 0)",
    )
    args = parser.parse_args()
    pairs: dict[str, tuple[Round, Round]] = {}
    meta: dict = {}
    for key, nice in (("procfile", None), ("same", 0)):
        if key in args.priorities.split(","):
            idle, busy, meta = run_pair(args, nice)
            pairs[key] = (idle, busy)
    if len(pairs) < 2:
        return  # one pair: its figures were printed as it ran
    text = report(pairs, args, meta)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-busy", text, by="python -m tests.bench.busy")


if __name__ == "__main__":
    main()
