"""Benchmark of graded scales (issue 20): the chunked engine over G = 3 and G = 4 grades, and graded
RBP φ by counting.

Builds graded DCG_b02 over 3^N runs and gRBP_p08 over 4^N runs into a temporary cache (removed
afterwards; gRBP's 4^15 distinct keys alone take 8.6 GB), one worker, and counts φ of gRBP_p08 over
five grades and of gnDCG_b02 over three grades for seeded uniform graded runs (simulated here).
Prints a markdown table.

    python benchmarks/bench_graded.py            # G = 3 at N = 18, G = 4 at N = 14 (~20 s each)
    python benchmarks/bench_graded.py --quick    # G = 3 at N = 15, G = 4 at N = 12
    python benchmarks/bench_graded.py --N3 19 --N4 15   # the issue's depths (~70 s and ~4 min)
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--N3", type=int, default=None)
    ap.add_argument("--N4", type=int, default=None)
    a = ap.parse_args()
    n3 = a.N3 or (15 if a.quick else 18)
    n4 = a.N4 or (12 if a.quick else 14)

    from irscales import enumeration as E
    from irscales import measures as M
    from irscales.enumeration import counting as C

    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    print("| what | runs | distinct values | wall s |")
    print("|---|---:|---:|---:|")
    for m, c, N in [(M.DCG(base=2, gains="graded"), 2, n3), (M.GRBP(p=0.8, max_gain=3), 3, n4)]:
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            s = E.scale(m, N, c=c, cache=d, workers=1, progress=False, method="engine", build=True)
            print(f"| engine build, {m.key}, G = {c + 1}, N = {N} | {(c + 1) ** N:,} | {s.n_distinct:,} | "
                  f"{time.perf_counter() - t:.1f} |", flush=True)
    m = M.GRBP(p=0.8, max_gain=4)
    for N in (14, 16):
        rel = np.random.default_rng(N).integers(0, 5, size=(2000, N))  # simulated graded runs
        t = time.perf_counter()
        C.phi_runs(m, rel, c=4)
        print(f"| φ counted, {m.key}, G = 5, N = {N}, 2,000 simulated runs | {5 ** N:,} | {5 ** N:,} | "
              f"{time.perf_counter() - t:.1f} |", flush=True)
    g = M.NDCG(base=2, gains="graded")  # counted over class coefficients (irscales.enumeration.meet)
    for N in ((20, 26) if a.quick else (20, 26, 30)):
        rel = np.random.default_rng(N).integers(0, 3, size=(200, N))  # simulated graded runs
        t = time.perf_counter()
        C.phi_runs(g, rel, c=2)
        print(f"| φ counted, {g.key}, G = 3, N = {N}, 200 simulated runs (incl. tables) | {3 ** N:,} | "
              f"{C.n_distinct(g, N, 2):,} | {time.perf_counter() - t:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
