"""Orders on runs, covers, rank functions (FFP19 eqs. 1-6) and FFP17's Δ (Def. 2/3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.measures import RBTO, SBTO
from irscales.measures.total_order import rbto_rank, sbto_rank
from irscales.theory.orders import (
    NotGradedError, SetBased, StrongTopHeaviness, WeakTopHeaviness, as_runs, binary_runs, cumsums, delta,
    graded_runs, interval_leq, multiset_runs, poset_rank, relation_str, transitive_reduction,
)

SMALL = [(c, n) for c in (1, 2) for n in range(1, 7 if c == 1 else 5)]


def brute_rank_total(keys: np.ndarray) -> np.ndarray:
    """Rank in a total (pre)order by counting distinct smaller keys (no formula involved)."""
    distinct = np.unique(keys)
    return np.searchsorted(distinct, keys)


# ------------------------------------------------------------------------------ run spaces


def test_graded_runs_are_base_c1_numbers_in_order():
    g = graded_runs(3, 2)
    assert g.shape == (27, 3)
    assert g[0].tolist() == [0, 0, 0] and g[1].tolist() == [0, 0, 1] and g[3].tolist() == [0, 1, 0]
    assert g[-1].tolist() == [2, 2, 2]
    assert binary_runs(2).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]


@pytest.mark.parametrize("c,n", SMALL)
def test_multiset_space_size_is_binomial(c, n):
    # FFP19 §4: |R(N)| = C(N + c, N)
    assert multiset_runs(n, c).shape == (math.comb(n + c, n), n)


def test_space_errors_are_clear():
    with pytest.raises(ValueError, match="positive integer"):
        graded_runs(0)
    with pytest.raises(ValueError, match="top relevance degree"):
        graded_runs(3, 0)
    with pytest.raises(ValueError, match="in-memory limit"):
        graded_runs(17)
    with pytest.raises(ValueError, match="exceeds the top degree"):
        StrongTopHeaviness(1).rank([[0, 2]])
    with pytest.raises(ValueError, match="integers"):
        StrongTopHeaviness(1).rank([[0.5, 1]])
    with pytest.raises(ValueError, match="≥ 0"):
        WeakTopHeaviness(1).leq([-1, 0], [0, 0])
    with pytest.raises(ValueError, match="top degree c ≥ 1"):
        SetBased(0)


# ---------------------------------------------------------------------- set-based (FFP19 §4)


def test_sbto_hand_values_c2_n2():
    # eq. (2) by hand: {0,0}:0, {1,0}:C(2,2)+C(0,1)=1, {1,1}:1+C(1,1)=2, {2,0}:C(3,2)=3,
    # {2,1}: 3+1=4, {2,2}: 3+C(2,1)=5 -- and lexicographic in (n2, n1), eq. (1)
    runs = np.array([[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]])
    assert SetBased(2).rank(runs).tolist() == [0, 1, 2, 3, 4, 5]
    assert multiset_runs(2, 2).tolist() == runs.tolist()


@pytest.mark.parametrize("c,n", SMALL)
def test_set_based_rank_formula_is_the_rank_of_the_order(c, n):
    ms = multiset_runs(n, c)
    order = SetBased(c)
    rho = order.rank(ms)
    # ρ(0̂) = 0 and consecutive elements of the chain differ by one (FFP19 §4)
    assert rho.tolist() == list(range(len(ms)))
    assert np.array_equal(rho, brute_rank_total(order.key(ms)))


@pytest.mark.parametrize("c,n", SMALL)
def test_sbto_measure_equals_rho_on_every_run(c, n):
    runs = graded_runs(n, c)
    rho = SetBased(c).rank(runs)
    assert all(x == y for x, y in zip(SBTO(c=c).exact(runs).tolist(), rho.tolist()))
    assert np.array_equal(SBTO(c=c)(runs), rho.astype(float))


def test_binary_set_based_rank_counts_relevant():
    # FFP19 §4.1: for c = 1, ρ(r̂) = Σ δ(r̂_i)
    runs = binary_runs(7)
    assert np.array_equal(SetBased(1).rank(runs), runs.sum(1))


def test_first_degree_contributes_one_each():
    # FFP19 §4: C(1 + N − j, N − j + 1) = 1 for every j
    n = 6
    run = np.array([[2, 1, 1, 1, 0, 0]])
    assert SetBased(2).rank(run)[0] == math.comb(2 + n - 1, n) + 3


# --------------------------------------------------------------- strong top-heaviness (FFP19 §5)


@pytest.mark.parametrize("c,n", SMALL)
def test_rbto_measure_equals_rho_and_row_index(c, n):
    runs = graded_runs(n, c)
    rho = StrongTopHeaviness(c).rank(runs)
    assert rho.tolist() == list(range((c + 1) ** n))  # graded of rank (c+1)^N − 1
    assert all(x == y for x, y in zip(RBTO(c=c).exact(runs).tolist(), rho.tolist()))
    # lexicographic comparison (eq. 4), no formula
    lex = sorted(range(len(runs)), key=lambda i: tuple(runs[i].tolist()))
    assert lex == list(range(len(runs)))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.data())
def test_strong_top_heaviness_prefers_one_higher_document(n, c, data):
    # FFP19 §5: (û, a0, ac, ..., ac) ≺ (û, aj, a0, ..., a0) for 1 ≤ j ≤ c
    m = data.draw(st.integers(0, n - 1))
    u = data.draw(st.lists(st.integers(0, c), min_size=m, max_size=m))
    j = data.draw(st.integers(1, c))
    lo = np.array(u + [0] + [c] * (n - m - 1))
    hi = np.array(u + [j] + [0] * (n - m - 1))
    o = StrongTopHeaviness(c)
    assert o.leq(lo, hi) and not o.leq(hi, lo)


def test_total_order_covers_are_consecutive():
    runs = graded_runs(3, 2)
    lo, hi = StrongTopHeaviness(2).covers(runs)
    assert sorted(zip(lo.tolist(), hi.tolist())) == [(k, k + 1) for k in range(26)]


# ---------------------------------------------------------------- weak top-heaviness (FFP17)


def elementary_covers(n: int) -> set[tuple[int, int]]:
    """FFP17 §3.2's basic operations: single-step forward swap, replacement in the last position."""
    runs = binary_runs(n)
    index = {tuple(r): k for k, r in enumerate(runs.tolist())}
    out = set()
    for k, r in enumerate(runs.tolist()):
        for i in range(1, n):
            if r[i] == 1 and r[i - 1] == 0:
                s = list(r)
                s[i - 1], s[i] = 1, 0
                out.add((k, index[tuple(s)]))
        if r[-1] == 0:
            out.add((k, index[tuple(r[:-1] + [1])]))
    return out


@pytest.mark.parametrize("n", range(1, 7))
def test_weak_covers_are_the_basic_operations_and_rho_is_the_rank(n):
    runs = binary_runs(n)
    w = WeakTopHeaviness(1)
    lo, hi = w.covers(runs)
    got = set(zip(lo.tolist(), hi.tolist()))
    lo2, hi2 = transitive_reduction(w.leq_matrix(runs))
    assert got == set(zip(lo2.tolist(), hi2.tolist())) == elementary_covers(n)
    assert np.array_equal(poset_rank(w.leq_matrix(runs)), w.rank(runs))


def test_weak_order_hand_cases():
    w = WeakTopHeaviness(1)
    assert w.leq([0, 1, 1], [1, 0, 1])
    assert not w.leq([1, 0, 0], [0, 1, 1]) and not w.leq([0, 1, 1], [1, 0, 0])  # incomparable
    assert w.leq([0, 1], [1, 1]) and w.leq([1, 0], [1, 1])
    assert w.rank([[1, 0, 1, 0]]).tolist() == [4 + 2]  # Σ (N − i + 1) r_i


@pytest.mark.parametrize("n", range(1, 7))
def test_strong_and_set_based_orders_extend_the_weak_order(n):
    runs = binary_runs(n)
    weak = WeakTopHeaviness(1).leq_matrix(runs)
    strong = StrongTopHeaviness(1).leq_matrix(runs)
    setb = SetBased(1).leq_matrix(runs)
    assert not np.any(weak & ~strong) and not np.any(weak & ~setb)


def test_graded_weak_order_is_not_graded():
    # (0,0)<(0,1)<(0,2)<(1,2) and (0,0)<(0,1)<(1,0)<(1,1)<(1,2) are both maximal chains
    w = WeakTopHeaviness(2)
    chain_a = [[0, 0], [0, 1], [0, 2], [1, 2]]
    chain_b = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]]
    space = graded_runs(2, 2)
    lo, hi = w.covers(space)
    idx = {tuple(r): k for k, r in enumerate(space.tolist())}
    cov = set(zip(lo.tolist(), hi.tolist()))
    for chain in (chain_a, chain_b):
        assert all((idx[tuple(a)], idx[tuple(b)]) in cov for a, b in itertools.pairwise(chain))
    with pytest.raises(NotGradedError, match="not graded"):
        w.rank(space)
    assert w.rank(graded_runs(1, 2)).tolist() == [0, 1, 2]


def test_transitive_reduction_rejects_non_orders():
    with pytest.raises(ValueError, match="antisymmetric"):
        transitive_reduction(np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="square"):
        transitive_reduction(np.ones((2, 3), dtype=bool))


# ------------------------------------------------------------------------------- FFP17 Δ


def test_delta_ffp17_worked_examples():
    u = [1, 0, 0, 1, 0, 1, 1, 1, 0, 0]
    v = [1, 0, 1, 1, 1, 0, 1, 0, 0, 0]
    assert delta(u, v).tolist() == [0, 0, 1, 2, 4, 5, 6, 6, 6, 6]  # FFP17 §3.2, p. 4
    e = np.eye(10, dtype=int)
    assert delta(e[1], e[0]).tolist() == [1] * 10
    assert delta(e[9], e[8]).tolist() == [0] * 8 + [1, 1]
    assert cumsums([0, 1, 1, 0]).tolist() == [0, 1, 2, 2]
    # REL^4 example: S − R for r = (0,1,0,0), s = (1,0,1,0)
    assert (cumsums([1, 0, 1, 0]) - cumsums([0, 1, 0, 0])).tolist() == [1, 0, 1, 1]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 9), st.data())
def test_delta_is_def2_formula_and_ends_with_natural_distance(n, data):
    runs = binary_runs(n)
    i = data.draw(st.integers(0, len(runs) - 1))
    j = data.draw(st.integers(0, len(runs) - 1))
    r, s = runs[i], runs[j]
    w = WeakTopHeaviness(1)
    if not w.leq(r, s):
        r, s = s, r
    if not w.leq(r, s):
        with pytest.raises(ValueError, match="not below"):
            delta(r, s)
        return
    d = delta(r, s)
    by_def = [sum((k - jj + 1) * (int(s[jj - 1]) - int(r[jj - 1])) for jj in range(1, k + 1))
              for k in range(1, n + 1)]
    assert d.tolist() == by_def
    assert d[-1] == w.rank(s) - w.rank(r)
    assert np.all(d >= 0)


def test_delta_vectorised_and_interval_leq():
    runs = binary_runs(4)
    d = delta(runs[0][None, :], runs, check=False)
    assert d.shape == (16, 4)
    assert interval_leq([0, 0, 1], [0, 1, 1]) and not interval_leq([1, 0, 0], [0, 1, 1])
    with pytest.raises(ValueError, match="different lengths"):
        interval_leq([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="different lengths"):
        delta([0, 1], [0, 1, 1])


def test_relation_str():
    w = WeakTopHeaviness(1)
    assert relation_str(w, [1, 0, 0], [0, 1, 1]) == "r ∥ s"
    assert relation_str(w, [0, 1], [1, 0]) == "r ≺ s" and relation_str(w, [1, 0], [0, 1]) == "s ≺ r"
    assert relation_str(SetBased(1), [0, 1], [1, 0]) == "r ~ s"


def test_as_runs_reads_bools_and_integral_floats_and_refuses_the_rest():
    assert as_runs([True, False]).tolist() == [1, 0] and as_runs([2.0, 0.0]).dtype == np.int64
    with pytest.raises(ValueError, match="must be integers"):
        as_runs([0.5, 1])
    with pytest.raises(ValueError, match="≥ 0"):
        as_runs([-1, 1])
    with pytest.raises(ValueError, match="exceeds the top degree c=1"):
        as_runs([2, 0], c=1)


def test_one_rank_computation_for_orders_and_measures():
    """SetBased/StrongTopHeaviness ranks and SBTO/RBTO all come from total_order's functions,
    exact in Python ints where int64 would overflow."""
    runs = graded_runs(4, 2)
    assert np.array_equal(SetBased(2).rank(runs), sbto_rank(runs, 2))
    assert np.array_equal(StrongTopHeaviness(2).rank(runs), rbto_rank(runs, 2))
    big = np.ones((1, 70), dtype=np.int64)
    assert rbto_rank(big, 1)[0] == 2**70 - 1 and StrongTopHeaviness(1).rank(big)[0] == 2**70 - 1
    assert RBTO().exact(big)[0] == 2**70 - 1
    # a measure given grades above c still counts them, as the formula does
    assert SBTO(c=1).exact(np.array([[2, 0]]))[0] == sbto_rank(np.array([[2, 0]]), 1)[0] == 3
    with pytest.raises(ValueError, match="≥ 0"):
        sbto_rank(np.array([[-1, 0]]), 1)
