"""Checks over the stored notebooks and the Makefile that runs them (issue 17).

- papermill reads every parameters cell: each assignment appears in ``papermill --help-notebook``
  with a type and its default, and papermill logs no warning ("Unable to parse line ...");
- every test that reads data carries the marker ``data`` (``make test`` re-runs ``-m data`` with the shared
  folder hidden, issue 40), and ``DATA_NOTEBOOKS`` in the Makefile names every notebook that reads the public
  collections or the shared folder. ``tests/conftest.py`` fails an unmarked test that calls a function finding
  such data; the check here reads the code, so that it also sees fixtures and subprocesses.
"""

from __future__ import annotations

import ast
import io
import json
import logging
import os
import re
import tokenize
from pathlib import Path

import pytest

from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason="not a source checkout (no notebooks/)")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) if ROOT else []


def _parameters_source(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{path.name}: expected one cell tagged 'parameters', found {len(cells)}"
    src = cells[0]["source"]
    return "".join(src) if isinstance(src, list) else src


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_reads_every_parameter(path, caplog):
    papermill = pytest.importorskip("papermill")
    src = _parameters_source(path)
    assigned = []
    for node in ast.parse(src).body:
        assert isinstance(node, (ast.Assign, ast.AnnAssign)), f"{path.name}: parameters cell holds only assignments"
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        assigned.append((target.id, ast.dump(node.value)))
    with caplog.at_level(logging.DEBUG, logger="papermill"):
        params = papermill.inspect_notebook(str(path))
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not warnings, f"{path.name}: papermill warns: {warnings}"
    assert list(params) == [name for name, _ in assigned], f"{path.name}: papermill misses parameters"
    for (name, value), p in zip(assigned, params.values()):
        assert p["inferred_type_name"] not in ("None", ""), f"{path.name}: {name} has no declared type"
        assert ast.dump(ast.parse(p["default"], mode="eval").body) == value, f"{path.name}: default of {name}"


def _makefile_data_notebooks() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    m = re.search(r"^DATA_NOTEBOOKS\s*:=\s*(.+)$", text, flags=re.M)
    assert m, "Makefile defines DATA_NOTEBOOKS"
    return set(m.group(1).split())


# reading the collections, the shared folder, a data setting or whether the user's cache holds a scale
# (the simulated preset "sim-gop" does not count; a build_cost given its own cache folder neither)
_DATA_USE = re.compile(r"\b(datasets|gop)\.[a-z_]+\(|\bimport\b[^\n]*\b(datasets|gop)\b|shared_(dir|path)\("
                       r"|\bfrom irscales\.data\.(datasets|gop) import\b"
                       r"|IRSCALES_(SHARED|COLLECTIONS|TREC|GOP|SCORES)\b|\btrec_(track|tracks|qrels|dir)\("
                       r"|load_preset\(\s*['\"]gop-"
                       r"|\b(gop_dir|scores_dir|load_gop|original_t0[78]|load_r04_249|r04_folder)\("
                       r"|\bbuild_cost\((?:(?!cache=)[^()]|\([^()]*\))*\)\.cached\b")


def _code_without_comments(text: str) -> str:
    toks = tokenize.generate_tokens(io.StringIO(text).readline)
    return " ".join(t.string for t in toks if t.type != tokenize.COMMENT)


# conftest's tuple of the data settings it unsets: naming it hides the data, it does not read it
_HIDING = {"DATA_SETTINGS"}


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Module-level name -> the statement that binds it (function, class, assignment or import)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update({(a.asname or a.name).split(".")[0]: node for a in node.names})
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update({n.id: node for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)})
    return out


def _without_docstrings(tree: ast.Module) -> ast.Module:
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            n.body = body[1:] or [ast.Pass()]
    return tree


def _is_data_mark(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "data" and isinstance(n.value, ast.Attribute)
               and n.value.attr == "mark" for n in ast.walk(node))


def _unmarked_readers(path: Path, conftest: dict[str, ast.AST]) -> list[str]:
    """The tests of ``path`` without the marker ``data`` whose code reads data: the test with its decorators
    and every module-level name (helper, fixture, constant, import) or conftest fixture it uses, transitively."""
    defs = _definitions(_without_docstrings(ast.parse(path.read_text(encoding="utf-8"))))
    if "pytestmark" in defs and _is_data_mark(defs["pytestmark"]):
        return []
    found = []
    for test in (d for name, d in defs.items() if name.startswith("test_") and isinstance(d, ast.FunctionDef)):
        if any(_is_data_mark(d) for d in test.decorator_list):
            continue
        seen, todo, code = set(), [test], []
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            code.append(ast.unparse(node))
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if isinstance(node, ast.FunctionDef):  # fixtures by argument
                names |= {a.arg for a in node.args.args + node.args.kwonlyargs}
            names -= _HIDING
            todo += [d for d in (defs.get(n) or conftest.get(n) for n in names) if d is not None]
        hit = _DATA_USE.search("\n".join(code))
        if hit:
            found.append(f"tests/{path.name}::{test.name} ({hit.group(0)})")
    return found


def test_every_test_that_reads_data_is_marked():
    conftest = _definitions(_without_docstrings(ast.parse((ROOT / "tests" / "conftest.py").read_text())))
    found = [r for f in sorted((ROOT / "tests").glob("test_*.py")) if f.name != Path(__file__).name
             for r in _unmarked_readers(f, conftest)]
    assert not found, "these tests read data: add @pytest.mark.data (make test runs them again as on a fresh " \
                      f"clone): {found}"


def test_the_marker_check_sees_helpers_fixtures_and_decorators(tmp_path):
    """The rule above on a made-up module: a direct read, one through a helper, a fixture or a skip condition
    is found; a marked test, a marked module and a test of the simulated presets are not."""
    conftest = {"shared_fixture": ast.parse("def shared_fixture(): return paths.shared_dir()").body[0]}
    f = tmp_path / "test_made_up.py"
    f.write_text("""
import pytest
from irscales.data.datasets import available
def _runs(): return trec_track("T08")
@pytest.fixture
def grid(): return gop_dir()
def test_direct(): assert paths.shared_dir() is None
def test_helper(): _runs()
def test_fixture(grid): pass
def test_conftest_fixture(shared_fixture): pass
@pytest.mark.skipif(not available("cranfield"), reason="absent")
def test_decorator(): pass
@pytest.mark.data
def test_marked(): _runs()
def test_simulated(): load_preset("sim-gop", depth=5)
def test_own_cache(tmp_path): assert not build_cost(AP(), 9, cache=tmp_path).cached
def test_user_cache(): assert build_cost(AP(), 30).cached
""")
    found = [r.split("::")[1].split(" ")[0] for r in _unmarked_readers(f, conftest)]
    assert found == ["test_direct", "test_helper", "test_fixture", "test_conftest_fixture", "test_decorator",
                     "test_user_cache"]
    f.write_text("import pytest\npytestmark = [pytest.mark.data]\ndef test_direct(): paths.shared_dir()\n")
    assert _unmarked_readers(f, conftest) == []


def test_an_unmarked_test_that_looks_for_data_fails(tmp_path):
    """tests/conftest.py at work, in a pytest of its own: an unmarked test sees no data setting and the session's
    cache, and fails when it looks for the shared folder; the same test marked ``data`` passes."""
    import shutil
    import subprocess
    import sys

    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_made_up.py").write_text("""
import os
import pytest
from irscales import paths
def test_fresh_clone(scale_cache):
    assert "IRSCALES_SHARED" not in os.environ and os.environ["IRSCALES_CACHE"] == str(scale_cache)
def test_unmarked():
    paths.shared_dir()
@pytest.mark.data
def test_marked():
    assert os.environ["IRSCALES_SHARED"] == "elsewhere"
""")
    env = {**os.environ, "IRSCALES_SHARED": "elsewhere"}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "markers=data",
                          str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300).stdout
    # the unmarked reader passes its call and errs at teardown
    assert out.splitlines()[-1].startswith("3 passed, 1 error in "), out[-2000:]
    assert [ln.split(" - ")[0] for ln in out.splitlines() if ln.startswith("ERROR ")] == [
        "ERROR test_made_up.py::test_unmarked"], out[-2000:]
    assert "test_made_up.py::test_unmarked reads data (irscales.paths.shared_dir) without the marker" in out


def test_data_notebooks_cover_every_notebook_that_reads_data():
    listed = _makefile_data_notebooks()
    assert all((ROOT / p).exists() for p in listed), f"DATA_NOTEBOOKS names missing files: {listed}"
    readers = set()
    for f in NOTEBOOKS:
        nb = json.loads(f.read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
                         and "parameters" not in c.get("metadata", {}).get("tags", []))
        code = "\n".join(ln for ln in code.splitlines() if not ln.lstrip().startswith(("%", "!")))
        if _DATA_USE.search(_code_without_comments(code)):
            readers.add(f"notebooks/{f.name}")
    assert "notebooks/06_gop_public_grid.ipynb" in readers
    assert readers <= listed, f"add to DATA_NOTEBOOKS in the Makefile: {sorted(readers - listed)}"
