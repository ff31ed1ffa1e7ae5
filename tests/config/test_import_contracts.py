"""What lint-imports' contracts cannot say themselves: that the list of config's utility
modules is the current one, and that no module anywhere is in an import cycle, even one
hidden in a function."""

import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
APPS = ("documents", "jobs", "search")


def contracts() -> dict:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["name"]: contract for contract in settings["contracts"]}


def graph() -> grimp.ImportGraph:
    # Function-level imports are in the graph (grimp reads every import statement);
    # imports under `if TYPE_CHECKING:` run nothing and are left out, as lint-imports does.
    return grimp.build_graph(
        "config", "documents", "jobs", "search", "tests", exclude_type_checking_imports=True
    )


def test_the_config_utility_contract_lists_exactly_the_config_modules_the_apps_import():
    imports = graph()
    imported = {
        module
        for app_module in imports.modules
        if app_module.split(".")[0] in APPS
        for module in imports.find_modules_directly_imported_by(app_module)
        if module.startswith("config.")
    }

    listed = contracts()["config's utility modules import no app"]["source_modules"]

    assert sorted(imported) == sorted(listed)


def cycles(imports: grimp.ImportGraph) -> list[set[str]]:
    """The groups of modules that import one another (Tarjan's strongly connected
    components of more than one module)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in imports.find_modules_directly_imported_by(module):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(group)

    for module in sorted(imports.modules):
        if module not in order:
            visit(module)
    return found


def test_no_two_modules_import_each_other_not_even_from_inside_a_function():
    assert cycles(graph()) == []


def test_a_cycle_through_a_function_level_import_is_found(tmp_path, monkeypatch):
    package = tmp_path / "loop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loop import b\n")
    (package / "b.py").write_text("def late():\n    from loop import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    assert cycles(grimp.build_graph("loop")) == [{"loop.a", "loop.b"}]


def test_nothing_of_the_product_imports_the_tests_not_even_a_deploy_script():
    """lint-imports sees the packages; the scripts under config/deploy are read here."""
    product = [ROOT / name for name in ("config", *APPS)]
    importing = [
        str(path.relative_to(ROOT))
        for folder in product
        for path in folder.rglob("*.py")
        if any(
            line.strip().startswith(("from tests", "import tests"))
            for line in path.read_text().splitlines()
        )
    ]

    assert importing == []


def test_every_layer_contract_holds_without_exceptions():
    excepted = {
        name: contract["ignore_imports"]
        for name, contract in contracts().items()
        if contract.get("ignore_imports")
    }

    assert excepted == {}
