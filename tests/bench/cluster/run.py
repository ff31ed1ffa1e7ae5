"""One run across the test hosts, start to end: hosts up, users on the client host, the
burst, the scale-out, the faults, drain, judge, report, hosts down.

The judgement is the load test's (tests/bench/loadtest/criteria.py), over what the users
saw on their host and what the database holds, with the cut worker host's in place of
the killed worker's: its jobs taken over and finished by a later attempt, and not one
write of its attempts landed once it was back (refusals read from its own /metrics).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

from tests.bench.cluster import judge
from tests.bench.cluster.faults import ClusterFaults
from tests.bench.cluster.scaler import Scaler
from tests.bench.cluster.scenario import ClusterParams
from tests.bench.cluster.stack import ClusterStack, run_in, users_command
from tests.bench.cluster.users import plan_json, read_answers
from tests.bench.cluster.users import stop as stop_users
from tests.bench.loadtest.run import Outcome, cleaned_up, drain_and_read, say
from tests.bench.loadtest.run import judge as judge_run
from tests.bench.loadtest.sampler import Sampler
from tests.bench.report import code_version, describe_machine
from tests.bench.services import manage

CUT_HOST = "worker2"  # the worker host without the sweeper
KILLED_WEB = 0  # web1; the scaler reads web2's /metrics
BURST_TIMEOUT = 600.0


def run(params: ClusterParams, out: Path) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix="ingest-cluster-"))
    outcome = Outcome(params, time.time())
    stack = ClusterStack(
        root,
        params.settings(),
        threads=params.threads,
        sweep_every=params.sweep_every,
        pooled=params.pooled,
        ocr=params.ocr_workers > 0,
        image=params.image or None,
    )
    with cleaned_up(outcome, stack.stop_processes, stack.logs, out, stack.stop):
        _run(stack, params, outcome, out)
    return outcome


def _tokens(stack: ClusterStack, env: dict[str, str], users: int) -> list[str]:
    from tests.bench.services import TOKEN_SCRIPT

    direct = {**env, "DATABASE_URL": stack.database_url, "DATABASE_POOL_MODE": "session"}
    return manage(direct, "shell", "-c", TOKEN_SCRIPT.format(users=users)).split()[-users:]


def _run(stack: ClusterStack, params: ClusterParams, outcome: Outcome, out: Path) -> None:
    say(f"making the test hosts in {stack.root}")
    env = stack.start()
    tokens = _tokens(stack, env, params.users)
    stack.start_apps(env)
    assert stack.receiver is not None
    outcome.receiver = stack.receiver
    outcome.database_url = database_url = stack.database_url
    machine = describe_machine({**env, "DATABASE_URL": database_url}).replace(
        "client and servers on the same machine over loopback",
        "each host a network namespace of this machine, on veth links to one bridge",
    )
    outcome.meta = dict(machine=machine, code=code_version())
    say(
        "hosts up: "
        + ", ".join(f"{name} {host.address}" for name, host in stack.cluster.hosts.items())
    )
    outcome.sampler = Sampler(database_url).start()
    client_host = stack.host("client")
    plan = client_host.root / "plan.json"
    plan.write_text(
        plan_json(
            servers=stack.web_addresses,
            tokens=tokens,
            seed=params.seed,
            scans=params.ocr_workers > 0,
            webhook_url=stack.receiver.url,
            pushers=params.pushers,
        )
    )
    scaler = Scaler(
        f"http://{stack.webs[1].host.address}:8000/metrics",
        database_url,
        running=2,
        threads_per_pod=params.threads,
        start_host=lambda: stack.start_worker_host("worker3", env),
        host="worker3",
        poll=params.poll,
    )
    say(f"the users start on the client host: {params.users} at once, over both web hosts")
    users = run_in(client_host, users_command(plan), env, stack.logs / "users.log")
    burst_file = client_host.root / "burst.json"
    deadline = time.monotonic() + BURST_TIMEOUT
    while not burst_file.exists():
        if users.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the users stopped before the burst was answered: {users.args!r}")
        time.sleep(0.2)
    began, ended, burst = read_answers(burst_file)
    scaler.start()  # its clock starts from the burst's queue
    outcome.marks.update(burst=began, burst_end=ended)
    say(f"burst answered in {ended - began:.1f} s, {sum(a.accepted for a in burst)} accepted")
    faults = ClusterFaults(stack)
    outcome.faults = faults.faults
    try:
        _faults(faults, params)
        say(f"pushing {params.settle:.0f} s more after the last fault")
        time.sleep(params.settle)
    finally:
        answers = stop_users(users, client_host.root)
        outcome.cluster["scale_out"] = scaler.stop().to_json()
    _, _, outcome.answers = read_answers(answers)
    drain_and_read(outcome)
    outcome.cluster["refused"] = refused = judge.refused_writes(stack, CUT_HOST)
    outcome.cluster["hosts"] = {n: h.address for n, h in stack.cluster.hosts.items()}
    outcome.restarts = list(stack.restarts)
    outcome.marks["end"] = time.time()
    assert outcome.final is not None
    cut = [
        judge.cut_jobs_back(
            outcome.faults,
            outcome.final,
            CUT_HOST,
            lease=params.lease,
            sweep_every=params.sweep_every,
        ),
        judge.nothing_landed(outcome.faults, outcome.final, CUT_HOST, refused),
    ]
    judge_run(outcome, stack.capacity(["worker1", "worker2", "worker3"]), cut)
    scale = outcome.cluster.get("scale_out", {})
    say(
        f"scale-out: metric to ready {scale.get('to_ready', math.nan):.1f} s, to first claim "
        f"{scale.get('to_claim', math.nan):.1f} s {scale.get('error', '')}"
    )


def _faults(faults: ClusterFaults, params: ClusterParams) -> None:
    steps = [
        (
            f"cut {CUT_HOST} off the network for {params.cut_seconds:.0f} s "
            f"(lease {params.lease} s)",
            lambda: faults.cut_worker_host(CUT_HOST, params.cut_seconds),
        ),
        (
            f"kill web{KILLED_WEB + 1} for {params.web_down:.0f} s",
            lambda: faults.kill_web_host(KILLED_WEB, params.web_down),
        ),
        ("restart Redis", faults.restart_redis),
        ("restart the S3 server", faults.restart_s3),
    ]
    for title, step in steps:
        time.sleep(params.gap)
        say(title)
        fault = step()
        say(f"  {fault.detail}; over after {fault.end - fault.start:.1f} s")
