"""Monte Carlo estimates of the IPSO category fractions from uniformly random binary SERP pairs,
as MM23 did for Table 2 at k ≥ 20 (§3), with Wilson score intervals."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from irscales.ipso._compare import Relation

__all__ = ["MonteCarloResult", "monte_carlo", "default_workers"]


@lru_cache(maxsize=None)
def _block_tables(b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every one of the 4^b bit patterns of b ranks of a pair: net change of cumul, and its
    highest and lowest prefix value within the block. Index bits 0..b−1 are S1's ranks, bits
    b..2b−1 are S2's (a bijection, so an index drawn uniformly is a pair block drawn uniformly)."""
    m = 4**b
    idx = np.arange(m, dtype=np.int64)
    c = np.zeros(m, dtype=np.int64)
    hi = np.full(m, -(10**6), dtype=np.int64)
    lo = np.full(m, 10**6, dtype=np.int64)
    for j in range(b):
        c = c + ((idx >> j) & 1) - ((idx >> (b + j)) & 1)
        hi = np.maximum(hi, c)
        lo = np.minimum(lo, c)
    return c.astype(np.int16), hi.astype(np.int16), lo.astype(np.int16)


def _mc_task(args) -> np.ndarray:
    """Simulate n uniform pairs with one child generator; counts (len(depths), 4)."""
    seed_seq, n, depths, chunk = args
    rng = np.random.Generator(np.random.PCG64(seed_seq))
    depths = list(depths)
    kmax = depths[-1]
    dt = np.int8 if kmax < 127 else np.int16
    # blocks of ≤ 8 ranks, cut so that every requested depth ends a block
    plan, at = [], 0
    for d in depths:
        while at < d:
            b = min(8, d - at)
            plan.append((b, at + b == d))
            at += b
    tabs = {b: tuple(t.astype(dt) for t in _block_tables(b)) for b, _ in plan}
    # compact at the first block end at or after ranks 16, 48, 160, …: about half, two thirds, … have
    # settled by then (non-separable fraction ≈ 1 − 4/√(πk)), and enough blocks remain to gain
    ends = np.cumsum([b for b, _ in plan])
    marks = [16 * (2 ** (2 * i) + 2 ** i) // 2 for i in range(8)]  # 16, 48, 160, 576, …
    compact_after = {int(np.searchsorted(ends, t)) for t in marks if t <= ends[-1]}
    compact_after = {j for j in compact_after if j < len(plan) - 2}
    out = np.zeros((len(depths), 4), dtype=np.int64)
    done = 0
    while done < n:
        m = min(chunk, n - done)
        c = np.zeros(m, dtype=dt)
        hi = np.zeros(m, dtype=dt)
        lo = np.zeros(m, dtype=dt)
        settled = 0  # pairs already non-separable: no later rank can change that (MM23 §2)
        di = 0
        for j, (b, checkpoint) in enumerate(plan):
            net, thi, tlo = tabs[b]
            # the block's bits of the pairs still undecided; a uniform 2b-bit index is a
            # uniform pair of b-rank blocks
            ix = rng.integers(0, 4**b, size=len(c), dtype=np.uint16).astype(np.intp)
            tmp = c + thi.take(ix)
            np.maximum(hi, tmp, out=hi)
            np.add(c, tlo.take(ix), out=tmp)
            np.minimum(lo, tmp, out=lo)
            c += net.take(ix)
            if not (checkpoint or j in compact_after):
                continue
            code = (hi > 0).astype(np.int8) + 2 * (lo < 0).astype(np.int8)
            if checkpoint:
                out[di] += np.bincount(code, minlength=4)
                out[di, Relation.NONSEP] += settled
                di += 1
            if j in compact_after:  # drop the settled pairs (only where that pays for the copy)
                keep = np.flatnonzero(code != Relation.NONSEP)
                settled += len(c) - len(keep)
                c, hi, lo = c.take(keep), hi.take(keep), lo.take(keep)
        done += m
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """Category counts of ``n`` uniformly random SERP pairs at each depth (prefixes of the same
    pairs), with estimates and Wilson score intervals."""

    depths: tuple[int, ...]
    counts: np.ndarray  # (len(depths), 4) int64
    n: int

    def to_frame(self, z: float = 1.959963984540054) -> pd.DataFrame:
        """Per depth: estimated fractions, standard errors and ``z``-level Wilson intervals of
        equal / separable / non-separable."""
        rows = []
        for d, c in zip(self.depths, self.counts):
            groups = {"equal": c[0], "separable": c[1] + c[2], "nonsep": c[3]}
            row = {"k": d}
            for g, x in groups.items():
                p = x / self.n
                lo, hi = _wilson(int(x), self.n, z)
                row[g] = p
                row[f"{g}_se"] = math.sqrt(p * (1 - p) / self.n)
                row[f"{g}_lo"], row[f"{g}_hi"] = lo, hi
            rows.append(row)
        return pd.DataFrame(rows).set_index("k")


def _wilson(x: int, n: int, z: float) -> tuple[float, float]:
    p = x / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def monte_carlo(
    depths: Sequence[int],
    n_pairs: int,
    rng: np.random.Generator,
    *,
    workers: int = 1,
    task_size: int = 2**24,
    chunk: int = 2**18,
) -> MonteCarloResult:
    """Estimate the category fractions at each depth from ``n_pairs`` uniform random SERP pairs
    (each bit 0 or 1 with probability ½, independently — MM23 §3, Table 2 for k ≥ 20).

    All depths are read from the same pairs (depth d uses their first d ranks). The pairs are
    split into tasks of ``task_size``, each with its own generator spawned from ``rng``, so the
    result depends on ``rng`` and ``task_size`` only, not on ``workers`` (processes).
    Each pair's bits are drawn 8 ranks at a time and Algorithm 1 is advanced through a lookup
    table of the block's net change and extreme prefix values. A pair that has become
    non-separable stays so at every greater depth (MM23 §2), so its later bits are not drawn.
    """
    ds = sorted(set(int(d) for d in depths))
    if not ds or ds[0] < 1 or ds[-1] > 30000:
        raise ValueError(f"depths must be positive integers ≤ 30000, got {list(depths)!r}")
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be positive, got {n_pairs}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("pass an explicit numpy.random.Generator as rng (np.random.default_rng(seed))")
    n_tasks = -(-n_pairs // task_size)
    seeds = rng.bit_generator.seed_seq.spawn(n_tasks) if hasattr(rng.bit_generator, "seed_seq") else None
    if seeds is None:  # pragma: no cover - every numpy BitGenerator has a seed sequence
        raise TypeError("rng's bit generator cannot spawn independent streams")
    tasks = [(seeds[i], min(task_size, n_pairs - i * task_size), tuple(ds), chunk) for i in range(n_tasks)]
    if workers > 1 and n_tasks > 1:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            parts = list(ex.map(_mc_task, tasks))
    else:
        parts = [_mc_task(t) for t in tasks]
    return MonteCarloResult(tuple(ds), np.sum(parts, axis=0), int(n_pairs))


def default_workers() -> int:
    """Processes to use for Monte Carlo: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)
