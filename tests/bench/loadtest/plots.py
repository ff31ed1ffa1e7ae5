"""The report's figures, drawn with matplotlib as SVG text to inline in the page."""

from __future__ import annotations

import io
from collections import Counter

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt

from tests.bench.loadtest.payloads import LARGE, LONG, MEDIUM, PADDED, SCAN, SMALL

FAULT_STYLE = {  # colour and label of each fault's band on the timelines
    "kill": ("#d62728", "worker SIGKILLed"),
    "redis": ("#9467bd", "Redis restarted"),
    "postgres": ("#8c564b", "Postgres restarted"),
    "s3": ("#17becf", "S3 server restarted"),
    "429": ("#ff7f0e", "provider 429"),
    "cut": ("#d62728", "worker host cut off"),
    "web": ("#7f7f7f", "web host killed"),
}
SHORT = {
    **{"kill": "kill", "redis": "Redis", "postgres": "Postgres", "s3": "S3", "429": "429"},
    **{"cut": "cut", "web": "web"},
}
CLASSES = [SMALL, MEDIUM, LARGE, SCAN, PADDED, LONG]
plt.rcParams.update(
    {"font.size": 10, "svg.fonttype": "none", "axes.spines.top": False, "axes.spines.right": False}
)


def svg(figure: plt.Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def png(figure: plt.Figure) -> bytes:
    """The figure as PNG (for a file beside the report); the figure stays open."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _mark_faults(axes: plt.Axes, faults: list[dict], t0: float, marks: dict, label: bool) -> None:
    for number, fault in enumerate(faults):
        colour, name = FAULT_STYLE[fault["name"]]
        start, end = fault["start"] - t0, max(fault["end"] - t0, fault["start"] - t0 + 1.5)
        axes.axvspan(start, end, color=colour, alpha=0.25, lw=0, label=name if label else None)
        if label:  # a word on the band itself, so the chart reads without the legend
            height = 1 - 0.07 * (number % 2)  # alternate heights: close bands stay legible
            axes.annotate(
                SHORT[fault["name"]],
                xy=(start, height),
                xycoords=("data", "axes fraction"),
                xytext=(2, -2),
                textcoords="offset points",
                fontsize=8,
                va="top",
                color=colour,
                fontweight="bold",
            )
    axes.axvline(
        marks["last_upload"] - t0,
        color="0.3",
        ls="--",
        lw=1,
        label="last upload" if label else None,
    )


def timeline(
    samples: list[dict], faults: list[dict], marks: dict, finished: list[float], answers: list[dict]
) -> plt.Figure:
    """Queue depth and oldest queued age over time (top); throughput (bottom)."""
    t0 = marks["burst"]
    t = [s["t"] - t0 for s in samples]
    figure, (top, bottom) = plt.subplots(
        2, 1, figsize=(11, 6.2), sharex=True, gridspec_kw={"height_ratios": [3, 2]}
    )
    top.plot(t, [s["queued"] for s in samples], color="#1f77b4", lw=1.6, label="queued jobs")
    top.plot(t, [s["processing"] for s in samples], color="#2ca02c", lw=1.2, label="processing")
    top.set_ylabel("jobs")
    age = top.twinx()
    age.plot(
        t,
        [s["oldest_queued_age"] for s in samples],
        color="0.45",
        lw=1.2,
        ls=":",
        label="oldest queued age (s, right axis)",
    )
    age.set_ylabel("oldest queued age, s")
    age.spines["top"].set_visible(False)
    _mark_faults(top, faults, t0, marks, label=True)
    lines = top.get_legend_handles_labels()
    more = age.get_legend_handles_labels()
    top.legend(
        lines[0] + more[0],
        lines[1] + more[1],
        loc="lower left",
        fontsize=8,
        ncol=4,
        bbox_to_anchor=(0, 1.02),
        frameon=False,
    )
    width = 5.0
    end = max(t[-1] if t else 0, max((f - t0 for f in finished), default=0)) + width
    bins = [k * width for k in range(int(end // width) + 2)]
    done = [f - t0 for f in finished]
    bottom.hist(done, bins=bins, color="#2ca02c", alpha=0.8, label="jobs finished")
    refused = [a["start"] - t0 for a in answers if a["status"] in (429, 503)]
    bottom.hist(
        refused,
        bins=bins,
        color="#d62728",
        histtype="step",
        lw=1.6,
        label="uploads refused (503/429)",
    )
    _mark_faults(bottom, faults, t0, marks, label=False)
    bottom.set_ylabel(f"per {width:.0f} s")
    bottom.set_xlabel("seconds since the burst")
    bottom.legend(loc="lower left", fontsize=8, ncol=2, bbox_to_anchor=(0, 1.0), frameon=False)
    figure.tight_layout()
    return figure


DIRECT_START, DIRECT_COMPLETION = "direct: start", "direct: completion"


def ack_samples(answers: list[dict]) -> dict[str, list[float]]:
    """Acknowledgement times in ms: of uploads through the endpoint by class, then of
    direct uploads' starts and completions (two calls each), where there are any."""
    sent = [a for a in answers if a.get("path", "endpoint") == "endpoint"]
    direct = [a for a in answers if a.get("path") == "direct"]
    samples = {kind: [a["seconds"] * 1000 for a in sent if a["kind"] == kind] for kind in CLASSES}
    samples[DIRECT_START] = [a["start_ms"] for a in direct]
    samples[DIRECT_COMPLETION] = [a["complete_ms"] for a in direct]
    return {label: values for label, values in samples.items() if values}


def ack_by_class(answers: list[dict]) -> plt.Figure:
    """Acknowledgement time of each burst upload, by class (dots) with its p50 and p99."""
    samples = ack_samples(answers)
    figure, axes = plt.subplots(figsize=(11, 3.6 + 0.5 * (len(samples) > len(CLASSES))))
    for row, (kind, values) in enumerate(samples.items()):
        values = sorted(values)
        jitter = [row + ((k * 0.37) % 1 - 0.5) * 0.5 for k in range(len(values))]
        colour = (
            "#d62728"
            if kind == LONG
            else "#1f77b4"
            if kind == PADDED
            else "#2ca02c"
            if kind.startswith("direct")
            else "0.5"
        )
        axes.scatter(values, jitter, s=8, color=colour, alpha=0.6)
        for q, marker in ((0.5, "|"), (0.99, "D")):
            value = values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]
            axes.scatter([value], [row], marker=marker, s=80, color="black", zorder=3)
    axes.set_yticks(range(len(samples)), [f"{c}\n(n={len(v)})" for c, v in samples.items()])
    axes.set_xlabel("acknowledgement, ms (connect to last byte of the answer); | p50, ◆ p99")
    axes.set_title("Acknowledgement time by upload class (the burst)")
    figure.tight_layout()
    return figure


def ready_cdf(ready: dict[str, list[float]]) -> plt.Figure:
    """Share of documents ready within t seconds of their upload."""
    figure, axes = plt.subplots(figsize=(5.4, 3.6))
    for label, values in ready.items():
        values = sorted(values)
        if values:
            axes.step(
                values,
                [(k + 1) / len(values) for k in range(len(values))],
                where="post",
                label=f"{label} (n={len(values)})",
            )
    axes.set_xlabel("seconds from upload to ready")
    axes.set_ylabel("share of documents")
    axes.set_title("Time to ready")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    return figure


def attempts(counts: list[int]) -> plt.Figure:
    figure, axes = plt.subplots(figsize=(5.4, 3.6))
    tally = Counter(counts)
    keys = sorted(tally)
    bars = axes.bar([str(k) for k in keys], [tally[k] for k in keys], color="#1f77b4")
    axes.bar_label(bars, fontsize=8)
    axes.set_xlabel("attempts")
    axes.set_ylabel("jobs")
    axes.set_title("Attempts per job")
    figure.tight_layout()
    return figure
