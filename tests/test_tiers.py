"""The test tiers (issue 49 item 4): ``make test`` runs every test, in parallel (pytest-xdist); ``make test-fast``
the unit tier, every test not marked ``data`` or ``slow`` and no notebook. The slow ones are listed in
tests/slow_tests.txt (conftest.py marks them), each of which must name a test that exists."""

import ast
from pathlib import Path

from conftest import SLOW_TESTS

TESTS = Path(__file__).resolve().parent


def test_every_slow_test_exists():
    assert len(SLOW_TESTS) >= 50  # the list is read (conftest.py reads none when it is missing)
    missing = []
    for node in sorted(SLOW_TESTS):
        file, _, name = node.partition("::")
        path = TESTS.parent / file
        names = {f.name for f in ast.walk(ast.parse(path.read_text())) if isinstance(f, ast.FunctionDef)} \
            if path.is_file() else set()
        if name not in names:
            missing.append(node)
    assert not missing, f"tests/slow_tests.txt names tests that do not exist: {missing}"


def test_the_makefile_runs_the_tiers_in_parallel():
    text = (TESTS.parent / "Makefile").read_text()
    assert "PARALLEL := -n auto --dist loadfile" in text
    assert text.count("$(PARALLEL)") >= 3  # both passes of make test, and make test-fast
    assert '-m "not data and not slow"' in text
