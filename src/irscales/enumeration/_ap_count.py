"""AP's ranked values by counting runs: a meet in the middle conditioned on the top half's hits
(issue 20; FFF21 §5.2.2, §7.1.3, §8).

AP = SP/RB orders and ties runs of REL^N as SP = Σ_{i: rel_i} c_i/i does (c_i = relevant documents in
ranks 1..i; :func:`irscales.enumeration._runs.numerator`), so φ_AP = φ_SP. Exact keys are
K(r) = SP(r)·L with L = lcm(1..N) (integers; int64 while N·L < 2^62, i.e. N ≤ :data:`AP_MAX_N` = 40).

**Counting runs below / up to a value (proven exact).** Split the ranks into a top part 1..h (x)
and a bottom part h+1..N (y). A relevant document at rank j > h has c_j = k(x) + c'_j(y), with k(x)
the hits of x and c'_j(y) those of y up to j, so

    K(r) = S(x) + A(y) + k(x)·B(y),   S(x) = Σ_{i≤h, rel} c_i L/i,  A(y) = Σ_{j rel} c'_j(y) L/j,
                                        B(y) = Σ_{j rel} L/j.

For each k = 0..h the bottom keys A + k·B are sorted once (distinct values with cumulative counts),
the top halves with k hits are grouped by their distinct S. The runs with K < t are then
Σ_k Σ_{s ∈ S_k} mult(s)·#{y : A(y) + k·B(y) < t − s}, one ``searchsorted`` per (query, s) (only for
the s between "every bottom" and "none", a narrow window for sparse runs); ``≤ t`` alike with
``side="right"``. All integer arithmetic: every count is exact, so φ_min = below + 1, φ_max = up-to and
φ_mid = their mean (:func:`irscales.enumeration.ties.tie_ranks`) are exact for N ≤ 40 (the proof is the
identity above), and equal to the engine's for every run at N ≤ 16, sampled runs at N = 18–22 and
every real T08 run cut at N = 5..24 (tests). Cost: about 0.4 ms per run at N = 30, 20–90 ms at N = 40
(sparse real runs / uniform runs; ``docs/benchmarks.md``).

**Distinct values (φ_unq).** AP has many exact ties and no known structure tells them, so counting
runs does not count values. What is exact here:

* N ≤ :data:`FULL_MAX_N` (24): all 2^N keys are formed from the tables and deduplicated
  (exact integers), φ_unq = distinct keys ≤ K(r) — an exact dedup, as the engine's.
* any N ≤ 40 and a run with at most ``budget`` runs up to its value: the keys ≤ K(r) are enumerated
  pair by pair from the tables and deduplicated (exact).

Otherwise φ_unq is **estimated** (:func:`phi_unq_estimate`, never by :func:`phi_ap`), from

    φ_unq(x) = Σ_{r: K(r) ≤ t} 1/m(K(r))     (m(v) = runs with key v = up-to(v) − below(v)),

i.e. φ_unq(x) = up-to(x)·E[1/m | K ≤ t] over runs uniform among those ≤ x. One shared sample of n runs
uniform over REL^N (seeded) gets its multiplicities m exactly by counting; for a query the j sample
runs with K ≤ t are, given j, iid uniform over the runs ≤ x, so φ̂ = up-to(x)·mean(1/m) over them is
unbiased given j, and since 1/m ∈ (0, 1] Hoeffding's inequality bounds it:
P(|φ̂ − φ_unq| ≥ up-to(x)·√(ln(2/δ)/(2j))) ≤ δ, per query (not simultaneously over queries). This
bound is *proven* (probabilistic); the errors actually found against the engine's exact φ_unq are
*measured* (``benchmarks/bench_ap_count.py --unq``, ``docs/benchmarks.md``): with every value estimated
(no exact part), 10,000 shared samples and 200 conditional ones (:func:`sample_below`) for low values,
the mean relative error is 0.4–1.5 % and the largest 4–15 % (at the lowest values) for N = 12..24 over
all runs and over the real T08 runs, always inside the bound. Beyond N = 24 nothing checks it.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from irscales.enumeration.ties import tie_ranks
from irscales._progress import bar as progress_bar
from irscales.options import UNQ
from irscales._distinct import distinct

__all__ = ["AP_MAX_N", "FULL_MAX_N", "ap_max_depth", "sp_keys", "split", "Tables", "tables", "count_sp", "unq_enumerated",
           "phi_ap", "phi_unq_exact", "UnqEstimate", "unq_sample", "sample_below", "phi_unq_estimate", "n_distinct_sp", "release_tables"]

FULL_MAX_N = 24  # φ_unq by deduplicating all 2^N keys (128 MB of int64 at N = 24)
_CHUNK = 1 << 22  # needles per searchsorted call
_TOP_MEM = 1 << 25  # at most this many bottom entries over all k (int64 keys + counts: 512 MB)


def ap_max_depth() -> int:
    """Largest N with N·lcm(1..N) < 2^62: the exact keys SP·lcm(1..N) fit int64 (N = 40)."""
    n = 1
    while (n + 1) * math.lcm(*range(1, n + 2)) < 2**62:
        n += 1
    return n


AP_MAX_N = ap_max_depth()


def _check_n(N: int) -> None:
    if not 1 <= N <= AP_MAX_N:
        raise ValueError(f"AP/SP is counted for 1 ≤ N ≤ {AP_MAX_N}, got N={N}: the exact keys SP·lcm(1..N) "
                         f"must fit int64 (N·lcm(1..N) < 2^62; lcm(1..{N}) = {math.lcm(*range(1, max(N, 1) + 1))})")


def _inv(N: int) -> np.ndarray:
    L = math.lcm(*range(1, N + 1))
    return np.array([L // i for i in range(1, N + 1)], dtype=np.int64)


def sp_keys(bits) -> np.ndarray:
    """Exact keys K = SP·lcm(1..N) = Σ_{i: rel_i} c_i·L/i of binary runs (shape (n, N)), int64."""
    b = (np.asarray(bits) > 0).astype(np.int64)
    _check_n(b.shape[1])
    return (b * np.cumsum(b, axis=1) * _inv(b.shape[1])).sum(axis=1)


def split(N: int, n_queries: int) -> int:
    """Top ranks h: minimises n_queries·2^h (searches) + (h+1)·2^{N−h} (bottom tables) under the memory
    bound (h+1)·2^{N−h} ≤ 2^25."""
    best, arg = None, N // 2
    for h in range(0, N):
        mem = (h + 1) * 2 ** (N - h)
        if mem > _TOP_MEM:
            continue
        cost = n_queries * 2**h * max(N - h, 1) + mem * max(N - h, 1)
        if best is None or cost < best:
            best, arg = cost, h
    return arg


def _all_bits(n: int) -> np.ndarray:
    ids = np.arange(2**n, dtype=np.int64)
    return ((ids[:, None] >> np.arange(n - 1, -1, -1)) & 1).astype(np.int64)


class Tables(NamedTuple):
    """Half tables of the split at h: ``top[k]`` = (distinct S of top halves with k hits, ascending;
    their multiplicities); ``bottom[k]`` = (sorted distinct A + k·B; cumulative counts with a leading 0)."""

    N: int
    h: int
    top: tuple
    bottom: tuple


@functools.lru_cache(maxsize=2)
def tables(N: int, h: int) -> Tables:
    """The :class:`Tables` of the split of N ranks into h top and N − h bottom ranks."""
    _check_n(N)
    inv = _inv(N)
    xb = _all_bits(h)
    s, k = (xb * np.cumsum(xb, axis=1) * inv[:h]).sum(1), xb.sum(1)
    top = []
    for kk in range(h + 1):
        v, c = np.unique(s[k == kk], return_counts=True)
        top.append((v, c.astype(np.int64)))
    yb = _all_bits(N - h)
    A = (yb * np.cumsum(yb, axis=1) * inv[h:]).sum(1)
    B = (yb * inv[h:]).sum(1)
    del yb
    bottom = []
    for kk in range(h + 1):
        v, c = np.unique(A + kk * B, return_counts=True)
        bottom.append((v, np.concatenate([[0], np.cumsum(c)]).astype(np.int64)))
    return Tables(N, h, tuple(top), tuple(bottom))


def count_sp(keys, N: int, h: int | None = None, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Exact numbers of runs of REL^N with key < t and ≤ t for each key t (int64 arrays).

    Per k, the top values s ≤ t − max(bottom) count every bottom and those s > t none (bottom keys
    start at 0), so only the window between them is searched (narrow for sparse runs). ``progress``:
    a tqdm bar on stderr over (hits in the top half, query) pairs (minutes at N = 40)."""
    _check_n(N)
    keys = np.asarray(keys, dtype=np.int64)
    uq, inv = np.unique(keys, return_inverse=True)
    if h is None:
        h = split(N, len(uq))
    T = tables(N, h)
    below = np.zeros(len(uq), np.int64)
    upto = np.zeros(len(uq), np.int64)
    bar = progress_bar(len(T.top) * len(uq), f"AP N={N} (counting)", progress)
    for (tv, tm), (bv, cum) in zip(T.top, T.bottom):
        if not len(tv):
            bar.update(len(uq))
            continue
        pm = np.concatenate([[0], np.cumsum(tm)])
        lo = np.searchsorted(tv, uq - bv[-1], "left")  # tops [0, lo): s < t − max, all bottoms below t
        hi = np.searchsorted(tv, uq, "right")  # tops [hi, n): s > t, no bottom up to t
        full = cum[-1] * pm[lo]
        width = hi - lo
        ends = np.cumsum(width)
        i = 0
        while i < len(uq):  # query chunks of about _CHUNK window entries
            j = max(i + 1, int(np.searchsorted(ends, (ends[i - 1] if i else 0) + _CHUNK, "right")))
            w = width[i:j]
            if 2 * w.sum() > (j - i) * len(tv):  # wide windows: every top of each query, as dense rows
                j = min(j, i + max(1, _CHUNK // len(tv)))
                need = (uq[i:j, None] - tv[None, ::-1]).ravel()  # ascending within each row
                below[i:j] += cum[np.searchsorted(bv, need, "left")].reshape(j - i, -1) @ tm[::-1]
                upto[i:j] += cum[np.searchsorted(bv, need, "right")].reshape(j - i, -1) @ tm[::-1]
                bar.update(j - i)
                i = j
                continue
            below[i:j] += full[i:j]
            upto[i:j] += full[i:j]
            if w.sum():
                q = np.repeat(np.arange(i, j), w)
                pos = np.arange(int(w.sum())) - np.repeat(np.cumsum(w) - w, w) + lo[q]
                need = uq[q] - tv[pos]
                b = np.concatenate([[0], np.cumsum(cum[np.searchsorted(bv, need, "left")] * tm[pos])])
                u = np.concatenate([[0], np.cumsum(cum[np.searchsorted(bv, need, "right")] * tm[pos])])
                e = np.cumsum(w)
                below[i:j] += b[e] - b[e - w]
                upto[i:j] += u[e] - u[e - w]
            bar.update(j - i)
            i = j
    bar.close()
    return below[inv].reshape(keys.shape), upto[inv].reshape(keys.shape)


@functools.lru_cache(maxsize=1)
def _all_distinct(N: int) -> np.ndarray:
    """Sorted distinct keys of all 2^N runs (N ≤ FULL_MAX_N), built from the half tables."""
    if N > FULL_MAX_N:
        raise ValueError(f"deduplicating all 2^{N} AP keys is done up to N = {FULL_MAX_N}")
    T = tables(N, N // 2)
    parts = [(tv[:, None] + bv[None, :]).ravel() for (tv, _), (bv, _) in zip(T.top, T.bottom) if len(tv)]
    return distinct(np.concatenate(parts))


def unq_enumerated(t: int, N: int) -> int:
    """Distinct keys ≤ t over REL^N, by enumerating the pairs of distinct top and bottom values ≤ t
    (exact; cost: the runs up to t)."""
    T = tables(N, N // 2)
    parts = []
    for (tv, _), (bv, _) in zip(T.top, T.bottom):
        if not len(tv):
            continue
        n = np.searchsorted(bv, t - tv, "right")
        sel = n > 0
        tv, n = tv[sel], n[sel]
        if not len(tv):
            continue
        start = np.repeat(np.cumsum(n) - n, n)
        idx = np.arange(int(n.sum())) - start
        parts.append(np.repeat(tv, n) + bv[idx])
    return len(distinct(np.concatenate(parts))) if parts else 0


def phi_unq_exact(bits, budget: int = 1 << 24) -> np.ndarray:
    """Exact φ_unq of AP/SP (distinct values ≤ the run's) for binary runs (n, N): all keys deduplicated
    when N ≤ FULL_MAX_N, else pair enumeration for runs with at most ``budget`` runs up to their value.
    Raises ``ValueError`` naming how many runs exceed the budget (use :func:`phi_unq_estimate`)."""
    bits = np.asarray(bits) > 0
    N = bits.shape[1]
    keys = sp_keys(bits)
    if N <= FULL_MAX_N:
        return np.searchsorted(_all_distinct(N), keys, "right").astype(np.int64)
    uq, inv = np.unique(keys, return_inverse=True)
    _, upto = count_sp(uq, N)
    if (upto > budget).any():
        raise ValueError(f"φ_unq of AP at N={N} is exact only by deduplication (N ≤ {FULL_MAX_N}) or for runs "
                         f"with ≤ {budget:,} runs up to their value; {(upto > budget).sum()} distinct values "
                         "exceed it: use irscales.enumeration._ap_count.phi_unq_estimate or the stored scale")
    return np.array([unq_enumerated(int(t), N) for t in uq], dtype=np.int64)[inv].reshape(keys.shape)


def phi_ap(bits, ties: str, progress: bool = False) -> np.ndarray:
    """Exact φ of AP (= φ of SP, any recall base) of binary runs (n, N), ties ``min``/``max``/``mid``
    counted at any N ≤ 40; ``unq`` only where exact (:func:`phi_unq_exact`), never estimated."""
    bits = np.asarray(bits) > 0
    if ties == UNQ:
        return phi_unq_exact(bits)
    below, upto = count_sp(sp_keys(bits), bits.shape[1], progress=progress)
    return tie_ranks(below, upto, None, ties)


class UnqEstimate(NamedTuple):
    """φ_unq estimates: ``value`` (float), Hoeffding ``halfwidth`` at level 1 − δ (0 where exact),
    ``exact`` (bool: value computed exactly), ``n_used`` (sample runs at or below the value)."""

    value: np.ndarray
    halfwidth: np.ndarray
    exact: np.ndarray
    n_used: np.ndarray


@functools.lru_cache(maxsize=4)
def unq_sample(N: int, n_samples: int = 10_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Keys of n uniform random runs of REL^N (seeded), sorted, and the prefix sums of 1/m of their values
    (m = runs with that key, counted exactly), with a leading 0."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, (n_samples, N), dtype=np.int8)
    keys = np.sort(sp_keys(bits))
    below, upto = count_sp(keys, N)
    return keys, np.concatenate([[0.0], np.cumsum(1.0 / (upto - below))])


def sample_below(t: int, N: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Keys of n runs drawn uniformly (exactly: integer draws) among the runs of REL^N with key ≤ t, from
    the half tables: a run is a (top half, bottom half) pair, drawn as one integer in [0, up-to(t))."""
    T = tables(N, N // 2)
    tops, nbs, blocks = [], [], []
    for (tv, tm), (bv, cum) in zip(T.top, T.bottom):
        nb = cum[np.searchsorted(bv, t - tv, "right")]  # bottoms with key ≤ t − s, per top value s
        tops.append(tv), nbs.append(nb), blocks.append(tm * nb)  # runs ≤ t per top value: mult · bottoms
    block = np.concatenate(blocks)
    ends = np.cumsum(block)
    u = rng.integers(0, int(ends[-1]), n)
    which = np.searchsorted(ends, u, "right")
    off = u - (ends[which] - block[which])
    first = np.cumsum([0] + [len(tv) for tv in tops])
    out = np.empty(n, np.int64)
    for k, (bv, cum) in enumerate(T.bottom):
        sel = (which >= first[k]) & (which < first[k + 1])
        if sel.any():
            i = which[sel] - first[k]
            y = off[sel] % nbs[k][i]  # which of the nb bottom runs (all tops of one value share them)
            out[sel] = tops[k][i] + bv[np.searchsorted(cum, y, "right") - 1]
    return out


def phi_unq_estimate(bits, *, n_samples: int = 10_000, seed: int = 0, delta: float = 0.05,
                     budget: int = 1 << 16, n_cond: int = 200) -> UnqEstimate:
    """Estimated φ_unq of AP/SP for binary runs (n, N) with a per-query Hoeffding half-width at level
    1 − δ (module docstring): φ̂ = up-to(x)·mean(1/m) over the runs ≤ x of the shared sample, or, where it
    has fewer than ``n_cond`` of them, over ``n_cond`` runs drawn uniformly among the runs ≤ x
    (:func:`sample_below`); clipped to [1, up-to(x)]. Exact (half-width 0) for N ≤ FULL_MAX_N when
    ``budget`` ≥ 2^N, and for runs with at most ``budget`` runs up to their value (``budget=0``:
    estimate everything)."""
    bits = np.asarray(bits) > 0
    N = bits.shape[1]
    keys = sp_keys(bits)
    uq, inv = np.unique(keys, return_inverse=True)
    _, upto = count_sp(uq, N)
    sk, cs = unq_sample(N, n_samples, seed)
    j = np.searchsorted(sk, uq, "right")
    mean = cs[j] / np.maximum(j, 1)
    exact = upto <= budget
    cond = np.nonzero(~exact & (j < n_cond))[0]
    if len(cond):
        rng = np.random.default_rng([seed, N])
        ck = np.concatenate([sample_below(int(uq[i]), N, n_cond, rng) for i in cond])
        lo, hi = count_sp(ck, N)
        mean[cond] = (1.0 / (hi - lo)).reshape(len(cond), n_cond).mean(axis=1)
        j[cond] = n_cond
    val = np.clip(upto * mean, 1, upto)
    hw = upto * np.sqrt(np.log(2 / delta) / (2 * np.maximum(j, 1)))
    if exact.any():
        if N <= FULL_MAX_N:
            val[exact] = np.searchsorted(_all_distinct(N), uq[exact], "right")
        else:
            val[exact] = [unq_enumerated(int(t), N) for t in uq[exact]]
        hw[exact] = 0
    return UnqEstimate(val[inv], hw[inv], exact[inv], np.where(exact, 0, j)[inv])


def n_distinct_sp(N: int) -> int:
    """|SP(REL^N)| = |AP(REL^N)| by exact deduplication of all 2^N keys (N ≤ FULL_MAX_N)."""
    _check_n(N)
    return len(_all_distinct(N))


def release_tables() -> None:
    """Drop the tables kept between counts (the half tables and the sorted distinct keys: GBs at N = 30–40)."""
    tables.cache_clear()
    _all_distinct.cache_clear()
