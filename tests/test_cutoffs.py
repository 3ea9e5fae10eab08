"""Tests of irscales.papers.fff21.cutoffs (notebook 09, issue 42 item 4) and of the report's section read from
its files (irscales.papers.beyond_report.cutoffs)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from irscales.data import Collection
from irscales.papers import beyond_report, report
from irscales.papers.fff21 import cutoffs as C
from irscales.papers.fff21 import tables
from irscales.papers.fff21.ranked import PAPER_ORDER, ranked_scores
from irscales.papers.items import figure_route


def _source(tmp_path, S=7, T=6, N=60, seed=3) -> tuple[C.Source, Collection]:
    rng = np.random.default_rng(seed)
    rel = (rng.random((S, T, N)) < np.linspace(0.5, 0.05, N)).astype(np.int8)
    col = Collection(rel=rel, judgments=np.stack([np.full(T, 200), np.full(T, 40)], axis=1),
                     run_lengths=np.full((S, T), N), topics=tuple(f"q{t}" for t in range(T)),
                     systems=tuple(f"s{i}" for i in range(S)), provenance="test: synthetic binary runs", max_grade=1)
    runs, qrels = col.to_trec(tmp_path)
    return C.Source(qrels, runs, False, S), col


def test_table2_at_small_N_equals_fff21_table2_of_the_ranked_adapter(tmp_path):
    source, col = _source(tmp_path)
    cells = C.table2_cells(source, 8)
    t2 = C.table2_frame(cells)
    assert list(t2["measure"]) == list(PAPER_ORDER) and set(t2["ties"]) == {"unq"}  # every unq route exists at 8
    assert t2["exact"].all() and (t2["max_rel_error"] == 0).all()
    assert set(t2.loc[t2["caveat"] != "", "measure"]) <= {"DCG_b02", "DCG_b10", "nDCG_b02", "nDCG_b10"}
    expected = tables.table2([ranked_scores(col, 8, ties=("unq",), track="T")]).iloc[0]
    for r in t2.itertuples():
        assert r.tau == pytest.approx(float(expected[r.measure]), abs=1e-12), r.measure
    assert t2.set_index("measure").loc[["P", "RBP_p05"], "tau"].tolist() == [1.0, 1.0]  # affine images
    top = C.top_k_frame(cells, col.systems, ks=(3,)).set_index("measure")
    assert top.loc["P", "top3 kept"] == 3 and top.loc["P", "largest move"] == 0 and top.loc["P", "moved"] == ""
    for r in top.to_dict("records"):  # a move names the system and its two ranks, whose difference it is
        if r["largest move"]:
            name, ranks = r["moved"].split(": ")
            a, b = map(int, ranks.split(" → "))
            assert name in col.systems and abs(a - b) == r["largest move"]


def test_a_measure_without_a_route_keeps_its_row_with_the_reason(tmp_path):
    source, _ = _source(tmp_path)
    notes = []
    judged = {}
    cells = C.table2_cells(source, 60, measures=("P", "AP"), notes=notes, judged=judged)
    assert len(notes) == len(set(notes))  # evaluate's notes of both calls (unq, then mid), each once
    t2 = C.table2_frame(cells)
    ap = t2[t2["measure"] == "AP"]
    unq = ap[ap["ties"] == "unq"].iloc[0]
    assert unq["route"] == "none" and math.isnan(unq["tau"]) and "24" in unq["reason"]  # distinct AP values to 24
    mid = ap[ap["ties"] == "mid"].iloc[0]  # FFF21 Table 3's tie strategy, bracketed: τ's range over the brackets
    assert mid["route"] != "none" and not mid["exact"] and mid["bounds"] == "IntervalValues.phi_lo/phi_hi"
    assert 0 < mid["achieved_rel_error"] <= mid["max_rel_error"]
    assert -1 <= mid["tau_min"] <= mid["tau"] <= mid["tau_max"] <= 1 and mid["undecided_pairs"] >= 0
    assert mid["stable"] == str(mid["tau_min"] == mid["tau"] == mid["tau_max"])
    assert (mid["undecided_pairs"] == 0) <= (mid["stable"] == "True")  # no pair in either order: τ cannot move
    p = t2[t2["measure"] == "P"].iloc[0]
    assert p["route"] != "none" and p["tau"] == 1.0 and bool(p["exact"])
    j = judged[60]  # judged@60 per system, as evaluate reports it
    jud = C.judged_frame(judged)
    assert jud.to_dict("records") == [{"N": 60, "mean judged@N": j.mean(), "lowest": j.min(),
                                       "systems below": int((j < 0.9).sum()), "systems": 7, "threshold": 0.9}]
    lines = C.findings(t2, "real TREC-8 runs", jud)
    assert lines[0] == (f"judged@60: {j.mean():.3f} on average, {int((j < 0.9).sum())} of 7 systems below 0.9 (lowest "
                        f"{j.min():.3f}): their unjudged documents count as not relevant.")
    line = lines[1]
    assert line.startswith("N = 60 (real TREC-8 runs): τ with ties unq for 1 of 2 measures") and "AP" in line


def test_log10_of_the_interval_value_does_not_underflow():
    K = 2**1000
    got = C.log10_unit(np.array([1, 2, 3, K], dtype=object), K)
    assert got[0] == -math.inf and got[3] == pytest.approx(0.0, abs=1e-12)
    assert got[1] == pytest.approx(-1000 * math.log10(2), rel=1e-12)  # 1/(2^1000 − 1), from the integers
    assert got[2] == pytest.approx(math.log10(2) - 1000 * math.log10(2), rel=1e-12)
    half = C.log10_unit(np.array([pytest.importorskip("fractions").Fraction(5, 2)], dtype=object), 11)
    assert half[0] == pytest.approx(math.log10(1.5 / 10))


def _write(folder, tag, t2):
    folder.mkdir(parents=True, exist_ok=True)
    t2.to_csv(folder / f"table2_{tag}.csv", index=False)
    (folder / f"rank_changes_{tag}.png").write_bytes(b"")


def _frame(Ns):
    rows = []
    for N in Ns:
        rows += [{"measure": "P", "N": N, "ties": "unq", "route": "count", "exact": True, "max_rel_error": 0.0,
                  "achieved_rel_error": 0.0, "tau": 1.0, "tau_min": np.nan, "tau_max": np.nan,
                  "undecided_pairs": np.nan, "stable": "",
                  "bounds": "none", "caveat": "", "reason": ""},
                 {"measure": "RBP_p08", "N": N, "ties": "unq", "route": "bracket", "exact": False,
                  "max_rel_error": 0.01, "achieved_rel_error": 0.004, "tau": 0.9, "tau_min": 0.9, "tau_max": 0.9,
                  "undecided_pairs": 0,
                  "stable": "True", "bounds": "IntervalValues.phi_lo/phi_hi", "caveat": "Schanuel", "reason": ""},
                 {"measure": "AP", "N": N, "ties": "unq", "route": "none", "exact": False, "max_rel_error": np.nan,
                  "achieved_rel_error": np.nan, "tau": np.nan, "tau_min": np.nan, "tau_max": np.nan,
                  "undecided_pairs": np.nan, "stable": "",
                  "bounds": "none", "caveat": "", "reason": "deepest N = 24"},
                 {"measure": "AP", "N": N, "ties": "mid", "route": "bracket", "exact": False, "max_rel_error": 0.01,
                  "achieved_rel_error": 0.01, "tau": 0.8, "tau_min": 0.79, "tau_max": 0.8,
                  "undecided_pairs": 3, "stable": "False",
                  "bounds": "IntervalValues.phi_lo/phi_hi", "caveat": "", "reason": ""}]
    return pd.DataFrame(rows)


def test_the_report_section_reads_the_files_and_shows_every_cell(tmp_path):
    assert beyond_report.cutoffs(tmp_path) is None
    folder = tmp_path / C.FOLDER
    _write(folder, "N100_20systems_beyond_real", _frame([100]))
    _write(folder, "N100_1000_beyond_simulated", _frame([100, 1000]))
    _write(folder, "N100_1000_beyond_real", _frame([100, 1000]))  # most run lengths, all systems, real: this one
    C.judged_frame({1000: pd.Series([0.2, 0.95]), 100: pd.Series([0.9, 1.0])}).to_csv(
        folder / "judged_N100_1000_beyond_real.csv", index=False)
    b = beyond_report.cutoffs(tmp_path)
    assert b.findings[:2] == ("judged@100: 0.950 on average, 0 of 2 systems below 0.9 (lowest 0.900): their unjudged "
                              "documents count as not relevant.",
                              "judged@1000: 0.575 on average, 1 of 2 systems below 0.9 (lowest 0.200): their unjudged "
                              "documents count as not relevant.")
    assert b.label == "real data, beyond the papers" and b.folder == C.FOLDER and b.anchor == "beyond-cutoffs"
    assert [f.name for f in b.figures] == ["rank_changes_N100_1000_beyond_real.png"]
    assert figure_route(b.figures[0].stem) == "real data, beyond the papers"
    t = b.tables[0].frame.set_index("measure")
    assert list(t.columns) == ["N = 100", "N = 1000"]
    assert t.loc["P", "N = 100"] == "1.0000, exact"
    assert t.loc["RBP_p08", "N = 1000"] == ("0.9000 †, bracketed, max_rel_error 0.01 (achieved 0.004), "
                                               "τ the same for every φ in the brackets")
    assert t.loc["AP", "N = 100"] == ("no unq route; 0.8000 (mid), bracketed, max_rel_error 0.01 (achieved 0.01), "
                                      "τ between 0.7900 and 0.8000 for every φ in the brackets (3 pairs of systems "
                                      "in either order)")
    md = beyond_report.markdown(b, report._md_table)
    assert md[0] == f"## {b.title}" and f"![rank_changes_N100_1000_beyond_real]({C.FOLDER}/" in "\n".join(md)
    assert f"src='{C.FOLDER}/rank_changes_N100_1000_beyond_real.png'" in beyond_report.html(b)


def test_a_simulated_run_is_labelled_simulated(tmp_path):
    _write(tmp_path / C.FOLDER, "N100_20systems_beyond_simulated", _frame([100]))
    b = beyond_report.cutoffs(tmp_path)
    assert b.label == "simulated data, beyond the papers" and "simulated TREC-8 runs" in b.what
    assert "the first 20 simulated" in b.what and figure_route(b.figures[0].stem) == "simulated data"
    assert all("simulated" in f for f in b.findings)
    assert b.findings[0].endswith("2 bracketed (achieved relative error of φ up to 0.01, target 0.01): over every φ "
                                  "inside the brackets τ is one value for 1 of them and a range for 1, at most 0.0100 wide (AP: "
                                  "0.7900 to 0.8000, 3 pairs of systems in either order); no unq route: AP.")
