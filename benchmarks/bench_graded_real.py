"""Benchmark of graded φ on real runs (issue 30): each graded count at the run lengths of notebook 08, on the
runs of CLEF eHealth 2018 (24 runs × 50 topics) and Robust 2004 (10 runs × 249 topics), three grades.

For each data set and N the distinct graded runs of the collection cut at N are saved once; then each
measure runs in a fresh process that loads only those runs and computes φ for all four tie strategies
the way notebook 08 does (the planner's route, one count for every strategy:
:meth:`irscales.enumeration.routes.Route.phi_runs_ties`). Each row: the route, the distinct runs, wall
seconds (the first compiled count of a process includes numba's compilation, about half a second), and
the process's peak resident memory (``VmHWM``) beside its resident memory before the count (imports and
runs): the difference is the count's own peak. Scale builds, if a route needs one, go to a temporary cache.

    python benchmarks/bench_graded_real.py                 # N = 5, 10, 20, 30 (~10 min on 2 idle cores)
    python benchmarks/bench_graded_real.py --quick         # N = 5, 10
    python benchmarks/bench_graded_real.py --N 30 --data robust2004

Needs the shared folder (``IRSCALES_SHARED``); without it the script says so and stops.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

CHILD = textwrap.dedent("""
    import sys, time, warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from irscales.enumeration.routes import choose_route
    from irscales.enumeration.ties import TIES
    from irscales.papers.fff21.graded_scores import measures

    def mb(key):  # this process's own memory (ru_maxrss would carry the parent's peak over the fork)
        line = next(x for x in open("/proc/self/status") if x.startswith(key))
        return int(line.split()[1]) // 1024

    runs, name, cache = np.load(sys.argv[1]), sys.argv[2], sys.argv[3]
    m, N = measures(2)[name], runs.shape[1]
    before = mb("VmRSS")
    t = time.perf_counter()
    route = choose_route(m, N, c=2, ties=TIES, runs=runs, cache=cache)
    route.phi_runs_ties(runs, TIES)
    print(route.kind, f"{time.perf_counter() - t:.2f}", before, mb("VmHWM"))
""")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 5 and 10 only")
    ap.add_argument("--N", type=int, nargs="*", help="run lengths (default 5 10 20 30)")
    ap.add_argument("--data", nargs="*", help="data sets (default both)")
    a = ap.parse_args()
    Ns = a.N or ([5, 10] if a.quick else [5, 10, 20, 30])

    import numpy as np

    from irscales.enumeration.counting import countable
    from irscales.papers.fff21 import graded_data as D
    from irscales.papers.fff21.graded_scores import GRADED, measures

    names = a.data or list(D.DATASETS)
    missing = [D.missing_reason(n) for n in names if not D.available(n)]
    if missing:
        print("skipped: " + "; ".join(missing))
        return 0
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    print("| data | N | measure | route | distinct runs | wall s (4 tie strategies) | peak RSS MB | RSS before MB |")
    print("|---|---:|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                col = D.load(name, depth=max(Ns)).collection
            for N in Ns:
                runs = np.unique(col.rel_at(N).reshape(-1, N).astype(np.int64), axis=0)
                path = Path(tmp) / f"{name}_{N}.npy"
                np.save(path, runs)
                for g in GRADED:
                    m = measures(2)[g]
                    if not countable(m, N, 2) and N > 10:
                        print(f"| {name} | {N} | {g} | not computed (ties; enumeration over the budget) | "
                              f"{len(runs):,} | — | — | — |", flush=True)
                        continue
                    out = subprocess.run([sys.executable, "-c", CHILD, str(path), g, str(Path(tmp) / "scales")],
                                         capture_output=True, text=True)
                    if out.returncode:
                        print(f"| {name} | {N} | {g} | failed: {out.stderr.strip().splitlines()[-1]} | | | | |")
                        continue
                    kind, wall, before, peak = out.stdout.split()
                    print(f"| {name} | {N} | {g} | {kind} | {len(runs):,} | {wall} | {peak} | {before} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
