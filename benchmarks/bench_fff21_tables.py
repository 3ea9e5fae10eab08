"""Benchmark of FFF21 Tables 2–6 (issue 8): all of them for sim-t08, sim-t26 and sim-t27.

Goal: Tables 2–3 for N = 5, 10, 20, 30 and Tables 4–6 at N = 30, for the three collections, in
≤ 10 minutes on the 2-core machine. Stages are timed separately (wall and CPU seconds, CPU including
worker processes): building/reading the 8 scales per N (cold when the cache is empty — that cost is
the enumeration engine's, see bench_enumeration.py), measures + ranked versions per (track, N),
Tables 2–3, Table 4, Tables 5–6 (8 tests × 11 measures and their ranked versions per track).

    python benchmarks/bench_fff21_tables.py            # full: N = 5, 10, 20, 30; Tables 4-6 at N = 30
    python benchmarks/bench_fff21_tables.py --quick    # N = 5, 10; Tables 4-6 at N = 10
    python benchmarks/bench_fff21_tables.py --cache DIR  # scale cache (default: the project cache)
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


class _Clock:
    def __init__(self):
        self.rows: list[tuple[str, float, float]] = []

    def __call__(self, label: str, fn, *args, **kwargs):
        w, c = time.perf_counter(), _cpu()
        out = fn(*args, **kwargs)
        self.rows.append((label, time.perf_counter() - w, _cpu() - c))
        return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 5, 10 and Tables 4-6 at N = 10")
    ap.add_argument("--cache", type=Path, default=None, help="scale cache directory (default: project cache)")
    ap.add_argument("--systems", type=int, default=None, help="first S systems of each collection (default: all)")
    args = ap.parse_args(argv)

    from irscales import enumeration as E
    from irscales import measures as M
    from irscales.data import load_preset
    from irscales.papers.fff21 import ranked as RK
    from irscales.papers.fff21 import significance_tables as ST
    from irscales.papers.fff21 import tables as FT

    Ns = [5, 10] if args.quick else [5, 10, 20, 30]
    N456 = 10 if args.quick else 30
    scale_kw = {"progress": False} | ({"cache": args.cache} if args.cache else {})
    # timing the builds is the point: stored scales (method="scale"), consent to builds over the budget
    clock = _Clock()
    t0w, t0c = time.perf_counter(), _cpu()

    for N in sorted(set(Ns) | {N456}):
        for name in ("P", "RR", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02", "DCG_b10", "SP"):
            clock(f"scale {name} N={N}", E.scale, M.parse(name), N, method="scale", build=True, **scale_kw)

    tracks = {}
    for preset in ("sim-t08", "sim-t26", "sim-t27"):
        c = clock(f"simulate {preset}", load_preset, preset, depth=30)
        if args.systems:
            c = c.subset(systems=list(range(min(args.systems, len(c.systems)))))
        tracks[RK.track_name(c)] = c

    res = {}
    for k, c in tracks.items():
        for N in sorted(set(Ns) | {N456}):
            res[k, N] = clock(f"measures + ranked {k}_{N:02d} ({len(c.systems)} systems)", RK.ranked_scores,
                              c, N, build=True, **scale_kw)
    rows = [res[k, N] for k in tracks for N in Ns]
    clock("Table 2 (all tracks and N)", FT.table2, rows)
    clock("Table 3 (all tracks and N)", FT.table3, rows)
    clock("topic-by-topic check", FT.topic_by_topic_check, rows)
    for k in tracks:
        clock(f"Table 4 {k}_{N456}", FT.table4, res[k, N456])
    frames = [clock(f"Tables 5-6 {k}_{N456}", ST.table56, res[k, N456]) for k in tracks]
    mean, sd = ST.grand_mean_delta(frames)

    total_w, total_c = time.perf_counter() - t0w, _cpu() - t0c
    print(f"FFF21 Tables 2-6, simulated sim-t08/t26/t27, N = {Ns}, Tables 4-6 at N = {N456}"
          f" (grand mean Δ% on simulated data: {mean:.0%} ± {sd:.0%})\n")
    print("| step | wall s | CPU s |\n|---|---:|---:|")
    for label, w, c in clock.rows:
        if w >= 0.05 or not label.startswith("scale"):
            print(f"| {label} | {w:.2f} | {c:.2f} |")
    scales_w = sum(w for label, w, _ in clock.rows if label.startswith("scale"))
    scales_c = sum(c for label, _, c in clock.rows if label.startswith("scale"))
    print(f"| all scales (build or read) | {scales_w:.2f} | {scales_c:.2f} |")
    print(f"| **total** | **{total_w:.2f}** | **{total_c:.2f}** |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
