"""Percentiles, targets, the markdown table, the results page and the JSON results."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from tests.bench.load import Run

Result = dict[str, Any]
SCENARIO_TITLES = {"single": "1 client", "clients": "{n} clients", "burst": "burst of {n}"}


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(run: Run, **labels: Any) -> Result:
    """The figures of one run of one app; `labels` say which (setup, size, scenario, app...)."""
    ok = [s.ms for s in run.samples if 200 <= s.status < 300]
    counts = {
        "2xx": len(ok),
        "4xx": sum(1 for s in run.samples if 400 <= s.status < 500),
        "5xx": sum(1 for s in run.samples if s.status >= 500 and not s.deliberate),
        "503_backlog_full": sum(1 for s in run.samples if s.deliberate),
        "connection_errors": sum(1 for s in run.samples if s.status == 0),
    }
    result: Result = dict(labels)
    result.update(
        requests=len(run.samples),
        counts=counts,
        wall_s=round(run.wall, 3),
        throughput=len(ok) / run.wall if run.wall > 0 else math.nan,
        p50=percentile(ok, 50),
        p95=percentile(ok, 95),
        p99=percentile(ok, 99),
        max=max(ok, default=math.nan),
        errors=run.errors,
        latencies_ms=[round(value, 3) for value in ok],
    )
    return result


def _find(results: list[Result], **match: Any) -> Result | None:
    for result in results:
        if all(result.get(key) == value for key, value in match.items()):
            return result
    return None


def _ratio(real: float, floor: float) -> float:
    return real / floor if floor and not math.isnan(floor) else math.nan


def verdicts(results: list[Result], setup: str, size: str) -> list[Result]:
    """The four targets of the issue for one setup and size, where the runs exist."""
    rows: list[Result] = []
    targets = (
        ("single", "p50", "1 client: p50 real/floor", "<=", 2.0),
        ("clients", "throughput", "{n} clients: throughput real/floor", ">=", 0.5),
        ("burst", "p99", "burst of {n}: p99 real/floor", "<=", 2.0),
    )
    for scenario, metric, title, op, limit in targets:
        floor = _find(results, setup=setup, size=size, scenario=scenario, app="floor")
        real = _find(results, setup=setup, size=size, scenario=scenario, app="real")
        if floor is None or real is None:
            continue
        value = _ratio(real[metric], floor[metric])
        passed = value <= limit if op == "<=" else value >= limit
        label = title.format(n=real["clients"])
        rows.append(dict(target=label, value=value, limit=f"{op} {limit:g}x", passed=passed))
    reals = [r for r in results if r["setup"] == setup and r["size"] == size and r["app"] == "real"]
    if reals:
        bad = sum(r["counts"]["5xx"] + r["counts"]["connection_errors"] for r in reals)
        label = "real: 5xx (other than 503 backlog_full) and dropped connections"
        rows.append(dict(target=label, value=bad, limit="= 0", passed=bad == 0))
    return rows


def references(results: list[Result], setup: str, size: str) -> list[Result]:
    """The targets' three metrics for the Django floor against the floor: not judged, they
    show how much of real/floor is Django's own per-request cost."""
    rows: list[Result] = []
    metrics = (
        ("single", "p50", "1 client: p50 django/floor"),
        ("clients", "throughput", "{n} clients: throughput django/floor"),
        ("burst", "p99", "burst of {n}: p99 django/floor"),
    )
    for scenario, metric, title in metrics:
        floor = _find(results, setup=setup, size=size, scenario=scenario, app="floor")
        django = _find(results, setup=setup, size=size, scenario=scenario, app="django")
        if floor is None or django is None:
            continue
        value = _ratio(django[metric], floor[metric])
        rows.append(dict(target=title.format(n=django["clients"]), value=value))
    return rows


def _ms(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _x(value: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}x"


def counts_text(result: Result) -> str:
    c = result["counts"]
    text = f"{c['2xx']}/{c['4xx']}/{c['5xx']}/{c['connection_errors']}"
    return text + (f" (+{c['503_backlog_full']} 503bf)" if c["503_backlog_full"] else "")


def _cpu_ms(result: Result) -> float:
    ok = result["counts"]["2xx"]
    return result["cpu_app_s"] * 1000 / ok if ok else math.nan


def _cpu(result: Result) -> str:
    value = _cpu_ms(result)
    return "n/a" if math.isnan(value) else f"{value:.1f}"


APPS = ("floor", "django", "real")  # the table's order; any of them may be missing
# real/floor is what the targets judge. With the Django floor it splits into django/floor
# (Django's own per-request cost) times real/django (the service's work on top of Django).
PAIRS = (("real", "floor"), ("django", "floor"), ("real", "django"))
RATIOS = (
    ("p50", lambda r: r["p50"]),
    ("p99", lambda r: r["p99"]),
    ("req/s", lambda r: r["throughput"]),
    ("app CPU/upload", _cpu_ms),
)


def _joined(parts: list[str]) -> str:
    """`a (b, c)` for the three ratios (a = b * c), else `a, b`."""
    if len(parts) == 3:
        return f"{parts[0]} ({parts[1]}, {parts[2]})"
    return ", ".join(parts)


def _ratios(runs: dict[str, Result | None], pairs: list[tuple[str, str]], metric: Any) -> str:
    cells = []
    for top, bottom in pairs:
        a, b = runs[top], runs[bottom]
        cells.append("n/a" if a is None or b is None else _x(_ratio(metric(a), metric(b))))
    return _joined(cells)


def _each(runs: dict[str, Result | None], cell: Any) -> list[str]:
    return ["n/a" if run is None else cell(run) for run in runs.values()]


def _latencies(result: Result) -> str:
    return f"{_ms(result['p50'])} / {_ms(result['p95'])} / {_ms(result['p99'])}"


def setup_tables(results: list[Result], setup: str) -> list[str]:
    """The figures and the targets of one serving setup, as markdown lines."""
    ours = [r for r in results if r["setup"] == setup]
    sizes = list(dict.fromkeys(r["size"] for r in ours))
    apps = [app for app in APPS if any(r["app"] == app for r in ours)]
    pairs = [(top, bottom) for top, bottom in PAIRS if top in apps and bottom in apps]
    names = _joined([f"{top}/{bottom}" for top, bottom in pairs])
    ratio_titles = [f"{name} {names}" for name, _ in RATIOS] if pairs else ["", "", "", ""]
    listed = " / ".join(apps)
    header = [
        *(f"{app} p50 / p95 / p99 ms" for app in apps),
        ratio_titles[0],
        ratio_titles[1],
        f"req/s {listed}",
        ratio_titles[2],
        f"app CPU ms/upload {listed}",
        ratio_titles[3],
        f"{', '.join(apps)}: 2xx/4xx/5xx/conn-err",
    ]
    header = [title for title in header if title]
    lines = ["| size | scenario | " + " | ".join(header) + " |", "|---|---|" + "---|" * len(header)]
    for size in sizes:
        for scenario in SCENARIO_TITLES:
            runs = {app: _find(ours, size=size, scenario=scenario, app=app) for app in apps}
            present = [run for run in runs.values() if run is not None]
            if not present:
                continue
            ratios = [_ratios(runs, pairs, metric) for _, metric in RATIOS] if pairs else []
            cells = [
                *_each(runs, _latencies),
                *ratios[:2],
                " / ".join(_each(runs, lambda r: f"{r['throughput']:.1f}")),
                *ratios[2:3],
                " / ".join(_each(runs, _cpu)),
                *ratios[3:],
                ", ".join(_each(runs, counts_text)),
            ]
            title = SCENARIO_TITLES[scenario].format(n=present[0]["clients"])
            lines.append(f"| {size} | {title} | " + " | ".join(cells) + " |")
    lines += ["", "| size | target | measured | limit | result |", "|---|---|---|---|---|"]
    for size in sizes:
        for row in verdicts(results, setup, size):
            value = row["value"] if isinstance(row["value"], int) else _x(row["value"], 3)
            verdict = "PASS" if row["passed"] else "**FAIL**"
            lines.append(f"| {size} | {row['target']} | {value} | {row['limit']} | {verdict} |")
        for row in references(results, setup, size):
            value = _x(row["value"], 3)
            lines.append(f"| {size} | {row['target']} | {value} | not judged | reference |")
    return lines


def comparison(results: list[Result], setups: list[str]) -> list[str]:
    """The real app under each setup, side by side (only when several were measured)."""
    lines = [
        "| setup | size | 1 client p50 ms | clients req/s | burst p99 ms | targets passed |",
        "|---|---|---|---|---|---|",
    ]
    for setup in setups:
        for size in dict.fromkeys(r["size"] for r in results if r["setup"] == setup):
            cells = []
            for scenario, metric in (
                ("single", "p50"),
                ("clients", "throughput"),
                ("burst", "p99"),
            ):
                real = _find(results, setup=setup, size=size, scenario=scenario, app="real")
                cells.append("n/a" if real is None else _ms(real[metric]))
            rows = verdicts(results, setup, size)
            passed = f"{sum(r['passed'] for r in rows)}/{len(rows)}"
            lines.append(f"| {setup} | {size} | {' | '.join(cells)} | {passed} |")
    return lines


def markdown(results: list[Result], meta: dict[str, Any]) -> str:
    setups = list(dict.fromkeys(r["setup"] for r in results))
    lines = [
        f"Run {meta['date']} with `{meta['command']}`, code {meta['code']}.",
        "",
        f"Machine: {meta['machine']}. Load average (1, 5, 15 min): {meta['load']}.",
        f"Counts: {meta['counts']}. No Dramatiq workers ran.",
    ]
    for setup in setups:
        lines += ["", f"#### Setup {setup} ({meta['setups'][setup]})", ""]
        lines += setup_tables(results, setup)
    if len(setups) > 1:
        lines += ["", "#### The real app under each setup", "", *comparison(results, setups)]
    return "\n".join(lines) + "\n"


# Every table a benchmark writes lives on this page, each between its markers; what the
# figures mean, dated, is written by hand in benchmark-findings.md beside it.
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "working" / "benchmark-results.md"
END_MARKER = "<!-- end generated -->"


def start_marker(section: str, by: str) -> str:
    return f"<!-- generated: {section}, by {by}: do not edit -->"


def write_section(path: Path, section: str, text: str, *, by: str) -> None:
    """Replace the generated block `section` in path, from its start marker (whichever
    command it names) to the next end marker; a missing block is appended under a heading
    of its own. `by` is the command that writes it, named in the start marker. A marker
    counts only on a line of its own, so prose may quote it.
    """
    prefix = f"<!-- generated: {section}, by "
    content = path.read_text() if path.exists() else "# Benchmark results\n"
    lines = content.splitlines(keepends=True)
    stripped = [line.strip() for line in lines]
    block = f"{start_marker(section, by)}\n{text}{END_MARKER}\n"
    starts = [i for i, line in enumerate(stripped) if line.startswith(prefix)]
    if starts and END_MARKER in stripped[starts[0] :]:
        last = stripped.index(END_MARKER, starts[0])
        content = "".join(lines[: starts[0]]) + block + "".join(lines[last + 1 :])
    else:
        content = content.rstrip("\n") + f"\n\n## {section}\n\n" + block
    path.write_text(content)


def write_json(directory: Path, stamp: str, payload: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"bench-{stamp}.json"
    path.write_text(json.dumps(payload, indent=1, default=str))
    return path


def describe_machine(env: dict[str, str]) -> str:
    """CPU, memory, kernel and the versions that matter, in one line."""
    import gunicorn
    import psutil
    import psycopg
    import redis

    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    cpu = next((line.split(":", 1)[1].strip() for line in lines if "model name" in line), "")
    ram = psutil.virtual_memory().total / 2**30
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        pg = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    info = redis.Redis.from_url(env["REDIS_URL"]).info("server")
    return (
        f"{cpu or platform.processor()}, {os.cpu_count()} cores, {ram:.0f} GiB RAM, "
        f"Linux {platform.release()}, Python {platform.python_version()}, PostgreSQL {pg}, "
        f"Redis {info['redis_version']}, gunicorn {gunicorn.__version__}; "
        "client and servers on the same machine over loopback"
    )


def code_version() -> str:
    """The checkout's commit, and whether it had uncommitted changes."""
    checkout = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=checkout,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=checkout, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit} with uncommitted changes" if dirty else commit
