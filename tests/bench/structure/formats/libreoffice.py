"""The alternative weighed for Office files: converted to PDF by LibreOffice, then read
by our PDF structure reader; its scores and its cost beside the libraries'."""

from __future__ import annotations

import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from tests.bench.structure.formats.documents import COLUMNS, Labelled
from tests.bench.structure.formats.scoring import Result, _cell, scored

CONVERTED = ("docx", "pptx", "xlsx")


@dataclass
class Conversion:
    code: str
    result: Result  # the PDF's, scored on the document's checks; cpu_seconds: its reading
    wall_seconds: float  # the conversion's
    child_cpu_seconds: float


def converted(labelled: Labelled) -> Conversion:
    """The document converted by `soffice` (a fresh profile, as a service would start it
    for each file), then read by candidates.structured and scored."""
    from tests.bench.structure.candidates import structured

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / f"document.{labelled.code}"
        source.write_bytes(labelled.data)
        command = ["soffice", f"-env:UserInstallation=file://{folder}/profile", "--headless"]
        command += ["--convert-to", "pdf", "--outdir", folder, str(source)]
        was, began = _children_cpu(), time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, timeout=300)
        wall, cpu = time.perf_counter() - began, _children_cpu() - was
        pdf = (Path(folder) / "document.pdf").read_bytes()
    began = time.process_time()
    blocks = structured(pdf)
    result = scored(labelled, blocks)
    result.cpu_seconds = time.process_time() - began
    return Conversion(labelled.code, result, wall, cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def comparison(ours: list[Result], conversions: list[Conversion]) -> list[str]:
    by_code = {r.code: r for r in ours}
    head = ["type", "reader", "present", "order", "table neighbours", "headings F1"]
    head += ["furniture absent", "CPU ms (conversion: its child's)", "wall ms of conversion"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for conversion in conversions:
        library, pdf = by_code[conversion.code], conversion.result
        cells = [_cell(library, k) for k in COLUMNS]
        lines.append(
            f"| {conversion.code} | library | "
            + " | ".join([*cells, f"{1000 * library.cpu_seconds:.1f}", "-"])
            + " |"
        )
        cpu = f"{1000 * conversion.child_cpu_seconds:,.0f} + {1000 * pdf.cpu_seconds:.0f} reading"
        cells = [_cell(pdf, k) for k in COLUMNS] + [cpu, f"{1000 * conversion.wall_seconds:,.0f}"]
        lines.append(
            f"| {conversion.code} | LibreOffice to PDF, ours | " + " | ".join(cells) + " |"
        )
    return lines


def _libreoffice_version() -> str:
    found = subprocess.run(["soffice", "--version"], capture_output=True, text=True, timeout=60)
    return found.stdout.strip() or "LibreOffice"
