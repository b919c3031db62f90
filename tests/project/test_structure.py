"""The package's shape: every module imports on its own, no import cycle, and the layers point one way.

Layers, lowest first: log (the core) < sessions < vault < card, agents, cli; similar sits above log, beside card,
agents and cli (who call it), below them. A layer imports only from layers below it. Inside log, the store is below
the views.
"""

import ast
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import notebooks
from tests.databases import ROOT

pytestmark = pytest.mark.database_free  # its one process imports modules; none touches a database

PACKAGE = Path(notebooks.__file__).resolve().parent

# Who may not be imported by whom: a module under the key imports nothing from the packages listed.
FORBIDDEN = {
    "notebooks.log": (
        "notebooks.sessions",
        "notebooks.vault",
        "notebooks.card",
        "notebooks.agents",
        "notebooks.cli",
        "notebooks.similar",
    ),
    "notebooks.sessions": (
        "notebooks.vault",
        "notebooks.card",
        "notebooks.agents",
        "notebooks.cli",
        "notebooks.similar",
    ),
    "notebooks.vault": ("notebooks.card", "notebooks.agents", "notebooks.cli", "notebooks.similar"),
    "notebooks.similar": (
        "notebooks.sessions",
        "notebooks.vault",
        "notebooks.card",
        "notebooks.agents",
        "notebooks.cli",
    ),
}


def project_modules() -> list[str]:
    """Every module and package under notebooks/, migrations left out (Django loads them, nobody imports them).
    pkgutil.iter_modules reads the directories; walk_packages would import every package to find its children."""
    names = []
    todo = [("notebooks", PACKAGE)]
    while todo:
        package, path = todo.pop()
        names.append(package)
        for info in pkgutil.iter_modules([str(path)]):
            if info.name == "migrations":
                continue
            if info.ispkg:
                todo.append((f"{package}.{info.name}", path / info.name))
            else:
                names.append(f"{package}.{info.name}")
    return sorted(names)


def source_of(module: str) -> Path:
    path = ROOT / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _resolve(module: str, node: ast.ImportFrom) -> str:
    """The absolute name a `from X import ...` reads from, relative imports resolved against `module`."""
    if not node.level:
        return node.module or ""
    is_package = source_of(module).name == "__init__.py"
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: str, known: set[str], *, module_level_only: bool) -> set[str]:
    """The project's modules `module` imports; `from a import b` means a.b when a.b is a module, else a."""
    return {name for name in named_imports(module, known, module_level_only=module_level_only) if name in known}


def named_imports(module: str, known: set[str], *, module_level_only: bool) -> set[str]:
    """Every module `module` names in an import, the project's and others'."""
    tree = ast.parse(source_of(module).read_text(encoding="utf-8"), filename=str(source_of(module)))
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, node)
                for alias in node.names:
                    found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and module_level_only:
                continue  # runs when called, not when the module is imported
            elif isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.orelse)  # the body runs only under a type checker
                continue
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    visit([c for c in children if isinstance(c, ast.stmt | ast.excepthandler | ast.match_case)])

    visit(tree.body)
    return found


def import_graph(*, module_level_only: bool = True) -> dict[str, set[str]]:
    known = set(project_modules())
    return {m: imports_of(m, known, module_level_only=module_level_only) - {m} for m in sorted(known)}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def a_cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One concrete cycle through the component's first module, for the message (breadth-first, so a short one)."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"{component} is not strongly connected")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        for layer, forbidden in FORBIDDEN.items():
            if module == layer or module.startswith(layer + "."):
                for target in sorted(targets):
                    if any(target == f or target.startswith(f + ".") for f in forbidden):
                        found.append(f"{module} imports {target}")
    return found


# ----- the checks' own behaviour, on small made-up graphs --------------------------------------------------------


def test_the_cycle_finder_reports_a_cycle_and_ignores_a_chain():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert a_cycle_in(["a", "b", "c"], graph) == ["a", "b", "c", "a"]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_a_from_import_of_a_submodule_counts_as_importing_the_submodule():
    graph = import_graph()
    # cli/vault.py says `from notebooks.vault import watch as watch_vault`: watch is a module and a function.
    assert "notebooks.vault.watch" in graph["notebooks.cli.vault"]
    # vault/__init__.py's relative `from .mirror import ...` resolves against the package itself.
    assert "notebooks.vault.mirror" in graph["notebooks.vault"]


# ----- the package --------------------------------------------------------------------------------------------


def outside_imports() -> list[str]:
    """The modules outside the project that its modules import at import time (numpy, scipy, ninja, …)."""
    known = set(project_modules())
    named = set().union(*(named_imports(m, known, module_level_only=True) for m in known))
    return sorted(n for n in named if n and n.split(".")[0] not in ("notebooks", "notebook_site"))


# Forked children start with the libraries the project names already imported (seconds each: scipy, sklearn), but
# with no more of the project than django.setup() imports, which is what each module must import on its own after.
IMPORT_EACH = textwrap.dedent(
    """
    import importlib, os, sys, traceback
    import django

    django.setup()
    split = sys.argv.index("--")
    modules, outside = sys.argv[1:split], sys.argv[split + 1:]
    ours = lambda: {m for m in sys.modules if m.split(".")[0] in ("notebooks", "notebook_site")}
    before = ours()
    for name in outside:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # the module naming it fails below, with its own traceback
    if ours() != before:
        sys.exit(f"importing libraries imported project modules: {sorted(ours() - before)}")
    failed = 0
    for name in modules:
        pid = os.fork()  # the child starts from a process that has run django.setup() and imported no more of ours
        if pid == 0:
            try:
                importlib.import_module(name)
            except BaseException:
                print(f"== {name}", file=sys.stderr)
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        failed += status != 0
    sys.exit(1 if failed else 0)
    """
)


def test_every_module_imports_on_its_own_after_django_setup():
    modules = project_modules()
    assert "notebooks.log.views.selectors" in modules and not any("migrations" in m for m in modules)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "notebook_site.settings_test", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, *modules, "--", *outside_imports()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def cycles_in(graph: dict[str, set[str]]) -> list[str]:
    return [" -> ".join(a_cycle_in(component, graph)) for component in strongly_connected(graph)]


def test_no_module_imports_itself_through_a_cycle_at_import_time():
    cycles = cycles_in(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_cycle_hides_behind_imports_deferred_into_functions():
    # A function-level import that closes a loop is a cycle the import system merely does not see.
    cycles = cycles_in(import_graph(module_level_only=False))
    assert not cycles, "import cycles, counting imports inside functions:\n" + "\n".join(cycles)


def test_the_layers_import_only_from_the_layers_below_them():
    # Imports inside functions count too: a deferred import is still a dependency on the upper layer.
    violations = layer_violations(import_graph(module_level_only=False))
    assert not violations, "\n".join(violations)


def test_the_row_tables_sql_lives_in_the_store_in_at_most_five_modules():
    # Migrations aside (history, never imported by the app): every other module asks the store.
    naming = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "migrations" not in path.parts and re.search(r"\bnotebooks_row\b", path.read_text())
    )
    assert all(name.startswith("log/store/") for name in naming), naming
    assert len(naming) <= 5, naming


def test_the_store_is_below_the_views():
    # The views read through the store; the store tells them of a write through the follower they register (apps.py).
    graph = import_graph(module_level_only=False)
    upward = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        if module.startswith("notebooks.log.store.")
        for target in sorted(targets)
        if target == "notebooks.log.views" or target.startswith("notebooks.log.views.")
    ]
    assert not upward, "\n".join(upward)


def test_every_process_that_sets_django_up_has_the_views_follow_the_stores_writes():
    from notebooks.log.store import append
    from notebooks.log.views import caches

    assert isinstance(append.following(), caches.Caches)
