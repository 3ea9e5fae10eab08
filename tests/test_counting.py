"""φ by counting (irscales.enumeration.counting, .meet): equal to the enumeration engine's φ run by run, exact beyond it."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import enumeration as E
from irscales.enumeration import counting as C
from irscales.enumeration import _fixed_count as fixed_count, meet
from irscales.enumeration.forms import discounted
from irscales.enumeration.ties import tie_ranks
from irscales import measures as M
from irscales.exact import to_fraction


def _all_runs(N: int) -> np.ndarray:
    return E.runs_from_ids(np.arange(2**N), N)


@pytest.mark.parametrize("p", [0.8, 0.3, 0.6, 0.75, 0.9, 0.95])
def test_rbp_has_no_ties_exhaustively(p):
    """The docstring's proof, checked: all 2^N exact keys K = Σ rel_i a^{i−1} b^{N−i} are distinct
    for every N ≤ 20. Keys are built by appending a rank, K_N(r, x) = b·K_{N−1}(r) + x·a^{N−1},
    independently of the module's tables (Python integers once they leave int64)."""
    f = to_fraction(p)
    a, b = f.numerator, f.denominator
    keys = np.zeros(1, np.int64)
    for N in range(1, 21):
        if keys.dtype != object and sum(a**i * b ** (N - 1 - i) for i in range(N)) >= 2**62:
            keys = keys.astype(object)
        keys = np.concatenate([b * keys, b * keys + a ** (N - 1)])
        n = len(np.unique(keys)) if keys.dtype != object else len(set(keys.tolist()))
        assert n == 2**N, (p, N)


def test_key_order_is_rbp_order():
    """K/(b^{N−1}/(1 − p)) is RBP itself, so sorting by K sorts by RBP (exact Fractions, N = 9)."""
    rel = _all_runs(9)
    f = to_fraction(0.8)
    exact = M.RBP(p=0.8).exact(rel)
    K = meet.half_keys(rel.astype(bool), f.numerator, f.denominator)
    assert all(Fraction(int(k)) * (1 - f) / f.denominator**8 == v for k, v in zip(K, exact))


MEASURES = [M.RBP(p=0.8), M.RBP(p=0.6), M.RBP(p=0.9), M.RBP(p=0.3), M.RBP(p=0.5), M.P(), M.R(), M.RR()]


@pytest.mark.parametrize("m", MEASURES, ids=lambda m: m.key)
@pytest.mark.parametrize("N", [1, 2, 3, 6, 9, 12])
def test_counted_phi_equals_engine_for_every_run(m, N):
    rel = _all_runs(N)
    sc = E.scale(m, N, rb=N if m.needs_rb else None, method="engine", cache=False)
    for ties in ("unq", "min", "max", "mid"):
        assert np.array_equal(C.phi_runs(m, rel, ties), sc.phi_runs(rel, ties)), ties


def test_counted_phi_equals_engine_rbp_p08_all_runs_n14_and_sampled_n16():
    m = M.RBP(p=0.8)
    rel = _all_runs(14)
    assert np.array_equal(C.phi_runs(m, rel), E.scale(m, 14).phi_runs(rel))
    rng = np.random.default_rng(16)
    rel = rng.integers(0, 2, (3000, 16))
    assert np.array_equal(C.phi_runs(m, rel), E.scale(m, 16).phi_runs(rel))


@pytest.mark.parametrize("N", [20, 21, 22])
def test_counted_phi_equals_engine_on_random_runs_n20_22(N):
    m = M.RBP(p=0.8)
    rng = np.random.default_rng(N)
    rel = np.concatenate([rng.integers(0, 2, (600, N)), np.zeros((1, N), int), np.ones((1, N), int),
                          np.eye(N, dtype=int)])  # extremes and one relevant document at each rank
    rel = rel.reshape(1, -1, N)  # any leading shape
    got = C.phi_runs(m, rel)
    assert got.shape == rel.shape[:-1]
    assert np.array_equal(got, E.scale(m, N).phi_runs(rel))


@pytest.mark.data
def test_counted_phi_equals_the_stored_n30_scale_when_present():
    """At N = 30 the engine separates RBP_p08 values in float mode with exact adjudication; counting
    uses exact int64 halves. They agree run by run (only where the 8 GB scale is already cached)."""
    m = M.RBP(p=0.8)
    if not E.build_cost(m, 30).cached:
        pytest.skip("the RBP_p08 scale at N = 30 is not cached here (8 GB; built by make bench)")
    rng = np.random.default_rng(30)
    rel = rng.integers(0, 2, (300, 30))
    assert np.array_equal(C.phi_runs(m, rel), E.scale(m, 30, verify="size").phi_runs(rel))


def _exact_rbp(bits, p):
    f = to_fraction(p)
    return sum((f**i for i, x in enumerate(bits) if x), Fraction(0))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([23, 31, 40, 44]), st.data())
def test_counted_rbp_is_monotone_in_the_exact_value(N, data):
    """φ orders runs as their exact RBP does, takes values in 1..2^N, and as there are no ties,
    φ_unq = φ_min = φ_max (hypothesis: pairs of runs far beyond the engine's N ≤ 22 range here)."""
    runs = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=N, max_size=N), min_size=2,
                                       max_size=4)))
    phi = C.phi_runs(M.RBP(p=0.8), runs)
    assert np.array_equal(phi, C.phi_runs(M.RBP(p=0.8), runs, "min"))
    assert np.array_equal(phi, C.phi_runs(M.RBP(p=0.8), runs, "max"))
    assert ((phi >= 1) & (phi <= 2**N)).all()
    vals = [_exact_rbp(r, 0.8) for r in runs]
    for i in range(len(runs)):
        for j in range(len(runs)):
            assert (phi[i] < phi[j]) == (vals[i] < vals[j])
            assert (phi[i] == phi[j]) == (vals[i] == vals[j])


def test_extremes_and_neighbours_at_n50():
    """The empty run is 1, the all-relevant run 2^N; moving a relevant document one rank down
    lowers φ; a run and its copy agree."""
    N = 44
    zero, one = np.zeros(N, int), np.ones(N, int)
    r = np.zeros(N, int)
    r[[0, 5, 20]] = 1
    s = r.copy()
    s[20], s[21] = 0, 1
    phi = C.phi_runs(M.RBP(p=0.8), np.stack([zero, one, r, s, r]))
    assert phi[0] == 1 and phi[1] == 2**N and phi[3] < phi[2] and phi[2] == phi[4]


def test_closed_forms_at_any_depth():
    N = 100
    rel = np.zeros((3, N), int)
    rel[1, [3, 50]] = 1
    rel[2] = 1
    # P: k relevant of N, φ_unq = k + 1, runs below = Σ_{j<k} C(N, j)
    assert C.phi_runs(M.P(), rel).tolist() == [1, 3, N + 1]
    assert C.phi_runs(M.P(), rel, "min")[1] == 1 + 1 + N
    assert C.phi_runs(M.R(), rel, "max")[2] == 2**N
    # RR: first hit at rank 4 → value 1/4; runs below: 2^{N−4}; tied: 2^{N−4}
    assert C.phi_runs(M.RR(), rel).tolist() == [1, N + 2 - 4, N + 1]
    assert C.phi_runs(M.RR(), rel, "min")[1] == 2 ** (N - 4) + 1
    assert C.phi_runs(M.RR(), rel, "max")[1] == 2 ** (N - 3)
    assert C.phi_runs(M.RR(), rel, "mid")[1] == Fraction(2 ** (N - 4) + 1 + 2 ** (N - 3), 2)
    # RBP p ≤ 1/2: φ = run id + 1
    assert C.phi_runs(M.RBP(p=0.5), rel).tolist() == [1, 2 ** (N - 4) + 2 ** (N - 51) + 1, 2**N]
    assert C.n_distinct(M.RR(), N) == N + 1 and C.n_distinct(M.RBP(p=0.3), N) == 2**N


CLOSED = [(M.P(), 1), (M.R(), 1), (M.RR(), 1), (M.RBP(p=0.5), 1), (M.RBP(p=0.3), 1), (M.GP(max_gain=1), 1),
          (M.GP(max_gain=2), 2), (M.GP(max_gain=3), 3)]


@pytest.mark.parametrize("m,c", CLOSED, ids=lambda x: getattr(x, "key", str(x)))
def test_closed_forms_equal_brute_force_for_every_tie_strategy(m, c):
    """Every run of length N over grades 0..c: φ of the O(N) closed forms equals the rank of its exact
    value (Fractions) among all runs, for unq, min, max and mid, with the documented dtypes."""
    for N in (1, 2, 5, 8 if c == 1 else 5):
        rel = E.runs_from_ids(np.arange((c + 1) ** N), N, c)
        exact = m.exact(rel, rb=np.full(len(rel), N)) if m.needs_rb else m.exact(rel)
        for ties in ("unq", "min", "max", "mid"):
            got = C.phi_runs(m, rel, ties, c=c)
            assert np.array_equal(got, E.rank_values(exact, ties)), (N, ties)
            assert got.dtype == (np.float64 if ties == "mid" else np.int64)


def test_grade_sum_prefix_is_the_polynomial_expansion():
    """Σ_{j<q} [x^j](1 + … + x^c)^N from the recurrence walk (and the symmetry) equals the coefficients of
    the expanded polynomial, for every q."""
    for N, c in ((1, 1), (7, 1), (30, 1), (6, 2), (9, 3), (4, 5)):
        poly = np.polynomial.polynomial.polypow(np.ones(c + 1, dtype=object), N)
        want = [sum(poly[:q]) for q in range(c * N + 2)]
        assert C.grade_sum_prefix(N, c, range(c * N + 2)) == dict(enumerate(want)), (N, c)


def test_p_and_rr_at_depth_100000_are_exact_by_hand():
    """Issue 27 (7): ranked P / RR at depth 30,000–100,000 ran > 600 s (every C(N, j) computed), and P min
    at 10,000 / RR mid at 1,100 failed with "int too large to convert to float". Hand values:
    P with k = 1: runs below = C(N, 0) = 1, up to = 1 + N; k = 2: up to = 1 + N + N(N−1)/2.
    RR with the first hit at rank 1: 2^{N−1} runs below, 2^N up to."""
    N = 100_000
    rel = np.zeros((3, N), np.int8)
    rel[1, 7] = 1
    rel[2, [0, 99_999]] = 1
    assert C.phi_runs(M.P(), rel).tolist() == [1, 2, 3]
    assert C.phi_runs(M.P(), rel, "min").tolist() == [1, 2, 2 + N]
    assert C.phi_runs(M.P(), rel, "max").tolist() == [1, 1 + N, 1 + N + N * (N - 1) // 2]
    mid = C.phi_runs(M.P(), rel, "mid")
    assert mid.dtype == np.float64 and mid.tolist() == [1.0, (2 + 1 + N) / 2, (2 + N + 1 + N + N * (N - 1) // 2) / 2]
    rr_min, rr_max, rr_mid = (C.phi_runs(M.RR(), rel, t) for t in ("min", "max", "mid"))
    assert rr_min.dtype == object and rr_min.tolist() == [1, 2 ** (N - 8) + 1, 2 ** (N - 1) + 1]
    assert rr_max.tolist() == [1, 2 ** (N - 7), 2**N]
    assert rr_mid[0] == 1 and rr_mid[2] == Fraction(2 ** (N - 1) + 1 + 2**N, 2)
    assert C.phi_runs(M.RR(), rel).tolist() == [1, N + 2 - 8, N + 1]
    p_min = C.phi_runs(M.P(), np.eye(1, 10_000, dtype=int) + np.eye(1, 10_000, 9, dtype=int), "min")
    assert p_min.tolist() == [1 + 10_000 + 1]  # P min at 10,000 (k = 2): exact, int64
    # past half the ranks relevant the walk runs from the other end: Σ_{j<k} C(n, j) = 2^n − Σ_{j<n+1−k} C(n, j)
    n, k = 2_000, 1_003
    half = np.zeros((2, n), np.int8)
    half[0, :k] = 1
    half[1, : n - 5] = 1
    got = C.phi_runs(M.P(), half, "min")
    assert got.tolist() == [sum(math.comb(n, j) for j in range(kk)) + 1 for kk in (k, n - 5)]
    assert C.phi_runs(M.RR(), np.eye(1, 1100, 0, dtype=int), "mid")[0] == Fraction(3 * 2**1099 + 1, 2)


def test_phi_dtype_rules_at_large_depth():
    """int64 when every value fits, else Python ints; mid float64 below 2^52, else Fractions."""
    one = np.ones((1, 70), int)
    zero = np.zeros((1, 70), int)
    assert C.phi_runs(M.RBP(p=0.5), zero).dtype == np.int64  # φ = 1 fits
    big = C.phi_runs(M.RBP(p=0.5), one)
    assert big.dtype == object and big.tolist() == [2**70] and type(big[0]) is int
    assert C.phi_runs(M.RBP(p=0.5), one, "mid").tolist() == [Fraction(2**70)]
    assert C.phi_runs(M.RBP(p=0.5), np.ones((1, 53), int), "mid").dtype == object  # 2·2^53 ≥ 2^53
    mid = C.phi_runs(M.RBP(p=0.5), np.ones((1, 51), int), "mid")
    assert mid.dtype == np.float64 and mid.tolist() == [2.0**51]
    assert C.phi_runs(M.RBP(p=0.8), np.ones((1, 30), int), "mid").tolist() == [2.0**30]


def test_limits_and_scale_chooses_counting_beyond_the_engine():
    assert C.counting_depth(M.RBP(p=0.8))[0] == 52
    assert C.counting_depth(M.RBP(p=0.9))[0] == 36 and "62 bits" in C.counting_depth(M.RBP(p=0.9))[1]
    assert C.counting_depth(M.RR())[0] == math.inf and C.counting_depth(M.F1())[0] == 0
    assert C.counting_depth(M.AP())[0] == 24 and C.counting_depth(M.AP(), ties="mid")[0] == 40
    assert C.counting_depth(M.DCG(base=2, gains="graded"))[0] == meet.graded_dcg_depth(2, 1) == 52  # two grades
    assert not C.countable(M.RBP(p=0.8), 53) and C.countable(M.RBP(p=0.8), 52)
    with pytest.raises(ValueError, match="at most N=52"):
        C.phi_runs(M.RBP(p=0.8), np.zeros((1, 53), int))
    with pytest.raises(ValueError, match="no counting rule for F1"):
        C.phi_runs(M.F1(), np.zeros((1, 5), int))
    sc = E.scale(M.RBP(p=0.8), 45)  # beyond the engine's N ≤ 40: counted, nothing stored
    assert isinstance(sc, C.CountedScale) and sc.n_distinct == sc.n_runs == 2**45 and sc.directory is None
    assert sc.phi_runs(np.ones((2, 45), int)).tolist() == [2**45, 2**45]
    assert isinstance(E.scale(M.RR(), 64), C.CountedScale)
    assert isinstance(E.scale(M.RBP(p=0.8), 8, method="count"), C.CountedScale)
    assert isinstance(E.scale(M.RBP(p=0.8), 8, cache=False), E.Scale)  # "auto", a cheap build: the engine
    with pytest.raises(ValueError, match="not counted"):
        E.scale(M.AP(), 30, method="count")  # AP's φ_unq is counted (deduplicated) to N = 24 only
    assert E.scale(M.AP(), 8, method="count").n_distinct == E.scale(M.AP(), 8, cache=False).n_distinct
    with pytest.raises(ValueError, match="at most N=40"):
        E.scale(M.AP(), 41)


def test_ranked_runs_picks_the_path():
    rel = _all_runs(8)
    sc = E.scale(M.AP(), 8, cache=False)
    assert np.array_equal(E.ranked_runs(M.AP(), rel, cache=False), sc.phi_runs(rel))
    assert np.array_equal(E.ranked_runs("RBP_p08", rel), E.scale(M.RBP(p=0.8), 8, cache=False).phi_runs(rel))


def test_undecided_pairs_are_decided_exactly(monkeypatch):
    """Widen the float error band a billion times: most comparisons are then left to the exact
    integer path, and φ must not change (it equals the engine's)."""
    monkeypatch.setattr(meet, "EPS", 2.0**-52 * 1e9)
    m = M.RBP(p=0.8)
    rng = np.random.default_rng(7)
    rel = rng.integers(0, 2, (200, 18))
    assert np.array_equal(C.phi_runs(m, rel), E.scale(m, 18).phi_runs(rel))


def test_two_different_splits_give_the_same_counts():
    """From N = 46 on the split moves one rank to the bottom table (speed): an independent check of
    the exact counts, since both splits use different tables, windows and undecided pairs."""
    N = 46
    f = to_fraction(0.8)
    a, b = f.numerator, f.denominator
    rng = np.random.default_rng(46)
    bits = rng.integers(0, 2, (40, N)).astype(bool)
    h = meet.split(N)
    assert h == N // 2 - 1
    counts = []
    for hh in (h, N // 2):
        pairs = np.stack([meet.half_keys(bits[:, :hh], a, b), meet.half_keys(bits[:, hh:], a, b)], 1)
        counts.append(meet.below_pairs(pairs, a, b, N, hh))
    assert np.array_equal(counts[0], counts[1])
    assert np.array_equal(C.phi_runs(M.RBP(p=0.8), bits), counts[0] + 1)


DCGS = [M.DCG(base=2), M.NDCG(base=2), M.DCG(base=10), M.NDCG(base=10)]


@pytest.mark.parametrize("m", DCGS, ids=lambda m: m.key)
@pytest.mark.parametrize("N", [1, 2, 3, 5, 10, 11])
def test_counted_dcg_equals_engine_for_every_run(m, N):
    rel = _all_runs(N)
    sc = E.scale(m, N, rb=N if m.needs_rb else None, cache=False)
    for ties in ("unq", "min", "max", "mid"):
        assert np.array_equal(C.phi_runs(m, rel, ties), sc.phi_runs(rel, ties)), ties
    assert C.n_distinct(m, N) == sc.n_distinct  # 3·2^{N−2} for B = 2 (FFF21 §5.1)


@pytest.mark.parametrize("name, N", [("DCG_b02", 16), ("DCG_b02", 20), ("nDCG_b02", 22), ("DCG_b10", 20)])
def test_counted_dcg_equals_engine_on_random_runs(name, N):
    m = M.parse(name)
    rng = np.random.default_rng(N)
    rel = np.concatenate([rng.integers(0, 2, (250, N)), np.zeros((1, N), int), np.ones((1, N), int),
                          np.eye(N, dtype=int)])
    sc = E.scale(m, N, rb=5 if m.needs_rb else None)
    for ties in ("unq", "mid"):
        assert np.array_equal(C.phi_runs(m, rel, ties), sc.phi_runs(rel, ties))


def test_dcg_pairs_within_the_tolerance_are_decided_exactly(monkeypatch):
    """Widen the fixed-point band of the binary DCG count to ±0.02 around every threshold, with blocks of
    8 sums and no spare flag room: sums of other runs go to the exact decision (bottom sums named by
    subsets_with_sum), stretches overflow their flag room and are counted again, and φ still equals the
    engine's for every run."""
    N, B = 10, 2
    F = fixed_count.frac_bits(B + sum(math.log(B) / math.log(i) for i in range(B + 1, N + 1)) + 1.0)
    monkeypatch.setattr(fixed_count, "TOL_SCALE", int(0.02 * 2**F) // (N - B))
    monkeypatch.setattr(fixed_count, "BLOCK", 8)
    monkeypatch.setattr(fixed_count, "FLAG_ROOM", 0)
    named = []
    real = fixed_count.subsets_with_sum
    monkeypatch.setattr(fixed_count, "subsets_with_sum", lambda W, v: named.append(v) or real(W, v))
    m = M.DCG(base=B)
    rel = _all_runs(N)
    sc = E.scale(m, N, cache=False)
    for ties in ("unq", "min"):
        assert np.array_equal(C.phi_runs(m, rel, ties), sc.phi_runs(rel, ties)), ties
    assert len(named) > 10


@pytest.mark.data
@pytest.mark.parametrize("name", ["DCG_b02", "DCG_b10"])
def test_counted_dcg_equals_the_stored_n30_scale_when_present(name):
    m = M.parse(name)
    if not E.build_cost(m, 30).cached:
        pytest.skip(f"the {name} scale at N = 30 is not cached here (built by make bench)")
    rng = np.random.default_rng(31)
    rel = rng.integers(0, 2, (100, 30))
    sc = E.scale(m, 30, verify="size")
    assert np.array_equal(C.phi_runs(m, rel, "min"), sc.phi_runs(rel, "min"))
    assert np.array_equal(C.phi_runs(m, rel), sc.phi_runs(rel))


def test_dcg_limits_come_from_the_first_new_tie():
    """1/log2 4 = 1/log2 8 + 1/log2 64 (FFF21's JK discount): from N = 64 ranks 4 and 8 + 64 tie, so
    canonical runs stop counting distinct values; memory stops DCG_b02 earlier, at N = 2 + 2·26."""
    N, example = meet.dcg_tie_scan(2)
    assert N == 64 and example == "rank 4 weighs as much as rank 8 + rank 64"
    w = M.dcg_discount(64, 2, "jk")
    assert abs(w[3] - (w[7] + w[63])) < 1e-15 and Fraction(1, 2) == Fraction(1, 3) + Fraction(1, 6)
    assert C.counting_depth(M.DCG(base=2))[0] == 54 and C.counting_depth(M.NDCG(base=10))[0] == 62
    assert C.counting_depth(M.DCG(base=2, discount="log2p1"))[0] == 0
    assert C.counting_depth(M.DCG(base=2.5))[0] == 0


@pytest.fixture(scope="module")
def t08():
    from irscales import paths
    from irscales.data.collection import Collection

    try:
        d = paths.shared_dir() / "trec" / "T08"
    except Exception:  # no shared folder at all
        d = None
    if d is None or not (d / "runs").is_dir() or not (d / "qrels.trec8.adhoc.gz").exists():
        pytest.skip("real TREC-8 runs not found under <IRSCALES_SHARED>/trec/T08 (not redistributable)")
    return Collection.from_trec(d / "runs", d / "qrels.trec8.adhoc.gz", depth=30)


COUNTED = ["P", "R", "RR", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02", "DCG_b10", "nDCG_b02", "nDCG_b10"]


@pytest.mark.data
@pytest.mark.parametrize("N", [5, 10, 20, 30])
def test_counted_phi_equals_engine_on_every_t08_run(t08, N, scale_cache):
    """All 129 × 50 real TREC-8 runs (FFF21's T08): counted φ = the engine's φ, unq and min. At N = 30
    (time) the two float-mode kernels, RBP_p08 and DCG_b02, unq only, where the engine's scale is
    already cached (8–9 GB each)."""
    rel = t08.binary(N)
    for name in (COUNTED if N < 30 else ["RBP_p08", "DCG_b02"]):
        m = M.parse(name)
        if N == 30 and not E.build_cost(m, N).cached:
            continue
        sc = E.scale(m, N, rb=N if m.needs_rb else None, verify="size", cache=True if N == 30 else scale_cache)
        for ties in (("unq", "min") if N < 30 else ("unq",)):
            assert np.array_equal(C.phi_runs(m, rel, ties), sc.phi_runs(rel, ties)), (name, ties)


# ------------------------------------------------------------------ graded RBP (issue 20, G = c + 1 grades)


def _graded_runs(N: int, c: int) -> np.ndarray:
    return E.runs_from_ids(np.arange((c + 1) ** N), N, c)


def _exact_grbp(rel: np.ndarray, p: Fraction) -> list[Fraction]:
    """Σ_i g_i p^{i−1} by hand (the positive factor (1 − p)/c of gRBP does not change order or ties)."""
    return [sum((Fraction(int(g)) * p**i for i, g in enumerate(row)), Fraction(0)) for row in rel.tolist()]


PS = [Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(3, 5), Fraction(2, 3), Fraction(3, 4),
      Fraction(4, 5), Fraction(5, 6)]


@pytest.mark.parametrize("c,N", [(1, 10), (2, 7), (3, 5), (4, 4), (5, 4)])
def test_graded_rbp_ties_exactly_when_the_denominator_is_at_most_c(c, N):
    """Exhaustively: all (c+1)^N values of graded RBP with p = a/b are distinct iff b > c (module doc:
    the mod-b argument with d_i ∈ {−c..c}); when b ≤ c the two runs of ``graded_rbp_tie`` tie."""
    rel = _graded_runs(N, c)
    for p in PS:
        vals = _exact_grbp(rel, p)
        example = C.graded_rbp_tie(p, c)
        assert (len(set(vals)) == (c + 1) ** N) == (example is None) == (p.denominator > c), (p, c)
        if example is not None:
            r, s = (np.array([list(x) + [0] * (N - 2)]) for x in example)
            assert max(r.max(), s.max()) <= c and not np.array_equal(r, s)
            assert _exact_grbp(r, p) == _exact_grbp(s, p)
            m = M.GRBP(p=p, max_gain=c)
            assert m.exact(r)[0] == m.exact(s)[0]


def test_ffp19_threshold_for_three_grades():
    """FFP19 §5 with gains = grades over G = 3 grades (c = 2): the smallest normalised gain gap is
    1/2, the threshold p = (1/2)/(1 + 1/2) = 1/3. Below it gRBP orders runs by strong top-heaviness
    (the base-3 rank RBTO) without ties; at it gRBP is a positive affine map of RBTO (interval); above
    it the order breaks, and at p = 1/2 distinct runs tie (3^6 runs, 665 values), as the mod-b
    argument says (b = 2 ≤ c = 2), while p = 4/5, also above it, has no ties (b = 5 > 2)."""
    c, N = 2, 6
    rel = _graded_runs(N, c)
    rbto = M.RBTO(c=c).exact(rel)
    order = np.argsort(rbto, kind="stable")
    gap = Fraction(1, c)
    threshold = gap / (1 + gap)
    assert threshold == Fraction(1, 3)
    for p in (Fraction(1, 4), Fraction(1, 5), threshold):  # ordinal: strictly increasing along RBTO
        v = _exact_grbp(rel[order], p)
        assert all(x < y for x, y in zip(v, v[1:]))
    v = _exact_grbp(rel, threshold)
    assert len({x * 3 ** (N - 1) - r for x, r in zip(v, rbto)}) == 1  # gRBP·3^{N−1} = RBTO + const
    for p in (Fraction(2, 5), Fraction(1, 2), Fraction(4, 5)):  # not ordinal above it
        v = _exact_grbp(rel[order], p)
        assert any(x >= y for x, y in zip(v, v[1:]))
    half = _exact_grbp(rel, Fraction(1, 2))
    assert len(set(half)) < 3**N and C.graded_rbp_tie(0.5, 2) == ((1, 0), (0, 2))
    assert len(set(_exact_grbp(rel, Fraction(4, 5)))) == 3**N and C.graded_rbp_tie(0.8, 2) is None


@pytest.mark.parametrize("p,c,N", [(0.8, 2, 1), (0.8, 2, 8), (Fraction(2, 3), 2, 7), (0.8, 3, 6), (0.75, 3, 5), (Fraction(5, 6), 5, 4)])
def test_counted_graded_rbp_equals_engine_for_every_run(p, c, N):
    m = M.GRBP(p=p, max_gain=c)
    rel = _graded_runs(N, c)
    ref = E.scale(m, N, c=c, method="engine", cache=False, workers=1).phi_runs(rel)
    assert np.array_equal(ref, np.arange(1, (c + 1) ** N + 1)[np.argsort(np.argsort(_exact_grbp(rel, to_fraction(p))))])
    for ties in ("unq", "min", "max"):
        assert np.array_equal(C.phi_runs(m, rel, ties, c=c), ref)
    assert C.n_distinct(m, N, c) == (c + 1) ** N


@pytest.mark.parametrize("c,N", [(2, 13), (3, 10)])
def test_counted_graded_rbp_equals_engine_on_random_runs(c, N):
    m = M.GRBP(p=0.8, max_gain=c)
    rel = np.random.default_rng(N).integers(0, c + 1, size=(400, N))
    rel[:2] = [[0] * N, [c] * N]
    ref = E.scale(m, N, c=c, method="engine", cache=False, workers=1).phi_runs(rel)
    assert np.array_equal(C.phi_runs(m, rel, c=c), ref)
    assert ref[0] == 1 and ref[1] == (c + 1) ** N


def test_graded_rbp_counting_limits_and_beyond_the_engine():
    """Counted to N = 32 for G = 3 and N = 26 for G = 4 (p = 0.8), beyond the engine's 24 / 20;
    refused with the reason when graded RBP ties (b ≤ c) with p ≠ 1/b (p = 1/b: every key a value, any N);
    scale() switches to counting by itself."""
    assert C.counting_depth(M.GRBP(p=0.8, max_gain=2), 2)[0] == 32
    assert C.counting_depth(M.GRBP(p=0.8, max_gain=3), 3)[0] == 26
    assert C.counting_depth(M.GRBP(p=0.5, max_gain=2), 2)[0] == math.inf
    lim, why = C.counting_depth(M.GRBP(p=Fraction(2, 3), max_gain=3), 3)
    assert lim == 0 and "ties" in why and "p = 1/b" in why
    assert C.counting_depth(M.GRBP(p=0.5, max_gain=2), 1)[0] > 0  # binary: b = 2 > 1
    with pytest.raises(ValueError, match="ties over grades 0..3"):
        C.phi_runs(M.GRBP(p=Fraction(2, 3), max_gain=3), np.zeros((1, 3), int), c=3)
    with pytest.raises(ValueError, match="integer grades in 0..2"):
        C.phi_runs(M.GRBP(p=0.8, max_gain=2), np.full((1, 4), 3), c=2)
    N = 28
    s = E.scale(M.GRBP(p=0.8, max_gain=2), N, c=2)
    assert isinstance(s, C.CountedScale) and s.n_runs == s.n_distinct == 3**N
    rng = np.random.default_rng(0)
    rel = rng.integers(0, 3, size=(6, N))
    rel[1] = rel[0]
    rel[2, :] = rel[0]
    rel[2, -1] = (rel[0, -1] + 1) % 3  # differs in the last rank only
    phi = s.phi_runs(rel)
    vals = _exact_grbp(rel, Fraction(4, 5))
    for i in range(len(rel)):
        for j in range(len(rel)):
            assert (phi[i] < phi[j]) == (vals[i] < vals[j]) and (phi[i] == phi[j]) == (vals[i] == vals[j])


@pytest.mark.parametrize("c,N", [(1, 9), (2, 7), (3, 5), (4, 4)])
def test_counted_gp_equals_engine_for_every_run(c, N):
    """gP over grades 0..c is counted at any N (grade sums; coefficients of (1 + … + x^c)^N): every
    tie strategy equals the engine's on all (c+1)^N runs."""
    m = M.GP(max_gain=c)
    rel = _graded_runs(N, c)
    s = E.scale(m, N, c=c, method="engine", cache=False, workers=1)
    for ties in ("unq", "min", "max", "mid"):
        assert np.array_equal(C.phi_runs(m, rel, ties, c=c), s.phi_runs(rel, ties)), ties
    assert C.n_distinct(m, N, c) == s.n_distinct == c * N + 1
    assert C.counting_depth(m, c)[0] == math.inf


def test_counted_gp_at_depth_100():
    m = M.GP(max_gain=2)
    rel = np.array([[0] * 100, [2] * 100, [1] + [0] * 99, [0] * 99 + [1]])
    phi_min = C.phi_runs(m, rel, "min", c=2)
    assert C.phi_runs(m, rel, c=2).tolist() == [1, 201, 2, 2]
    assert phi_min[0] == 1 and phi_min[1] == 3**100 and phi_min[2] == phi_min[3] == 2
    assert C.phi_runs(m, rel, "max", c=2)[2] == 1 + 100  # 100 runs have grade sum 1


def test_graded_split_moves_ranks_to_the_bottom_and_keeps_the_counts():
    """Graded RBP: a query scans ≈ ((c+1)p)^h top halves, so with many queries the split moves ranks to
    the bottom table while that saves more than building it costs and it keeps at most 2^(MAX_HALF−2)
    entries (5^10 for five grades: the Cranfield grid at N = 18 splits after rank 8, not 9; at N = 12
    after rank 4). Counts are the same for every split."""
    p = Fraction(4, 5)
    assert meet.split(18, 36253, c=4, p=p) == 8 and meet.split(18, 300, c=4, p=p) == 9
    assert meet.split(12, 30000, c=4, p=p) == 4
    assert meet.split(8, 6561, c=2, p=p) == 1  # 6561·2.4 < 10·3^8: the last rank stays on top
    assert meet.split(12, 5000, c=3, p=Fraction(1, 5)) == 6  # (c+1)p < 1: moving ranks would not help
    N, c = 12, 4
    rng = np.random.default_rng(12)
    g = rng.integers(0, c + 1, (60, N))
    counts = []
    for hh in (6, 4, 3):
        pairs = np.stack([meet.half_keys(g[:, :hh], 4, 5), meet.half_keys(g[:, hh:], 4, 5)], 1)
        counts.append(meet.below_pairs(pairs, 4, 5, N, hh, c))
    assert np.array_equal(counts[0], counts[1]) and np.array_equal(counts[0], counts[2])
    assert np.array_equal(C.phi_runs(M.GRBP(p=0.8, max_gain=c), g, c=c), counts[0] + 1)


# ------------------------------------------------- graded DCG/nDCG by class coefficients (issue 20)

GRADED_DCG_CASES = [(2, 2, N) for N in (1, 2, 3, 4, 5, 8, 9)] + [(2, 3, 7), (2, 4, 6), (3, 2, 9), (10, 2, 12), (2, 1, 12)]


@pytest.mark.parametrize("B, c, N", GRADED_DCG_CASES)
def test_counted_graded_dcg_equals_engine_for_every_run(B, c, N):
    """Every one of the (c+1)^N runs, every tie strategy: counted φ = the engine's, and the number of
    distinct values. From N = 4 (B = 2, three grades) rational ties inside a class exist (grade 2 at rank
    4 weighs as much as grade 1 at rank 1; grade 2 at rank 9 as grade 1 at rank 3), so this checks the
    class items and their multiplicities."""
    rel = E.runs_from_ids(np.arange((c + 1) ** N), N, c)
    for m in (M.DCG(base=B, gains="graded"), M.NDCG(base=B, gains="graded")):
        sc = E.scale(E.numerator(m), N, c=c, cache=False)
        for ties in ("unq", "min", "max", "mid"):
            assert np.array_equal(C.phi_runs(m, rel, ties, c=c), sc.phi_runs(rel, ties)), (m.key, ties)
        assert C.n_distinct(m, N, c) == sc.n_distinct


@pytest.mark.parametrize("B, c, N", [(2, 2, 14), (2, 3, 11), (10, 2, 14)])
def test_counted_graded_dcg_equals_engine_on_random_runs(B, c, N):
    """Building the engine's scale enumerates all (c+1)^N runs and decides every near tie exactly, so it
    also proves that no two of them tie across discount classes: irscales.interval's proven depths."""
    rng = np.random.default_rng(N)
    rel = np.concatenate([rng.integers(0, c + 1, (1500, N)), np.zeros((1, N), int), np.full((1, N), c)])
    m = M.DCG(base=B, gains="graded")
    sc = E.scale(m, N, c=c, cache=False)
    for ties in ("unq", "mid"):
        assert np.array_equal(C.phi_runs(m, rel, ties, c=c), sc.phi_runs(rel, ties)), ties


def test_graded_dcg_counting_limits():
    """The depth is where a table passes 2^26 sums; the kernel's weighted sums need (c+1)^N < 2^62 for
    min/max/mid; grades outside 0..c are refused."""
    m = M.NDCG(base=2, gains="graded")
    assert C.counting_depth(m, 2)[0] == C.counting_depth(m, 2, "min")[0] == meet.graded_dcg_depth(2, 2) >= 30
    assert 5 ** C.counting_depth(m, 4, "mid")[0] < 2**62
    assert C.counting_depth(M.NDCG(base=2, gains="graded", discount="log2p1"), 2)[0] == 0
    with pytest.raises(ValueError, match="grades in 0..2"):
        C.phi_runs(m, np.array([[0, 3, 1]]), c=2)


@pytest.mark.parametrize("B, N", [(2, 26), (2, 34), (10, 30)])
def test_binary_dcg_two_counting_paths_agree(B, N):
    """Binary runs are graded runs with grades 0..1: the class-item count (one threshold per run, intra-class
    ties deduplicated exactly) and the canonical-run count (one threshold per c, ties excluded by the scan)
    are independent paths to the same (runs below, runs up to, φ_unq), beyond the engine's N too."""
    rng = np.random.default_rng(B + N)
    bits = rng.integers(0, 2, (60, N))
    a = meet.graded_dcg_below(bits, B, 1)
    b = meet.dcg_below(bits > 0, B)
    assert all(np.array_equal(np.asarray(x, object), np.asarray(y, object)) for x, y in zip(a, b))


# ------------------------------------------------- several tie strategies from one count (issue 30)

@pytest.mark.parametrize("name, c, N", [("P", 1, 9), ("RR", 1, 9), ("AP", 1, 9), ("RBP_p05", 1, 9), ("RBP_p08", 1, 12),
                                        ("DCG_b02", 1, 12), ("nDCG_b10", 1, 12), ("gP", 2, 7), ("gRBP_p08", 2, 9),
                                        ("gnDCG_b02", 2, 9), ("gnDCG_b10", 2, 12)])
def test_phi_runs_ties_equals_phi_runs_per_tie(name, c, N):
    """One count for all four tie strategies gives what one call per strategy gives, run by run (and the
    strategies differ where the measure ties, so the shared count is not one strategy copied)."""
    m = M.parse(name)
    if c > 1 and hasattr(m, "max_gain"):
        m = type(m)(**{**{k: getattr(m, k) for k in ("p",) if hasattr(m, k)}, "max_gain": c})
    rng = np.random.default_rng(N)
    rel = rng.integers(0, c + 1, (3, 40, N))
    both = C.phi_runs_ties(m, rel, c=c)
    assert list(both) == ["unq", "min", "max", "mid"]
    for t, phi in both.items():
        assert phi.shape == (3, 40)
        assert np.array_equal(phi, C.phi_runs(m, rel, t, c=c)), (name, t)
    if name in ("P", "gP", "DCG_b02"):
        assert not np.array_equal(both["min"], both["max"])


# ------------------------------------------------- graded RBP with ties, p = 1/b: digits with carries (issue 30)

@pytest.mark.parametrize("p, c, N", [(0.5, 2, 1), (0.5, 2, 2), (0.5, 2, 7), (0.5, 2, 10), (0.5, 3, 6), (0.5, 4, 5),
                                     (Fraction(1, 3), 2, 7), (Fraction(1, 3), 3, 6), (0.25, 3, 5), (0.5, 1, 9)])
def test_graded_rbp_one_over_b_counted_equals_the_engine_for_every_run(p, c, N):
    """Every one of the (c+1)^N runs, every tie strategy: counted φ (every integer key a value, runs below
    by carries) equals the enumeration engine's, and so does the number of distinct values."""
    m = M.GRBP(p=p, max_gain=c)
    rel = E.runs_from_ids(np.arange((c + 1) ** N), N, c)
    if C.graded_rbp_tie(p, c) is None:
        assert C.countable(m, N, c)  # b > c: no ties, meet in the middle
    else:
        assert C.counting_depth(m, c)[0] == math.inf
    sc = E.scale(m, N, c=c, method="engine", cache=False, build=True)
    both = C.phi_runs_ties(m, rel, c=c)
    for t in ("unq", "min", "max", "mid"):
        assert np.array_equal(both[t], sc.phi_runs(rel, t)), (p, c, N, t)
    assert C.n_distinct(m, N, c) == sc.n_distinct


def test_graded_rbp_p05_counted_far_beyond_the_engine():
    """N = 40 and 70 over three grades: φ_unq is the key plus one, runs below and up to are exact
    integers beyond int64 (3^70), and a brute-force count over a small prefix agrees."""
    m = M.GRBP(p=0.5, max_gain=2)
    rng = np.random.default_rng(3)
    for N in (40, 70):
        rel = np.concatenate([rng.integers(0, 3, (20, N)), np.zeros((1, N), int), np.full((1, N), 2)])
        both = C.phi_runs_ties(m, rel, c=2)
        keys = [sum(int(g) << (N - 1 - i) for i, g in enumerate(row)) for row in rel]
        assert [int(x) for x in both["unq"]] == [k + 1 for k in keys]
        assert int(both["min"][-2]) == 1 and int(both["max"][-1]) == 3**N  # the empty run, the full run
        assert all(int(a) <= int(b) for a, b in zip(both["min"], both["max"]))
    # runs of length 4 with key < v, by brute force, for every v: the recursion's carries and comparisons
    rel4 = E.runs_from_ids(np.arange(3**4), 4, 2)
    keys = np.array([sum(int(g) << (3 - i) for i, g in enumerate(r)) for r in rel4])
    got = C.phi_runs_ties(m, rel4, ("min", "max"), c=2)
    assert np.array_equal(got["min"], [(keys < k).sum() + 1 for k in keys])
    assert np.array_equal(got["max"], [(keys <= k).sum() for k in keys])


# ------------------------------------------------------------------ one count per numerator (issue 32)


def test_ndcg_after_dcg_on_the_same_runs_is_not_counted_again(monkeypatch):
    """nDCG's φ is DCG's (its numerator): asked for both on the same runs, as the command line does, DCG is
    counted once; other runs, another tie strategy or another N are counted; results are copies."""
    calls = []
    real = discounted.dcg_below  # the discounted form counts binary DCG
    monkeypatch.setattr(discounted, "dcg_below", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(C, "_COUNTED", type(C._COUNTED)())
    rng = np.random.default_rng(4)
    runs = rng.integers(0, 2, (3, 5, 12)).astype(np.int8)
    dcg = C.phi_runs("DCG_b02", runs)
    ndcg = C.phi_runs("nDCG_b02", runs)
    assert len(calls) == 1 and np.array_equal(dcg, ndcg)
    ndcg[0, 0] = -1
    assert np.array_equal(C.phi_runs("nDCG_b02", runs), dcg)  # the kept result is not the one handed out
    C.phi_runs("nDCG_b02", runs, "min")
    C.phi_runs("nDCG_b02", runs[..., :11])
    C.phi_runs("nDCG_b02", 1 - runs)
    assert len(calls) == 4
    assert np.array_equal(C.phi_runs("nDCG_b02", runs, "min"), tie_ranks(*real(runs.reshape(-1, 12) > 0, 2), "min")
                          .reshape(3, 5))


def test_a_count_of_another_measure_drops_the_tables_kept_for_rbp(monkeypatch):
    """RBP's half tables stay for later RBP counts (their build is the expensive part), and are dropped
    when another family's count starts, so that memory does not add up across measures."""
    monkeypatch.setattr(C, "_COUNTED", type(C._COUNTED)())
    meet.half_table.cache_clear()
    runs = np.random.default_rng(5).integers(0, 2, (4, 20)).astype(np.int8)
    C.phi_runs("RBP_p08", runs)
    kept = meet.half_table.cache_info().currsize
    assert kept > 0
    C.phi_runs("RBP_p08", 1 - runs)
    assert meet.half_table.cache_info().currsize == kept
    C.phi_runs("DCG_b02", runs)
    assert meet.half_table.cache_info().currsize == 0


def test_runs_of_python_objects_are_counted_every_time(monkeypatch):
    # an object array's buffer holds addresses, not values: such runs are never looked up in the memo
    calls = []
    real = discounted.dcg_below  # the discounted form counts binary DCG
    monkeypatch.setattr(discounted, "dcg_below", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(C, "_COUNTED", type(C._COUNTED)())
    runs = np.array([[1, 0, 1, 1, 0, 0, 1, 0]], dtype=object)
    a = C.phi_runs("DCG_b02", runs)
    b = C.phi_runs("nDCG_b02", runs)
    assert len(calls) == 2 and np.array_equal(a, b) and not C._COUNTED
    assert np.array_equal(a, C.phi_runs("DCG_b02", runs.astype(np.int8)))


def test_the_readme_states_the_graded_counting_limits_as_found():
    """README's counting limits for three grades are counting_depth's (gnDCG_b10 counts to 39, not 34)."""
    import re

    from irscales.paths import repo_root

    root = repo_root()
    if root is None:
        pytest.skip("not a source checkout")
    text = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    m = re.search(r"gRBP at any N for p = 1/b and to (\d+) otherwise, gDCG/gnDCG to (\d+) in base 2 and (\d+) in base 10",
                  text)
    assert m is not None
    assert [int(g) for g in m.groups()] == [C.counting_depth("gRBP_p08", 2)[0], C.counting_depth("gnDCG_b02", 2)[0],
                                            C.counting_depth("gnDCG_b10", 2)[0]]
    assert C.counting_depth("gP", 2)[0] == C.counting_depth("gRBP_p05", 2)[0] == math.inf


@pytest.mark.parametrize("base, gap", [(2, 1.09e-9), (10, 2.53e-6)])
def test_no_tie_across_discount_classes_among_all_3_17_graded_runs(base, gap):
    """Every distinct class-coefficient tuple of the 3^17 runs over three grades has its own DCG value: the
    smallest gap is far above the float error, so counted graded DCG/nDCG is proven exact to N = 17."""
    from irscales import interval
    from irscales.enumeration.meet import class_gap

    g, bound = class_gap(base, 17, 2)
    assert g == pytest.approx(gap, rel=0.01) and g > 100 * bound
    assert interval.dcg_proven_depth(M.parse(f"nDCG_b{base:02d}"), 2) == 17
