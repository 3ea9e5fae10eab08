"""AP's proven φ bounds (irscales.enumeration._bracket_ap) contain the exact φ and are as tight as asked."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from irscales import enumeration as E
from irscales import measures as M
from irscales import paths
from irscales.enumeration import _ap_count as A
from irscales.enumeration import _bracket_ap as B
from irscales.enumeration import _bracket_ap_kernels as K
from irscales.enumeration import _bracket_ap_reach as R
from irscales.options import Settings

RANKED = ("min", "max", "mid")


def _brute_counts(N: int) -> tuple[np.ndarray, np.ndarray]:
    """All 2^N runs and their exact keys SP·lcm(1..N), brute force."""
    rel = E.runs_from_ids(np.arange(2**N), N)
    return rel, A.sp_keys(rel)


def _contains(lo, hi, exact) -> bool:
    return all(a <= e <= b for a, e, b in zip(np.ravel(lo), np.ravel(exact), np.ravel(hi)))


def _within(lo, hi, rel_error: float = 0.01) -> bool:
    return all(b <= (1 + Fraction(str(rel_error))) * a for a, b in zip(np.ravel(lo), np.ravel(hi)))


@pytest.mark.parametrize("N", [4, 9, 12])
def test_bounds_contain_brute_force_phi_of_every_run(N):
    rel, keys = _brute_counts(N)
    srt = np.sort(keys)
    below, upto = np.searchsorted(srt, keys, "left"), np.searchsorted(srt, keys, "right")
    exact = {"min": below + 1, "max": upto, "mid": [Fraction(int(b) + 1 + int(u), 2) for b, u in zip(below, upto)]}
    for ties in RANKED:
        lo, hi = B.phi_bounds(M.AP(), rel, ties, N=N)
        assert lo.shape == hi.shape == (2**N,)
        assert _contains(lo, hi, exact[ties]) and _within(lo, hi), (N, ties)


def test_grid_at_lcm_is_the_exact_count_above():
    """At D = lcm(1..N) every hit cost k·D/i is an integer, so HI is the exact count of runs with SP ≤ x/D."""
    N = 10
    D = math.lcm(*range(1, N + 1))
    _, keys = _brute_counts(N)  # keys are SP·D already
    top = int(keys.max())
    lo, hi, _ = K.grid_counts(N, D, top)
    exact = np.searchsorted(np.sort(keys), np.arange(top + 1), "right")
    assert np.array_equal(hi, exact) and (lo <= exact).all()


@pytest.mark.parametrize("N", [8, 11, 13])
def test_every_grid_cell_brackets_its_threshold(N):
    """LO(x) counts only runs with SP < x/D (and the empty run), HI(x) every run with ⌊D·SP⌋ ≤ x: at every cell."""
    _, keys = _brute_counts(N)
    L = math.lcm(*range(1, N + 1))
    srt = np.sort(keys)
    for D in (1, N, 3 * N, 7 * N + 1, 64):
        top = int(srt[-1]) * D // L
        lo, hi, lay = K.grid_counts(N, D, top)
        g = np.arange(top + 1)
        below = np.searchsorted(srt, -(-(g * L) // D), "left")  # SP < x/D
        assert (lo <= np.maximum(below, 1)).all(), D  # the empty run is counted even at x = 0
        assert (hi >= np.searchsorted(srt, ((g + 1) * L - 1) // D, "right")).all(), D
        assert (lo <= hi).all() and lay.roundings(top) == N + top + lay.hcap + 4
        lo2, hi2, _ = K.grid_counts(N, D, top // 2)  # a pass's floats at x do not depend on its range
        assert np.array_equal(lo[: top // 2 + 1], lo2) and np.array_equal(hi[: top // 2 + 1], hi2)


def test_finer_grids_nest_inside_coarser_ones():
    """Grid a·D is never looser than D (the nesting the planner's ladder rests on), cell by cell."""
    N = 14
    _, keys = _brute_counts(N)
    L = math.lcm(*range(1, N + 1))
    vals = np.unique(keys)[1::37]
    for D, a in ((5, 2), (16, 3), (40, 2)):
        top = int(vals[-1]) * a * D // L
        lo1, hi1, _ = K.grid_counts(N, D, top // a + 1)
        lo2, hi2, _ = K.grid_counts(N, a * D, top)
        for v in vals.tolist():
            x1, x2 = v * D // L, v * a * D // L
            assert lo1[x1] <= lo2[x2] and hi2[x2] <= hi1[x1], (D, a, v)


def test_exact_walk_equals_brute_force():
    N = 13
    _, keys = _brute_counts(N)
    L = math.lcm(*range(1, N + 1))
    srt = np.sort(keys)
    for K in np.unique(keys)[::97]:
        assert B.count_exact(int(K), L, N) == (int(np.searchsorted(srt, K, "left")),
                                               int(np.searchsorted(srt, K, "right")))
    assert B.count_exact(int(srt[-1]), L, N, node_cap=10) is None


def _sparse_runs(rng, n: int, N: int) -> np.ndarray:
    """Runs from dense to far-lower-tail (a few hits at the last ranks)."""
    dens = rng.random((n, N)) < rng.random((n, 1)) * 0.6
    tail = np.zeros((n, N), dtype=bool)
    for r in range(n):
        tail[r, rng.choice(np.arange(N // 2, N), rng.integers(1, 5), replace=False)] = True
    return np.concatenate([dens, tail]).astype(np.int8)


@pytest.mark.parametrize("N", [20, 30, 36])
def test_bounds_contain_counted_phi_on_simulated_runs(N):
    rng = np.random.default_rng(N)
    rel = _sparse_runs(rng, 40, N)
    for ties in RANKED:
        lo, hi = B.phi_bounds(M.AP(), rel, ties, N=N)
        assert _contains(lo, hi, A.phi_ap(rel, ties)) and _within(lo, hi), (N, ties)


def test_shorter_runs_are_padded_and_shape_is_kept():
    rng = np.random.default_rng(5)
    rel = (rng.random((3, 4, 15)) < 0.3).astype(np.int8)
    lo, hi = B.phi_bounds(M.AP(), rel, "max", N=22, rel_error=0.001)
    padded = np.concatenate([rel, np.zeros((3, 4, 7), np.int8)], axis=-1).reshape(-1, 22)
    assert lo.shape == (3, 4) and _contains(lo, hi, A.phi_ap(padded, "max")) and _within(lo, hi, 0.001)
    assert lo.dtype == object and all(type(v) is int for v in lo.ravel())


def test_unq_exact_to_24_and_loose_but_proven_beyond():
    rng = np.random.default_rng(3)
    rel = _sparse_runs(rng, 10, 20)
    lo, hi = B.phi_bounds(M.AP(), rel, "unq", N=20)
    assert list(lo) == list(hi) == list(A.phi_unq_exact(rel))
    assert B.bracket_kind(20, "unq") == "exact" and B.bracket_kind(30, "unq").startswith("proven (loose")
    rel = np.zeros((4, 26), np.int8)  # far lower tail: a few hits at the last ranks, exact by enumeration
    rel[0, [25]] = rel[1, [20, 24]] = rel[2, [18, 22, 25]] = 1
    lo, hi = B.phi_bounds(M.AP(), rel, "unq", N=26)
    exact = A.phi_unq_exact(rel, budget=1 << 16)
    assert _contains(lo, hi, exact) and list(lo[:3]) == list(exact[:3])
    with pytest.warns(RuntimeWarning, match="1 of 1 runs keep bounds wider"):
        lo, hi = B.phi_bounds(M.AP(), np.ones((1, 26), np.int8), "unq", N=26)
    assert lo[0] == 1 and hi[0] == 2**26  # the top value: only the loose bounds


def test_all_ties_at_once_and_cut_off_names():
    rng = np.random.default_rng(8)
    rel = _sparse_runs(rng, 10, 24)
    both = B.phi_bounds_ties("AP@24", rel, ("min", "mid", "unq"), N=24)
    for t in ("min", "mid", "unq"):
        lo, hi = B.phi_bounds(M.AP(), rel, t, N=24)
        assert list(both[t][0]) == list(lo) and list(both[t][1]) == list(hi), t
    with pytest.raises(ValueError, match="at N=24, not N=30"):
        B.phi_bounds("AP@24", rel, "max", N=30)


def test_k_bounds():
    assert R.k_bounds(M.AP(), 50, 1, "max") == (2**50, 2**50)
    assert R.k_bounds(M.AP(), 14, 1, "unq") == (A.n_distinct_sp(14),) * 2
    lo, hi = R.k_bounds(M.AP(), 40, 1, "unq")
    assert lo <= hi == 2**40


def test_float_rounding_factor_is_outward():
    big = 2.0**300
    assert K.floor_count(big, 10**6) < 2**300 < K.ceil_count(big, 10**6)
    assert K.floor_count(12345.0, 10**6) == K.ceil_count(12345.0, 10**6) == 12345  # below 2^53: exact


def test_api_and_bad_input():
    assert R.bracket_depth(M.AP(), 1, "max")[0] >= 100
    assert R.bracket_depth(M.AP(), 1, "unq")[0] == A.FULL_MAX_N
    secs, mem = R.bracket_cost(M.AP(), 100, 1, "max", 2490)
    assert secs > 0 and mem > 0
    with pytest.raises(ValueError, match="AP/SP only"):
        B.phi_bounds(M.P(), np.zeros((1, 5)), "max", N=5)
    with pytest.raises(ValueError, match="L ≤ N=5"):
        B.phi_bounds(M.AP(), np.zeros((1, 6)), "max", N=5)
    with pytest.raises(ValueError, match="max_rel_error must be a finite number greater than 0"):  # checked at the door
        Settings(max_rel_error=0)
    with pytest.raises(ValueError, match="1 ≤ N ≤"):
        B.phi_bounds(M.AP(), np.zeros((1, 5)), "max", N=2000)


@pytest.fixture(scope="module")
def r04():
    shared = paths.shared_dir()
    folder = shared / "trec" / "R04-partial" if shared else None
    if folder is None or not (folder / "runs").is_dir():
        pytest.skip("real Robust 2004 runs not found under <IRSCALES_SHARED>/trec/R04-partial (not redistributable)")
    import warnings

    from irscales.data.collection import Collection

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*no judgments in the qrels")  # topic 672: no relevant document
        return Collection.from_trec(sorted((folder / "runs").iterdir())[:3], folder / "qrels.robust2004.txt.gz",
                                    depth=40)


@pytest.mark.data
def test_bounds_contain_exact_phi_on_real_runs(r04):
    """3 Robust 2004 runs × 249 topics at N = 30: every bound holds the exact φ, within 1 %."""
    rel = r04.binary(30)
    for ties in RANKED:
        lo, hi = B.phi_bounds(M.AP(), rel, ties, N=30)
        exact = A.phi_ap(rel.reshape(-1, 30), ties).reshape(rel.shape[:-1])
        assert _contains(lo, hi, exact) and _within(lo, hi), ties


@pytest.mark.data
def test_bounds_contain_exact_phi_on_real_far_tail_runs_at_40(r04):
    """The 40 real runs with the lowest SP at N = 40 (the far lower tail, hits only deep in the ranking)."""
    rel = r04.binary(40).reshape(-1, 40)
    keys = A.sp_keys(rel)
    rel = rel[np.argsort(keys, kind="stable")][(keys == 0).sum():][:40]
    for ties in RANKED:
        lo, hi = B.phi_bounds(M.AP(), rel, ties, N=40)
        assert _contains(lo, hi, A.phi_ap(rel, ties)) and _within(lo, hi), ties


def test_walk_shortcut_bounds_the_largest_completion():
    N = 9
    table = K.maxcomp(N)
    for i in range(1, N + 2):
        for h in range(N + 1):
            exact = sum(Fraction(h + j - i + 1, j) for j in range(i, N + 1))
            assert table[i, h] >= exact, (i, h)
