"""`python -m tests.bench.structure`: every candidate reader on every document of the
corpus, scored by its checks, with its speed: a markdown table, and the checks each
candidate missed with `--misses`.

Targets (issue 43): furniture absent >= 90 %, order >= 90 %, table neighbours >= 70 %,
presence >= 95 %, headings F1 >= 0.85, and born-digital pages at >= 20 pages per second
per core. Needs no database: the readers run in this process.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.report import RESULTS, code_version, write_section
from tests.bench.structure import heldout, printed, real
from tests.bench.structure.candidates import CANDIDATES, Reader
from tests.bench.structure.checks import KINDS, Scored, headings_f1, score
from tests.bench.structure.corpus import Sample, generated

TARGETS = {"present": 0.95, "absent": 0.90, "order": 0.90, "table": 0.70, "heading": 0.85}
PAGES_PER_SECOND = 20.0


@dataclass
class Result:
    name: str
    scored: Scored = field(default_factory=Scored)
    found: tuple[int, int, int] = (0, 0, 0)  # headings: true positives, found, expected
    pages: int = 0
    cpu_seconds: float = 0.0

    @property
    def f1(self) -> float:
        hits, found, expected = self.found
        return 2 * hits / (found + expected) if found + expected else 0.0

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.cpu_seconds if self.cpu_seconds else 0.0


def measure(name: str, read: Reader, samples: list[Sample]) -> Result:
    result = Result(name)
    for sample in samples:
        began = time.process_time()
        blocks = read(sample.pdf)
        if sample.born_digital:  # the speed is of born-digital pages: a scan's is OCR's
            result.cpu_seconds += time.process_time() - began
            result.pages += sample.pages
        score(blocks, sample.checks, result.scored, sample.name)
        hits, found, expected = headings_f1(blocks, sample.checks)
        was = result.found
        result.found = (was[0] + hits, was[1] + found, was[2] + expected)
    return result


def _cell(result: Result, kind: str) -> str:
    if kind == "heading":
        value = result.f1
        return f"{value:.2f} {'ok' if value >= TARGETS[kind] else 'miss'}"
    share = result.scored.share(kind)
    if share is None:
        return "-"
    passed, total = result.scored.passed[kind], result.scored.total[kind]
    verdict = "ok" if share >= TARGETS[kind] else "miss"
    return f"{share:.0%} ({passed}/{total}) {verdict}"


def table(results: list[Result]) -> list[str]:
    head = ["reader", "present", "furniture absent", "order", "table neighbours", "headings F1"]
    head.append("pages/s per core")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for result in results:
        cells = [_cell(result, kind) for kind in KINDS]
        speed = result.pages_per_second
        cells.append(f"{speed:.0f} {'ok' if speed >= PAGES_PER_SECOND else 'miss'}")
        lines.append(f"| {result.name} | " + " | ".join(cells) + " |")
    targets = ", ".join(f"{kind} >= {value:g}" for kind, value in TARGETS.items())
    lines.append(f"\nTargets: {targets}; >= {PAGES_PER_SECOND:g} pages/s per core.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.structure")
    parser.add_argument("--misses", action="store_true", help="List each check a reader missed.")
    parser.add_argument("--save", type=Path, help="Write the generated PDFs to this folder.")
    parser.add_argument("--json", type=Path, help="Write the figures to this file.")
    parser.add_argument("--no-write", action="store_true", help="Leave the results page alone.")
    args = parser.parse_args()
    samples = generated() + real.tuned() + printed.tuned()
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        for sample in samples:
            (args.save / f"{sample.name}.pdf").write_bytes(sample.pdf)
    pages = sum(sample.pages for sample in samples)
    checks = sum(len(sample.checks) for sample in samples)
    results = [measure(name, read, samples) for name, read in CANDIDATES.items()]
    unseen = heldout.held_out()
    unseen_pages = sum(sample.pages for sample in unseen)
    unseen_checks = sum(len(sample.checks) for sample in unseen)
    held = [measure(name, read, unseen) for name, read in CANDIDATES.items()]
    text = "\n".join(
        [
            f"Held out (never tuned on: documents printed by Chromium and real ones, labelled "
            f"by hand): {len(unseen)} documents, {unseen_pages} pages, {unseen_checks} "
            f"checks; code {code_version()}.",
            "",
            *table(held),
            "",
            "Tuning set (generated with fpdf2, printed by Chromium, and one real paper): "
            f"{len(samples)} documents, {pages} pages, {checks} checks.",
            "",
            *table(results),
        ]
    )
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-structure", text + "\n", by="python -m tests.bench.structure")
    if args.misses:  # the tuning set's only: the held-out set's are not for tuning
        for result in results:
            print(f"\n{result.name} missed:")
            print("\n".join(f"- {miss[:160]}" for miss in result.scored.misses))
    if args.json:
        figures = [
            {
                "reader": r.name,
                "shares": {kind: r.scored.share(kind) for kind in KINDS if kind != "heading"},
                "headings_f1": r.f1,
                "pages_per_second": r.pages_per_second,
            }
            for r in results
        ]
        args.json.write_text(json.dumps(figures, indent=2))
