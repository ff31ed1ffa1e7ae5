"""tests.harness: what tests and benchmarks both stand on, and nothing of either."""

import ast
from pathlib import Path

import psycopg

from tests.harness import services as harness

HARNESS = Path(__file__).resolve().parent / "harness"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


# What the harness may stand on in tests/: itself, and the fakes of what cannot run here
# (a paid embeddings API), which import nothing of the tests either.
BENEATH = (["tests", "harness"], ["tests", "fakes"])


def test_the_harness_imports_no_test_module_and_no_benchmark():
    for path in sorted(HARNESS.glob("*.py")):
        for name in imported_modules(path):
            inside = name.startswith(".") or name.split(".")[:2] in BENEATH
            assert inside or not name.startswith("tests"), f"{path.name} imports {name}"


def test_the_fakes_the_harness_stands_on_import_nothing_of_the_tests():
    used = {
        name.split(".")[2]
        for path in HARNESS.glob("*.py")
        for name in imported_modules(path)
        if name.startswith("tests.fakes.")
    }
    assert used, "the harness uses a fake (servers.py: the OpenAI one)"
    for path in sorted((HARNESS.parent / "fakes" / f"{module}.py") for module in used):
        for name in imported_modules(path):
            inside = name.startswith(".") or name.split(".")[:2] == ["tests", "fakes"]
            assert inside or not name.startswith("tests"), f"{path.name} imports {name}"


def test_started_services_answer_name_themselves_to_child_processes_and_stop(tmp_path):
    services = harness.start(tmp_path)
    try:
        variables = services.variables
        assert services.redis is not None
        assert services.redis.url == variables["REDIS_URL"]
        assert variables["INGEST_DATA_DIR"] == str(tmp_path / "data")
        assert (tmp_path / "data").is_dir()
        assert services.env["DATABASE_URL"] == variables["DATABASE_URL"]

        with psycopg.connect(variables["DATABASE_URL"]) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        services.stop()
        services.stop()  # twice is harmless

    assert services.postgres is None
    assert services.redis is None
    assert not (tmp_path / "pg" / "postmaster.pid").exists()
