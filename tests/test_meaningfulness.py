"""Tests for irscales.theory.meaningfulness: FFF21 Examples 5–8 (§2.4) with the paper's own scales and
numbers, properties of the random permissible transformations, and invariance theorems checked
on generated data (means under affine maps, medians under increasing maps …)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.theory import meaningfulness as mf

C2F = mf.affine(F(9, 5), 32, "Celsius → Fahrenheit")  # FFF21 Example 3
PARIS, ROME = [2, 2, 4, 8, 36], [1, 2, 4, 15, 34]  # FFF21 Example 7, °C
WX, WY = [6, 6, 12, 17, 32], [3, 3, 3, 12, 50]  # FFF21 Example 6, scale φ


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# ----------------------------------------------------------------- FFF21 §2.4, Examples 5–8


def test_example5_nominal():
    """Example 5: 'most people come from Spain' meaningful; 'the lowest quartile is Spanish' not,
    flipped by the paper's φ → φ' (Spain 1 → 17, Germany 4 → 13, Greece 3 → −10, ...)."""
    phi = {"France": 5, "Germany": 4, "Greece": 3, "Italy": 2, "Spain": 1}
    phi2 = {"France": 41, "Germany": 13, "Greece": -10, "Italy": 23, "Spain": 17}
    people = ["Spain"] * 5 + ["Germany"] * 3 + ["Greece", "Italy"]
    data = {"P": [phi[p] for p in people], "spain": phi["Spain"]}
    assert data["P"] == [1, 1, 1, 1, 1, 4, 4, 4, 3, 2]
    t = mf.bijection({phi[k]: phi2[k] for k in phi}, "φ → φ'")
    assert t.apply(data["P"]) == [17, 17, 17, 17, 17, 13, 13, 13, -10, 23]  # P' as printed

    most = mf.check(data, lambda d: mf.mode(d["P"]) == d["spain"], "nominal", rng(), n=300, candidates=[t])
    assert most.truth and most.meaningful
    quart = mf.check(data, lambda d: mf.quantile(d["P"], F(1, 4)) == d["spain"], "nominal", rng(), n=300,
                     candidates=[t])
    assert quart.truth and not quart.meaningful and quart.flip is t
    assert mf.quantile(quart.flipped_data["P"], F(1, 4)) == 13  # Germany, as the paper says
    # random bijections alone also find a flip
    assert not mf.check(data, lambda d: mf.quantile(d["P"], F(1, 4)) == d["spain"], "nominal", rng(), n=300).meaningful


def test_example6_ordinal():
    """Example 6: the median statement is meaningful (12 > 3, 144 > 9); the mean statement is
    not (14.6 > 14.2 but 305.8 < 534.2 under φ' = φ²)."""
    data = {"x": WX, "y": WY}
    sq = mf.increasing(lambda v: v * v, on=WX + WY, description="φ' = φ²")
    assert sq.apply(WX) == [36, 36, 144, 289, 1024] and sq.apply(WY) == [9, 9, 9, 144, 2500]
    med = mf.check(data, lambda d: mf.median(d["x"]) > mf.median(d["y"]), "ordinal", rng(), n=500, candidates=[sq])
    assert med.truth and med.meaningful
    assert (mf.median(WX), mf.median(WY)) == (12, 3)
    avg = mf.check(data, lambda d: mf.mean(d["x"]) > mf.mean(d["y"]), "ordinal", rng(), n=0, candidates=[sq])
    assert avg.truth and not avg.meaningful
    assert (mf.mean(WX), mf.mean(WY)) == (F("14.6"), F("14.2"))
    assert (mf.mean(sq.apply(WX)), mf.mean(sq.apply(WY))) == (F("305.8"), F("534.2"))
    # random increasing maps find a flip too
    assert not mf.check(data, lambda d: mf.mean(d["x"]) > mf.mean(d["y"]), "ordinal", rng(), n=500).meaningful


def test_example7_interval():
    """Example 7: difference 'twice as high', equal medians and mean order are meaningful on an
    interval scale; the geometric-mean order is not (5.40 > 5.27 °C, 46.74 < 48.17 °F)."""
    diff = mf.check({"a": 20, "b": 10, "c": 12, "d": 7}, lambda d: d["a"] - d["b"] == 2 * (d["c"] - d["d"]),
                    "interval", rng(), n=300, candidates=[C2F])
    assert diff.truth and diff.meaningful
    assert C2F.apply([20, 10, 12, 7]) == [68, 50, F("53.6"), F("44.6")]

    temps = {"p": PARIS, "r": ROME}
    assert C2F.apply(PARIS) == [F(x) for x in ("35.6", "35.6", "39.2", "46.4", "96.8")]
    assert C2F.apply(ROME) == [F(x) for x in ("33.8", "35.6", "39.2", "59.0", "93.2")]
    med = mf.check(temps, lambda d: mf.median(d["p"]) == mf.median(d["r"]), "interval", rng(), n=300, candidates=[C2F])
    assert med.truth and med.meaningful
    avg = mf.check(temps, lambda d: mf.mean(d["p"]) < mf.mean(d["r"]), "interval", rng(), n=300, candidates=[C2F])
    assert avg.truth and avg.meaningful
    assert (mf.mean(PARIS), mf.mean(ROME)) == (F("10.4"), F("11.2"))
    assert (mf.mean(C2F.apply(PARIS)), mf.mean(C2F.apply(ROME))) == (F("50.72"), F("52.16"))

    gm = mf.check(temps, lambda d: mf.compare_geometric_means(d["p"], d["r"]) > 0, "interval", rng(), n=0,
                  candidates=[C2F])
    assert gm.truth and not gm.meaningful and gm.flip is C2F
    assert [round(mf.geometric_mean(x), 2) for x in (PARIS, ROME)] == [5.40, 5.27]
    assert [round(mf.geometric_mean(C2F.apply(x)), 2) for x in (PARIS, ROME)] == [46.74, 48.17]
    assert not mf.check(temps, lambda d: mf.compare_geometric_means(d["p"], d["r"]) > 0, "interval", rng(), n=300).meaningful


def test_example8_ratio():
    """Example 8: 'five times as distant' and 'twice as hot (Kelvin)' are meaningful on a ratio
    scale; 'twice as hot' is not on an interval scale (K → °C gives 0 vs 273); the geometric-mean
    order is meaningful on a ratio scale."""
    km_to_mi = mf.similarity(F("0.62"), "km → miles")
    five = mf.check({"ro": 2000, "rp": 400}, lambda d: d["ro"] == 5 * d["rp"], "ratio", rng(), n=300,
                    candidates=[km_to_mi])
    assert five.truth and five.meaningful
    twice = {"a": 546, "b": 273}
    hot = mf.check(twice, lambda d: d["a"] == 2 * d["b"], "ratio", rng(), n=300)
    assert hot.truth and hot.meaningful
    k2c = mf.affine(1, -273, "Kelvin → Celsius (as rounded in the paper)")
    hot_i = mf.check(twice, lambda d: d["a"] == 2 * d["b"], "interval", rng(), n=0, candidates=[k2c])
    assert not hot_i.meaningful and hot_i.flipped_data == {"a": 273, "b": 0}
    kelvin = {"p": [x + 273 for x in PARIS], "r": [x + 273 for x in ROME]}
    gm = mf.check(kelvin, lambda d: mf.compare_geometric_means(d["p"], d["r"]) < 0, "ratio", rng(), n=300)
    assert gm.meaningful


# ------------------------------------------------------------------ transformations: properties


VALUES = st.lists(st.integers(-50, 50) | st.fractions(min_value=-20, max_value=20, max_denominator=7),
                  min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(VALUES, st.integers(0, 2**32 - 1))
def test_random_transformations_are_permissible(values, seed):
    g = rng(seed)
    xs = sorted(set(F(v) for v in values))
    nom = mf.random_transformation("nominal", values, g)
    assert len({nom(x) for x in xs}) == len(xs)  # one-to-one
    ordi = mf.random_transformation("ordinal", values, g)
    ys = [ordi(x) for x in xs]
    assert all(b > a for a, b in zip(ys, ys[1:]))  # strictly increasing
    aff = mf.random_transformation("interval", values, g)
    assert aff.alpha > 0 and aff.kind == "affine"
    sim = mf.random_transformation("ratio", values, g)
    assert sim.alpha > 0 and sim.beta == 0 and sim(0) == 0


def test_permissibility_is_nested():
    t = {"bijection": mf.bijection({1: 2, 2: 1}), "increasing": mf.increasing({1: 1, 2: 5}),
         "affine": mf.affine(2, 1), "similarity": mf.similarity(3)}
    allowed = {"nominal": 4, "ordinal": 3, "interval": 2, "ratio": 1}
    for scale, k in allowed.items():
        assert sum(x.permissible_for(scale) for x in t.values()) == k


SAMPLES = st.lists(st.integers(-30, 30), min_size=1, max_size=9)


@settings(max_examples=40, deadline=None)
@given(SAMPLES, SAMPLES, st.integers(0, 2**32 - 1))
def test_mean_order_is_meaningful_on_interval(x, y, seed):
    """§2.4 proof of Example 7: the mean order is invariant under α φ + β, α > 0."""
    stmt = lambda d: mf.mean(d["x"]) > mf.mean(d["y"])  # noqa: E731
    assert mf.check({"x": x, "y": y}, stmt, "interval", rng(seed), n=40).meaningful


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-30, 30), min_size=1, max_size=9).filter(lambda v: len(v) % 2 == 1),
       st.lists(st.integers(-30, 30), min_size=1, max_size=9).filter(lambda v: len(v) % 2 == 1),
       st.integers(0, 2**32 - 1))
def test_median_order_is_meaningful_on_ordinal(x, y, seed):
    """Medians of odd-sized samples are observed values, so increasing maps preserve their order."""
    stmt = lambda d: mf.median(d["x"]) >= mf.median(d["y"])  # noqa: E731
    assert mf.check({"x": x, "y": y}, stmt, "ordinal", rng(seed), n=40).meaningful


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=6), st.lists(st.integers(1, 60), min_size=1, max_size=6),
       st.integers(0, 2**32 - 1))
def test_geometric_mean_order_is_meaningful_on_ratio(x, y, seed):
    stmt = lambda d: mf.compare_geometric_means(d["x"], d["y"]) > 0  # noqa: E731
    assert mf.check({"x": x, "y": y}, stmt, "ratio", rng(seed), n=40).meaningful


def test_mean_order_flips_on_ordinal_for_a_skewed_pair():
    # a large value on one side: an increasing map that compresses the top flips the mean order
    v = mf.check({"x": [0, 0, 10], "y": [3, 3, 3]}, lambda d: mf.mean(d["x"]) > mf.mean(d["y"]), "ordinal", rng(), n=300)
    assert v.truth and not v.meaningful
    assert (mf.mean(v.flipped_data["x"]) > mf.mean(v.flipped_data["y"])) is False


def test_equality_of_categories_is_meaningful_on_nominal():
    v = mf.check([3, 1, 3, 2], lambda d: d[0] == d[2] and d[0] != d[1], "nominal", rng(), n=200)
    assert v.meaningful and v.truth


def test_seeded_runs_are_reproducible():
    stmt = lambda d: mf.mean(d["x"]) > mf.mean(d["y"])  # noqa: E731
    a = mf.check({"x": WX, "y": WY}, stmt, "ordinal", rng(7), n=500)
    b = mf.check({"x": WX, "y": WY}, stmt, "ordinal", rng(7), n=500)
    assert (a.n_tried, a.flip.description) == (b.n_tried, b.flip.description)


def test_undefined_transformations_are_counted_not_flips():
    # geometric means of Celsius temperatures: affine maps with a negative shift make them undefined
    stmt = lambda d: mf.compare_geometric_means(d["p"], d["r"]) > 0  # noqa: E731
    shift = mf.affine(1, -3, "shift by −3 (makes some values negative)")
    v = mf.check({"p": PARIS, "r": ROME}, stmt, "interval", rng(), n=0, candidates=[shift])
    assert v.meaningful and v.n_undefined == 1 and v.n_tried == 1


def test_exact_statistics():
    assert mf.median([4, 1, 3, 2]) == F(5, 2)
    assert mf.quantile([1, 2, 3, 4], F(1, 4)) == 1 and mf.quantile([1, 2, 3, 4], 1) == 4
    assert mf.mode([2, 2, 3]) == 2
    with pytest.raises(mf.Undefined):
        mf.mode([1, 2])
    assert mf.compare_geometric_means([1, 4], [2, 2]) == 0  # exact tie: √4 = 2
    assert mf.to_exact({"a": [0.1, 2], "b": np.int64(3)}) == {"a": [F(1, 10), 2], "b": 3}


# ------------------------------------------------------------------------------ bad input


def test_clear_errors():
    with pytest.raises(ValueError, match="unknown scale type 'metric'"):
        mf.check([1], lambda d: True, "metric", rng())
    with pytest.raises(TypeError, match="must return True or False"):
        mf.check([1, 2], lambda d: 3, "ordinal", rng())
    with pytest.raises(TypeError, match=r"data\['x'\]\[1\]: expected a number"):
        mf.check({"x": [1, "two"]}, lambda d: True, "ordinal", rng())
    with pytest.raises(ValueError, match="not a permissible transformation of a ratio scale"):
        mf.check([1], lambda d: True, "ratio", rng(), candidates=[C2F])
    with pytest.raises(ValueError, match="not one-to-one"):
        mf.bijection({1: 5, 2: 5})
    with pytest.raises(ValueError, match="not strictly increasing"):
        mf.increasing({1: 5, 2: 5})
    with pytest.raises(ValueError, match="alpha > 0"):
        mf.affine(-1, 0)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        mf.random_transformation("ordinal", [1, 2], 42)
    with pytest.raises(ValueError, match="undefined on the original data"):
        mf.check([-1, 2], lambda d: mf.geometric_mean(d) > 0, "ratio", rng())
    with pytest.raises(ValueError, match="finite"):
        mf.to_exact([float("nan")])
