"""The paired randomisation test (:mod:`irscales.stats._randomisation`) against scipy's
``permutation_test(..., permutation_type="samples")``: exact enumeration on small cases, sampling beyond."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from irscales.stats._randomisation import randomisation_test
from irscales.stats._results import pairs


def _scipy_exact(x: np.ndarray, y: np.ndarray) -> float:
    res = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                 permutation_type="samples", n_resamples=np.inf, alternative="two-sided")
    return float(res.pvalue)


@pytest.mark.parametrize("seed, T", [(0, 6), (1, 9), (2, 12), (3, 5)])
def test_exact_p_values_are_scipys(seed, T):
    rng = np.random.default_rng(seed)
    s = rng.random((T, 4)) + np.array([0, 0.1, 0.3, 0.05])
    s[:, 3] = np.round(s[:, 3], 1)  # some ties with nothing, a coarse system
    res = randomisation_test(s)
    assert res.omnibus == {"exact": True, "permutations": 2**T, "seed": None}
    for k, (a, b) in enumerate(zip(*pairs(4))):
        assert res.pvalue[k] == pytest.approx(_scipy_exact(s[:, a], s[:, b]), rel=1e-12, abs=0)
        assert res.significant[k] == (res.pvalue[k] <= 0.05)


def test_identical_systems_and_exact_scores():
    s = np.array([[Fraction(1, 3), Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 2), Fraction(1, 2), Fraction(1)],
                  [Fraction(0), Fraction(0), Fraction(1, 5)], [Fraction(1, 7), Fraction(1, 7), Fraction(1, 2)]],
                 dtype=object)
    res = randomisation_test(s)
    assert res.pvalue[0] == 1.0 and not res.significant[0]
    f = s.astype(float)
    assert res.pvalue[1] == pytest.approx(_scipy_exact(f[:, 0], f[:, 2]), rel=1e-12)
    assert res.pvalue[1] == 2 / 16  # every difference negative: only the all-negative patterns, both tails


def test_sampled_p_values_are_seeded_and_close_to_exact():
    rng = np.random.default_rng(9)
    s = rng.random((18, 3)) + np.array([0, 0.12, 0.25])
    exact = randomisation_test(s)
    a = randomisation_test(s, exact_up_to=10, permutations=20_000, seed=4)
    b = randomisation_test(s, exact_up_to=10, permutations=20_000, seed=4)
    c = randomisation_test(s, exact_up_to=10, permutations=20_000, seed=5)
    assert a.omnibus == {"exact": False, "permutations": 20_000, "seed": 4}
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    assert not np.array_equal(a.pvalue, c.pvalue)
    np.testing.assert_allclose(a.pvalue, exact.pvalue, atol=0.01)
    assert (a.pvalue >= 1 / 20_001).all()


def test_bad_permutations():
    with pytest.raises(ValueError, match="permutations must be at least 1"):
        randomisation_test(np.random.default_rng(0).random((5, 2)), permutations=0)
