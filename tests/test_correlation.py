"""Kendall's τ (FFF21 §3.3, Fer17 eq. 1) and τ_AP (Fer17 eq. 2): hand-worked cases, brute force,
scipy cross-checks and properties."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as Fr

import numpy as np
import pytest

from irscales.ranks import dense_ranks
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.correlation import (
    break_ties_by_order, kendall_counts, kendall_tau, measure_pair_taus, overall_tau, system_means, tau_ap,
    tau_ap_symmetric, topic_by_topic_tau,
)


def fr_array(rows) -> np.ndarray:
    return np.array([[Fr(v) for v in row] for row in rows], dtype=object)


# --------------------------------------------------------------------------- brute-force definitions


def brute_tau(x, y) -> float:
    """τ = (P − Q)/sqrt((P+Q+T)(P+Q+U)), T/U ties in one ranking only, straight from the text."""
    p = q = tx = ty = 0
    for a, b in itertools.combinations(range(len(x)), 2):
        dx, dy = (x[a] > x[b]) - (x[a] < x[b]), (y[a] > y[b]) - (y[a] < y[b])
        if dx and dy:
            p += dx == dy
            q += dx != dy
        elif dx:
            ty += 1
        elif dy:
            tx += 1
    den = math.sqrt((p + q + tx) * (p + q + ty))
    return (p - q) / den if den else math.nan


def brute_tau_ap(ref, other) -> float:
    """Yilmaz et al. (2008): positions from `other`, correctness from `ref` (no ties)."""
    order = sorted(range(len(other)), key=lambda k: -other[k])
    m = len(order)
    total = Fr(0)
    for i in range(1, m):
        c = sum(1 for j in range(i) if ref[order[j]] > ref[order[i]])
        total += Fr(c, i)
    return float(Fr(2, m - 1) * total - 1)


# --------------------------------------------------------------------------- hand-worked τ


def test_tau_one_swap():
    # pairs: 5 concordant, 1 discordant (2 and 3 swapped) -> (5 - 1)/6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_tau_ties_in_each_ranking():
    # x ties systems 0,1 (y does not): T = 1; y ties 1,2 (x does not): U = 1; P = 4, Q = 0
    c = kendall_counts([1, 1, 2, 3], [1, 2, 2, 3])
    assert (int(c.concordant), int(c.discordant), int(c.ties_x), int(c.ties_y), int(c.ties_both)) == (4, 0, 1, 1, 0)
    assert kendall_tau([1, 1, 2, 3], [1, 2, 2, 3]) == pytest.approx(4 / 5)


def test_tau_joint_tie_counts_in_neither_T_nor_U():
    # Systems 0 and 1 tied in both rankings: τ_b = 2/sqrt(2*2) = 1 (counting the joint tie in T and
    # U would give 2/3): the reading FFF21 §3.3 shares with MATLAB corr and scipy.
    assert kendall_tau([1, 1, 2], [5, 5, 6]) == 1.0
    assert int(kendall_counts([1, 1, 2], [5, 5, 6]).ties_both) == 1


def test_tau_all_tied_is_nan():
    assert math.isnan(kendall_tau([3, 3, 3], [1, 2, 3]))


def test_tau_vectorised_rows_match_scipy():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 4, size=(60, 12))
    y = rng.integers(0, 4, size=(60, 12))
    ours = kendall_tau(x, y)
    ref = np.array([st.kendalltau(a, b).statistic for a, b in zip(x, y)])
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-14)
    assert ours.shape == (60,)


def test_tau_leading_axes_and_chunking(monkeypatch):
    import irscales.correlation as corr
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 5, 9))
    y = x + rng.normal(scale=0.5, size=x.shape)
    full = corr.kendall_tau(x, y)
    monkeypatch.setattr(corr, "_BLOCK", 81 * 2)  # force chunks of two rankings
    np.testing.assert_array_equal(corr.kendall_tau(x, y), full)
    assert full.shape == (3, 5)


# --------------------------------------------------------------------------- τ properties


rankings = hs.integers(min_value=2, max_value=9).flatmap(
    lambda s: hs.tuples(hs.lists(hs.integers(-3, 3), min_size=s, max_size=s),
                        hs.lists(hs.integers(-3, 3), min_size=s, max_size=s)))


@settings(max_examples=150, deadline=None)
@given(rankings)
def test_tau_matches_brute_force_and_scipy(xy):
    x, y = xy
    ours = kendall_tau(x, y)
    want = brute_tau(x, y)
    if math.isnan(want):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(want, abs=1e-12)
        assert ours == pytest.approx(st.kendalltau(x, y).statistic, abs=1e-12)
    c = kendall_counts(x, y)
    s = len(x)
    assert int(c.concordant + c.discordant + c.ties_x + c.ties_y + c.ties_both) == s * (s - 1) // 2


@settings(max_examples=100, deadline=None)
@given(hs.integers(1, 6), hs.integers(2, 40), hs.integers(1, 12), hs.integers(0, 2**32 - 1))
def test_sorted_and_pairwise_counts_agree(rows, s, levels, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, size=(rows, s)).astype(float)
    y = rng.integers(0, levels, size=(rows, s))
    a, b = kendall_counts(x, y, method="pairwise"), kendall_counts(x, y, method="sorted")
    for name in ("concordant", "discordant", "ties_x", "ties_y", "ties_both"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_auto_method_uses_sorting_for_many_systems_and_matches_scipy():
    rng = np.random.default_rng(12)
    x = rng.integers(0, 60, size=(3, 300))
    y = x + rng.integers(0, 40, size=(3, 300))
    ref = [st.kendalltau(a, b).statistic for a, b in zip(x, y)]
    np.testing.assert_allclose(kendall_tau(x, y), ref, atol=1e-13)
    with pytest.raises(ValueError, match="method"):
        kendall_counts(x, y, method="fast")


@settings(max_examples=100, deadline=None)
@given(rankings, hs.sampled_from(["cube", "exp", "affine"]))
def test_tau_invariant_under_strictly_increasing_transforms(xy, kind):
    x, y = np.array(xy[0], dtype=float), np.array(xy[1], dtype=float)
    f = {"cube": lambda v: v ** 3, "exp": np.exp, "affine": lambda v: 2.5 * v + 7}[kind]
    a, b = kendall_counts(x, y), kendall_counts(f(x), y)
    for name in ("concordant", "discordant", "ties_x", "ties_y", "ties_both"):
        assert int(getattr(a, name)) == int(getattr(b, name))


@settings(max_examples=60, deadline=None)
@given(hs.permutations(list(range(8))))
def test_tau_self_and_reverse(perm):
    assert kendall_tau(perm, perm) == 1.0
    assert kendall_tau(perm, [-v for v in perm]) == -1.0
    assert kendall_tau(perm, [-v for v in perm]) == kendall_tau([-v for v in perm], perm)


# --------------------------------------------------------------------------- means, overall and topic-by-topic


def test_rank_codes_exact_on_fractions():
    a = np.array([[Fr(1, 3), Fr(2, 6)], [Fr(1, 2), 0]], dtype=object)
    codes = dense_ranks(a)
    assert codes[0, 0] == codes[0, 1]  # 1/3 == 2/6
    assert codes[1, 1] < codes[0, 0] < codes[1, 0]


def test_system_means_exact_and_rounded():
    scores = fr_array([[Fr(1, 3), Fr(1, 10)], [Fr(2, 3), Fr(2, 10)]])
    means = system_means(scores)
    assert list(means) == [Fr(1, 2), Fr(3, 20)]
    assert list(system_means(fr_array([[Fr(1, 3)], [Fr(1, 3)]]), decimals=2)) == [Fr(33, 100)]


def test_float_means_do_not_depend_on_topic_order():
    # (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3) in doubles; summing in sorted order removes the effect.
    assert (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3)
    scores = np.array([[0.1, 0.3, 0.2], [0.2, 0.2, 0.3], [0.3, 0.1, 0.1]])
    m = system_means(scores)
    assert m[0] == m[1] == m[2]


def test_overall_tau_exact_vs_float_vs_rounded():
    # Exact means of systems 0 and 1 are equal (3/20); the float sums 0.1 + 0.2 and 0.3 + 0.0 differ.
    a = fr_array([[Fr(1, 10), Fr(3, 10), Fr(1, 2)], [Fr(2, 10), Fr(0), Fr(1, 2)]])
    b = fr_array([[Fr(1), Fr(0), Fr(1)], [Fr(0), Fr(1), Fr(1)]])   # ties systems 0 and 1 too
    exact = overall_tau(a, b)
    floats = overall_tau(a.astype(float), b.astype(float))
    rounded = overall_tau(a.astype(float), b.astype(float), decimals=8)
    assert exact == 1.0          # both measures: 0 == 1 < 2
    # plain float means break the tie (0.30000000000000004 > 0.3) …
    assert kendall_tau(system_means(a.astype(float)), system_means(b.astype(float))) != exact
    assert floats == exact       # … the exact tie detection of overall_tau keeps it
    assert rounded == exact      # FFF21's 8-decimal rounding restores it too


@pytest.mark.parametrize("seed", range(4))
def test_overall_tau_of_float_p10_matrices_is_the_exact_tau(seed):
    """A random 50 topics × 40 systems P@10 matrix: float τ equals the τ of the exact (Fraction) means,
    where plain float means differ from it (hit counts summed in another order are no longer tied)."""
    from irscales.correlation import exact_tied_means, rational_score
    from irscales.exact import to_fractions

    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 11, (2, 50, 40)) / 10
    exact = overall_tau(to_fractions(x), to_fractions(y))
    assert overall_tau(x, y) == exact
    assert kendall_tau(system_means(x), system_means(y)) != exact  # the case the fix is for
    assert overall_tau(np.stack([x, y]), np.stack([y, x])).tolist() == [exact, exact]  # leading axes too
    m = exact_tied_means(x)
    assert all(isinstance(v, Fr) for v in m if any(v == w for w in m if w is not v))  # ties are exact
    assert rational_score(0.1) == Fr(1, 10) and rational_score(1 / 3) == Fr(1, 3)
    assert rational_score(0.1 + 0.2) == Fr(0.1 + 0.2)  # not 3/10: another double


def test_precision_recall_topic_by_topic_one_overall_not():
    # Run length 10; topic 1 has rb = 2, topic 2 rb = 20; k relevant retrieved per system.
    k = [[2, 1, 0], [0, 3, 6]]
    rb = [2, 20]
    prec = fr_array([[Fr(v, 10) for v in row] for row in k])
    rec = fr_array([[Fr(v, r) for v in row] for row, r in zip(k, rb)])
    np.testing.assert_array_equal(topic_by_topic_tau(prec, rec), [1.0, 1.0])
    # means: P = 1/10, 2/10, 3/10 (increasing); R = 1/2, 13/40, 3/20 (decreasing)
    assert overall_tau(prec, rec) == -1.0


def test_bad_input_messages():
    with pytest.raises(ValueError, match="same shape"):
        kendall_tau([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        kendall_tau([1, np.nan, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="at least 2"):
        kendall_tau([1], [1])
    with pytest.raises(ValueError, match="topics"):
        overall_tau(np.zeros((0, 3)), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="numbers"):
        dense_ranks(np.array(["a", 1], dtype=object))


# --------------------------------------------------------------------------- τ_AP


def test_tau_ap_hand_worked():
    ref = [4, 3, 2, 1]  # system 0 best
    # Swap at the bottom: C = 1/1, 2/2, 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(ref, [4, 3, 1, 2]) == pytest.approx(7 / 9)
    # Swap at the top: C = 0/1, 2/2, 3/3 -> 2/3 * 2 - 1 = 1/3 (a top swap costs more)
    assert tau_ap(ref, [3, 4, 2, 1]) == pytest.approx(1 / 3)
    # Kendall's τ cannot tell the two apart
    assert kendall_tau(ref, [4, 3, 1, 2]) == kendall_tau(ref, [3, 4, 2, 1]) == pytest.approx(2 / 3)


def test_tau_ap_is_asymmetric_and_symmetric_version_averages():
    x, y = [4, 3, 2, 1], [0, 1, 3, 2]
    a, b = tau_ap(x, y), tau_ap(y, x)
    assert a == pytest.approx(-1 / 3) and b == pytest.approx(-7 / 9)
    assert tau_ap_symmetric(x, y) == pytest.approx((a + b) / 2)


@settings(max_examples=150, deadline=None)
@given(hs.integers(2, 9).flatmap(lambda s: hs.tuples(hs.permutations(list(range(s))),
                                                      hs.permutations(list(range(s))))))
def test_tau_ap_matches_brute_force(pair):
    ref, other = pair
    assert tau_ap(ref, other) == pytest.approx(brute_tau_ap(ref, other), abs=1e-12)
    assert -1 - 1e-12 <= tau_ap(ref, other) <= 1 + 1e-12


def test_tau_ap_vectorised_over_many_pairs_and_extremes():
    rng = np.random.default_rng(11)
    h, s = 40, 15
    ref = np.array([rng.permutation(s) for _ in range(h)], dtype=float)
    oth = np.array([rng.permutation(s) for _ in range(h)], dtype=float)
    got = tau_ap(ref, oth)
    assert got.shape == (h,)
    np.testing.assert_allclose(got, [brute_tau_ap(r, o) for r, o in zip(ref, oth)], atol=1e-12)
    assert tau_ap(ref[0], ref[0]) == 1.0
    assert tau_ap(ref[0], -ref[0]) == pytest.approx(-1.0)


def test_tau_ap_exact_fractions_and_ties_raise():
    ref = np.array([Fr(1, 3), Fr(1, 2), Fr(2, 3)], dtype=object)
    assert tau_ap(ref, [0.1, 0.2, 0.3]) == 1.0
    with pytest.raises(ValueError, match="undefined with ties.*other"):
        tau_ap([1, 2, 3], [1, 1, 2])
    with pytest.raises(ValueError, match=r"reference ranking at index \(1,\)"):
        tau_ap([[1, 2, 3], [2, 2, 3]], [[1, 2, 3], [1, 2, 3]])


def test_measure_pair_taus_table4_layout():
    # P and R on the two-topic example above: τ(P, R) = -1; their "ranked versions" here are the
    # per-topic ranks, which agree (τ = 1): Δ = (1 - (-1)) / -1 = -2.
    k = [[2, 1, 0], [0, 3, 6]]
    prec = fr_array([[Fr(v, 10) for v in row] for row in k])
    rec = fr_array([[Fr(v, r) for v in row] for row, r in zip(k, [2, 20])])
    ranked = {"P": np.array(k), "R": np.array(k)}
    table = measure_pair_taus({"P": prec, "R": rec}, ranked)
    assert list(table.columns) == ["measure_a", "measure_b", "tau", "tau_ranked", "delta"]
    row = table.iloc[0]
    assert (row["measure_a"], row["measure_b"], row["tau"], row["tau_ranked"], row["delta"]) == ("P", "R", -1.0, 1.0, -2.0)
    with pytest.raises(ValueError, match="ranked versions"):
        measure_pair_taus({"P": prec, "R": rec}, {"P": prec})


def brute_tau_ap_average(ref, other) -> Fr:
    """Average of τ_AP over every tie-breaking of both rankings (exact, by enumeration)."""
    def orders(scores):
        # every strict order consistent with the scores: permute within tie groups
        groups = [sorted(k for k in range(len(scores)) if scores[k] == v) for v in sorted(set(scores), reverse=True)]
        for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
            yield [k for grp in combo for k in grp]
    # τ_AP = 2/(m − 1) · Σ_i C_i / i − 1, summed over the orders as integers on the denominator L·(m − 1),
    # L = lcm(1..m − 1): the same exact mean as Fractions, a Fraction only at the end
    m = len(ref)
    L = math.lcm(*range(1, m))
    positions = [{k: p for p, k in enumerate(r_order)} for r_order in orders(ref)]
    total, count = 0, 0
    for o_order in orders(other):
        for rpos in positions:
            acc = sum(L // i * sum(1 for j in range(i) if rpos[o_order[j]] < rpos[o_order[i]]) for i in range(1, m))
            total += 2 * acc - L * (m - 1)
            count += 1
    return Fr(total, L * (m - 1) * count)


@settings(max_examples=80, deadline=None)
@given(hs.integers(2, 6).flatmap(lambda s: hs.tuples(hs.lists(hs.integers(0, 2), min_size=s, max_size=s),
                                                      hs.lists(hs.integers(0, 3), min_size=s, max_size=s))))
def test_tau_ap_average_is_the_mean_over_all_tie_breakings(pair):
    ref, other = pair
    assert tau_ap(ref, other, ties="average") == pytest.approx(float(brute_tau_ap_average(ref, other)), abs=1e-12)


def test_tau_ap_average_without_ties_is_plain_and_hand_case():
    rng = np.random.default_rng(5)
    ref = np.array([rng.permutation(12) for _ in range(10)], dtype=float)
    oth = np.array([rng.permutation(12) for _ in range(10)], dtype=float)
    np.testing.assert_allclose(tau_ap(ref, oth, ties="average"), tau_ap(ref, oth), atol=1e-12)
    # other ties systems 1 and 2 below system 0; reference 0 > 1 > 2. Orders of X: (0,1,2) gives
    # τ_AP = 1, (0,2,1) gives C = 1/1 + 1/2 -> 2/2 * 3/2 - 1 = 1/2; average 3/4.
    assert tau_ap([3, 2, 1], [5, 4, 4], ties="average") == pytest.approx(0.75)
    with pytest.raises(ValueError, match="ties must be"):
        tau_ap([1, 2], [2, 1], ties="random")


# --------------------------------------------------------------------------- ties broken by order (Fer17 §4.2.5)


def test_ties_broken_by_order_hand_worked():
    # Systems a, b, c, d. x = a > b > c > d; y ties b and c above a: y = (2, 3, 3, 1).
    x, y = [4, 3, 2, 1], [2, 3, 3, 1]
    # By order of appearance b (earlier) goes above c: y scores become b 3, c 2, a 1, d 0.
    assert break_ties_by_order(y).tolist() == [1, 3, 2, 0]
    # y's order b, c, a, d against x: discordant (a,b), (a,c); Q = 2 of 6 pairs, τ = 1 − 2·2/6 = 1/3.
    assert kendall_tau(x, y, ties="order") == pytest.approx(1 / 3)
    # τ_b on the raw scores: P = 3 (ad, bd, cd), Q = 2, U = 1 (bc tied in y only): 1/sqrt(6·5).
    assert kendall_tau(x, y) == pytest.approx(1 / math.sqrt(30))
    # τ_AP(x ref, y other), y order b, c, a, d: C(2)=1 (b above c in x), C(3)=0, C(4)=3
    # -> 2/3 (1/1 + 0/2 + 3/3) − 1 = 1/3. Breaking the tie c above b instead: C = 0, 0, 3 -> −1/3;
    # the average over both tie-breakings is 0.
    assert tau_ap(x, y, ties="order") == pytest.approx(1 / 3)
    assert tau_ap(x, y, ties="average") == pytest.approx(0.0, abs=1e-12)
    # Tie in the reference: y ref = (2, 3, 3, 1) read as b, c, a, d; other x order a, b, c, d:
    # C(2)=0 (a not above b in ref), C(3)=1 (b above c), C(4)=3 -> 2/3 (0 + 1/2 + 1) − 1 = 0;
    # the other tie-breaking gives C = 0, 0, 3 -> −1/3; average −1/6.
    assert tau_ap(y, x, ties="order") == pytest.approx(0.0, abs=1e-12)
    assert tau_ap(y, x, ties="average") == pytest.approx(-1 / 6)


def test_ties_broken_by_order_vectorised_and_exact():
    rows = np.array([[1.0, 2.0, 2.0, 0.5], [3.0, 3.0, 3.0, 3.0]])
    np.testing.assert_array_equal(break_ties_by_order(rows), [[1, 3, 2, 0], [3, 2, 1, 0]])
    # Fractions: 1/3 and 2/6 are the same value, so a tie broken by order, not by float rounding
    np.testing.assert_array_equal(break_ties_by_order(np.array([Fr(1, 3), Fr(2, 6), Fr(1, 2)], dtype=object)),
                                  [1, 0, 2])
    # without ties every convention agrees
    rng = np.random.default_rng(3)
    a, b = rng.permutation(9).astype(float), rng.permutation(9).astype(float)
    assert kendall_tau(a, b, ties="order") == pytest.approx(kendall_tau(a, b))
    assert tau_ap(a, b, ties="order") == pytest.approx(tau_ap(a, b))
    with pytest.raises(ValueError, match="ties must be"):
        kendall_tau(a, b, ties="average")


@settings(max_examples=60, deadline=None)
@given(hs.integers(2, 6).flatmap(lambda s: hs.tuples(hs.lists(hs.integers(0, 2), min_size=s, max_size=s),
                                                      hs.lists(hs.integers(0, 3), min_size=s, max_size=s))))
def test_order_tie_breaking_is_the_stable_sort_ranking(pair):
    # brute force: rank by a stable descending sort (Python's sorted is stable), then plain τ / τ_AP
    x, y = pair
    s = len(x)

    def stable_scores(v):
        order = sorted(range(s), key=lambda i: -v[i])
        out = [0] * s
        for pos, i in enumerate(order):
            out[i] = s - 1 - pos
        return out

    xs, ys = stable_scores(x), stable_scores(y)
    assert break_ties_by_order(x).tolist() == xs
    q = sum(1 for i, j in itertools.combinations(range(s), 2) if (xs[i] - xs[j]) * (ys[i] - ys[j]) < 0)
    assert kendall_tau(x, y, ties="order") == pytest.approx(1 - 2 * q / (s * (s - 1) / 2))
    assert tau_ap(x, y, ties="order") == pytest.approx(float(brute_tau_ap(xs, ys)))


def test_system_means_of_integers_beyond_two_to_the_53_are_exact():
    # ranked values φ near 2^62 (issue 27): float means would make the three systems tie
    x = np.array([[2**62, 2**62 + 1, 2**62 + 2]] * 3, dtype=np.int64)
    m = system_means(x)
    assert list(m) == [2**62, 2**62 + 1, 2**62 + 2]
    assert kendall_tau(m, np.array([1.0, 2.0, 3.0])) == 1.0
    small = system_means(np.array([[1, 2], [4, 4]]))  # small integers: float means, as before
    assert small.dtype == float and list(small) == [2.5, 3.0]
