"""Monte Carlo estimates of the IPSO categories (irscales.ipso._montecarlo)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irscales import ipso
from irscales.ipso._montecarlo import _block_tables


@pytest.mark.parametrize("b", [1, 2, 3, 4])
def test_monte_carlo_block_tables(b):
    net, hi, lo = _block_tables(b)
    idx = np.arange(4**b)
    s1 = (idx[:, None] >> np.arange(b)) & 1
    s2 = (idx[:, None] >> (b + np.arange(b))) & 1
    cum = np.cumsum(s1 - s2, axis=1)
    assert np.array_equal(net, cum[:, -1]) and np.array_equal(hi, cum.max(1)) and np.array_equal(lo, cum.min(1))
    code = (hi > 0).astype(int) + 2 * (lo < 0)
    assert np.array_equal(code, ipso.compare(s1, s2).relation)


def test_monte_carlo_is_unbiased_and_deterministic():
    n = 2**20
    r = ipso.monte_carlo([3, 10, 30], n, np.random.default_rng(7), task_size=2**18)
    f = r.to_frame()
    for k in (3, 10, 30):
        ex = ipso.count_categories(k).fractions(k)
        for col in ("equal", "separable", "nonsep"):
            se = math.sqrt(float(ex[col]) * (1 - float(ex[col])) / n) or 1 / n
            assert abs(f.loc[k, col] - float(ex[col])) < 5 * se, (k, col)
            assert f.loc[k, f"{col}_lo"] <= f.loc[k, col] <= f.loc[k, f"{col}_hi"]
    assert r.counts.sum(1).tolist() == [n] * 3
    again = ipso.monte_carlo([3, 10, 30], n, np.random.default_rng(7), task_size=2**18, workers=2)
    assert np.array_equal(r.counts, again.counts)  # independent of the number of processes


def test_monte_carlo_errors():
    with pytest.raises(TypeError, match="Generator"):
        ipso.monte_carlo([5], 10, 123)
    with pytest.raises(ValueError, match="depths"):
        ipso.monte_carlo([0], 10, np.random.default_rng(0))


def test_monte_carlo_deep_uses_wider_counters_and_compaction():
    # k = 200 needs int16 counters and drops settled pairs after ranks 16, 48 and 160
    n = 2**17
    r = ipso.monte_carlo([7, 160, 200], n, np.random.default_rng(11), chunk=2**15)
    f = r.to_frame()
    for k in (7, 160, 200):
        p = float(ipso.count_categories(k).fractions(k)["nonsep"])
        assert abs(f.loc[k, "nonsep"] - p) < 5 * math.sqrt(p * (1 - p) / n), k
    assert r.counts.sum(1).tolist() == [n] * 3
