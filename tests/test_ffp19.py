"""FFP19 reproduced (irscales.papers.ffp19): the §6 table against the published verdicts, the §5
counterexample term by term, the gRBP crossing, the published items and the figure."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from irscales.figures import save_figure
from irscales.measures import DCG, ERR, GRBP, RBP, SP
from irscales.papers import ffp19, published
from irscales.papers.ffp19 import (
    cases, contribution_terms, grbp_difference_poly, min_gain_gap, poly_str, run_case, summary, terms_str,
)
from irscales.theory.orders import StrongTopHeaviness, binary_runs, graded_runs
from irscales.theory.rank_identities import total_order_identities
from irscales.theory.thresholds import poly_root


def test_poly_and_terms_formatting():
    assert poly_str([1, 0, 2, 0, 1]) == "1 + 2p^2 + p^4"
    assert poly_str([1, 1]) == "1 + p"
    assert poly_str([0, -1, 0, 3]) == "-p + 3p^3"
    assert terms_str([Fraction(1, 4), Fraction(3, 32)]) == "1/4 + 3/32"
    with pytest.raises(ValueError, match="knows"):
        contribution_terms("AP", [1, 0])


def test_ffp19_section6_table_matches_published():
    df = summary(range(1, 7), range(1, 5))
    rep = {}
    for row in df.itertuples(index=False):
        rep[f"{row.item}/ordinal"] = row.ordinal
        rep[f"{row.item}/interval"] = row.interval
    pub = published.load("ffp19")
    rep = {k: v for k, v in rep.items() if k in set(pub["item"])}
    cmp = published.compare("ffp19", rep)
    s6 = cmp.frame[cmp.frame["item"].str.startswith("s6/")]
    assert len(s6) == 24 and s6["match"].all(), s6[~s6["match"]]


def test_ffp19_rbp_half_is_exactly_affine_in_rbto():
    runs = binary_runs(8)
    rb = RBP(p=Fraction(1, 2)).exact(runs)
    rho = StrongTopHeaviness(1).rank(runs)
    assert all(v == Fraction(int(k), 2**8) for v, k in zip(rb.tolist(), rho.tolist()))


def test_ffp19_section5_counterexample():
    r, s = np.array([1, 0, 2, 0, 1]), np.array([1, 1, 0, 0, 0])
    st2 = StrongTopHeaviness(2)
    assert st2.leq(r, s) and not st2.leq(s, r)
    assert terms_str(contribution_terms("DCG", r)) == "1 + 2/log2 3 + 1/log2 5"
    assert terms_str(contribution_terms("DCG", s)) == "1 + 1"
    assert terms_str(contribution_terms("ERR", r, max_grade=2)) == "1/4 + 3/16 + 3/320"
    assert terms_str(contribution_terms("ERR", s, max_grade=2)) == "1/4 + 3/32"
    assert terms_str(contribution_terms("SP", r)) == "1 + 2/3 + 3/5"
    assert sum(contribution_terms("ERR", r, max_grade=2)) == ERR(max_grade=2).exact(r[None])[0]
    assert sum(contribution_terms("SP", r)) == SP().exact(r[None])[0]
    dcg = DCG(gains="graded")(np.stack([r, s]))
    assert dcg[0] == pytest.approx(1 + 2 / math.log2(3) + 1 / math.log2(5)) and dcg[1] == 2
    assert poly_str([int(x) for x in r]) == "1 + 2p^2 + p^4"
    # 2gRBP(r) > 2gRBP(s) iff p^4 + 2p^2 − p > 0 iff p^3 + 2p − 1 > 0
    assert grbp_difference_poly(r, s) == [0, -1, 2, 0, 1]
    lo, hi = poly_root([-1, 2, 0, 1], Fraction(0), Fraction(1))
    assert 0.45339765 < float(lo) <= float(hi) < 0.45339766
    g = GRBP(p=lo, max_gain=2).exact(np.stack([r, s]))
    assert g[0] < g[1]
    g = GRBP(p=hi, max_gain=2).exact(np.stack([r, s]))
    assert g[0] > g[1]


def test_ffp19_grbp_nonlinear_gain_case_uses_the_gain():
    case = next(c for c in cases() if c.item.endswith("nonlinear_gain"))
    runs = graded_runs(1, 2)
    assert [float(x) for x in case.values(runs)] == pytest.approx([0, 0.75 * 1 / 3, 0.75])
    out = run_case(case, [1, 2])
    assert out["interval"] == "no" and out["interval first failing N"] == "1"


def test_section5_helper_and_reproduced_items():
    sec5 = ffp19.section5([1, 0, 2, 0, 1], [1, 1, 0, 0, 0])
    assert sec5["order"] == "r ≺ s" and sec5["G"] == Fraction(1, 2)
    assert sec5["2gRBP(r)"] == "(1 - p)(1 + 2p^2 + p^4)" and sec5["2gRBP(s)"] == "(1 - p)(1 + p)"
    lo, hi = sec5["gRBP threshold"]
    assert lo**3 + 2 * lo - 1 < 0 < hi**3 + 2 * hi - 1
    rep = ffp19.reproduced(summary(range(1, 5), range(1, 4)), sec5, "r ≺ s")
    rep.update(ffp19.identity_items(total_order_identities(range(1, 5), range(1, 4))))
    cmp = published.compare("ffp19", rep)
    # the only mismatch is the rounded-up threshold 0.454 (exact root 0.45340)
    assert cmp.mismatches()["item"].tolist() == ["s5/gRBP_threshold"]


def test_min_gain_gap():
    assert min_gain_gap([0, 1, 3]) == Fraction(1, 3) and min_gain_gap([0, 1, 2]) == Fraction(1, 2)
    with pytest.raises(ValueError, match="increase strictly"):
        min_gain_gap([0, 2, 1])


def test_identity_items_follow_the_table():
    df = total_order_identities(range(1, 4), range(1, 3))
    items = ffp19.identity_items(df)
    assert items["s4/R(N)_size"] == "C(N+c, N)" and items["s5/RBTO=rho"] == "yes"
    broken = df.assign(**{"RBTO = ρ_strong (eq. 6)": [True] * (len(df) - 1) + [False]})
    assert ffp19.identity_items(broken)["s5/RBTO=rho"] == "no"


def test_reproduce_matches_every_published_item_but_the_rounded_threshold():
    res = ffp19.reproduce(range(1, 5), range(1, 4))
    assert res["upper_bracket_r>s"] and res["gp_order"] == "r ≺ s"
    assert abs(res["cardano"] - float(res["section5"]["gRBP threshold"][1])) < 1e-12
    assert res["onsets"]["measure"].tolist()[0] == "RBP p=11/20"
    cmp = ffp19.comparison(res["items"])
    assert cmp.mismatches()["item"].tolist() == ["s5/gRBP_threshold"]
    # 'p ≳ 0.454' for the exact root 0.45340: the text marks the number as approximate (no erratum)
    row = cmp.frame.set_index("item").loc["s5/gRBP_threshold"]
    assert row["status"] == "agrees within printing" and "'≳'" in row["note"] and "every p ≥ 0.454" in row["note"]


def test_figures_are_written(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("IRSCALES_FIGURES", str(tmp_path))
    fig, ax = plt.subplots()
    ffp19.plot_vs_rank({"RBP": RBP(p=0.5)}, StrongTopHeaviness(1), binary_runs(3), ax=ax)
    assert save_figure(fig, "ffp19", "t") == ["ffp19/t.png", "ffp19/t.pdf"]
    assert (tmp_path / "ffp19" / "t.png").exists()
    plt.close(ffp19.plot_measures_vs_rbto())


def test_threshold_note_is_computed():
    note = ffp19.threshold_note(0.4534)
    assert note.startswith("exact root of p^3 + 2p - 1 is 0.45340") and "rounds it up" in note
    assert "rounds it down" in ffp19.threshold_note(0.46)
