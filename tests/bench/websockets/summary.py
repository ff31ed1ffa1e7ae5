"""What a run found, as a line per step, a block of the results page and a verdict."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from datetime import UTC, datetime
from typing import Any

from tests.bench import report
from tests.bench.services import Services
from tests.bench.websockets import HOLD_P99_MS, STOP_DELIVERED, STOP_P99_MS


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

    # Neither ships type information (no py.typed, no stubs); only __version__ is read.
    import channels_redis  # type: ignore[import-untyped]
    import daphne  # type: ignore[import-untyped]
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
        command=" ".join(["python -m tests.bench.websockets", *sys.argv[1:]]),
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
