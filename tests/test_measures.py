"""Tests for irscales.measures: hand-worked cases from the papers, exact vs float, and
cross-checks against trec_eval (pytrec_eval) and ir_measures on runs generated in code (names,
cut-offs and parsing: test_measures_parse.py)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import measures as M

ALL16 = np.array(list(itertools.product([0, 1], repeat=4)))


# ------------------------------------------------------------------ hand-worked, from the papers


def test_fff21_table1_ap_values():
    """FFF21 Table 1 (p. 9): AP of four systems on two topics with RB = 4 (N = 4).

    Printed: A 0.5625, B 0.5575, C 0.1665, D 0.1770. With RB = 4, A is exact; D = 0.177083… is
    printed truncated; C = 1/6 agrees to three decimals only; B is exactly 53/96 = 0.55208…, so the
    printed 0.5575 is a typo in the paper (no RB reproduces it together with A).
    """
    runs = {
        "A": [(1, 1, 1, 0), (1, 0, 0, 1)],
        "B": [(1, 1, 0, 1), (1, 0, 1, 0)],
        "C": [(0, 0, 1, 0), (0, 1, 0, 1)],
        "D": [(0, 0, 0, 1), (0, 1, 1, 0)],
    }
    ap = {s: sum(M.AP().exact(np.array(r), rb=4)) / 2 for s, r in runs.items()}
    assert ap["A"] == Fraction(9, 16)  # 0.5625
    assert ap["B"] == Fraction(53, 96)
    assert ap["C"] == Fraction(1, 6)  # printed 0.1665 (truncated)
    assert ap["D"] == Fraction(17, 96)  # printed 0.1770 (truncated)
    assert ap["A"] > ap["B"] and ap["C"] < ap["D"]  # the reversal Example 10 is about


def test_fff21_example12_dcg_values():
    """FFF21 Example 12 (p. 12): DCG log2 values of runs of length 4."""
    dcg = M.DCG(base=2)
    vals = dcg(np.array([[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 1]]))
    assert np.round(vals, 3).tolist() == [3.131, 2.631, 2.5, 2.131, 2.131, 0.5]
    assert len(np.unique(np.round(dcg(ALL16), 12))) == 12  # "16 runs and 12 possible values"


def test_fff21_example9_mrr():
    rr = M.RR()
    a = rr.exact(np.array([[1, 0, 0, 0], [0, 0, 0, 1]]))
    b = rr.exact(np.array([[0, 1, 0, 0], [0, 1, 0, 0]]))
    assert sum(a) / 2 == Fraction(5, 8) and sum(b) / 2 == Fraction(1, 2)


def test_ffp19_section5_counterexample_values():
    """FFP19 §5: r = (a1,a0,a2,a0,a1), s = (a1,a1,a0,a0,a0), c = 2, gain = δ."""
    r, s = np.array([1, 0, 2, 0, 1]), np.array([1, 1, 0, 0, 0])
    dcg = M.DCG(base=2, gains="graded")
    assert dcg(r) == pytest.approx(1 + 2 / math.log2(3) + 1 / math.log2(5), abs=1e-14)
    assert dcg(s) == pytest.approx(2.0, abs=1e-14)
    err = M.ERR(max_grade=2)
    assert err.exact(r) == Fraction(1, 4) + Fraction(3, 16) + Fraction(3, 320)
    assert err.exact(s) == Fraction(1, 4) + Fraction(3, 32)
    assert err(r) == pytest.approx(float(err.exact(r)), abs=1e-15)
    p = Fraction(1, 2)
    g = M.GRBP(p=0.5, max_gain=2)
    assert 2 * g.exact(r) == (1 - p) * (1 + 2 * p**2 + p**4)
    assert 2 * g.exact(s) == (1 - p) * (1 + p)


def test_rbp_p05_is_binary_number():
    """RBP p=1/2 at N: 2^N·RBP is the run read as a binary number (FFF21 Example 12)."""
    vals = M.RBP(p=0.5).exact(ALL16)
    codes = [int("".join(map(str, r)), 2) for r in ALL16]
    assert [v * 2**4 for v in vals] == codes


def test_sbto_rbto_small_cases():
    # SBTO, c = 2, N = 2: multisets {00,10,11,20,21,22} are ranks 0..5 (FFP19 eq. 3)
    runs = np.array([[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]])
    assert M.SBTO(c=2).exact(runs).tolist() == list(map(Fraction, range(6)))
    assert M.SBTO(c=2)(runs).tolist() == list(range(6))
    # binary SBTO is the number of relevant documents
    assert M.SBTO(c=1)(ALL16).tolist() == ALL16.sum(1).tolist()
    # RBTO reads the run as a base-(c+1) number
    assert M.RBTO(c=2)(np.array([2, 0, 1])) == 2 * 9 + 1
    # permutation invariance of SBTO
    assert M.SBTO(c=2)(np.array([0, 2, 1])) == M.SBTO(c=2)(np.array([2, 1, 0]))


def test_precision_recall_f1_formulas():
    r = np.array([[1, 0, 1, 0, 0], [0, 0, 0, 0, 0]])
    assert M.P()(r).tolist() == [0.4, 0.0]
    assert M.R()(r, rb=4).tolist() == [0.5, 0.0]
    assert M.F1().exact(r, rb=4).tolist() == [Fraction(4, 9), Fraction(0)]
    assert M.P(k=2)(r).tolist() == [0.5, 0.0]
    assert M.Succ(k=2)(r).tolist() == [1.0, 0.0]
    assert M.RPrec()(r, rb=3).tolist() == [pytest.approx(2 / 3), 0.0]
    assert M.R()(r, rb=0).tolist() == [0.0, 0.0]  # empty recall base: 0, not NaN


def test_ndcg_binary_and_graded_ideal():
    r = np.array([0, 1, 0, 1])
    w = M.dcg_discount(4, 2)
    assert M.NDCG(base=2)(r, rb=2) == pytest.approx((w[1] + w[3]) / (w[0] + w[1]))
    g = np.array([0, 2, 0, 1])
    nd = M.NDCG(discount="log2p1", gains="graded")(g, ideal=[1, 2, 2])
    d = 1 / np.log2(np.arange(2, 6))
    assert nd == pytest.approx((2 * d[1] + d[3]) / (2 * d[0] + 2 * d[1] + d[2]))
    assert M.NDCG()(np.zeros(4), rb=0) == 0.0


def test_dcg_b10_counts_relevant_up_to_rank_10():
    rel = np.array(list(itertools.product([0, 1], repeat=10)))
    assert np.array_equal(M.DCG(base=10)(rel), rel.sum(1).astype(float))


def test_errors_are_clear():
    with pytest.raises(ValueError, match="0 < p < 1"):
        M.RBP(p=1.2)
    with pytest.raises(ValueError, match="recall base"):
        M.AP()(np.array([1, 0]))
    with pytest.raises(ValueError, match="does not broadcast"):
        M.R()(np.zeros((3, 4)), rb=[1, 2])
    with pytest.raises(M.NotRationalError):
        M.DCG().exact(np.array([1, 0]))
    with pytest.raises(ValueError, match="scalar"):
        M.P()(1)


# ----------------------------------------------------------------- exact agrees with float paths

RATIONAL = [M.P(), M.R(), M.F1(), M.AP(), M.SP(), M.RR(), M.RBP(p=0.3), M.RBP(p=0.5), M.RBP(p=0.8),
            M.Succ(), M.RPrec()]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=12), st.integers(1, 15))
def test_exact_matches_float(run, rb):
    rel = np.array(run)
    for m in RATIONAL:
        assert float(m.exact(rel, rb=rb)) == pytest.approx(float(m(rel, rb=rb)), rel=1e-12, abs=1e-15), m


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=8))
def test_graded_exact_matches_float(run):
    rel = np.array(run)
    for m in [M.ERR(max_grade=2), M.GRBP(p=0.8, max_gain=2), M.SBTO(c=2), M.RBTO(c=2), M.GP(max_gain=2),
              M.GR()]:
        assert float(m.exact(rel, rb=5)) == pytest.approx(float(m(rel, rb=5)), rel=1e-12, abs=1e-15), m


def test_vectorised_shapes():
    rng = np.random.default_rng(0)
    rel = rng.integers(0, 2, size=(3, 5, 10))
    rb = rng.integers(1, 20, size=(1, 5))
    for m in M.CLASSIC_MEASURES.values():
        out = m(rel, rb=rb)
        assert out.shape == (3, 5)
        flat = np.array([m(rel[i, j], rb=rb[0, j]) for i in range(3) for j in range(5)]).reshape(3, 5)
        assert np.allclose(out, flat, rtol=0, atol=1e-15)


# ------------------------------------------------------------- cross-checks with reference code


def _random_topic(rng, n_docs=40, depth=15, graded=False):
    labels = rng.integers(0, 3 if graded else 2, size=n_docs) * (rng.random(n_docs) < 0.5)
    judged = rng.random(n_docs) < 0.8
    qrels = {f"d{i}": int(labels[i]) for i in range(n_docs) if judged[i]}
    retrieved = rng.permutation(n_docs)[:depth]
    scores = np.sort(rng.random(depth))[::-1] + np.arange(depth)[::-1]  # strictly decreasing
    run = {f"d{d}": float(s) for d, s in zip(retrieved, scores)}
    rel = np.array([qrels.get(f"d{d}", 0) for d in retrieved])
    return qrels, run, rel


@pytest.mark.parametrize("graded", [False, True])
def test_against_pytrec_eval(graded):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7 + graded)
    qrels, runs, rels = {}, {}, {}
    for t in range(30):
        q, r, rel = _random_topic(rng, graded=graded)
        qrels[str(t)], runs[str(t)], rels[str(t)] = q, r, rel
    for k in (5, 10, 15):
        ev = pytrec_eval.RelevanceEvaluator(qrels, {f"P.{k}", f"map_cut.{k}", f"ndcg_cut.{k}", f"recall.{k}"})
        res = ev.evaluate(runs)
        for t, rel in rels.items():
            rb = sum(1 for v in qrels[t].values() if v > 0)
            ideal = sorted((v for v in qrels[t].values() if v > 0), reverse=True)
            cut = rel[:k]
            assert M.P(k=k)(cut) == pytest.approx(res[t][f"P_{k}"], abs=1e-12)
            assert M.AP()(cut, rb=rb) == pytest.approx(res[t][f"map_cut_{k}"], abs=1e-12)
            assert M.R()(cut, rb=rb) == pytest.approx(res[t][f"recall_{k}"], abs=1e-12)
            nd = M.NDCG(discount="log2p1", gains="graded")(cut, ideal=ideal if ideal else [0])
            assert nd == pytest.approx(res[t][f"ndcg_cut_{k}"], abs=1e-12)
        # RR at cut-off k: trec_eval's recip_rank on the run truncated to its top k
        trunc = {t: dict(sorted(r.items(), key=lambda kv: -kv[1])[:k]) for t, r in runs.items()}
        rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(trunc)
        for t, rel in rels.items():
            assert M.RR()(rel[:k]) == pytest.approx(rr[t]["recip_rank"], abs=1e-12)


def test_rbp_against_ir_measures():
    irm = pytest.importorskip("ir_measures")
    try:
        import cwl  # noqa: F401  (ir_measures' RBP provider)
    except ImportError:
        pytest.skip("cwl-eval not installed: ir_measures has no RBP provider")
    rng = np.random.default_rng(3)
    qrels, runs, rels = [], [], {}
    for t in range(20):
        q, r, rel = _random_topic(rng, depth=25)
        qrels += [irm.Qrel(str(t), d, v) for d, v in q.items()]
        runs += [irm.ScoredDoc(str(t), d, s) for d, s in r.items()]
        rels[str(t)] = rel
    for p in (0.3, 0.5, 0.8):
        for res in irm.iter_calc([irm.RBP(p=p, rel=1)], qrels, runs):
            assert M.RBP(p=p)(rels[res.query_id]) == pytest.approx(res.value, abs=1e-12)


# ------------------------------------------------- float values tie exactly when exact values do


def _all_runs(n):
    return np.array(list(itertools.product([0, 1], repeat=n)))


@pytest.mark.parametrize("n", [6, 10, 12])
def test_float_ties_follow_exact_ties_for_rational_measures(n):
    """Equal exact values give bit-identical floats, distinct ones distinct floats (all 2^n runs)."""
    runs = _all_runs(n)
    for m in [M.SP(), M.AP(), M.RR(), M.P(), M.RBP(p=0.5), M.RBP(p=0.8), M.RBP(p=0.3)]:
        fl = m(runs, rb=7)
        ex = m.exact(runs, rb=7)
        groups = {}
        for f, e in zip(fl.tolist(), ex.tolist()):
            groups.setdefault(e, set()).add(f)
        assert all(len(v) == 1 for v in groups.values()), m  # never split equal values
        assert len(set(fl.tolist())) == len(groups), m  # never merge distinct ones


def test_dcg_float_ties_are_the_swap_plateau():
    """DCG_b02: ranks 1 and 2 both weigh 1; the runs differing by that swap must be bit-identical
    (a BLAS product gets ~60 of 512 such pairs 1 ulp apart at N = 10), giving 3·2^(N−2) values."""
    for n in (5, 10, 12):
        runs = _all_runs(n)
        vals = M.DCG(base=2)(runs)
        swapped = runs.copy()
        swapped[:, [0, 1]] = swapped[:, [1, 0]]
        assert np.array_equal(vals, M.DCG(base=2)(swapped))
        assert len(np.unique(vals)) == 3 * 2 ** (n - 2)
    runs = _all_runs(12)
    assert len(np.unique(M.DCG(base=10)(runs))) == 11 * 2**2  # ranks 1..10 weigh 1: count + ranks 11, 12


# ---------------------------------------------------------------- parameters (issue 18)


def test_gp_and_grbp_refuse_gains_above_max_gain():
    for m in (M.GP(), M.GRBP(p=0.5)):
        with pytest.raises(ValueError, match="max_gain=2"):
            m(np.array([0, 2, 1]))
        with pytest.raises(ValueError, match="max_gain=2"):
            m.exact(np.array([0, 2, 1]))


def test_err_refuses_grades_above_max_grade():
    """ERR(max_grade=1) on grade 3 would give R_i = 7/2 > 1: a silent wrong number."""
    with pytest.raises(ValueError, match=r"ERR\(max_grade=3\)"):
        M.ERR()(np.array([0, 3, 1]))
    assert M.ERR(max_grade=3)(np.array([0, 3, 1])) == pytest.approx(float(M.ERR(max_grade=3).exact([0, 3, 1])))


def test_whole_run_names_against_pytrec_eval():
    """map, recip_rank, Rprec and ndcg over whole (uncut) runs, and P_k, map_cut_k, ndcg_cut_k,
    recall_k, success_k through their parsed names, equal trec_eval's."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(18)
    qrels, runs, rels = {}, {}, {}
    for t in range(25):
        q, r, rel = _random_topic(rng, graded=True, depth=int(rng.integers(5, 40)))
        qrels[str(t)], runs[str(t)], rels[str(t)] = q, r, rel
    names = {"map": "map", "recip_rank": "recip_rank", "Rprec": "Rprec", "ndcg": "ndcg",
             "P_10": "P_10", "map_cut_10": "map_cut_10", "ndcg_cut_10": "ndcg_cut_10", "recall_10": "recall_10",
             "success_5": "success_5", "nDCG@10": "ndcg_cut_10", "AP@10": "map_cut_10", "R@10": "recall_10"}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "Rprec", "ndcg", "P.10", "map_cut.10",
                                                 "ndcg_cut.10", "recall.10", "success.5"}).evaluate(runs)
    for t, rel in rels.items():
        rb = sum(1 for v in qrels[t].values() if v > 0)
        ideal = sorted(qrels[t].values(), reverse=True) or [0]
        whole = np.pad(rel, (0, max(0, rb - len(rel))))  # trec_eval's ideal ndcg run holds all rb documents
        for name, key in names.items():
            got = M.parse(name)(whole[None], rb=rb, ideal=ideal)[0]
            assert got == pytest.approx(res[t][key], abs=1e-12), (name, t)


# ------------------------------------------------------------------ sums in rank order without a loop (issue 49)


def _loop(terms: np.ndarray) -> np.ndarray:
    """The reference: out = 0.0; out += terms[..., i] for each rank i in turn (trec_eval's accumulation)."""
    out = np.zeros(terms.shape[:-1])
    for i in range(terms.shape[-1]):
        out += terms[..., i]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_sums_in_rank_order_are_the_loops_to_the_last_bit(seed):
    from irscales.measures.base import in_rank_order, seq_div, seq_dot

    rng = np.random.default_rng(seed)
    shape = (3, 7, int(rng.integers(0, 60)))
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-300, 300, shape)  # magnitudes far apart: order matters
    x[rng.random(shape) < 0.5] = 0.0
    x[rng.random(shape) < 0.1] = -0.0
    d = rng.random(shape[-1]) * 100 + 0.5
    for got, want in ((in_rank_order(x), _loop(x)), (seq_div(x, d), _loop(x / d)), (seq_dot(x, d), _loop(x * d))):
        assert got.shape == want.shape and np.array_equal(got.view(np.int64), want.view(np.int64))
    only_negative_zeros = np.full((2, 5), -0.0)
    assert np.array_equal(in_rank_order(only_negative_zeros).view(np.int64), np.zeros(2).view(np.int64))


@pytest.mark.parametrize("N", [41, 100, 1000])
def test_sp_beyond_the_exact_numerator_is_trec_evals_sum_to_the_last_bit(N):
    """Beyond N = 40, SP is trec_eval's rank-by-rank sum of rel_so_far / rank over the relevant ranks."""
    from irscales.measures.binary import SP

    rng = np.random.default_rng(N)
    rel = (rng.random((4, 9, N)) < rng.random((4, 9, 1))).astype(np.int8)
    b = (rel > 0).astype(np.int64)
    want = _loop(b * np.cumsum(b, axis=-1) / np.arange(1, N + 1, dtype=float))
    assert np.array_equal(SP()(rel).view(np.int64), want.view(np.int64))
