"""Benchmark of the bracketed φ of additive measures (issue 42): RBP_p08 (binary) and trec_eval's graded nDCG@N
on the 10 Robust 2004 runs × 249 topics (grades 0..2), every tie strategy.

Each row: the measure, N, the tie strategy (first all four in one call of ``phi_bounds_ties``), wall seconds
of :func:`irscales.enumeration.bracket_additive.phi_bounds` over all 2,490 runs, the process's peak resident memory so far (``VmHWM``), the largest achieved relative width
max(hi/lo − 1) and how many runs are exact (lo = hi).

    python benchmarks/bench_bracket.py                      # RBP_p08 at 20..1000, nDCG@20..100
    python benchmarks/bench_bracket.py --measures RBP_p08 --N 1000 --ties unq

Needs the shared folder (``IRSCALES_SHARED``); without it the script says so and stops.
"""
from __future__ import annotations

import argparse
import time
import warnings


def peak_mb() -> int:
    line = next(x for x in open("/proc/self/status") if x.startswith("VmHWM"))
    return int(line.split()[1]) // 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measures", nargs="*", default=["RBP_p08", "nDCG"])
    ap.add_argument("--N", type=int, nargs="*")
    ap.add_argument("--ties", nargs="*", default=["unq", "min", "max", "mid"])
    a = ap.parse_args()
    from irscales.enumeration.bracket_additive import phi_bounds, phi_bounds_ties
    from irscales.papers.fff21 import graded_data as D

    if not D.available("robust2004"):
        print("skipped: " + D.missing_reason("robust2004"))
        return 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        col = D.load("robust2004", depth=1000).collection
    print("| measure | N | ties | wall s | peak RSS MB | max rel. width | exact runs |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name in a.measures:
        Ns = a.N or ([20, 30, 50, 100, 1000] if name.startswith("RBP") else [20, 30, 50, 100])
        for N in Ns:
            rel = col.rel_at(N)
            measure, c = (name, 1) if name.startswith("RBP") else (f"{name}@{N}", 2)
            t = time.perf_counter()
            phi_bounds_ties(measure, rel, a.ties, N=N, c=c)
            print(f"| {measure} | {N} | {', '.join(a.ties)} in one call | {time.perf_counter() - t:.1f} | "
                  f"{peak_mb()} | | |", flush=True)
            for ties in a.ties:
                t = time.perf_counter()
                lo, hi = phi_bounds(measure, rel, ties, N=N, c=c)
                wall = time.perf_counter() - t
                width = max(float(h / l) - 1 for l, h in zip(lo.ravel(), hi.ravel()))
                exact = sum(l == h for l, h in zip(lo.ravel(), hi.ravel()))
                print(f"| {measure} | {N} | {ties} | {wall:.1f} | {peak_mb()} | {width:.2e} | {exact}/{lo.size} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
