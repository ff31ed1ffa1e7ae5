"""Check that every pinned requirement installs as a wheel on each supported CPython.

`make lint` runs it. pip resolves requirements/dev.txt (which includes base.txt and the
constraints), and the optional local-embeddings.txt pin by pin, for each Python version
as if installing on Linux with this machine's architecture, accepting wheels only, and
downloads metadata, not packages (--dry-run).
A package that has no wheel for a version (as pgserver 0.1.4 had none past 3.12) fails
the check with pip's own message.
"""

import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
PYTHONS = ("3.11", "3.12", "3.13")
# manylinux tags old enough for every wheel we pin, new enough for Debian 12 and 13.
GLIBC_TAGS = ("manylinux_2_36", "manylinux_2_34", "manylinux_2_28", "manylinux_2_17", "linux")


def pip_args(python: str, target: str, requirements: str, *, no_deps: bool = False) -> list[str]:
    arch = platform.machine()
    platforms = [f"--platform={tag}_{arch}" for tag in GLIBC_TAGS]
    platforms.append(f"--platform=manylinux2014_{arch}")
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--quiet",
        "--disable-pip-version-check",
        "--ignore-installed",
        "--only-binary=:all:",
        "--implementation=cp",
        f"--python-version={python}",
        *platforms,
        f"--target={target}",
        *(["--no-deps"] if no_deps else []),
        "-r",
        str(HERE / requirements),
    ]


def check(python: str) -> bool:
    # local-embeddings.txt pins all it needs itself; without --no-deps, pip would resolve
    # the registry's CUDA build of torch and its NVIDIA libraries, which the CPU build the
    # file means to install does not need.
    return all(
        _resolves(python, requirements, no_deps=no_deps)
        for requirements, no_deps in (("dev.txt", False), ("local-embeddings.txt", True))
    )


def _resolves(python: str, requirements: str, *, no_deps: bool) -> bool:
    with tempfile.TemporaryDirectory() as target:
        args = pip_args(python, target, requirements, no_deps=no_deps)
        result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode == 0:
        print(f"wheels for CPython {python}, {requirements}: ok")
        return True
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    print(
        f"wheels for CPython {python}, {requirements}: MISSING\n  "
        + "\n  ".join(errors or [result.stderr])
    )
    return False


def main() -> int:
    results = [check(python) for python in PYTHONS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
