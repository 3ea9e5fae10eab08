"""Benchmark of notebook ``07_beyond_fff21`` step by step (issue 20): the library calls of its cells
with the notebook's ``full=True`` parameters (or its quick ones), each timed (wall and CPU seconds,
children included), with a temporary, cold scale cache for the enumerated graded scales.

No data is simulated: the value curves are seeded samples of runs placed at their exact positions
(theory), the graded scales are exhaustive, and the τ rows use the public Cranfield Grid of Points
(``make data``). Prints a markdown table and the peak resident memory of the process.

    python benchmarks/bench_nb07.py            # full: curves at N = 50, 100; G = 3 at N = 12; grid at N = 12, 18 (~6 min)
    python benchmarks/bench_nb07.py --quick    # the notebook's quick settings (~30 s)
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    full = not a.quick
    n_curves, n_graded, n_grid, n_deep = ((50, 100), 12, 12, 18) if full else ((30,), 8, 10, 14)

    from irscales import measures as M
    from irscales.data import load_preset
    from irscales.papers.fff21 import beyond

    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    print("| step | wall s | CPU s |")
    print("|---|---:|---:|")
    total_w, total_c = time.perf_counter(), _cpu()

    def row(what: str, t0: float, c0: float) -> None:
        print(f"| {what} | {time.perf_counter() - t0:.1f} | {_cpu() - c0:.1f} |", flush=True)

    for name in ("RBP_p08", "DCG_b02", "RBP_p05", "RR"):
        t0, c0 = time.perf_counter(), _cpu()
        curves, _ = beyond.counted_curves(n_curves, names=(name,), n_runs=300, seed=0)
        runs = ", ".join(f"{len(v) - 2}" for v in curves.values())
        row(f"counted curve {name}, N = {', '.join(k.split('= ')[1] for k in curves)} ({runs} sampled runs)", t0, c0)
    t0, c0 = time.perf_counter(), _cpu()
    graded = {"gDCG_b02": M.DCG(base=2, gains="graded"), "gRBP_p08": M.GRBP(p=0.8, max_gain=2),
              "gRBP_p05": M.GRBP(p=0.5, max_gain=2), "gP": M.GP(max_gain=2)}
    for m in graded.values():
        beyond.graded_values(m, n_graded, 2, cache=False, workers=1)
    row(f"graded scales G = 3, N = {n_graded} (4 measures, 3^{n_graded} runs each, enumerated)", t0, c0)
    t0, c0 = time.perf_counter(), _cpu()
    beyond.value_curve(M.GRBP(p=0.8, max_gain=2), 30, 300, seed=0, c=2)
    row("counted curve gRBP_p08, G = 3, N = 30 (300 sampled runs)", t0, c0)
    t0, c0 = time.perf_counter(), _cpu()
    coll = load_preset("gop-cranfield", depth=20)
    row(f"load the public Cranfield grid ({len(coll.systems)} systems × {len(coll.topics)} topics)", t0, c0)
    with tempfile.TemporaryDirectory() as d:
        for name, m in beyond.graded_measures(int(coll.max_grade), beyond.TAU_MEASURES).items():
            t0, c0 = time.perf_counter(), _cpu()
            out = beyond.graded_ranked_taus(coll, n_grid, {name: m}, cache=d, workers=1)
            row(f"graded τ {name}, N = {n_grid} (φ {out.phi.iloc[0]}, cold cache)", t0, c0)
    t0, c0 = time.perf_counter(), _cpu()
    beyond.graded_ranked_taus(coll, n_deep, {"gRBP_p08": M.GRBP(p=0.8, max_gain=4)})
    row(f"graded τ gRBP_p08, N = {n_deep} (φ counted, 5^{n_deep} runs)", t0, c0)
    row("**total**", total_w, total_c)
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"\npeak RSS {peak / 2**20:.2f} GiB; load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
