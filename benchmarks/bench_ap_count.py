"""Benchmark of AP's φ by counting (issue 20; ``irscales.enumeration._ap_count``): time per run at
N = 30 and 40 for simulated runs, and (``--unq``) the error of the φ_unq estimate against the engine's
exact φ_unq for N = 12..24, over all runs (N ≤ 16; 20,000 uniform random runs beyond) and over the
real TREC-8 runs when present.

Simulated runs: seeded uniform binary runs (every rank relevant with probability 1/2, values in the
middle of the scale). Prints markdown tables and the load average.

    python benchmarks/bench_ap_count.py --quick   # N = 30: 129 × 50; N = 40: 129 × 2 (extrapolated)
    python benchmarks/bench_ap_count.py           # N = 30 and 40: 129 × 50
    python benchmarks/bench_ap_count.py --unq     # estimate vs exact φ_unq, N = 12..24
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np


def _cpu() -> float:
    return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))


def timing(systems: int, topics: int, quick: bool) -> None:
    from irscales import measures as M
    from irscales.enumeration import _ap_count as A
    from irscales.enumeration import counting as C

    rng = np.random.default_rng(20)
    col = _t08(40)
    print("| step | runs | wall s | CPU s | ms per run | 129 × 50 runs (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for N, s in ((30, systems), (40, 2 if quick else systems)):
        rel = rng.integers(0, 2, (s, topics, N), dtype=np.int8)
        n = s * topics
        t, c = time.perf_counter(), _cpu()
        h = A.split(N, n)
        A.tables(N, h)
        w, cpu = time.perf_counter() - t, _cpu() - c
        print(f"| half tables, N = {N} (top {h} ranks, bottom {N - h}) | — | {w:.2f} | {cpu:.2f} | | |")
        t, c = time.perf_counter(), _cpu()
        lo = C.phi_runs(M.AP(), rel, "min")
        w, cpu = time.perf_counter() - t, _cpu() - c
        assert lo.shape == (s, topics) and lo.min() >= 1
        extra = "" if n == 129 * 50 else " (extrapolated)"
        print(f"| φ_min = below + 1 and up-to, AP, N = {N}, {s} × {topics} | {n:,} | {w:.2f} | {cpu:.2f} "
              f"| {1000 * w / n:.1f} | {w / n * 6450:.0f}{extra} |")
        if col is not None:
            rel = col.binary(N)
            t, c = time.perf_counter(), _cpu()
            C.phi_runs(M.AP(), rel, "min")
            w, cpu = time.perf_counter() - t, _cpu() - c
            print(f"| φ_min and up-to, AP, N = {N}, the real T08 runs (129 × 50) | 6,450 | {w:.2f} | {cpu:.2f} "
                  f"| {1000 * w / 6450:.1f} | {w:.0f} |")
        if N == 30:
            t, c = time.perf_counter(), _cpu()
            A.unq_sample(N, 10_000)
            w, cpu = time.perf_counter() - t, _cpu() - c
            print(f"| φ_unq estimate: multiplicities of the 10,000-run sample, N = {N} | 10,000 | {w:.2f} | "
                  f"{cpu:.2f} | {1000 * w / 1e4:.1f} | |")


def _t08(depth: int):
    from irscales import paths

    track = paths.trec_track("T08")
    if track is None:
        return None
    from irscales.data.collection import Collection
    return Collection.from_trec(track.runs, track.qrels, depth=depth)


def _report(label: str, est: np.ndarray, hw: np.ndarray, exact: np.ndarray, weight: np.ndarray) -> str:
    rel = np.abs(est - exact) / exact
    w = weight / weight.sum()
    inside = (np.abs(est - exact) <= hw)
    return (f"| {label} | {int(weight.sum()):,} | {100 * rel.max():.3f} | {100 * float(rel @ w):.3f} "
            f"| {100 * float(inside @ w):.2f} | {100 * float((hw / exact) @ w):.2f} |")


def unq(n_samples: int, seed: int) -> None:
    from irscales import enumeration as E
    from irscales import measures as M
    from irscales.enumeration import _ap_count as A

    col = _t08(24)
    print(f"φ_unq estimate (budget 0: every value estimated; {n_samples:,} sample runs, seed {seed}, δ = 0.05) "
          "against the engine's exact φ_unq; relative error |φ̂ − φ|/φ in %.\n")
    print("| runs | count | max rel. err. % | mean rel. err. % | inside Hoeffding bound % | mean bound % | s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(seed + 1)
    for N in range(12, 25, 2):
        sc = E.scale(M.SP(), N, cache=True, method="engine", build=True)  # the exact reference
        t = time.perf_counter()
        if N <= 16:
            rel, label = E.runs_from_ids(np.arange(2**N), N), f"all 2^{N} runs, N = {N}"
        else:
            rel, label = rng.integers(0, 2, (20_000, N)), f"20,000 uniform random runs, N = {N}"
        got = A.phi_unq_estimate(rel, n_samples=n_samples, seed=seed, budget=0)
        ex = sc.phi_runs(rel, "unq").astype(float)
        print(_report(label, got.value, got.halfwidth, ex, np.ones(len(ex))) + f" {time.perf_counter() - t:.1f} |")
        if col is not None:
            t = time.perf_counter()
            rel = col.binary(N).reshape(-1, N)
            got = A.phi_unq_estimate(rel, n_samples=n_samples, seed=seed, budget=0)
            ex = sc.phi_runs(rel, "unq").astype(float)
            print(_report(f"T08, 129 × 50 real runs cut at N = {N}", got.value, got.halfwidth, ex, np.ones(len(ex)))
                  + f" {time.perf_counter() - t:.1f} |")
    for N in (20, 30):
        v = A.phi_unq_estimate(np.ones((1, N), int), n_samples=n_samples, seed=seed, budget=0)
        print(f"\nestimated |AP(REL^{N})| (φ_unq of the all-relevant run): {v.value[0]:,.0f} ± {v.halfwidth[0]:,.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--unq", action="store_true")
    ap.add_argument("--systems", type=int, default=129)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    if a.unq:
        unq(a.samples, a.seed)
    else:
        timing(a.systems, a.topics, a.quick)
    print(f"\npeak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
