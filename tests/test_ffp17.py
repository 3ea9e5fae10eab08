"""FFP17 reproduced (irscales.papers.ffp17): the worked examples of §3.2–3.3, the exhaustive
interval-like rates and conclusions, RBP's threshold, the triples of the last example, the
published items and the figure."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from irscales.measures import AP, DCG, ERR, RBP
from irscales.papers import ffp17
from irscales.papers.ffp17 import interval_like_rates, mass_gap_triples, rbp_interval_like_threshold
from irscales.theory.orders import WeakTopHeaviness, binary_runs, delta
from irscales.theory.scales import check_interval_like


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rbp_interval_like_threshold_is_one_half(n):
    lo, hi = rbp_interval_like_threshold(n, width=Fraction(1, 2**8))
    assert lo == Fraction(1, 2) and hi - lo <= Fraction(1, 2**8)
    assert rbp_interval_like_threshold(n, equal_mass=True) is None
    # monotone on a grid: violations for every p > 1/2 checked, none below
    runs = binary_runs(n)
    for p in [Fraction(k, 20) for k in range(1, 20)]:
        assert check_interval_like(RBP(p=p), runs).holds == (p <= Fraction(1, 2))


ERR_EX = dict(r=[0, 0, 0, 0, 0, 0, 1, 1, 1, 0], s=[0, 0, 0, 0, 0, 1, 0, 1, 1, 0],
              u=[1, 1, 0, 1, 0, 1, 1, 0, 1, 1], v=[1, 1, 1, 0, 0, 1, 1, 0, 1, 1])
AP_EX = dict(r=[0] * 10, s=[0, 1, 0, 0, 1, 0, 0, 0, 0, 1], u=[0, 1, 0, 0, 1, 1, 1, 0, 0, 1])


def _diff(m, a, b, rb=10):
    x = np.array([a, b])
    v = m.exact(x, rb=rb) if m.needs_rb else (m.exact(x) if m.rational else m(x))
    return v[0] - v[1]


def test_ffp17_err_example():
    r, s, u, v = (np.array(ERR_EX[k]) for k in "rsuv")
    w = WeakTopHeaviness(1)
    assert w.leq(r, s) and w.leq(s, u) and w.leq(u, v)
    assert np.all(delta(r, s) <= delta(u, v))
    assert _diff(ERR(), s, r) > _diff(ERR(), v, u)  # ERR violates
    for m in (AP(), DCG(), RBP(p=0.3), RBP(p=0.5), RBP(p=0.8), RBP(p=0.95)):
        assert _diff(m, s, r) <= _diff(m, v, u)


def test_ffp17_ap_example():
    r, s, u = (np.array(AP_EX[k]) for k in "rsu")
    d_sr, d_us = delta(r, s), delta(s, u)
    assert np.all(d_us <= d_sr) and np.any(d_us < d_sr)
    assert _diff(AP(), s, r) < _diff(AP(), u, s)  # AP violates
    for m in (ERR(), DCG(), RBP(p=0.3), RBP(p=0.5), RBP(p=0.8), RBP(p=0.95)):
        assert _diff(m, s, r) >= _diff(m, u, s)


def test_ffp17_rates_table_and_conclusions():
    ms = {"AP": AP(), "RBP_p08": RBP(p=0.8), "DCG_log2p1": DCG(discount="log2p1"), "ERR": ERR(),
          "DCG_b02": DCG()}
    df = interval_like_rates(ms, range(2, 6))
    eq = df[df.restriction == "equal #relevant"].groupby("measure")["violations"].sum()
    assert eq["RBP_p08"] == 0 and eq["DCG_log2p1"] == 0
    assert eq["AP"] > 0 and eq["ERR"] > 0
    # the Järvelin-Kekäläinen DCG (b = 2) gives ranks 1 and 2 the same weight: a top swap is worth 0
    assert eq["DCG_b02"] > 0
    none = df[df.restriction == "none"].groupby("measure")["violations"].sum()
    assert (none > 0).all()
    assert set(df.columns) >= {"N", "measure", "restriction", "checked", "violations", "rate"}


def test_mass_gap_triples_shape_and_thresholds():
    df = mass_gap_triples(5)
    runs = binary_runs(5)
    assert len(df) > 0
    for row in df.head(50).itertuples(index=False):
        r, s, u = runs[row.r], runs[row.s], runs[row.u]
        assert u.sum() == s.sum() == r.sum() + 2
        d1, d2 = delta(r, s), delta(s, u)
        assert np.all(d1 <= d2) and np.any(d1 < d2)
        # RBP violates just above the threshold and not just below it (exactly)
        p_hi = Fraction(row.rbp_threshold) + Fraction(1, 10**6)
        p_lo = Fraction(row.rbp_threshold) - Fraction(1, 10**6)
        vals_hi = RBP(p=p_hi).exact(np.stack([r, s, u]))
        vals_lo = RBP(p=p_lo).exact(np.stack([r, s, u]))
        assert vals_hi[1] - vals_hi[0] > vals_hi[2] - vals_hi[1]
        assert vals_lo[1] - vals_lo[0] <= vals_lo[2] - vals_lo[1]
    assert 0.5 < df.rbp_threshold.min() and df.rbp_threshold.max() < 1


def test_vec_str():
    assert ffp17.vec_str(np.array([0, 1, 2])) == "(0,1,2)"


def test_ffp17_example1_both_ways():
    got = ffp17.chains_example((0, 1, 2, 2), (0, 1, 2, 2))
    assert got["runs"] == [(0, 1, 1, 0)] and got["R_hat"] == (0, 1, 2, 2)
    assert got["run_from_R_hat"] == (0, 1, 1, 0) and got["counts_from_R_hat"] == (0, 1, 2, 2)
    assert ffp17.chains_example((0, 0, 3, 1), (0, 1, 2, 2))["R_hat"] is None  # no run has these counts


def test_worked_examples_agree_with_the_paper():
    ex5, ex6 = ffp17.err_example(), ffp17.ap_example()
    assert not ex5["agrees"]["ERR"] and all(v for k, v in ex5["agrees"].items() if k != "ERR")
    assert not ex6["agrees"]["AP"] and all(v for k, v in ex6["agrees"].items() if k != "AP")
    assert ffp17.example2()["is_cover"] == [True, True, True]
    assert ffp17.example3()["natural_distance"] and ffp17.example4()["natural_distance_sr"] == 1


def test_reproduce_items_and_comparison():
    res = ffp17.reproduce(range(2, 5), 5)
    cmp = ffp17.comparison(res["items"], res["readings"])
    # the Järvelin-Kekäläinen DCG is not interval-like on equal #relevant, DCG with 1/log2(i+1) is: FFP17
    # never defines the discount, so the item depends on the reading (no erratum); ex7's runs are lost
    assert "differs" not in set(cmp.frame.status)
    row = cmp.frame.set_index("item").loc["s3.3/DCG/interval_like_equal_rel"]
    assert row["status"] == "depends on reading"
    assert "(FFF21's DCG_b02): no (differs)" in row["note"] and "1/log2(i + 1): yes (agrees)" in row["note"]
    assert set(cmp.frame.loc[cmp.frame.status == "not reproduced", "item"]) == {"ex7/RBP_violation_p", "ex7/DCG_violates"}
    assert res["conclusions"].set_index("measure").loc["DCG_log2p1", "equal #relevant"] == "yes"
    assert res["monotone"].set_index("measure").loc["DCG_b02", "strictly monotone"] == False  # noqa: E712


def test_rates_figure():
    """Each panel draws one line per measure through (N, 100·rate) of its restriction, labelled by the measure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = interval_like_rates({"AP": AP(), "RBP_p08": RBP(p=0.8)}, [2, 3, 4])
    fig = ffp17.plot_interval_like_rates(rates)
    try:
        panels = fig.axes
        assert [ax.get_title() for ax in panels] == ["all comparable intervals", "endpoints with equal #relevant"]
        for ax, restriction in zip(panels, ["none", "equal #relevant"]):
            want = rates[rates.restriction == restriction]
            assert [ln.get_label() for ln in ax.get_lines()] == ["AP", "RBP_p08"]
            for ln in ax.get_lines():
                row = want[want.measure == ln.get_label()]
                assert list(ln.get_xdata()) == list(row["N"])
                assert np.allclose(ln.get_ydata(), 100 * row["rate"].to_numpy())
        # RBP with p = 0.8 > 1/2 violates on all intervals but not on equal #relevant ones (FFP17 §3.3)
        rbp = {ax.get_title(): ln.get_ydata() for ax in panels for ln in ax.get_lines() if ln.get_label() == "RBP_p08"}
        assert rbp["all comparable intervals"].max() > 0 and not rbp["endpoints with equal #relevant"].any()
        assert [t.get_text() for t in panels[1].get_legend().get_texts()] == ["AP", "RBP_p08"]
    finally:
        plt.close(fig)
