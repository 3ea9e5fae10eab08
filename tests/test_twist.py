"""Tests of irscales.measures.twist (Twist as MATTERS computes it): hand-computed runs, the float
path against the exact rank-by-rank loop on realistic runs, edge cases, the Collection route, and
the closed form the authors' published grid holds (checked on the grid in test_fer17_real_gop.py)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.data import Collection
from irscales.measures import Twist, parse
from irscales.measures.twist import relative_positions

IDEAL = np.array([1, 1, 0, 0, 0])  # RB = 2, five ranks


def test_relative_positions_by_hand():
    # grade 1 occupies ranks 1-2 of the ideal run, grade 0 ranks 3-5
    assert relative_positions(np.array([0, 1, 0, 1, 0]), IDEAL).tolist() == [-2, 0, 0, 2, 0]
    assert relative_positions(IDEAL[::-1], IDEAL).tolist() == [-2, -1, 0, 2, 3]


@pytest.mark.parametrize("run, want", [
    # CRP -2,-2,-2,0,0 never > 0: ρ = 0; f = 1 - 2/5, b = 1 - 2/3, σ = 3/7; τ = 3/14
    ([0, 1, 0, 1, 0], Fraction(3, 14)),
    # CRP 0,-1,-1,-1,2 changes sign after rank 4: ρ = 2/4; f = 2/5, b = 2/3, σ = 1/2; τ = 1/2
    ([1, 0, 0, 0, 1], Fraction(1, 2)),
    ([1, 1, 0, 0, 0], Fraction(1)),  # the ideal run: ρ = 1, f = b = 1
    ([0, 0, 0, 0, 0], Fraction(0)),  # no relevant document retrieved
    ([0, 0, 0, 1, 1], None),  # the full-scale run itself: f = b = 0, σ = 0/0 is NaN (as in MATLAB)
])
def test_hand_computed_runs(run, want):
    run = np.array([run])
    exact = Twist().exact(run, rb=2, ideal=IDEAL)[0]
    got = Twist()(run, rb=2, ideal=IDEAL)[0]
    if want is None:
        assert isinstance(exact, float) and math.isnan(exact) and math.isnan(got)
    else:
        assert exact == want and got == pytest.approx(float(want), abs=1e-15)


def test_one_relevant_document_at_rank_one_scores_two_over_rb_plus_three():
    # ρ = 0, f = 1, b = 2/(RB + 1): τ = 2/(RB + 3) at depth 1,000 for 2 <= RB < 500 (RB = 1: the ideal run)
    for rb in (2, 6, 22, 80, 347):
        run = np.zeros((1, 1000), int)
        run[0, 0] = 1
        ideal = np.r_[np.ones(rb, int), np.zeros(1000 - rb, int)]
        assert Twist().exact(run, rb=rb, ideal=ideal)[0] == Fraction(2, rb + 3)


def test_no_relevant_document_in_the_pool_is_nan_and_ideal_is_required():
    assert np.isnan(Twist()(np.zeros((1, 5), int), rb=0, ideal=np.zeros(5, int))[0])
    with pytest.raises(ValueError, match="ideal run"):
        Twist()(np.zeros((1, 5), int), rb=1)


def _realistic(rng, n_runs, depth, grades):
    """Runs drawn from a judged pool (so no run holds more documents of a grade than judged) plus
    unjudged documents; returns (runs, ideal, rb) for one topic."""
    pool = rng.integers(0, grades + 1, rng.integers(1, 2 * depth))
    docs = np.r_[pool, np.zeros(depth, int)]  # unjudged count as not relevant
    runs = np.stack([docs[rng.permutation(docs.size)[:depth]] for _ in range(n_runs)])
    return runs, np.sort(pool)[::-1], int((pool > 0).sum())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 2), st.integers(2, 25))
def test_float_path_equals_exact_arithmetic(seed, grades, depth):
    rng = np.random.default_rng(seed)
    runs, ideal, rb = _realistic(rng, 12, depth, grades)
    got = Twist()(runs, rb=rb, ideal=ideal)
    exact = Twist().exact(runs, rb=rb, ideal=ideal)
    for g, e in zip(got, exact):
        if isinstance(e, float):
            assert math.isnan(e) and math.isnan(g)
        else:
            assert g == pytest.approx(float(e), rel=1e-14, abs=1e-15)
            if grades == 1 and 2 * rb <= depth:  # then within [0, 1]; graded Twist, or a recall base over
                assert 0 <= e <= 1               # half the depth, can be negative (authors' T09 grid)


def test_collection_evaluate_passes_the_ideal_run_and_recall_base():
    rel = np.array([[[1, 0, 0, 0, 1], [0, 1, 0, 1, 0]]], dtype=np.int8)  # one system, two topics
    judg = np.array([[3, 2], [3, 2]])  # per topic: 3 judged not relevant, 2 relevant
    c = Collection(rel=rel, judgments=judg, run_lengths=np.full((1, 2), 5), topics=("1", "2"), systems=("s",),
                   provenance="trec: test")
    assert c.evaluate(Twist())[:, 0].tolist() == pytest.approx([0.5, 3 / 14])


def test_name_round_trip():
    assert parse("Twist") == Twist() and parse(repr(Twist())) == Twist() and Twist().key == "Twist"
