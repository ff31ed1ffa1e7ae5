"""`python -m tests.bench.webhook_fairness`: can one account's hanging webhook receivers slow
another account's documents?

On a private stack started as the Procfile starts it (web, ws, a worker per lane, the
webhook deliverer `worker-webhooks`, the sweeper), account B uploads a 1-page PDF and
waits until it has succeeded, `--rounds` times in turn: first on the idle stack, then after
account A has registered the endpoint limit's worth of receivers that never answer
(INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER, 10) and finished `--jobs` documents (50): 500
deliveries that each hold a thread for the attempt's whole 10 s budget. Target (issue 22):
B's median time from upload to succeeded with A's backlog within 1.3x of the idle one.
Also shown: how many of A's attempts were under way at once (at most
INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER, 2), and B's own webhook's arrival time. Writes the
`bench-webhooks` block of docs/working/benchmark-results.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg

from tests.bench.loadtest import client, payloads
from tests.bench.loadtest.payloads import Upload
from tests.bench.loadtest.scenario import Params
from tests.bench.loadtest.stack import Environment
from tests.bench.report import RESULTS, code_version, describe_machine, write_section
from tests.bench.services import prepare_database

RATIO_LIMIT = 1.3
ENDPOINTS = 10  # the default endpoint limit


class Receivers:
    """One local HTTP server: paths under /hang/ never answer (until closed), others
    answer 204 at once; every request's path and arrival and end time are kept."""

    def __init__(self) -> None:
        self.closing = threading.Event()
        self.lock = threading.Lock()
        # [path, arrived, ended]: ended is None while the request is under way.
        self.seen: list[list] = []
        receivers = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                entry = [self.path, time.monotonic(), None]
                with receivers.lock:
                    receivers.seen.append(entry)
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.startswith("/hang/"):
                    # Until the sender gives up (its 10 s budget) and hangs up.
                    self.connection.settimeout(120)
                    with contextlib.suppress(OSError):
                        while self.connection.recv(1) and not receivers.closing.is_set():
                            pass
                else:
                    self.send_response(204)
                    self.end_headers()
                entry[2] = time.monotonic()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def arrivals(self, prefix: str) -> list[tuple[float, float]]:
        """(arrived, ended) of each request to paths under `prefix`; one still under way
        ends now."""
        now = time.monotonic()
        with self.lock:
            return [(a, e or now) for path, a, e in self.seen if path.startswith(prefix)]

    def most_at_once(self, prefix: str) -> int:
        spans = self.arrivals(prefix)
        return max((sum(1 for a, e in spans if a <= t < e) for t, _ in spans), default=0)

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()


def say(text: str) -> None:
    print(f"[tests.bench.webhook_fairness {time.strftime('%H:%M:%S')}] {text}", flush=True)


def api(port: int, token: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"{}")


def one_page(count: int) -> list[Upload]:
    files = sorted(
        (f for f in payloads.corpus_files() if f.pages == 1 and f.bytes < 500_000),
        key=lambda f: f.name,
    )
    uploads = []
    for n in range(count):
        source = files[n % len(files)]
        body = payloads.with_comment(source.path.read_bytes(), payloads.nonce(), 0)
        uploads.append(Upload(source.name, payloads.kind_by_size(len(body)), 1, body))
    return uploads


def ready_time(port: int, token: str, item: Upload, webhook_url: str = "") -> float:
    """Seconds from sending the upload to its job's `succeeded`."""
    began = time.monotonic()
    answer = client.upload(port, token, item, "bench", webhook_url)
    if not answer.accepted:
        raise RuntimeError(f"upload refused: {answer.status} {answer.code} {answer.error}")
    while True:
        status = api(port, token, f"/api/jobs/{answer.job_id}/")["status"]
        if status == "succeeded":
            return time.monotonic() - began
        if status in ("failed", "cancelled") or time.monotonic() - began > 300:
            raise RuntimeError(f"job {answer.job_id} ended {status}")
        time.sleep(0.05)


def _succeeded(db: psycopg.Connection) -> int:
    row = db.execute("SELECT count(*) FROM jobs_job WHERE status = 'succeeded'").fetchone()
    return int(row[0]) if row else 0


def run(args: argparse.Namespace) -> dict:
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-webhooks-"))
    params = Params(
        users=2,
        workers=2,
        threads=args.threads,
        lease=60,
        sweep_every=5,
        grace=900,
        gap=0,
        window_429=0,
        settle=0,
        drain_timeout=600,
        pushers=0,
        backlog_extra=1000,
        seed=5,
    )
    settings = params.settings() | {
        "INGEST_EMBED_PROVIDER": "hashing",
        "INGEST_WEBHOOK_ALLOW_PRIVATE": "true",  # the receivers are on 127.0.0.1
    }
    env = Environment(root, settings, workers=2, threads=args.threads)
    receivers = Receivers()
    try:
        service_env = env.start_services()
        alice, bob = prepare_database(service_env, 2)
        stack = env.start_stack(service_env, sweep_every=5)
        port = stack.web_port
        client.warm_up(port, [alice, bob])
        machine = describe_machine(service_env)
        bob_hook = receivers.url("/bob")

        say(f"idle: {args.rounds} uploads of B in turn")
        idle = [ready_time(port, bob, item, bob_hook) for item in one_page(args.rounds)]
        say(f"  median {statistics.median(idle):.2f} s")

        for n in range(ENDPOINTS):
            api(port, alice, "/api/webhooks/", {"url": receivers.url(f"/hang/{n}")})
        say(f"A: {ENDPOINTS} endpoints that never answer, {args.jobs} documents")
        for item in one_page(args.jobs):
            answer = client.upload(port, alice, item, "bench")
            if not answer.accepted:
                raise RuntimeError(f"A's upload refused: {answer.status} {answer.code}")
        with psycopg.connect(service_env["DATABASE_URL"], autocommit=True) as db:
            while _succeeded(db) < args.rounds + args.jobs:  # B's idle ones and A's
                time.sleep(0.5)
        time.sleep(2)  # A's deliveries under way

        say(f"busy: {args.rounds} uploads of B in turn, A's {ENDPOINTS * args.jobs} hanging")
        bob_heard_before = len(receivers.arrivals("/bob"))
        busy = [ready_time(port, bob, item, bob_hook) for item in one_page(args.rounds)]
        time.sleep(3)
        bob_heard = len(receivers.arrivals("/bob")) - bob_heard_before
        say(f"  median {statistics.median(busy):.2f} s")
        return {
            "machine": machine,
            "idle": idle,
            "busy": busy,
            "alice_at_once": receivers.most_at_once("/hang/"),
            "alice_attempts": len(receivers.arrivals("/hang/")),
            "bob_heard": bob_heard,
        }
    finally:
        receivers.close()
        env.stop()


def report(result: dict, args: argparse.Namespace) -> str:
    idle, busy = statistics.median(result["idle"]), statistics.median(result["busy"])
    ratio = busy / idle
    verdict = "PASS" if ratio <= RATIO_LIMIT else "FAIL"
    return (
        "\n".join(
            [
                f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
                f"`python -m tests.bench.webhook_fairness` (code {code_version()}): account B "
                f"uploads a 1-page PDF {args.rounds} times in turn, first on an idle stack, then "
                f"with account A's {ENDPOINTS} endpoints that never answer and {args.jobs} "
                f"finished documents ({ENDPOINTS * args.jobs} deliveries). Workers: 1 fast + 1 "
                f"batch process x {args.threads} threads; the deliverer {args.threads} threads.",
                "",
                f"Machine: {result['machine']}.",
                "",
                "| B's upload to succeeded | median s | min / max s |",
                "|---|---|---|",
                f"| idle stack | {idle:.2f} | {min(result['idle']):.2f} / "
                f"{max(result['idle']):.2f} |",
                f"| A's deliveries hanging | {busy:.2f} | {min(result['busy']):.2f} / "
                f"{max(result['busy']):.2f} |",
                "",
                "| target | measured | limit | result |",
                "|---|---|---|---|",
                f"| B's median with A's backlog / idle | {ratio:.2f}x | <= {RATIO_LIMIT}x "
                f"| {verdict} |",
                f"| A's attempts under way at once | {result['alice_at_once']} | <= 2 | "
                f"{'PASS' if result['alice_at_once'] <= 2 else 'FAIL'} |",
                f"| B's webhooks heard during the busy round | {result['bob_heard']} of "
                f"{args.rounds} | all | "
                f"{'PASS' if result['bob_heard'] >= args.rounds else 'FAIL'} |",
                f"| A's attempts meanwhile | {result['alice_attempts']} | not judged | reference |",
            ]
        )
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.webhook_fairness", description=__doc__
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    text = report(run(args), args)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-webhooks", text, by="python -m tests.bench.webhook_fairness")


if __name__ == "__main__":
    main()
