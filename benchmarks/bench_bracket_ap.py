"""Benchmark of AP's proven φ bounds (issue 42; ``irscales.enumeration.bracket_ap``) on the 10 Robust 2004
runs × 249 topics: wall and CPU time, peak memory and the largest relative width hi/lo − 1 reached, per N
and tie strategy, each (N, ties) in a fresh process (peak memory of that cell alone).

    python benchmarks/bench_bracket_ap.py                       # N = 20 30 50 100, ties max
    python benchmarks/bench_bracket_ap.py --N 1000 --budget 60   # the far lower tail: bounds stay wide
    python benchmarks/bench_bracket_ap.py --ties min max mid unq
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cell(N: int, ties: str, budget: float) -> None:
    """One (N, ties) on the Robust 2004 runs; prints a markdown row."""
    from irscales import measures as M
    from irscales import paths
    from irscales.data.collection import Collection
    from irscales.enumeration import bracket_ap as B

    folder = paths.shared_dir(required=True) / "trec" / "R04-partial"
    warnings.filterwarnings("ignore", message=".*no judgments in the qrels")  # topic 672, known
    col = Collection.from_trec(sorted((folder / "runs").iterdir()), folder / "qrels.robust2004.txt.gz", depth=N)
    rel = col.binary(N)
    B.phi_bounds(M.AP(), rel[:1, :1, :20], "max", N=20)  # compile / load the kernels outside the timing
    t, c = time.perf_counter(), _cpu()
    lo, hi = B.phi_bounds(M.AP(), rel, ties, N=N, budget_s=budget)
    wall, cpu = time.perf_counter() - t, _cpu() - c
    width = np.array([float(b / a) - 1 for a, b in zip(lo.ravel(), hi.ravel())])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {N} | {ties} | {rel.shape[0] * rel.shape[1]} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | "
          f"{width.max():.4g} | {(width > 0.01).sum()} | {B.bracket_kind(N, ties)} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--N", type=int, nargs="+", default=[20, 30, 50, 100])
    ap.add_argument("--ties", nargs="+", default=["max"])
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of refinement per cell")
    ap.add_argument("--cell", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cell:
        cell(int(args.cell[0]), args.cell[1], args.budget)
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; budget {args.budget:.0f} s per cell")
    print("| N | ties | runs | wall s | CPU s | peak MB | max hi/lo − 1 | runs > 1 % | kind |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for N in args.N:
        for ties in args.ties:
            subprocess.run([sys.executable, __file__, "--cell", str(N), ties, "--budget", str(args.budget)],
                           check=True)


if __name__ == "__main__":
    main()
