"""Scale checkers: constructed cases with known answers, brute-force cross-checks and exactness of
float ties for DCG (the FFP19 / FFP17 reproductions are tested in test_ffp19.py / test_ffp17.py)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.measures import AP, DCG, ERR, GRBP, RBP, RR, SP, dcg_discount
from irscales.theory.orders import (
    SetBased, StrongTopHeaviness, WeakTopHeaviness, binary_runs, graded_runs, multiset_runs,
)
from irscales.theory.scales import (
    FLOAT_TIE, check_interval, check_interval_like, check_ordinal, first_failure, interval_agrees, intervals,
    measure_values,
)

ORDERS = [
    (StrongTopHeaviness(1), lambda: binary_runs(5)),
    (StrongTopHeaviness(2), lambda: graded_runs(3, 2)),
    (SetBased(2), lambda: multiset_runs(4, 2)),
    (WeakTopHeaviness(1), lambda: binary_runs(5)),
]


# ------------------------------------------------------------ constructed cases, known answers


@pytest.mark.parametrize("order,space", ORDERS)
def test_affine_of_rank_is_interval_and_ordinal(order, space):
    runs = space()
    rho = order.rank(runs)
    vals = np.array([Fraction(3, 7) * int(x) + Fraction(1, 2) for x in rho], dtype=object)
    assert check_interval(vals, order, runs).holds
    assert check_ordinal(vals, order, runs).holds
    # the float version of the same measure: ties within FLOAT_TIE
    fl = 0.1 * rho.astype(float) + 0.3
    assert check_interval(fl, order, runs).holds


@pytest.mark.parametrize("order,space", ORDERS)
def test_monotone_non_affine_is_ordinal_only(order, space):
    runs = space()
    rho = order.rank(runs).astype(np.int64)
    res_i = check_interval(rho**2, order, runs)
    assert check_ordinal(rho**2, order, runs).holds
    assert not res_i.holds and res_i.n_violations > 0
    assert res_i.counterexample["step1"] != res_i.counterexample["step2"]


@pytest.mark.parametrize("order,space", ORDERS)
def test_order_violating_measure_is_neither(order, space):
    runs = space()
    rho = order.rank(runs).astype(np.int64)
    bad = rho.copy()
    k = int(np.argmax(rho))
    bad[k] = -1  # the top run now scores below everything
    r_o, r_i = check_ordinal(bad, order, runs), check_interval(bad, order, runs)
    assert not r_o.holds and not r_i.holds
    assert r_o.counterexample["s"] == tuple(runs[k].tolist())
    # a constant measure: ordinal fails on every strictly comparable pair, interval fails (a = 0)
    const = np.zeros(len(runs), dtype=np.int64)
    r = check_ordinal(const, order, runs)
    assert r.n_violations == r.n_checked > 0
    assert not check_interval(const, order, runs).holds


def test_strict_versus_weak_monotonicity_rr():
    runs = binary_runs(4)
    w = WeakTopHeaviness(1)
    assert not check_ordinal(RR(), w, runs).holds  # RR(1,0,..) = RR(1,1,..)
    assert check_ordinal(RR(), w, runs, strict=False).holds


def test_ordinal_rate_matches_brute_force():
    runs = binary_runs(5)
    for order in (StrongTopHeaviness(1), WeakTopHeaviness(1)):
        vals = SP().exact(runs)
        res = check_ordinal(SP(), order, runs)
        n = len(runs)
        checked = viol = 0
        for i, j in itertools.permutations(range(n), 2):
            if order.leq(runs[i], runs[j]) and not order.leq(runs[j], runs[i]):
                checked += 1
                viol += vals[i] >= vals[j]
        assert (res.n_checked, res.n_violations) == (checked, viol)


def test_preorder_equivalent_runs_need_equal_values():
    runs = binary_runs(3)  # set-based on ordered runs: runs with the same mass are equivalent
    res = check_ordinal(RBP(p=0.5), SetBased(1), runs)
    assert not res.holds and res.counterexample["order"] == "r ~ s"


def test_measure_values_paths_and_errors():
    runs = binary_runs(3)
    mv = measure_values(RBP(p=0.8), runs)
    assert mv.exact and mv.denominator == 125 and mv.value(7) == Fraction(61, 125)
    assert not measure_values(DCG(), runs).exact
    assert measure_values(lambda r: r.sum(1), runs).exact
    with pytest.raises(ValueError, match="one value per run"):
        measure_values(np.zeros(3), runs)
    with pytest.raises(ValueError, match="NaN"):
        measure_values(np.full(8, np.nan), runs)
    with pytest.raises(TypeError, match="ints or Fractions"):
        measure_values(np.array(["a"] * 8, dtype=object), runs)
    with pytest.raises(ValueError, match="run space"):
        check_ordinal(RBP(), StrongTopHeaviness(1), np.zeros((0, 3), dtype=int))


def test_huge_exact_values_fall_back_to_python_ints():
    runs = binary_runs(6)
    p = Fraction(2**40 + 1, 2**41)
    mv = measure_values(RBP(p=p), runs)
    assert mv.keys.dtype == object
    # p just above 1/2: still ordinal at N = 6 (p + … + p^5 < 1) but no longer interval
    assert check_ordinal(RBP(p=p), StrongTopHeaviness(1), runs).holds
    assert not check_interval(RBP(p=p), StrongTopHeaviness(1), runs).holds
    assert check_interval_like(RBP(p=p), runs, equal_mass=True).holds


# ------------------------------------------------------------------- interval-like checker


def brute_interval_like(vals, runs, equal_mass, tol):
    lo, hi, d = intervals(runs, equal_mass=equal_mass)
    diff = np.array([vals[h] - vals[l] for l, h in zip(lo, hi)], dtype=object if not tol else float)
    checked = viol = 0
    for a in range(len(lo)):
        for b in range(len(lo)):
            if a != b and np.all(d[a] <= d[b]):
                checked += 1
                viol += bool(diff[a] > diff[b] + tol)
    return checked, viol


@pytest.mark.parametrize("m", [AP(), RBP(p=0.8), ERR(), DCG(), DCG(discount="log2p1")])
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("em", [False, True])
def test_interval_like_matches_brute_force(m, n, em):
    runs = binary_runs(n)
    res = check_interval_like(m, runs, equal_mass=em, rb=n)
    if m.rational:
        vals, tol = m.exact(runs, rb=n) if m.needs_rb else m.exact(runs), 0
    else:
        vals, tol = m(runs), FLOAT_TIE
    assert (res.n_checked, res.n_violations) == brute_interval_like(vals, runs, em, tol)
    if res.n_violations:
        c = res.counterexample
        assert np.all(np.array(c["Δ_sr"]) <= np.array(c["Δ_vu"]))
        keys = [k for k in c if k.endswith("(r)") or k.endswith("(u)")]
        assert c[keys[0]] > c[keys[1]]


def test_interval_like_smallest_counterexample_rbp():
    # replacement at rank N versus swap at N−1/N: RBP_p violates iff p^{N−1} > p^{N−2}(1−p)
    res = check_interval_like(RBP(p=0.8), binary_runs(4))
    c = res.counterexample
    assert (c["r"], c["s"], c["u"], c["v"]) == ((0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 0, 1), (0, 0, 1, 0))


def test_rbp_is_interval_like_on_equal_mass_for_every_p():
    # proof sketch: with Σs = Σr, M(s) − M(r) = Σ_i T_i (w_i − 2w_{i+1} + w_{i+2}) with
    # w_{N+1} := w_N, and these coefficients are ≥ 0 for convex decreasing weights
    runs = binary_runs(6)
    for p in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10), Fraction(99, 100)):
        assert check_interval_like(RBP(p=p), runs, equal_mass=True).holds


# ------------------------------------------------------------- float ties of DCG are exact


def _perfect_power(i: int) -> tuple[int, int]:
    """i = m^k with the smallest base m."""
    for m in range(2, i + 1):
        k, x = 0, 1
        while x < i:
            x *= m
            k += 1
        if x == i:
            return m, k
    return i, 1


def _dcg_formal_zero(e: np.ndarray, n: int, base: int, discount: str) -> np.ndarray:
    """Is Σ e_i w_i exactly zero? Each weight is 1/log_b(x_i) (x_i = i or i + 1) or 1. Writing
    x = m^k with the smallest m, 1/log_b(x) = (1/k)·(1/log_b m): a rational when m = b, otherwise a
    rational multiple of the "irrational" 1/log_b m. Distinct m are treated as independent (the test
    then shows that no small integer combination of them comes near 0)."""
    i = np.arange(1, n + 1)
    basis = []  # (key, multiplier) per rank: key "1" for rational weights
    for r in i.tolist():
        x = r + 1 if discount == "log2p1" else r
        if discount == "jk" and r < base:
            basis.append(("1", Fraction(1)))
            continue
        m, k = _perfect_power(x)
        basis.append(("1", Fraction(1, k)) if m == base else (m, Fraction(1, k)))
    keys = sorted({b for b, _ in basis}, key=str)
    zero = np.ones(len(e), dtype=bool)
    for key in keys:
        cols = [j for j, (b, _) in enumerate(basis) if b == key]
        L = math.lcm(*[basis[j][1].denominator for j in cols])
        ints = np.array([int(basis[j][1] * L) for j in cols])
        zero &= (e[:, cols] * ints).sum(1) == 0
    return zero


@pytest.mark.parametrize("n,bound", [(8, 2), (6, 4)])
@pytest.mark.parametrize("base,discount", [(2, "jk"), (10, "jk"), (2, "log2p1")])
def test_dcg_float_ties_decide_exactly(n, bound, base, discount):
    """Every difference the checkers compare is Σ e_i w_i with integer e_i, |e_i| ≤ 2 (binary
    differences of differences, N ≤ 8) or ≤ 4 (c = 2 cover steps, N ≤ 6). Either it is exactly 0
    or it is farther than 1e-6 from 0, so comparing with FLOAT_TIE = 1e-9 is exact."""
    w = dcg_discount(n, base, discount)
    e = np.array(list(itertools.product(range(-bound, bound + 1), repeat=n)), dtype=np.int64)
    vals = e @ w
    zero = _dcg_formal_zero(e, n, base, discount)
    assert np.all(np.abs(vals[zero]) < 1e-12)
    assert np.min(np.abs(vals[~zero])) > 1e-6 > 100 * FLOAT_TIE


# ---------------------------------------------------------------------------------- scans
















def test_first_failure_scans_in_order():
    first, done = first_failure(lambda n: check_ordinal(RBP(p=0.8), StrongTopHeaviness(1),
                                                        binary_runs(n)), range(1, 6))
    assert first.N == 3 and [d.N for d in done] == [1, 2, 3]
    assert first.counterexample["r"] == (0, 1, 1) and first.counterexample["s"] == (1, 0, 0)


def test_huge_integers_are_compared_exactly_not_through_floats():
    K = 2**70  # K + 1 and K are the same double
    runs = binary_runs(2)
    st1 = StrongTopHeaviness(1)
    vals = np.array([0, K, 2 * K + 1, 3 * K + 1], dtype=object)  # steps K, K + 1, K
    res = check_interval(vals, st1, runs)
    assert not res.holds and res.n_violations == 2
    assert check_interval(np.array([0, K, 2 * K, 3 * K], dtype=object), st1, runs).holds
    weak = np.array([0, K + 1, 2 * K, 3 * K], dtype=object)  # weak ρ = 0, 1, 2, 3; M(01) one too high
    res = check_interval_like(weak, runs)
    assert not res.holds
    assert res.counterexample["r"] == (0, 0) and res.counterexample["s"] == (0, 1)


def test_bad_inputs_have_clear_messages():
    runs = binary_runs(3)
    with pytest.raises(TypeError, match="not a string"):
        check_ordinal("AP", StrongTopHeaviness(1), runs)
    with pytest.raises(ValueError, match="whole run space"):
        check_interval(RBP(p=0.5), StrongTopHeaviness(1), runs[::2])
    with pytest.raises(ValueError, match="exceeds the top degree"):
        check_interval_like(RBP(), graded_runs(2, 2))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=8, max_size=8), st.sampled_from(["strong", "weak"]))
def test_random_measures_match_brute_force(vals, which):
    runs = binary_runs(3)
    order = StrongTopHeaviness(1) if which == "strong" else WeakTopHeaviness(1)
    v = np.array(vals, dtype=np.int64)
    res = check_ordinal(v, order, runs)
    pairs = [(i, j) for i in range(8) for j in range(8)
             if order.leq(runs[i], runs[j]) and not order.leq(runs[j], runs[i])]
    assert res.n_checked == len(pairs)
    assert res.n_violations == sum(v[i] >= v[j] for i, j in pairs)
    il = check_interval_like(v, runs)
    assert (il.n_checked, il.n_violations) == brute_interval_like(v.astype(object), runs, False, 0)
    # interval: holds iff v is a positive affine function of ρ (strong: ρ = row index)
    if which == "strong":
        steps = np.diff(v)
        assert check_interval(v, order, runs).holds == bool(np.all(steps == steps[0]) and steps[0] > 0)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.fractions(Fraction(1, 10), Fraction(10)), st.integers(-5, 5))
def test_positive_affine_of_rho_is_interval_on_every_order(n, a, b):
    for order, runs in ((StrongTopHeaviness(1), binary_runs(n)), (WeakTopHeaviness(1), binary_runs(n)),
                        (SetBased(2), multiset_runs(n, 2))):
        rho = order.rank(runs)
        vals = np.array([a * int(x) + b for x in rho], dtype=object)
        assert check_interval(vals, order, runs).holds
        assert check_ordinal(vals, order, runs).holds
        assert not check_interval(np.array([-x for x in vals], dtype=object), order, runs).holds


@pytest.mark.parametrize("K", [1, 2, 5])
def test_grbp_interval_for_any_proportional_gain(K):
    # FFP19 §5: interval iff p = G/(G+1) = 1/(c+1) and g(a_i) = K·δ(a_i)
    runs = graded_runs(3, 2)
    st2 = StrongTopHeaviness(2)
    gains = np.array([0, K, 2 * K])
    m = GRBP(p=Fraction(1, 3), max_gain=2 * K)
    assert check_interval(lambda r: m.exact(gains[r]), st2, runs).holds
    bent = np.array([0, K, 3 * K])  # not proportional to δ
    m2 = GRBP(p=Fraction(1, 3), max_gain=3 * K)
    assert not check_interval(lambda r: m2.exact(bent[r]), st2, runs).holds


def test_interval_agrees_on_ffp17_examples():
    r, s, u, v = (np.array(x) for x in ([0, 0, 0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 0, 1, 0, 1, 1, 0],
                                        [1, 1, 0, 1, 0, 1, 1, 0, 1, 1], [1, 1, 1, 0, 0, 1, 1, 0, 1, 1]))
    assert not interval_agrees(ERR(), r, s, u, v)
    assert interval_agrees(RBP(p=0.8), r, s, u, v) and interval_agrees(DCG(), r, s, u, v)
