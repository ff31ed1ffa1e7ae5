"""One run, start to end: stack up, burst, pushers, faults, drain, judge, report, stack down."""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tests.bench.loadtest import client, criteria, direct_client, payloads, readers, webhooks
from tests.bench.loadtest.collect import Final, read_final
from tests.bench.loadtest.drain import drain as drain_criterion
from tests.bench.loadtest.faults import Fault, FaultInjector
from tests.bench.loadtest.sampler import Sampler
from tests.bench.loadtest.scenario import Params
from tests.bench.loadtest.stack import Environment
from tests.bench.report import code_version, describe_machine
from tests.bench.services import prepare_database


@dataclass
class Outcome:
    params: Params
    started: float
    answers: list[client.Answer] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    sampler: Sampler | None = None
    final: Final | None = None
    marks: dict[str, float] = field(default_factory=dict)  # burst end, last upload, ...
    results: list[criteria.Criterion] = field(default_factory=list)
    stalls: list[dict] = field(default_factory=list)
    drain: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    restarts: list[tuple[float, str, str]] = field(default_factory=list)  # by the supervisor
    receiver: webhooks.Receiver | None = None
    database_url: str = ""
    cluster: dict = field(default_factory=dict)  # the cluster run's own figures
    reads: list[readers.Read] = field(default_factory=list)  # the readers' (readers.py)

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(result.passed for result in self.results)


def say(text: str) -> None:
    print(f"[loadtest {time.strftime('%H:%M:%S')}] {text}", flush=True)


def run(params: Params, out: Path) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix="ingest-loadtest-"))
    outcome = Outcome(params, time.time())
    env = Environment(
        root,
        params.settings(),
        workers=params.workers,
        threads=params.threads,
        ocr_workers=params.ocr_workers,
    )
    with cleaned_up(outcome, env.stop_processes, env.logs, out, env.stop):
        _run(env, params, outcome)
    return outcome


@contextlib.contextmanager
def cleaned_up(
    outcome: Outcome,
    stop_processes: Callable[[], None],
    logs: Path,
    out: Path,
    remove: Callable[[], None],
) -> Iterator[None]:
    """Whatever happens inside: the sampler, the receiver and the processes stopped, their
    logs copied to `out`, and everything the run made removed (`remove`)."""
    try:
        yield
    finally:
        # A second Ctrl-C must not cut the clean-up short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        say("stopping what the run started")
        try:
            if outcome.sampler is not None:
                outcome.sampler.stop()
            if outcome.receiver is not None:
                outcome.receiver.stop()
            stop_processes()
            if logs.exists():
                shutil.copytree(logs, out / "logs", dirs_exist_ok=True)
        finally:
            remove()  # whatever failed above: nothing of the run may outlive it


def _run(env: Environment, params: Params, outcome: Outcome) -> None:
    say(f"starting a private stack in {env.root}")
    service_env = env.start_services()
    # The readers' accounts are their own, after the users' (readers.stock).
    every_token = prepare_database(service_env, params.users + params.readers)
    tokens, reader_tokens = every_token[: params.users], every_token[params.users :]
    files = payloads.corpus_files()
    # Scans only with a worker-ocr to read them.
    uploads = payloads.burst(params.users, files, seed=params.seed, scans=params.ocr_workers > 0)
    stack = env.start_stack(service_env, params.sweep_every)
    database_url = service_env["DATABASE_URL"]
    outcome.meta = dict(machine=describe_machine(service_env), code=code_version())
    outcome.database_url = database_url
    outcome.receiver = receiver = webhooks.Receiver().start()
    client.warm_up(stack.web_port, tokens[-16:])
    if reader_tokens:
        say(f"{len(reader_tokens)} readers' accounts get {readers.STOCK} documents each")
        readers.stock(stack.web_port, reader_tokens, files)
    outcome.sampler = Sampler(database_url).start()
    mib = sum(upload.bytes for upload in uploads) / 2**20
    say(f"burst: {len(uploads)} users upload at once ({mib:.0f} MiB)")
    outcome.marks["burst"] = time.time()
    send = direct_client.sender(params.direct_share) if params.direct_share else None
    outcome.answers = client.burst(stack.web_port, tokens, uploads, receiver.url, send=send)
    outcome.marks["burst_end"] = time.time()
    accepted = sum(1 for a in outcome.answers if a.accepted)
    took = outcome.marks["burst_end"] - outcome.marks["burst"]
    say(f"burst answered in {took:.1f} s, {accepted} accepted")
    pushers = client.Pushers(
        stack.web_port,
        tokens,
        lambda n: payloads.pushed_upload(files, n),
        params.pushers,
        webhook_url=receiver.url,
        send=send,
    ).start()
    reading = readers.Readers(stack.web_port, reader_tokens, params.readers).start()
    injector = FaultInjector(env, stack, database_url)
    outcome.faults = injector.faults
    try:
        _faults(injector, params)
        say(f"pushing {params.settle:.0f} s more after the last fault")
        time.sleep(params.settle)
    finally:
        outcome.answers += pushers.stop()
        outcome.reads = reading.stop()
    drain_and_read(outcome)
    assert outcome.final is not None  # drain_and_read read it
    outcome.restarts = list(stack.restarts)
    outcome.marks["end"] = time.time()
    judge(outcome, stack.capacity, [criteria.killed_jobs_back(outcome.faults, outcome.final)])


def drain_and_read(outcome: Outcome) -> None:
    """After the last upload: wait for every accepted job to end, read what the database
    holds (into `outcome.final`), and wait for the endings' webhooks."""
    params, receiver = outcome.params, outcome.receiver
    assert outcome.sampler is not None
    assert receiver is not None
    outcome.marks["last_upload"] = max(a.start + a.seconds for a in outcome.answers)
    _wait_for_drain(outcome.database_url, outcome, params)
    outcome.sampler.stop()
    outcome.final = read_final(outcome.database_url, params.fast_lane_max_bytes)
    ended = webhooks.ended_jobs(outcome.final, criteria.accepted_jobs(outcome.answers))
    say(f"waiting for the webhooks of {len(ended)} ended documents")
    waited = webhooks.wait_for(receiver, ended, timeout=params.drain_timeout / 3)
    say(f"  {len(receiver.job_ids() & ended)} arrived after {waited:.0f} s")


def _faults(injector: FaultInjector, params: Params) -> None:
    steps = [
        ("SIGKILL a worker process holding jobs", injector.kill_worker),
        ("restart Redis", injector.restart_redis),
        ("restart Postgres", injector.restart_postgres),
        ("restart the S3 server", injector.restart_s3),
        (
            f"provider answers 429 for {params.window_429:.0f} s",
            lambda: injector.provider_429(params.window_429),
        ),
    ]
    for title, step in steps:
        time.sleep(params.gap)
        say(title)
        fault = step()
        say(f"  {fault.detail}; over after {fault.end - fault.start:.1f} s")


def _unfinished(database_url: str, job_ids: list[str]) -> int | None:
    try:
        with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(
                "SELECT count(*) FROM jobs_job WHERE id::text = ANY(%s) "
                "AND status IN ('queued', 'processing')",
                [job_ids],
            ).fetchone()
    except psycopg.Error:
        return None
    return row[0] if row else None


def _wait_for_drain(database_url: str, outcome: Outcome, params: Params) -> None:
    job_ids = criteria.accepted_jobs(outcome.answers)
    deadline = outcome.marks["last_upload"] + params.drain_timeout
    say(f"waiting for {len(job_ids)} accepted documents to finish")
    last_report = 0.0
    while time.time() < deadline:
        left = _unfinished(database_url, job_ids)
        if left == 0:
            say("every accepted document is finished")
            return
        if time.time() - last_report > 15:
            say(f"  {left} still queued or processing")
            last_report = time.time()
        time.sleep(1.0)
    say(f"gave up waiting after {params.drain_timeout:.0f} s")


def judge(
    outcome: Outcome, capacity: dict[str, int], fault_criteria: list[criteria.Criterion]
) -> None:
    """Every criterion, from what the clients saw and what the database holds; the
    `fault_criteria` are the run's own (a killed worker's jobs, a cut-off host's)."""
    final, sampler, params = outcome.final, outcome.sampler, outcome.params
    assert final is not None
    assert sampler is not None
    burst = [a for a in outcome.answers if a.phase == "burst"]
    drain, outcome.drain = drain_criterion(
        sampler.samples, final, outcome.answers, outcome.marks["last_upload"], params.settle
    )
    stall, outcome.stalls = criteria.no_stall(
        final,
        sampler.retry_due,
        capacity,
        outcome.faults,
        outcome.marks["end"],
        params.sweep_every,
    )
    outcome.results = [
        criteria.ack_like_for_like(burst),
        *criteria.direct_acks(burst),
        criteria.clean_answers(outcome.answers),
        *criteria.nothing_lost(outcome.answers, final),
        *criteria.scans_read(burst, final),
        *fault_criteria,
        drain,
        stall,
    ]
    if outcome.reads:
        outcome.results.append(readers.answered(outcome.reads))
    if outcome.receiver is not None:
        ended = webhooks.ended_jobs(final, criteria.accepted_jobs(outcome.answers))
        outcome.results.append(webhooks.delivered(outcome.receiver, ended, outcome.database_url))
