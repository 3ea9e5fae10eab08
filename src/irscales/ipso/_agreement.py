"""Metric tests against the IPSO sign test, per system pair (MM23 §3, Figs 7–8).

The paired metric tests are those of :mod:`irscales.stats._significance` (one implementation for
``irscales compare``, ``irscales ipso`` and the notebooks), run through its dispatcher
:func:`~irscales.stats._significance.significance_tests` on a ``(T, S)`` score matrix, with its
test keys (``sign``, ``signrank``, ``ttest``). MM23 decide "p < α"; the significance module
decides p ≤ α exactly; its sign and exact signed-rank p-values are dyadic rationals, never equal
to α = 0.05 or 0.01, so the two rules agree there; a p-value equal to α as a float is treated as
not significant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from irscales import options
from irscales.options import METRIC_TESTS
from irscales.stats._significance import significance_tests

__all__ = ["METRIC_TESTS", "test_key", "metric_tests", "metric_test", "AGREEMENT", "agreement"]

#: MM23 Fig. 7 categories, in stacking order (bottom first).
AGREEMENT = ("Both: Yes", "Both: No", "Metric: Yes", "Metric: No")


def test_key(name: str) -> str:
    """The :data:`~irscales.stats._significance.TESTS` key of a paired test named ``name``: one of MM23's
    :data:`~irscales.options.METRIC_TESTS` by key or by its name (``t``, ``wilcoxon``: the
    ``irscales ipso --test`` choices; :data:`irscales.options.PAIRED_TESTS`)."""
    return options.test_key(name, among=METRIC_TESTS)


test_key.__test__ = False  # not a pytest test


def metric_tests(scores: np.ndarray, tests: Sequence[str] = METRIC_TESTS,
                 alpha: float = 0.05) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Paired two-tailed tests for every system pair: ``scores`` is (topics, systems); returns
    {test key: (p-values, significant at p < α)} in :func:`irscales.stats._significance.pairs` order."""
    sc = np.asarray(scores)
    if sc.ndim != 2:
        raise ValueError(f"scores must be (topics, systems), got shape {sc.shape}")
    keys = [test_key(t) for t in tests]
    res = significance_tests(sc, keys, alpha)
    # MM23 uses p < α; the library's exact decisions are p ≤ α (see the module docstring)
    return {k: (res[k].pvalue, res[k].significant & ~(res[k].pvalue == alpha)) for k in keys}


def metric_test(a: np.ndarray, b: np.ndarray, test: str) -> float:
    """Two-tailed p-value of the paired test ``test`` of B − A over topics (:func:`metric_tests`
    on the (T, 2) matrix of ``a`` and ``b``); 1 when A and B are equal on every topic."""
    key = test_key(test)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired scores must be two vectors of the same length, got shapes {a.shape}, {b.shape}")
    p = float(metric_tests(np.column_stack([a, b]), [key])[key][0][0])
    return 1.0 if np.isnan(p) else p  # the t test of identical runs


def agreement(metric_sig: ArrayLike, ipso_sig: ArrayLike) -> np.ndarray:
    """MM23 Fig. 7 category per pair (index into :data:`AGREEMENT`): 0 both significant,
    1 neither, 2 metric only ("Metric: Yes"), 3 IPSO only ("Metric: No")."""
    m, i = np.asarray(metric_sig, bool), np.asarray(ipso_sig, bool)
    if m.shape != i.shape:
        raise ValueError(f"metric and IPSO decisions have shapes {m.shape} and {i.shape}")
    return np.where(m & i, 0, np.where(~m & ~i, 1, np.where(m, 2, 3))).astype(np.int8)
