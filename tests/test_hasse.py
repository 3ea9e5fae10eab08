"""Tests for irscales.theory.hasse: the partial order of FFF21 §3.2 (Fig. 1), the exact spacing of the
16 runs of length 4 under the measures of Fig. 2, φ of eq. (2) with Examples 10, 12 and 13."""

from __future__ import annotations

import itertools
from collections import deque
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.ranks import phi_of_image
from irscales.theory import hasse as H
from irscales import measures as M

FIG2 = {"P": M.P(), "AP": M.AP(), "RR": M.RR(), "RBP_p03": M.RBP(p=0.3), "RBP_p05": M.RBP(p=0.5),
        "RBP_p08": M.RBP(p=0.8), "DCG_b02": M.DCG(base=2)}


# --------------------------------------------------------------------------- the partial order


@pytest.mark.parametrize("N", range(1, 8))
def test_cover_rule_is_the_transitive_reduction(N):
    """Adjacent swap up + last document turned relevant = the covers of cumulated dominance."""
    assert sorted(H.cover_edges(N)) == sorted(H.transitive_reduction(N))


def test_fig1_has_16_runs_20_edges_11_levels():
    edges = H.cover_edges(4)
    assert len(H.all_runs(4)) == 16 and len(edges) == 20
    assert sorted({H.level(r) for r in H.all_runs(4)}) == list(range(11))


def test_paper_examples_of_comparable_and_incomparable_runs():
    """§3.2: three comparable pairs and two incomparable ones, as printed."""
    assert H.leq((1, 1, 0, 1), (1, 1, 1, 0))
    assert H.leq((1, 1, 0, 0), (1, 1, 1, 0))
    assert H.leq((1, 0, 1, 1), (1, 1, 1, 0))
    assert not H.comparable((1, 1, 0, 0), (1, 0, 1, 1))
    assert not H.comparable((1, 1, 0, 0), (0, 1, 1, 1))
    # the chains all measures agree on (Fig. 2 discussion)
    assert H.leq((0, 0, 0, 0), (0, 0, 0, 1)) and H.leq((0, 0, 0, 1), (0, 0, 1, 0))
    assert H.leq((1, 1, 0, 1), (1, 1, 1, 0)) and H.leq((1, 1, 1, 0), (1, 1, 1, 1))


@pytest.mark.parametrize("N", range(1, 7))
def test_levels_grade_the_poset(N):
    for r, s in H.cover_edges(N):
        assert H.level(s) == H.level(r) + 1
    for r, s in itertools.combinations(H.all_runs(N), 2):
        if H.level(r) == H.level(s):
            assert not H.comparable(r, s)


def _reachable(r, s, N):
    succ: dict = {}
    for a, b in H.cover_edges(N):
        succ.setdefault(a, []).append(b)
    seen, todo = {r}, deque([r])
    while todo:
        x = todo.popleft()
        if x == s:
            return True
        for y in succ.get(x, []):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return False


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.tuples(*[st.integers(0, 1)] * n),
                                                     st.tuples(*[st.integers(0, 1)] * n))))
def test_order_is_reachability_by_swaps_and_replacements(pair):
    r, s = pair
    assert H.leq(r, s) == _reachable(r, s, len(r))


@pytest.mark.parametrize("name", list(FIG2))
def test_every_measure_respects_the_partial_order(name):
    """All measures agree on comparable runs (§3.2): r ⪯ s ⇒ M(r) ≤ M(s), exactly."""
    vals = H.exact_values(FIG2[name], 4)
    for r, s in itertools.permutations(H.all_runs(4), 2):
        if H.leq(r, s):
            assert vals[r] <= vals[s]


# ------------------------------------------------------------------------------- Fig. 2, exact


def test_fig2_equispacing_and_symmetry():
    """Only P (= R) and RBP p = 1/2 are equi-spaced (§3.2); RBP p=.3/.8 and DCG are symmetric
    under folding along the middle, AP and RR are not."""
    sp = {k: H.spacing(H.exact_values(m, 4), k) for k, m in FIG2.items()}
    assert {k for k, s in sp.items() if s.equispaced} == {"P", "RBP_p05"}
    assert {k for k, s in sp.items() if s.symmetric} == {"P", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02"}
    assert {k: len(s.values) for k, s in sp.items()} == {
        "P": 5, "AP": 15, "RR": 5, "RBP_p03": 16, "RBP_p05": 16, "RBP_p08": 16, "DCG_b02": 12}
    assert sp["P"].gaps == (F(1, 4),) * 4 and sp["RBP_p05"].gaps == (F(1, 16),) * 15


def test_fig2_unused_ranges():
    """§3.2: AP leaves the top quarter of its range unused, RR the top half, RBP p=.3 a middle
    gap (0.2919 → 0.7, i.e. 0.4081 of [0, 1], the paper says 'half')."""
    sp = {k: H.spacing(H.exact_values(FIG2[k], 4), k) for k in ("AP", "RR", "RBP_p03")}
    assert sp["AP"].largest_gap() == (13, F(1, 4)) and sp["AP"].values[-2:] == (F(3, 4), 1)
    assert sp["RR"].largest_gap() == (3, F(1, 2)) and sp["RR"].values[-2:] == (F(1, 2), 1)
    k, g = sp["RBP_p03"].largest_gap()
    assert (sp["RBP_p03"].values[k], sp["RBP_p03"].values[k + 1], g) == (F("0.2919"), F("0.7"), F("0.4081"))


def test_precision_equals_recall_when_N_equals_RB():
    assert H.exact_values(M.P(), 4) == H.exact_values(M.R(), 4, rb=4)


def test_rbp_p03_orders_like_rbp_p05():
    a, b = H.exact_values(M.RBP(p=0.3), 4), H.exact_values(M.RBP(p=0.5), 4)
    assert sorted(a, key=a.get) == sorted(b, key=b.get)


# ----------------------------------------------------------------------- exact DCG with log2


def test_dcg_exact_agrees_with_float_measure():
    ex = H.exact_values(M.DCG(base=2), 4)
    runs = H.all_runs(4)
    fl = M.DCG(base=2)(np.array(runs))
    assert max(abs(float(ex[r]) - v) for r, v in zip(runs, fl)) < 1e-12


def test_example12_dcg_phi():
    """Example 12: 16 runs, 12 values; φ(3.131) = 12, φ(2.631) = 11, φ(2.500) = 10,
    φ(2.131) = 9 for (1,0,1,1) and (0,1,1,1), φ(0.500) = 2, φ(0) = 1."""
    vals = H.exact_values(M.DCG(base=2), 4)
    ph = phi_of_image(vals.values())
    assert len(vals) == 16 and len(ph) == 12
    cases = {(1, 1, 1, 1): (3.131, 12), (1, 1, 1, 0): (2.631, 11), (1, 1, 0, 1): (2.5, 10),
             (1, 0, 1, 1): (2.131, 9), (0, 1, 1, 1): (2.131, 9), (0, 0, 0, 1): (0.5, 2), (0, 0, 0, 0): (0.0, 1)}
    for run, (printed, rank) in cases.items():
        assert round(float(vals[run]), 3) == printed and ph[vals[run]] == rank


@pytest.mark.parametrize("N", range(1, 9))
def test_closed_forms_of_phi_for_rbp_half_and_rr(N):
    """Example 12 states φ(m) = 2^N m (RBP p=1/2) and φ(m) = N + 1 − 1/m (RR). Eq. (2) counts
    values ≤ m, so φ(0) = 1; the closed forms are |{x < m}| = φ(m) − 1 (0-based ranks)."""
    rbp = phi_of_image(H.exact_values(M.RBP(p=0.5), N).values())
    assert all(ph == 2**N * m + 1 for m, ph in rbp.items())
    rr = phi_of_image(H.exact_values(M.RR(), N).values())
    assert rr[0] == 1 and all(ph == N + 2 - 1 / m for m, ph in rr.items() if m > 0)
    assert all(sum(1 for x in rr if x < m) == N + 1 - 1 / m for m in rr if m > 0)


def test_example10_rank_gaps_in_fig2b():
    """Example 10: 'runs ranked 13 and 14 are much closer than runs ranked 10 (left branch of
    Fig. 1) and 9' — ranks counted from the top of Fig. 2(b), ties sharing a rank."""
    vals = H.exact_values(M.AP(), 4)
    ph = phi_of_image(vals.values())
    top = {v: len(ph) - k + 1 for v, k in ph.items()}  # descending dense rank
    at = {r: top[v] for r, v in vals.items()}
    assert at[(0, 0, 1, 0)] == 13 and at[(0, 0, 0, 1)] == 14
    assert at[(0, 1, 0, 1)] == at[(1, 0, 0, 0)] == 10 and at[(0, 1, 1, 0)] == 9
    assert vals[(0, 0, 1, 0)] - vals[(0, 0, 0, 1)] == F(1, 48)
    assert vals[(0, 1, 1, 0)] - vals[(0, 1, 0, 1)] == F(1, 24)
    # (0,1,0,1) is on the left branch of our Fig. 1 layout (more relevant documents to the left)
    pos = H.hasse_layout(4)
    assert pos[(0, 1, 0, 1)][0] < pos[(1, 0, 0, 0)][0]


def test_example13_surrogate_recall():
    runs2 = H.all_runs(2)  # r0 = 00, r1 = 01, r2 = 10, r3 = 11
    for rb, printed in ((2, [0, F(1, 2), F(1, 2), 1]), (3, [0, F(1, 3), F(1, 3), F(2, 3)])):
        vals = H.exact_values(M.R(), 2, rb=rb)
        assert [vals[r] for r in runs2] == printed
        ph = phi_of_image(vals.values())
        assert [ph[vals[r]] for r in runs2] == [1, 2, 2, 3]


# ------------------------------------------------------------------------------------ drawing


def test_drawings():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = H.draw_hasse(4)
    ax = fig.axes[0]
    assert len(ax.texts) == 16 and len(ax.lines) == 20
    plt.close(fig)
    fig, ax = plt.subplots()
    H.draw_spacing(H.spacing(H.exact_values(M.DCG(base=2), 4), "DCG_b02"), ax)
    assert len(ax.texts) == 12
    plt.close(fig)


def test_clear_errors():
    with pytest.raises(ValueError, match="positive integer"):
        H.all_runs(0)
    with pytest.raises(ValueError, match="0/1 relevance"):
        H.leq((0, 2), (1, 1))
    with pytest.raises(ValueError, match="different length"):
        H.leq((0, 1), (1, 1, 0))
    with pytest.raises(ValueError, match="N ≤ 4 only"):
        H.exact_values(M.DCG(base=2), 5)
    with pytest.raises(ValueError, match="binary gains only"):
        H.exact_values(M.DCG(base=10), 4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20, unique=True), st.floats(0.001, 0.1))
def test_label_spreading_keeps_order_and_separation(ys, sep):
    ys = sorted(ys)
    out = H.spread_labels(ys, sep)
    assert len(out) == len(ys)
    assert all(b - a >= sep * (1 - 1e-9) for a, b in zip(out, out[1:]))
    assert out[-1] <= max(ys[-1], ys[0] + sep * (len(ys) - 1)) + 1e-9


def test_spacing_rows_list_values_top_first_with_phi():
    rows = H.spacing(H.exact_values(M.RR(), 4), "RR").rows()
    assert [r["value"] for r in rows] == ["1", "1/2", "1/3", "1/4", "0"]
    assert [r["phi"] for r in rows] == [5, 4, 3, 2, 1]
    assert rows[2]["runs"] == "(0,0,1,1) (0,0,1,0)"


@pytest.mark.parametrize("N", range(1, 7))
def test_cross_check_with_orders_weak_top_heaviness(N):
    """The FFF21 Fig. 1 order is FFP17's weak top-heaviness for binary runs (irscales.theory.orders)."""
    from irscales.theory import orders as O

    runs = [tuple(int(x) for x in r) for r in O.binary_runs(N)]
    wth = O.WeakTopHeaviness()
    le = wth.leq_matrix(np.array(runs))
    assert {(runs[i], runs[j]) for i, j in zip(*np.nonzero(le))} == {
        (r, s) for r in runs for s in runs if H.leq(r, s)}
    lo, hi = wth.covers(np.array(runs))
    assert {(runs[i], runs[j]) for i, j in zip(lo, hi)} == set(H.cover_edges(N))


def test_spacing_grid_draws_one_panel_per_measure_without_colliding_labels():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from irscales import measures as M
    from irscales.figures import tick_label_overlaps

    sp = {k: H.spacing(H.exact_values(m, 3), k) for k, m in {"P": M.P(), "RR": M.RR(), "AP": M.AP()}.items()}
    fig = H.spacing_grid(sp, {"P": "(a) P"}, "exhaustive, N = 3", ncols=2)
    axes = fig.axes
    assert [a.get_ylabel() for a in axes[:3]] == ["P", "RR", "AP"] and not axes[3].axison
    assert axes[0].get_title() == "(a) P" and tick_label_overlaps(fig) == []
    plt.close(fig)
    with pytest.raises(ValueError, match="no spacings"):
        H.spacing_grid({})
