"""The users, run on the client host: `python -m tests.bench.cluster.users <plan.json>`.

The load test's users (tests/bench/loadtest/client.py) from a machine of their own: they
warm both web hosts, upload the burst spread over them, then keep pushing until SIGTERM.
An upload that meets no answer (a web host lost) is sent to the other with the same
Idempotency-Key, as a load balancer would. What they saw is written beside the plan:
`burst.json` as soon as the burst is answered (the run's faults start then), `answers.json`
when they stop.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.bench.loadtest import client, payloads


def main(plan_path: str) -> int:
    plan = json.loads(Path(plan_path).read_text())
    out = Path(plan_path).parent
    targets = [(host, int(port)) for host, port in plan["servers"]]
    tokens = plan["tokens"]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    files = payloads.corpus_files()
    uploads = payloads.burst(len(tokens), files, seed=plan["seed"], scans=plan["scans"])
    client.warm_up(targets, tokens[-16:])
    began = time.time()
    answers = client.burst(targets, tokens, uploads, plan["webhook_url"], failover=True)
    ended = time.time()
    _write(out / "burst.json", {"began": began, "ended": ended, "answers": answers})
    pushers = client.Pushers(
        targets,
        tokens,
        lambda n: payloads.pushed_upload(files, n),
        plan["pushers"],
        webhook_url=plan["webhook_url"],
        failover=True,
    ).start()
    while not stop.wait(0.5):
        pass
    pushed = pushers.stop()
    _write(out / "answers.json", {"began": began, "ended": ended, "answers": answers + pushed})
    return 0


def _write(path: Path, data: dict) -> None:
    """Whole or not at all: the run reads the file as soon as it exists."""
    data = {**data, "answers": [answer.to_json() for answer in data["answers"]]}
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(data))
    partial.rename(path)


def plan_json(
    *,
    servers: list[tuple[str, int]],
    tokens: list[str],
    seed: int,
    scans: bool,
    webhook_url: str,
    pushers: int,
) -> str:
    """What the users are to do (the file `main` reads)."""
    plan = dict(servers=servers, tokens=tokens, seed=seed, scans=scans)
    return json.dumps(plan | dict(webhook_url=webhook_url, pushers=pushers))


def stop(users: subprocess.Popen, out: Path, timeout: float = 180.0) -> Path:
    """SIGTERM the users (their process group: the host's nsenter passes no signal on,
    and ends at once) and wait for what they write as they stop."""
    os.killpg(users.pid, signal.SIGTERM)
    answers = out / "answers.json"
    deadline = time.monotonic() + timeout
    while not answers.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the users wrote no {answers.name} in {timeout:.0f} s")
        time.sleep(0.2)
    return answers


def read_answers(path: Path) -> tuple[float, float, list[client.Answer]]:
    data = json.loads(path.read_text())
    return data["began"], data["ended"], [client.Answer(**a) for a in data["answers"]]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
