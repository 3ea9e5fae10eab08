"""The comparison table of the README's ten real Cranfield runs, rendered to Markdown and LaTeX, against golden
files (tests/golden/); the command line prints the same table. ``IRSCALES_UPDATE_GOLDEN=1`` rewrites the files
after a deliberate change (review the diff)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from irscales.cli import main
from irscales.evaluation import evaluate

GOLDEN = Path(__file__).parent / "golden"
MEASURES = "AP,P@10,nDCG@10,RR"
BASELINE = "lucene.porter.BM25"


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("IRSCALES_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run with IRSCALES_UPDATE_GOLDEN=1 once"
    assert text == path.read_text(), f"{name} changed (IRSCALES_UPDATE_GOLDEN=1 rewrites it after review)"


@pytest.fixture(scope="module")
def table(cranfield_demo):
    demo = cranfield_demo / "demo"
    ev = evaluate(demo / "qrels.txt", demo / "runs", MEASURES, ranked=True)
    return ev.compare(test="t", correction="holm", baseline=BASELINE)


def test_ten_runs_render_to_markdown_and_latex_with_their_marks(table):
    assert len(table.systems) == 10
    md, tex = table.to_markdown(), table.to_latex()
    for mark in ("<sup>", "†", "‡"):
        assert mark in md, mark
    assert r"$^{" in tex and r"\dagger" in tex and r"\caption{" in tex
    _check("comparison_cranfield10.md", md)
    _check("comparison_cranfield10.tex", tex)


@pytest.mark.parametrize("fmt, name", [("markdown", "comparison_cranfield10.md"), ("latex", "comparison_cranfield10.tex")])
def test_the_command_line_prints_the_same_table(cranfield_demo, fmt, name):
    demo = cranfield_demo / "demo"
    r = CliRunner().invoke(main, ["report", str(demo / "runs"), "--qrels", str(demo / "qrels.txt"), "--measures",
                                  MEASURES, "--baseline", BASELINE, "--format", fmt])
    assert r.exit_code == 0, r.output
    assert r.stdout == (GOLDEN / name).read_text()
