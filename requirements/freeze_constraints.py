"""Rewrite constraints.txt: every installed package that base.txt/dev.txt do not name."""

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
HEADER = (
    "# Versions of the packages that requirements/*.txt pull in indirectly, pinned so every\n"
    "# machine installs the same set. Refresh with: make constraints\n"
)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def named_directly() -> set[str]:
    names = set()
    for path in (HERE / "base.txt", HERE / "dev.txt"):
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                names.add(canonical(re.split(r"[\[=<>~! ]", line, maxsplit=1)[0]))
    return names


def main() -> None:
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    direct = named_directly() | {"psycopg-binary"}  # pinned through psycopg[binary]
    pins = sorted(
        (line for line in frozen if "==" in line and canonical(line.split("==")[0]) not in direct),
        key=str.lower,
    )
    (HERE / "constraints.txt").write_text(HEADER + "\n".join(pins) + "\n")


if __name__ == "__main__":
    main()
