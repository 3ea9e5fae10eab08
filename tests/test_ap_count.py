"""AP's φ by counting (irscales.enumeration._ap_count): equal to the enumeration engine's φ run by run."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from irscales import enumeration as E
from irscales import measures as M
from irscales.enumeration import _ap_count as A
from irscales.enumeration import counting as C

TIES = ("min", "max", "mid", "unq")


def _all_runs(N: int) -> np.ndarray:
    return E.runs_from_ids(np.arange(2**N), N)


def test_keys_are_sp_times_lcm():
    rel = _all_runs(9)
    L = 2520
    assert [Fraction(int(k), L) for k in A.sp_keys(rel)] == list(M.SP().exact(rel))


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5, 7, 10, 13, 16])
def test_counted_phi_equals_engine_for_every_run(N):
    rel = _all_runs(N)
    sc = E.scale(M.AP(), N, rb=N, cache=N >= 14)
    for ties in TIES:
        assert np.array_equal(C.phi_runs(M.AP(), rel, ties), sc.phi_runs(rel, ties)), ties
        assert np.array_equal(C.phi_runs(M.SP(), rel, ties), sc.phi_runs(rel, ties)), ties
    assert C.n_distinct(M.AP(), N) == sc.n_distinct


@pytest.mark.parametrize("N", [18, 20, 21, 22])
def test_counted_phi_equals_engine_on_sampled_runs(N):
    rng = np.random.default_rng(N)
    rel = rng.integers(0, 2, (3000, N))
    rel[:500] *= rng.random((500, N)) < 0.15  # sparse runs: low values
    rel[500:1000] |= rng.random((500, N)) < 0.7  # dense runs: high values
    sc = E.scale(M.SP(), N, cache=True)
    for ties in TIES:
        assert np.array_equal(C.phi_runs(M.AP(), rel, ties), sc.phi_runs(rel, ties)), ties
    for h in (1, N // 3, N - 1):  # every split gives the same exact counts
        below, upto = A.count_sp(A.sp_keys(rel[:50]), N, h)
        assert np.array_equal(below + 1, sc.phi_runs(rel[:50], "min"))
        assert np.array_equal(upto, sc.phi_runs(rel[:50], "max"))


def test_hand_cases():
    """N = 3: SP of 000…111 (run id order) is 0, 1/3, 1/2, 7/6, 1, 5/3, 2, 3: no ties, φ = rank.
    N = 4: 1000 and 0101 both have SP = 1 (1/1; 1/2 + 2/4); below 1 lie 0000, 0001 (1/4), 0010 (1/3),
    0100 (1/2), 0011 (1/3 + 2/4 = 5/6): φ_min = 6, φ_max = 7, φ_mid = 6.5, φ_unq = 6; 1111 (SP = 4)
    is the 15th of 15 distinct values, the 16th run."""
    rel3 = _all_runs(3)
    assert C.phi_runs(M.AP(), rel3, "unq").tolist() == [1, 2, 3, 5, 4, 6, 7, 8]
    assert C.phi_runs(M.AP(), rel3, "min").tolist() == [1, 2, 3, 5, 4, 6, 7, 8]
    rel4 = np.array([[1, 0, 0, 0], [0, 1, 0, 1], [1, 1, 1, 1]])
    assert C.phi_runs(M.AP(), rel4, "min").tolist() == [6, 6, 16]
    assert C.phi_runs(M.AP(), rel4, "max").tolist() == [7, 7, 16]
    assert C.phi_runs(M.AP(), rel4, "mid").tolist() == [6.5, 6.5, 16]
    assert C.phi_runs(M.AP(), rel4, "unq").tolist() == [6, 6, 15]
    assert C.n_distinct(M.AP(), 4) == 15


def test_limits_and_paths():
    assert A.AP_MAX_N == 40 == E.max_enumerable_depth(M.AP())[0]
    assert C.countable(M.AP(), 40, ties="min") and not C.countable(M.AP(), 41, ties="min")
    assert C.countable(M.AP(), 24) and not C.countable(M.AP(), 25) and not C.countable(M.AP(), 25, ties="unq")
    with pytest.raises(ValueError, match="must fit int64"):
        A.sp_keys(np.zeros((1, 41), int))
    with pytest.raises(ValueError, match="at most N=40"):
        C.phi_runs(M.AP(), np.zeros((1, 41), int), "min")
    with pytest.raises(ValueError, match="at most N=24.*estimate"):
        C.phi_runs(M.AP(), np.zeros((1, 25), int), "unq")
    with pytest.raises(ValueError, match="phi_unq_estimate"):
        A.phi_unq_exact(np.ones((1, 30), int), budget=1000)
    # N = 30 beyond the dedup: min/max/mid counted without a scale (ranked_runs picks counting)
    rel = np.zeros((3, 30), int)
    rel[1, -1] = 1
    rel[2] = 1
    assert E.ranked_runs(M.AP(), rel, "min").tolist() == [1, 2, 2**30]
    assert E.ranked_runs(M.AP(), rel, "max").tolist() == [1, 2, 2**30]
    # unq of the lowest values is exact by pair enumeration (0, then 1/30: the 2nd distinct value)
    assert A.phi_unq_exact(rel[:2]).tolist() == [1, 2]


def test_unq_enumerated_equals_engine():
    N = 20
    rng = np.random.default_rng(3)
    rel = rng.integers(0, 2, (40, N)) * (rng.random((40, N)) < 0.3)
    sc = E.scale(M.SP(), N, cache=True)
    got = [A.unq_enumerated(int(t), N) for t in A.sp_keys(rel)]
    assert got == sc.phi_runs(rel, "unq").tolist()


@pytest.mark.parametrize("N", [12, 16])
def test_unq_estimate_within_its_bound(N):
    """Pure estimates (budget 0) of φ_unq for every run: inside the Hoeffding half-width at δ = 0.05
    for at least 95 % of the runs (the bound is per query), and exact when the budget covers 2^N."""
    rel = _all_runs(N)
    exact = E.scale(M.SP(), N, cache=N >= 14).phi_runs(rel, "unq")
    est = A.phi_unq_estimate(rel, n_samples=2000, budget=0)
    assert not est.exact.any()
    inside = np.abs(est.value - exact) <= est.halfwidth
    assert inside.mean() >= 0.95
    assert np.abs(est.value - exact).max() > 0  # it is an estimate
    full = A.phi_unq_estimate(rel[::7], budget=2**N)
    assert full.exact.all() and np.array_equal(full.value, exact[::7]) and not full.halfwidth.any()


@pytest.fixture(scope="module")
def t08():
    from irscales import paths
    from irscales.data.collection import Collection

    track = paths.trec_track("T08")
    if track is None:
        pytest.skip("real TREC-8 runs not found under <IRSCALES_SHARED>/trec/T08 (not redistributable)")
    return Collection.from_trec(track.runs, track.qrels, depth=24)


@pytest.mark.data
def test_counted_phi_equals_engine_on_every_t08_run(t08, scale_cache):
    """All 129 × 50 real TREC-8 runs cut at N = 5..24: counted φ = the engine's, every tie strategy."""
    for N in range(5, 25):
        rel = t08.binary(N)
        sc = E.scale(M.AP(), N, rb=N, verify="size", method="engine", build=True, cache=scale_cache)  # not a count
        for ties in TIES:
            assert np.array_equal(C.phi_runs(M.AP(), rel, ties), sc.phi_runs(rel, ties)), (N, ties)


def test_sample_below_is_uniform_over_the_runs_up_to_a_value():
    """Draws of sample_below hit each key ≤ t in proportion to its number of runs (N = 9, 100,000
    draws: every frequency within 5 standard deviations), and never a key above t."""
    N = 9
    keys = A.sp_keys(_all_runs(N))
    t = int(np.sort(keys)[300])
    draws = A.sample_below(t, N, 100_000, np.random.default_rng(1))
    assert draws.max() <= t
    u, c = np.unique(keys[keys <= t], return_counts=True)
    p = c / c.sum()
    got = np.array([(draws == k).sum() for k in u]) / len(draws)
    assert np.all(np.abs(got - p) <= 5 * np.sqrt(p * (1 - p) / len(draws)))
