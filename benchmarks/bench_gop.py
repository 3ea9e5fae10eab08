"""Benchmark of the public Grid of Points (issue 11); prints a markdown table.

For each collection (Cranfield, CISI, CACM): build the whole grid from the parsed files into an
empty cache (wall-clock and CPU seconds), the size of the cache files, the load time from the
cache, and the sanity baseline (BM25 + Porter + Lucene stop list: MAP and P@10, binary qrels).
Goal (issue 11): the three grids in ≤ 15 minutes on the 2-core machine, ≥ ~500 systems each.

Usage: python benchmarks/bench_gop.py [--quick] [--collections cranfield cisi cacm]
``--quick`` builds 34 systems per collection (one stop list, two LUGs, all models).
Needs the collections (mirror or ``make data``); without them it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--collections", nargs="+", default=["cranfield", "cisi", "cacm"])
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["IRSCALES_CACHE"] = tmp  # an empty cache: cold builds
        from irscales.data import datasets
        from irscales.data import gop

        missing = [n for n in args.collections if not datasets.available(n)]
        if missing or not datasets.available("cacm"):
            print(f"skipped: collection(s) {missing or ['cacm']} not available "
                  "(run `make data` or set IRSCALES_COLLECTIONS)")
            return 0
        systems = (gop.grid_systems(stops=["lucene"], lugs=["porter", "4grams"]) if args.quick
                   else gop.grid_systems())
        print(f"grid: {len(systems)} systems per collection "
              f"(LUGs: {', '.join(sorted({s.lug for s in systems}))})\n")
        print("| collection | systems x topics | build (s) | CPU (s) | cache (MB) | load (s) | baseline MAP | P@10 |")
        print("|---|---|---|---|---|---|---|---|")
        total = 0.0
        for name in args.collections:
            datasets.load(name)  # parse once outside the timing of the grid (timed below anyway)
            t0, c0 = time.perf_counter(), time.process_time()
            c = gop.build(name, systems, progress=False)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            total += dt
            size = sum(p.stat().st_size for p in (Path(tmp) / "gop").glob(f"{name}-*")) / 2**20
            t0 = time.perf_counter()
            gop.build(name, systems, progress=False)
            load = time.perf_counter() - t0
            b = gop.baseline(name)
            S, T, _ = c.shape
            print(f"| {name} | {S} x {T} | {dt:.1f} | {cpu:.1f} | {size:.1f} | {load:.2f} | "
                  f"{b['MAP']:.4f} | {b['P@10']:.4f} |", flush=True)
        print(f"\ntotal build time: {total:.1f} s (goal ≤ 900 s for the full grid)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
