"""Fer17 §3.4 (irscales.papers.fer17.kde): the KDE of eq. (6) against scipy, D_KL of eq. (7) by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.papers import fer17


# --------------------------------------------------------------------------- KDE and KL (§3.4)


def test_kde_matches_scipy_gaussian_kde():
    x = np.random.default_rng(3).beta(2, 5, 200)
    grid = np.linspace(-0.1, 1.1, 301)
    ref = st.gaussian_kde(x, bw_method=fer17.BANDWIDTH / x.std(ddof=1))(grid)
    np.testing.assert_allclose(fer17.kde(x, grid), ref, rtol=1e-10)
    assert np.trapezoid(fer17.kde(x, grid), grid) == pytest.approx(1.0, abs=1e-6)


def test_kl_hand_cases():
    x = np.array([0.1, 0.2, 0.3])
    assert fer17.kl_divergence(x, x) == pytest.approx(0.0, abs=1e-12)
    # two point masses 0.5 apart: KL of N(0, b²) vs N(d, b²) is d²/(2b²) = 555.6 — far beyond any
    # grid effect; the discrete version on a fine grid matches the continuous one closely.
    far = fer17.kl_divergence([0.3], [0.35], n_points=4096)
    assert far == pytest.approx(0.05 ** 2 / (2 * fer17.BANDWIDTH ** 2), rel=1e-3)
    a, b = np.array([0.1, 0.1, 0.5]), np.array([0.1, 0.4, 0.5])
    assert fer17.kl_divergence(a, b) != pytest.approx(fer17.kl_divergence(b, a))  # not symmetric
    with pytest.raises(ValueError, match="non-empty"):
        fer17.kl_divergence([], [0.1])


@settings(max_examples=30, deadline=None)
@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=20), hs.lists(hs.floats(0, 1), min_size=1, max_size=20))
def test_kl_is_nonnegative(x, y):
    assert fer17.kl_divergence(x, y) >= -1e-12
