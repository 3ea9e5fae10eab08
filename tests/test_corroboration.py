"""MM23 §3 reporting rule: exact sign test, IPSO counts, † and ‡."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from irscales import corroboration as C
from irscales.measures import AP, P


@pytest.mark.parametrize("k, n", [(0, 0), (0, 5), (3, 10), (7, 10), (10, 10), (12, 40), (25, 40)])
def test_binomial_matches_scipy(k, n):
    want = 1.0 if n == 0 else stats.binomtest(k, n, 0.5).pvalue
    assert C.binomial_two_sided(k, n) == pytest.approx(want, rel=1e-12)


def test_ipso_sign_test_hand_case():
    a = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0]])
    b = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]])
    r = C.ipso_sign_test(a, b, 3)
    # topic 1: B adds a relevant doc → ni; 2: B moves it up → ni; 3: equal; 4: B behind, then ahead → **
    assert (r.ni, r.ns, r.equal, r.nonseparable) == (2, 0, 1, 1)
    assert r.pvalue == pytest.approx(0.5)


def test_markers():
    rng = np.random.default_rng(1)
    a = (rng.random((40, 10)) < 0.2).astype(int)
    b = np.maximum(a, (rng.random((40, 10)) < 0.4).astype(int))  # B ⪰ A on every topic
    res = C.corroborate(a, b, P(k=10), 10, test="t")
    assert res.pvalue < 0.05 and res.ipso is not None and res.ipso.ns == 0
    assert res.marker == "†‡"
    same = C.corroborate(a, a, AP(), 10, rb=10, test="sign")
    assert same.marker == "" and same.ipso is None and same.pvalue == 1.0
    with pytest.raises(ValueError, match="unknown test"):
        C.corroborate(a, b, AP(), 10, rb=10, test="z")
