"""Benchmark of AP's proven φ bounds (issue 42; ``irscales.enumeration._bracket_ap``) on the 10 Robust 2004
runs × 249 topics: wall and CPU time, peak memory and the largest relative width hi/lo − 1 reached, per N
and tie strategy, each (N, ties) in a fresh process (peak memory of that cell alone).

    python benchmarks/bench_bracket_ap.py                       # N = 20 30 50 100, ties max
    python benchmarks/bench_bracket_ap.py --N 1000 --rel-error 1.0   # the far lower tail: within a factor 2
    python benchmarks/bench_bracket_ap.py --ties min max mid unq
    python benchmarks/bench_bracket_ap.py --reachable --N 200 300 500 1000   # the table REACHABLE of
                                                            # irscales.enumeration._bracket_ap_reach (issue 51)
"""

from __future__ import annotations

import argparse
import math
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


def cell(N: int, ties: str, budget: float, rel_error: float) -> None:
    """One (N, ties) on the Robust 2004 runs; prints a markdown row."""
    from irscales import measures as M
    from irscales import paths
    from irscales.data.collection import Collection
    from irscales.enumeration import _bracket_ap as B

    folder = paths.shared_dir(required=True) / "trec" / "R04-partial"
    warnings.filterwarnings("ignore", message=".*no judgments in the qrels")  # topic 672, known
    col = Collection.from_trec(sorted((folder / "runs").iterdir()), folder / "qrels.robust2004.txt.gz", depth=N)
    rel = col.binary(N)
    B.phi_bounds(M.AP(), rel[:1, :1, :20], "max", N=20)  # compile / load the kernels outside the timing
    t, c = time.perf_counter(), _cpu()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # wider than asked: counted below
        lo, hi = B.phi_bounds(M.AP(), rel, ties, N=N, budget_s=budget, rel_error=rel_error)
    wall, cpu = time.perf_counter() - t, _cpu() - c
    width = np.array([float(b / a) - 1 for a, b in zip(lo.ravel(), hi.ravel())])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {N} | {ties} | {rel.shape[0] * rel.shape[1]} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | "
          f"{width.max():.4g} | {(width > rel_error).sum()} | {B.bracket_kind(N, ties)} |", flush=True)


def reachable(N: int) -> None:
    """The error the planner predicts within the budget and its cell cap for the values at N (the pilot and the plan
    only, no refinement): a row of :data:`irscales.enumeration._bracket_ap_reach.REACHABLE`."""
    from irscales import paths
    from irscales.data.collection import Collection
    from irscales.enumeration import _bracket_ap as B
    from irscales.enumeration._bracket_ap_plan import sweep

    folder = paths.shared_dir(required=True) / "trec" / "R04-partial"
    warnings.filterwarnings("ignore", message=".*no judgments in the qrels")
    col = Collection.from_trec(sorted((folder / "runs").iterdir()), folder / "qrels.robust2004.txt.gz", depth=N)
    keys, L = B.sp_exact(col.binary(N).reshape(-1, N), N)
    pos = sorted(set(k for k in keys if k > 0))
    t = time.perf_counter()
    res = sweep(pos, L, N, math.inf, B.BUDGET_S, exact=lambda K: B.count_exact(K, L, N))
    print(f"| {N} | {len(pos)} | {res.passes[0][0]} | {res.reachable:.4g} | {time.perf_counter() - t:.1f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--N", type=int, nargs="+", default=[20, 30, 50, 100])
    ap.add_argument("--ties", nargs="+", default=["max"])
    ap.add_argument("--budget", type=float, default=300.0, help="seconds of refinement per cell")
    ap.add_argument("--rel-error", type=float, default=0.01, help="the target hi/lo − 1")
    ap.add_argument("--cell", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--reachable", action="store_true", help="the planner's reachable error per N (no refinement)")
    args = ap.parse_args()
    if args.reachable:
        print("| N | distinct values | pilot grid | reachable error | seconds |\n|---:|---:|---:|---:|---:|")
        for N in args.N:
            reachable(N)
        return
    if args.cell:
        cell(int(args.cell[0]), args.cell[1], args.budget, args.rel_error)
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; budget {args.budget:.0f} s per cell")
    print("| N | ties | runs | wall s | CPU s | peak MB | max hi/lo − 1 | runs wider than the target | kind |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for N in args.N:
        for ties in args.ties:
            subprocess.run([sys.executable, __file__, "--cell", str(N), ties, "--budget", str(args.budget),
                            "--rel-error", str(args.rel_error)],
                           check=True)


if __name__ == "__main__":
    main()
