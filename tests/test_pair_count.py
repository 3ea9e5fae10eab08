"""The double-double pair count behind DCG's φ (irscales.enumeration.pair_count): half tables against
40-digit sums, the compiled kernel against the same code run as plain Python and against brute force."""

from __future__ import annotations

import itertools
from decimal import Decimal, localcontext

import numpy as np

from irscales.enumeration import pair_count as P


def _exact_sums(B: int, first: int, last: int) -> list[Decimal]:
    """40-digit sums of the JK weights 1/log_B(i) of every subset of ranks first..last (bit j ↔ rank first + j)."""
    with localcontext() as ctx:
        ctx.prec = 40
        w = [Decimal(1) if i <= B else Decimal(B).ln() / Decimal(i).ln() for i in range(first, last + 1)]
        return [sum((w[j] for j in range(len(w)) if s >> j & 1), Decimal(0)) for s in range(1 << len(w))]


def test_half_sums_are_within_their_stated_error():
    """Within the tolerance the kernel assumes (64(N + 4)ε²·vmax), sorted by their float parts, and the
    low parts carry information (the float part alone is off by far more)."""
    B, first, last = 2, 3, 14
    h, l, order, cum, inv = P.dd_table(B, first, last)
    assert np.all(np.diff(h) >= 0) and cum[-1] == len(h) and sorted(order.tolist()) == list(range(len(h)))
    exact = _exact_sums(B, first, last)
    with localcontext() as ctx:
        ctx.prec = 40
        err = max(abs(Decimal(a) + Decimal(b) - exact[s]) for a, b, s in zip(h.tolist(), l.tolist(), order.tolist()))
        err_hi = max(abs(Decimal(a) - exact[s]) for a, s in zip(h.tolist(), order.tolist()))
    assert 0 < err <= Decimal(64 * (last + 4) * P.EPS**2 * float(max(exact)))
    assert err_hi > 1000 * err


def test_counts_equal_brute_force_over_all_pairs():
    """Every pair (top, bottom) compared in 40 digits: the kernel's count plus its flagged pairs that are
    truly below is the brute-force count, for thresholds at pair sums (ties) and between them."""
    B, N = 2, 14
    top, bot = P.dd_table(B, 3, 8), P.dd_table(B, 9, N)
    xs, ys = _exact_sums(B, 3, 8), _exact_sums(B, 9, N)
    rng = np.random.default_rng(4)
    with localcontext() as ctx:
        ctx.prec = 40
        picks = [xs[int(rng.integers(len(xs)))] + ys[int(rng.integers(len(ys)))] for _ in range(12)]
        ts = picks + [p + Decimal("1e-9") for p in picks[:4]] + [Decimal(0), Decimal("0.3"), Decimal(9)]
        t_h = np.array([float(t) for t in ts])
        t_l = np.array([float(t - Decimal(float(t))) for t in ts])
        cnt, _, flags, nflag = P.count_below(top, bot, t_h, t_l, 8.0, N)
        assert nflag.max() <= P.FLAG_SLOTS
        sums = sorted(x + y for x, y in itertools.product(xs, ys))
        for k, t in enumerate(ts):
            want = sum(1 for v in sums if v < t)
            flagged = [xs[int(top[2][i])] + ys[int(bot[2][j])] for i, j in flags[k, :nflag[k]].tolist()]
            assert int(cnt[k]) + sum(v < t for v in flagged) == want, (k, t)
    assert nflag[:12].min() >= 1  # a threshold at a pair sum flags that pair (the tie goes to the exact check)


def test_compiled_kernel_equals_the_plain_python_code():
    B, N = 2, 12
    top, bot = P.dd_table(B, 3, 7), P.dd_table(B, 8, N)
    t_h = np.linspace(0.1, 6, 25)
    t_l = np.zeros_like(t_h)
    compiled = P.count_below(top, bot, t_h, t_l, 8.0, N)
    full = np.searchsorted(top[0], t_h - bot[0][-1] - 8 * P.EPS * 8.0, "left")
    stop = np.searchsorted(top[0], t_h + 8 * P.EPS * 8.0, "left")
    flags = np.zeros((len(t_h), P.FLAG_SLOTS, 2), np.int64)
    nflag = np.zeros(len(t_h), np.int64)
    one = np.zeros(1, np.int64)
    inside = P._count_below_py(top[0], top[1], bot[0], bot[1], bot[3], bot[4], t_h, t_l, full, stop,
                               8 * P.EPS * 8.0, 64 * (N + 4) * P.EPS**2 * 8.0, flags, nflag, one, one, False, one)
    assert np.array_equal(compiled[0], inside + full * len(bot[0]))
    assert compiled[1] is None and np.array_equal(compiled[3], nflag) and np.array_equal(compiled[2], flags)


def test_weighted_counts_equal_brute_force():
    """With weights per entry the kernel also returns Σ w_top·w_bot over the pairs below (as counted)."""
    B, N = 2, 12
    top, bot = P.dd_table(B, 3, 7), P.dd_table(B, 8, N)
    rng = np.random.default_rng(9)
    w_top, w_bot = rng.integers(1, 50, len(top[0])), rng.integers(1, 50, len(bot[0]))
    t_h = np.linspace(0.2, 6, 30) + 1e-7  # away from pair sums: nothing flagged
    cnt, wc, _, nflag = P.count_below(top, bot, t_h, np.zeros_like(t_h), 8.0, N, weights=(w_top, w_bot))
    assert nflag.max() == 0
    below = (top[0][:, None] + bot[0][None, :])[None] < t_h[:, None, None]
    assert np.array_equal(cnt, below.sum((1, 2)))
    assert np.array_equal(wc, (below * (w_top[:, None] * w_bot[None, :])[None]).sum((1, 2)))
