"""irscales.certified: bounds of means and the range of Kendall's τ_b over boxes of scores."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.certified import Bounds, as_bounds, kendall_tau_range, mean_bounds
from irscales.correlation import kendall_counts, kendall_tau


def _random_box(rng, s: int, grid: int, point_share: float = 0.3):
    """Intervals on a small integer grid (so ties and overlaps are common); some are points."""
    a, b = rng.integers(0, grid, s), rng.integers(0, grid, s)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pts = rng.random(s) < point_share
    hi[pts] = lo[pts]
    return lo, hi


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=30))
@settings(max_examples=200, deadline=None)
def test_exact_values_give_the_point_tau_bit_for_bit(pairs):
    """lo == hi: the range is one point, kendall_tau's float to the last bit (NaN where a ranking is all tied)."""
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    r = kendall_tau_range(x, y)
    want = kendall_tau(x, y)
    assert r.exact
    if np.isnan(want):
        assert np.isnan(r.lo) and np.isnan(r.hi)
    else:
        assert r.lo == r.hi == want and np.float64(r.lo).tobytes() == np.float64(want).tobytes()
    c = kendall_counts(x, y)
    assert r.undecided == 0 and (r.concordant, r.discordant) == (int(c.concordant), int(c.discordant))
    assert r.tied == len(x) * (len(x) - 1) // 2 - r.concordant - r.discordant


def test_exact_fractions_and_mixed_types_give_the_point_tau():
    x = np.array([Fraction(1, 3), Fraction(2, 6), 0.5, 1, Fraction(1, 10**40)], dtype=object)
    y = np.array([0.1, 0.2, 0.2, Fraction(3, 10), 0.0], dtype=object)
    r = kendall_tau_range(x, y)
    assert r.lo == r.hi == kendall_tau(x, y)
    # 1/3 and 2/6 are one value (a tie), 1/10^40 is not 0
    assert kendall_tau_range(x, (y, y)).tied >= 1


@pytest.mark.parametrize("seed", range(12))
def test_every_point_of_the_box_and_every_endpoint_choice_lies_in_the_range(seed):
    """1,000 random points inside the boxes, and random choices of endpoints (lo or hi per system, per side),
    all give a τ inside the range; x exact (the notebook's case) and both sides bounded."""
    rng = np.random.default_rng(seed)
    s = int(rng.integers(3, 25))
    for x_exact in (True, False):
        xlo, xhi = _random_box(rng, s, 12, 1.0 if x_exact else 0.3)
        ylo, yhi = _random_box(rng, s, 12)
        r = kendall_tau_range((xlo, xhi), (ylo, yhi))
        assert -1 <= r.lo <= r.hi <= 1
        taus = []
        for _ in range(1000):
            x = xlo + rng.random(s) * (xhi - xlo)
            y = ylo + rng.random(s) * (yhi - ylo)
            taus.append(kendall_tau(x, y))
        for _ in range(200):
            x = np.where(rng.random(s) < 0.5, xlo, xhi)
            y = np.where(rng.random(s) < 0.5, ylo, yhi)
            taus.append(kendall_tau(x, y))
        taus = np.array(taus)
        taus = taus[~np.isnan(taus)]
        assert taus.min() >= r.lo and taus.max() <= r.hi, (seed, x_exact, r, taus.min(), taus.max())


def _brute(xlo, xhi, ylo, yhi):
    """The exact min and max of τ_b over the boxes: τ depends only on the order of the values, and every order
    the boxes allow is met on the grid of the endpoints and the midpoints between consecutive ones."""
    def grid(lo, hi):
        ends = sorted({Fraction(int(v)) for v in (*lo, *hi)})
        mids = [(a + b) / 2 for a, b in zip(ends, ends[1:])]
        allv = sorted(set(ends) | set(mids))
        return [[v for v in allv if lo[j] <= v <= hi[j]] for j in range(len(lo))]
    # twice each grid value: integers in the same order (τ_b reads only the order), as int64 rather than
    # Fractions, and every y of the grid against one x in one vectorised call
    gx = [[int(2 * v) for v in g] for g in grid(xlo, xhi)]
    Y = np.array(list(itertools.product(*[[int(2 * v) for v in g] for g in grid(ylo, yhi)])), dtype=np.int64)
    taus = []
    for x in itertools.product(*gx):
        t = np.atleast_1d(kendall_tau(np.broadcast_to(np.array(x, dtype=np.int64), Y.shape), Y))
        taus += t[~np.isnan(t)].tolist()
    return (min(taus), max(taus)) if taus else (np.nan, np.nan)


@pytest.mark.parametrize("seed", range(40))
def test_the_range_contains_the_brute_force_extremes_on_tiny_boxes(seed):
    """S ≤ 4 systems on a grid of 5: the exact min and max over the boxes (brute force) lie in the range; with
    two systems (one pair) the pairwise relaxation is the box itself, so the range is exact."""
    rng = np.random.default_rng(1000 + seed)
    s = 2 if seed < 10 else int(rng.integers(3, 5))
    xlo, xhi = _random_box(rng, s, 5, 1.0 if seed % 2 else 0.4)
    ylo, yhi = _random_box(rng, s, 5)
    r = kendall_tau_range((xlo, xhi), (ylo, yhi))
    lo, hi = _brute(xlo, xhi, ylo, yhi)
    if np.isnan(lo):
        return
    assert r.lo <= lo + 1e-12 and hi <= r.hi + 1e-12, (r, lo, hi)
    if s == 2:
        assert (r.lo, r.hi) == pytest.approx((lo, hi))


def test_the_range_is_tight_where_the_brute_force_meets_it_on_most_tiny_boxes():
    """The outer bound is not loose by design: on 200 random tiny boxes (x exact, 3–4 systems, y on a grid of 5,
    so overlaps are everywhere) it equals the brute-force range in 140 (where it does not, per-pair ties in y
    that no single point realises together shrink a denominator)."""
    rng = np.random.default_rng(7)
    tight = 0
    for _ in range(200):
        s = int(rng.integers(3, 5))
        xlo, xhi = _random_box(rng, s, 5, 1.0)
        ylo, yhi = _random_box(rng, s, 5)
        r = kendall_tau_range((xlo, xhi), (ylo, yhi))
        lo, hi = _brute(xlo, xhi, ylo, yhi)
        assert np.isnan(lo) or (r.lo <= lo + 1e-12 and hi <= r.hi + 1e-12)
        tight += bool(np.isnan(lo) or (np.isclose(r.lo, lo) and np.isclose(r.hi, hi)))
    assert tight >= 135, tight


def test_pair_classes_and_a_hand_example():
    """x = (1, 2, 3) exact; y = ([0, 0], [1, 3], [2, 2]): pair (1, 2) concordant; (1, 3) concordant; (2, 3)
    undecided (y_2 in [1, 3] against y_3 = 2): concordant (τ = 1), tied (2/√6), or discordant (1/3)."""
    r = kendall_tau_range([1, 2, 3], ([0, 1, 2], [0, 3, 2]))
    assert (r.concordant, r.discordant, r.tied, r.undecided) == (2, 0, 0, 1)
    assert r.hi == 1.0 and r.lo == pytest.approx(1 / 3)
    assert 2 / np.sqrt(6) in r and kendall_tau([1, 2, 3], [0, 2.5, 2]) in r


def test_an_undecided_pair_within_a_tie_of_x_only_moves_the_denominator():
    """x ties systems 0 and 1; y's bounds let them tie or not: τ_b is largest with them tied in y too."""
    r = kendall_tau_range([1, 1, 2], ([0, 0, 5], [0, 1, 5]))
    assert r.hi == kendall_tau([1, 1, 2], [0, 0, 5]) and r.lo == kendall_tau([1, 1, 2], [0, 1, 5])


def test_mean_bounds_are_the_means_of_the_ends_and_contain_every_mean():
    rng = np.random.default_rng(3)
    lo = rng.random((6, 4))
    hi = lo + rng.random((6, 4)) / 10
    m = mean_bounds(Bounds(lo, hi))
    assert all(isinstance(v, Fraction) for v in m.lo) and (m.lo <= m.hi).all()
    assert [float(v) for v in m.lo] == pytest.approx(lo.mean(axis=0)) and [float(v) for v in m.hi] == \
        pytest.approx(hi.mean(axis=0))
    for _ in range(100):
        pt = lo + rng.random(lo.shape) * (hi - lo)
        exact = [sum(Fraction(v) for v in pt[:, j]) / 6 for j in range(4)]
        assert all(a <= e <= b for a, e, b in zip(m.lo, exact, m.hi))
    # exact ints and Fractions stay exact; a point stays a point
    pts = np.array([[1, Fraction(1, 3)], [2, Fraction(2, 3)]], dtype=object)
    assert mean_bounds(Bounds.point(pts)).exact and list(mean_bounds(as_bounds(pts)).lo) == [Fraction(3, 2), Fraction(1, 2)]


def test_bad_bounds_say_where():
    with pytest.raises(ValueError, match=r"lo > hi at index \(1,\)"):
        Bounds(np.array([0, 2]), np.array([1, 1]))
    with pytest.raises(ValueError, match="same shape"):
        Bounds(np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="1-D of the same length"):
        kendall_tau_range([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2 systems"):
        kendall_tau_range([1], [1])
    with pytest.raises(ValueError, match="NaN"):
        kendall_tau_range([1.0, np.nan], [1, 2])
