"""The run's knobs, with defaults for 500 users and scaled ones for short runs (CI)."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass

FULL_RUN_USERS = 200  # from this many users on, the defaults are the full run's


@dataclass
class Params:
    users: int
    workers: int  # rundramatiq processes, one process group each
    threads: int  # threads per worker process
    lease: int  # INGEST_LEASE_SECONDS
    sweep_every: float  # requeue_stuck --loop
    grace: int  # INGEST_REQUEUE_GRACE_SECONDS (the service's default)
    gap: float  # seconds between faults (the first comes this long after the burst)
    window_429: float  # seconds the provider answers 429
    settle: float  # seconds of pushing after the last fault (the drain rate is measured there)
    drain_timeout: float  # longest wait for every job to finish after the last upload
    pushers: int  # clients uploading after the burst, one upload a second each
    backlog_extra: int  # INGEST_MAX_BACKLOG = users + this
    seed: int
    ocr_workers: int = 1  # worker-ocr processes of one thread each (the Procfile's)
    fast_lane_max_bytes: int = 2 * 1024 * 1024  # INGEST_FAST_LANE_MAX_BYTES (the default)
    direct_share: float = 0.0  # users who upload straight to the bucket (direct_client)
    readers: int = 4  # users reading search hits, chunks and content meanwhile (readers)

    @property
    def max_backlog(self) -> int:
        return self.users + self.backlog_extra

    def settings(self) -> dict[str, str]:
        """The service's environment for the run (config/settings.py reads them)."""
        return {
            "INGEST_MAX_BACKLOG": str(self.max_backlog),
            "INGEST_MAX_QUEUE_AGE_SECONDS": "900",
            "INGEST_MAX_INFLIGHT_PER_USER": "1000",
            "INGEST_UPLOAD_THROTTLE_RATE": "120/min",
            "INGEST_LEASE_SECONDS": str(self.lease),
            # Stated, not inherited: the run tells which lane a scan was found in by it.
            "INGEST_FAST_LANE_MAX_BYTES": str(self.fast_lane_max_bytes),
            "INGEST_REQUEUE_GRACE_SECONDS": str(self.grace),
            # The run's webhook receiver listens on loopback.
            "INGEST_WEBHOOK_ALLOW_PRIVATE": "true",
            "WEB_CONCURRENCY": "2",
            "WEB_THREADS": "8",
        }

    def to_json(self) -> dict:
        return asdict(self)


def parser(
    prog: str = "python -m tests.bench.loadtest", description: str = ""
) -> argparse.ArgumentParser:
    """The knobs as command-line options (the cluster run adds its own to these)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description
        or "500 users upload at once; a worker is killed, Redis and Postgres "
        "restarted, the provider says 429; then every criterion is judged and a report "
        "written to var/loadtest/<time>/.",
    )
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument(
        "--workers",
        type=int,
        default=3,
        help="worker processes, shared out fast lane first (3: 2 fast + 1 batch)",
    )
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument(
        "--ocr-workers",
        type=int,
        default=1,
        help="worker-ocr processes, of one thread each, on top of --workers (1)",
    )
    parser.add_argument(
        "--lease",
        type=int,
        default=60,
        help="INGEST_LEASE_SECONDS (the service's default: a dead worker's jobs are taken "
        "back when its death is known, not when the lease runs out)",
    )
    parser.add_argument("--sweep-every", type=float, help="sweeper interval (5 s; 2 s)")
    parser.add_argument("--grace", type=int, default=900, help="INGEST_REQUEUE_GRACE_SECONDS")
    parser.add_argument("--gap", type=float, help="seconds between faults (15; 8)")
    parser.add_argument("--window-429", type=float, default=20.0)
    parser.add_argument("--settle", type=float, help="pushing after the last fault (60 s; 30 s)")
    parser.add_argument("--drain-timeout", type=float, help="(900 s; 300 s)")
    parser.add_argument("--pushers", type=int, default=4)
    parser.add_argument(
        "--readers",
        type=int,
        default=4,
        help="users who search and read chunks and content while the others upload (4)",
    )
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument(
        "--direct-share",
        type=float,
        default=0.0,
        help="share of the users (0 to 1) who upload straight to the bucket: "
        "POST /api/uploads/, the presigned POST, the completion (0)",
    )
    return parser


def parse(argv: list[str] | None = None) -> Params:
    return from_args(parser().parse_args(argv))


def from_args(args: argparse.Namespace) -> Params:
    full = args.users >= FULL_RUN_USERS

    def pick(value: float | None, full_default: float, short_default: float) -> float:
        return value if value is not None else full_default if full else short_default

    return Params(
        users=args.users,
        workers=args.workers,
        threads=args.threads,
        lease=args.lease,
        sweep_every=pick(args.sweep_every, 5, 2),
        grace=args.grace,
        gap=pick(args.gap, 15, 8),
        window_429=args.window_429,
        settle=pick(args.settle, 60, 30),
        drain_timeout=pick(args.drain_timeout, 900, 300),
        pushers=args.pushers,
        # Room for a queue long enough to time its drain, even in a short run.
        backlog_extra=max(60, args.users // 20),
        seed=args.seed,
        ocr_workers=args.ocr_workers,
        direct_share=getattr(args, "direct_share", 0.0),
        readers=getattr(args, "readers", 4),
    )
