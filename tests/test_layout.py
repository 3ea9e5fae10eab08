"""The package's layout rules (issue 19): one idea in one place, and rooms a reader can find.

Checked on the source as text (AST), so a new module that breaks a rule fails here first:
every module declares ``__all__``; none is longer than ``HARD_LINES`` (``GUIDE_LINES`` is a guide: a longer
module is reported as a warning, never split only to fit, issue 50); irscales modules are imported
at the top of a module, never inside a function; no module uses another module's private names;
the import graph has no cycle; notebooks define nothing and stay short.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "irscales"
GUIDE_LINES = 500  # a module past this is reported (pytest's warnings summary): worth a look, not a wall
HARD_LINES = 1000  # past this a module holds more than one concern
# Imports of irscales modules allowed inside functions, with the reason. The command line loads
# scipy only in the commands that need it: at the top these add about 0.5 s (data layer) and 2 s
# (significance tests, corroboration) to every ``irscales --help``; the one-call API (irscales.evaluation) and
# the public Grid of Points (sample-data) load both.
LAZY_IMPORTS = {("irscales.cli", "irscales.data.collection"), ("irscales.cli", "irscales.stats"),
                ("irscales.cli", "irscales.ipso"), ("irscales.cli", "irscales.evaluation"),
                ("irscales.cli", "irscales.data.trec"), ("irscales.cli", "irscales.data"),
                ("irscales.cli", "irscales.data._gop_index"),
                # the one reader of measure lists, loaded with the command that reads them (irscales.evaluation)
                ("irscales.cli._options", "irscales.evaluation"),
                # the comparison layer loads scipy.stats and statsmodels (1.5 s): only when a comparison is asked for
                ("irscales.evaluation", "irscales.comparison"),
                # the ir_measures provider registers when ir_measures is imported (issue 48): the evaluation layer
                # (about 0.4 s) loads with the first measure made or value computed
                ("irscales.ir_measures_provider", "irscales.evaluation"),
                ("irscales.ir_measures_provider", "irscales.interval"),
                # issue 49: `irscales --help` without pandas, numba or the scale engine (0.5 s at most): the engine's
                # errors are loaded once a command failed, the engine, the interval layer and the table renderer
                # (pandas) by the commands that use them
                ("irscales.cli", "irscales.enumeration"), ("irscales.cli", "irscales.interval"),
                ("irscales.cli", "irscales.comparison._render"), ("irscales.cli", "irscales.comparison"),
                ("irscales.cli", "irscales.cli._scores"),
                # issue 49: plain scores need no interval values: the scale engine (the enumeration, numba) loads
                # with the first interval value or scale asked for
                ("irscales.evaluation", "irscales.interval"),
                # issue 51: the box of bracketed interval values needs the scale engine: only with brackets
                ("irscales.evaluation", "irscales._interval_box")}
NOTEBOOK_CODE_LINES = 150
MODULES = sorted(p for p in PKG.rglob("*.py") if p.name != "__main__.py")


def _name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _target(node: ast.ImportFrom, module: str, is_pkg: bool) -> str | None:
    """The absolute module an ``ImportFrom`` reads from (relative imports resolved)."""
    if node.level == 0:
        return node.module
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _top_level_imports(path: Path) -> set[str]:
    """irscales modules imported when ``path`` is imported (module level, including under if/try)."""
    module, is_pkg = _name(path), path.name == "__init__.py"
    known = {_name(p) for p in MODULES}
    out: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.startswith("irscales"))
            elif isinstance(node, ast.ImportFrom):
                t = _target(node, module, is_pkg)
                if t and t.startswith("irscales"):
                    for a in node.names:  # `from irscales.pkg import mod` imports the sub-module
                        out.add(f"{t}.{a.name}" if f"{t}.{a.name}" in known else t)
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(node, field, None)
                if isinstance(sub, list) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    visit(sub)

    visit(_tree(path).body)
    return {m for m in out if m != module}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _name(p))
def test_module_declares_all_and_is_short(path):
    tree = _tree(path)
    names = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
             for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    assert "__all__" in names, f"{_name(path)} has no __all__"
    n = len(path.read_text().splitlines())
    assert n <= HARD_LINES, f"{_name(path)} has {n} lines (at most {HARD_LINES}: split it by concern)"
    if n > GUIDE_LINES:
        warnings.warn(f"{_name(path)} has {n} lines (guide: {GUIDE_LINES}); split it if it holds two concerns", stacklevel=1)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _name(p))
def test_no_irscales_imports_inside_functions(path):
    bad = []
    for fn in ast.walk(_tree(path)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (_name(path), node.module) in LAZY_IMPORTS:
                    continue
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("irscales")):
                    bad.append(f"line {node.lineno} in {fn.name}()")
                elif isinstance(node, ast.Import) and any(a.name.startswith("irscales") for a in node.names):
                    bad.append(f"line {node.lineno} in {fn.name}()")
    assert not bad, f"{_name(path)} imports irscales modules inside functions: {', '.join(bad)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _name(p))
def test_no_private_names_of_other_modules(path):
    module, is_pkg = _name(path), path.name == "__init__.py"
    tree = _tree(path)
    known = {_name(p) for p in MODULES}
    aliases: dict[str, str] = {}
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            t = _target(node, module, is_pkg)
            if t and t.startswith("irscales") and t != module:
                for a in node.names:
                    # a private module (`from irscales.cli import _output`) is the package's implementation, not a
                    # private name of a module: it is private to the library's users (issue 50), not to its modules
                    if a.name.startswith("_") and not a.name.startswith("__") and f"{t}.{a.name}" not in known:
                        bad.append(f"{t}.{a.name} (line {node.lineno})")
                    aliases[a.asname or a.name] = f"{t}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("irscales"):
                    aliases[a.asname or a.name.split(".")[0]] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            bad.append(f"{aliases[node.value.id]}.{node.attr} (line {node.lineno})")
    assert not bad, f"{module} uses private names of other modules: {', '.join(sorted(set(bad)))}"


def test_import_graph_has_no_cycle():
    graph = {_name(p): _top_level_imports(p) for p in MODULES}
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(m: str):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                cycle = stack[stack.index(n):] + [n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n in graph and not state.get(n):
                dfs(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if not state.get(m):
            dfs(m)


PUBLIC_NAMES_AT_MOST = 300  # issue 50: a curated face over private implementation modules


def test_the_core_exports_few_public_names():
    """What ``__all__`` exports from the core's public modules (``scripts/public_names.py``, the issue's count: no
    private module, no package face, no ``papers/``) stays small: implementation goes into ``_name.py``."""
    spec = importlib.util.spec_from_file_location("public_names", ROOT / "scripts" / "public_names.py")
    counter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counter)
    names = counter.public_names()
    modules, _ = counter.counts(names)
    assert 0 < modules <= PUBLIC_NAMES_AT_MOST, sorted(names.items(), key=lambda kv: -len(kv[1]))[:10]


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_are_thin_clients(nb):
    cells = [c for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"]
    code = ["".join(c["source"]) for c in cells]
    lines = sum(1 for s in code for ln in s.splitlines() if ln.strip() and not ln.lstrip().startswith("#"))
    defs = [ln for s in code for ln in s.splitlines() if ln.lstrip().startswith(("def ", "class "))]
    assert not defs, f"{nb.name} defines {defs}: move them into irscales.papers"
    assert lines <= NOTEBOOK_CODE_LINES, f"{nb.name} has {lines} code lines (at most {NOTEBOOK_CODE_LINES})"
