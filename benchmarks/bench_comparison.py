"""Benchmark the comparison table's tests (issue 38); prints markdown tables and the load average.

- ``report``'s tests on one evaluation: every ``Evaluation.compare(test=...)`` on the 129 TREC-8 runs
  (AP and P@10 at depth 10, original and interval scale: 4 × 8,256 pairs), given their folder and qrels;
  and scipy's per-pair ``studentized_range.sf`` (what Tukey's p-values cost before) on a sample of pairs,
  extrapolated to all of them.
- The sign test over many generated topics (10 systems, 45 pairs): wall and CPU seconds, peak memory.

    python benchmarks/bench_comparison.py --t08 RUNS_DIR QRELS   # both
    python benchmarks/bench_comparison.py                        # the sign test only
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed(fn):
    w, c = time.perf_counter(), _cpu()
    out = fn()
    return out, time.perf_counter() - w, _cpu() - c


def report_tests(runs: str, qrels: str) -> None:
    from scipy import stats

    from irscales.evaluation import evaluate

    ev, w, c = _timed(lambda: evaluate(qrels, runs, "AP,P@10", depth=10, ranked=True, progress=False))
    print(f"evaluation of {len(ev.systems)} runs × {len(ev.topics)} topics: {w:.1f} s wall, {c:.1f} s CPU\n")
    print("| test | wall s | CPU s |")
    print("|---|---:|---:|")
    for test in ("t", "wilcoxon", "sign", "randomisation", "tukey"):
        _, w, c = _timed(lambda: ev.compare(test=test))
        print(f"| {test} | {w:.1f} | {c:.1f} |")
    t = ev.compare(test="tukey")
    q = t.pairs.query("measure == 'AP' and scale == 'original'")["statistic"].to_numpy()
    df = (len(ev.topics) - 1) * (len(ev.systems) - 1)
    sample = q[:: max(1, len(q) // 200)]
    _, w, c = _timed(lambda: [stats.studentized_range.sf(x, len(ev.systems), df) for x in sample])
    scale = 4 * len(q) / len(sample)
    print(f"| tukey p-values by scipy, one call per pair ({len(sample)} pairs, × {scale:.0f}) | {w * scale:.0f} "
          f"| {c * scale:.0f} |")


def sign_test(topics: int) -> None:
    from irscales.stats._pairwise import sign_test as st

    rng = np.random.default_rng(38)
    s = rng.random((topics, 10)) + np.linspace(0, 0.01, 10)
    _, w, c = _timed(lambda: st(s))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {topics:,} | {w:.2f} | {c:.2f} | {peak:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--t08", nargs=2, metavar=("RUNS", "QRELS"))
    a = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
    if a.t08:
        report_tests(*a.t08)
        print()
    print("| sign test: topics (10 systems) | wall s | CPU s | peak RSS MiB (process) |")
    print("|---:|---:|---:|---:|")
    for topics in (5_000, 100_000):
        sign_test(topics)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
