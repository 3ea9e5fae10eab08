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


# --------------------------------------------------------------------------- the authors' MATLAB route

import importlib  # noqa: E402

# the module, not the function fer17.kde of the same name that the package exports
kde_mod = importlib.import_module("irscales.papers.fer17.kde")


def _matlab_selective_loop(x, xi, b, cutoff=4.0):
    """statkscompute's loop for large problems, transcribed statement by statement (1-based indices
    as in MATLAB), to check the vectorised slices of ksdensity against."""
    ty = np.sort(x)
    n = len(ty)
    f = np.zeros(len(xi))
    jstart = jend = 1
    for k in np.argsort(xi, kind="stable"):
        lo = xi[k] - cutoff * b
        while ty[jstart - 1] < lo and jstart < n:
            jstart += 1
        hi = xi[k] + cutoff * b
        jend = max(jend, jstart)
        while ty[jend - 1] <= hi and jend < n:
            jend += 1
        z = (xi[k] - ty[jstart - 1:jend]) / b
        f[k] = np.sum(np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)) / n
    return f / b


def test_matters_grid_is_matlab_colon():
    g = kde_mod.MATTERS_GRID
    assert g.size == 121 and g[0] == -0.1 and g[-1] == 1.1 and g[10] == 0.0 and g[60] == 0.5


def test_ksdensity_small_problem_sums_every_kernel():
    x = np.random.default_rng(1).beta(2, 5, 100)  # 100 × 121 <= 30,000: no cut
    assert np.allclose(kde_mod.ksdensity(x, kde_mod.MATTERS_GRID), fer17.kde(x, kde_mod.MATTERS_GRID), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(hs.integers(0, 2**32 - 1), hs.integers(300, 2000))
def test_ksdensity_large_problem_is_matlabs_selective_loop(seed, n):
    rng = np.random.default_rng(seed)
    x = np.round(rng.beta(1, 4, n), 2)  # ties and gaps, like per-topic scores
    x[: n // 10] = 0.0
    xi = kde_mod.MATTERS_GRID
    got = kde_mod.ksdensity(x, xi)
    assert np.allclose(got, _matlab_selective_loop(x, xi, fer17.BANDWIDTH), rtol=1e-12, atol=0)
    # every dropped kernel lies beyond 4 bandwidths: together they weigh at most φ(4)/b
    assert np.all(np.abs(got - fer17.kde(x, xi)) <= st.norm.pdf(4) / fer17.BANDWIDTH)


def test_ksdensity_drops_nan_and_checks_input():
    x = np.array([0.1, np.nan, 0.3])
    assert np.array_equal(kde_mod.ksdensity(x, [0.2]), kde_mod.ksdensity([0.1, 0.3], [0.2]))
    with pytest.raises(ValueError, match="not NaN"):
        kde_mod.ksdensity([np.nan], [0.0])
    with pytest.raises(ValueError, match="bandwidth"):
        kde_mod.ksdensity([0.1], [0.0], bandwidth=0)


def test_kl_divergence_trapz_by_hand():
    xi = np.array([0.0, 1.0, 2.0])
    p, q = np.array([0.5, 1.0, 0.0]), np.array([1.0, 0.5, 0.2])
    # terms 0.5 ln 0.5, ln 2, 0 (p = 0); trapezoid with unit spacing: t0/2 + t1 + t2/2
    assert kde_mod.kl_divergence_trapz(p, q, xi) == pytest.approx(0.25 * np.log(0.5) + np.log(2))
    assert kde_mod.kl_divergence_trapz(q, q, xi) == 0.0
    assert kde_mod.kl_divergence_trapz([1.0, 1.0, 1.0], [1.0, 0.0, 1.0], xi) == np.inf
    with pytest.raises(ValueError, match="same length"):
        kde_mod.kl_divergence_trapz(p, q, xi[:2])


def test_kl_divergence_matters_is_asymmetric_and_zero_on_itself():
    rng = np.random.default_rng(7)
    a, b = rng.beta(2, 6, 3000), rng.beta(2, 4, 3000)
    assert kde_mod.kl_divergence_matters(a, a) == pytest.approx(0.0, abs=1e-15)
    assert kde_mod.kl_divergence_matters(a, b) > 0 and kde_mod.kl_divergence_matters(a, b) != \
        pytest.approx(kde_mod.kl_divergence_matters(b, a))
