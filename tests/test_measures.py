"""Tests for irscales.measures: hand-worked cases from the papers, exact vs float, and
cross-checks against trec_eval (pytrec_eval) and ir_measures on runs generated in code."""

from __future__ import annotations

import itertools
import math
import re
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


def test_keys_and_parse_round_trip():
    assert list(M.FFF21_MEASURES) == [
        "P", "R", "AP", "RR", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02", "DCG_b10", "nDCG_b02", "nDCG_b10"
    ]
    for m in list(M.FFF21_MEASURES.values()) + [M.ERR(max_grade=2), M.GRBP(p=0.5, max_gain=2),
                                                 M.SBTO(c=2), M.P(k=10), M.NDCG(discount="log2p1")]:
        assert M.parse(repr(m)) == m
        assert hash(M.parse(repr(m))) == hash(m)
    for key, m in M.FFF21_MEASURES.items():
        assert M.parse(key) == m and str(m) == key


@pytest.mark.parametrize("bad, msg", [
    ("XYZ", "unknown measure"),
    ("RBP(q=0.3)", "no parameter 'q'"),
    ("RBP(0.3)", "expected name=value"),
])
def test_parse_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        M.parse(bad)


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
    for m in M.FFF21_MEASURES.values():
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


# ------------------------------------------------- parameters, names and parsing (issue 18)


@pytest.mark.parametrize("text, allowed", [
    ("P@0", "k >= 1"), ("P_0", "k >= 1"), ("AP@0", "k >= 1"), ("Succ@0", "k >= 1"), ("P(k=-3)", "k >= 1"),
    ("DCG_b00", "b > 1"), ("DCG(base=-2)", "b > 1"), ("DCG_b01", "b > 1"), ("nDCG_b1", "b > 1"),
    ("DCG(base='x')", "b > 1"), ("NDCG(discount='log3')", "'jk' or 'log2p1'"),
    ("NDCG(base=10, discount='log2p1')", "leave base=2"),
    ("RBP(p=1)", "0 < p < 1"), ("RBP(p=0)", "0 < p < 1"), ("RBP_p00", "0 < p < 1"), ("gRBP(p=2)", "0 < p < 1"),
    ("ERR(max_grade=0)", "max_grade >= 1"), ("GP(max_gain=0)", "max_gain > 0"), ("SBTO(c=0)", "c >= 1"),
    ("RBP(rel=2, p=0.8)", "rel=1"), ("AP(k=3)", "no parameter 'k'"), ("AP@x", "integer"),
    ("NDCG(discount='log2p1', gains='graded'", "unclosed"), ("FOO", "unknown measure 'FOO'"),
])
def test_invalid_parameters_are_refused_when_parsed(text, allowed):
    """Invalid parameters fail at construction with what is allowed (P@0 gave NaN, DCG_b00 a
    'math domain error', DCG_b01 a NotImplementedError deep in the engine)."""
    with pytest.raises(ValueError, match=re.escape(allowed)) as e:
        M.parse(text)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("text, expected", [
    ("map", M.AP()), ("map_cut_10", M.Cut(M.AP(), 10)), ("AP@10", M.Cut(M.AP(), 10)),
    ("P_10", M.P(k=10)), ("P@10", M.P(k=10)), ("recall_10", M.Cut(M.R(), 10)), ("R@10", M.Cut(M.R(), 10)),
    ("recip_rank", M.RR()), ("RR", M.RR()), ("RR@5", M.Cut(M.RR(), 5)), ("Rprec", M.RPrec()),
    ("success_5", M.Succ(k=5)), ("Success@5", M.Succ(k=5)),
    ("ndcg", M.NDCG(discount="log2p1", gains="graded")), ("nDCG", M.NDCG(discount="log2p1", gains="graded")),
    ("ndcg_cut_10", M.Cut(M.NDCG(discount="log2p1", gains="graded"), 10)),
    ("nDCG@10", M.Cut(M.NDCG(discount="log2p1", gains="graded"), 10)),
    ("nDCG_b02", M.NDCG(base=2)), ("gnDCG_log2p1", M.NDCG(discount="log2p1", gains="graded")),
    ("RBP(rel=1,p=0.8)", M.RBP(p=0.8)), ("RBP(rel=1)", M.RBP(p=0.8)), ("ERR", M.ERR()), ("ERR()", M.ERR()),
    ("NDCG(discount='log2p1', gains='graded')", M.NDCG(discount="log2p1", gains="graded")),
])
def test_trec_eval_and_ir_measures_names(text, expected):
    m = M.parse(text)
    assert m == expected
    assert M.parse(repr(m)) == m and M.parse(m.key) == m


def test_lists_split_only_at_top_level_commas():
    text = "AP, NDCG(discount='log2p1', gains='graded'),RBP(rel=1, p=0.5) ,map_cut_10"
    assert M.split_top_level(text)[1] == "NDCG(discount='log2p1', gains='graded')"
    assert M.parse_list(text) == [M.AP(), M.NDCG(discount="log2p1", gains="graded"), M.RBP(p=0.5),
                                  M.Cut(M.AP(), 10)]
    assert M.split_top_level("ERR(max_grade=2),X('a,b')") == ["ERR(max_grade=2)", "X('a,b')"]
    with pytest.raises(ValueError, match="no measure"):
        M.parse_list(" , ")


def test_cut_pads_short_runs_and_keeps_the_topic():
    """AP@k divides by the full recall base; a run shorter than k counts as padded (map_cut_k)."""
    rel = np.array([[1, 0, 1], [0, 1, 0]])
    cut = M.Cut(M.AP(), 5)
    assert np.array_equal(cut.exact(rel, rb=4), M.AP().exact(np.pad(rel, ((0, 0), (0, 2))), rb=4))
    assert M.Cut(M.AP(), 2).exact(rel, rb=4).tolist() == [Fraction(1, 4), Fraction(1, 8)]
    assert cut.needs_rb and cut.rational and cut.binary and cut.key == "AP@5"
    with pytest.raises(ValueError, match="carry their own cut-off"):
        M.Cut(M.P(), 3)


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


_MEASURE_STRATEGY = st.one_of(
    st.builds(M.RBP, p=st.sampled_from([0.3, 0.5, 0.8, 0.95])),
    st.builds(M.DCG, base=st.integers(2, 12), gains=st.sampled_from(["binary", "graded"])),
    st.builds(M.NDCG, base=st.integers(2, 12), gains=st.sampled_from(["binary", "graded"])),
    st.builds(M.NDCG, discount=st.just("log2p1"), gains=st.sampled_from(["binary", "graded"])),
    st.builds(M.P, k=st.one_of(st.none(), st.integers(1, 100))),
    st.builds(M.ERR, max_grade=st.integers(1, 4)),
    st.builds(M.Cut, st.sampled_from([M.AP(), M.RR(), M.R(), M.NDCG(discount="log2p1", gains="graded")]),
              st.integers(1, 1000)),
    st.sampled_from([M.AP(), M.RR(), M.F1(), M.RPrec(), M.SP(), M.R()]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_MEASURE_STRATEGY, min_size=1, max_size=5), st.sampled_from([",", ", ", " ,"]))
def test_parse_list_reads_back_any_list_of_reprs_and_keys(ms, sep):
    assert M.parse_list(sep.join(repr(m) for m in ms)) == ms
    named = [m for m in ms if not isinstance(m, M.ERR)]  # the paper name ERR does not carry max_grade
    if named:
        assert M.parse_list(sep.join(m.key for m in named)) == named
