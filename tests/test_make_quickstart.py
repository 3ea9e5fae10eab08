"""scripts/make_quickstart.py writes notebooks/00_quickstart.ipynb: the stored notebook's cells (source,
kind, tags) are the script's, so the two stay in step."""

from __future__ import annotations

import json

import pytest

from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason="not a source checkout (no scripts/)")


def test_quickstart_notebook_is_what_the_script_writes(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    written = {}
    monkeypatch.setattr("pathlib.Path.write_text", lambda self, text, *a, **k: written.setdefault(self.name, text))
    script = ROOT / "scripts" / "make_quickstart.py"
    exec(compile(script.read_text(encoding="utf-8"), str(script), "exec"), {"__file__": str(script)})
    made = nbformat.reads(written["00_quickstart.ipynb"], as_version=4)
    stored = json.loads((ROOT / "notebooks" / "00_quickstart.ipynb").read_text(encoding="utf-8"))
    assert [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in made.cells] == \
        [(c["cell_type"], "".join(c["source"]), c["metadata"].get("tags", [])) for c in stored["cells"]]
