"""The comparison table of the README's ten real Cranfield runs, rendered to Markdown and LaTeX, against golden
files (tests/golden/); the command line prints the same table. ``IRSCALES_UPDATE_GOLDEN=1`` rewrites the files
after a deliberate change (review the diff)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pandas as pd

import pytest
from click.testing import CliRunner

from irscales.cli import main
from test_comparison_latex import PDFLATEX, compile_latex
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


@pytest.mark.data
def test_ten_runs_render_to_markdown_and_latex_with_their_marks(table):
    assert len(table.systems) == 10
    md, tex = table.to_markdown(), table.to_latex()
    for mark in ("<sup>", "†", "‡"):
        assert mark in md, mark
    assert r"\textsuperscript{" in tex and r"\dagger" in tex and r"\caption{" in tex
    _check("comparison_cranfield10.md", md)
    _check("comparison_cranfield10.tex", tex)


@pytest.mark.data
@pytest.mark.parametrize("fmt, name", [("markdown", "comparison_cranfield10.md"), ("latex", "comparison_cranfield10.tex")])
def test_the_command_line_prints_the_same_table(cranfield_demo, fmt, name):
    demo = cranfield_demo / "demo"
    r = CliRunner().invoke(main, ["report", str(demo / "runs"), "--qrels", str(demo / "qrels.txt"), "--measures",
                                  MEASURES, "--baseline", BASELINE, "--format", fmt])
    assert r.exit_code == 0, r.output
    assert r.stdout == (GOLDEN / name).read_text()


def _report(cranfield_demo, *extra):
    demo = cranfield_demo / "demo"
    r = CliRunner().invoke(main, ["report", str(demo / "runs"), "--qrels", str(demo / "qrels.txt"), "--measures",
                                  "AP,P@10", *extra])
    assert r.exit_code == 0, r.output
    return r


@pytest.mark.data
def test_the_report_csv_is_one_row_per_system_with_its_legend_on_stderr(cranfield_demo, tmp_path):
    pairs = tmp_path / "pairs.csv"
    r = _report(cranfield_demo, "--format", "csv", "--pairs", str(pairs))
    back = pd.read_csv(io.StringIO(r.stdout))
    assert len(back) == 10 and back["system"].is_unique and "AP@10 (interval)" in back.columns
    assert "Letters" in r.stderr and "Letters" not in r.stdout
    p = pd.read_csv(pairs)
    assert len(p) == 2 * 2 * 45  # two measures, two scales, 45 pairs
    assert {"p_value", "p_adjusted", "mean_difference", "effect_size_dz"} <= set(p.columns)
    assert (p["p_adjusted"] >= p["p_value"]).all()


def test_report_help_names_pairwise_p_values_and_the_randomisation_test():
    out = " ".join(CliRunner().invoke(main, ["report", "--help"]).output.split())
    assert "pairwise p-values" in out and "randomisation" in out and "--pairs" in out


@pytest.mark.data
def test_compare_in_latex_says_yes_and_no(cranfield_demo, tmp_path):
    demo = cranfield_demo / "demo"
    runs = sorted((demo / "runs").iterdir())[:2]
    r = CliRunner().invoke(main, ["compare", *map(str, runs), "--qrels", str(demo / "qrels.txt"), "--format", "latex"])
    assert r.exit_code == 0, r.output
    assert "True" not in r.stdout and "False" not in r.stdout and " no " in r.stdout
    assert r.stdout.startswith(r"% requires \usepackage{booktabs}")
    if PDFLATEX:  # and it compiles with that package alone
        log = compile_latex(r.stdout, tmp_path)
        assert "Float too large" not in log


@pytest.mark.data
def test_report_draws_its_figure(cranfield_demo, tmp_path):
    fig = tmp_path / "cmp.png"
    _report(cranfield_demo, "--figure", str(fig))
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    demo = cranfield_demo / "demo"
    r = CliRunner().invoke(main, ["report", str(demo / "runs"), "--qrels", str(demo / "qrels.txt"), "--figure",
                                  str(tmp_path / "cmp.jpg")])
    assert r.exit_code == 2 and ".png, .pdf or .svg" in r.output
