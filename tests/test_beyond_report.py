"""Tests of irscales.papers.beyond_report: the report's sections beyond the papers (issue 30) are read
from notebook 08's files, labelled "real data, beyond the papers", shown last and never counted."""

from __future__ import annotations

import numpy as np
import pandas as pd

from irscales.data import Collection
from irscales.papers import beyond_report, report, report_html
from irscales.papers.fff21 import graded_real as R
from irscales.papers.fff21 import graded_scores as G
from irscales.papers.fff21 import graded_tables as GT
from irscales.papers.fff21.graded_data import LABEL
from irscales.papers.items import figure_route


def _write_run(folder, Ns, dataset="clef2018"):
    """Notebook 08's CSV files for a small synthetic collection at run lengths ``Ns``, and one figure."""
    rng = np.random.default_rng(8)
    S, T = 6, 10
    col = Collection(rel=rng.choice(3, size=(S, T, max(Ns)), p=[0.5, 0.3, 0.2]).astype(np.int8),
                     judgments=np.stack([np.full(T, 30), np.full(T, 6), np.full(T, 4)], axis=1),
                     run_lengths=np.full((S, T), max(Ns)), topics=tuple(map(str, range(T))),
                     systems=tuple(f"s{i}" for i in range(S)), provenance="test: synthetic graded runs", max_grade=2)
    res = [G.graded_ranked_scores(col, N, "T", cache=False) for N in Ns]
    judged = pd.DataFrame({"dataset": dataset, "k": list(Ns), "judged@k": 1.0, "lowest system": 1.0,
                           "systems below": 0, "systems": S, "reliable": True})
    r = R.BeyondGraded(tuple(Ns), {}, {dataset: res}, judged, GT.exactness(res, dataset), GT.table2(res, dataset),
                       pd.concat([GT.table4(gs, dataset) for gs in res]),
                       pd.concat([GT.table56(gs, dataset) for gs in res]))
    R.write(r, folder)
    (folder / f"graded_table2_tau_N{'_'.join(map(str, Ns))}_{GT.TAG}.png").write_bytes(b"")
    return r


def test_the_section_is_read_from_the_files_and_labelled(tmp_path):
    assert beyond_report.sections(tmp_path) == []
    _write_run(tmp_path / "beyond", (4,))
    r = _write_run(tmp_path / "beyond", (4, 6))  # the run with more run lengths wins (full over quick)
    (b,) = beyond_report.sections(tmp_path)
    assert b.label == LABEL == "real data, beyond the papers" and b.anchor == "beyond-graded"
    assert "N = 4, 6" in b.what and [f.name for f in b.figures] == ["graded_table2_tau_N4_6_beyond_real.png"]
    assert list(b.findings) == R.findings(r)  # computed from the files, as from the computation
    titles = [t.title for t in b.tables]
    assert titles[0].startswith("judged@N") and any(t.startswith("Tables 2–3, clef2018") for t in titles)
    tau = next(t for t in b.tables if t.title.startswith("Tables 2–3")).frame
    assert list(tau["measure"]) == list(G.ORDER) and list(tau.columns[1:5]) == ["N=4 unq", "N=4 min", "N=4 max",
                                                                                 "N=4 mid"]
    assert figure_route(b.figures[0].stem) == "real data, beyond the papers"


def test_the_section_comes_last_and_changes_no_status(tmp_path):
    _write_run(tmp_path / "beyond", (4,))
    (b,) = beyond_report.sections(tmp_path)
    md = beyond_report.markdown(b, report._md_table)
    assert md[0] == f"## {b.title}" and md[2].startswith(f"**{LABEL}** — {beyond_report.NOT_COUNTED}")
    page = report_html.page({}, tmp_path, {}, [(b.anchor, b.title, b.label, beyond_report.html(b))])
    bare = report_html.page({}, tmp_path, {})
    assert f"id='{b.anchor}'" in page and f"href='#{b.anchor}'" in page and "id='beyond'" in page
    assert "beyond" not in bare.lower().replace("beyond-", "")  # nothing of it without the files
    assert page.index("id='beyond-graded'") > page.index("id='statuses'")  # after every paper's section


def test_the_report_of_the_committed_figures_shows_the_section(committed_figures_report):
    text = (committed_figures_report / "REPORT.md").read_text(encoding="utf-8")
    assert "## Beyond the papers: graded relevance on real runs" in text and f"**{LABEL}**" in text
    assert "beyond-graded" in (committed_figures_report / "report.html").read_text(encoding="utf-8")
