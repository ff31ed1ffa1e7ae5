"""The configuration reference (docs/running/configuration.md) lists every variable the code
reads, with a meaning, the code's own defaults, and the same page on any machine."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from config.tooling import reference, variables

ROOT = Path(__file__).resolve().parents[3]
# Where the service, its tools and its tests read the environment.
PRODUCT = ["config", "documents", "jobs", "search", "requirements", "manage.py"]
OURS = re.compile(r"^(INGEST|DJANGO)_[A-Z0-9_]*[A-Z0-9]$")
READERS = {"env_str", "env_int", "env_float", "env_bool", "env_list", "env_choice", "env_networks"}


def python_files(*places: str) -> list[Path]:
    files = []
    for place in places:
        path = ROOT / place
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [f for f in files if "migrations" not in f.parts]


def module_constants(tree: ast.Module) -> dict[str, str]:
    """NAME = "TEXT" at a module's top level (SKIP_VARIABLE = "INGEST_SKIP_BROWSER_TESTS")."""
    constants = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    constants[target.id] = node.value.value
    return constants


def first_argument(node: ast.Call | ast.Subscript, constants: dict[str, str]) -> str | None:
    arg = node.slice if isinstance(node, ast.Subscript) else (node.args or [None])[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.Name):
        return constants.get(arg.id)
    return None


def names_read(path: Path) -> set[str]:
    """Variables a file reads: through config.common.env's readers (any name), or os.environ and
    os.getenv (our INGEST_ and DJANGO_ names)."""
    tree = ast.parse(path.read_text())
    constants = module_constants(tree)
    found = set()
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func.split(".")[-1] in READERS:
                found.add(first_argument(node, constants))
                continue
            if func in {"os.environ.get", "os.getenv", "os.environ.setdefault"}:
                name = first_argument(node, constants)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            name = first_argument(node, constants)
        if name and OURS.match(name):
            found.add(name)
    return {name for name in found if name}


def names_written_as_text(path: Path) -> set[str]:
    """Our variable names as whole string constants ("INGEST_EXTRACTOR" handed to a child)."""
    tree = ast.parse(path.read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and OURS.match(node.value)
    }


@pytest.fixture(scope="module")
def topics():
    return reference.collect()


@pytest.fixture(scope="module")
def entries(topics):
    return {entry.name: entry for _, listed in topics for entry in listed}


def test_every_variable_the_settings_read_is_documented_with_a_meaning(entries):
    assert entries
    assert [name for name, entry in entries.items() if not entry.meaning.text.strip()] == []


def test_every_variable_the_code_reads_is_documented():
    read = set()
    for path in python_files(*PRODUCT):
        read |= names_read(path) | names_written_as_text(path)
    for path in python_files("tests"):
        read |= names_read(path)

    assert sorted(read - set(variables.meanings())) == []


def shell_defaults(text: str, pattern: str) -> dict[str, str]:
    return {name: default for name, default in re.findall(pattern, text)}


def written(default: object) -> str:
    """A default as a shell would write it (a path under the checkout from the checkout)."""
    if isinstance(default, bool):
        return str(default).lower()
    return str(default).removeprefix(f"{ROOT}{os.sep}")


def test_the_procfile_reads_documented_variables_with_the_reference_defaults(entries):
    procfile = shell_defaults((ROOT / "Procfile").read_text(), r"\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}")

    assert procfile
    assert sorted(set(procfile) - set(entries)) == []
    assert {n: d for n, d in procfile.items() if written(entries[n].default) != d} == {}


def test_the_makefile_reads_documented_variables_with_the_reference_defaults(entries):
    makefile = (ROOT / "Makefile").read_text()
    defaults = shell_defaults(makefile, r"(?m)^([A-Z][A-Z0-9_]*) \?= (.*)$")
    defaults |= shell_defaults(makefile, r"\$\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}")
    assigned = set(re.findall(r"(?m)^(?:export )?([A-Z][A-Z0-9_]*) *[:?]?=", makefile))
    used = (
        set(re.findall(r"\$\(([A-Z][A-Z0-9_]*)\)", makefile))
        - assigned
        - {"CURDIR", "PATH", "MAKE"}
    )

    assert sorted((set(defaults) | used) - set(entries)) == []
    assert {n: d for n, d in defaults.items() if written(entries[n].default) != d} == {}


@pytest.mark.parametrize(
    ("ending", "unit"),
    [("_SECONDS", "seconds"), ("_MINUTES", "minutes"), ("_DAYS", "days"), ("_BYTES", "bytes")],
)
def test_a_name_that_says_its_unit_is_documented_with_it(entries, ending, unit):
    assert [n for n, e in entries.items() if n.endswith(ending) and e.meaning.unit != unit] == []


def write_reference(tmp_path: Path, name: str, **environment: str) -> str:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}} | environment
    output = tmp_path / name
    subprocess.run(
        [sys.executable, "-m", "config.tooling.reference", "--output", str(output)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=60,
    )
    return output.read_text()


def test_the_committed_reference_is_what_the_code_writes_on_any_machine(tmp_path):
    plain = write_reference(tmp_path, "plain.md")
    elsewhere = write_reference(
        tmp_path,
        "elsewhere.md",
        INGEST_DATA_DIR=str(tmp_path / "data"),
        OPENAI_API_KEY="sk-test",
        INGEST_MAX_BACKLOG="7",
        DJANGO_ALLOWED_HOSTS="ingest.example.com",
    )

    assert plain == elsewhere
    assert str(ROOT) not in plain
    assert (ROOT / "docs" / "running" / "configuration.md").read_text() == plain
