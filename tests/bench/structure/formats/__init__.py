"""`python -m tests.bench.structure.formats`: one labelled document of each type the
service reads besides PDF (issue 47), read by its own reader in this process, scored by
the structure benchmark's checks (checks.py), with its speed on one core.

Every document is built here from the corpus's generated sentences (corpus.py), so every
run reads the same files and nothing is copied from elsewhere. Each carries the checks
its type can be held to: presence and order of its passages, a table's neighbours, its
headings and their levels (F1), and its furniture (a Word or OpenDocument header and
footer, a web page's navigation, banner, footer and script) absent from the body. An
image (a PNG, a TIFF of two pages) is typeset text read by OCR: presence and order only.

With LibreOffice on PATH (`soffice`), the docx, pptx and xlsx documents are also
converted to PDF by it and read by our PDF structure reader: the alternative to reading
Office files with their libraries, its score and its cost beside theirs.

Targets: presence >= 95 %, order >= 90 %, table neighbours >= 90 %, headings F1 >= 0.85
and furniture absent >= 90 %, each where the type has them. The module exits non-zero
when a type misses one. Needs no database.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from tests.bench.report import RESULTS, code_version, write_section
from tests.bench.structure.formats.documents import COLUMNS, TARGETS, documents
from tests.bench.structure.formats.libreoffice import (
    CONVERTED,
    Conversion,
    _libreoffice_version,
    comparison,
    converted,
)
from tests.bench.structure.formats.scoring import Result, measured, scores, table

__all__ = ["documents", "main", "scores"]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.structure.formats")
    parser.add_argument("--json", type=Path, help="Write the figures to this file.")
    parser.add_argument("--no-write", action="store_true", help="Leave the results page alone.")
    args = parser.parse_args()
    docs = documents()
    results = [measured(doc) for doc in docs]
    lines = [
        f"One labelled document of each type, read in this process by its reader "
        f"(`python -m tests.bench.structure.formats`; `--no-write`, `--json PATH`): "
        f"{len(docs)} documents, {sum(len(d.checks) for d in docs)} checks; code "
        f"{code_version()}. CPU time on one core, the mean of repeated readings.",
        "",
        *table(results),
        "",
        "Targets: "
        + ", ".join(f"{kind} >= {value:g}" for kind, value in TARGETS.items())
        + ", where the type has them.",
    ]
    conversions: list[Conversion] = []
    if shutil.which("soffice"):
        version = _libreoffice_version()
        conversions = [converted(doc) for doc in docs if doc.code in CONVERTED]
        lines += [
            "",
            f"Read by library vs converted by LibreOffice ({version}, a fresh profile each "
            f"run, measured {time.strftime('%Y-%m-%d')}) to PDF and read by our PDF "
            "structure reader:",
            "",
            *comparison(results, conversions),
        ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(
            RESULTS,
            "bench-structure-formats",
            text + "\n",
            by="python -m tests.bench.structure.formats",
        )
    if args.json:
        args.json.write_text(json.dumps(figures(results, conversions), indent=2))
    failed = [f"{r.code} {kind}" for r in results for kind in r.missed()]
    if failed:
        raise SystemExit(f"missed: {'; '.join(failed)}")


def figures(results: list[Result], conversions: list[Conversion]) -> dict:
    def one(r: Result) -> dict:
        return {
            "type": r.code,
            "shares": {kind: r.share(kind) for kind in COLUMNS},
            "cpu_ms_per_document": 1000 * r.cpu_seconds,
            "cpu_ms_per_page": 1000 * r.cpu_seconds / r.pages if r.pages else None,
            "cpu_ms_per_1000_characters": 1e6 * r.cpu_seconds / r.characters,
            "runs": r.runs,
        }

    return {
        "types": [one(r) for r in results],
        "libreoffice": [
            one(c.result)
            | {"conversion_wall_s": c.wall_seconds, "conversion_cpu_s": c.child_cpu_seconds}
            for c in conversions
        ],
    }


if __name__ == "__main__":
    main()
