"""irscales.enumeration._fixed_count: exact fixed-point weights, sorted subset sums, the blocked pair count
against brute force over every pair (block boundaries, duplicate sums, thresholds equal to a pair's sum),
the compiled kernel against the same code run as plain Python, and the naming of bottom sums."""
from __future__ import annotations

import itertools
from decimal import Decimal, localcontext

import numpy as np
import pytest

from irscales.enumeration import _fixed_count as FC


def _brute_sums(W: np.ndarray) -> list[tuple[int, int]]:
    return [(int(sum(int(W[j]) for j in range(len(W)) if m >> j & 1)), m) for m in range(1 << len(W))]


def _brute(top: np.ndarray, bot: np.ndarray, t: np.ndarray, tol: int):
    s = top[:, None] + bot[None, :]
    below = np.array([int(np.count_nonzero(s < x - tol)) for x in t])
    near = {(k, i, j) for k, x in enumerate(t) for i, j in zip(*np.nonzero(np.abs(s - x) <= tol))}
    return below, near


@pytest.mark.parametrize("B, first, last", [(2, 1, 40), (10, 5, 62), (3, 4, 30)])
def test_fixed_weights_are_within_one_unit(B, first, last):
    F = 55
    W = FC.fixed_weights(B, first, last, F)
    with localcontext() as ctx:
        ctx.prec = 80
        lnB = Decimal(B).ln()
        exact = [(Decimal(1) if i <= B else lnB / Decimal(i).ln()) * Decimal(2) ** F for i in range(first, last + 1)]
    assert all(abs(Decimal(int(w)) - e) <= Decimal("0.5") + Decimal(10) ** -20 for w, e in zip(W, exact))


def test_fixed_log_terms_with_rational_coefficients():
    from fractions import Fraction

    F, B = 56, 3  # class roots below B (2 for ranks 4, 8, …) are not weight 1
    terms = [(Fraction(1, 3), 3), (Fraction(7, 2), 5), (Fraction(5, 6), 2), (2, 7), (0, 9)]
    W = FC.fixed_log_terms(B, terms, F)
    with localcontext() as ctx:
        ctx.prec = 80
        for w, (q, m) in zip(W, terms):
            q = Fraction(q)
            u = Decimal(1) if m == B else Decimal(B).ln() / Decimal(m).ln()
            assert abs(Decimal(int(w)) - Decimal(q.numerator) / Decimal(q.denominator) * u * Decimal(2) ** F) <= Decimal("0.5") + Decimal(10) ** -20


def test_frac_bits_leave_room_below_the_sentinel():
    for vmax in (0.0, 1.0, 5.5, 42.7, 1000.0):
        F = FC.frac_bits(vmax)
        assert (vmax + 1) * 2.0**F <= 2.0**61 <= (vmax + 1) * 2.0 ** (F + 3)


@pytest.mark.parametrize("W", [[5, 3, 3, 9, 1, 0, 7, 2], [1 << 50, 3, (1 << 50) + 1, 17], []])
def test_sorted_sums_are_all_subset_sums_with_their_masks(W):
    W = np.array(W, dtype=np.int64)
    v, m = FC.sorted_sums(W, pad=3)
    n = 1 << len(W)
    assert np.array_equal(v[:n], np.sort([s for s, _ in _brute_sums(W)])) and (v[n:] == FC.SENTINEL).all()
    assert sorted(m.tolist()) == list(range(n))
    assert all(int(v[i]) == sum(int(W[j]) for j in range(len(W)) if int(m[i]) >> j & 1) for i in range(n))


def _case(seed: int, dup: bool):
    rng = np.random.default_rng(seed)
    Wt = rng.integers(1, 1000, 6).astype(np.int64)
    Wb = rng.integers(1, 300, 10).astype(np.int64)
    if dup:  # equal weights: many equal bottom sums, also across block boundaries
        Wb[1::2] = Wb[0::2]
    top, _ = FC.sorted_sums(Wt)
    ts = top[:, None] + FC.sorted_sums(Wb)[0][None, :]
    # thresholds: random, equal to pair sums, ±1 of them, and outside both ends
    t = np.concatenate([rng.integers(-50, int(ts.max()) + 50, 40), rng.choice(ts.ravel(), 30),
                        rng.choice(ts.ravel(), 10) + 1, rng.choice(ts.ravel(), 10) - 1, [-10**6, 10**9, 0]])
    return top, Wb, t.astype(np.int64)


@pytest.mark.parametrize("seed, dup", [(0, False), (1, True), (2, True), (3, False)])
@pytest.mark.parametrize("block", [1, 7, 64, 1 << 15])
@pytest.mark.parametrize("tol", [0, 3])
def test_count_equals_brute_force_over_every_pair(seed, dup, block, tol):
    top, Wb, t = _case(seed, dup)
    bot = FC.bottom_table(Wb, block)
    cnt, _, flags = FC.count_pairs_below(top, bot, t, tol, cap=2)  # tiny cap: the re-count path runs
    below, near = _brute(top, bot.values[:bot.n], t, tol)
    assert np.array_equal(cnt, below)
    assert {tuple(r) for r in flags.tolist()} == near and len(flags) == len(near)


def test_compiled_kernel_is_the_plain_python_code():
    top, Wb, t = _case(4, True)
    bot = FC.bottom_table(Wb, 16)
    s = np.sort(t) - 2
    out = []
    for kernel in (FC._kernels()[2], FC._count_blocks_py):
        part = np.zeros((3, len(s)), np.int64)
        flags = np.zeros((3, 500, 3), np.int64)
        nfl = np.zeros(3, np.int64)
        part_w = np.zeros((3, len(s)), np.int64)
        wt = np.arange(1, len(top) + 1, dtype=np.int64)
        cwt = np.concatenate([[0], np.cumsum(wt)])
        cwb = np.concatenate([[0], np.cumsum(np.arange(bot.n) % 5 + 1), [0, 0]])
        kernel(top, bot.values, bot.n, bot.block, bot.sh, bot.idx, s, 4, 0, bot.n_blocks, 3, 500, part, flags, nfl,
               True, wt, cwt, cwb, int(cwb[bot.n]), part_w)
        out.append((part, nfl, [sorted(map(tuple, flags[g, :nfl[g]].tolist())) for g in range(3)], part_w))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1]) and out[0][2] == out[1][2]
    assert np.array_equal(out[0][3], out[1][3])


@pytest.mark.parametrize("block", [3, 1 << 15])
def test_weighted_count_and_item_tables_equal_brute_force(block):
    """Items with several values each (graded DCG's class coefficients): the sorted item table names each
    sum by its index, and the weighted count Σ w_top·w_bot equals the sum over every pair below."""
    rng = np.random.default_rng(9)
    items = [np.sort(rng.choice(200, k, replace=False)).astype(np.int64) for k in (3, 2, 4, 3, 5)]
    mults = [rng.integers(1, 7, len(v)) for v in items]
    top, t_order = FC.item_table(items[:2])
    bv, b_order = FC.item_table(items[2:])
    for v, o, part in ((top, t_order, items[:2]), (bv, b_order, items[2:])):
        sizes = [len(x) for x in part]
        for s_, flat in zip(v.tolist(), o.tolist()):
            js = np.unravel_index(flat, sizes[::-1])[::-1]
            assert s_ == sum(int(part[t][j]) for t, j in enumerate(js))
    w_top, w_bot = FC.item_weights(t_order, mults[:2]), FC.item_weights(b_order, mults[2:])
    bot = FC.item_bottom_table(bv, block)
    t = np.concatenate([rng.integers(-5, 900, 50), (top[:, None] + bv[None, :]).ravel()[::37]])
    cnt, wcnt, flags = FC.count_pairs_below(top, bot, t, 2, weights=(w_top, w_bot), cap=1)
    below, near = _brute(top, bv, t, 2)
    s = top[:, None] + bv[None, :]
    ww = w_top[:, None] * w_bot[None, :]
    assert np.array_equal(cnt, below) and {tuple(r) for r in flags.tolist()} == near
    assert np.array_equal(wcnt, [int(ww[s < x - 2].sum()) for x in t])


def test_block_index_offsets():
    Wb = np.array([4, 4, 9, 1, 30, 2, 2, 11], dtype=np.int64)
    bot = FC.bottom_table(Wb, 8)
    v = bot.values
    for g in range(bot.n_blocks):
        s0, e0 = g * 8, min(bot.n, g * 8 + 8)
        hi = v[e0] if e0 < bot.n else v[bot.n - 1]
        assert (hi - v[s0]) >> bot.sh[g] < 8
        for u in range(9):
            edge = v[s0] + (u << int(bot.sh[g]))
            assert bot.idx[g, u] == np.count_nonzero(v[s0:e0] < edge)


def test_subsets_with_sum_names_every_subset():
    W = np.array([3, 5, 3, 8, 2, 6, 5], dtype=np.int64)
    sums = _brute_sums(W)
    for value in {s for s, _ in sums} | {-1, 100}:
        assert FC.subsets_with_sum(W, value) == sorted(m for s, m in sums if s == value)


def test_bottom_ranks_stay_within_their_bounds():
    for R, K in itertools.product([0, 1, 8, 28, 48, 52, 60], [1, 3, 100, 16140, 10**6]):
        L = FC.bottom_ranks(R, K)
        assert L <= min(R, FC.MAX_BOTTOM) and (L >= -(-R // 2) or L == FC.MAX_BOTTOM)
    assert FC.bottom_ranks(48, 16140) == FC.MAX_BOTTOM and FC.bottom_ranks(48, 3) == 24


def test_kernels_stay_in_bounds(tmp_path):
    """The compiled kernels with numba's bounds checking on (a fresh cache, in a child process), unweighted
    and weighted, several blocks, and binary and graded DCG end to end: an out-of-range read (such as one
    numba hoists out of a branch) raises there instead of reading stray memory."""
    code = """
import numpy as np
from irscales.enumeration import _fixed_count as FC, meet
rng = np.random.default_rng(3)
top, _ = FC.sorted_sums(rng.integers(1, 1000, 7))
bot = FC.bottom_table(rng.integers(1, 300, 11), 64)
t = rng.integers(-100, 9000, 200)
FC.count_pairs_below(top, bot, t, 3, cap=1)
FC.count_pairs_below(top, bot, t, 3, weights=(np.ones(len(top), np.int64), np.arange(bot.n)), cap=1)
meet.dcg_below(rng.integers(0, 2, (40, 14)) > 0, 2)
meet.graded_dcg_below(rng.integers(0, 3, (40, 9)), 2, 2)
print("in bounds")
"""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and "in bounds" in out.stdout, out.stderr[-2000:]
