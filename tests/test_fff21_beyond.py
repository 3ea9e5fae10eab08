"""Tests of irscales.papers.fff21.beyond: value curves by counting, graded scales' values, graded Table 2 τ."""

from __future__ import annotations

import numpy as np
import pytest

from irscales.papers.fff21 import beyond as B
from irscales import enumeration as E
from irscales import measures as M
from irscales.data.collection import Collection
from irscales.correlation import kendall_tau


def test_value_curve_positions_are_exact_ranks():
    """At N = 12 every run is enumerable: the sampled runs' φ equal their rank among all distinct exact
    values, and value is monotone in position (no position holds two values)."""
    N = 12
    for name in ("RBP_p08", "DCG_b02", "RR"):
        df = B.value_curve(name, N, 200, seed=1)
        s = E.scale(M.parse(name), N, cache=False, workers=1)
        assert df.method[0] == "counted" and int(df.n_distinct[0]) == s.n_distinct
        assert df.position.iloc[0] == 0.0 and df.position.iloc[-1] == 1.0  # the empty and the full run
        assert (np.diff(df.value) >= 0).all()
        assert ((np.diff(df.value) > 0) == (np.diff(df.position) > 0)).all()
    df = B.value_curve(M.GRBP(p=0.8, max_gain=2), 7, 50, seed=2, c=2)
    all_vals = sorted(set(M.GRBP(p=0.8, max_gain=2).exact(E.runs_from_ids(np.arange(3**7), 7, 2)).tolist()))
    assert int(df.n_distinct[0]) == len(all_vals) == 3**7
    # position → exact value → float value, run by run
    for pos, v in zip(df.position, df.value):
        assert float(all_vals[round(pos * (len(all_vals) - 1))]) == pytest.approx(v, rel=1e-12)


def test_graded_values_are_the_brute_force_values():
    m = M.GRBP(p=0.5, max_gain=2)
    df = B.graded_values(m, 5, 2, cache=False, workers=1)
    vals, cnt = E.brute_force_scale(m, 5, c=2)
    assert df["count"].tolist() == cnt and np.allclose(df.value, [float(v) for v in vals], rtol=0, atol=1e-15)
    assert len(df) < 3**5  # p = 1/2 ties over three grades


def _tiny_graded_collection() -> Collection:
    """3 systems × 2 topics × 3 ranks, grades 0..2, built by hand."""
    rel = np.array([[[2, 0, 1], [0, 1, 0]],
                    [[0, 2, 1], [1, 0, 0]],
                    [[1, 1, 1], [0, 0, 2]]], dtype=np.int8)
    judgments = np.array([[5, 2, 1], [5, 2, 1]])
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((3, 2), 3), topics=("t1", "t2"),
                      systems=("a", "b", "c"), provenance="test: hand-made", max_grade=2)


def test_graded_ranked_taus_by_hand():
    coll = _tiny_graded_collection()
    m = M.GRBP(p=0.8, max_gain=2)
    out = B.graded_ranked_taus(coll, 3, {"gRBP_p08": m})
    rel = E.runs_from_ids(np.arange(27), 3, 2)
    vals = sorted(m.exact(rel).tolist())
    phi = np.array([[vals.index(m.exact(coll.rel[s, t][None])[0]) + 1 for t in range(2)] for s in range(3)])
    orig = np.array([[float(m.exact(coll.rel[s, t][None])[0]) for t in range(2)] for s in range(3)])
    assert out.loc["gRBP_p08", "tau"] == pytest.approx(float(kendall_tau(orig.mean(1), phi.mean(1))))
    assert out.loc["gRBP_p08", "phi"] == "counted" and out.loc["gRBP_p08", "distinct"] == 27
    n = M.NDCG(base=2, gains="graded")
    nd = B.graded_ranked_taus(coll, 3, {"gnDCG_b02": n}, cache=False, workers=1)
    # by hand: nDCG = DCG / DCG(ideal (2, 1, 1)); φ = rank of DCG among the values of all 27 runs
    w = [1.0, 1.0, 1 / np.log2(3)]
    dcg = lambda r: sum(g * x for g, x in zip(r, w))  # noqa: E731
    all_dcg = sorted({round(dcg(r), 12) for r in rel.tolist()})
    phi = np.array([[all_dcg.index(round(dcg(coll.rel[s, t].tolist()), 12)) + 1 for t in range(2)] for s in range(3)])
    orig = np.array([[dcg(coll.rel[s, t].tolist()) / dcg([2, 1, 1]) for t in range(2)] for s in range(3)])
    assert nd.loc["gnDCG_b02", "phi"] == "counted" and nd.loc["gnDCG_b02", "distinct"] == len(all_dcg)
    assert nd.loc["gnDCG_b02", "tau"] == pytest.approx(float(kendall_tau(orig.mean(1), phi.mean(1))))


def test_gp_tau_is_one_because_its_means_are_exact():
    """gP's ranked version is affine in gP (φ = Σ grades + 1), so τ_b must be exactly 1; float64 means
    over many topics break exact ties (0.99965 on the Cranfield grid before exact means)."""
    rng = np.random.default_rng(3)
    S, T, N = 60, 225, 10
    rel = np.zeros((S, T, N), np.int8)
    base = rng.integers(0, 5, size=(T, N))
    for s in range(S):  # every system holds the same grades per topic set, shuffled across topics
        rel[s] = base[rng.permutation(T)] if s % 2 else rng.integers(0, 5, size=(T, N))
    coll = Collection(rel=rel, judgments=np.tile([100, 5, 5, 5, 5], (T, 1)), run_lengths=np.full((S, T), N),
                      topics=tuple(f"t{i}" for i in range(T)), systems=tuple(f"s{i}" for i in range(S)),
                      provenance="test: random grades", max_grade=4)
    out = B.graded_ranked_taus(coll, N, {"gP": M.GP(max_gain=4)}, cache=False, workers=1)
    assert out.loc["gP", "tau"] == 1.0


def test_counted_curves_and_the_limits_table():
    curves, limits = B.counted_curves((12, 40), names=("RR", "DCG_b02"), n_runs=30, seed=1)
    assert list(curves) == ["RR, N = 12", "DCG_b02, N = 12", "RR, N = 40", "DCG_b02, N = 40"]
    assert len(curves["DCG_b02, N = 12"]) <= 30 + 2  # n_runs, plus the empty and full run
    by = limits.set_index(["measure", "N"])
    assert by.loc[("RR", 12), "distinct values"] == 13  # 0 and 1/1 … 1/12
    assert by.loc[("DCG_b02", 12), "distinct values"] == 3 * 2**10  # ranks 1 and 2 share weight 1
    assert limits["counted"].all() and (limits["why not"] == "").all()


def test_counted_curves_dcg_sample_sizes():
    """DCG draws n_runs like every measure (its count is no longer the slow one), plus the empty and the
    full run, also beyond N = 40."""
    curves, _ = B.counted_curves((30, 41), names=("DCG_b02",), n_runs=40, seed=1)
    assert len(curves["DCG_b02, N = 30"]) == 40 + 2
    assert len(curves["DCG_b02, N = 41"]) == 40 + 2


def test_graded_summary_by_hand():
    c, N = 2, 3
    ms = {"gRBP_p05": M.GRBP(p=0.5, max_gain=c), "gP": M.GP(max_gain=c)}
    values = {k: B.graded_values(m, N, c, cache=False, workers=1) for k, m in ms.items()}
    s = B.graded_summary(values, ms, N, c).set_index("measure")
    assert s.loc["gP", "runs"] == 27 and s.loc["gP", "distinct values"] == 7  # grade sums 0..6
    assert s.loc["gP", "tie example (length 2)"] == ""
    assert s.loc["gRBP_p05", "tie example (length 2)"] != "None"  # p = 1/2 ties over three grades


def test_gndcg_means_are_exact():
    """Systems that hold the same graded runs, permuted across topics with one ideal run, have exactly
    equal nDCG means; float64 sums in different orders split such ties (seen below), the exact
    means (integer vectors over the logarithms) do not, so τ_b between the two groups is exactly 1."""
    rng = np.random.default_rng(11)
    S, T, N = 8, 12, 6
    groups = [rng.integers(0, 3, size=(T, N)), rng.integers(0, 3, size=(T, N))]
    rel = np.stack([groups[s % 2][rng.permutation(T)] for s in range(S)]).astype(np.int8)
    coll = Collection(rel=rel, judgments=np.tile([50, 4, 3], (T, 1)), run_lengths=np.full((S, T), N),
                      topics=tuple(f"t{i}" for i in range(T)), systems=tuple(f"s{i}" for i in range(S)),
                      provenance="test: permuted graded runs", max_grade=2)
    m = M.NDCG(base=2, gains="graded")
    floats = np.asarray(coll.evaluate(m, depth=N), dtype=float).mean(axis=0)
    assert len(np.unique(floats)) > 2  # float means split the exact ties
    out = B.graded_ranked_taus(coll, N, {"gnDCG_b02": m}, cache=False, workers=1)
    assert abs(out.loc["gnDCG_b02", "tau"]) == 1.0
