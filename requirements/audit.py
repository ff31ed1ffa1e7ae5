"""`make lint`'s vulnerability audit: every pinned requirement (base.txt, dev.txt and the
indirect ones in constraints.txt) against the registry's advisory data, with pip-audit.

Fails on a known vulnerability that a released version fixes: upgrade the pin. One with
no fix yet is printed and does not fail (nothing to upgrade to); neither does an advisory
listed in IGNORED, each with the reason it does not apply.

A package whose advisories cannot be read (the registry answers nothing for that version,
as a partial mirror does) is counted and named, and fails the audit only with
INGEST_AUDIT_STRICT=1: lint must still run where the advisory data is out of reach.
INGEST_SKIP_AUDIT=1 skips the audit.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
FILES = ("base.txt", "dev.txt", "constraints.txt", "local-embeddings.txt")
# Advisory id: why it does not apply here.
IGNORED: dict[str, str] = {}


def audit(path: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "audit.json"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip_audit",
                "--requirement",
                str(path),
                "--no-deps",
                "--disable-pip",
                "--progress-spinner",
                "off",
                "--format",
                "json",
                "--output",
                str(report),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if not report.exists():
            raise SystemExit(f"pip-audit could not audit {path.name}:\n{done.stderr[-2000:]}")
        return json.loads(report.read_text())["dependencies"]


def main() -> int:
    if os.environ.get("INGEST_SKIP_AUDIT", "").strip().lower() in {"1", "true", "yes"}:
        print("audit: skipped (INGEST_SKIP_AUDIT)")
        return 0
    fixable, unfixed, skipped, audited = [], [], [], 0
    for name in FILES:
        for dependency in audit(HERE / name):
            audited += 1
            if "skip_reason" in dependency:
                skipped.append(dependency)
                continue
            for vulnerability in dependency.get("vulns", []):
                entry = (dependency["name"], dependency["version"], vulnerability)
                if vulnerability["id"] in IGNORED:
                    continue
                (fixable if vulnerability.get("fix_versions") else unfixed).append(entry)
    for package, version, vulnerability in unfixed:
        print(f"audit: {package} {version}: {vulnerability['id']} (no fixed version yet)")
    for package, version, vulnerability in fixable:
        fixes = ", ".join(vulnerability["fix_versions"])
        print(f"audit: {package} {version}: {vulnerability['id']}, fixed in {fixes}: upgrade it")
    if skipped:
        print(
            f"audit: {len(skipped)} of {audited} packages could not be audited, e.g. "
            f"{skipped[0]['skip_reason']}"
        )
    print(
        f"audit: {audited - len(skipped)} of {audited} pinned packages audited, "
        f"{len(fixable)} vulnerabilities with a fix"
    )
    strict = os.environ.get("INGEST_AUDIT_STRICT", "").strip().lower() in {"1", "true", "yes"}
    return 1 if fixable or (strict and skipped) else 0


if __name__ == "__main__":
    raise SystemExit(main())
