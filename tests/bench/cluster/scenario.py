"""The cluster run's knobs: the load test's, and the cut, the web host's downtime, the
scale-out's polling and whether the hosts reach Postgres through PgBouncer."""

from __future__ import annotations

from dataclasses import dataclass

from tests.bench.loadtest import scenario

LEASE = 20  # INGEST_LEASE_SECONDS of the run: the cut outlasts it, so keep it short


@dataclass
class ClusterParams(scenario.Params):
    cut_seconds: float = 30.0  # a worker host's link down, longer than a lease
    web_down: float = 10.0  # a killed web host is started again after this
    poll: float = 5.0  # the scale-out reads the metrics this often
    pooled: bool = True  # through PgBouncer (transaction pooling), else straight to Postgres
    image: str = ""  # the app hosts' processes as containers of this image (make image)


def parse(argv: list[str] | None = None) -> ClusterParams:
    parser = scenario.parser(
        "python -m tests.bench.cluster",
        "The load test across test hosts (network namespaces): two web hosts, two worker "
        "hosts, a data host and a client host; a worker host is cut off for longer than "
        "a lease, a web host killed, Redis and the S3 server restarted; a third worker "
        "host is started when the metrics ask for more. Report in var/loadtest/<time>/.",
    )
    parser.set_defaults(lease=LEASE)
    parser.add_argument("--cut-seconds", type=float, help="the cut (default: 1.5 leases)")
    parser.add_argument("--web-down", type=float, default=10.0)
    parser.add_argument("--poll", type=float, default=5.0, help="scale-out polling (5 s)")
    parser.add_argument(
        "--direct", action="store_true", help="to Postgres itself, not through PgBouncer"
    )
    parser.add_argument(
        "--image",
        default="",
        help="run each app host's Procfile lines as containers of this image (make image "
        "builds ingest:local), not from the checkout",
    )
    args = parser.parse_args(argv)
    base = scenario.from_args(args)
    return ClusterParams(
        **vars(base),
        cut_seconds=args.cut_seconds or 1.5 * args.lease,
        web_down=args.web_down,
        poll=args.poll,
        pooled=not args.direct,
        image=args.image,
    )
