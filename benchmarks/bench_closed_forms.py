"""Benchmark of the closed-form φ at huge depth (issue 27, item 7): ranked P and RR (and RBP_p05) at
N = 100,000 for a TREC-sized run set, every tie strategy, through the planner (``ranked_runs``).

Before issue 27 ranked P / RR at depth 30,000–100,000 ran for more than 600 s (every C(N, j) computed,
for every tie strategy) and ties min/mid failed with "int too large to convert to float". The runs are
simulated (seeded): 129 systems × 50 topics, each run with relevant documents at random ranks among its
first 1,000 (density 5 %, like a real run padded to N), plus ``--dense`` runs with half of all N ranks
relevant, the worst case of P's min/max/mid (the binomial walk of ``counting.grade_sum_prefix`` reaches
N/2). Prints a markdown table: wall and CPU seconds per (measure, ties), and the result's dtype.

    python benchmarks/bench_closed_forms.py             # N = 100,000, 129 × 50 runs + 2 dense runs
    python benchmarks/bench_closed_forms.py --quick     # N = 30,000, 20 × 50 runs
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--N", type=int, default=None)
    ap.add_argument("--systems", type=int, default=None)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--dense", type=int, default=2, help="runs with half of all ranks relevant (worst case)")
    a = ap.parse_args()
    N = a.N or (30_000 if a.quick else 100_000)
    S = a.systems or (20 if a.quick else 129)

    from irscales.enumeration import ranked_runs
    from irscales.enumeration.ties import TIES

    rng = np.random.default_rng(27)
    sparse = np.zeros((S, a.topics, N), np.int8)  # simulated runs
    head = min(1000, N)
    sparse[..., :head] = rng.random((S, a.topics, head)) < 0.05
    dense = (rng.random((a.dense, N)) < 0.5).astype(np.int8)
    print(f"load average before: {os.getloadavg()[0]:.2f}; N = {N:,}; {S} × {a.topics} simulated sparse runs "
          f"(5 % of the first {head:,} ranks relevant) and {a.dense} dense runs (half of all ranks)\n")
    print("| measure | ties | runs | wall s | CPU s | dtype |")
    print("|---|---|---:|---:|---:|---|")
    for name in ("P", "RR", "RBP_p05"):
        for ties in TIES:
            for label, rel in (("sparse", sparse), ("dense", dense)):
                if label == "dense" and (name != "P" or not a.dense):
                    continue
                t, c = time.perf_counter(), _cpu()
                phi = ranked_runs(name, rel, ties, progress=False)
                w, cpu = time.perf_counter() - t, _cpu() - c
                assert phi.shape == rel.shape[:-1]
                n = rel.size // N
                print(f"| {name} | {ties} | {n:,} {label} | {w:.2f} | {cpu:.2f} | {phi.dtype} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"\npeak resident memory: {peak:.2f} GB (the runs themselves: {sparse.nbytes / 1e9:.2f} GB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
