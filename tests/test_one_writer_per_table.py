"""One writer per table: a model's rows are written by its own app alone, and the two
tables at the heart of the service by their services alone (Document by
documents/services/, Job and its attempts by jobs' core). Another app asks the owner's
services. Read from the code, module by module, three ways a row is written:

- a queryset write (create, update, delete and their kin) of a model class;
- an instance's save() or delete(), the instance's model told by an annotation, by what
  it was assigned from, or else by its name (`document` is a Document);
- raw SQL: an INSERT INTO, UPDATE or DELETE FROM naming a table, as text or as
  `Model._meta.db_table`.
"""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parents[1]
WRITES = {"create", "bulk_create", "update", "delete", "get_or_create", "update_or_create"}
INSTANCE_WRITES = {"save", "delete"}
# Tables whose writes are narrower than their app: the modules that may write them.
SERVICES = {
    "Document": ("documents.services.",),
    "Job": ("jobs.services", "jobs.queue", "jobs.sweeper"),
    "JobAttempt": ("jobs.services",),
}
SQL_WRITE = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(\w+)", re.IGNORECASE)


@dataclass(frozen=True)
class Model:
    name: str
    app: str  # the app's module: "documents", "jobs.webhooks", ...
    table: str
    rows: str  # whose rows it writes: its own name, or a proxy's concrete model's


def product_models() -> dict[str, Model]:
    """The product's models by class name (the names are unique across its apps)."""
    found = [
        Model(
            model.__name__,
            model._meta.concrete_model._meta.app_config.name,
            model._meta.db_table,
            model._meta.concrete_model.__name__,
        )
        for model in apps.get_models()
        if model._meta.app_config.name.split(".")[0] in {"config", "documents", "jobs", "search"}
    ]
    by_name = {model.name: model for model in found}
    assert len(by_name) == len(found), "two product models share a name"
    return by_name


def app_of(module: str, models: dict[str, Model]) -> str:
    """The app a module of the product belongs to: the longest app name it starts with."""
    names = sorted({model.app for model in models.values()}, key=len, reverse=True)
    return next((app for app in names if module == app or module.startswith(app + ".")), "")


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def root_of(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """The name a chain of calls and attributes starts from, and the attributes on the way."""
    attributes = []
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            attributes.append(node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    return node, attributes


def named_model(annotation: ast.expr | None, models: dict[str, Model]) -> str | None:
    """The model an annotation names: `Document`, `"Document"`, `Document | None`."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value.split("|")[0].strip()
        return text if text in models else None
    if isinstance(annotation, ast.BinOp):
        return named_model(annotation.left, models) or named_model(annotation.right, models)
    if isinstance(annotation, ast.Name) and annotation.id in models:
        return annotation.id
    return None


def made_from(value: ast.expr | None, models: dict[str, Model]) -> str | None:
    """The model a value is an instance of, when it plainly is: `Model(...)`, or a row
    read through `Model.objects`."""
    if value is None:
        return None
    start, attributes = root_of(value)
    if not (isinstance(start, ast.Name) and start.id in models):
        return None
    return start.id if not attributes or "objects" in attributes else None


def target_name(node: ast.expr) -> str | None:
    """`document` for `document`, `record` for `self.record`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return None


def instance_types(tree: ast.AST, models: dict[str, Model]) -> dict[str, str]:
    """What each name (or self's attribute) in a scope is an instance of, where told."""
    types: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and (model := named_model(node.annotation, models)):
            types[node.arg] = model
        elif isinstance(node, ast.AnnAssign) and (name := target_name(node.target)):
            if model := named_model(node.annotation, models) or made_from(node.value, models):
                types[name] = model
        elif isinstance(node, ast.Assign):
            model = made_from(node.value, models)
            for target in node.targets:
                if model and (name := target_name(target)):
                    types[name] = model
    return types


def by_its_name(name: str, models: dict[str, Model]) -> str | None:
    """The model a name says: `document` is a Document, `api_token` an ApiToken."""
    wanted = name.replace("_", "").lower()
    return next((model for model in models if model.lower() == wanted), None)


def instance_writes(tree: ast.Module, models: dict[str, Model]) -> list[tuple[str, int]]:
    """(model, line) for each save() or delete() of an instance whose model is told."""
    found = []
    module_wide = instance_types(tree, models)  # class attributes, and names seen anywhere
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        told = module_wide | instance_types(scope, models)
        for node in ast.walk(scope):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in INSTANCE_WRITES or node.args:
                continue  # delete(key) is a storage's, not a row's
            name = target_name(node.func.value)
            model = name and (told.get(name) or by_its_name(name, models))
            if model:
                found.append((model, node.lineno))
    return list(dict.fromkeys(found))  # a nested function is walked with its parent


def sql_text(node: ast.expr, models: dict[str, Model]) -> str:
    """A string's text, with `Model._meta.db_table` in an f-string read as the table."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    parts = []
    for value in node.values if isinstance(node, ast.JoinedStr) else []:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
            continue
        assert isinstance(value, ast.FormattedValue)
        start, attributes = root_of(value.value)
        is_table = isinstance(start, ast.Name) and attributes == ["db_table", "_meta"]
        parts.append(models[start.id].table if is_table and start.id in models else "{}")
    return "".join(parts)


def sql_writes(tree: ast.Module, models: dict[str, Model]) -> list[tuple[str, int]]:
    """(model, line) for each table a string of raw SQL writes."""
    by_table = {model.table: model.rows for model in models.values()}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
        ):
            for table in SQL_WRITE.findall(sql_text(node, models)):
                if table in by_table:
                    found.append((by_table[table], node.lineno))
    return found


def writes_in(path: Path, models: dict[str, Model], module: str = "") -> list[tuple[str, int]]:
    """(model, line) for each write the file makes, queryset, instance or SQL."""
    tree = ast.parse(path.read_text())
    queryset = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr in WRITES:
            start, attributes = root_of(node.func.value)
            if isinstance(start, ast.Name) and start.id in models and "objects" in attributes:
                queryset.append((start.id, node.lineno))
    found = queryset + instance_writes(tree, models) + sql_writes(tree, models)
    return [(models[model].rows, line) for model, line in found]


def strays(path: Path, models: dict[str, Model], module: str = "") -> list[str]:
    module = module or module_name(path)
    app = app_of(module, models)
    return [
        f"{module}:{line} writes {model}"
        for model, line in writes_in(path, models)
        if app != models[model].app
        or (model in SERVICES and not module.startswith(SERVICES[model]))
    ]


def product_files() -> list[Path]:
    return [
        path
        for top in ("config", "documents", "jobs", "search")
        for path in (ROOT / top).rglob("*.py")
        if "migrations" not in path.parts and "deploy" not in path.parts
    ]


def test_every_table_is_written_by_its_own_app_and_the_core_tables_by_their_services():
    models = product_models()

    found = [stray for path in product_files() for stray in strays(path, models)]

    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "from jobs.models import Job\n\n\ndef prune():\n    x = 1\n"
        "    Job.objects.filter(status='failed').order_by().delete()\n",
        "from jobs.models import Job\n\n\ndef touch(job: Job):\n    x = 1\n"
        "    job.save(update_fields=['status'])\n",
        "from jobs.models import Job\n\n\ndef touch(row_id):\n    job = find(row_id)\n"
        "    job.delete()\n",
        "from jobs.models import Job\n\n\ndef touch(cursor):\n    x = 1\n"
        "    cursor.execute(f'UPDATE {Job._meta.db_table} SET status = %s', ['failed'])\n",
        "\n\n\ndef touch(cursor):\n    x = 1\n"
        "    cursor.execute('DELETE FROM jobs_job WHERE id = %s')\n",
    ],
    ids=["queryset", "save", "delete by its name", "f-string SQL", "SQL"],
)
def test_a_write_from_another_app_is_found(tmp_path, source):
    stray = tmp_path / "stray.py"
    stray.write_text(source)

    assert strays(stray, product_models(), module="search.stray") == ["search.stray:6 writes Job"]


def test_a_storage_delete_and_a_serializer_save_are_no_row_writes(tmp_path):
    code = tmp_path / "code.py"
    code.write_text(
        "def clean(default_storage, serializer):\n"
        "    default_storage.delete('documents/x.pdf')\n    serializer.save()\n"
    )

    assert writes_in(code, product_models()) == []
