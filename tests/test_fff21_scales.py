"""Tests of irscales.papers.fff21.scales: FFF21 Figs. 3–5 and §5.1 over all 2^N runs."""

import math

import pandas as pd
import pytest

from irscales.paths import repo_root
from irscales.papers.fff21 import reproduce_scales
from irscales.papers.fff21 import scales as S


@pytest.fixture(scope="module")
def fs():
    return S.build_scales((5, 10))


def test_build_scales_and_table(fs):
    assert fs.stem == "N5-10" and set(fs.scales) == {(k, N) for ks in S.FIGURES.values() for k in ks for N in (5, 10)}
    t = S.scales_table(fs).set_index(["measure", "N"])
    assert t.loc[("P", 5), "distinct values"] == 6 and t.loc[("RBP_p05", 10), "distinct values"] == 1024
    assert t.loc[("DCG_b02", 5), "distinct values"] == 24  # 3·2^(N−2)


def test_plot_figures_writes_three_figures(fs, tmp_path):
    text = S.plot_figures(fs, tmp_path, max_points=50)
    assert text.splitlines() == [f"saved {tmp_path.name}/{f}_all_values_N5-10.{e}" for f in S.FIGURES for e in ("png", "pdf")]


def test_figure3_and_4_claims(fs):
    p3 = S.figure3_claims(fs)
    it = p3.items
    # P = k/5 on C(5, k) of 32 runs: 5/32 = 15.625 %, 10/32 = 31.25 %
    assert (it["fig3/P/N=5/share_at_0.2"], it["fig3/P/N=5/share_at_0.4"]) == (15.625, 31.25)
    assert it["fig3/P/N=5/runs_at_0.0"] == 1 and it["fig3/RBP_p05/distinct_equispaced"] == "yes"
    # RR at N = 10: 1, 1/2, …, 1/5 in [0.2, 1]; 0 and 1/6 … 1/10 below
    assert (it["fig3/RR/clusters_[0.2,1]/N=10"], it["fig3/RR/clusters_[0,0.2)/N=10"]) == (5, 6)
    # §7.1.1 reads the shares off the figure's x labels (the fraction of runs up to that point): a hand label
    # holds them to ± 10 points (labels printed to one decimal), no word of approximation is lent them;
    # labels at one decimal give exactly 20/30/30/20, at two decimals 16/31/31/16
    from irscales.papers import published
    shares = {k: v for k, v in it.items() if "share_at" in k}
    readings = {k: p3.readings[k] for k in shares}
    assert [list(r.values())[1:] for r in readings.values()] == [[20.0, 16.0], [30.0, 31.0], [30.0, 31.0], [20.0, 16.0]]
    f = published.compare("fff21", shares, notes=p3.notes, readings=readings).frame.set_index("item").loc[list(shares)]
    assert set(f["status"]) == {"agrees within printing"} and not f["note"].str.contains("'about'").any()
    assert f["note"].str.startswith("within the paper's printing (figure): read off a figure, which shows it to "
                                    "± 10 points").all()
    assert "x labels printed to 1 decimal (0.2 − 0.0): 20 (agrees)" in f.loc["fig3/P/N=5/share_at_0.2", "note"]
    # without the label each share would be judged at its printed precision: 15.625% is no 20%
    bare = published.compare("fff21", shares, notes=p3.notes, labels=published.load_readings().iloc[:0],
                             published=published.load("fff21")).frame.set_index("item").loc[list(shares)]
    assert set(bare["status"]) == {"differs"}
    p4 = S.figure4_claims(fs, p3)
    assert p4.items["fig4/RBP_p08/full_range/N=5"] == "no" and p4.items["fig4/RBP_p08/full_range/N=20"] == "yes"
    assert p4.items["fig4/RBP_p03_same_order_as_RBP_p05"] == "yes" and p4.items["fig4/RBP_p08_no_ties"] == "yes"
    assert p4.table.set_index("N").loc[5, "max RBP_p05"] == round(1 - 0.5**5, 4)


def test_figure5_conventions_and_ties(fs, tmp_path):
    p5 = S.figure5_claims(fs, tmp_path)
    assert p5.items["fig5/DCG_b10_counts_relevant/N=5"] == "yes"
    assert [p5.items[f"s5.1/DCG_b02_distinct/N={N}"] for N in (5, 10, 15)] == [24, 768, 24576]
    assert (tmp_path / "fig5_dcg_distinct_and_ties_N5-10.csv").exists()
    conv = S.dcg_conventions(fs).set_index("N")
    assert conv.loc[5, "exact (JK log2)"] == 24 and conv.loc[5, "exact, discount 1/log2(i+1)"] == 32
    ties = S.ties_table(fs, tmp_path).table.set_index(["measure", "N"])
    # P at N = 5: values k/5, tied for k = 1..4, largest tie C(5, 2) = 10 runs, 30 of 32 runs in ties
    assert ties.loc[("P", 5), "tied values"] == 4 and ties.loc[("P", 5), "largest tie"] == 10
    assert ties.loc[("P", 5), "share of runs in ties"] == round(30 / 32, 4)
    assert ties.loc[("DCG_b10", 10), "largest tie"] == math.comb(10, 5)


def test_ties_table_reproduces_the_stored_csv(fs, tmp_path):
    """The notebook's CSV (quick run, N = 5, 10, 15, 20) holds the same rows for N = 5 and 10."""
    stored = repo_root() / "figures" / "fff21" / "ties_all_values_N5-10-15-20.csv" if repo_root() else None
    if stored is None or not stored.exists():
        pytest.skip("no stored figures/fff21 CSV")
    old = pd.read_csv(stored)
    old = old[old["N"].isin([5, 10])].reset_index(drop=True)
    S.ties_table(fs, tmp_path)
    new = pd.read_csv(tmp_path / "ties_all_values_N5-10.csv")
    pd.testing.assert_frame_equal(new, old)


def test_route():
    r = S.route(["ex1/phi/Germany-Greece", "fn7/binary/N=30", "s5.1/DCG_b02_distinct/N=5"])
    assert r == {"ex1/phi/Germany-Greece": "printed", "fn7/binary/N=30": "printed",
                 "s5.1/DCG_b02_distinct/N=5": "exhaustive"}


def test_reproduce_scales_gives_the_stored_comparison(tmp_path):
    """Notebook 01a in one call, with small parameters: every item of the stored comparison
    (figures/fff21/published_vs_reproduced.csv, quick run) is reproduced with the same status."""
    stored = repo_root() / "figures" / "fff21" / "published_vs_reproduced.csv" if repo_root() else None
    if stored is None or not stored.exists():
        pytest.skip("no stored figures/fff21 comparison")
    r = reproduce_scales(n_transformations=20, max_NK=4, scale_Ns=(5, 10), max_points=50, out=tmp_path)
    assert r["figure1"].text.endswith(f"saved {tmp_path.name}/fig1_hasse_N4.png and .pdf")
    assert (tmp_path / "ties_all_values_N5-10.csv").exists() and len(r["scales"]) == 7 * 2  # RBP_p05 is in Figs. 3 and 4
    old = pd.read_csv(stored, dtype=str, keep_default_na=False)
    old = old[old["status"] != "not reproduced"].set_index("item")
    new = r.compare().frame
    new = new[new["status"] != "not reproduced"].set_index("item")
    assert set(new.index) == set(old.index)
    pd.testing.assert_series_equal(new["status"].astype(str).sort_index(), old["status"].sort_index())
