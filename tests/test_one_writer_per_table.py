"""One writer per table: a model's rows are written by its own app alone, and the two
tables at the heart of the service by their services alone (Document by
documents/services/, Job and its attempts by jobs' core). Another app asks the owner's
services. Read from the code: every queryset write (create, update, delete and their
kin) of a model, by the module that makes it. (An instance's save() and raw SQL are not
read here.)"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("config.accounts", "documents", "jobs.ops", "jobs.webhooks", "jobs", "search")
WRITES = {"create", "bulk_create", "update", "delete", "get_or_create", "update_or_create"}
# Tables whose writes are narrower than their app: the modules that may write them.
SERVICES = {
    "Document": ("documents.services.",),
    "Job": ("jobs.services", "jobs.queue", "jobs.sweeper"),
    "JobAttempt": ("jobs.services",),
}


def app_of(module: str) -> str:
    """The app a module of the product belongs to ("" for anything else: django, ...)."""
    return next((app for app in APPS if module == app or module.startswith(app + ".")), "")


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def models_named(tree: ast.Module, module: str) -> dict[str, str]:
    """Each model class a module can name, and the app that defines it."""
    named = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = node.module or ""
        if source.endswith(".models") and (app := app_of(source)):
            for alias in node.names:
                named[alias.asname or alias.name] = app
    if module.endswith(".models"):
        named.update(
            {node.name: app_of(module) for node in tree.body if isinstance(node, ast.ClassDef)}
        )
    return named


def root_of(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """The name a chain of calls and attributes starts from, and the attributes on the way."""
    attributes = []
    while isinstance(node, (ast.Call, ast.Attribute)):
        if isinstance(node, ast.Attribute):
            attributes.append(node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    return node, attributes


def writes_in(path: Path, module: str = "") -> list[tuple[str, str, str, int]]:
    """(model, its app, the writing module, line) for each queryset write in the file."""
    module = module or module_name(path)
    tree = ast.parse(path.read_text())
    models = models_named(tree, module)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in WRITES:
            continue
        start, attributes = root_of(node.func.value)
        if isinstance(start, ast.Name) and start.id in models and "objects" in attributes:
            found.append((start.id, models[start.id], module, node.lineno))
    return found


def product_files() -> list[Path]:
    return [
        path
        for top in ("config", "documents", "jobs", "search")
        for path in (ROOT / top).rglob("*.py")
        if "migrations" not in path.parts and "deploy" not in path.parts
    ]


def test_every_table_is_written_by_its_own_app_and_the_core_tables_by_their_services():
    strays = [
        f"{module}:{line} writes {model}"
        for path in product_files()
        for model, owner, module, line in writes_in(path)
        if app_of(module) != owner or (model in SERVICES and not module.startswith(SERVICES[model]))
    ]

    assert strays == []


def test_a_write_from_another_app_is_found(tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text(
        "from jobs.models import Job\n\n\ndef prune():\n"
        "    Job.objects.filter(status='failed').order_by().delete()\n"
    )

    found = writes_in(stray, module="search.stray")

    assert found == [("Job", "jobs", "search.stray", 5)]
    assert app_of("search.stray") != "jobs"
