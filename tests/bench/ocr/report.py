"""The OCR bench's tables and its targets (issue 24), as markdown."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tests.bench.ocr.corpus import SamplePage
from tests.bench.ocr.engines import PageResult, Run
from tests.bench.ocr.metric import cer

if TYPE_CHECKING:  # psycopg and the stack are not needed to read pages
    from tests.bench.ocr.stack import StackResult

# The targets.
CER_CLEAN = 0.03  # clean 300 dpi, English
CER_SCANNED = 0.06  # "scanned", English
PAGES_PER_CORE_SECOND = 0.5  # at 300 dpi
PEAK_MB = 1024  # the child, an A4 page at 300 dpi
INTERFERENCE = 1.2
# The full run also gives its figures on every COMPARE_EVERY-th page: RapidOCR's pages.
COMPARE_EVERY = 3


def pooled_cer(results: Iterable[PageResult]) -> float:
    """All the pages' errors over all their reference characters."""
    results = list(results)
    reference = sum(r.errors.reference for r in results)
    return sum(r.errors.total for r in results) / reference if reference else float("nan")


def whole_lines_cer(results: Iterable[PageResult]) -> float:
    """As pooled_cer, OCR's lines never matched in halves (metric.cer's `split=False`)."""
    errors = [cer(r.text, r.page.truth, split=False) for r in results]
    reference = sum(e.reference for e in errors)
    return sum(e.total for e in errors) / reference if reference else float("nan")


def recall(results: Iterable[PageResult]) -> float:
    results = list(results)
    total = sum(r.words[1] for r in results)
    return sum(r.words[0] for r in results) / total if total else float("nan")


def pages_per_core_second(results: Iterable[PageResult]) -> float:
    cpu = [r.cpu for r in results]
    return len(cpu) / sum(cpu) if cpu and sum(cpu) else float("nan")


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _row(label: str, results: list[PageResult], failed: int, peak: str) -> str:
    cpu = [r.cpu for r in results]
    timing = f"{statistics.median(cpu):.2f} / {max(cpu):.2f}" if cpu else "n/a"
    return (
        f"| {label} | {len(results)} | {failed} | {_pct(pooled_cer(results))} "
        f"| {_pct(whole_lines_cer(results))} | {_pct(recall(results))} | {timing} "
        f"| {pages_per_core_second(results):.2f} | {peak} |"
    )


def variant_table(runs: list[Run]) -> list[str]:
    """A row per variant and language, and one per variant for both languages."""
    lines = [
        "| variant, language | pages read | pages failed | CER | CER, lines whole | word recall "
        "| CPU s/page, median / max | pages/s per core | peak RSS, MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for variant in dict.fromkeys(run.variant for run in runs):
        ours = [run for run in runs if run.variant == variant]
        for run in ours:
            label = f"{variant}, {run.languages}"
            lines.append(_row(label, run.read(), len(run.failed), f"{run.peak_rss_mb:.0f}"))
        if len(ours) > 1:
            every = [result for run in ours for result in run.read()]
            failed = sum(len(run.failed) for run in ours)
            peak = f"{max(run.peak_rss_mb for run in ours):.0f}"
            lines.append(_row(f"**{variant}, all**", every, failed, peak))
    return lines


def failures(runs: list[Run]) -> list[str]:
    lines = []
    for run in runs:
        for name, code in run.failed.items():
            lines.append(f"- {run.variant}, {run.languages}: {name} ended the child ({code})")
    return lines


def worst(runs: list[Run], variant: str, count: int = 5) -> str:
    results = [r for run in runs if run.variant == variant for r in run.read()]
    results.sort(key=lambda r: r.errors.rate, reverse=True)
    named = ", ".join(f"{r.page.name} {_pct(r.errors.rate)}" for r in results[:count])
    return f"Highest CER on {variant}: {named}."


def floor(pages: list[SamplePage]) -> str:
    """What the measure gives the text layer read against itself (0 would be perfect)."""
    errors = [cer(page.truth, page.truth) for page in pages]
    worst = max(zip(errors, pages, strict=True), key=lambda pair: pair[0].rate)
    pooled = sum(e.total for e in errors) / sum(e.reference for e in errors)
    return (
        f"The measure's own floor, each page's text layer against itself: CER {_pct(pooled)} "
        f"over these pages, at most {_pct(worst[0].rate)} ({worst[1].name}: repeated text, "
        "whose lines can be matched to another copy of themselves)."
    )


def file_table(runs: list[Run]) -> list[str]:
    """CER and word recall per source file, in each variant."""
    variants = list(dict.fromkeys(run.variant for run in runs))
    results = [r for run in runs for r in run.read()]
    files = list(dict.fromkeys(r.page.file for r in sorted(results, key=lambda r: r.page.order)))
    lines = [
        "| file | pages | " + " | ".join(f"CER / recall, {v}" for v in variants) + " |",
        "|---|---|" + "---|" * len(variants),
    ]
    for file in files:
        cells = []
        for variant in variants:
            mine = [
                r
                for run in runs
                if run.variant == variant
                for r in run.read()
                if r.page.file == file
            ]
            cells.append(f"{_pct(pooled_cer(mine))} / {_pct(recall(mine))}")
        count = len({r.page.number for r in results if r.page.file == file})
        lines.append(f"| {file.rsplit('/', 1)[-1]} | {count} | " + " | ".join(cells) + " |")
    return lines


def subset_table(runs: list[Run], every: int) -> list[str]:
    """The variants' figures on every `every`-th page of the sample (by its order)."""
    lines = [
        f"On one page in {every} of the sample, in its order (the pages RapidOCR read):",
        "",
        "| variant | pages | CER | CER, lines whole | word recall | pages/s per core |",
        "|---|---|---|---|---|---|",
    ]
    for variant in dict.fromkeys(run.variant for run in runs):
        ordered = sorted(
            (r for run in runs if run.variant == variant for r in run.pages),
            key=lambda r: r.page.order,
        )
        picked = [r for r in ordered[::every] if not _failed(runs, variant, r)]
        lines.append(
            f"| {variant} | {len(picked)} | {_pct(pooled_cer(picked))} "
            f"| {_pct(whole_lines_cer(picked))} | {_pct(recall(picked))} "
            f"| {pages_per_core_second(picked):.2f} |"
        )
    return lines


def _failed(runs: list[Run], variant: str, result: PageResult) -> bool:
    return any(run.variant == variant and result.page.name in run.failed for run in runs)


def language_table(runs: list[Run]) -> list[str]:
    lines = [
        "| languages | pages | CPU s/page | start-up CPU s | RSS at ready, MiB | peak RSS, MiB "
        "| CER, English pages | CER, German pages |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        read = run.read()
        cpu = sum(r.cpu for r in read) / len(read) if read else float("nan")
        english = [r for r in read if r.page.language == "eng"]
        german = [r for r in read if r.page.language == "deu"]
        lines.append(
            f"| {run.languages} | {len(read)} | {cpu:.2f} | {run.startup_cpu:.2f} "
            f"| {run.startup_rss_mb:.0f} | {run.peak_rss_mb:.0f} "
            f"| {_pct(pooled_cer(english))} | {_pct(pooled_cer(german))} |"
        )
    return lines


def stack_table(stack: StackResult) -> list[str]:
    return [
        "| through the stack | seconds |",
        "|---|---|",
        f"| a {stack.scan_pages}-page scan ({stack.scan_bytes / 2**20:.1f} MiB), upload to "
        f"succeeded | {stack.scan_seconds:.1f} ({stack.scan_seconds / stack.scan_pages:.2f} "
        "a page) |",
        f"| a one-page born-digital upload, the OCR lane idle: median of {len(stack.idle)} "
        f"| {statistics.median(stack.idle):.2f} |",
        f"| the same, the OCR lane reading the scan: median of {len(stack.busy)} "
        f"| {statistics.median(stack.busy):.2f} |",
    ]


def _verdict(label: str, value: str, limit: str, passed: bool) -> str:
    return f"| {label} | {value} | {limit} | {'PASS' if passed else '**FAIL**'} |"


def targets(runs: list[Run], stack: StackResult | None) -> list[str]:
    """The issue's targets, judged where this run measured them."""
    lines = ["| target | measured | limit | result |", "|---|---|---|---|"]

    def english(variant: str) -> list[PageResult]:
        return [
            r
            for run in runs
            if run.variant == variant
            for r in run.read()
            if r.page.language == "eng"
        ]

    for variant, limit in (("clean-300", CER_CLEAN), ("scanned", CER_SCANNED)):
        value = pooled_cer(english(variant))
        lines.append(
            _verdict(
                f"CER, {variant}, English", _pct(value), f"≤ {100 * limit:.0f} %", value <= limit
            )
        )
    clean = [r for run in runs if run.variant == "clean-300" for r in run.read()]
    speed = pages_per_core_second(clean)
    lines.append(
        _verdict("pages per second per core, clean-300", f"{speed:.2f}", "≥ 0.5", speed >= 0.5)
    )
    peaks = [run.peak_rss_mb for run in runs if run.variant == "clean-300"]
    if peaks:
        peak = max(peaks)
        label = "peak RSS of the child, A4 and Letter pages at 300 dpi"
        lines.append(_verdict(label, f"{peak:.0f} MiB", f"≤ {PEAK_MB} MiB", peak <= PEAK_MB))
    failed = sum(len(run.failed) for run in runs)
    lines.append(_verdict("pages that ended the child", str(failed), "= 0", failed == 0))
    if stack is not None:
        ratio = stack.interference
        label = "one-page upload's time to ready, OCR lane busy / idle"
        lines.append(_verdict(label, f"{ratio:.2f}x", f"≤ {INTERFERENCE}x", ratio <= INTERFERENCE))
    return lines
