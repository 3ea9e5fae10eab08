"""Checks over the stored notebooks and the Makefile that runs them (issue 17).

- papermill reads every parameters cell: each assignment appears in ``papermill --help-notebook``
  with a type and its default, and papermill logs no warning ("Unable to parse line ...");
- ``DATA_TESTS`` in the Makefile (the tests ``make test`` re-runs with the shared folder hidden)
  names every test module and notebook that reads the public collections or the shared folder.
"""

from __future__ import annotations

import ast
import io
import json
import logging
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


def _makefile_data_tests() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    m = re.search(r"^DATA_TESTS\s*:=\s*(.+)$", text, flags=re.M)
    assert m, "Makefile defines DATA_TESTS"
    return set(m.group(1).split())


# reading the collections or the shared folder (the simulated preset "sim-gop" does not count)
_DATA_USE = re.compile(r"\b(datasets|gop)\.[a-z_]+\(|\bimport\b[^\n]*\b(datasets|gop)\b|shared_(dir|path)\("
                       r"|IRSCALES_SHARED|IRSCALES_COLLECTIONS|IRSCALES_TREC|\btrec_(track|tracks|qrels|dir)\("
                       r"|load_preset\(\s*['\"]gop-"
                       r"|\b(gop_dir|scores_dir|load_gop|original_t0[78]|load_r04_249|r04_folder)\(")


def _code_without_comments(text: str) -> str:
    toks = tokenize.generate_tokens(io.StringIO(text).readline)
    return " ".join(t.string for t in toks if t.type != tokenize.COMMENT)


def test_data_tests_cover_every_reader_of_data():
    listed = _makefile_data_tests()
    assert all((ROOT / p).exists() for p in listed), f"DATA_TESTS names missing files: {listed}"
    readers = set()
    for f in sorted((ROOT / "tests").glob("test_*.py")):
        if f.name != Path(__file__).name and _DATA_USE.search(_code_without_comments(f.read_text())):
            readers.add(f"tests/{f.name}")
    for f in NOTEBOOKS:
        nb = json.loads(f.read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
                         and "parameters" not in c.get("metadata", {}).get("tags", []))
        code = "\n".join(ln for ln in code.splitlines() if not ln.lstrip().startswith(("%", "!")))
        if _DATA_USE.search(_code_without_comments(code)):
            readers.add(f"notebooks/{f.name}")
    assert {"tests/test_datasets.py", "notebooks/06_gop_public_grid.ipynb"} <= readers
    assert readers <= listed, f"add to DATA_TESTS in the Makefile: {sorted(readers - listed)}"
