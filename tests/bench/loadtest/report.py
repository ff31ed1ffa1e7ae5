"""results.json and a self-contained report.html (inline SVG, inline CSS, nothing fetched)."""

from __future__ import annotations

import html
import json
import signal
import time
from collections.abc import Callable, Collection
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.bench.loadtest import plots
from tests.bench.loadtest.payloads import LONG, PADDED
from tests.bench.loadtest.run import Outcome, say
from tests.bench.report import percentile

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px}
.verdict{font-size:20px;font-weight:600;padding:10px 14px;border-radius:6px;margin:12px 0}
.pass{background:#e3f4e1;color:#1d6b1a} .fail{background:#fbe3e1;color:#a1201a}
table{border-collapse:collapse;width:100%;margin:6px 0} td,th{border-bottom:1px solid #ddd;
padding:5px 8px;text-align:left;vertical-align:top} th{background:#f4f4f4}
td.r{text-align:right;white-space:nowrap} .badge{font-weight:700;padding:2px 8px;
border-radius:4px;white-space:nowrap} .muted{color:#666;font-size:12px}
.row{display:flex;gap:12px} .row>div{flex:1} svg{max-width:100%;height:auto}
"""


def _plain(outcome: Outcome) -> dict:
    """Everything the run measured, as JSON-ready data."""
    sampler = outcome.sampler
    final = outcome.final
    return {
        "params": outcome.params.to_json(),
        "meta": outcome.meta,
        "started": outcome.started,
        "marks": outcome.marks,
        "passed": outcome.passed,
        "criteria": [c.to_json() for c in outcome.results],
        "drain": outcome.drain,
        "faults": [f.to_json() for f in outcome.faults],
        "answers": [a.to_json() for a in outcome.answers],
        "samples": [asdict(s) for s in sampler.samples] if sampler else [],
        "sampler_gaps": sampler.gaps if sampler else [],
        "jobs": [asdict(j) for j in final.jobs.values()] if final else [],
        "attempts": [asdict(a) for rows in final.attempts.values() for a in rows] if final else [],
        "stalls": outcome.stalls[:50],
        "restarts": outcome.restarts,
        "cluster": outcome.cluster,
    }


def _criteria_table(criteria: list[dict]) -> str:
    rows = []
    for c in criteria:
        kind, word = ("pass", "PASS") if c["passed"] else ("fail", "FAIL")
        notes = f"<div class=muted>{html.escape(c['notes'])}</div>" if c["notes"] else ""
        rows.append(
            [
                f"<span class='badge {kind}'>{word}</span>",
                html.escape(c["name"]),
                html.escape(c["figure"]) + notes,
                html.escape(c["limit"]),
            ]
        )
    return _table(["", "criterion", "measured", "limit"], rows)


def ack_rows(answers: list[dict]) -> list[tuple[str, int, float, float, float, float]]:
    """(class, n, p50, p95, p99, max) of the burst's accepted uploads, in ms; direct
    uploads' start and completion as two more rows."""
    return [
        (
            kind,
            len(values),
            percentile(values, 50),
            percentile(values, 95),
            percentile(values, 99),
            max(values),
        )
        for kind, values in plots.ack_samples(answers).items()
    ]


def _table(head: list[str], rows: list[list[str]], right: Collection[int] = frozenset()) -> str:
    """An HTML table of already escaped cells; columns in `right` are right-aligned."""
    cells = "".join(f"<th>{title}</th>" for title in head)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=r' if k in right else ''}>{c}</td>" for k, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{cells}</tr>{body}</table>"


def _ack_table(answers: list[dict]) -> str:
    rows = [[html.escape(k), *(f"{v:.0f}" for v in values)] for k, *values in ack_rows(answers)]
    head = ["class", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"]
    return _table(head, rows, right={1, 2, 3, 4, 5})


def _faults_table(data: dict) -> str:
    t0 = data["marks"]["burst"]
    rows = [
        [
            html.escape(plots.FAULT_STYLE[f["name"]][1]),
            f"{f['start'] - t0:.0f} s",
            f"{f['end'] - f['start']:.1f} s",
            html.escape(f["detail"]),
        ]
        for f in data["faults"]
    ]
    rows += [
        [
            f"{html.escape(name)} exited",
            f"{at - t0:.0f} s",
            "",
            "started again by the run's "
            f"supervisor (as the Procfile runner does); its last words: {html.escape(last)}",
        ]
        for at, name, last in data["restarts"]
    ]
    return _table(["fault", "at", "lasted", "what"], rows, right={1, 2})


def _cluster(data: dict) -> str:
    """The cluster run's hosts, the cut host's refused writes and the scale-out."""
    cluster = data.get("cluster") or {}
    if not cluster:
        return ""
    hosts = ", ".join(f"{name} {address}" for name, address in cluster["hosts"].items())
    refused = cluster.get("refused", {})
    by_write = refused.get("by_write")
    writes = (
        ", ".join(f"{write}: {n:.0f}" for write, n in sorted(by_write.items())) or "none"
        if by_write is not None
        else html.escape(refused.get("error", "not read"))
    )
    scale = cluster.get("scale_out") or {}
    rows = [
        ["test hosts (network namespaces on one bridge)", html.escape(hosts)],
        ["writes the cut-off host refused, by kind", html.escape(writes)],
    ]
    if scale.get("signal"):
        at = scale["signal"] - data["marks"]["burst"]
        rows.append(
            [
                "scale-out: the metrics asked for more worker hosts",
                f"{scale['pods_wanted']} wanted, {scale['pods_running']} running "
                f"(ingest_workers_wanted {scale['wanted_threads']:.0f} threads, "
                f"{scale['queued']:.0f} queued) {at:.0f} s after the burst",
            ]
        )
        rows.append(
            [
                "scale-out: from that reading to the new host's workers ready / first claim",
                f"{scale['to_ready']:.1f} s / {scale['to_claim']:.1f} s",
            ]
        )
    elif scale.get("error"):
        rows.append(["scale-out", html.escape(scale["error"])])
    return "<h2>Hosts</h2>" + _table(["", "measured"], rows)


def _figures(data: dict) -> dict:
    burst = [a for a in data["answers"] if a["phase"] == "burst" and 200 <= a["status"] < 300]
    jobs = {j["id"]: j for j in data["jobs"]}
    accepted = {a["job_id"]: a for a in data["answers"] if a.get("job_id")}
    ready: dict[str, list[float]] = {"burst": [], "after the burst": []}
    for job_id, answer in accepted.items():
        job = jobs.get(job_id)
        if job and job["status"] == "succeeded" and job["finished"]:
            phase = "burst" if answer["phase"] == "burst" else "after the burst"
            ready[phase].append(job["finished"] - job["created"])
    finished = [j["finished"] for j in data["jobs"] if j["finished"]]
    timeline = plots.timeline(
        data["samples"], data["faults"], data["marks"], finished, data["answers"]
    )
    return {
        "timeline.png": plots.png(timeline),  # before svg(), which closes the figure
        "timeline": plots.svg(timeline),
        "ack": plots.svg(plots.ack_by_class(burst)),
        "ready": plots.svg(plots.ready_cdf(ready)),
        "attempts": plots.svg(plots.attempts([j["attempts"] for j in data["jobs"]])),
    }


def _workers(data: dict) -> str:
    p, cluster = data["params"], data.get("cluster")
    if not cluster:
        return f"{p['workers']} worker processes x {p['threads']} threads"
    via = "through PgBouncer" if p.get("pooled") else "straight to Postgres"
    if p.get("image"):
        via += f"; every Procfile line a container of the image {html.escape(p['image'])}"
    return (
        f"worker hosts of a fast and a batch process x {p['threads']} threads each (the "
        f"first also OCR's and the sweeper), a third started by the scale-out; {via}"
    )


def _facts(data: dict) -> str:
    p, marks = data["params"], data["marks"]
    answers = data["answers"]
    accepted = sum(1 for a in answers if a.get("job_id") and 200 <= a["status"] < 300)
    wall = marks.get("end", marks["last_upload"]) - data["started"]
    direct = sum(1 for a in answers if a.get("path") == "direct")
    how = (
        f" ({direct} of the {len(answers)} uploads straight to the bucket, "
        f"{p['direct_share']:.0%} of the users and of the pushed uploads)"
        if direct
        else ""
    )
    return (
        f"<p>{p['users']} users, one API token and one real PDF each, released together{how}; "
        f"then {p['pushers']} clients uploading the same files (under 50 pages) straight on "
        "while accepted and once a second after a refusal, until "
        f"{p['settle']:.0f} s after the last fault. {accepted} uploads accepted of "
        f"{len(answers)}. Backlog limit {p['users'] + p['backlog_extra']} jobs; "
        f"{_workers(data)}; lease {p['lease']} s; "
        f"sweeper every {p['sweep_every']:g} s, requeue grace {p['grace']} s; faults "
        f"{p['gap']:g} s apart. Wall time {wall:.0f} s, stack start and stop included.</p>"
        f"<p class=muted>Machine: {html.escape(data['meta'].get('machine', ''))}. Code "
        f"{html.escape(data['meta'].get('code', ''))}. Embeddings: the fake OpenAI-compatible "
        f"server of tests/fakes, provider <code>openai</code>.</p>"
    )


def render(data: dict, fig: dict) -> str:
    passed = data["passed"]
    failed = sum(1 for c in data["criteria"] if not c["passed"])
    total = len(data["criteria"])
    verdict = (
        "<div class='verdict pass'>PASS: every criterion met</div>"
        if passed
        else f"<div class='verdict fail'>FAIL: {failed} of {total} criteria not met</div>"
    )
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(data["started"]))
    title = "Load test across hosts" if data.get("cluster") else "Load test"
    return f"""<!doctype html><html><head><meta charset=utf-8><title>{title} {when}</title>
<style>{STYLE}</style></head><body>
<h1>{title}, {when}</h1>{verdict}{_criteria_table(data["criteria"])}{_facts(data)}
<h2>Queue, faults and throughput</h2>{fig["timeline"]}
<h2>Faults</h2>{_faults_table(data)}{_cluster(data)}
<h2>Acknowledgement by upload class</h2>{fig["ack"]}{
        _ack_table(
            [a for a in data["answers"] if a["phase"] == "burst" and 200 <= a["status"] < 300]
        )
    }
<p class=muted>{html.escape(LONG)} and {html.escape(PADDED)} are the like-for-like pair: the
same byte sizes, 50-117 pages against 1-2.</p>
<div class=row><div>{fig["ready"]}</div><div>{fig["attempts"]}</div></div>
<p class=muted>Everything measured is in results.json beside this file; the servers' logs
in logs/.</p></body></html>"""


def write_report(outcome: Outcome, out: Path) -> Path:
    data = _plain(outcome)
    (out / "results.json").write_text(json.dumps(data, indent=1, default=str))
    fig = _figures(data)
    page = out / "report.html"
    page.write_text(render(data, fig))
    # The key figure alone, for the findings (docs/images/, docs/working/benchmark-findings.md).
    (out / "timeline.png").write_bytes(fig["timeline.png"])
    (out / "summary.md").write_text(markdown(data))
    return page


def markdown(data: dict) -> str:
    """The criteria and the acknowledgement by class as markdown (for the findings page)."""
    lines = ["| | criterion | measured | limit |", "|---|---|---|---|"]
    for c in data["criteria"]:
        word = "PASS" if c["passed"] else "**FAIL**"
        lines.append(f"| {word} | {c['name']} | {c['figure']} | {c['limit']} |")
    lines += ["", "| burst upload class | n | p50 ms | p95 ms | p99 ms | max ms |"]
    lines.append("|---|---|---|---|---|---|")
    burst = [a for a in data["answers"] if a["phase"] == "burst" and 200 <= a["status"] < 300]
    for kind, *values in ack_rows(burst):
        lines.append(f"| {kind} | " + " | ".join(f"{v:.0f}" for v in values) + " |")
    return "\n".join(lines) + "\n"


def run_and_report(run: Callable[[Any, Path], Outcome], params: Any, out: Path) -> int:
    """`run(params, out)`, its report written to `out` and its verdict printed; the exit
    status (0 passed, 1 failed, 130 interrupted). SIGTERM ends a run like Ctrl-C: what it
    started is stopped and removed."""
    out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        outcome = run(params, out)
    except KeyboardInterrupt:
        say("interrupted: everything the run started was stopped and removed")
        return 130
    report = write_report(outcome, out)
    for line in summary_lines(outcome):
        print(line)
    say(f"report: {report}")
    return 0 if outcome.passed else 1


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def summary_lines(outcome: Outcome) -> list[str]:
    lines = [""]
    for c in outcome.results:
        lines.append(f"  {'PASS' if c.passed else 'FAIL'}  {c.name}: {c.figure} (limit {c.limit})")
        if c.notes and not c.passed:
            lines.append(f"        {c.notes}")
    failed = sum(1 for c in outcome.results if not c.passed)
    verdict = (
        "PASS, every criterion met"
        if not failed
        else f"FAIL, {failed} of {len(outcome.results)} criteria not met"
    )
    lines += ["", f"loadtest: {verdict}"]
    return lines
