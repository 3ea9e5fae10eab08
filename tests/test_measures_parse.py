"""Tests for irscales.measures.parse: keys and reprs read back, trec_eval and ir_measures names,
invalid parameters refused with what is allowed, lists, and Cut (issue 18)."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import measures as M


def test_keys_and_parse_round_trip():
    assert list(M.CLASSIC_MEASURES) == [
        "P", "R", "AP", "RR", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02", "DCG_b10", "nDCG_b02", "nDCG_b10"
    ]
    for m in list(M.CLASSIC_MEASURES.values()) + [M.ERR(max_grade=2), M.GRBP(p=0.5, max_gain=2),
                                                 M.SBTO(c=2), M.P(k=10), M.NDCG(discount="log2p1")]:
        assert M.parse(repr(m)) == m
        assert hash(M.parse(repr(m))) == hash(m)
    for key, m in M.CLASSIC_MEASURES.items():
        assert M.parse(key) == m and str(m) == key


@pytest.mark.parametrize("bad, msg", [
    ("XYZ", "unknown measure"),
    ("RBP(q=0.3)", "no parameter 'q'"),
    ("RBP(0.3)", "expected name=value"),
    ("RBP(p=0.8,p=0.5)", "'p' is given more than once"),  # issue 27: ran as RBP_p05
    ("NDCG(gains='graded', discount='jk', gains='binary')", "'gains' is given more than once"),
])
def test_parse_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        M.parse(bad)


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
